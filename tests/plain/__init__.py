"""Tests of the plain mode: the table told in lines, typed lines read, whole matches through a pipe."""
