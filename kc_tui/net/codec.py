"""The network messages as JSON text: read strictly within the protocol's limits, written
compactly (docs/PROTOCOL.md). Plain Python."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from kc_tui.engine.strict import JSONError, is_int, loads
from kc_tui.net.schema import MALFORMED, MAX_DEPTH, MAX_MESSAGE, PROTOCOL_VERSION, TOO_LARGE, UPGRADE, ProtocolError


def _depth_ok(value: Any, limit: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict | list):
            if depth > limit:
                return False
            stack.extend((x, depth + 1) for x in (v.values() if isinstance(v, dict) else v))
    return True


def _too_deep(text: str, limit: int) -> bool:
    """Whether the brackets of ``text`` (outside strings) nest deeper than ``limit``: checked
    before decoding, so a deep document costs no recursion."""
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def decode(text: str | bytes, *, limit: int = MAX_MESSAGE) -> dict[str, Any]:
    """One message's JSON object, strictly (:func:`kc_tui.engine.strict.loads`: no NaN or
    Infinity, unique keys): UTF-8 text of at most ``limit`` bytes, nested at most
    :data:`MAX_DEPTH`. :class:`ProtocolError` else."""
    if isinstance(text, bytes | bytearray | memoryview):
        raise ProtocolError(MALFORMED, "binary messages are refused: send JSON text")
    if len(text) * 4 > limit and len(text.encode("utf-8", "surrogatepass")) > limit:
        raise ProtocolError(TOO_LARGE, f"the message is over {limit} bytes")
    if text.count("[") + text.count("{") > MAX_DEPTH and _too_deep(text, MAX_DEPTH):
        raise ProtocolError(MALFORMED, f"the message is nested more than {MAX_DEPTH} deep")
    try:
        data = loads(text)
    except JSONError as exc:
        raise ProtocolError(MALFORMED, str(exc)[:200]) from None
    if not _depth_ok(data, MAX_DEPTH):  # pragma: no cover - _too_deep has refused it already
        raise ProtocolError(MALFORMED, f"the message is nested more than {MAX_DEPTH} deep")
    if not isinstance(data, dict):
        raise ProtocolError(MALFORMED, "a message is a JSON object")
    return data


def encode(message: Mapping[str, Any]) -> str:
    """A message as compact JSON text (strict: no NaN)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def check_version(data: Mapping[str, Any]) -> None:
    v = data.get("v")
    if not is_int(v):
        raise ProtocolError(MALFORMED, f'every message carries "v": {PROTOCOL_VERSION} (an integer)')
    if v != PROTOCOL_VERSION:
        raise ProtocolError(UPGRADE, f"this server speaks protocol version {PROTOCOL_VERSION}, not {str(v)[:20]}")


__all__ = ["check_version", "decode", "encode"]
