"""The web server of ``kings-corners serve``: textual-serve's, one app process per tab, each tab's
app started by :mod:`kc_tui.web.tab` in a private folder of its own under the root.

Only ``kings-corners serve`` imports this module (it loads aiohttp and textual-serve).

Its pages are this package's own (:mod:`kc_tui.web.page`): the app's page, whose terminal is made
in xterm.js' screen reader's mode, and at ``/plain`` the plain page, the game as lines of text
for a screen reader, each plain page bridged to a plain-mode process of its own
(:mod:`kc_tui.web.bridge`) in a private folder like a tab's app; both in the player's language.

Beyond textual-serve's own server: the page's WebSocket address is built from the address the
browser asked for (so the page works whatever name or address reaches the server); a WebSocket
from a page of another site (its ``Origin`` is not this server) is refused, so no web page a
visitor opens elsewhere can start or drive a tab; on a loopback address only a loopback name is
served (no page of another site can reach it by a name that points here); at most
:data:`MAX_TABS` tabs run at once, the app's and the plain page's (each is a process); and a
tab's app joins only the tables the operator allowed (``--allow-join``: its launcher is given
the list, :mod:`kc_tui.net.allowlist`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import shlex
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import aiohttp_jinja2
from aiohttp import WSMsgType, web
from aiohttp.web_runner import GracefulExit
from textual_serve.app_service import AppService
from textual_serve.server import Server

from kc_tui.engine.strict import loads as strict_json
from kc_tui.i18n import _, ngettext
from kc_tui.net.allowlist import Endpoint
from kc_tui.util.printable import one_line
from kc_tui.web.bridge import MESSAGE_MAX as PLAIN_MESSAGE_MAX
from kc_tui.web.bridge import PlainTab
from kc_tui.web.folders import sweep
from kc_tui.web.options import exposed_warning, is_loopback
from kc_tui.web.page import (
    APP_PAGE,
    PLAIN_PAGE,
    PLAIN_PATH,
    PLAIN_SOCKET_PATH,
    SCRIPT_PATH,
    TEMPLATES,
    TITLE,
    PageError,
    app_context,
    load_reader_script,
    plain_context,
)

log = logging.getLogger(__name__)

#: The most tabs (app processes) served at once; one more is refused (HTTP 503).
MAX_TABS = 32
#: The largest message read from a browser (bytes): keys and sizes are short.
MESSAGE_MAX = 64 << 10
#: The largest terminal a tab is given (columns or rows); a larger size asked for is this.
SIZE_MAX = 500
#: How long a tab's app has to quit when its tab goes (seconds), before it is killed.
APP_EXIT_WAIT = 10.0
#: The width a plain page's process wraps its lines to: the page wraps them to its own.
PLAIN_WIDTH = 500
#: A Host header: a name or IPv4 address, or an IPv6 address in brackets, and a port.
_HOST = re.compile(r"(?P<name>[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?")


def _size(value: object, default: int) -> int:
    """A terminal's width or height as the browser gave it: a whole number from 1 to
    :data:`SIZE_MAX` (text is read as a number), else ``default``."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 6:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return min(max(value, 1), SIZE_MAX)


def _reason(exc: OSError) -> str:
    """Why an address cannot be listened on, in a few words ("address already in use")."""
    if isinstance(exc, socket.gaierror) or not exc.errno or exc.errno < 0:
        return one_line(str(exc.strerror or exc))
    return os.strerror(exc.errno).lower()


class ServeError(Exception):
    """The server cannot start (its address cannot be listened on); the message is one line."""


def tab_command(root: Path, tables: Sequence[Endpoint] = (), online: str | None = None) -> str:
    """The shell command textual-serve runs for a tab: this Python runs :mod:`kc_tui.web.tab`, with
    the root, the server whose lobby its app opens (``serve --online``) and the tables its app may join."""
    where = ["--online", online] if online else []
    words = [sys.executable, "-m", "kc_tui.web.tab", str(root), *where, *(str(t) for t in tables)]
    return " ".join(shlex.quote(w) for w in words)


def plain_command(root: Path, tables: Sequence[Endpoint] = (), online: str | None = None) -> list[str]:
    """The command a plain page's process is: :mod:`kc_tui.web.tab` running the plain mode, with
    what :func:`tab_command` gives a tab's app."""
    where = ["--online", online] if online else []
    return [sys.executable, "-m", "kc_tui.web.tab", str(root), "--plain", *where, *(str(t) for t in tables)]


def plain_environment() -> dict[str, str]:
    """The environment of a plain page's process: this one's, and lines the page wraps itself
    (a wide width), in UTF-8, for no terminal."""
    return {**os.environ, "TERM": "dumb", "COLUMNS": str(PLAIN_WIDTH), "PYTHONIOENCODING": "utf-8"}


class OneLine(logging.Formatter):
    """A log record as one line: its message made printable, no traceback."""

    def format(self, record: logging.LogRecord) -> str:
        return one_line(f"kings-corners serve: {record.getMessage()}", 1000)


