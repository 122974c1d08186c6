"""Advice for a human: the hint for the next move and the review of a played round."""
