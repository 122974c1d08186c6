"""``kings-corners host``: one table served to its people's machines (docs/PROTOCOL.md).

The command's checks of its arguments (each a one-line :class:`CliError`), the hosted match's
save (``hosted.json`` in the data folder, apart from the solo save, written after every move)
and its seat file beside it (the seat tokens, the port and the address, written atomically with
mode 0600: the tokens are secrets), the lines the host prints (one join command per person's
seat, or with ``--addresses DIR`` the files they are written to (kc_tui/net/addresses.py), the
watch command, then what happens at the table) and the commands typed on its standard input
(``ai NAME``, ``quit``). Ctrl+C, SIGTERM and SIGHUP stop it cleanly, and so does its terminal
going away (the window closed, the SSH connection lost) or its output being closed; the save
stays for ``host --resume``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import math
import os
import signal
import socket
import ssl
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from kc_tui.config import HUMAN, Config
from kc_tui.config.args import CliError, check_target, parse_seats
from kc_tui.config.store import data_dir, ensure_data_dir
from kc_tui.engine import Rules, RulesError
from kc_tui.i18n import _
from kc_tui.match.recorder import Recorder, open_history
from kc_tui.match.roster import Seat, default_name
from kc_tui.match.saves import SaveError
from kc_tui.match.session import MatchSession
from kc_tui.net.server import WATCH_PATH, TableServer, seat_path
from kc_tui.util.files import aside_path, atomic_write, describe_os_error, make_folder, read_capped
from kc_tui.util.terminal import HangupWatch
from kc_tui.util.text import one_line, write_line

log = logging.getLogger(__name__)

HOSTED_SAVE = "hosted.json"
SEAT_FILE = "hosted-seats.json"
SEAT_FORMAT = "kings-corners/hosted-seats/1"
DEFAULT_BIND = "127.0.0.1"
DEFAULT_PORT = 8765
DEFAULT_STAND_IN = 60.0
STAND_IN_MAX = 86_400.0
#: The think time of the AIs at a hosted table and of a stand-in (milliseconds).
HOSTED_THINK_MS = 1000
#: The signals that close the table cleanly: Ctrl+C, ``kill``, the terminal closing.
STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


#: The hosted table's rounds waiting for the history; how long closing waits for them.
HOSTED_OUTBOX = "hosted-outbox"
RECORDER_CLOSE_WAIT = 2.0


def hosted_save_path() -> Path:
    """Where the hosted match is saved: ``data_dir()/hosted.json`` (never the solo save)."""
    return data_dir() / HOSTED_SAVE


def seat_file_path(save: Path) -> Path:
    return save.with_name(SEAT_FILE)


# ---------------------------------------------------------------------- the seat file
@dataclass(frozen=True, slots=True)
class SeatFile:
    """What the hosted match's seat file keeps: the match it belongs to (its uid), the tokens
    by match seat, the port, the address and whether it was served over TLS."""

    uid: str
    tokens: dict[int, str]
    port: int
    bind: str
    tls: bool

    def to_bytes(self) -> bytes:
        doc = {
            "format": SEAT_FORMAT,
            "uid": self.uid,
            "port": self.port,
            "bind": self.bind,
            "tls": self.tls,
            "tokens": {str(seat): token for seat, token in sorted(self.tokens.items())},
        }
        return (json.dumps(doc, indent=1) + "\n").encode("utf-8")


def write_seat_file(path: Path, seats: SeatFile) -> None:
    """Write the seat file atomically, readable by its owner only (mode 0600); FileError (one
    line) when it cannot be written."""
    atomic_write(path, seats.to_bytes(), mode=0o600)


def read_seat_file(path: Path) -> SeatFile:
    """The seat file at ``path``; :class:`CliError` (one line) when it is missing or unusable."""
    shown = one_line(str(path))
    try:
        raw = read_capped(path, 64 * 1024)
    except FileNotFoundError:
        raise CliError(
            _("the hosted table's seat file {path} is missing: start a new table instead").format(path=shown)
        ) from None
    except OSError as exc:
        raise CliError(_("cannot read {path}: {reason}").format(path=shown, reason=describe_os_error(exc))) from None
    if raw is None:
        raise CliError(_("{path} is too large to be a seat file").format(path=shown))
    try:
        doc = json.loads(raw.decode("utf-8"))
        if not isinstance(doc, dict) or doc.get("format") != SEAT_FORMAT:
            raise ValueError(_("not a seat file"))
        uid, port, bind, tls, tokens = doc["uid"], doc["port"], doc["bind"], doc["tls"], doc["tokens"]
        if not (isinstance(uid, str) and type(port) is int and 0 < port < 65536 and isinstance(bind, str)):
            raise ValueError(_("a field of the wrong type"))
        if not isinstance(tls, bool) or not isinstance(tokens, dict):
            raise ValueError(_("a field of the wrong type"))
        seats = {int(k): v for k, v in tokens.items() if isinstance(v, str) and k.isdigit()}
        if len(seats) != len(tokens):
            raise ValueError(_("a token of the wrong type"))
    except (ValueError, KeyError, UnicodeDecodeError) as exc:
        # Translators: {reason} is what is wrong with the file.
        raise CliError(
            _("{path} is not a usable seat file ({reason})").format(path=shown, reason=one_line(str(exc), 80))
        ) from None
    return SeatFile(uid, seats, port, bind, tls)


# ---------------------------------------------------------------------- the arguments
@dataclass(frozen=True, slots=True)
class HostOptions:
    """The ``host`` command's arguments, checked."""

    bind: str
    port: int | None
    stand_in: float
    resume: bool
    seats: tuple[Seat, ...] = ()
    rules: Rules | None = None
    seed: int | None = None
    cert: str | None = None
    key: str | None = None
    #: The folder the seats' address files go into (``--addresses``); None: they are printed.
    addresses: Path | None = None
    #: Start a new table over an unfinished hosted one, which is kept aside (``--replace``).
    replace: bool = False


