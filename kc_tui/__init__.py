"""Kings Corners in the terminal."""

#: The version of the package (pyproject.toml reads it from here).
__version__ = "0.1.0"
