"""The ``kings-corners`` command: its parser and ``main``. The commands live by group:
:mod:`kc_tui.cli.positions` (check, moves, apply), :mod:`kc_tui.cli.stats_command` (stats and its
exports), :mod:`kc_tui.cli.network` (host, join, online, serve); the app, the demo and the tournament are
started here, and so is the tutorial; :mod:`kc_tui.cli.common` holds what they share."""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kc_tui.cli.cluster import add_cluster_parsers
from kc_tui.cli.common import (
    EXIT_BAD_INPUT,
    MAX_LINE,
    PLAIN_HELP,
    PROG,
    SEED_HELP,
    Parser,
    UsageError,
    VersionAction,
    seed_arg,
    speak_argparse,
)
from kc_tui.cli.network import (
    add_host_parser,
    add_join_command,
    add_online_command,
    add_serve_parser,
    add_server_parser,
)
from kc_tui.cli.positions import cmd_apply, cmd_check, cmd_moves
from kc_tui.cli.stats_command import cmd_stats
from kc_tui.config.args import CliError, kinds_help, seats_help, target_help
from kc_tui.config.logs import DEFAULT_LOG_LEVEL, LOG_LEVELS, LOG_NAME, logging_to_file
from kc_tui.config.store import saved_language
from kc_tui.i18n import LANGUAGES, _, break_marks, current, problem
from kc_tui.i18n.choice import choose, start, write_note
from kc_tui.util.printable import one_line, write_line

if TYPE_CHECKING:
    from kc_tui.match.starting import Start

__all__ = ["CliError", "build_parser", "main", "version"]


def _app(args: argparse.Namespace, mode: str) -> int:
    """Start ``mode``: the plain mode with ``--plain`` or the setting ``plain``, else the app."""
    from kc_tui.match.starting import start_settings

    start = start_settings(mode, args)
    if getattr(args, "plain", False) or start.config.plain:
        return _plain(mode, start)
    from kc_tui.ui.launch import launch

    code: int = launch(mode, args, start)
    return code


def _plain(mode: str, start: Start) -> int:
    """``mode`` in the plain mode, on the standard input and output (no terminal needed): a
    closed output ends it as a quit does."""
    from kc_tui.plain.lines import Lines
    from kc_tui.plain.local import run_local

    with contextlib.suppress(AttributeError, ValueError):  # a typed byte that is not UTF-8 is not the end
        sys.stdin.reconfigure(errors="replace")  # type: ignore[union-attr]
    try:
        with break_marks(True):  # Thai's lines wrapped between its words (Lines drops the marks)
            return run_local(mode, start, Lines(sys.stdout, sys.stdin))
    except BrokenPipeError:
        with contextlib.suppress(OSError, ValueError):  # nothing more is written to the closed output
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return 0


def cmd_tournament(args: argparse.Namespace) -> int:
    from kc_tui.lab.tournament import main as tournament_main

    code: int = tournament_main(args)
    return code


def _tournament_arguments(parser: argparse.ArgumentParser) -> None:
    try:
        from kc_tui.lab.options import add_arguments
    except ImportError:  # pragma: no cover - the tournament ships with the package
        return
    add_arguments(parser)


