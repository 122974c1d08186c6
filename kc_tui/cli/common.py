"""What every command of ``kings-corners`` shares: the program's name and exit code, the argument
parser whose errors are one line, ``--seed``'s check and help, and paths shown in messages."""

from __future__ import annotations

import argparse
from typing import NoReturn

from kc_tui.util.text import one_line, show_path

EXIT_BAD_INPUT = 2
PROG = "kings-corners"
#: The seeds the command line accepts (64 bits, the width of the engine's generator).
SEED_MAX = (1 << 64) - 1
SEED_HELP = (
    "seed of the match, 0 to 2**64-1 (same seed, same deals: a seeded match is predictable, for replays"
    " and tournaments; without one the deals come from 128 secret random bits)"
)
#: The longest message line written (longer ones are cut and end in "...").
MAX_LINE = 1000


class UsageError(Exception):
    """A command line that argparse cannot read; reported like a :class:`CliError`."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (see :func:`main`), for every subcommand too."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def seed_arg(text: str) -> int:
    """A ``--seed`` value: a whole number from 0 to :data:`SEED_MAX`."""
    t = text.strip()
    if not t or len(t) > len(str(SEED_MAX)) or not t.isascii() or not t.isdigit() or int(t) > SEED_MAX:
        shown = one_line(repr(text[:30] + ("..." if len(text) > 30 else "")), MAX_LINE)
        raise argparse.ArgumentTypeError(f"the seed must be a whole number from 0 to {SEED_MAX} (2**64-1), not {shown}")
    return int(t)


__all__ = [
    "EXIT_BAD_INPUT",
    "MAX_LINE",
    "PROG",
    "SEED_HELP",
    "SEED_MAX",
    "Parser",
    "UsageError",
    "seed_arg",
    "show_path",
]