class TabServer(Server):
    """textual-serve's server with the checks of the module's docstring."""

    def __init__(
        self,
        root: Path,
        host: str,
        port: int,
        say: Callable[[str], None],
        warn: Callable[[str], None],
        tables: Sequence[Endpoint] = (),
        online: str | None = None,
    ) -> None:
        super().__init__(tab_command(root, tables, online), host=host, port=port, title=TITLE, templates_path=TEMPLATES)
        self.root = root
        self.tables = tuple(tables)
        self.online = online
        self.loopback = is_loopback(host)
        self.services: set[AppService] = set()
        self.plain_tabs: set[PlainTab] = set()
        try:
            self.script = load_reader_script(self.statics_path)
        except PageError as exc:
            raise ServeError(str(exc)) from None
        self.say = say
        self.warn = warn

    def initialize_logging(self) -> None:
        """Warnings of the server and of textual-serve as one line each on standard error, no
        traceback (a failing tab is not the server's failure)."""
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(OneLine())
        for name in (__name__, "textual-serve", "aiohttp"):
            logger = logging.getLogger(name)
            logger.handlers[:] = [handler]
            logger.setLevel(logging.WARNING)
            logger.propagate = False

    def host_allowed(self, host: str) -> bool:
        """Whether a request for ``host`` (its Host header) is served."""
        found = _HOST.fullmatch(host)
        if found is None:
            return False
        return not self.loopback or is_loopback(found["name"])

    def same_origin(self, request: web.Request) -> bool:
        """Whether a WebSocket request comes from this server's own page (or from no page)."""
        origin = request.headers.get("Origin")
        return origin is None or origin.lower() == f"http://{request.host}".lower()

    def refuse_unknown_host(self, request: web.Request) -> None:
        """Answer 421 to a request for a name this server is not served under."""
        if not self.host_allowed(request.host):
            raise web.HTTPMisdirectedRequest(text=_("This server is not served under that name.") + "\n")

    def tabs_open(self) -> int:
        """The tabs open: the app's and the plain page's."""
        return len(self.services) + len(self.plain_tabs)

    def refuse_more_tabs(self) -> None:
        """Answer 503 when :data:`MAX_TABS` tabs are open already."""
        if self.tabs_open() >= MAX_TABS:
            raise web.HTTPServiceUnavailable(
                text=_("{count} tabs are open already: try again later.").format(count=MAX_TABS) + "\n"
            )

    async def handle_index(self, request: web.Request) -> web.Response:
        """The app's page (:mod:`kc_tui.web.page`): its WebSocket at the address the browser asked for."""
        self.refuse_unknown_host(request)
        base = f"http://{request.host}"
        router = request.app.router
        context = app_context(
            font_size=_size(request.query.get("fontsize"), 16),
            websocket_url="ws://" + request.host + str(router["websocket"].url_for()),
            static_url=base + str(router["static"].url_for(filename="/")).rstrip("/") + "/",
        )
        return aiohttp_jinja2.render_template(APP_PAGE, request, context)

    async def handle_script(self, request: web.Request) -> web.Response:
        """textual-serve's page script, its terminal in the screen reader's mode."""
        self.refuse_unknown_host(request)
        return web.Response(body=self.script, content_type="application/javascript", charset="utf-8")

    async def handle_plain(self, request: web.Request) -> web.Response:
        """The plain page (:mod:`kc_tui.web.page`)."""
        self.refuse_unknown_host(request)
        return aiohttp_jinja2.render_template(PLAIN_PAGE, request, plain_context())

    async def handle_plain_socket(self, request: web.Request) -> web.WebSocketResponse:
        """One plain page: its plain-mode process started, lines passed both ways
        (:mod:`kc_tui.web.bridge`), the process ended when the page goes."""
        if not self.host_allowed(request.host) or not self.same_origin(request):
            raise web.HTTPForbidden(text=_("A tab is opened from this server's own page only.") + "\n")
        self.refuse_more_tabs()
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=PLAIN_MESSAGE_MAX)
        await websocket.prepare(request)
        plain = PlainTab(websocket)
        self.plain_tabs.add(plain)
        try:
            await plain.run(plain_command(self.root, self.tables, self.online), plain_environment())
        except asyncio.CancelledError:
            await websocket.close()
        except (OSError, RuntimeError, ValueError) as exc:
            log.warning("a plain tab ended: %s", one_line(str(exc) or type(exc).__name__))
        finally:
            try:
                await plain.end()
            finally:
                self.plain_tabs.discard(plain)
        return websocket

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One tab: its app process started, the browser's messages passed on, the process waited
        for when the tab goes (so that nothing of it outlives the server)."""
        if not self.host_allowed(request.host) or not self.same_origin(request):
            raise web.HTTPForbidden(text=_("A tab is opened from this server's own page only.") + "\n")
        self.refuse_more_tabs()
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MESSAGE_MAX)
        width, height = _size(request.query.get("width"), 80), _size(request.query.get("height"), 24)
        await websocket.prepare(request)

        async def close() -> None:
            await websocket.close()

        service = AppService(
            self.command,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=close,
            download_manager=self.download_manager,
        )
        self.services.add(service)
        try:
            await service.start(width, height)
            await self.pass_on(websocket, service)
        except asyncio.CancelledError:
            await websocket.close()
        except (OSError, RuntimeError, ValueError) as exc:
            log.warning("a tab ended: %s", one_line(str(exc) or type(exc).__name__))
        finally:
            await self.end_tab(service)
        return websocket

    async def pass_on(self, websocket: web.WebSocketResponse, service: AppService) -> None:
        """The browser's messages to the tab's app: keys, its size, focus; anything else (not a
        list of a known kind and its fields) is ignored."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = strict_json(message.data)
            except ValueError:
                continue
            if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
                continue
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str):
                await service.send_bytes(data.encode("utf-8", "replace"))
            elif kind == "resize" and isinstance(data, dict):
                await service.set_terminal_size(_size(data.get("width"), 80), _size(data.get("height"), 24))
            elif kind == "ping" and isinstance(data, str) and len(data) <= 32:
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await service.blur()
            elif kind == "focus":
                await service.focus()

    async def end_tab(self, service: AppService) -> None:
        """Ask the tab's app to quit and wait for its process (killed if it will not end)."""
        try:
            with contextlib.suppress(OSError, RuntimeError, AssertionError):
                await service.stop()
            process = service._process
            if process is not None and process.returncode is None:
                try:
                    await asyncio.wait_for(process.wait(), APP_EXIT_WAIT)
                except TimeoutError:
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()
                    await process.wait()
        finally:
            self.services.discard(service)

    async def on_cleanup(self, app: web.Application) -> None:
        """The server stopping: every tab's app ended and waited for."""
        await asyncio.gather(
            *(self.end_tab(service) for service in list(self.services)),
            *(plain.end() for plain in list(self.plain_tabs)),
            return_exceptions=True,
        )

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.add_routes(
            [
                web.get(SCRIPT_PATH, self.handle_script, name="page_script"),
                web.get(PLAIN_PATH, self.handle_plain, name="plain"),
                web.get(PLAIN_SOCKET_PATH, self.handle_plain_socket, name="plain_websocket"),
            ]
        )
        app.on_cleanup.append(self.on_cleanup)
        return app

    async def on_startup(self, app: web.Application) -> None:
        """Nothing is said before the address is listened on (:meth:`serve` says it then)."""

    def listening(self, *_args: object) -> None:
        """Said once the address is listened on: where, and a warning when it is not loopback."""
        if not self.loopback:
            self.warn(exposed_warning(self.host, self.port))
        host = f"[{self.host}]" if ":" in self.host else self.host
        # Translators: no table may be joined (--allow-join is the option that allows some).
        joins = ", ".join(str(t) for t in self.tables) if self.tables else _("none (--allow-join)")
        # Translators: {title} is the game's name, {address} where it is served, {root} a folder,
        # {tables} the tables (HOST:PORT) a tab may join.
        self.say(
            _(
                "Serving {title} on {address} (each tab's folder in {root};"
                " tables a tab may join: {tables}); Ctrl+C stops"
            ).format(title=TITLE, address=f"http://{host}:{self.port}/", root=self.root, tables=joins)
        )

    def serve(self, debug: bool = False) -> None:
        """Serve until Ctrl+C or SIGTERM; :class:`ServeError` when the address cannot be listened on."""
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)

        def stop() -> None:
            raise GracefulExit()

        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows: Ctrl+C only
                loop.add_signal_handler(sig, stop)
        try:
            self.initialize_logging()
            web.run_app(
                self._make_app(),
                host=self.host,
                port=self.port,
                shutdown_timeout=APP_EXIT_WAIT,
                handle_signals=False,
                loop=loop,
                print=self.listening,
            )
        except OSError as exc:
            # Translators: {reason} is the system's reason (in English).
            raise ServeError(
                _("cannot listen on {host} port {port}: {reason}").format(
                    host=self.host, port=self.port, reason=_reason(exc)
                )
            ) from None
        finally:
            asyncio.set_event_loop(None)
            if not loop.is_closed():
                loop.close()


def serve(
    root: Path,
    bind: str,
    port: int,
    say: Callable[[str], None],
    warn: Callable[[str], None],
    tables: Sequence[Endpoint] = (),
    online: str | None = None,
) -> None:
    """Serve the app on ``bind``:``port`` with the tabs' folders under ``root`` (a ready root):
    first the folders left by killed tabs are removed. ``say`` tells what happens, ``warn`` that
    the address is not this machine's only; a tab's app joins only ``tables``, and opens the lobby
    of the server at ``online`` (one of ``tables``) when given."""
    swept = sweep(root)
    if swept:
        say(
            ngettext(
                "removed {n} folder of tabs that ended without cleaning up",
                "removed {n} folders of tabs that ended without cleaning up",
                swept,
            ).format(n=swept)
        )
    TabServer(root, bind, port, say, warn, tables, online).serve()


__all__ = ["MAX_TABS", "ServeError", "TabServer", "plain_command", "serve", "tab_command"]
