"""The network table's messages read and written (docs/PROTOCOL.md): a client's message read
strictly, the server's simple messages written, a server's message read into the dataclasses
:mod:`kc_tui.net.schema` declares (for the client). The messages' declarations are
:mod:`kc_tui.net.schema`, their JSON :mod:`kc_tui.net.codec`, a viewer's state
:mod:`kc_tui.net.views`; this module gives all of them under one name (``protocol``).

Plain Python: no asyncio, no Textual. Every reader raises :class:`ProtocolError` (a code of
PROTOCOL.md's table and one plain line) for anything it does not accept, never another error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kc_tui.engine import Card, CardError, MoveError, parse_card, parse_move
from kc_tui.engine.strict import is_int as _is_int
from kc_tui.net.codec import check_version as _check_version
from kc_tui.net.codec import decode, encode
from kc_tui.net.schema import (
    BAD_TOKEN,
    CLIENT_FIELDS,
    CLIENT_MESSAGES,
    CLOSED,
    ERROR_CODES,
    HELLO_FIRST,
    HELLO_TIMEOUT,
    LOG_LINES,
    MALFORMED,
    MALFORMED_CLOSE,
    MAX_CONNECTIONS,
    MAX_DEPTH,
    MAX_ID,
    MAX_MESSAGE,
    MAX_STAMP,
    MAX_STRING,
    NOT_YOUR_TURN,
    PILE_COUNT,
    PROTOCOL_VERSION,
    RATE_BURST,
    RATE_PER_SECOND,
    REPLAY_MOST,
    SEAT_TAKEN,
    SERVER_FIELDS,
    SERVER_MESSAGES,
    SLOW_DOWN,
    SLOW_DOWN_CLOSE,
    TOKEN_BYTES,
    TOKEN_LENGTH,
    TOO_LARGE,
    UPGRADE,
    ClientMessage,
    ErrorMsg,
    Hello,
    HintMsg,
    HintRequest,
    MoveRequest,
    Ping,
    PongMsg,
    ProtocolError,
    RefusedMsg,
    ReplayFrame,
    ReplayMsg,
    ReplayRequest,
    RoundMsg,
    SeatInfo,
    SeatState,
    ServerMessage,
    StateMsg,
    UndoRequest,
    WelcomeMsg,
)
from kc_tui.net.views import cards_text as _cards
from kc_tui.net.views import own_fields, public_fields, replay_frames, replay_page, state, states


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
    if kind == "replay":
        number, start = data["round"], data["start"]
        if not (_is_int(number) and 1 <= number <= MAX_ID):
            raise bad("the round is an integer: the number of a finished round (1, 2, ...)")
        if not (_is_int(start) and 0 <= start <= MAX_ID):
            raise bad("the start is an integer: the first position wanted (0: the deal)")
        return ReplayRequest(number, start, rid)
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


def replay_message(number: int, start: int = 0, id: int | None = None) -> str:
    return _client_message("replay", id, round=number, start=start)


def ping_message(id: int | None = None) -> str:
    return _client_message("ping", id)


# ---------------------------------------------------------------------- server -> client (writing)
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


def round_message(
    number: int,
    winner: str | None,
    lines: Sequence[str],
    hands: Sequence[tuple[int, int]],
    cards: Sequence[Sequence[Card]] = (),
) -> str:
    """A round scored: ``cards`` are the cards left in every seat's hand at its end (shown to
    everyone once the round is over, never before)."""
    return encode(
        _server(
            "round",
            number=number,
            winner=winner,
            lines=list(lines),
            hands=[[c, k] for c, k in hands],
            cards=[_cards(hand) for hand in cards],
        )
    )


def error(code: str, message: str, id: int | None = None) -> str:
    fields: dict[str, Any] = {"code": code, "message": message}
    if id is not None:
        fields["id"] = id
    return encode(_server("error", **fields))


def pong(id: int | None) -> str:
    return encode(_server("pong", id=id))


# ---------------------------------------------------------------------- server -> client (reading)
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


def _replay_frame(r: _Reader, value: Any) -> ReplayFrame:
    d = r.obj("frames", value)
    piles = tuple(r.cards("piles", pile) for pile in r.seq("piles", r.get("piles", d)))
    if len(piles) != PILE_COUNT:
        raise r.fail(f"a frame's 'piles' holds {len(piles)} places, not {PILE_COUNT}")
    hand, drawn, move = r.get("hand", d), r.get("drawn", d), r.get("move", d)
    return ReplayFrame(
        move=r.text("move", move, none=True),
        log=r.texts("log", r.get("log", d)),
        piles=piles,
        stock=r.integer("stock", r.get("stock", d)),
        cards=tuple(r.integer("cards", x, none=True) for x in r.seq("cards", r.get("cards", d))),
        to_move=r.integer("to_move", r.get("to_move", d), none=True),
        hand=None if hand is None else r.cards("hand", hand),
        drawn=None if drawn is None else r.card("drawn", drawn),
        totals=tuple(r.integer("totals", x) for x in r.seq("totals", r.get("totals", d))),
        pot=r.integer("pot", r.get("pot", d), none=True),
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
        cards = tuple(r.cards("cards", hand) for hand in r.seq("cards", data.get("cards", [])))
        if cards and len(cards) != len(hands):
            raise r.fail(f"'cards' holds {len(cards)} hands, not {len(hands)}")
        return RoundMsg(r.integer("number"), r.text("winner", none=True), r.texts("lines"), tuple(hands), cards)
    if kind == "replay":
        return ReplayMsg(
            id=r.id(),
            round=r.integer("round"),
            seat=r.integer("seat", none=True),
            length=r.integer("length"),
            start=r.integer("start"),
            dealer=r.integer("dealer"),
            winner=r.integer("winner", none=True),
            frames=tuple(_replay_frame(r, x) for x in r.seq("frames")),
        )
    if kind == "error":
        code = r.text("code")
        return ErrorMsg(code, r.text("message"), r.id())
    return PongMsg(r.id())


__all__ = [
    "BAD_TOKEN",
    "CLIENT_FIELDS",
    "CLIENT_MESSAGES",
    "CLOSED",
    "ERROR_CODES",
    "HELLO_FIRST",
    "HELLO_TIMEOUT",
    "LOG_LINES",
    "MALFORMED",
    "MALFORMED_CLOSE",
    "MAX_CONNECTIONS",
    "MAX_DEPTH",
    "MAX_ID",
    "MAX_MESSAGE",
    "MAX_STAMP",
    "MAX_STRING",
    "NOT_YOUR_TURN",
    "PILE_COUNT",
    "PROTOCOL_VERSION",
    "RATE_BURST",
    "RATE_PER_SECOND",
    "REPLAY_MOST",
    "SEAT_TAKEN",
    "SERVER_FIELDS",
    "SERVER_MESSAGES",
    "SLOW_DOWN",
    "SLOW_DOWN_CLOSE",
    "TOKEN_BYTES",
    "TOKEN_LENGTH",
    "TOO_LARGE",
    "UPGRADE",
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
    "ReplayFrame",
    "ReplayMsg",
    "ReplayRequest",
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
    "replay_frames",
    "replay_message",
    "replay_page",
    "round_message",
    "state",
    "states",
    "undo_message",
    "welcome",
]
