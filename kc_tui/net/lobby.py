"""The lobby of ``kings-corners server`` as plain data and rules: the tables it lists, their
seats, quick play and its AI fill, invites, rematch votes and the per-person limits. It decides;
the hub (:mod:`kc_tui.net.hub`) carries out and sends what it returns.

No asyncio, no sockets, no files: every change takes the time as ``now`` (seconds, the wall
clock: :func:`time.time`, so that a quick table's fill time survives a restart) and answers the
deltas to send as a list of events, in the order they happened:

- :class:`Broadcast`: a :class:`~kc_tui.net.lobby_schema.TableMsg` (a listed table opened or
  changed) or :class:`~kc_tui.net.lobby_schema.TableGoneMsg` (it ended or closed), for every
  lobby connection. A private table is never broadcast.
- :class:`Tell`: a :class:`~kc_tui.net.lobby_schema.RematchMsg` for the table's people (by key).
- :class:`Start`: a table's match starts now: the hub makes its ``ServedTable`` from the plan,
  gives each person's seat a new token and sends that person
  ``StartMsg(table, seat, url-with-token)``.
- :class:`Reseat`: a person took a free seat of a table that plays: the hub gives the seat a new
  token (``ServedTable.set_token``) and sends that person their ``StartMsg``.
- :class:`Free`: a person's seat of a table that plays was given up: its token is void (the
  stand-in plays it); the seat is listed free.
- :class:`Close`: the table is gone before its end (everyone left, or the hub closed it): the hub
  closes its ``ServedTable`` if it has one and forgets its records.

Every event names its table (``event.table``): after each call the hub stores
:meth:`Lobby.record` of each table named (None: delete its row), and :meth:`Lobby.restore`
rebuilds the lobby from those records after a restart.

A request the lobby does not grant answers a :class:`Refusal`: a code of
:data:`~kc_tui.net.lobby_schema.LOBBY_ERROR_CODES` (or ``malformed`` for a request that is not
valid: a bad seat plan or rules) and one plain line in the language in use.

A listing never holds a seat token, an invite's secret or a key: only names, kinds and counts.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kc_tui.config import HUMAN, ai_kind_names
from kc_tui.engine import Rules
from kc_tui.engine.rules import MAX_PLAYERS, MIN_PLAYERS
from kc_tui.i18n import _, ngettext
from kc_tui.match.roster import default_name
from kc_tui.net.lobby_schema import (
    ENDED,
    INVITE_BYTES,
    LIMIT,
    MAX_FILL_AFTER,
    MAX_TURN_SECONDS,
    NO_TABLE,
    OPEN,
    PLAYING,
    SEAT_GONE,
    TABLE_ID_BYTES,
    CreateTable,
    ListedSeat,
    LobbyRefusedMsg,
    QuickPlay,
    RematchMsg,
    TableGoneMsg,
    TableListing,
    TableMsg,
)
from kc_tui.net.schema import MALFORMED
from kc_tui.records.rating import ai_anchors
from kc_tui.util.printable import one_line

#: ``TableGoneMsg.reason`` of a table whose match is over.
GONE_ENDED = "ended"
#: ``TableGoneMsg.reason`` of a table closed before its end (everyone left; the server closed it).
GONE_CLOSED = "closed"
#: The version of :meth:`Lobby.record`'s dicts.
RECORD_VERSION = 1
#: The longest piece of a client's text (an AI kind asked for) quoted in a refusal.
QUOTED = 24


@dataclass(frozen=True, slots=True)
class Person:
    """A signed-in person as the lobby knows them: the public key (who they are), the display
    name (what others see) and the rating on the AIs' scale (for the quick fill)."""

    key: str
    name: str
    rating: float


@dataclass(frozen=True, slots=True)
class LobbyLimits:
    """The lobby's limits (docs/PROTOCOL.md, "The lobby"); a request past one is refused with
    code ``limit`` and a line saying which."""

    #: Open tables (not yet started) a person may have created and still sit at, at once (quick
    #: tables they opened count).
    tables_per_person: int = 3
    #: Tables open or playing on the server in all.
    max_tables: int = 1000
    #: Seats a person may hold at once, over every open or playing table.
    seats_per_person: int = 4
    #: The turn clock of a quick table, in seconds (``--turn-seconds``; 0: no clock).
    quick_turn_seconds: int = 60
    #: Seconds a rematch offer stands after its table's end; then it lapses (declined).
    rematch_seconds: float = 300.0


