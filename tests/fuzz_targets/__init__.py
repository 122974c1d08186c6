"""Fuzz targets: for each kind of file the program reads, ``cases(rng, n)`` and ``check(data, tmpdir)``."""
