"""The ``kings-corners`` command: the app, the demo, the tournament, the statistics and the position commands."""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

from kc_tui.config.args import CliError, kinds_help, seats_help, target_help
from kc_tui.config.logs import DEFAULT_LOG_LEVEL, LOG_LEVELS, LOG_NAME, logging_to_file
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
from kc_tui.util.files import describe_os_error
from kc_tui.util.text import one_line, write_line

if TYPE_CHECKING:
    from kc_tui.records.store import History

__all__ = ["CliError", "build_parser", "main", "version"]

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


def show_path(path: str) -> str:
    """A file name as the user typed it, made printable: bytes that are not UTF-8 (kept by
    Python as surrogate escapes) are shown as ``\\xNN``, control characters escaped."""
    try:
        text = os.fsencode(path).decode("utf-8", "backslashreplace")
    except UnicodeError:
        text = path
    return one_line(text, 300)


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_file(path: str, limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; :class:`CliError`
    (one line, the path made printable) for anything else. Never blocks on a FIFO and never
    reads more than ``limit + 1`` bytes."""
    shown = show_path(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise CliError(f"{shown}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{shown}: is a directory, not a position file") from None
    except OSError as exc:
        raise CliError(f"{shown}: cannot open it ({describe_os_error(exc)})") from None
    except ValueError:  # a NUL byte in the name
        raise CliError(f"{shown}: not a usable file name") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise CliError(f"{shown}: is a directory, not a position file")
        if not stat.S_ISREG(mode):
            raise CliError(f"{shown}: is {_kind_of(mode)}; only regular files are read")
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, limit + 1 - total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise CliError(f"{shown}: cannot read it ({describe_os_error(exc)})") from None
    finally:
        os.close(fd)
    if total > limit:
        raise CliError(f"{shown}: the file is larger than {limit} bytes (1 MiB), the most a position may be")
    return b"".join(chunks)


def _read_position(path: str, seed: int = 0) -> Round:
    data = read_file(path)
    try:
        return load_position(data, seed)
    except PositionError as exc:
        raise CliError(f"{show_path(path)}: {exc}") from None


def cmd_check(args: argparse.Namespace) -> int:
    r = _read_position(args.file)
    state = "over" if r.over else f"seat {r.to_move} to move"
    write_line(sys.stdout, f"{show_path(args.file)}: valid position, {r.n} players, {state}")
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
            raise CliError(f"cannot read move {i}: {exc}") from None
        except IllegalMove as exc:
            raise CliError(f"illegal move {i}: {exc}") from None
    try:
        text = dump_position(r)
    except (TypeError, ValueError) as exc:  # pragma: no cover - a position read is always writable
        raise CliError(f"cannot write the position: {exc}") from None
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0


# ---------------------------------------------------------------------------- stats
def _check_history(path: Path) -> History:
    """The history at ``path`` opened for reading only (:meth:`History.open_read_only`): nothing
    is created, written, migrated or moved; :class:`CliError` (one line) when it cannot be read."""
    from kc_tui.records.rows import HistoryError
    from kc_tui.records.store import History

    try:
        return History.open_read_only(path)
    except HistoryError as exc:
        raise CliError(str(exc)) from None


def _ours(target: str, read: Path) -> str | None:
    """What of the files the command reads ``target`` is (the history ``read``, its -wal, -shm or
    -journal, through links too), or None when it is none of them."""
    names = {"": "the history it reads", "-wal": "the history's -wal file", "-shm": "the history's -shm file"}
    names["-journal"] = "the history's -journal file"
    target_real = os.path.realpath(target)
    for end, what in names.items():
        for candidate in {str(read) + end, os.path.realpath(read) + end}:
            try:
                if os.path.samefile(target, candidate):
                    return what
            except (OSError, ValueError):
                pass
            if target_real == os.path.realpath(candidate):
                return what
    return None


def _open_output(target: str) -> tuple[TextIO, str | None]:
    """Where the export goes: ``-`` standard output; a FIFO or a device written as it is; else a
    new temporary file beside ``target`` (its real path, through links), made the target by
    :func:`_write_export` once whole. The stream and the temporary file's path (None when
    writing in place); :class:`CliError` when it cannot be written."""
    if target == "-":
        return sys.stdout, None
    from kc_tui.records.files import reason

    shown = show_path(target)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except (OSError, ValueError) as exc:
        detail = reason(exc) if isinstance(exc, OSError) else "not a usable file name"
        raise CliError(f"cannot write {shown}: {detail}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise CliError(f"{shown}: is a directory")
    try:
        if st is not None and not stat.S_ISREG(st.st_mode):  # /dev/stdout, a named pipe: in place
            return open(target, "w", encoding="utf-8", newline=""), None  # closed by _write_export
        real = os.path.realpath(target)
        folder = os.path.dirname(real) or "."
        if not os.path.isdir(folder):
            raise CliError(f"cannot write {shown}: no such folder")
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(real)}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise CliError(f"cannot write {shown}: {reason(exc)}") from None
    except ValueError:
        raise CliError(f"{shown}: not a usable file name") from None
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~mask)
        return os.fdopen(fd, "w", encoding="utf-8", newline=""), tmp
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise


def _write_export(target: str, write: Callable[[TextIO], object]) -> None:
    """Write the export with ``write``: to a regular file atomically (a temporary file in the
    same folder, flushed to the disk, then renamed over the target; removed on any failure, so
    that a full disk never leaves half a file), to standard output or a FIFO as it goes."""
    from kc_tui.records.files import reason

    out, tmp = _open_output(target)
    try:
        write(out)
        out.flush()
        if tmp is not None:
            os.fsync(out.fileno())
            out.close()
            os.replace(tmp, os.path.realpath(target))
            tmp = None
    except BrokenPipeError:
        raise  # the reader stopped (``| head``): see cmd_stats
    except OSError as exc:
        raise CliError(f"cannot write {show_path(target)}: {reason(exc)}") from None
    finally:
        if out is not sys.stdout:
            with contextlib.suppress(OSError):
                out.close()
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def cmd_stats(args: argparse.Namespace) -> int:
    """The player's statistics (the Stats screen's summary) as text; ``--json``/``--csv`` export
    the whole history instead. The history is only read (:meth:`History.open_read_only`); an
    export is never written over a file the command reads."""
    from kc_tui.records.rows import default_history_path

    path = Path(args.history) if args.history is not None else default_history_path()
    target = args.json if args.json is not None else args.csv
    if target is not None and target != "-":
        what = _ours(target, path)
        if what is not None:
            raise CliError(f"{show_path(target)}: is {what}; the export is written to another file")
    history: History | None = None
    if args.history is not None or os.path.lexists(path):
        history = _check_history(path)
    elif target is None:  # nothing played yet (and no file is made to say so)
        _print_report(None)
        return 0
    try:
        _stats_output(args, history)
    except BrokenPipeError:
        # The reader of standard output stopped early (``kings-corners stats --csv - | head``):
        # nothing went wrong here; later writes (and Python's own flush at exit) go nowhere.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    finally:
        if history is not None:
            history.close()
    return 0


def _stats_output(args: argparse.Namespace, history: History | None) -> None:
    """Print the summary, or export the history (``--json``/``--csv``; nothing recorded: none)."""
    if args.json is not None:
        data = history.export_json() if history is not None else []
        _write_export(args.json, lambda out: out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n"))
        _exported(args.json, f"{len(data)} matches")
    elif args.csv is not None:
        rows = history.export_rows() if history is not None else []
        _write_export(args.csv, lambda out: _write_csv(out, rows))
        _exported(args.csv, f"{len(rows)} rounds")
    else:
        _print_report(history, _person(args, history))


def _person(args: argparse.Namespace, history: History | None) -> str | None:
    """Whose statistics ``stats`` shows: ``--player NAME`` (a name no one played under is a
    :class:`CliError` naming who did), else the Settings name when that person played, else the
    one who played most; None when no one played."""
    from kc_tui.config.store import load_config
    from kc_tui.records.stats_views import choose_person

    people = history.people() if history is not None else []
    wanted: str | None = args.player
    if wanted is not None:
        if wanted in people or not people:
            return wanted
        who = ", ".join(one_line(name, 40) for name in people[:10]) + (", ..." if len(people) > 10 else "")
        raise CliError(f"no matches of {one_line(wanted, 40)} in the history; its players: {who}")
    return choose_person(people, load_config(getattr(args, "config", None))[0].player_name)


#: What a spreadsheet reads as the start of a formula (OWASP's list for CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """``value`` safe in a spreadsheet: text starting with a formula character
    (:data:`FORMULA_START`) gets a single quote before it, as OWASP advises. Every text cell is
    treated so, numeric-looking text too (``"-2+3"`` becomes ``"'-2+3"``); numbers stay numbers
    (an int such as -1 is written ``-1``), and lists of numbers are JSON text starting ``[``."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def _write_csv(out: TextIO, rows: list[dict[str, object]]) -> None:
    import csv

    from kc_tui.records.export import EXPORT_COLUMNS

    writer = csv.DictWriter(out, fieldnames=list(EXPORT_COLUMNS), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: csv_cell(v) for k, v in row.items()} for row in rows)