@dataclass(frozen=True, slots=True)
class Refusal:
    """A request not granted: ``code`` (lobby_schema's LOBBY_ERROR_CODES, or ``malformed``) and
    one plain line in the language in use."""

    code: str
    reason: str

    def message(self, request_id: int | None) -> LobbyRefusedMsg:
        """The ``refused`` message answering the request ``request_id``."""
        return LobbyRefusedMsg(request_id, self.code, self.reason)


# ----------------------------------------------------------------------------------- events
@dataclass(frozen=True, slots=True)
class Broadcast:
    """A listing delta for every lobby connection (a listed table only)."""

    message: TableMsg | TableGoneMsg

    @property
    def table(self) -> str:
        m = self.message
        return m.listing.table if isinstance(m, TableMsg) else m.table


@dataclass(frozen=True, slots=True)
class Tell:
    """A message for these people only (their lobby connections), by key."""

    keys: tuple[str, ...]
    message: RematchMsg

    @property
    def table(self) -> str:
        return self.message.table


@dataclass(frozen=True, slots=True)
class PlannedSeat:
    """One seat of a table's plan: ``kind`` ``human`` or an AI kind; ``key`` and ``name`` the
    person's (None for an AI or a free seat); ``name`` is the AI's player name for an AI seat."""

    kind: str
    key: str | None
    name: str | None


@dataclass(frozen=True, slots=True)
class Start:
    """Start the match of ``table``: its seats (people by key, AIs by kind), rules (a
    :meth:`Rules.to_dict`, its target set), target and turn seconds. Each person's seat gets a
    new token and its ``StartMsg``; a free person's seat (a rematch of a table one left) is played
    by the stand-in until someone joins it."""

    table: str
    seats: tuple[PlannedSeat, ...]
    rules: dict[str, Any]
    target: int
    turn_seconds: int
    quick: bool
    private: bool
    #: The table this one is the rematch of.
    rematch_of: str | None = None

    @property
    def people(self) -> tuple[tuple[int, str], ...]:
        """``(seat, key)`` of every person seated."""
        return tuple((i, s.key) for i, s in enumerate(self.seats) if s.key is not None)

    def rules_value(self) -> Rules:
        """The rules as the engine takes them."""
        return Rules.from_dict(dict(self.rules))


@dataclass(frozen=True, slots=True)
class Reseat:
    """``key`` took the free ``seat`` of ``table``, which plays: a new token and a ``StartMsg`` for them."""

    table: str
    seat: int
    key: str


@dataclass(frozen=True, slots=True)
class Free:
    """``key`` gave up ``seat`` of ``table``, which plays: void its token; the stand-in plays it."""

    table: str
    seat: int
    key: str


@dataclass(frozen=True, slots=True)
class Close:
    """``table`` is gone before its end: close its ``ServedTable`` if any, forget its records."""

    table: str
    reason: str = GONE_CLOSED


Event = Broadcast | Tell | Start | Reseat | Free | Close


@dataclass(frozen=True, slots=True)
class Seating:
    """A seat given: ``table`` and ``seat`` (answer ``JoinedMsg``); ``full``: the table became
    full and starts now (a :class:`Start` is among ``events``); ``playing``: the table plays
    already (a :class:`Reseat` is among ``events``); ``invite``: the invite's secret, for the
    creator of a table only (the link is ``<base>/i/<table>/<secret>``; the lobby keeps only
    its SHA-256)."""

    table: str
    seat: int
    full: bool
    playing: bool
    events: tuple[Event, ...]
    invite: str | None = None


@dataclass(frozen=True, slots=True)
class RematchOutcome:
    """A rematch vote counted: ``offer`` (as told to the table's people), ``new_table`` the id of
    the rematch's table once all accepted (its :class:`Start` is among ``events``)."""

    offer: RematchMsg
    new_table: str | None
    events: tuple[Event, ...]


class LobbyRecordError(ValueError):
    """A record given to :meth:`Lobby.restore` is not one :meth:`Lobby.record` writes (one line)."""


# ------------------------------------------------------------------------------------ state
@dataclass(slots=True)
class _Offer:
    """A rematch offer: the people at the table's end, by seat (seat -> person), who accepted."""

    people: dict[int, Person]
    expires: float
    accepted: set[str] = field(default_factory=set)

    def message(self, table: str, *, declined: bool = False) -> RematchMsg:
        ordered = [self.people[s] for s in sorted(self.people)]
        return RematchMsg(
            table,
            tuple(p.name for p in ordered),
            tuple(p.name for p in ordered if p.key in self.accepted),
            declined,
        )

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(self.people[s].key for s in sorted(self.people))


