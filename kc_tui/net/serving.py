"""``kings-corners server``: the lobby and many tables on one port (docs/PROTOCOL.md, "The lobby").

Its arguments as typed (:class:`ServerRequest`) and checked (:class:`ServerOptions`), its data
folder taken (the data lock: one program writes to a folder) and its store opened
(:mod:`kc_tui.net.server_store`), then :class:`~kc_tui.net.hub.Hub` serves until SIGTERM or
SIGINT (Ctrl+C), which close it cleanly: every table's clients are told, every save stays, and
the next start serves every unfinished table again. The first line on the standard output is
``Serving Kings Corners at ws://HOST:PORT (lobby: ws://HOST:PORT/lobby)``; what happens at the
tables goes to the app's log. Every problem is one line (:class:`CliError`), never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from kc_tui.config.args import CliError
from kc_tui.config.store import DataDirError, data_dir, ensure_data_dir
from kc_tui.i18n import _
from kc_tui.net import lobby_schema as ls
from kc_tui.net.host_options import DEFAULT_BIND, DEFAULT_PORT, _bind, _port, is_loopback, tls_context
from kc_tui.net.hosting import STOP_SIGNALS, base_url
from kc_tui.records import datalock
from kc_tui.util.printable import one_line, write_line

if TYPE_CHECKING:
    from ssl import SSLContext

    from kc_tui.net.hub import Hub
    from kc_tui.net.server_store import ServerStore

log = logging.getLogger(__name__)

#: The defaults of the limits at the door (docs/PROTOCOL.md, "The lobby"): sockets in all and
#: from one address; tables in all and per person are the lobby's (:class:`LobbyLimits`).
DEFAULT_MAX_SOCKETS = 1024
DEFAULT_SOCKETS_PER_ADDRESS = 32
#: Quick play's turn clock (seconds).
DEFAULT_TURN_SECONDS = 60
DEFAULT_AI_DELAY = 0.3
DEFAULT_ROUND_PAUSE = 1.5
#: The most any count option takes.
MOST = 1_000_000
#: The longest pause an option takes (seconds).
MOST_SECONDS = 600.0


@dataclass(frozen=True, slots=True)
class ServerRequest:
    """What ``server`` was asked on its command line, as typed (checked by :func:`options_from`)."""

    bind: str | None = None
    port: str | None = None
    cert: str | None = None
    key: str | None = None
    data: str | None = None
    max_tables: str | None = None
    tables_per_person: str | None = None
    max_sockets: str | None = None
    sockets_per_address: str | None = None
    turn_seconds: str | None = None
    ai_delay: str | None = None
    round_pause: str | None = None
    durable: bool = False


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """``server``'s arguments, checked (None: the default of whoever uses it)."""

    bind: str
    port: int
    cert: str | None
    key: str | None
    data: Path | None
    max_tables: int | None
    tables_per_person: int | None
    max_sockets: int
    #: The open connections of one address at most (0: no such limit).
    sockets_per_address: int
    turn_seconds: int
    ai_delay: float
    round_pause: float
    #: Every commit of the store flushed to the disk (kc_tui.net.server_store).
    durable: bool = False


def _count(text: str | None, option: str, least: int, default: int | None, most: int = MOST) -> int | None:
    if text is None:
        return default
    t = text.strip()
    if not t.isascii() or not t.isdigit() or len(t) > 9 or not least <= int(t) <= most:
        # Translators: {option} is the option (--max-tables), {least} and {most} numbers, {value} what was typed.
        raise CliError(
            _("{option} must be a whole number from {least} to {most}, not {value}").format(
                option=option, least=least, most=most, value=one_line(repr(text[:20]))
            )
        )
    return int(t)


def _seconds(text: str | None, option: str, default: float) -> float:
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not 0 <= value <= MOST_SECONDS:
        # Translators: {option} is the option (--ai-delay), {most} a number, {value} what was typed.
        raise CliError(
            _("{option} must be a number of seconds from 0 to {most}, not {value}").format(
                option=option, most=f"{MOST_SECONDS:g}", value=one_line(repr(text[:20]))
            )
        )
    return value


def options_from(args: ServerRequest) -> ServerOptions:
    """The checked options of ``server``; :class:`CliError` (one line) for the first bad one."""
    bind = _bind(args.bind)
    port = _port(args.port)
    if (args.cert is None) != (args.key is None):
        raise CliError(_("--cert and --key go together: the certificate and its private key"))
    max_sockets = _count(args.max_sockets, "--max-sockets", 1, DEFAULT_MAX_SOCKETS)
    per_address = _count(args.sockets_per_address, "--sockets-per-address", 0, DEFAULT_SOCKETS_PER_ADDRESS)
    turn = _count(args.turn_seconds, "--turn-seconds", 0, DEFAULT_TURN_SECONDS, ls.MAX_TURN_SECONDS)
    assert max_sockets is not None and per_address is not None and turn is not None
    return ServerOptions(
        bind=bind,
        port=DEFAULT_PORT if port is None else port,
        cert=args.cert,
        key=args.key,
        data=Path(args.data) if args.data is not None else None,
        max_tables=_count(args.max_tables, "--max-tables", 1, None),
        tables_per_person=_count(args.tables_per_person, "--tables-per-person", 1, None),
        max_sockets=max_sockets,
        sockets_per_address=per_address,
        turn_seconds=turn,
        ai_delay=_seconds(args.ai_delay, "--ai-delay", DEFAULT_AI_DELAY),
        round_pause=_seconds(args.round_pause, "--round-pause", DEFAULT_ROUND_PAUSE),
        durable=args.durable,
    )