def _exported(target: str, what: str) -> None:
    if target != "-":
        write_line(sys.stderr, f"{PROG}: wrote {what} to {show_path(target)}")


def _print_report(history: History | None, person: str | None = None) -> None:
    """The report of ``person``'s matches (None: of the one who played most)."""
    from kc_tui.records.stats import Summary
    from kc_tui.records.stats_views import finished, player_matches, rating_view, report_lines

    every = player_matches(history.matches()) if history is not None else []
    records = player_matches(every, person)
    summary = history.summary(person) if history is not None else Summary()
    done = sorted((m for m in every if finished(m)), key=lambda m: (m.finished_at, m.started_at, m.id))
    people = history.people() if history is not None else []
    several = len(people) > 1 and person is not None
    rating = rating_view(done, person=person, who=person if several and person is not None else "")
    lines = report_lines(summary, rating, {m.id: m for m in records}, len(records), person)
    if several:
        others = ", ".join(one_line(name, 40) for name in people if name != person)
        lines.insert(0, f"Results of {person} (also played: {others}; --player NAME shows theirs)")
    for line in lines:
        write_line(sys.stdout, one_line(line, MAX_LINE))


def seed_arg(text: str) -> int:
    """A ``--seed`` value: a whole number from 0 to :data:`SEED_MAX`."""
    t = text.strip()
    if not t or len(t) > len(str(SEED_MAX)) or not t.isascii() or not t.isdigit() or int(t) > SEED_MAX:
        shown = one_line(repr(text[:30] + ("..." if len(text) > 30 else "")), MAX_LINE)
        raise argparse.ArgumentTypeError(f"the seed must be a whole number from 0 to {SEED_MAX} (2**64-1), not {shown}")
    return int(t)


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