@dataclass(slots=True)
class _Table:
    id: str
    kinds: list[str]
    people: list[Person | None]
    rules: dict[str, Any]
    target: int
    private: bool
    quick: bool
    turn_seconds: int
    creator: str
    invite_hash: str
    order: int
    phase: str = OPEN
    fill_after: int = 0
    fill_at: float | None = None
    round: int = 0
    spectators: int = 0
    connected: list[bool] = field(default_factory=list)
    rematch_of: str | None = None
    offer: _Offer | None = None

    @property
    def live(self) -> bool:
        return self.phase in (OPEN, PLAYING)

    @property
    def listed(self) -> bool:
        return not self.private

    def seat_of(self, key: str) -> int | None:
        for i, p in enumerate(self.people):
            if p is not None and p.key == key:
                return i
        return None

    def free_seats(self) -> list[int]:
        return [i for i, k in enumerate(self.kinds) if k == HUMAN and self.people[i] is None]

    def seated(self) -> list[Person]:
        return [p for p in self.people if p is not None]


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def shipped_ai_ratings() -> dict[str, float]:
    """The AI kinds' ratings shipped with the game (:func:`kc_tui.records.rating.ai_anchors`),
    as :class:`Lobby` takes them. ValueError/OSError as ``ai_anchors`` raises them."""
    return {kind: r.value for kind, r in ai_anchors().items()}


def normalized_rules(rules: Any, target: int) -> dict[str, Any]:
    """``rules`` (a dict of any subset of the settings) read strictly by :meth:`Rules.from_dict`,
    with ``target`` set, as a whole :meth:`Rules.to_dict`: two requests of the same rules give
    the same dict. :class:`~kc_tui.engine.RulesError` (a ValueError) when not valid."""
    if isinstance(target, bool) or not isinstance(target, int):
        raise ValueError(_("the target must be a whole number"))
    return Rules.from_dict(rules).with_(target=target).to_dict()


