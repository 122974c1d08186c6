"""The ``kings-corners`` command: its parser and ``main``. The commands live by group:
:mod:`kc_tui.cli.positions` (check, moves, apply), :mod:`kc_tui.cli.stats` (stats and its
exports), :mod:`kc_tui.cli.network` (host, join, serve); the app, the demo and the tournament are
started here; :mod:`kc_tui.cli.common` holds what they share."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Sequence

from kc_tui.cli.common import EXIT_BAD_INPUT, MAX_LINE, PROG, SEED_HELP, Parser, UsageError, seed_arg
from kc_tui.cli.network import add_host_parser, add_join_command, add_serve_parser
from kc_tui.cli.positions import cmd_apply, cmd_check, cmd_moves
from kc_tui.cli.stats import cmd_stats
from kc_tui.config.args import CliError, kinds_help, seats_help, target_help
from kc_tui.config.logs import DEFAULT_LOG_LEVEL, LOG_LEVELS, LOG_NAME, logging_to_file
from kc_tui.config.store import saved_language
from kc_tui.i18n import LANGUAGES, _, current
from kc_tui.i18n.choice import choose, start, write_note
from kc_tui.util.text import one_line, write_line

__all__ = ["CliError", "build_parser", "main", "version"]


def _app(args: argparse.Namespace, mode: str) -> int:
    from kc_tui.ui.launch import launch

    code: int = launch(mode, args)
    return code


def cmd_tournament(args: argparse.Namespace) -> int:
    from kc_tui.lab.tournament import main as tournament_main

    code: int = tournament_main(args)
    return code


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
    parser = Parser(
        prog=PROG,
        description="Kings Corners in the terminal. With no command, opens the app on its main menu.",
    )
    parser.add_argument("--config", metavar="FILE", help="settings file to use (default: the user's config dir)")
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}")
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
        help=f"what goes into the log file ({LOG_NAME} in the data folder; default: {DEFAULT_LOG_LEVEL})",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    p = sub.add_parser("play", help="start a match against AI opponents, or with other people at the keyboard")
    p.add_argument("--seed", type=seed_arg, help=SEED_HELP)
    p.add_argument("--opponents", help=kinds_help("greedy,king-aware", 1, 3))
    p.add_argument("--seats", help=seats_help())
    p.add_argument("--target", type=int, help=target_help())
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.set_defaults(func=lambda a: _app(a, "play"))

    p = sub.add_parser("demo", help="watch AI players play each other")
    p.add_argument("--seats", help=kinds_help("greedy,expert", 2, 4))
    p.add_argument("--seed", type=seed_arg, help=SEED_HELP)
    p.add_argument("--pace", choices=["slow", "normal", "fast", "instant"], help="how fast moves are shown")
    p.add_argument("--target", type=int, help=target_help())
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.set_defaults(func=lambda a: _app(a, "demo"))

    p = sub.add_parser("tournament", help="measure AI players against each other over duplicate deals")
    try:
        from kc_tui.lab.options import add_arguments
    except ImportError:  # pragma: no cover - the tournament ships with the package
        pass
    else:
        add_arguments(p)
    p.set_defaults(func=cmd_tournament)

    p = sub.add_parser("stats", help="your results and rating from the game history; --json/--csv export it")
    p.add_argument("--history", metavar="FILE", help="history file to read (default: the one the app keeps)")
    p.add_argument(
        "--player", metavar="NAME", help="whose results to show (default: your name in Settings, else who played most)"
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument(
        "--json", nargs="?", const="-", metavar="FILE", help="export every match with its rounds as JSON (to FILE)"
    )
    out.add_argument("--csv", metavar="FILE", help="export one row per round as CSV to FILE ('-': standard output)")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("check", help="validate a position file")
    p.add_argument("file")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("moves", help="list the legal moves of the player to move")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("apply", help="play moves on a position and print the result")
    p.add_argument("file")
    p.add_argument("moves", nargs="+", metavar="MOVE", help="e.g. 'play 7H N', 'move N E', end")
    p.add_argument(
        "--seed", type=seed_arg, default=0, help="seed for shuffling completed piles into the stock (R12), 0 to 2**64-1"
    )
    p.set_defaults(func=cmd_apply)
    add_host_parser(sub)
    add_join_command(sub)
    add_serve_parser(sub)
    return parser


@functools.cache
def _parser(language: str) -> argparse.ArgumentParser:
    """The parser in ``language``, built once per process (building it costs more than reading a
    position)."""
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
    speak(sys.argv[1:] if argv is None else argv)
    parser = _parser(current())
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            args.func = lambda a: _app(a, "menu")
        with logging_to_file(args.log_level):
            code: int = args.func(args)
    except (CliError, UsageError) as exc:
        write_line(sys.stderr, f"{PROG}: {one_line(str(exc), MAX_LINE)}")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    return code
