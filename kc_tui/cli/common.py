"""What every command of ``kings-corners`` shares: the program's name and exit code, the argument
parser whose errors are one line, ``--seed``'s check and help, and paths shown in messages."""

from __future__ import annotations

import argparse
from typing import NoReturn

from kc_tui.i18n import N_, _, ngettext
from kc_tui.util.text import one_line, show_path

EXIT_BAD_INPUT = 2
PROG = "kings-corners"
#: The seeds the command line accepts (64 bits, the width of the engine's generator).
SEED_MAX = (1 << 64) - 1
#: ``--seed``'s help (pass it through ``_()`` where the parser is built).
SEED_HELP = N_(
    "seed of the match, 0 to 2**64-1 (same seed, same deals: a seeded match is predictable, for replays"
    " and tournaments; without one the deals come from 128 secret random bits)"
)
#: The longest message line written (longer ones are cut and end in "...").
MAX_LINE = 1000


class UsageError(Exception):
    """A command line that argparse cannot read; reported like a :class:`CliError`."""


#: argparse's own texts (its headings, its help action's help, its error messages), given
#: msgids in the game's domain: :func:`speak_argparse` routes argparse's ``gettext`` to it.
ARGPARSE_TEXTS = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("show program's version number and exit"),
    # Translators: argparse's: the option named (e.g. --seed), then what is wrong with it.
    N_("argument %(argument_name)s: %(message)s"),
    N_("unrecognized arguments: %s"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    # Translators: argparse's: %(type)s is a Python type's name (int), %(value)r what was typed.
    N_("invalid %(type)s value: %(value)r"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("unexpected option string: %s"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    N_("can't open '%(filename)s': %(error)s"),
    N_("%(prog)s: error: %(message)s\n"),
)
#: argparse's counted text, in the form Babel finds (a plural msgid); argparse asks for it itself.
ARGPARSE_PLURALS = (
    # Translators: argparse's: %s is the number of values the option takes.
    lambda n: ngettext("expected %s argument", "expected %s arguments", n),
)


def speak_argparse() -> None:
    """Make argparse's own texts (``usage:``, ``options``, its errors) come from the game's
    catalog in the language in use (English: argparse's very words)."""
    argparse._ = _  # type: ignore[attr-defined]
    argparse.ngettext = ngettext  # type: ignore[attr-defined]


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (see :func:`main`), for every subcommand too."""

    def error(self, message: str) -> NoReturn:
        # Translators: {message} is argparse's message about the command line, {prog} the command.
        raise UsageError(_("{message} (see '{prog} --help')").format(message=message, prog=self.prog))


def seed_arg(text: str) -> int:
    """A ``--seed`` value: a whole number from 0 to :data:`SEED_MAX`."""
    t = text.strip()
    if not t or len(t) > len(str(SEED_MAX)) or not t.isascii() or not t.isdigit() or int(t) > SEED_MAX:
        shown = one_line(repr(text[:30] + ("..." if len(text) > 30 else "")), MAX_LINE)
        raise argparse.ArgumentTypeError(
            _("the seed must be a whole number from 0 to {max} (2**64-1), not {shown}").format(
                max=SEED_MAX, shown=shown
            )
        )
    return int(t)


__all__ = [
    "ARGPARSE_TEXTS",
    "EXIT_BAD_INPUT",
    "MAX_LINE",
    "PROG",
    "SEED_HELP",
    "SEED_MAX",
    "Parser",
    "UsageError",
    "seed_arg",
    "show_path",
    "speak_argparse",
]