# ------------------------------------------------------------------------------------ lobby
class Lobby:
    """Every table of the server that is open (seats free before the first deal), playing, or
    ended with a rematch offer standing; the rules of seating people at them.

    ``ai_ratings``: each AI kind's rating on the AIs' scale (:func:`shipped_ai_ratings`); the
    quick fill picks among the kinds rated here that the game offers. ValueError when none is.
    """

    def __init__(self, limits: LobbyLimits, ai_ratings: Mapping[str, float]) -> None:
        self.limits = limits
        offered = set(ai_kind_names())
        self._ai_ratings = {k: float(v) for k, v in ai_ratings.items() if k in offered}
        if not self._ai_ratings:
            raise ValueError("the lobby needs the rating of at least one AI kind")
        self._tables: dict[str, _Table] = {}
        self._order = 0
        self._now = 0.0

    # ------------------------------------------------------------------------- reading
    def listing(self, table: str, now: float | None = None) -> TableListing:
        """The listing of ``table`` (KeyError for an unknown one), as of ``now`` (None: the time
        of the latest call that gave one): seats by kind and name, never a token or a key."""
        return self._listing(self._tables[table], self._now if now is None else now)

    def listings(self, now: float | None = None) -> tuple[TableListing, ...]:
        """Every listed table open or playing, oldest first (the ``lobby`` message's tables)."""
        at = self._now if now is None else now
        return tuple(self._listing(t, at) for t in self._by_age() if t.listed and t.live)

    def phase(self, table: str) -> str | None:
        """``open``, ``playing``, ``ended`` (a rematch offer stands), or None: no such table."""
        t = self._tables.get(table)
        return None if t is None else t.phase

    def listed(self, table: str) -> bool:
        """Whether ``table`` is open or playing and public (in the listing; watched by anyone)."""
        t = self._tables.get(table)
        return t is not None and t.live and t.listed

    def plan(self, table: str) -> Start | None:
        """The seat plan of ``table`` as a :class:`Start` (a restored table that plays is rebuilt
        from it); None for no such table."""
        t = self._tables.get(table)
        return None if t is None else self._plan(t)

    def seats_of(self, key: str) -> list[tuple[str, int]]:
        """``(table, seat)`` of every seat the person ``key`` holds at an open or playing table."""
        out: list[tuple[str, int]] = []
        for t in self._by_age():
            seat = t.seat_of(key)
            if t.live and seat is not None:
                out.append((t.id, seat))
        return out

    def tables(self) -> tuple[str, ...]:
        """The id of every table the lobby holds (open, playing, ended with an offer), oldest first."""
        return tuple(t.id for t in self._by_age())

    # ------------------------------------------------------------------------ requests
    def create(self, person: Person, request: CreateTable, now: float) -> Seating | Refusal:
        """A new table of ``request``'s seat plan (2 to 4 seats, each ``human`` or an AI kind the
        game offers; the creator takes the first person's seat), rules (strictly valid), target,
        privacy and turn clock. Listed unless private; started at once when its creator is its
        only person. ``Seating.invite`` holds the invite's secret."""
        self._now = now
        kinds = list(request.seats)
        problem = _plan_problem(kinds) or _clock_problem(request.turn_seconds)
        if problem is not None:
            return Refusal(MALFORMED, problem)
        rules = _rules_or_refusal(request.rules, request.target)
        if isinstance(rules, Refusal):
            return rules
        refusal = self._room_for_table(person) or self._room_for_seat(person)
        if refusal is not None:
            return refusal
        secret = secrets.token_urlsafe(INVITE_BYTES)
        t = self._new_table(
            person,
            kinds,
            rules,
            request.target,
            private=request.private,
            quick=False,
            turn_seconds=request.turn_seconds,
        )
        t.invite_hash = _hash(secret)
        seat = kinds.index(HUMAN)
        t.people[seat] = person
        return replace(self._seated(t, seat, now), invite=secret)

    def join(self, person: Person, table: str, seat: int | None, now: float) -> Seating | Refusal:
        """A free person's seat of the listed ``table`` (``seat`` None: the first free one). A
        table that plays gives a seat freed during its match (:class:`Reseat`); a table whose
        last free seat this is starts (:class:`Start`)."""
        self._now = now
        t = self._tables.get(table)
        if t is None or not t.live or not t.listed:
            return _no_table()
        return self._take(person, t, seat, now)

    def accept_invite(self, person: Person, table: str, secret: str, now: float) -> Seating | Refusal:
        """The first free person's seat of ``table`` (private or not) for whoever has its invite's
        secret; anyone else is told the invite is not valid."""
        self._now = now
        t = self._tables.get(table)
        if t is None or not t.live or not hmac.compare_digest(_hash(secret), t.invite_hash):
            return Refusal(NO_TABLE, _("This invite is not valid: ask for a new link."))
        return self._take(person, t, None, now)

    def quick(self, person: Person, request: QuickPlay, now: float) -> Seating | Refusal:
        """A seat at the fullest open quick table of the same rules (normalized, the target
        included) and number of players, the oldest among equals; else a new quick table whose
        turn clock is :attr:`LobbyLimits.quick_turn_seconds` and whose empty seats are filled with
        AIs ``request.fill_after`` seconds from now (:meth:`due`)."""
        self._now = now
        if not MIN_PLAYERS <= request.players <= MAX_PLAYERS:
            return Refusal(MALFORMED, _seats_line(request.players))
        if isinstance(request.fill_after, bool) or not 0 <= request.fill_after <= MAX_FILL_AFTER:
            return Refusal(MALFORMED, _("The wait must be whole seconds from 0 to {high}.").format(high=MAX_FILL_AFTER))
        rules = _rules_or_refusal(request.rules, request.target)
        if isinstance(rules, Refusal):
            return rules
        matching = [
            t
            for t in self._by_age()
            if t.quick
            and t.phase == OPEN
            and t.listed
            and t.rules == rules
            and len(t.kinds) == request.players
            and t.seat_of(person.key) is None
            and t.free_seats()
        ]
        if matching:
            best = max(matching, key=lambda t: (len(t.seated()), -t.order))
            return self._take(person, best, None, now)
        refusal = self._room_for_table(person) or self._room_for_seat(person)
        if refusal is not None:
            return refusal
        t = self._new_table(
            person,
            [HUMAN] * request.players,
            rules,
            request.target,
            private=False,
            quick=True,
            turn_seconds=self.limits.quick_turn_seconds,
        )
        t.fill_after = request.fill_after
        t.fill_at = now + request.fill_after
        t.people[0] = person
        return self._seated(t, 0, now)

    def leave(self, person: Person, table: str, now: float) -> list[Event]:
        """``person`` gives up their seat of ``table``. Open: the seat is free again (the table
        closes when no person is left). Playing: the stand-in plays it and it is listed free
        (:class:`Free`; the table closes when no person is left). Ended: the rematch offer ends,
        declined, for everyone. Not at the table: nothing."""
        self._now = now
        t = self._tables.get(table)
        if t is None:
            return []
        if t.phase == ENDED:
            if t.offer is None or person.key not in t.offer.keys:
                return []
            return self._decline(t)
        seat = t.seat_of(person.key)
        if seat is None:
            return []
        return self._free(t, seat, person.key, now)

    def seat_freed(self, table: str, seat: int, now: float) -> list[Event]:
        """The turn clock freed ``seat`` of ``table`` (its person let it run out too often): as
        :meth:`leave` for that person."""
        self._now = now
        t = self._tables.get(table)
        if t is None or not t.live or not 0 <= seat < len(t.people):
            return []
        p = t.people[seat]
        return [] if p is None else self._free(t, seat, p.key, now)

    def due(self, now: float) -> list[Event]:
        """What came due by ``now``: each open quick table whose fill time passed gets, on every
        empty seat, the AI kind whose rating is nearest the mean rating of its people (the
        stronger on a tie), and starts (:class:`Broadcast`, :class:`Start`); each rematch offer
        older than :attr:`LobbyLimits.rematch_seconds` lapses (declined). Call it once a second."""
        self._now = now
        events: list[Event] = []
        for t in self._by_age():
            if t.phase == OPEN and t.fill_at is not None and t.fill_at <= now and t.seated():
                events += self._fill(t, now)
            elif t.phase == ENDED and t.offer is not None and t.offer.expires <= now:
                events += self._decline(t)
        return events

    def ai_for(self, people: Sequence[Person]) -> str:
        """The AI kind whose rating is nearest the mean of ``people``'s (the stronger on a tie;
        the strongest for no one)."""
        if not people:
            return max(self._ai_ratings, key=lambda k: (self._ai_ratings[k], k))
        mean = sum(p.rating for p in people) / len(people)
        return min(self._ai_ratings, key=lambda k: (abs(self._ai_ratings[k] - mean), -self._ai_ratings[k], k))

    # ------------------------------------------------------------------- table reports
    def changed(
        self,
        table: str,
        *,
        round: int | None = None,
        spectators: int | None = None,
        connected: Sequence[bool] | None = None,
        now: float | None = None,
    ) -> list[Event]:
        """The table reports its round, its spectators or which seats' clients are there (from
        ``ServedTable.on_change``): a listing delta when the listing changed."""
        if now is not None:
            self._now = now
        t = self._tables.get(table)
        if t is None or not t.live:
            return []
        before = self._listing(t, self._now)
        if round is not None:
            t.round = round
        if spectators is not None:
            t.spectators = spectators
        if connected is not None:
            t.connected = [bool(c) for c in list(connected)[: len(t.kinds)]]
            t.connected += [False] * (len(t.kinds) - len(t.connected))
        if self._listing(t, self._now) == before:
            return []
        return self._delta(t)

    def round_changed(self, table: str, round: int) -> list[Event]:
        """The table deals round ``round``: as :meth:`changed`."""
        return self.changed(table, round=round)

    def ended(self, table: str, now: float) -> list[Event]:
        """The match of ``table`` is over: it leaves the listing (``ended``) and its people are
        offered a rematch (:class:`Tell`)."""
        self._now = now
        t = self._tables.get(table)
        if t is None or t.phase != PLAYING:
            return []
        t.phase = ENDED
        events: list[Event] = []
        if t.listed:
            events.append(Broadcast(TableGoneMsg(t.id, GONE_ENDED)))
        people = {i: p for i, p in enumerate(t.people) if p is not None}
        if not people:
            del self._tables[t.id]
            return events
        t.offer = _Offer(people, now + self.limits.rematch_seconds)
        events.append(Tell(t.offer.keys, t.offer.message(t.id)))
        return events

    def close(self, table: str, now: float) -> list[Event]:
        """The hub closes ``table`` (it could not start it; the server stops it): gone from the
        listing, its offer declined, forgotten."""
        self._now = now
        t = self._tables.get(table)
        if t is None:
            return []
        if t.phase == ENDED:
            return self._decline(t)
        return self._close(t)

    def rematch(self, person: Person, table: str, accept: bool, now: float) -> RematchOutcome | Refusal:
        """``person``'s vote on the rematch of the ended ``table``. A no ends the offer for
        everyone (declined). When every person offered said yes: a new table (a new id) with the
        same people in the same seats, the same seat plan (the AI kinds too), rules, target,
        turn clock and privacy, started at once (a person's seat left free during the match
        stays free: the stand-in plays it and it is listed for someone to join). When the
        server has :attr:`LobbyLimits.max_tables` tables already, the offer ends declined."""
        self._now = now
        t = self._tables.get(table)
        offer = None if t is None else t.offer
        if t is None or offer is None or person.key not in offer.keys:
            return Refusal(NO_TABLE, _("There is no rematch offered at this table."))
        if not accept:
            return RematchOutcome(offer.message(t.id, declined=True), None, tuple(self._decline(t)))
        offer.accepted.add(person.key)
        if len(offer.accepted) < len(offer.people):
            message = offer.message(t.id)
            return RematchOutcome(message, None, (Tell(offer.keys, message),))
        if self._live_count() >= self.limits.max_tables:
            return RematchOutcome(offer.message(t.id, declined=True), None, tuple(self._decline(t)))
        del self._tables[t.id]
        message = offer.message(t.id)
        new = self._new_table(
            offer.people[min(offer.people)],
            list(t.kinds),
            dict(t.rules),
            t.target,
            private=t.private,
            quick=t.quick,
            turn_seconds=t.turn_seconds,
        )
        new.invite_hash = t.invite_hash
        new.creator = t.creator
        new.rematch_of = t.id
        new.fill_after = t.fill_after
        for seat, p in offer.people.items():
            new.people[seat] = p
        events: list[Event] = [Tell(offer.keys, message), *self._start(new)]
        return RematchOutcome(message, new.id, tuple(events))

    # -------------------------------------------------------------------- persistence
    def record(self, table: str) -> dict[str, Any] | None:
        """``table`` as a JSON-able dict for the hub's store, or None when it is not to be kept
        (no such table, or ended: a rematch offer does not outlive a restart). Holds the invite's
        SHA-256, never the secret."""
        t = self._tables.get(table)
        if t is None or not t.live:
            return None
        return {
            "version": RECORD_VERSION,
            "table": t.id,
            "kinds": list(t.kinds),
            "people": [None if p is None else {"key": p.key, "name": p.name, "rating": p.rating} for p in t.people],
            "rules": dict(t.rules),
            "target": t.target,
            "private": t.private,
            "quick": t.quick,
            "turn_seconds": t.turn_seconds,
            "creator": t.creator,
            "invite_hash": t.invite_hash,
            "order": t.order,
            "phase": t.phase,
            "fill_after": t.fill_after,
            "fill_at": t.fill_at,
            "round": t.round,
            "rematch_of": t.rematch_of,
        }

    def records(self) -> list[dict[str, Any]]:
        """:meth:`record` of every table to keep, oldest first."""
        return [r for t in self._by_age() if (r := self.record(t.id)) is not None]

    @classmethod
    def restore(
        cls,
        limits: LobbyLimits,
        ai_ratings: Mapping[str, float],
        records: Iterable[Mapping[str, Any]],
        now: float = 0.0,
    ) -> Lobby:
        """A lobby holding the tables of ``records`` (as :meth:`record` wrote them), every seat
        disconnected and no spectator, at the time ``now``. :class:`LobbyRecordError` (one line)
        for a record that is not valid."""
        lobby = cls(limits, ai_ratings)
        lobby._now = now
        tables = [_table_from_record(record) for record in records]
        for t in sorted(tables, key=lambda t: t.order):
            if t.id in lobby._tables:
                raise LobbyRecordError(f"table {one_line(t.id, QUOTED)} is recorded twice")
            lobby._tables[t.id] = t
            lobby._order = max(lobby._order, t.order + 1)
        return lobby

    # ---------------------------------------------------------------------- internals
    def _by_age(self) -> list[_Table]:
        """Every table, oldest first (tables are added in their order: :meth:`restore` sorts)."""
        return list(self._tables.values())

    def _live_count(self) -> int:
        return sum(1 for t in self._tables.values() if t.live)

    def _room_for_table(self, person: Person) -> Refusal | None:
        limits = self.limits
        if self._live_count() >= limits.max_tables:
            return _limit_tables(limits.max_tables)
        mine = sum(
            1
            for t in self._tables.values()
            if t.phase == OPEN and t.creator == person.key and t.seat_of(person.key) is not None
        )
        if mine >= limits.tables_per_person:
            return Refusal(
                LIMIT,
                ngettext(
                    "You have {count} open table already: start or leave it first.",
                    "You have {count} open tables already: start or leave one first.",
                    limits.tables_per_person,
                ).format(count=limits.tables_per_person),
            )
        return None

    def _room_for_seat(self, person: Person) -> Refusal | None:
        if len(self.seats_of(person.key)) >= self.limits.seats_per_person:
            return Refusal(
                LIMIT,
                ngettext(
                    "You hold {count} seat already: leave it first.",
                    "You hold {count} seats already: leave one first.",
                    self.limits.seats_per_person,
                ).format(count=self.limits.seats_per_person),
            )
        return None

    def _new_id(self) -> str:
        while True:
            table = secrets.token_urlsafe(TABLE_ID_BYTES)
            if table not in self._tables:
                return table

    def _new_table(
        self,
        creator: Person,
        kinds: list[str],
        rules: dict[str, Any],
        target: int,
        *,
        private: bool,
        quick: bool,
        turn_seconds: int,
    ) -> _Table:
        t = _Table(
            id=self._new_id(),
            kinds=kinds,
            people=[None] * len(kinds),
            rules=rules,
            target=target,
            private=private,
            quick=quick,
            turn_seconds=turn_seconds,
            creator=creator.key,
            invite_hash=_hash(secrets.token_urlsafe(INVITE_BYTES)),
            order=self._order,
            connected=[False] * len(kinds),
        )
        self._order += 1
        self._tables[t.id] = t
        return t

    def _take(self, person: Person, t: _Table, seat: int | None, now: float) -> Seating | Refusal:
        if t.seat_of(person.key) is not None:
            return Refusal(SEAT_GONE, _("You have a seat at this table already."))
        free = t.free_seats()
        if seat is None:
            if not free:
                return Refusal(SEAT_GONE, _("Every seat of this table is taken."))
            seat = free[0]
        elif seat not in free:
            return Refusal(SEAT_GONE, _("Seat {seat} is not a free person's seat.").format(seat=seat))
        refusal = self._room_for_seat(person)
        if refusal is not None:
            return refusal
        t.people[seat] = person
        return self._seated(t, seat, now)

    def _seated(self, t: _Table, seat: int, now: float) -> Seating:
        """``t.people[seat]`` was just seated: the events, and the start when the table is full."""
        key = t.people[seat]
        assert key is not None
        if t.phase == PLAYING:
            events: list[Event] = [*self._delta(t), Reseat(t.id, seat, key.key)]
            return Seating(t.id, seat, False, True, tuple(events))
        if not t.free_seats():
            return Seating(t.id, seat, True, False, tuple(self._start(t)))
        if t.quick and t.fill_at is not None and t.fill_at <= now:
            return Seating(t.id, seat, True, False, tuple(self._fill(t, now)))
        return Seating(t.id, seat, False, False, tuple(self._delta(t)))

    def _fill(self, t: _Table, now: float) -> list[Event]:
        kind = self.ai_for(t.seated())
        for i in t.free_seats():
            t.kinds[i] = kind
        return self._start(t)

    def _start(self, t: _Table) -> list[Event]:
        t.phase = PLAYING
        t.fill_at = None
        return [*self._delta(t), self._plan(t)]

    def _free(self, t: _Table, seat: int, key: str, now: float) -> list[Event]:
        t.people[seat] = None
        t.connected[seat] = False
        if not t.seated():
            return self._close(t)
        if t.phase == PLAYING:
            return [*self._delta(t), Free(t.id, seat, key)]
        return self._delta(t)

    def _close(self, t: _Table) -> list[Event]:
        del self._tables[t.id]
        events: list[Event] = []
        if t.listed:
            events.append(Broadcast(TableGoneMsg(t.id, GONE_CLOSED)))
        events.append(Close(t.id))
        return events

    def _decline(self, t: _Table) -> list[Event]:
        del self._tables[t.id]
        if t.offer is None:
            return []
        return [Tell(t.offer.keys, t.offer.message(t.id, declined=True))]

    def _delta(self, t: _Table) -> list[Event]:
        return [Broadcast(TableMsg(self._listing(t, self._now)))] if t.listed else []

    def _names(self, t: _Table) -> list[str | None]:
        taken = [p.name for p in t.people if p is not None]
        names: list[str | None] = []
        for kind, p in zip(t.kinds, t.people, strict=True):
            if p is not None:
                names.append(p.name)
            elif kind == HUMAN:
                names.append(None)
            else:
                name = default_name(kind, taken)
                taken.append(name)
                names.append(name)
        return names

    def _listing(self, t: _Table, now: float) -> TableListing:
        names = self._names(t)
        seats = tuple(ListedSeat(k, n, c) for k, n, c in zip(t.kinds, names, t.connected, strict=True))
        fill_in = None
        if t.phase == OPEN and t.fill_at is not None:
            fill_in = max(0, math.ceil(t.fill_at - now))
        return TableListing(
            table=t.id,
            phase=t.phase,
            rules=dict(t.rules),
            target=t.target,
            seats=seats,
            spectators=t.spectators,
            quick=t.quick,
            turn_seconds=t.turn_seconds,
            round=t.round,
            fill_in=fill_in,
        )

    def _plan(self, t: _Table) -> Start:
        names = self._names(t)
        seats = tuple(
            PlannedSeat(k, None if p is None else p.key, n) for k, p, n in zip(t.kinds, t.people, names, strict=True)
        )
        return Start(t.id, seats, dict(t.rules), t.target, t.turn_seconds, t.quick, t.private, t.rematch_of)


