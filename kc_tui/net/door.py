"""The table server's door: which TCP connections wait in the WebSocket handshake, and which one
gives way when too many do.

A connection is *pending* from its accept to the end of its HTTP upgrade (or its own end). The
pending connections share one pool, sized to the process's file limit (:func:`pool_size`). A new
connection is always let in: when the pool is full, the oldest pending connection of the group
that holds the most gives way (it is closed). An honest client finishes its upgrade in
milliseconds, so a slow or silent connection cannot keep the door shut (a cap that refused the
newest would favour the slowest), and a flood from other addresses pushes out its own oldest
before anyone else's. A group is an IPv4 address, or an IPv6 address's /64 (one host's usual
network, where it has addresses to spare); an IPv4-mapped IPv6 address is its IPv4 address.

Only pending connections are here: an open WebSocket (a seat's, a spectator's, one saying hello)
is counted by the server on its own (``max_connections``) and never gives way to a newcomer.
:func:`gated` is the connection class that enters the door, :class:`AcceptErrors` what the host
is told when ``accept()`` runs out of file handles.

Plain Python and asyncio (no Textual).
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import ServerConnection

from kc_tui.i18n import _

log = logging.getLogger(__name__)

#: File handles kept for everything but connections: standard streams, the event loop's, the
#: listening sockets, the save, the history (with its journal files), the log, the locks.
RESERVED_HANDLES = 64
#: Connections asyncio accepts in one go (the listening backlog) before any of them is admitted:
#: two such batches (one arriving, one given way and not closed yet) are kept room for.
ACCEPT_BATCH = 100
#: The pool's bounds, whatever the file limit: room for a few at the smallest; at the largest,
#: a few megabytes of memory (a pending connection holds about 9 KiB, docs/MEASUREMENTS.md).
SMALLEST_POOL = 4
LARGEST_POOL = 1024
#: The file limit assumed where the system does not tell it (Windows).
UNKNOWN_FILE_LIMIT = 1024
#: The errors of ``accept()`` that mean the process (or the system) is out of file handles.
OUT_OF_HANDLES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
#: Seconds without such an error after which the next one is shown to the host again.
OUT_OF_HANDLES_QUIET = 60.0


def address_group(address: str) -> str:
    """The group ``address`` is counted in: an IPv4 address itself, an IPv6 address's /64
    (``2001:db8:1:2::/64``), an IPv4-mapped IPv6 address its IPv4 address; the zone of a link-local
    address is dropped. Anything else (not an IP address) is its own group, as given."""
    text = address.partition("%")[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def file_limit() -> int:
    """This process's limit of open files (the soft RLIMIT_NOFILE); :data:`UNKNOWN_FILE_LIMIT`
    where there is none to read, 2**20 where it is unlimited."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows: no RLIMIT_NOFILE
        return UNKNOWN_FILE_LIMIT
    try:
        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):  # pragma: no cover - a system that does not say
        return UNKNOWN_FILE_LIMIT
    return 2**20 if soft == resource.RLIM_INFINITY else int(soft)


def files_wanted(established: int) -> int:
    """The open-file limit under which a process keeping ``established`` open WebSockets has a
    full handshake pool (:func:`pool_size` gives :data:`LARGEST_POOL`)."""
    return RESERVED_HANDLES + established + 2 * ACCEPT_BATCH + 2 * LARGEST_POOL


