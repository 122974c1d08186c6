"""The lobby's messages, each declared once (docs/PROTOCOL.md, "The lobby"): what a client of
``kings-corners server`` says at ``/lobby`` (sign in, list, create, join, watch, quick play,
rematch, leave) and what the server answers and pushes (the challenge, the listing and its
deltas, a seat given, a table started, a rematch offered). The envelope, the version, the limits
and the error codes are the table's (:mod:`kc_tui.net.schema`); :mod:`kc_tui.net.protocol` reads
and writes both.

Plain Python: no asyncio, no Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from kc_tui.net.schema import Id
from kc_tui.net.wire import Range, Says, wire_fields

#: A table's id in the lobby and in its paths (``/t/<table>/seat/<token>``): URL-safe base64 text.
TABLE_ID_BYTES = 6
TABLE_ID_LENGTH = 8
#: An invite's secret (``/i/<table>/<secret>``): URL-safe base64 text.
INVITE_BYTES = 16
#: The longest display name, in characters.
MAX_NAME = 24
#: The longest wait before quick play fills empty seats with AIs, in seconds.
MAX_FILL_AFTER = 600
#: The longest turn a table's clock may give, in seconds (0: no clock).
MAX_TURN_SECONDS = 3600
#: Seconds left on a turn's clock when its person is warned.
CLOCK_WARNING = 10
#: Timed-out turns in a row after which a person's seat is freed.
TIMEOUTS_FREE_SEAT = 3

#: Error codes of the lobby (besides the table's: malformed, too-large, slow-down, upgrade).
SIGN_IN_FIRST = "sign-in-first"
BAD_SIGNATURE = "bad-signature"
NAME_TAKEN = "name-taken"
NO_TABLE = "no-table"
SEAT_GONE = "seat-gone"
LIMIT = "limit"
#: A lobby kept for watching only (a gateway of a cluster): nothing to sign in to, no seat to take.
WATCH_ONLY = "watch-only"
LOBBY_ERROR_CODES: tuple[str, ...] = (SIGN_IN_FIRST, BAD_SIGNATURE, NAME_TAKEN, NO_TABLE, SEAT_GONE, LIMIT)

#: What a table is doing: seats still free before the first deal, a match being played, over.
OPEN = "open"
PLAYING = "playing"
ENDED = "ended"
PHASES = (OPEN, PLAYING, ENDED)

TableId = Annotated[str, Says("a table is named by its id (8 characters of URL-safe base64)")]
Name = Annotated[str, Says(f"a name is text of 1 to {MAX_NAME} printable characters")]
SeatNo = Annotated[int, Range(0, 3), Says("a seat is a number from 0 to 3")]
Players = Annotated[int, Range(2, 4), Says("a table has 2 to 4 seats")]
Target = Annotated[int, Range(1, 10_000), Says("the target is a whole number of points from 1 to 10000")]
TurnSeconds = Annotated[
    int, Range(0, MAX_TURN_SECONDS), Says(f"the turn time is whole seconds from 0 (no clock) to {MAX_TURN_SECONDS}")
]
FillAfter = Annotated[int, Range(0, MAX_FILL_AFTER), Says(f"the wait is whole seconds from 0 to {MAX_FILL_AFTER}")]


# ---------------------------------------------------------------------- client -> server
@dataclass(frozen=True, slots=True)
class LobbyHello:
    """The first message: who the client is. The server answers ``challenge``."""

    client: Annotated[str, Says("the client is text (e.g. 'kings-corners 1.4.0')")]
    id: Id | None = None


@dataclass(frozen=True, slots=True)
class SignIn:
    """``key``: the player's Ed25519 public key (32 bytes, URL-safe base64 without padding);
    ``signature``: its signature of :func:`kc_tui.net.identity.challenge_bytes` of the server's
    ``challenge``; ``name``: the display name asked for."""

    key: Annotated[str, Says("the key is the Ed25519 public key in URL-safe base64")]
    name: Name
    signature: Annotated[str, Says("the signature is 64 bytes in URL-safe base64")]
    id: Id | None = None


@dataclass(frozen=True, slots=True)
class CreateTable:
    """A new table: ``seats`` in order, each ``human`` (a person's seat, the first the creator's)
    or an AI kind; ``rules`` as :meth:`kc_tui.engine.Rules.to_dict` writes them (the defaults
    for a key left out); ``private``: not listed, joined by its invite only."""

    seats: tuple[str, ...]
    target: Target
    rules: dict[str, Any]
    private: bool = False
    turn_seconds: TurnSeconds = 0
    id: Id | None = None


@dataclass(frozen=True, slots=True)
class JoinTable:
    """Take a free person's seat (``seat`` None: the first free one) of a listed table."""

    table: TableId
    seat: SeatNo | None = None
    id: Id | None = None