def serving_line(url: str) -> str:
    """The first line the server prints (tests and scripts read it)."""
    # Translators: {address} is the server's address, {lobby} its lobby's.
    return _("Serving Kings Corners at {address} (lobby: {lobby})").format(address=url, lobby=f"{url}/lobby")


def stopped_line(exc: BaseException) -> str:
    """What the server says when something it did not foresee stops it (the log has the rest)."""
    # Translators: {error} is what went wrong, in one line (often in English).
    return _("the server stopped: {error} (its log has the details)").format(
        error=one_line(str(exc) or type(exc).__name__, 200)
    )


def _print(stream: TextIO, line: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        write_line(stream, line)


def run(args: ServerRequest) -> int:
    """The ``server`` command."""
    options = options_from(args)
    context = tls_context(options.cert, options.key)
    folder = options.data if options.data is not None else data_dir()
    try:
        ensure_data_dir(folder)
    except DataDirError as exc:
        raise CliError(str(exc)) from None
    from kc_tui.net.door import SMALLEST_POOL, files_wanted, pool_size, raise_file_limit

    files = raise_file_limit(files_wanted(options.max_sockets))
    if pool_size(files, options.max_sockets) <= SMALLEST_POOL:
        _print(
            sys.stderr,
            _(
                "warning: the limit of open files ({files}) leaves little room beside --max-sockets {sockets}:"
                " raise it (ulimit -n) or lower --max-sockets"
            ).format(files=files, sockets=options.max_sockets),
        )
    lock, refused = datalock.acquire(folder, datalock.host_refused)
    if lock is None:
        raise CliError(refused or "")
    try:
        from kc_tui.net.server_store import ServerStore, StoreError

        try:
            store = ServerStore.open(folder, durable=options.durable)
        except StoreError as exc:
            raise CliError(str(exc)) from None
        try:
            if not is_loopback(options.bind):
                _print(
                    sys.stderr,
                    _(
                        "warning: listening on {bind}: anyone who can reach this address can use the server;"
                        " prefer --cert/--key (wss://)"
                    ).format(bind=options.bind),
                )
            try:
                return asyncio.run(_serve(options, store, context))
            except (CliError, KeyboardInterrupt):
                raise
            except Exception as exc:  # the last guard: one line here, the whole story in the log
                log.exception("the server stopped on an error")
                raise CliError(stopped_line(exc)) from None
        finally:
            store.close()
    finally:
        lock.release()


def _loop_errors(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """What the loop could not hand to anyone goes to the log, never to the terminal."""
    exc = context.get("exception")
    log.error("%s", context.get("message", "an error in the event loop"), exc_info=exc)


def _hub(options: ServerOptions, store: ServerStore, context: SSLContext | None) -> Hub:
    """The hub of ``options`` over ``store`` (:class:`AccountsError` when its people's tables
    cannot be used)."""
    from dataclasses import replace

    from kc_tui import __version__
    from kc_tui.net.hub import Hub, HubSettings
    from kc_tui.net.lobby import LobbyLimits

    changes: dict[str, Any] = {"quick_turn_seconds": options.turn_seconds}
    if options.max_tables is not None:
        changes["max_tables"] = options.max_tables
    if options.tables_per_person is not None:
        changes["tables_per_person"] = options.tables_per_person
    limits = replace(LobbyLimits(), **changes)
    return Hub(
        store,
        limits=limits,
        settings=HubSettings(
            ai_delay=options.ai_delay,
            round_pause=options.round_pause,
            server_name=f"kings-corners {__version__}",
        ),
        ssl=context,
        max_sockets=options.max_sockets,
        per_address=options.sockets_per_address or None,
    )


async def _serve(options: ServerOptions, store: ServerStore, context: SSLContext | None) -> int:
    from kc_tui.net.accounts import AccountsError

    out = sys.stdout
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(_loop_errors)
    stop = asyncio.Event()
    for sig in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    try:
        hub = _hub(options, store, context)
    except AccountsError as exc:
        raise CliError(str(exc)) from None
    try:
        port = await hub.start(options.bind, options.port)
    except OSError as exc:
        await hub.close()
        raise CliError(
            _("cannot listen on {address}: {reason}").format(
                address=f"{options.bind}:{options.port}", reason=one_line(exc.strerror or str(exc))
            )
        ) from None
    _print(out, serving_line(base_url(options.bind, port, context is not None)))
    try:
        await stop.wait()
    finally:
        await hub.close()
        _print(out, _("The server is closed: its unfinished tables are served again when it starts."))
    return 0


__all__ = [
    "DEFAULT_BIND",
    "DEFAULT_MAX_SOCKETS",
    "DEFAULT_SOCKETS_PER_ADDRESS",
    "DEFAULT_TURN_SECONDS",
    "ServerOptions",
    "ServerRequest",
    "options_from",
    "run",
    "serving_line",
]
