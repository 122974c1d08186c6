"""The web server of ``kings-corners serve``: textual-serve's, one app process per tab, each tab's
app started by :mod:`kc_tui.web.tab` in a private folder of its own under the root.

Only ``kings-corners serve`` imports this module (it loads aiohttp and textual-serve).

Beyond textual-serve's own server: the page's WebSocket address is built from the address the
browser asked for (so the page works whatever name or address reaches the server); a WebSocket
from a page of another site (its ``Origin`` is not this server) is refused, so no web page a
visitor opens elsewhere can start or drive a tab; on a loopback address only a loopback name is
served (no page of another site can reach it by a name that points here); at most
:data:`MAX_TABS` tabs run at once (each is a process); and a tab's app joins only the tables the
operator allowed (``--allow-join``: its launcher is given the list, :mod:`kc_tui.net.allowlist`).
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
from typing import Any

from aiohttp import WSMsgType, web
from aiohttp.web_runner import GracefulExit
from textual_serve.app_service import AppService
from textual_serve.server import Server

from kc_tui.engine.strict import loads as strict_json
from kc_tui.i18n import _, ngettext
from kc_tui.net.allowlist import Endpoint
from kc_tui.util.printable import one_line
from kc_tui.web.folders import sweep
from kc_tui.web.options import exposed_warning, is_loopback

log = logging.getLogger(__name__)

TITLE = "Kings Corners"
#: The most tabs (app processes) served at once; one more is refused (HTTP 503).
MAX_TABS = 32
#: The largest message read from a browser (bytes): keys and sizes are short.
MESSAGE_MAX = 64 << 10
#: The largest terminal a tab is given (columns or rows); a larger size asked for is this.
SIZE_MAX = 500
#: How long a tab's app has to quit when its tab goes (seconds), before it is killed.
APP_EXIT_WAIT = 10.0
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


class OneLine(logging.Formatter):
    """A log record as one line: its message made printable, no traceback."""

    def format(self, record: logging.LogRecord) -> str:
        return one_line(f"kings-corners serve: {record.getMessage()}", 1000)


#: Added to textual-serve's page: the terminal takes the keyboard's focus as soon as it is on the
#: page, so keys work in a new tab without a click first (xterm.js reads keys from its helper
#: textarea; textual.js makes the terminal in the page's load handler, then it is looked for).
FOCUS_SCRIPT = """<script>
window.addEventListener("load", function () {
  var tries = 0;
  var timer = setInterval(function () {
    var keys = document.querySelector("#terminal .xterm-helper-textarea");
    if (keys) { keys.focus({ preventScroll: true }); }
    if ((keys && document.activeElement === keys) || ++tries > 200) { clearInterval(timer); }
  }, 50);
});
</script>"""


def with_focus(html: str) -> str:
    """textual-serve's page ``html`` with :data:`FOCUS_SCRIPT` at the end of its body."""
    at = html.rfind("</body>")
    return html + FOCUS_SCRIPT if at < 0 else html[:at] + FOCUS_SCRIPT + "\n" + html[at:]


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
        super().__init__(tab_command(root, tables, online), host=host, port=port, title=TITLE)
        self.root = root
        self.tables = tuple(tables)
        self.loopback = is_loopback(host)
        self.services: set[AppService] = set()
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

    async def handle_index(self, request: web.Request) -> Any:
        if not self.host_allowed(request.host):
            raise web.HTTPMisdirectedRequest(text=_("This server is not served under that name.") + "\n")
        # The page's addresses are built from ``public_url`` before the handler's first await.
        self.public_url = f"http://{request.host}"
        response = await super().handle_index(request)
        if isinstance(response, web.Response) and response.text is not None:
            response.text = with_focus(response.text)
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One tab: its app process started, the browser's messages passed on, the process waited
        for when the tab goes (so that nothing of it outlives the server)."""
        if not self.host_allowed(request.host) or not self.same_origin(request):
            raise web.HTTPForbidden(text=_("A tab is opened from this server's own page only.") + "\n")
        if len(self.services) >= MAX_TABS:
            raise web.HTTPServiceUnavailable(
                text=_("{count} tabs are open already: try again later.").format(count=MAX_TABS) + "\n"
            )
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
        await asyncio.gather(*(self.end_tab(service) for service in list(self.services)), return_exceptions=True)

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
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


__all__ = ["MAX_TABS", "ServeError", "TabServer", "serve", "tab_command"]