# ---------------------------------------------------------------------------- serve
def add_serve_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    """``kings-corners serve``: the app in a browser, one app process per tab (kc_tui.web)."""
    from kc_tui.web.options import DEFAULT_BIND, DEFAULT_PORT, allow_join_arg, port_arg

    p = sub.add_parser(
        "serve",
        help="serve the app to web browsers (each tab its own app, settings and saves)",
        description="Serve the app to web browsers: each tab runs its own app on this machine. A tab's"
        " 'Join a table' connects from this machine, so it is offered only with --allow-join, and joins"
        " only the tables listed there.",
    )
    p.add_argument(
        "--bind",
        default=DEFAULT_BIND,
        metavar="ADDRESS",
        help=f"the address to listen on (default: {DEFAULT_BIND}, this machine only; any other prints a warning)",
    )
    p.add_argument("--port", type=port_arg, default=DEFAULT_PORT, help=f"the port (default: {DEFAULT_PORT})")
    p.add_argument(
        "--root",
        metavar="DIR",
        help="the folder that holds each tab's private folder (default: web-tabs in the data folder)",
    )
    p.add_argument(
        "--allow-join",
        action="append",
        type=allow_join_arg,
        metavar="HOST:PORT",
        help="let the tabs join the table a 'host' serves at HOST:PORT (repeatable; the host and port"
        " compared exactly, no name looked up; IPv6 as [::1]:8765). Without it a tab joins no table",
    )
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the app to browsers until Ctrl+C. Each tab's app has a private folder under the root
    (its settings, save and history), removed when the tab's app ends (kc_tui.web.folders)."""
    from kc_tui.net.allowlist import MAX_TABLES
    from kc_tui.web.folders import RootError, default_root, ready_root

    tables = tuple(dict.fromkeys(args.allow_join or ()))
    if len(tables) > MAX_TABLES:
        raise CliError(f"--allow-join: at most {MAX_TABLES} tables, not {len(tables)}")
    try:
        root = ready_root(args.root if args.root is not None else default_root())
    except RootError as exc:
        raise CliError(str(exc)) from None
    from kc_tui.web.site import ServeError, serve

    def say(line: str) -> None:
        write_line(sys.stdout, one_line(line, MAX_LINE))

    def warn(line: str) -> None:
        write_line(sys.stderr, f"{PROG}: {one_line(line, MAX_LINE)}")

    try:
        serve(root, args.bind, args.port, say, warn, tables)
    except ServeError as exc:
        raise CliError(str(exc)) from None
    return 0


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (see :func:`main`), for every subcommand too."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG,
        description="Kings Corners in the terminal. With no command, opens the app on its main menu.",
    )
    parser.add_argument("--config", metavar="FILE", help="settings file to use (default: the user's config dir)")
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}")
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
    _add_host(sub)
    add_join_command(sub)
    add_serve_parser(sub)
    return parser


