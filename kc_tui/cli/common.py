"""What every command of ``kings-corners`` shares: the program's name and exit code, the argument
parser whose errors are one line, ``--seed``'s check and help, and paths shown in messages."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, NoReturn

from kc_tui.i18n import BREAK_MARK, N_, _, break_marks, ngettext
from kc_tui.util.printable import cells, one_line, show_path, wrap_cells

EXIT_BAD_INPUT = 2
PROG = "kings-corners"
#: The seeds the command line accepts (64 bits, the width of the engine's generator).
SEED_MAX = (1 << 64) - 1
#: ``--seed``'s help (pass it through ``_()`` where the parser is built).
#: ``--plain``'s help, for play, demo, tutorial, join and online.
PLAIN_HELP = N_("the plain mode: one line a thing, for a screen reader, a braille display or a pipe")
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


class MarkedHelpFormatter(argparse.HelpFormatter):
    """argparse's help, its lines wrapped at spaces and at Thai's break marks and measured in
    cells (a Thai vowel or tone mark above or below its letter takes none), printed without the
    marks (:func:`kc_tui.util.printable.wrap_cells`)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return wrap_cells(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in wrap_cells(text, width))

    def _format_action(self, action: argparse.Action) -> str:
        # argparse pads an option's name and value to the help's column by characters: a Thai
        # value's vowel or tone mark (ไฟล์) takes no cell, so its help would start short of it.
        text = super()._format_action(action)
        name = self._format_action_invocation(action)
        short = len(name) - cells(name)
        head, rest = text[: self._current_indent + len(name)], text[self._current_indent + len(name) :]
        if short > 0 and head.endswith(name) and rest[:1] == " ":
            return head + " " * short + rest
        return text

    def _format_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None) -> str:
        # argparse indents the usage's later lines under its first by the characters of "usage: ":
        # a Thai prefix (วิธีใช้: ) has vowels and tone marks that take no cell.
        text = super()._format_usage(usage, actions, groups, prefix)
        head = _("usage: ") if prefix is None else prefix
        extra = len(head) - cells(head)
        if extra <= 0:
            return text
        lines = text.split("\n")
        pad = " " * len(head)
        return "\n".join([lines[0], *(line[extra:] if line.startswith(pad) else line for line in lines[1:])])

    def format_help(self) -> str:
        return super().format_help().replace(BREAK_MARK, "")


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (see :func:`main`), for every subcommand too.

    What costs imports to make (a command's options, a help text that lists the AI kinds) is made
    when first needed: :meth:`later` adds arguments at the parser's first parse or help, and
    :meth:`help_later` gives an argument its help at the first help; a command that does not use
    them (``play``) starts without paying for them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", MarkedHelpFormatter)
        super().__init__(*args, **kwargs)
        self._later: list[Callable[[argparse.ArgumentParser], None]] = []
        self._help_later: list[tuple[argparse.Action, Callable[[], str]]] = []

    def later(self, add: Callable[[argparse.ArgumentParser], None]) -> None:
        """``add(self)`` adds its arguments to this parser when it is first parsed or shown."""
        self._later.append(add)

    def help_later(self, action: argparse.Action, help_text: Callable[[], str]) -> None:
        """``action``'s help is ``help_text()``, made when the help is first shown."""
        self._help_later.append((action, help_text))

    def _make(self) -> None:
        while self._later:
            self._later.pop(0)(self)

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        self._make()
        return super().parse_known_args(*args, **kwargs)

    def format_usage(self) -> str:
        self._make()
        return super().format_usage()

    def format_help(self) -> str:
        self._make()
        for action, help_text in self._help_later:
            with break_marks(True):  # the formatter wraps Thai lines there
                action.help = help_text()
        self._help_later.clear()
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        # Translators: {message} is argparse's message about the command line, {prog} the command.
        raise UsageError(_("{message} (see '{prog} --help')").format(message=message, prog=self.prog))


class VersionAction(argparse._VersionAction):
    """``--version``: prints ``make_version()``, called only then (reading the installed distribution's
    metadata costs imports every other start would pay)."""

    def __init__(self, *args: Any, make_version: Callable[[], str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._make_version = make_version

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        self.version = self._make_version()
        super().__call__(parser, *args, **kwargs)


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
    "PLAIN_HELP",
    "PROG",
    "SEED_HELP",
    "SEED_MAX",
    "Parser",
    "UsageError",
    "VersionAction",
    "seed_arg",
    "show_path",
    "speak_argparse",
]