def is_loopback(bind: str) -> bool:
    if bind == "localhost":
        return True
    try:
        return ipaddress.ip_address(bind).is_loopback
    except ValueError:
        return False


def _port(text: str | None) -> int | None:
    if text is None:
        return None
    t = text.strip()
    if not t.isascii() or not t.isdigit() or len(t) > 5 or int(t) > 65535:
        # Translators: {value} is what was typed, quoted.
        raise CliError(
            _("--port must be a whole number from 0 to 65535, not {value}").format(value=one_line(repr(text[:20])))
        )
    return int(t)


def _stand_in(text: str | None) -> float:
    if text is None:
        return DEFAULT_STAND_IN
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not 0 <= value <= STAND_IN_MAX:
        raise CliError(
            _("--stand-in must be a number of seconds from 0 to {most}, not {value}").format(
                most=f"{STAND_IN_MAX:g}", value=one_line(repr(text[:20]))
            )
        )
    return value


def _bind(text: str | None) -> str:
    if text is None:
        return DEFAULT_BIND
    bind = text.strip()
    if not bind or len(bind) > 253 or not bind.isascii() or any(c.isspace() or c in "/[]" for c in bind):
        raise CliError(
            _("--bind must be an address to listen on (e.g. 127.0.0.1 or 0.0.0.0), not {value}").format(
                value=one_line(repr(text[:40]))
            )
        )
    return bind


@dataclass(frozen=True, slots=True)
class HostRequest:
    """What ``host`` was asked on its command line, as typed (checked by :func:`options_from`)."""

    seats: str | None = None
    rules: tuple[str, ...] = ()
    target: int | None = None
    seed: int | None = None
    bind: str | None = None
    port: str | None = None
    stand_in: str | None = None
    cert: str | None = None
    key: str | None = None
    addresses: str | None = None
    resume: bool = False
    replace: bool = False
    #: The settings file (``--config``); None: the usual one.
    config: str | None = None


def options_from(args: HostRequest, config: Config | None = None) -> HostOptions:
    """The checked options of ``host``; :class:`CliError` (one line) for the first bad one."""
    bind = _bind(args.bind) if args.bind is not None else None
    port = _port(args.port)
    stand_in = _stand_in(args.stand_in)
    if (args.cert is None) != (args.key is None):
        raise CliError(_("--cert and --key go together: the certificate and its private key"))
    folder = _addresses(args.addresses)
    if args.resume:
        given = [o for o, v in (("--seats", args.seats), ("--rules", args.rules), ("--target", args.target)) if v]
        if args.seed is not None:
            given.append("--seed")
        if args.replace:
            given.append("--replace")
        if given:
            # Translators: {options} are the options given (--seats, --seed), comma-separated.
            raise CliError(
                _("--resume serves the saved table as it was: drop {options}").format(options=", ".join(given))
            )
        return HostOptions(bind or "", port, stand_in, True, cert=args.cert, key=args.key, addresses=folder)
    if not args.seats:
        raise CliError(_("host needs --seats, e.g. --seats human:Ana,human:Ben,expert (a person's seat is human:NAME)"))
    config = config or Config()
    specs = parse_seats(args.seats, config.player_name)
    check_target(args.target)
    try:
        rules = Rules.from_pairs(list(args.rules)) if args.rules else config.rules
    except RulesError as exc:
        raise CliError(_("--rules: {error}").format(error=exc)) from None
    if args.target is not None:
        rules = replace(rules, target=args.target)
    taken = [spec.name for spec in specs if spec.name is not None]
    ordered: list[Seat] = []
    for spec in specs:  # in the order given: the first seat deals first
        if spec.name is not None:
            ordered.append(Seat(spec.name, HUMAN))
        else:
            name = default_name(spec.kind, taken)
            taken.append(name)
            ordered.append(Seat(name, spec.kind, HOSTED_THINK_MS))
    return HostOptions(
        bind or DEFAULT_BIND,
        port,
        stand_in,
        False,
        tuple(ordered),
        rules,
        args.seed,
        args.cert,
        args.key,
        folder,
        args.replace,
    )