@dataclass(frozen=True, slots=True)
class AcceptInvite:
    """Take a seat of the table an invite link names (a private table's too)."""

    table: TableId
    secret: Annotated[str, Says("the invite's secret is the last part of its link")]
    id: Id | None = None


@dataclass(frozen=True, slots=True)
class WatchTable:
    table: TableId
    id: Id | None = None


@dataclass(frozen=True, slots=True)
class QuickPlay:
    """Join the fullest open quick table of these rules and size, or open one; after
    ``fill_after`` seconds its empty seats are played by AIs."""

    players: Players
    target: Target
    rules: dict[str, Any]
    fill_after: FillAfter = 30
    id: Id | None = None


@dataclass(frozen=True, slots=True)
class Rematch:
    """At a match's end: play again with the same people and rules (``accept``), or not."""

    table: TableId
    accept: bool = True
    id: Id | None = None


@dataclass(frozen=True, slots=True)
class LeaveTable:
    """Give up one's seat: before the first deal it is free again; during a match an AI plays
    it and it is listed free for another person."""

    table: TableId
    id: Id | None = None


@dataclass(frozen=True, slots=True)
class FollowLobby:
    """Whether this connection is sent the listing's deltas (``table``, ``table-gone``): on from
    ``hello``; off while its person is at a table (what is said to them alone still comes:
    ``start``, ``rematch``, answers); turned on again, it is sent the whole listing (``lobby``)."""

    on: bool
    id: Id | None = None


@dataclass(frozen=True, slots=True)
class LobbyPing:
    id: Id | None = None


LobbyClientMessage = (
    LobbyHello
    | SignIn
    | CreateTable
    | JoinTable
    | AcceptInvite
    | WatchTable
    | QuickPlay
    | Rematch
    | LeaveTable
    | FollowLobby
    | LobbyPing
)

#: The lobby's client message types and their dataclasses.
LOBBY_CLIENT_MESSAGES: dict[str, type[Any]] = {
    "hello": LobbyHello,
    "sign-in": SignIn,
    "create": CreateTable,
    "join": JoinTable,
    "accept-invite": AcceptInvite,
    "watch": WatchTable,
    "quick": QuickPlay,
    "rematch": Rematch,
    "leave": LeaveTable,
    "follow": FollowLobby,
    "ping": LobbyPing,
}


# ---------------------------------------------------------------------- server -> client
@dataclass(frozen=True, slots=True)
class Challenge:
    """The server's answer to ``hello``: its id (kept across restarts) and a fresh nonce to sign."""

    server: str
    nonce: str


@dataclass(frozen=True, slots=True)
class SignedIn:
    """Who the server knows the client as: the name, and the rating (the Stats model's, rounded)."""

    id: int | None
    name: str
    rating: int
    games: int


@dataclass(frozen=True, slots=True)
class ListedSeat:
    """One seat of a listed table: ``kind`` ``human`` or an AI kind; ``name`` None while a
    person's seat is free; ``connected`` whether its person's client is there."""

    kind: str
    name: str | None
    connected: bool = False


