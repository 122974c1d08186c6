"""The network table's messages read and written (docs/PROTOCOL.md), each by its declaration in
:mod:`kc_tui.net.schema` through the one generic codec of :mod:`kc_tui.net.wire`: :func:`write`
any message, :func:`parse_client` a client's strictly (the server's reader: a field it does not
know is refused), :func:`parse_server` a server's tolerantly (the client's reader: a field it does
not know is skipped). The JSON text is :mod:`kc_tui.net.codec`'s.

Plain Python: no asyncio, no Textual. Every reader raises :class:`ProtocolError` (a code of
PROTOCOL.md's table and one plain line) for anything it does not accept, never another error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kc_tui.engine.strict import is_int
from kc_tui.net.codec import check_version, decode, encode
from kc_tui.net.lobby_schema import (
    LOBBY_CLIENT_MESSAGES,
    LOBBY_SERVER_MESSAGES,
    LobbyClientMessage,
    LobbyServerMessage,
)
from kc_tui.net.schema import (
    CLIENT_MESSAGES,
    MALFORMED,
    MAX_ID,
    MAX_STRING,
    PROTOCOL_VERSION,
    SERVER_MESSAGES,
    ClientMessage,
    ProtocolError,
    ServerMessage,
)
from kc_tui.net.wire import WireError, object_decoder, to_wire

#: Each message dataclass's ``type``.
_KIND: dict[type[Any], str] = {
    cls: kind
    for table in (CLIENT_MESSAGES, SERVER_MESSAGES, LOBBY_CLIENT_MESSAGES, LOBBY_SERVER_MESSAGES)
    for kind, cls in table.items()
}
_ENVELOPE = frozenset({"v", "type"})


def envelope(message: Any) -> dict[str, Any]:
    """``message`` (a client's or the server's, or an instance of a subclass of one) as the JSON
    object it is sent as: its ``type`` and every field its class declares."""
    kind = next(_KIND[cls] for cls in type(message).__mro__ if cls in _KIND)
    return {"v": PROTOCOL_VERSION, "type": kind, **to_wire(message)}


def write(message: Any) -> str:
    """``message`` (a client's or the server's) as the JSON text it is sent as."""
    return encode(envelope(message))


def _request_id(data: Mapping[str, Any]) -> int | None:
    value: Any = data.get("id")
    return value if is_int(value) and 0 <= value <= MAX_ID else None


def _read_client(text: str | bytes, messages: Mapping[str, type[Any]]) -> Any:
    data = decode(text)
    rid = _request_id(data)
    try:
        check_version(data)
    except ProtocolError as exc:
        raise ProtocolError(exc.code, exc.message, rid) from None
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in messages:
        shown = repr(kind[:30]) if isinstance(kind, str) else "missing"
        raise ProtocolError(MALFORMED, f"unknown message type {shown}: send one of {', '.join(messages)}", rid)
    read = object_decoder(messages[kind], True, MAX_STRING, _ENVELOPE)
    try:
        return read(data, f"a {kind} message")
    except WireError as exc:
        raise ProtocolError(MALFORMED, exc.message, rid) from None


def parse_client(text: str | bytes) -> ClientMessage:
    """A client's message, checked field by field by its declaration (PROTOCOL.md): a field it
    does not declare, or a string over :data:`MAX_STRING` characters, is refused.
    :class:`ProtocolError` else, with the request's id when it could be read."""
    message: ClientMessage = _read_client(text, CLIENT_MESSAGES)
    return message


def parse_lobby_client(text: str | bytes) -> LobbyClientMessage:
    """A lobby client's message (:mod:`kc_tui.net.lobby_schema`), read as :func:`parse_client`
    reads a table's."""
    message: LobbyClientMessage = _read_client(text, LOBBY_CLIENT_MESSAGES)
    return message


def _read_server(text: str | bytes, messages: Mapping[str, type[Any]], strict: bool) -> Any:
    data = decode(text)
    check_version(data)
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in messages:
        raise ProtocolError(MALFORMED, f"an unknown server message type {str(kind)[:30]!r}")
    read = object_decoder(messages[kind], strict, None, _ENVELOPE)
    try:
        return read(data, "it")
    except WireError as exc:
        raise ProtocolError(MALFORMED, f"the server's {kind} message: {exc.message}") from None


def parse_server(text: str | bytes, *, strict: bool = False) -> ServerMessage:
    """A server's message, checked field by field into its dataclass; :class:`ProtocolError`
    (``malformed``, or ``upgrade`` for another version) for anything else. A field it does not
    know is skipped (a newer server's addition, PROTOCOL.md's versions), or refused when
    ``strict`` (the tests' check that the server sends only what PROTOCOL.md says)."""
    message: ServerMessage = _read_server(text, SERVER_MESSAGES, strict)
    return message


def parse_lobby_server(text: str | bytes, *, strict: bool = False) -> LobbyServerMessage:
    """A lobby server's message (:mod:`kc_tui.net.lobby_schema`), read as :func:`parse_server`
    reads a table's."""
    message: LobbyServerMessage = _read_server(text, LOBBY_SERVER_MESSAGES, strict)
    return message


__all__ = ["envelope", "parse_client", "parse_lobby_client", "parse_lobby_server", "parse_server", "write"]