# -------------------------------------------------------------------------------- checks
def _no_table() -> Refusal:
    return Refusal(NO_TABLE, _("There is no such table: it may have ended."))


def _limit_tables(count: int) -> Refusal:
    line = ngettext(
        "The server has {count} table, its most: try again later.",
        "The server has {count} tables, its most: try again later.",
        count,
    )
    return Refusal(LIMIT, line.format(count=count))


def _seats_line(count: int) -> str:
    return _("A table has {low} to {high} seats, not {count}.").format(low=MIN_PLAYERS, high=MAX_PLAYERS, count=count)


def _plan_problem(kinds: Sequence[Any]) -> str | None:
    """Why ``kinds`` is not a seat plan, in one line; None when it is one."""
    if not MIN_PLAYERS <= len(kinds) <= MAX_PLAYERS:
        return _seats_line(len(kinds))
    offered = ai_kind_names()
    for i, kind in enumerate(kinds):
        if not isinstance(kind, str) or (kind != HUMAN and kind not in offered):
            return _("Seat {seat} must be 'human' or an AI kind ({kinds}), not {kind}.").format(
                seat=i, kinds=", ".join(offered), kind=one_line(repr(kind), QUOTED)
            )
    if HUMAN not in kinds:
        return _("A table needs a person's seat for its creator.")
    return None


