"""The tables a served tab may join: ``kings-corners serve --allow-join HOST:PORT``. Plain Python,
cheap to import (the command line's parser uses it).

A browser tab's app runs on the serve machine, so a connection it opens is the serve machine's,
made on a visitor's word. The tab's launcher (:mod:`kc_tui.web.tab`) puts the operator's list in
the app's environment (:data:`ENV_ALLOW_JOIN`): where that variable is set, even empty, the app
connects only to a table whose host and port are on the list; where it is not (a terminal), to
any. :func:`kc_tui.net.client.table_address` checks every address against it before any socket
is opened, and a connection goes to the host and port checked, never to a redirect's.

Host and port are compared exactly, no name looked up: a name matches only itself (lower case,
no final dot), an IP address only itself (``[0::1]`` is ``[::1]``; ``127.1`` is no IPv4 address,
so it matches nothing), and an address without a port has its scheme's (80, or 443 for wss).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kc_tui.i18n import _

#: The variable a served tab's app finds its list in: ``HOST:PORT`` entries separated by spaces.
ENV_ALLOW_JOIN = "KINGS_CORNERS_ALLOW_JOIN"
#: The most tables one ``serve`` may list.
MAX_TABLES = 32
PORT_MAX = 65535
#: A name's label: letters, digits and inner hyphens, at most 63 of them.
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")


class NotAllowed(ValueError):
    """An address this process may not connect to; the message (one line) says why."""


@dataclass(frozen=True, order=True, slots=True)
class Endpoint:
    """Where a connection goes: a host (a name in lower case, or an IP address as Python writes
    it, without brackets) and a port."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def _shown(text: str) -> str:
    return repr(text[:60] + ("..." if len(text) > 60 else ""))


def _ip(host: str) -> str | None:
    """``host`` as Python writes the IP address it is (no zone), or None when it is none."""
    import ipaddress  # loaded when an address is read, not by every start of the command line

    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    if getattr(address, "scope_id", None):
        return None
    return str(address)


def endpoint(host: str, port: int) -> Endpoint:
    """The endpoint of a parsed address's ``host`` and ``port``, written the way the list's
    entries are, so that the two compare exactly."""
    return Endpoint(_ip(host) or host.lower(), port)


def parse_endpoint(text: str) -> Endpoint:
    """One ``--allow-join`` value: ``HOST:PORT``, the host a name, an IPv4 address or an IPv6
    address in brackets, the port from 1 to 65535. :class:`ValueError` (one line) otherwise."""
    shown = _shown(text)
    if "://" in text or "/" in text:
        raise ValueError(
            _("write a table as HOST:PORT (e.g. 192.168.1.20:8765), not an address: {value}").format(value=shown)
        )
    host, colon, port = text.rpartition(":")
    if not colon:
        raise ValueError(_("a table is HOST:PORT, with its port: {value}").format(value=shown))
    if not port.isascii() or not port.isdigit() or len(port) > 5 or not 1 <= int(port) <= PORT_MAX:
        raise ValueError(
            _("the port must be a whole number from 1 to {most}: {value}").format(most=PORT_MAX, value=shown)
        )
    if not host:
        raise ValueError(_("a table's host is empty: {value}").format(value=shown))
    if host.startswith("[") and host.endswith("]"):
        inner = host[1:-1]
        address = _ip(inner) if ":" in inner else None
        if address is None:
            raise ValueError(_("not an IPv6 address in the brackets (no zone): {value}").format(value=shown))
        return Endpoint(address, int(port))
    if ":" in host or "[" in host or "]" in host:
        raise ValueError(_("write an IPv6 address in brackets, [::1]:8765: {value}").format(value=shown))
    address = _ip(host)
    if address is not None:
        return Endpoint(address, int(port))
    name = host.lower()
    labels = name.split(".")
    if len(name) > 253 or not name.isascii() or not all(_LABEL.fullmatch(label) for label in labels):
        raise ValueError(_("not a host name (letters, digits, '-' and '.' between them): {value}").format(value=shown))
    if labels[-1].isdigit():
        raise ValueError(_("neither a name nor an IPv4 address of four numbers: {value}").format(value=shown))
    return Endpoint(name, int(port))


def parse_tables(values: Iterable[str]) -> tuple[Endpoint, ...]:
    """The tables ``values`` name (:func:`parse_endpoint` each), each once, in their order;
    :class:`ValueError` (one line) for a bad one or more than :data:`MAX_TABLES`."""
    tables = tuple(dict.fromkeys(parse_endpoint(v) for v in values))
    if len(tables) > MAX_TABLES:
        raise ValueError(
            _("at most {most} tables may be allowed, not {count}").format(most=MAX_TABLES, count=len(tables))
        )
    return tables


def join_environment(tables: Iterable[Endpoint]) -> dict[str, str]:
    """The variable that gives a served tab's app ``tables`` (none: it joins none)."""
    return {ENV_ALLOW_JOIN: " ".join(str(t) for t in tables)}


def served_tables(environ: Mapping[str, str] | None = None) -> frozenset[Endpoint] | None:
    """The tables this process may join: None when any (no list is set: not a served tab), else
    the list (empty: none; an entry that does not read as one makes the list empty)."""
    value = (os.environ if environ is None else environ).get(ENV_ALLOW_JOIN)
    if value is None:
        return None
    try:
        return frozenset(parse_tables(value.split()))
    except ValueError:
        return frozenset()


def check(where: Endpoint, allowed: frozenset[Endpoint] | None) -> None:
    """:class:`NotAllowed` when ``allowed`` (:func:`served_tables`) does not let a connection to
    ``where`` be made."""
    if allowed is None or where in allowed:
        return
    if not allowed:
        raise NotAllowed(_("this server joins no table: its operator has allowed none (serve --allow-join)"))
    listed = ", ".join(str(t) for t in sorted(allowed))
    # Translators: {table} is the table asked for (HOST:PORT), {listed} the tables allowed, comma-separated.
    raise NotAllowed(
        _("{table} is not on this server's list of tables; it joins only {listed}").format(table=where, listed=listed)
    )


__all__ = [
    "ENV_ALLOW_JOIN",
    "MAX_TABLES",
    "Endpoint",
    "NotAllowed",
    "check",
    "endpoint",
    "join_environment",
    "parse_endpoint",
    "parse_tables",
    "served_tables",
]