# ---------------------------------------------------------------------------- host
def _add_host(sub: argparse._SubParsersAction[Parser]) -> None:
    """``host``: serve one table to people on other machines (docs/PROTOCOL.md)."""
    from kc_tui.engine.rules import rules_help

    p = sub.add_parser("host", help="serve a table to people on other machines ('join' sits at it)")
    p.add_argument("--seats", help=seats_help() + "; one join command is printed per person's seat")
    p.add_argument(
        "--rules",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help=f"rule variants, e.g. draw=end: {rules_help(offered=True)}",
    )
    p.add_argument("--target", type=int, help=target_help())
    p.add_argument("--seed", type=seed_arg, help=SEED_HELP)
    p.add_argument(
        "--bind", help="the address to listen on (default 127.0.0.1: this machine only; share it with an SSH tunnel)"
    )
    p.add_argument("--port", help="the port to listen on, 0 to 65535 (default 8765; 0: any free port)")
    p.add_argument("--resume", action="store_true", help="serve the saved hosted table again: same port, same seats")
    p.add_argument(
        "--replace",
        action="store_true",
        help="start a new table over an unfinished hosted one, kept aside as hosted.json.replaced (else host refuses)",
    )
    p.add_argument(
        "--stand-in",
        metavar="SECONDS",
        help="seconds an away person's seat waits before an AI plays it (default 60; 0: never)",
    )
    p.add_argument(
        "--addresses",
        metavar="DIR",
        help="write each person's seat address into its own file in DIR (readable by you only; DIR is made"
        " 0700 if missing) instead of printing it: hand each person their file, they run join --file FILE",
    )
    p.add_argument("--cert", metavar="FILE", help="TLS certificate (PEM) to serve wss:// (with --key)")
    p.add_argument("--key", metavar="FILE", help="the certificate's private key (PEM)")
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_host)


def cmd_host(args: argparse.Namespace) -> int:
    from kc_tui.net.hosting import run

    return run(args)


# ---------------------------------------------------------------------------- join
def add_join_command(sub: argparse._SubParsersAction[Parser]) -> None:
    """``join (--file FILE | URL) [--watch]``: a seat (or a spectator's view) at a table ``host`` runs."""
    p = sub.add_parser("join", help="sit at a table another machine hosts (the address 'host' gave you)")
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--file",
        metavar="FILE",
        help="read the seat's address from FILE (the file 'host --addresses' wrote; '-': paste it at the"
        " terminal): it stays out of the process list other users see",
    )
    where.add_argument(
        "url",
        metavar="URL",
        nargs="?",
        help="the seat's address, ws://HOST:PORT/seat/<token> (or .../watch); on the command line other"
        " users of this machine can read it in the process list and take the seat: prefer --file",
    )
    p.add_argument("--watch", action="store_true", help="watch the table: what is public, no hand")
    p.add_argument(
        "--cafile", metavar="FILE", help="trust a wss:// server with this certificate (the host's --cert, self-signed)"
    )
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_join)


def cmd_join(args: argparse.Namespace) -> int:
    """The app on a remote seat; an address that cannot be joined is one line (exit 2)."""
    import ssl

    from kc_tui.net.client import AddressError, table_address, trusting

    if args.file is not None:
        from kc_tui.net.addresses import read_address

        url = read_address(args.file, watch=args.watch)
    elif args.url is None:
        raise CliError("join needs the seat's address: --file FILE (the file the host gave you) or the URL")
    else:
        try:
            url = table_address(args.url, watch=args.watch)
        except AddressError as exc:
            raise CliError(str(exc)) from None
    if args.cafile is not None:
        if not url.startswith("wss://"):
            raise CliError("--cafile is for a wss:// address (a server with --cert and --key)")
        try:
            trusting(args.cafile)
        except (OSError, ssl.SSLError) as exc:
            raise CliError(f"{show_path(args.cafile)}: not a certificate file that can be read ({exc})") from None
    from kc_tui.ui.app import KingsCornersApp
    from kc_tui.ui.launch import build_app, run

    app = build_app("join", args)
    assert isinstance(app, KingsCornersApp)
    app.options.join, app.options.join_cafile = url, args.cafile
    return run(app)


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """The parser, built once per process (building it costs more than reading a position)."""
    return build_parser()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; a problem with the input is one line ``kings-corners: ...`` on stderr, exit 2."""
    parser = _parser()
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
