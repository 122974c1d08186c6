"""``kings-corners host``: one table served to its people's machines (docs/PROTOCOL.md).

The table served and its console: the match to serve (new, or resumed from the hosted save), the
lines the host prints (one join command per person's seat, or with ``--addresses DIR`` the files
they are written to (kc_tui/net/addresses.py), the watch command, then what happens at the
table) and the commands typed on its standard input (``ai NAME``, ``quit``). Ctrl+C, SIGTERM
and SIGHUP stop it cleanly, and so does its terminal going away (the window closed, the SSH
connection lost) or its output being closed; the save stays for ``host --resume``. The
arguments are checked in :mod:`kc_tui.net.host_options`, the save and the seat file are
:mod:`kc_tui.net.host_files`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import ssl
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from kc_tui.config.args import CliError
from kc_tui.config.store import data_dir, ensure_data_dir
from kc_tui.engine import Rules
from kc_tui.i18n import _
from kc_tui.match.recorder import Recorder, open_history
from kc_tui.match.saves import SaveError
from kc_tui.match.session import MatchSession
from kc_tui.net.host_files import (
    SeatFile,
    hosted_save_path,
    keep_aside,
    read_seat_file,
    seat_file_path,
    unfinished_table,
    write_seat_file,
)
from kc_tui.net.host_options import (
    DEFAULT_PORT,
    HostOptions,
    HostRequest,
    is_loopback,
    options_from,
    tls_context,
)
from kc_tui.net.server import WATCH_PATH, TableServer, seat_path
from kc_tui.records import datalock
from kc_tui.util.files import make_folder
from kc_tui.util.printable import one_line, write_line
from kc_tui.util.terminal import HangupWatch

log = logging.getLogger(__name__)

#: The signals that close the table cleanly: Ctrl+C, ``kill``, the terminal closing.
STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


#: The hosted table's rounds waiting for the history; how long closing waits for them.
HOSTED_OUTBOX = "hosted-outbox"
RECORDER_CLOSE_WAIT = 2.0


# ---------------------------------------------------------------------- what the host prints
def base_url(bind: str, port: int, tls: bool) -> str:
    """The URL the clients connect to: the bound address (this machine's name for a wildcard)."""
    host = bind
    if bind in ("0.0.0.0", "::", ""):
        host = socket.gethostname() or "127.0.0.1"
    elif ":" in bind:
        host = f"[{bind}]"
    return f"{'wss' if tls else 'ws'}://{host}:{port}"


def seat_urls(tokens: dict[int, str], url: str) -> dict[int, str]:
    """Every person's seat's address, by match seat."""
    return {seat: f"{url}{seat_path(token)}" for seat, token in sorted(tokens.items())}


def join_lines(names: Sequence[str], tokens: dict[int, str], url: str) -> list[str]:
    """One line per person's seat with its join command, then the watch line."""
    # Translators: {name} is a person's seat, {address} their seat's address; the command stays as it is.
    line = _("{name}: kings-corners join {address}")
    lines = [line.format(name=names[seat], address=address) for seat, address in seat_urls(tokens, url).items()]
    lines.append(watch_line(url))
    return lines


def watch_line(url: str) -> str:
    # Translators: {address} is the table's watch address; the command stays as it is.
    return _("Watch: kings-corners join --watch {address}").format(address=f"{url}{WATCH_PATH}")


def warning_line(bind: str) -> str:
    return _(
        "warning: listening on {bind}: anyone who can reach this address can join or watch the table;"
        " prefer an SSH tunnel to 127.0.0.1, or --cert/--key (wss://)"
    ).format(bind=bind)


def _print(stream: TextIO, line: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        write_line(stream, line)


# ---------------------------------------------------------------------- running
def prepare(options: HostOptions) -> tuple[MatchSession, dict[int, str] | None, str, int, Path | None]:
    """The session to serve, its tokens (None: new ones), the address, the port, and the folder
    the seats' addresses are written into (None: they are printed). A resumed table keeps the
    folder it was started with unless ``--addresses`` names another."""
    with contextlib.suppress(OSError):  # made private; one that cannot be made is the save's to say
        ensure_data_dir()
    save = hosted_save_path()
    if options.resume:
        seats = read_seat_file(seat_file_path(save))
        try:
            session = MatchSession.load(save, shared_log=True)
        except SaveError as exc:
            raise CliError(_("the hosted match cannot be resumed: {error}").format(error=exc)) from None
        if session is None:
            raise CliError(_("there is no hosted table to resume: start one with --seats"))
        if session.record.uid != seats.uid or sorted(seats.tokens) != list(session.human_seats):
            raise CliError(_("the seat file does not belong to the saved hosted match: start a new table"))
        if seats.tls and options.cert is None:
            raise CliError(_("the table was served over TLS (wss://): give --cert and --key again"))
        port = seats.port if options.port is None else options.port
        return session, seats.tokens, options.bind or seats.bind, port, _resumed_folder(options, seats)
    unfinished = unfinished_table(save)
    if unfinished is not None and not options.replace:
        raise CliError(
            # Translators: {table} says which table it is (round 3, Ana, Ben) or why it cannot be read.
            _(
                "an unfinished hosted table is saved ({table}): serve it again with 'host --resume',"
                " or start this one with --replace (the saved one is kept aside)"
            ).format(table=unfinished)
        )
    # Saved (an unfinished table before it kept aside) only once the table is served: see _serve.
    session = MatchSession.hosted(options.seats, options.rules or Rules(), options.seed)
    return session, None, options.bind, DEFAULT_PORT if options.port is None else options.port, options.addresses


def _resumed_folder(options: HostOptions, seats: SeatFile) -> Path | None:
    """The folder a resumed table writes its seats' addresses into: the one given again, else
    the one it was started with (checked again: :class:`CliError` when it cannot be used, and
    the addresses are never printed in its place)."""
    if options.addresses is not None or seats.addresses is None:
        return options.addresses
    from kc_tui.net.addresses import ready_folder

    return ready_folder(seats.addresses)


def run(args: HostRequest) -> int:
    """The ``host`` command."""
    from kc_tui.config.store import load_config

    options = options_from(args, load_config(args.config)[0])
    context = tls_context(options.cert, options.key)
    # One program writes to a data folder: a second host (or a window of the game) on the folder
    # of a table being served would write over its save and seats' file.
    lock, refused = datalock.acquire(data_dir(), datalock.host_refused)
    if lock is None:
        raise CliError(refused or "")
    try:
        session, tokens, bind, port, addresses = prepare(options)
        if not is_loopback(bind):
            _print(sys.stderr, warning_line(bind))
        return asyncio.run(
            _serve(session, tokens, bind, port, options.stand_in, context, addresses, options.turn_seconds)
        )
    finally:
        lock.release()


async def _serve(
    session: MatchSession,
    tokens: dict[int, str] | None,
    bind: str,
    port: int,
    stand_in: float,
    context: ssl.SSLContext | None,
    addresses: Path | None = None,
    turn_seconds: float = 0.0,
) -> int:
    out = sys.stdout
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    recorder = hosted_recorder()
    server = TableServer(
        session,
        tokens=tokens,
        stand_in=stand_in,
        ssl=context,
        status=lambda line: _print(out, line),
        server_name=f"kings-corners {_version()}",
        recorder=recorder,
        turn_seconds=turn_seconds,
    )
    try:
        bound = await server.start(bind, port)
    except OSError as exc:
        recorder.close(0)
        raise CliError(
            _("cannot listen on {address}: {reason}").format(
                address=f"{bind}:{port}", reason=one_line(exc.strerror or str(exc))
            )
        ) from None
    save = hosted_save_path()
    if session.save_path is None:  # a new table: an unfinished one saved before is kept aside (--replace)
        for line in keep_aside(save):
            _print(out, line)
        session.save_path = save
        session.save()  # when it fails, the table holds until a save works (the server says so)
    session.keep_save_at_end = True  # removed once the history has the finished match
    try:
        write_seat_file(
            seat_file_path(save),
            SeatFile(
                session.record.uid,
                server.tokens,
                bound,
                bind,
                context is not None,
                os.path.abspath(addresses) if addresses is not None else None,
            ),
        )
    except OSError as exc:
        _print(
            out,
            _("the seat file could not be written ({reason}): --resume will not work").format(
                reason=one_line(str(exc))
            ),
        )
    url = base_url(bind, bound, context is not None)
    # Translators: {address} is the table's address, {names} the players; 'ai NAME' and 'quit' are typed as they are.
    _print(
        out,
        _("Kings Corners table at {address}: {names}. Type 'ai NAME' or 'quit'.").format(
            address=url, names=", ".join(session.names)
        ),
    )
    try:
        lines = _seat_lines(session.names, server.tokens, url, addresses)
    except OSError as exc:
        await server.close()
        raise CliError(
            _("the seats' addresses could not be written: {reason}").format(reason=one_line(str(exc)))
        ) from None
    for line in lines:
        _print(out, line)
    reading = _read_commands(server, stop, out)
    watch = _watch_terminal(stop)
    try:
        await stop.wait()
    finally:
        watch.stop()
        reading()
        await server.close()
        recorder.close(RECORDER_CLOSE_WAIT)
        if session.match.over:
            with contextlib.suppress(OSError):
                seat_file_path(save).unlink()
        _print(
            out,
            _("The table is closed.")
            if session.match.over
            else _("The table is closed. 'host --resume' serves it again."),
        )
    return 0


def hosted_recorder() -> Recorder:
    """The recorder of a hosted table's rounds into the host's history (its own outbox, so a
    window of the game open beside it records its own matches undisturbed)."""
    outbox = data_dir() / HOSTED_OUTBOX
    with contextlib.suppress(OSError):  # a folder that cannot be made is the recorder's to say
        make_folder(outbox)
    recorder = Recorder(opener=open_history, outbox=outbox)
    recorder.start()
    return recorder


def _seat_lines(names: Sequence[str], tokens: dict[int, str], url: str, folder: Path | None) -> list[str]:
    """What the host reads about the seats' addresses: the files written into ``folder`` and how
    to hand them over, or (no folder) the join commands after a warning that they are secrets.
    OSError when a file cannot be written."""
    from kc_tui.net.addresses import SECRET_WARNING, handing_lines, write_addresses

    if folder is None:
        return [_(SECRET_WARNING), *join_lines(names, tokens, url)] if tokens else join_lines(names, tokens, url)
    return [*handing_lines(folder, write_addresses(folder, names, seat_urls(tokens, url))), watch_line(url)]


def _watch_terminal(stop: asyncio.Event) -> HangupWatch:
    """A watch that stops the table when its terminal is gone (it hangs up when its window
    closes) or its output is closed (a pipe's reader gone): on the standard output and error,
    and on the standard input when it is a terminal (a pipe or a file that ends only ends the
    commands: the table goes on)."""
    loop = asyncio.get_running_loop()
    fds: list[int] = []
    for stream in (sys.stdout, sys.stderr, sys.stdin):
        try:
            fd = stream.fileno()
            if stream is not sys.stdin or os.isatty(fd):
                fds.append(fd)
        except (AttributeError, OSError, ValueError):
            continue

    def gone() -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: the table is too
            loop.call_soon_threadsafe(stop.set)

    watch = HangupWatch(fds, gone, name="host-terminal-watch")
    watch.start()
    return watch


def _read_commands(server: TableServer, stop: asyncio.Event, out: TextIO) -> Callable[[], None]:
    """Read the host's commands from standard input as they come; the function that stops it."""
    loop = asyncio.get_running_loop()
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return lambda: None
    buffer = bytearray()

    def readable() -> None:
        try:
            chunk = os.read(fd, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:  # the end of the input: the table goes on (a terminal's hang-up stops it: _watch_terminal)
            loop.remove_reader(fd)
            return
        buffer.extend(chunk)
        while b"\n" in buffer:
            line, _sep, rest = bytes(buffer).partition(b"\n")
            buffer[:] = rest
            _command(server, stop, out, line.decode("utf-8", "replace").strip())

    try:
        loop.add_reader(fd, readable)
    except (OSError, ValueError, NotImplementedError):
        return lambda: None

    def stop_reading() -> None:
        loop.remove_reader(fd)

    return stop_reading


def _command(server: TableServer, stop: asyncio.Event, out: TextIO, line: str) -> None:
    word, _sep, rest = line.partition(" ")
    if not word:
        return
    if word == "quit":
        stop.set()
    elif word == "ai" and rest.strip():
        _print(out, server.stand_in_now(rest))
    else:
        # Translators: {command} is what the host typed, quoted; 'ai NAME' and 'quit' are typed as they are.
        _print(out, _("unknown command {command}: type 'ai NAME' or 'quit'").format(command=one_line(repr(line[:40]))))


def _version() -> str:
    from kc_tui import __version__

    return __version__


__all__ = [
    "base_url",
    "join_lines",
    "prepare",
    "run",
    "warning_line",
    "watch_line",
]
