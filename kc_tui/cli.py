"""The ``kings-corners`` command: the app, the demo, the tournament and the position commands."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from kc_tui.engine import (
    IllegalMove,
    MoveError,
    PositionError,
    dump_position,
    load_position,
    move_str,
    parse_move,
)
from kc_tui.engine.state import Round

EXIT_BAD_INPUT = 2


class CliError(Exception):
    """A problem to report as one line on stderr with exit code 2."""


def _read_position(path: str, seed: int = 0) -> Round:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{path}: is a directory, not a position file") from None
    except UnicodeDecodeError:
        raise CliError(f"{path}: not a text file (expected a JSON position)") from None
    except OSError as exc:
        raise CliError(f"{path}: cannot read it ({exc.strerror})") from None
    try:
        return load_position(text, seed)
    except PositionError as exc:
        raise CliError(f"{path}: {exc}") from None


def cmd_check(args: argparse.Namespace) -> int:
    r = _read_position(args.file)
    state = "over" if r.over else f"seat {r.to_move} to move"
    print(f"{args.file}: valid position, {r.n} players, {state}")
    return 0


def cmd_moves(args: argparse.Namespace) -> int:
    r = _read_position(args.file)
    moves = sorted(move_str(m) for m in r.legal_moves())
    if args.json:
        print(json.dumps(moves))
    else:
        for m in moves:
            print(m)
    return 0


def cmd_apply(args: argparse.Namespace) -> int:
    r = _read_position(args.file, args.seed)
    for i, text in enumerate(args.moves, 1):
        try:
            m = parse_move(text)
            r.apply(m)
        except MoveError as exc:
            raise CliError(f"cannot read move {i}: {exc}") from None
        except IllegalMove as exc:
            raise CliError(f"illegal move {i}: {exc}") from None
    sys.stdout.write(dump_position(r))
    return 0


def _app(args: argparse.Namespace, mode: str) -> int:
    from kc_tui.ui.launch import launch

    code: int = launch(mode, args)
    return code


def cmd_tournament(args: argparse.Namespace) -> int:
    from ai.tournament import main as tournament_main

    code: int = tournament_main(args)
    return code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kings-corners",
        description="Kings Corners in the terminal. With no command, opens the app on its main menu.",
    )
    parser.add_argument("--config", metavar="FILE", help="settings file to use (default: the user's config dir)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("play", help="start a match against AI opponents")
    p.add_argument("--seed", type=int, help="seed of the match (same seed, same deals)")
    p.add_argument("--opponents", help="comma-separated AI kinds, e.g. greedy,king-aware (1 to 3)")
    p.add_argument("--target", type=int, help="target score (5 to 500)")
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.set_defaults(func=lambda a: _app(a, "play"))

    p = sub.add_parser("demo", help="watch AI players play each other")
    p.add_argument("--seats", help="comma-separated AI kinds, 2 to 4, e.g. greedy,expert")
    p.add_argument("--seed", type=int, help="seed of the match")
    p.add_argument("--pace", choices=["slow", "normal", "fast", "instant"], help="how fast moves are shown")
    p.add_argument("--target", type=int, help="target score (5 to 500)")
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.set_defaults(func=lambda a: _app(a, "demo"))

    p = sub.add_parser("tournament", help="measure AI players against each other over duplicate deals")
    try:
        from ai.tournament import add_arguments
    except ImportError:  # pragma: no cover - the tournament ships with the package
        pass
    else:
        add_arguments(p)
    p.set_defaults(func=cmd_tournament)

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
    p.add_argument("--seed", type=int, default=0, help="seed for shuffling completed piles into the stock (R12)")
    p.set_defaults(func=cmd_apply)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args.func = lambda a: _app(a, "menu")
    try:
        code: int = args.func(args)
    except CliError as exc:
        print(f"kings-corners: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
