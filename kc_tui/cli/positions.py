"""The position commands: ``check``, ``moves`` and ``apply`` (docs/POSITION_FORMAT.md), and the
strict reading of a position file from any path."""

from __future__ import annotations

import argparse
import json
import os
import stat
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
from kc_tui.util.files import describe_os_error
from kc_tui.util.text import write_line


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return _("a directory")
    if stat.S_ISFIFO(mode):
        return _("a FIFO (named pipe)")
    if stat.S_ISCHR(mode):
        return _("a character device")
    if stat.S_ISBLK(mode):
        return _("a block device")
    if stat.S_ISSOCK(mode):
        return _("a socket")
    return _("not a regular file")


def read_file(path: str, limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; :class:`CliError`
    (one line, the path made printable) for anything else. Never blocks on a FIFO and never
    reads more than ``limit + 1`` bytes."""
    shown = show_path(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise CliError(_("{path}: no such file").format(path=shown)) from None
    except IsADirectoryError:
        raise CliError(_("{path}: is a directory, not a position file").format(path=shown)) from None
    except OSError as exc:
        # Translators: {path} is the file's name, {reason} why the system refused (describe_os_error).
        raise CliError(
            _("{path}: cannot open it ({reason})").format(path=shown, reason=describe_os_error(exc))
        ) from None
    except ValueError:  # a NUL byte in the name
        raise CliError(_("{path}: not a usable file name").format(path=shown)) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise CliError(_("{path}: is a directory, not a position file").format(path=shown))
        if not stat.S_ISREG(mode):
            # Translators: {kind} is what the file is (a directory, a socket, ...).
            raise CliError(_("{path}: is {kind}; only regular files are read").format(path=shown, kind=_kind_of(mode)))
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, limit + 1 - total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise CliError(
            _("{path}: cannot read it ({reason})").format(path=shown, reason=describe_os_error(exc))
        ) from None
    finally:
        os.close(fd)
    if total > limit:
        raise CliError(
            _("{path}: the file is larger than {limit} bytes (1 MiB), the most a position may be").format(
                path=shown, limit=limit
            )
        )
    return b"".join(chunks)


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