def _addresses(text: str | None) -> Path | None:
    if text is None:
        return None
    from kc_tui.net.addresses import ready_folder

    return ready_folder(text)


def tls_context(cert: str | None, key: str | None) -> ssl.SSLContext | None:
    if cert is None or key is None:
        return None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CliError(_("cannot use --cert/--key: {reason}").format(reason=one_line(reason, 200))) from None
    return context


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
def prepare(options: HostOptions) -> tuple[MatchSession, dict[int, str] | None, str, int]:
    """The session to serve, its tokens (None: new ones), the address and the port."""
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
        return session, seats.tokens, options.bind or seats.bind, port
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
    return session, None, options.bind, DEFAULT_PORT if options.port is None else options.port


def unfinished_table(save: Path) -> str | None:
    """What the hosted save at ``save`` holds when it is a match not yet over (or cannot be read,
    so it may be one), in words; None when there is none, or its match is over."""
    if not save.exists() and not save.is_symlink():
        return None
    try:
        session = MatchSession.load(save, shared_log=True)
    except Exception as exc:  # unreadable: it may still be someone's table, so it is not replaced silently
        return _("{file} cannot be read: {reason}").format(file=save.name, reason=one_line(str(exc), 80))
    if session is None or session.match.over:
        return None
    # Translators: {number} is the round's number, {names} the players, comma-separated.
    return _("round {number}, {names}").format(number=session.match.number, names=", ".join(session.names))


def keep_aside(save: Path) -> list[str]:
    """Move the hosted save at ``save`` and its seats' file to names that say they were replaced;
    a line for each. :class:`CliError` when one cannot be moved (nothing is then written over it)."""
    lines: list[str] = []
    for path in (save, seat_file_path(save)):
        if os.path.lexists(path):
            aside = aside_path(path, ".replaced")
            try:
                os.replace(path, aside)
            except OSError as exc:
                raise CliError(
                    _("cannot keep {file} aside: {reason}").format(file=path.name, reason=describe_os_error(exc))
                ) from None
            lines.append(
                _("The unfinished hosted table's {file} is kept as {aside}.").format(file=path.name, aside=aside.name)
            )
    return lines


def run(args: HostRequest) -> int:
    """The ``host`` command."""
    from kc_tui.config.store import load_config

    options = options_from(args, load_config(args.config)[0])
    context = tls_context(options.cert, options.key)
    session, tokens, bind, port = prepare(options)
    if not is_loopback(bind):
        _print(sys.stderr, warning_line(bind))
    return asyncio.run(_serve(session, tokens, bind, port, options.stand_in, context, options.addresses))


async def _serve(
    session: MatchSession,
    tokens: dict[int, str] | None,
    bind: str,
    port: int,
    stand_in: float,
    context: ssl.SSLContext | None,
    addresses: Path | None = None,
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
        session.save()
        if session.save_problem is not None:
            _print(
                out,
                _("The match cannot be saved ({problem}): --resume will not work").format(problem=session.save_problem),
            )
    session.keep_save_at_end = True  # removed once the history has the finished match
    try:
        write_seat_file(
            seat_file_path(save), SeatFile(session.record.uid, server.tokens, bound, bind, context is not None)
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
    "DEFAULT_BIND",
    "DEFAULT_PORT",
    "HOSTED_SAVE",
    "SEAT_FILE",
    "HostOptions",
    "HostRequest",
    "SeatFile",
    "base_url",
    "hosted_save_path",
    "is_loopback",
    "join_lines",
    "options_from",
    "read_seat_file",
    "run",
    "seat_file_path",
    "warning_line",
    "write_seat_file",
]