@dataclass(frozen=True, slots=True)
class TableListing:
    """A table as the lobby shows it: never a card, never a token or an invite's secret."""

    table: str
    phase: str
    rules: dict[str, Any]
    target: int
    seats: tuple[ListedSeat, ...]
    spectators: int
    quick: bool
    turn_seconds: int
    round: int
    #: Seconds until quick play fills the empty seats with AIs (None: no fill due).
    fill_in: int | None = None


@dataclass(frozen=True, slots=True)
class LobbyMsg:
    """The whole listing of public tables, sent once signed in (or watching): deltas follow."""

    tables: tuple[TableListing, ...]


@dataclass(frozen=True, slots=True)
class TableMsg:
    """A table opened or changed (its seats, its phase, its round, its spectators)."""

    listing: TableListing


@dataclass(frozen=True, slots=True)
class TableGoneMsg:
    """A table left the listing: ``ended`` (its match is over) or ``closed``."""

    table: str
    reason: str


@dataclass(frozen=True, slots=True)
class JoinedMsg:
    """A seat is the client's at ``table`` (before its first deal: ``start`` follows when all
    seats are taken); ``invite``: the table's invite link (for its creator only)."""

    id: int | None
    table: str
    seat: int
    invite: str | None = None


@dataclass(frozen=True, slots=True)
class StartMsg:
    """The table of the client's seat is playing: ``url`` is the seat's own address (its token:
    a secret of this client alone)."""

    table: str
    seat: int
    url: str


@dataclass(frozen=True, slots=True)
class WatchingMsg:
    id: int | None
    table: str
    url: str


@dataclass(frozen=True, slots=True)
class RematchMsg:
    """At ``table``'s end: the people offered a rematch and those who accepted so far;
    ``declined`` once one of them left or said no (no rematch then)."""

    table: str
    people: tuple[str, ...]
    accepted: tuple[str, ...]
    declined: bool = False


@dataclass(frozen=True, slots=True)
class LobbyRefusedMsg:
    """A request the lobby does not grant: ``code`` (LOBBY_ERROR_CODES) and one plain line;
    ``suggestion``: a free name when the one asked for is held."""

    id: int | None
    code: str
    reason: str
    suggestion: str | None = None


@dataclass(frozen=True, slots=True)
class LobbyErrorMsg:
    code: str
    message: str
    id: int | None = None


@dataclass(frozen=True, slots=True)
class LobbyPongMsg:
    id: int | None


LobbyServerMessage = (
    Challenge
    | SignedIn
    | LobbyMsg
    | TableMsg
    | TableGoneMsg
    | JoinedMsg
    | StartMsg
    | WatchingMsg
    | RematchMsg
    | LobbyRefusedMsg
    | LobbyErrorMsg
    | LobbyPongMsg
)

#: The lobby's server message types and their dataclasses.
LOBBY_SERVER_MESSAGES: dict[str, type[Any]] = {
    "challenge": Challenge,
    "signed-in": SignedIn,
    "lobby": LobbyMsg,
    "table": TableMsg,
    "table-gone": TableGoneMsg,
    "joined": JoinedMsg,
    "start": StartMsg,
    "watching": WatchingMsg,
    "rematch": RematchMsg,
    "refused": LobbyRefusedMsg,
    "error": LobbyErrorMsg,
    "pong": LobbyPongMsg,
}

#: The fields every lobby message type takes besides ``v`` and ``type``.
LOBBY_CLIENT_FIELDS: dict[str, frozenset[str]] = {
    kind: frozenset(name for name, _hint, _default in wire_fields(message))
    for kind, message in LOBBY_CLIENT_MESSAGES.items()
}
LOBBY_SERVER_FIELDS: dict[str, frozenset[str]] = {
    kind: frozenset(name for name, _hint, _default in wire_fields(message))
    for kind, message in LOBBY_SERVER_MESSAGES.items()
}
