"""The network table's messages, each declared once (docs/PROTOCOL.md): the protocol's version,
limits and error codes, every client message and every server message as a dataclass. A
message's wire form is its declaration (:mod:`kc_tui.net.wire`): its fields, their types and
their checks; ``state`` carries the viewer's :class:`~kc_tui.match.view.TableSnapshot` as that
dataclass declares it. :mod:`kc_tui.net.protocol` reads and writes them.

Plain Python: no asyncio, no Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from kc_tui.engine import Card, Move, move_str
from kc_tui.match.view import SeatSnapshot, TableSnapshot
from kc_tui.net.wire import Range, Says, wire_fields

PROTOCOL_VERSION = 3
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
#: The turn clock freed the seat (its person let too many turns in a row run out): an AI plays it.
SEAT_FREED = "seat-freed"
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
    SEAT_FREED,
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


Id = Annotated[int, Range(0, MAX_ID), Says(f"the id is an integer from 0 to {MAX_ID}")]
Stamp = Annotated[
    int, Range(0, MAX_STAMP), Says("the stamp is an integer: the stamp of the state the request was chosen in")
]


# ---------------------------------------------------------------------- client -> server
@dataclass(frozen=True, slots=True)
class Hello:
    client: Annotated[str, Says("the client is text (e.g. 'kings-corners 1.4.0')")]
    id: Id | None = None


@dataclass(frozen=True, slots=True)
class MoveRequest:
    """``move``: the engine's move, sent in POSITION_FORMAT.md's notation."""

    move: Move
    stamp: Stamp
    id: Id | None = None


@dataclass(frozen=True, slots=True)
class UndoRequest:
    stamp: Stamp
    id: Id | None = None


@dataclass(frozen=True, slots=True)
class HintRequest:
    stamp: Stamp
    id: Id | None = None


@dataclass(frozen=True, slots=True)
class ReplayRequest:
    """``replay``: finished round ``round`` of this match as this seat saw it (a spectator: as
    the table did), its positions from ``start`` on."""

    round: Annotated[int, Range(1, MAX_ID), Says("the round is an integer: the number of a finished round (1, 2, ...)")]
    start: Annotated[int, Range(0, MAX_ID), Says("the start is an integer: the first position wanted (0: the deal)")]
    id: Id | None = None


@dataclass(frozen=True, slots=True)
class Ping:
    id: Id | None = None


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
class WelcomeMsg:
    seat: int | None
    name: str
    server: str
    rules: dict[str, Any]
    seats: tuple[SeatInfo, ...]


@dataclass(frozen=True, slots=True)
class StateMsg:
    """A ``state``: the table as its viewer may see it (:class:`~kc_tui.match.view.TableSnapshot`,
    the log cut to its last :data:`LOG_LINES`), and the ``stamp`` a request chosen in it names.

    The properties below read the view under the names of the message's fields (the client and
    the tests read them); each is the view's own value."""

    stamp: int
    view: TableSnapshot

    def __post_init__(self) -> None:
        v = self.view
        if len(v.piles) != PILE_COUNT:
            raise ValueError(f"the view's 'piles' holds {len(v.piles)} places, not {PILE_COUNT}")
        if v.hands_open or any(s.hand is not None for s in v.seats if s.seat != v.viewer):
            raise ValueError("a state holds the viewer's own hand only")
        n = len(v.seats)
        if not 2 <= n <= 4 or any(seat.seat != i for i, seat in enumerate(v.seats)):
            raise ValueError(f"the view's 'seats' are not 2 to 4 seats in order ({n})")
        seats = range(n)
        for name, seat in (("viewer", v.viewer), ("to_move", v.to_move), ("round_winner", v.round_winner)):
            if seat is not None and seat not in seats:
                raise ValueError(f"the view's '{name}' is no seat of the table: {seat}")
        if not 0 <= v.stock <= 52 or any(not 0 <= seat.cards <= 52 for seat in v.seats):
            raise ValueError("the view counts more cards than a deck holds")
        if len(v.log) > LOG_LINES:
            raise ValueError(f"the view's 'log' holds more than {LOG_LINES} lines")
        if any(abs(seat.total) > MAX_STAMP for seat in v.seats) or any(
            len(row.scores) != n or (row.winner is not None and row.winner not in seats) for row in v.results
        ):
            raise ValueError("the view's totals or rounds do not fit its seats")

    @property
    def seat(self) -> int | None:
        return self.view.viewer

    @property
    def round(self) -> int:
        return self.view.round_number

    @property
    def stock(self) -> int:
        return self.view.stock

    @property
    def target(self) -> int:
        return self.view.target

    @property
    def pot(self) -> int | None:
        return self.view.pot

    @property
    def piles(self) -> tuple[tuple[Card, ...], ...]:
        return self.view.piles

    @property
    def seats(self) -> tuple[SeatSnapshot, ...]:
        return self.view.seats

    @property
    def hand(self) -> tuple[Card, ...] | None:
        return self.view.hand

    @property
    def drawn(self) -> Card | None:
        return self.view.drawn

    @property
    def legal(self) -> tuple[str, ...]:
        """The viewer's legal moves in notation."""
        return tuple(move_str(m) for m in self.view.legal)

    @property
    def legal_moves(self) -> tuple[Move, ...]:
        return self.view.legal

    @property
    def can_undo(self) -> bool:
        return self.view.can_undo

    @property
    def undo_note(self) -> str:
        return self.view.undo_note

    @property
    def log(self) -> tuple[str, ...]:
        return self.view.log

    @property
    def results(self) -> tuple[tuple[int, ...], ...]:
        return tuple(row.scores for row in self.view.results)

    @property
    def waiting_for(self) -> str | None:
        return self.view.waiting_for

    @property
    def over(self) -> bool:
        return self.view.over

    @property
    def winners(self) -> tuple[str, ...]:
        return self.view.winners

    @property
    def end_text(self) -> str:
        return self.view.end_text

    @property
    def save_problem(self) -> str | None:
        return self.view.save_problem


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
    """A round scored: ``cards`` are the cards left in every seat's hand at its end (shown to
    everyone once the round is over, never before; empty from a server that sends none)."""

    number: int
    winner: str | None
    lines: tuple[str, ...]
    hands: tuple[tuple[int, int], ...]
    cards: tuple[tuple[Card, ...], ...] = ()

    def __post_init__(self) -> None:
        if self.cards and len(self.cards) != len(self.hands):
            raise ValueError(f"'cards' holds {len(self.cards)} hands, not {len(self.hands)}")


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

    def __post_init__(self) -> None:
        if len(self.piles) != PILE_COUNT:
            raise ValueError(f"a frame's 'piles' holds {len(self.piles)} places, not {PILE_COUNT}")


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


@dataclass(frozen=True, slots=True)
class ClockMsg:
    """The turn clock (a table with a turn time): ``seat``'s clock runs with ``left`` whole
    seconds of the turn (its start: the turn's time); ``warning``: that little is left that
    once it runs out an AI plays the rest of the turn."""

    seat: int
    left: int
    warning: bool


ServerMessage = WelcomeMsg | StateMsg | RefusedMsg | HintMsg | RoundMsg | ReplayMsg | ErrorMsg | PongMsg | ClockMsg


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
    "clock": ClockMsg,
}


#: The fields every client message type takes besides ``v`` and ``type``.
CLIENT_FIELDS: dict[str, frozenset[str]] = {
    kind: frozenset(name for name, _hint, _default in wire_fields(message)) for kind, message in CLIENT_MESSAGES.items()
}
#: The fields every server message type may carry besides ``v`` and ``type``.
SERVER_FIELDS: dict[str, frozenset[str]] = {
    kind: frozenset(name for name, _hint, _default in wire_fields(message)) for kind, message in SERVER_MESSAGES.items()
}