def _clock_problem(turn_seconds: Any) -> str | None:
    if isinstance(turn_seconds, bool) or not isinstance(turn_seconds, int) or not 0 <= turn_seconds <= MAX_TURN_SECONDS:
        return _("The turn time must be whole seconds from 0 (no clock) to {high}.").format(high=MAX_TURN_SECONDS)
    return None


def _rules_or_refusal(rules: Any, target: int) -> dict[str, Any] | Refusal:
    try:
        return normalized_rules(rules, target)
    except (ValueError, TypeError) as exc:
        return Refusal(MALFORMED, _("The rules are not valid: {error}").format(error=one_line(str(exc), 200)))


def _person_from(data: Any) -> Person | None:
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise LobbyRecordError("a seat's person must be an object or null")
    key, name, rating = data.get("key"), data.get("name"), data.get("rating")
    if not isinstance(key, str) or not isinstance(name, str):
        raise LobbyRecordError("a seat's person needs its key and name as text")
    if isinstance(rating, bool) or not isinstance(rating, int | float) or not math.isfinite(rating):
        raise LobbyRecordError("a seat's person needs a rating (a finite number)")
    return Person(key, name, float(rating))


def _table_from_record(record: Mapping[str, Any]) -> _Table:
    """The table of one record; :class:`LobbyRecordError` when it is not valid."""
    if not isinstance(record, Mapping) or record.get("version") != RECORD_VERSION:
        raise LobbyRecordError(f"a lobby record must be an object of version {RECORD_VERSION}")
    try:
        table = record["table"]
        kinds = list(record["kinds"])
        people = [_person_from(p) for p in record["people"]]
        rules = normalized_rules(record["rules"], record["target"])
        phase = record["phase"]
        fill_at = record["fill_at"]
        t = _Table(
            id=table,
            kinds=kinds,
            people=people,
            rules=rules,
            target=record["target"],
            private=record["private"],
            quick=record["quick"],
            turn_seconds=record["turn_seconds"],
            creator=record["creator"],
            invite_hash=record["invite_hash"],
            order=record["order"],
            phase=phase,
            fill_after=record["fill_after"],
            fill_at=None if fill_at is None else float(fill_at),
            round=record["round"],
            connected=[False] * len(kinds),
            rematch_of=record["rematch_of"],
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise LobbyRecordError(f"a lobby record is not valid: {one_line(str(exc), 200)}") from None
    ints = (t.target, t.turn_seconds, t.order, t.fill_after, t.round)
    problem = _plan_problem(kinds)
    if (
        not isinstance(table, str)
        or problem is not None
        or len(people) != len(kinds)
        or any(p is not None and k != HUMAN for p, k in zip(people, kinds, strict=True))
        or phase not in (OPEN, PLAYING)
        or any(isinstance(v, bool) or not isinstance(v, int) for v in ints)
        or not all(isinstance(v, bool) for v in (t.private, t.quick))
        or not all(isinstance(v, str) for v in (t.creator, t.invite_hash))
        or not any(p is not None for p in people)
        or len({p.key for p in people if p is not None}) != sum(p is not None for p in people)
    ):
        raise LobbyRecordError(f"the lobby record of table {one_line(repr(table), QUOTED)} is not valid")
    return t
