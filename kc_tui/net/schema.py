"""The network table's messages, each declared once (docs/PROTOCOL.md): the protocol's version,
limits and error codes, every client message and every server message as a dataclass. The fields
a message takes on the wire are its dataclass's fields (less ``id``, and those marked
:data:`LOCAL`), so the readers (:mod:`kc_tui.net.protocol`) and the tests read one declaration.

Plain Python: no asyncio, no Textual.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from kc_tui.engine import Card, parse_move
from kc_tui.engine.moves import Move

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
#: The most positions of a round's replay a client takes (a round of more is refused, in one line).
REPLAY_MOST = 20_000
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


#: A dataclass field that is worked out by the reader, not sent (``field(metadata=LOCAL)``).
LOCAL: dict[str, Any] = {"wire": False}


# ---------------------------------------------------------------------- client -> server
@dataclass(frozen=True, slots=True)
class Hello:
    client: str
    id: int | None = None


@dataclass(frozen=True, slots=True)
class MoveRequest:
    """``move``: the move as sent (POSITION_FORMAT.md's notation); ``parsed``: the engine's move."""

    move: str
    parsed: Move = field(metadata=LOCAL)
    stamp: int = 0
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
class ReplayRequest:
    """``replay``: finished round ``round`` of this match as this seat saw it (a spectator: as
    the table did), its positions from ``start`` on."""

    round: int
    start: int
    id: int | None = None


@dataclass(frozen=True, slots=True)
class Ping:
    id: int | None = None


ClientMessage = Hello | MoveRequest | UndoRequest | HintRequest | ReplayRequest | Ping

#: The client message types and their dataclasses.
CLIENT_MESSAGES: dict[str, type[Any]] = {
    "hello": Hello,
    "move": MoveRequest,
    "undo": UndoRequest,
    "hint": HintRequest,
    "replay": ReplayRequest,
    "ping": Ping,
}


# ---------------------------------------------------------------------- server -> client
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
    #: The cards left in every seat's hand at the round's end (empty from a server that sends none).
    cards: tuple[tuple[Card, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class ReplayFrame:
    """One position of a round's replay as the viewer saw it: ``move`` the move that led to it
    (None at the deal), ``log`` the lines that move wrote (at the deal: the deal's), ``cards``
    every match seat's count (None: the seat sits the round out), ``hand`` and ``drawn`` the
    viewer's own (None for a spectator)."""

    move: str | None
    log: tuple[str, ...]
    piles: tuple[tuple[Card, ...], ...]
    stock: int
    cards: tuple[int | None, ...]
    to_move: int | None
    hand: tuple[Card, ...] | None
    drawn: Card | None
    totals: tuple[int, ...]
    pot: int | None


@dataclass(frozen=True, slots=True)
class ReplayMsg:
    """A page of round ``round``'s replay for ``seat`` (None: a spectator): the frames of the
    positions ``start``, ``start + 1``, ... (the round's last position is ``length``);
    ``dealer`` and ``winner`` (None: blocked) are match seats."""

    id: int | None
    round: int
    seat: int | None
    length: int
    start: int
    dealer: int
    winner: int | None
    frames: tuple[ReplayFrame, ...]


@dataclass(frozen=True, slots=True)
class ErrorMsg:
    code: str
    message: str
    id: int | None = None


@dataclass(frozen=True, slots=True)
class PongMsg:
    id: int | None


ServerMessage = WelcomeMsg | StateMsg | RefusedMsg | HintMsg | RoundMsg | ReplayMsg | ErrorMsg | PongMsg


#: The server message types and their dataclasses.
SERVER_MESSAGES: dict[str, type[Any]] = {
    "welcome": WelcomeMsg,
    "state": StateMsg,
    "refused": RefusedMsg,
    "hint": HintMsg,
    "round": RoundMsg,
    "replay": ReplayMsg,
    "error": ErrorMsg,
    "pong": PongMsg,
}


def wire_fields(message: type[Any]) -> frozenset[str]:
    """The fields a message of dataclass ``message`` takes on the wire."""
    return frozenset(f.name for f in fields(message) if f.metadata.get("wire", True))


#: The fields every client message type takes besides ``v``, ``type`` and ``id``.
CLIENT_FIELDS: dict[str, frozenset[str]] = {
    kind: wire_fields(message) - {"id"} for kind, message in CLIENT_MESSAGES.items()
}
#: The fields every server message type may carry besides ``v`` and ``type``.
SERVER_FIELDS: dict[str, frozenset[str]] = {kind: wire_fields(message) for kind, message in SERVER_MESSAGES.items()}
