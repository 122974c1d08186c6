"""Tools for measuring the AIs: the tournament that plays them against each other."""