def raise_file_limit(wanted: int) -> int:
    """Raise this process's soft limit of open files towards ``wanted`` (never beyond the hard
    limit, never lowered); the soft limit in force after."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows: no RLIMIT_NOFILE
        return file_limit()
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            top = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
            if top > soft:
                resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))
    except (OSError, ValueError):  # pragma: no cover - a system that does not let it be raised
        pass
    return file_limit()


def pool_size(files: int, established: int) -> int:
    """The pending connections a process with a limit of ``files`` open files takes, when it also
    keeps ``established`` open WebSockets: half of what is left once those, the
    :data:`RESERVED_HANDLES` and two :data:`ACCEPT_BATCH` are set aside, between
    :data:`SMALLEST_POOL` and :data:`LARGEST_POOL`. Under a flood the pool stays full and the
    process below its file limit (which would stop every accept, a returning seat's too)."""
    room = (files - RESERVED_HANDLES - established - 2 * ACCEPT_BATCH) // 2
    return max(SMALLEST_POOL, min(LARGEST_POOL, room))


@dataclass(eq=False)
class Pending:
    """One connection in the handshake: its address, its group, the order it came in, and how
    it is closed when it gives way."""

    address: str
    group: str
    order: int
    close: Callable[[], None] = field(repr=False)


class Door:
    """The pool of pending connections (see the module docs): :meth:`enter` on accept,
    :meth:`leave` at the end of the handshake or of the connection."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("the pool needs room for one connection at least")
        self.size = size
        #: The pending connections by group, each group's in the order they came in.
        self._groups: dict[str, dict[Pending, None]] = {}
        self._count = 0
        self._order = itertools.count()
        #: Connections that gave way to newer ones, in all.
        self.given_way = 0

    def __len__(self) -> int:
        return self._count

    @property
    def counts(self) -> dict[str, int]:
        """The pending connections by group."""
        return {group: len(members) for group, members in self._groups.items()}

    def enter(self, address: str, close: Callable[[], None]) -> Pending:
        """A connection from ``address`` was accepted: it is pending until :meth:`leave`. When the
        pool is full, the oldest of the largest group (the group whose oldest came first, among
        equals) gives way first: it leaves and ``close`` of it is called."""
        if self._count >= self.size:
            self._give_way()
        entry = Pending(address, address_group(address), next(self._order), close)
        self._groups.setdefault(entry.group, {})[entry] = None
        self._count += 1
        return entry

    def leave(self, entry: Pending) -> None:
        """``entry`` has left the pool (its handshake ended, or the connection did); again is nothing."""
        members = self._groups.get(entry.group)
        if members is None or entry not in members:
            return
        del members[entry]
        self._count -= 1
        if not members:
            del self._groups[entry.group]

    def _give_way(self) -> None:
        def weight(members: dict[Pending, None]) -> tuple[int, int]:
            return len(members), -next(iter(members)).order

        largest = max(self._groups.values(), key=weight)
        oldest = next(iter(largest))
        self.leave(oldest)
        self.given_way += 1
        log.debug("a connection from %s in the handshake gave way to a newer one", oldest.address)
        oldest.close()


class AcceptErrors:
    """The loop's exception handler while a server listens: ``accept()`` out of file handles is
    one plain line for the host (``say``; again only after a quiet minute), never a traceback;
    the rest goes to the handler the loop had."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self._say = say
        #: When ``accept()`` last ran out of handles (None: never).
        self.last: float | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._before: Callable[[asyncio.AbstractEventLoop, dict[str, Any]], object] | None = None

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop, self._before = loop, loop.get_exception_handler()
        loop.set_exception_handler(self.handle)

    def uninstall(self) -> None:
        """Give the loop its handler back, unless ``accept()`` ran out of handles: asyncio then
        retries listening a second later even once the socket is closed, and the handler stays
        to keep that retry's error quiet."""
        if self._loop is not None and self.last is None and self._loop.get_exception_handler() == self.handle:
            self._loop.set_exception_handler(self._before)

    def _quiet(self) -> bool:
        return self.last is None or time.monotonic() - self.last >= OUT_OF_HANDLES_QUIET

    def handle(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in OUT_OF_HANDLES and "accept" in str(context.get("message")):
            if self._quiet():
                # Translators: {error} is the system's reason (in English).
                self._say(
                    _(
                        "out of file handles ({error}): new connections wait until some close;"
                        " the seated people play on"
                    ).format(error=exc.strerror or exc)
                )
            log.warning("accept() failed: %s", exc.strerror or exc)
            self.last = time.monotonic()
            return
        if isinstance(exc, ValueError) and "_start_serving" in str(context.get("message")):
            # asyncio's retry of listening after accept() ran out of handles, on a socket closed
            # meanwhile (the table was closed): there is nothing left to serve.
            log.debug("a retry of listening on a closed socket: %s", exc)
            return
        if self._before is not None:
            self._before(loop, context)
        else:
            loop.default_exception_handler(context)


def gated(door: Door) -> type[ServerConnection]:
    """The connection class of a server's WebSockets: each TCP connection is in the door's pool
    (:class:`~kc_tui.net.door.Door`) from its accept to its HTTP upgrade (or its end); when the
    pool is full, an older one there gives way to it."""

    class GatedConnection(ServerConnection):
        pending: Pending | None = None

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            peer = transport.get_extra_info("peername")
            address = str(peer[0]) if isinstance(peer, tuple) and peer else str(peer)
            self.pending = door.enter(address, self.transport.abort)

        async def handshake(self, *args: Any, **kwargs: Any) -> None:
            try:
                await super().handshake(*args, **kwargs)
            finally:
                self._done()

        def connection_lost(self, exc: Exception | None) -> None:
            self._done()
            super().connection_lost(exc)

        def _done(self) -> None:
            if self.pending is not None:
                door.leave(self.pending)
                self.pending = None

    return GatedConnection


__all__ = ["OUT_OF_HANDLES", "AcceptErrors", "Door", "Pending", "address_group", "file_limit", "gated", "pool_size"]