def version() -> str:
    """The installed distribution's version (its metadata), else the package's own (a source tree
    that is not installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version(PROG)
    except PackageNotFoundError:
        from kc_tui import __version__

        return __version__


def build_parser() -> argparse.ArgumentParser:
    """The command's parser, its texts in the language in use when it is built (``--help``
    shows them so: choose the language first, see :func:`main`)."""
    speak_argparse()
    parser = Parser(
        prog=PROG,
        description=_("Kings Corners in the terminal. With no command, opens the app on its main menu."),
    )
    # Translators: a word shown in --help for a value the user types (a file's name).
    parser.add_argument("--config", metavar=_("FILE"), help=_("settings file to use (default: the user's config dir)"))
    parser.add_argument(
        "--version",
        action=VersionAction,
        make_version=lambda: f"{PROG} {version()}",
        help=_("show program's version number and exit"),
    )
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        metavar="CODE",
        help=_("the language to speak: {codes} (default: the setting, else the environment's)").format(
            codes=", ".join(LANGUAGES)
        ),
    )
    parser.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default=DEFAULT_LOG_LEVEL,
        # Translators: {log} is the log file's name, {level} a log level (warning).
        help=_("what goes into the log file ({log} in the data folder; default: {level})").format(
            log=LOG_NAME, level=DEFAULT_LOG_LEVEL
        ),
    )
    # Translators: a word shown in --help where a command's name goes.
    sub = parser.add_subparsers(dest="command", metavar=_("COMMAND"), parser_class=Parser)

    p = sub.add_parser("play", help=_("start a match against AI opponents, or with other people at the keyboard"))
    # Translators: words shown in --help for the values of --seed, --opponents, --seats, --target.
    p.add_argument("--seed", metavar=_("SEED"), type=seed_arg, help=_(SEED_HELP))
    p.help_later(p.add_argument("--opponents", metavar=_("OPPONENTS")), lambda: kinds_help("greedy,king-aware", 1, 3))
    p.help_later(p.add_argument("--seats", metavar=_("SEATS")), seats_help)
    p.add_argument("--target", metavar=_("TARGET"), type=int, help=target_help())
    p.add_argument("--config", metavar=_("FILE"), default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.add_argument("--plain", action="store_true", help=_(PLAIN_HELP))
    p.set_defaults(func=lambda a: _app(a, "play"))

    p = sub.add_parser("demo", help=_("watch AI players play each other"))
    p.help_later(p.add_argument("--seats", metavar=_("SEATS")), lambda: kinds_help("greedy,expert", 2, 4))
    p.add_argument("--seed", metavar=_("SEED"), type=seed_arg, help=_(SEED_HELP))
    p.add_argument("--pace", choices=["slow", "normal", "fast", "instant"], help=_("how fast moves are shown"))
    p.add_argument("--target", metavar=_("TARGET"), type=int, help=target_help())
    p.add_argument("--config", metavar=_("FILE"), default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.add_argument("--plain", action="store_true", help=_(PLAIN_HELP))
    p.set_defaults(func=lambda a: _app(a, "demo"))

    p = sub.add_parser("tutorial", help=_("learn the game: a guided first game, one move at a time"))
    p.add_argument("--config", metavar=_("FILE"), default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.add_argument("--plain", action="store_true", help=_(PLAIN_HELP))
    p.set_defaults(func=lambda a: _app(a, "tutorial"))

    p = sub.add_parser("tournament", help=_("measure AI players against each other over duplicate deals"))
    p.later(_tournament_arguments)
    p.set_defaults(func=cmd_tournament)

    p = sub.add_parser("stats", help=_("your results and rating from the game history; --json/--csv export it"))
    p.add_argument("--history", metavar=_("FILE"), help=_("history file to read (default: the one the app keeps)"))
    p.add_argument(
        "--player",
        # Translators: a word shown in --help for a player's name the user types.
        metavar=_("NAME"),
        help=_("whose results to show (default: your name in Settings, else who played most)"),
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar=_("FILE"),
        help=_("export every match with its rounds as JSON (to FILE)"),
    )
    out.add_argument(
        "--csv", metavar=_("FILE"), help=_("export one row per round as CSV to FILE ('-': standard output)")
    )
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("check", help=_("validate a position file"))
    # Translators: a word shown in --help for a position file's name.
    p.add_argument("file", metavar=_("file"))
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("moves", help=_("list the legal moves of the player to move"))
    p.add_argument("file", metavar=_("file"))
    p.add_argument("--json", action="store_true", help=_("print a JSON list"))
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("apply", help=_("play moves on a position and print the result"))
    p.add_argument("file", metavar=_("file"))
    p.add_argument(
        "moves",
        nargs="+",
        # Translators: a word shown in --help for a move the user types; the moves in the help stay as typed.
        metavar=_("MOVE"),
        help=_("e.g. 'play 7H N', 'move N E', end"),
    )
    p.add_argument(
        "--seed",
        metavar=_("SEED"),
        type=seed_arg,
        default=0,
        help=_("seed for shuffling completed piles into the stock (R12), 0 to 2**64-1"),
    )
    p.set_defaults(func=cmd_apply)
    add_host_parser(sub)
    add_server_parser(sub)
    add_cluster_parsers(sub)
    add_join_command(sub)
    add_online_command(sub)
    add_serve_parser(sub)
    return parser


@functools.cache
def _parser(language: str) -> argparse.ArgumentParser:
    """The parser in ``language``, built once per process (building it costs more than reading a
    position). Its help texts keep their break marks: the help's formatter wraps Thai lines there
    and prints none (:class:`kc_tui.cli.common.MarkedHelpFormatter`)."""
    with break_marks(True):
        return build_parser()


def _option(argv: Sequence[str], name: str) -> str | None:
    """The value of option ``name`` in ``argv`` (``--name V`` or ``--name=V``; the last wins),
    read before the parser is built."""
    found: str | None = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == name and i + 1 < len(argv):
            found = argv[i + 1]
        elif arg.startswith(name + "="):
            found = arg.partition("=")[2]
    return found


def speak(argv: Sequence[str]) -> str:
    """Choose the language from ``--lang``, the saved setting and the environment
    (:func:`kc_tui.i18n.choice.start`) and speak it; the English line that the terminal cannot
    show it goes to stderr. A choice of ``--lang`` or the setting is put in $LANGUAGE for the
    processes started from this one. The code in use is returned."""
    flag = _option(argv, "--lang")
    setting = "" if flag in LANGUAGES else saved_language(_option(argv, "--config"))
    code, note = start(flag, setting)
    write_note(note)
    if flag in LANGUAGES or setting in LANGUAGES:
        # The apps this one starts (a browser tab's, under `serve`) speak the language chosen here.
        os.environ["LANGUAGE"] = choose(flag, setting)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; a problem with the input is one line ``kings-corners: ...`` on stderr, exit 2."""
    # The language is chosen before the parser is built: its help texts and argparse's own
    # ("usage:", "options") are translated when it is built.
    speak(sys.argv[1:] if argv is None else argv)
    parser = _parser(current())
    # The lines printed here come without Thai's break marks (one_line would escape them); the
    # app's screens get them back (kc_tui.ui.launch).
    with break_marks(False):
        try:
            args = parser.parse_args(argv)
            if args.command is None:
                args.func = lambda a: _app(a, "menu")
            with logging_to_file(args.log_level):
                if problem() is not None:  # said on stderr already (speak); the log keeps it too
                    logging.getLogger(__name__).warning("%s", problem())
                code: int = args.func(args)
        except (CliError, UsageError) as exc:
            # Translators: {prog} is the command's name (kings-corners), {message} what went wrong.
            write_line(sys.stderr, _("{prog}: {message}").format(prog=PROG, message=one_line(str(exc), MAX_LINE)))
            return EXIT_BAD_INPUT
        except KeyboardInterrupt:
            return 130
    return code
