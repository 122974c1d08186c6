"""The network table's messages (docs/PROTOCOL.md): their limits, the strict reading of a
client's message, the server's messages built from a seat's view, and the strict reading of a
server's message into typed dataclasses (for the client).

Plain Python: no asyncio, no Textual. Every reader raises :class:`ProtocolError` (a code of
PROTOCOL.md's table and one plain line) for anything it does not accept, never another error.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kc_tui.engine import Card, CardError, MoveError, card_str, move_str, parse_card, parse_move
from kc_tui.engine.moves import Move

if TYPE_CHECKING:
    from kc_tui.match.table import TableDriver, TableSnapshot

PROTOCOL_VERSION = 1
#: The largest message either way, in bytes of UTF-8 JSON text.
MAX_MESSAGE = 65_536
#: The deepest JSON nesting a message may have.
MAX_DEPTH = 8
#: The longest string in a client's message, in characters.
MAX_STRING = 256
#: The largest request ``id``.
MAX_ID = 2**31 - 1
#: The largest ``stamp`` (JSON's safe integers).
MAX_STAMP = 2**53 - 1
#: The token bucket of one client: messages a second on average, and the burst.
RATE_PER_SECOND = 20.0
RATE_BURST = 40
#: A client still over the rate after this many refused messages is closed (code 1008).
SLOW_DOWN_CLOSE = 200
#: Malformed messages in a row after which a client is closed.
MALFORMED_CLOSE = 20
#: Seconds a client has to send ``hello`` after connecting.
HELLO_TIMEOUT = 10.0
#: Connections one table serves at once (seats and spectators, and those still saying hello).
MAX_CONNECTIONS = 64
#: Log lines a ``state`` carries.
LOG_LINES = 50
#: Seat tokens: random bytes (URL-safe base64 text of 43 characters).
TOKEN_BYTES = 32
TOKEN_LENGTH = 43

#: Error codes (PROTOCOL.md) and whether the connection is closed after each.
UPGRADE = "upgrade"
BAD_TOKEN = "bad-token"
SEAT_TAKEN = "seat-taken"
MALFORMED = "malformed"
TOO_LARGE = "too-large"
NOT_YOUR_TURN = "not-your-turn"
SLOW_DOWN = "slow-down"
HELLO_FIRST = "hello-first"
#: The host closed the table (``quit``, Ctrl+C, SIGTERM): ``host --resume`` serves it again.
CLOSED = "closed"
ERROR_CODES: tuple[str, ...] = (
    UPGRADE,
    BAD_TOKEN,
    SEAT_TAKEN,
    MALFORMED,
    TOO_LARGE,
    NOT_YOUR_TURN,
    SLOW_DOWN,
    HELLO_FIRST,
    CLOSED,
)

#: The eight places of ``piles``, in order.
PILE_COUNT = 8


class ProtocolError(Exception):
    """A message that cannot be accepted: ``code`` (PROTOCOL.md's error codes), ``message`` (one
    plain line) and the request's ``id`` when it could be read."""

    def __init__(self, code: str, message: str, id: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.id = id


# ---------------------------------------------------------------------- JSON
def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the field {key[:40]!r} appears twice")
        out[key] = value
    return out


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
    """One message's JSON object, strictly: UTF-8 text of at most ``limit`` bytes, no NaN or
    Infinity, unique keys, nested at most :data:`MAX_DEPTH`. :class:`ProtocolError` else."""
    if isinstance(text, bytes | bytearray | memoryview):
        raise ProtocolError(MALFORMED, "binary messages are refused: send JSON text")
    if len(text) * 4 > limit and len(text.encode("utf-8", "surrogatepass")) > limit:
        raise ProtocolError(TOO_LARGE, f"the message is over {limit} bytes")
    if text.count("[") + text.count("{") > MAX_DEPTH and _too_deep(text, MAX_DEPTH):
        raise ProtocolError(MALFORMED, f"the message is nested more than {MAX_DEPTH} deep")
    try:
        data = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique)
    except json.JSONDecodeError as exc:
        raise ProtocolError(MALFORMED, f"not JSON: {exc.msg} at column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(MALFORMED, f"not usable JSON: {str(exc)[:100]}") from None
    if not _depth_ok(data, MAX_DEPTH):  # pragma: no cover - _too_deep has refused it already
        raise ProtocolError(MALFORMED, f"the message is nested more than {MAX_DEPTH} deep")
    if not isinstance(data, dict):
        raise ProtocolError(MALFORMED, "a message is a JSON object")
    return data


def encode(message: Mapping[str, Any]) -> str:
    """A message as compact JSON text (strict: no NaN)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_version(data: Mapping[str, Any]) -> None:
    v = data.get("v")
    if not _is_int(v):
        raise ProtocolError(MALFORMED, 'every message carries "v": 1 (an integer)')
    if v != PROTOCOL_VERSION:
        raise ProtocolError(UPGRADE, f"this server speaks protocol version {PROTOCOL_VERSION}, not {str(v)[:20]}")


# ---------------------------------------------------------------------- client -> server
@dataclass(frozen=True, slots=True)
class Hello:
    client: str
    id: int | None = None


@dataclass(frozen=True, slots=True)
class MoveRequest:
    """``move``: the move as sent (POSITION_FORMAT.md's notation); ``parsed``: the engine's move."""

    move: str
    parsed: Move
    stamp: int
    id: int | None = None


@dataclass(frozen=True, slots=True)
class UndoRequest:
    stamp: int
    id: int | None = None


@dataclass(frozen=True, slots=True)
class HintRequest:
    stamp: int
    id: int | None = None


@dataclass(frozen=True, slots=True)
class Ping:
    id: int | None = None


ClientMessage = Hello | MoveRequest | UndoRequest | HintRequest | Ping

#: The fields every client message type takes besides ``v``, ``type`` and ``id``.
CLIENT_FIELDS: dict[str, frozenset[str]] = {
    "hello": frozenset({"client"}),
    "move": frozenset({"move", "stamp"}),
    "undo": frozenset({"stamp"}),
    "hint": frozenset({"stamp"}),
    "ping": frozenset(),
}


def _request_id(data: Mapping[str, Any]) -> int | None:
    value: Any = data.get("id")
    return value if _is_int(value) and 0 <= value <= MAX_ID else None


def parse_client(text: str | bytes) -> ClientMessage:
    """A client's message, checked field by field (PROTOCOL.md); :class:`ProtocolError` else."""
    data = decode(text)
    rid = _request_id(data)

    def bad(message: str) -> ProtocolError:
        return ProtocolError(MALFORMED, message, rid)

    _check_version(data)
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in CLIENT_FIELDS:
        shown = repr(kind[:30]) if isinstance(kind, str) else "missing"
        raise bad(f"unknown message type {shown}: send one of {', '.join(CLIENT_FIELDS)}")
    fields = CLIENT_FIELDS[kind]
    for key in data:
        if key not in fields and key not in ("v", "type", "id"):
            raise bad(f"a {kind} message has no field {key[:40]!r}")
    missing = [f for f in sorted(fields) if f not in data]
    if missing:
        raise bad(f"a {kind} message needs the field {missing[0]!r}")
    if "id" in data and rid is None:
        raise bad(f"the id is an integer from 0 to {MAX_ID}")
    for key, value in data.items():
        if isinstance(value, str) and len(value) > MAX_STRING:
            raise bad(f"the field {key!r} is longer than {MAX_STRING} characters")
    stamp = data.get("stamp", 0)
    if "stamp" in fields and not (_is_int(stamp) and 0 <= stamp <= MAX_STAMP):
        raise bad("the stamp is an integer: the stamp of the state the request was chosen in")
    if kind == "hello":
        client = data["client"]
        if not isinstance(client, str):
            raise bad("the client is text (e.g. 'kings-corners 1.4.0')")
        return Hello(client, rid)
    if kind == "move":
        text_move = data["move"]
        if not isinstance(text_move, str):
            raise bad("the move is text, e.g. 'play 7H N', 'move N E' or 'end'")
        try:
            parsed = parse_move(text_move)
        except MoveError as exc:
            raise bad(f"cannot read the move: {str(exc)[:120]}") from None
        return MoveRequest(text_move, parsed, stamp, rid)
    if kind == "undo":
        return UndoRequest(stamp, rid)
    if kind == "hint":
        return HintRequest(stamp, rid)
    return Ping(rid)


def _client_message(kind: str, id: int | None, **fields: Any) -> str:
    data: dict[str, Any] = {"v": PROTOCOL_VERSION, "type": kind, **fields}
    if id is not None:
        data["id"] = id
    return encode(data)


def hello_message(client: str, id: int | None = None) -> str:
    return _client_message("hello", id, client=client)


def move_message(move: str, stamp: int, id: int | None = None) -> str:
    return _client_message("move", id, move=move, stamp=stamp)


def undo_message(stamp: int, id: int | None = None) -> str:
    return _client_message("undo", id, stamp=stamp)


def hint_message(stamp: int, id: int | None = None) -> str:
    return _client_message("hint", id, stamp=stamp)


def ping_message(id: int | None = None) -> str:
    return _client_message("ping", id)


# ---------------------------------------------------------------------- server -> client (building)
def _server(kind: str, **fields: Any) -> dict[str, Any]:
    return {"v": PROTOCOL_VERSION, "type": kind, **fields}


def welcome(
    seat: int | None, name: str, server: str, rules: Mapping[str, Any], seats: Sequence[tuple[str, str]]
) -> str:
    return encode(
        _server(
            "welcome",
            seat=seat,
            name=name,
            server=server,
            rules=dict(rules),
            seats=[{"name": n, "kind": k} for n, k in seats],
        )
    )


def refused(id: int | None, reason: str) -> str:
    return encode(_server("refused", id=id, reason=reason))


def hint(id: int | None, move: str, text: str) -> str:
    return encode(_server("hint", id=id, move=move, text=text))


def round_message(number: int, winner: str | None, lines: Sequence[str], hands: Sequence[tuple[int, int]]) -> str:
    return encode(_server("round", number=number, winner=winner, lines=list(lines), hands=[[c, k] for c, k in hands]))


def error(code: str, message: str, id: int | None = None) -> str:
    fields: dict[str, Any] = {"code": code, "message": message}
    if id is not None:
        fields["id"] = id
    return encode(_server("error", **fields))


def pong(id: int | None) -> str:
    return encode(_server("pong", id=id))


def _cards(cards: Sequence[Card]) -> list[str]:
    return [card_str(c) for c in cards]


def public_fields(
    snap: TableSnapshot, *, stamp: int, connected: Sequence[bool], stand_in: Sequence[bool]
) -> dict[str, Any]:
    """The fields of ``state`` every viewer shares, encoded from a spectator's view (no hand at all)."""
    if snap.viewer is not None or any(seat.hand is not None for seat in snap.seats):
        raise ValueError("the shared fields of a state come from the public view only")
    return {
        "stamp": stamp,
        "round": snap.round_number,
        "stock": snap.stock,
        "target": snap.target,
        "pot": snap.pot,
        "piles": [_cards(pile) for pile in snap.piles],
        "seats": [
            {
                "name": seat.name,
                "kind": seat.kind,
                "cards": seat.cards,
                "score": seat.score,
                "total": seat.total,
                "to_move": seat.to_move,
                "dealer": seat.dealer,
                "winner": seat.winner,
                "connected": connected[seat.seat],
                "stand_in": stand_in[seat.seat],
            }
            for seat in snap.seats
        ],
        "log": list(snap.log[-LOG_LINES:]),
        "results": [list(r) for r in snap.results],
        "waiting_for": snap.waiting_for,
        "over": snap.over,
        "winners": list(snap.winners),
        "end_text": snap.end_text,
        "save_problem": snap.save_problem,
    }


def own_fields(snap: TableSnapshot | None) -> dict[str, Any]:
    """The fields of ``state`` that are one seat's own, encoded from that seat's view (None: a
    spectator's, which has none)."""
    if snap is None or snap.viewer is None:
        return {"seat": None, "hand": None, "drawn": None, "legal": [], "can_undo": False, "undo_note": ""}
    hand = snap.seats[snap.viewer].hand or ()
    return {
        "seat": snap.viewer,
        "hand": _cards(hand),
        "drawn": None if snap.drawn is None else card_str(snap.drawn),
        "legal": [move_str(m) for m in snap.legal],
        "can_undo": snap.can_undo,
        "undo_note": snap.undo_note,
    }


def states(
    driver: TableDriver,
    viewers: Iterable[int | None],
    *,
    stamp: int,
    connected: Sequence[bool],
    stand_in: Sequence[bool],
) -> dict[int | None, str]:
    """The ``state`` message of each of ``viewers`` (match seats, None for spectators), each
    only an encoding of that viewer's view (``driver.snapshot``): the shared fields encoded once
    from the spectator's view, each seat's own from its own view."""
    shared = public_fields(driver.snapshot(None), stamp=stamp, connected=connected, stand_in=stand_in)
    tail = encode(shared)[1:]  # '"stamp":...}'
    head = encode({"v": PROTOCOL_VERSION, "type": "state"})[:-1]
    out: dict[int | None, str] = {}
    for viewer in viewers:
        if viewer in out:
            continue
        own = own_fields(None if viewer is None else driver.snapshot(viewer))
        out[viewer] = f"{head},{encode(own)[1:-1]},{tail}"
    return out


def state(
    driver: TableDriver, viewer: int | None, *, stamp: int, connected: Sequence[bool], stand_in: Sequence[bool]
) -> str:
    """The ``state`` message of one viewer (see :func:`states`)."""
    return states(driver, [viewer], stamp=stamp, connected=connected, stand_in=stand_in)[viewer]


# ---------------------------------------------------------------------- server -> client (reading)
@dataclass(frozen=True, slots=True)
class SeatInfo:
    """One seat of ``welcome``: its name and kind (``human`` or an AI kind)."""

    name: str
    kind: str


@dataclass(frozen=True, slots=True)
class SeatState:
    """One seat of ``state``."""

    name: str
    kind: str
    cards: int
    score: str
    total: int
    to_move: bool
    dealer: bool
    winner: bool
    connected: bool
    stand_in: bool


@dataclass(frozen=True, slots=True)
class WelcomeMsg:
    seat: int | None
    name: str
    server: str
    rules: dict[str, Any]
    seats: tuple[SeatInfo, ...]


@dataclass(frozen=True, slots=True)
class StateMsg:
    """A ``state``: cards as the engine's :data:`Card` numbers, ``legal`` as move text."""

    stamp: int
    seat: int | None
    round: int
    stock: int
    target: int
    pot: int | None
    piles: tuple[tuple[Card, ...], ...]
    seats: tuple[SeatState, ...]
    hand: tuple[Card, ...] | None
    drawn: Card | None
    legal: tuple[str, ...]
    can_undo: bool
    log: tuple[str, ...]
    results: tuple[tuple[int, ...], ...]
    waiting_for: str | None
    over: bool
    winners: tuple[str, ...]
    end_text: str
    #: Why the seat on turn cannot take a move back (empty when it can, or is not on turn).
    undo_note: str = ""
    #: Why the host cannot save the table now (None: every move shown is kept).
    save_problem: str | None = None

    @property
    def legal_moves(self) -> tuple[Move, ...]:
        return tuple(parse_move(m) for m in self.legal)


@dataclass(frozen=True, slots=True)
class RefusedMsg:
    id: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class HintMsg:
    id: int | None
    move: str
    text: str


@dataclass(frozen=True, slots=True)
class RoundMsg:
    number: int
    winner: str | None
    lines: tuple[str, ...]
    hands: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class ErrorMsg:
    code: str
    message: str
    id: int | None = None


@dataclass(frozen=True, slots=True)
class PongMsg:
    id: int | None


ServerMessage = WelcomeMsg | StateMsg | RefusedMsg | HintMsg | RoundMsg | ErrorMsg | PongMsg


_TOP: Any = object()


class _Reader:
    """Typed reads of a server message's fields; every failure is a ``malformed`` ProtocolError."""

    def __init__(self, data: Mapping[str, Any], kind: str) -> None:
        self.data = data
        self.kind = kind

    def fail(self, what: str) -> ProtocolError:
        return ProtocolError(MALFORMED, f"the server's {self.kind} message: {what}")

    def get(self, key: str, data: Mapping[str, Any] | None = None) -> Any:
        """``key`` of the message (or of ``data``, an object in it); a missing one is refused."""
        where = self.data if data is None else data
        if key not in where:
            raise self.fail(f"no field {key!r}")
        return where[key]

    def integer(self, key: str, value: Any = _TOP, *, none: bool = False) -> Any:
        v = self.get(key) if value is _TOP else value
        if v is None and none:
            return None
        if not _is_int(v):
            raise self.fail(f"{key!r} is not an integer")
        return v

    def text(self, key: str, value: Any = _TOP, *, none: bool = False) -> Any:
        v = self.get(key) if value is _TOP else value
        if v is None and none:
            return None
        if not isinstance(v, str):
            raise self.fail(f"{key!r} is not text")
        return v

    def flag(self, key: str, value: Any = _TOP) -> bool:
        v = self.get(key) if value is _TOP else value
        if not isinstance(v, bool):
            raise self.fail(f"{key!r} is not true or false")
        return v

    def seq(self, key: str, value: Any = _TOP) -> list[Any]:
        v = self.get(key) if value is _TOP else value
        if not isinstance(v, list):
            raise self.fail(f"{key!r} is not a list")
        return v

    def texts(self, key: str, value: Any = _TOP) -> tuple[str, ...]:
        return tuple(self.text(key, x) for x in self.seq(key, value))

    def card(self, key: str, value: Any) -> Card:
        if not isinstance(value, str):
            raise self.fail(f"{key!r} holds a card that is not text")
        try:
            return parse_card(value)
        except CardError:
            raise self.fail(f"{key!r} holds {value[:10]!r}, which is not a card") from None

    def cards(self, key: str, value: Any = _TOP) -> tuple[Card, ...]:
        return tuple(self.card(key, x) for x in self.seq(key, value))

    def obj(self, key: str, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(f"{key!r} holds something that is not an object")
        return value

    def id(self) -> int | None:
        v = self.data.get("id")
        if v is None:
            return None
        return int(self.integer("id", v))


SERVER_FIELDS: dict[str, frozenset[str]] = {
    "welcome": frozenset({"seat", "name", "server", "rules", "seats"}),
    "state": frozenset(
        [
            "stamp",
            "seat",
            "round",
            "stock",
            "target",
            "pot",
            "piles",
            "seats",
            "hand",
            "drawn",
            "legal",
            "can_undo",
            "undo_note",
            "log",
            "results",
            "waiting_for",
            "over",
            "winners",
            "end_text",
            "save_problem",
        ]
    ),
    "refused": frozenset({"id", "reason"}),
    "hint": frozenset({"id", "move", "text"}),
    "round": frozenset({"number", "winner", "lines", "hands"}),
    "error": frozenset({"code", "message", "id"}),
    "pong": frozenset({"id"}),
}


def _seat_info(r: _Reader, value: Any) -> SeatInfo:
    d = r.obj("seats", value)
    return SeatInfo(r.text("name", r.get("name", d)), r.text("kind", r.get("kind", d)))


def _seat_state(r: _Reader, value: Any) -> SeatState:
    d = r.obj("seats", value)
    return SeatState(
        name=r.text("name", r.get("name", d)),
        kind=r.text("kind", r.get("kind", d)),
        cards=r.integer("cards", r.get("cards", d)),
        score=r.text("score", r.get("score", d)),
        total=r.integer("total", r.get("total", d)),
        to_move=r.flag("to_move", r.get("to_move", d)),
        dealer=r.flag("dealer", r.get("dealer", d)),
        winner=r.flag("winner", r.get("winner", d)),
        connected=r.flag("connected", r.get("connected", d)),
        stand_in=r.flag("stand_in", r.get("stand_in", d)),
    )


def parse_server(text: str | bytes, *, strict: bool = False) -> ServerMessage:
    """A server's message, checked field by field into its dataclass; :class:`ProtocolError`
    (``malformed``, or ``upgrade`` for another version) for anything else. A field it does not
    know is skipped (a newer server's addition, PROTOCOL.md's versions), or refused when
    ``strict`` (the tests' check that the server sends only what PROTOCOL.md says)."""
    data = decode(text)
    _check_version(data)
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in SERVER_FIELDS:
        raise ProtocolError(MALFORMED, f"an unknown server message type {str(kind)[:30]!r}")
    for key in data if strict else ():
        if key not in SERVER_FIELDS[kind] and key not in ("v", "type"):
            raise ProtocolError(MALFORMED, f"the server's {kind} message has no field {key[:40]!r}")
    r = _Reader(data, kind)
    if kind == "welcome":
        seats = tuple(_seat_info(r, x) for x in r.seq("seats"))
        rules = r.obj("rules", r.get("rules"))
        return WelcomeMsg(r.integer("seat", none=True), r.text("name"), r.text("server"), dict(rules), seats)
    if kind == "state":
        piles = tuple(r.cards("piles", p) for p in r.seq("piles"))
        if len(piles) != PILE_COUNT:
            raise r.fail(f"'piles' holds {len(piles)} places, not {PILE_COUNT}")
        hand = r.get("hand")
        drawn = r.get("drawn")
        results = tuple(tuple(r.integer("results", x) for x in r.seq("results", row)) for row in r.seq("results"))
        return StateMsg(
            stamp=r.integer("stamp"),
            seat=r.integer("seat", none=True),
            round=r.integer("round"),
            stock=r.integer("stock"),
            target=r.integer("target"),
            pot=r.integer("pot", none=True),
            piles=piles,
            seats=tuple(_seat_state(r, x) for x in r.seq("seats")),
            hand=None if hand is None else r.cards("hand"),
            drawn=None if drawn is None else r.card("drawn", drawn),
            legal=r.texts("legal"),
            can_undo=r.flag("can_undo"),
            undo_note=r.text("undo_note", data.get("undo_note", "")),
            log=r.texts("log"),
            results=results,
            waiting_for=r.text("waiting_for", none=True),
            over=r.flag("over"),
            winners=r.texts("winners"),
            end_text=r.text("end_text"),
            save_problem=r.text("save_problem", data.get("save_problem"), none=True),
        )
    if kind == "refused":
        return RefusedMsg(r.id(), r.text("reason"))
    if kind == "hint":
        return HintMsg(r.id(), r.text("move"), r.text("text"))
    if kind == "round":
        hands: list[tuple[int, int]] = []
        for pair in r.seq("hands"):
            items = r.seq("hands", pair)
            if len(items) != 2:
                raise r.fail("'hands' holds a pair that is not [cards, kings]")
            hands.append((r.integer("hands", items[0]), r.integer("hands", items[1])))
        return RoundMsg(r.integer("number"), r.text("winner", none=True), r.texts("lines"), tuple(hands))
    if kind == "error":
        code = r.text("code")
        return ErrorMsg(code, r.text("message"), r.id())
    return PongMsg(r.id())


__all__ = [
    "ERROR_CODES",
    "HELLO_TIMEOUT",
    "LOG_LINES",
    "MALFORMED_CLOSE",
    "MAX_CONNECTIONS",
    "MAX_DEPTH",
    "MAX_ID",
    "MAX_MESSAGE",
    "MAX_STRING",
    "PROTOCOL_VERSION",
    "RATE_BURST",
    "RATE_PER_SECOND",
    "SLOW_DOWN_CLOSE",
    "TOKEN_BYTES",
    "ClientMessage",
    "ErrorMsg",
    "Hello",
    "HintMsg",
    "HintRequest",
    "MoveRequest",
    "Ping",
    "PongMsg",
    "ProtocolError",
    "RefusedMsg",
    "RoundMsg",
    "SeatInfo",
    "SeatState",
    "ServerMessage",
    "StateMsg",
    "UndoRequest",
    "WelcomeMsg",
    "decode",
    "encode",
    "error",
    "hello_message",
    "hint",
    "hint_message",
    "move_message",
    "own_fields",
    "parse_client",
    "parse_server",
    "ping_message",
    "pong",
    "public_fields",
    "refused",
    "round_message",
    "state",
    "states",
    "undo_message",
    "welcome",
]
