"""The position commands: ``check``, ``moves`` and ``apply`` (docs/POSITION_FORMAT.md), and the
strict reading of a position file from any path."""

from __future__ import annotations

import argparse
import json
import sys

from kc_tui.cli.common import show_path
from kc_tui.config.args import CliError
from kc_tui.engine import (
    IllegalMove,
    MoveError,
    PositionError,
    dump_position,
    load_position,
    move_str,
    parse_move,
)
from kc_tui.engine.position import MAX_BYTES
from kc_tui.engine.state import Round
from kc_tui.i18n import _, ngettext
from kc_tui.util.files import FileError, read_user_file
from kc_tui.util.printable import write_line


def read_file(path: str, limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; :class:`CliError`
    (one line, the path made printable: :func:`~kc_tui.util.files.read_user_file`) for anything
    else. Never blocks on a FIFO and never reads more than ``limit + 1`` bytes."""
    try:
        return read_user_file(path, limit)
    except FileError as exc:
        raise CliError(str(exc)) from None


def _read_position(path: str, seed: int = 0) -> Round:
    data = read_file(path)
    try:
        return load_position(data, seed)
    except PositionError as exc:
        raise CliError(_("{path}: {error}").format(path=show_path(path), error=exc)) from None


def cmd_check(args: argparse.Namespace) -> int:
    r = _read_position(args.file)
    shown = show_path(args.file)
    if r.over:
        line = ngettext("{path}: valid position, {n} player, over", "{path}: valid position, {n} players, over", r.n)
        write_line(sys.stdout, line.format(path=shown, n=r.n))
    else:
        # Translators: {seat} is the number of the seat to move (0 to 3).
        line = ngettext(
            "{path}: valid position, {n} player, seat {seat} to move",
            "{path}: valid position, {n} players, seat {seat} to move",
            r.n,
        )
        write_line(sys.stdout, line.format(path=shown, n=r.n, seat=r.to_move))
    return 0


def cmd_moves(args: argparse.Namespace) -> int:
    r = _read_position(args.file)
    moves = sorted(move_str(m) for m in r.legal_moves())
    if args.json:
        write_line(sys.stdout, json.dumps(moves))
    else:
        for m in moves:
            write_line(sys.stdout, m)
    return 0


def cmd_apply(args: argparse.Namespace) -> int:
    r = _read_position(args.file, args.seed)
    for i, text in enumerate(args.moves, 1):
        try:
            m = parse_move(text)
            r.apply(m)
        except MoveError as exc:
            # Translators: {number} is the move's place among those given, {error} what is wrong with it.
            raise CliError(_("cannot read move {number}: {error}").format(number=i, error=exc)) from None
        except IllegalMove as exc:
            raise CliError(_("illegal move {number}: {error}").format(number=i, error=exc)) from None
    try:
        text = dump_position(r)
    except (TypeError, ValueError) as exc:  # pragma: no cover - a position read is always writable
        raise CliError(_("cannot write the position: {error}").format(error=exc)) from None
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0


# ---------------------------------------------------------------------------- stats

__all__ = ["cmd_apply", "cmd_check", "cmd_moves", "read_file"]
