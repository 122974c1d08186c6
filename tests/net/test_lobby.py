"""The lobby's rules (kc_tui/net/lobby.py), with no socket: tables created, joined, started;
private tables and invites; quick play and its AI fill; rematch votes; the limits; the deltas
in order; records and restore; and, for any sequence of requests, its invariants."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from kc_tui.net.lobby import (
    Broadcast,
    Close,
    Event,
    Free,
    Lobby,
    LobbyLimits,
    LobbyRecordError,
    Person,
    Refusal,
    RematchOutcome,
    Reseat,
    Seating,
    Start,
    Tell,
    shipped_ai_ratings,
)
from kc_tui.net.lobby_schema import (
    ENDED,
    LIMIT,
    NO_TABLE,
    OPEN,
    PLAYING,
    SEAT_GONE,
    CreateTable,
    LobbyMsg,
    QuickPlay,
    RematchMsg,
    TableGoneMsg,
    TableListing,
    TableMsg,
)
from kc_tui.net.protocol import parse_lobby_server, write
from kc_tui.net.schema import MALFORMED

RATINGS = {"random": 100.0, "greedy": 1000.0, "king-aware": 1010.0, "lookahead": 1045.0, "expert": 1050.0}
RULES = {"draw": "end"}

ANN = Person("key-ann", "Ann", 1000.0)
BOB = Person("key-bob", "Bob", 1080.0)
CID = Person("key-cid", "Cid", 1000.0)
DEE = Person("key-dee", "Dee", 1000.0)


def new_lobby(**limits: Any) -> Lobby:
    return Lobby(LobbyLimits(**limits), RATINGS)


def seated(result: Seating | Refusal) -> Seating:
    assert isinstance(result, Seating), result
    return result


def refused(result: object, code: str) -> Refusal:
    assert isinstance(result, Refusal), result
    assert result.code == code, result
    assert result.reason and "\n" not in result.reason
    return result


def create(lobby: Lobby, person: Person, seats: Sequence[str] = ("human", "human"), **fields: Any) -> Seating:
    request = CreateTable(tuple(seats), fields.pop("target", 50), fields.pop("rules", {}), **fields)
    return seated(lobby.create(person, request, 0.0))


def listed(events: Sequence[Event]) -> list[TableListing]:
    return [e.message.listing for e in events if isinstance(e, Broadcast) and isinstance(e.message, TableMsg)]


def kinds(events: Sequence[Event]) -> list[str]:
    """Each event as a word: ``table:<phase>``, ``gone:<reason>``, ``tell``, ``start``, ..."""
    words: list[str] = []
    for e in events:
        if isinstance(e, Broadcast):
            m = e.message
            words.append(f"table:{m.listing.phase}" if isinstance(m, TableMsg) else f"gone:{m.reason}")
        else:
            words.append(type(e).__name__.lower())
    return words


def the(events: Sequence[Event], kind: type[Any]) -> Any:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, events
    return found[0]


def ended_table(lobby: Lobby) -> tuple[str, Start]:
    """A table of Ann (seat 0), an expert (seat 1) and Bob (seat 2), played to its end."""
    table = create(lobby, ANN, ("human", "expert", "human"), rules=RULES, turn_seconds=30).table
    start = the(seated(lobby.join(BOB, table, None, 1.0)).events, Start)
    lobby.ended(table, 2.0)
    return table, start


# ------------------------------------------------------------------------- tables
def test_a_created_table_is_listed_with_its_creator_at_the_first_persons_seat() -> None:
    lobby = new_lobby()
    seating = create(lobby, ANN, ("greedy", "human", "human"), rules=RULES, target=100, turn_seconds=20)
    assert (seating.seat, seating.full, seating.playing) == (1, False, False)
    assert seating.invite
    (listing,) = listed(seating.events)
    assert kinds(seating.events) == ["table:open"]
    assert listing.table == seating.table
    assert [(s.kind, s.name) for s in listing.seats] == [("greedy", "Greedy"), ("human", "Ann"), ("human", None)]
    assert (listing.target, listing.turn_seconds, listing.quick, listing.fill_in) == (100, 20, False, None)
    assert listing.rules["draw"] == "end" and listing.rules["target"] == 100
    assert lobby.listings() == (listing,)
    assert lobby.phase(seating.table) == OPEN


def test_joining_the_last_free_seat_starts_the_table() -> None:
    lobby = new_lobby()
    table = create(lobby, ANN, ("human", "lookahead", "human"), rules=RULES, turn_seconds=15).table
    seating = seated(lobby.join(BOB, table, None, 1.0))
    assert (seating.table, seating.seat, seating.full) == (table, 2, True)
    assert kinds(seating.events) == ["table:playing", "start"]
    start: Start = the(seating.events, Start)
    assert start.people == ((0, ANN.key), (2, BOB.key))
    assert [s.kind for s in start.seats] == ["human", "lookahead", "human"]
    assert (start.target, start.turn_seconds, start.private, start.quick) == (50, 15, False, False)
    assert start.rules_value().draw == "end"
    assert lobby.phase(table) == PLAYING


def test_a_table_whose_creator_is_its_only_person_starts_at_once() -> None:
    seating = create(new_lobby(), ANN, ("human", "greedy"))
    assert seating.full
    assert kinds(seating.events) == ["table:playing", "start"]


def test_a_seat_asked_for_is_given_only_if_it_is_a_free_persons_seat() -> None:
    lobby = new_lobby()
    table = create(lobby, ANN, ("human", "greedy", "human", "human")).table
    assert seated(lobby.join(BOB, table, 3, 1.0)).seat == 3
    for seat in (0, 1, 3):
        reason = refused(lobby.join(CID, table, seat, 1.0), SEAT_GONE).reason
        assert reason == f"Seat {seat} is not a free person's seat."
    line = refused(lobby.join(CID, "nosuchtb", None, 1.0), NO_TABLE).reason
    assert line == "There is no such table: it may have ended."


def test_a_person_holds_one_seat_of_a_table() -> None:
    lobby = new_lobby()
    table = create(lobby, ANN, ("human", "human", "human")).table
    line = refused(lobby.join(ANN, table, None, 1.0), SEAT_GONE).reason
    assert line == "You have a seat at this table already."
    refused(lobby.join(ANN, table, 1, 1.0), SEAT_GONE)


def test_a_full_table_refuses_a_join() -> None:
    lobby = new_lobby()
    table = create(lobby, ANN).table
    seated(lobby.join(BOB, table, None, 1.0))
    assert refused(lobby.join(CID, table, None, 1.0), SEAT_GONE).reason == "Every seat of this table is taken."


# ----------------------------------------------------------------- private, invite
def test_a_private_table_is_never_listed_nor_broadcast() -> None:
    lobby = new_lobby()
    seating = create(lobby, ANN, ("human", "human"), private=True)
    assert seating.events == ()
    assert lobby.listings() == ()
    assert not lobby.listed(seating.table)
    refused(lobby.join(BOB, seating.table, None, 1.0), NO_TABLE)
    assert seating.invite is not None
    joined = seated(lobby.accept_invite(BOB, seating.table, seating.invite, 1.0))
    assert kinds(joined.events) == ["start"]
    assert lobby.listings() == ()
    assert kinds(lobby.ended(seating.table, 2.0)) == ["tell"]


def test_an_invite_seats_the_person_with_its_secret_and_no_one_else() -> None:
    lobby = new_lobby()
    mine = create(lobby, ANN, ("human", "human", "human"), private=True)
    other = create(lobby, CID, ("human", "human"))
    assert mine.invite is not None and other.invite is not None
    for table, secret in (
        (mine.table, "x" * 22),
        (mine.table, other.invite),
        (mine.table, ""),
        ("nosuchtb", mine.invite),
    ):
        line = refused(lobby.accept_invite(BOB, table, secret, 1.0), NO_TABLE).reason
        assert line == "This invite is not valid: ask for a new link."
    assert seated(lobby.accept_invite(BOB, mine.table, mine.invite, 1.0)).seat == 1
    refused(lobby.accept_invite(ANN, mine.table, mine.invite, 1.0), SEAT_GONE)


def test_only_the_invites_hash_is_kept() -> None:
    lobby = new_lobby()
    seating = create(lobby, ANN, private=True)
    assert seating.invite is not None
    record = lobby.record(seating.table)
    assert record is not None
    assert seating.invite not in repr(record)
    assert record["invite_hash"] == hashlib.sha256(seating.invite.encode()).hexdigest()


def test_no_listing_holds_a_secret_a_token_or_a_key() -> None:
    lobby = new_lobby()
    events: list[Event] = []
    a = create(lobby, ANN, ("human", "human", "greedy"))
    b = create(lobby, CID, ("human", "human"), private=True)
    events += a.events
    events += seated(lobby.join(BOB, a.table, None, 1.0)).events
    events += seated(lobby.quick(DEE, QuickPlay(3, 50, RULES, 5), 1.0)).events
    events += lobby.due(10.0)
    events += lobby.changed(a.table, round=2, spectators=3, connected=[True, False, False])
    events += lobby.leave(BOB, a.table, 11.0)
    events += lobby.ended(a.table, 12.0)
    texts = [write(e.message) for e in events if isinstance(e, Broadcast | Tell)]
    texts.append(write(LobbyMsg(lobby.listings())))
    assert len(texts) >= 7
    secrets = [a.invite, b.invite, *(p.key for p in (ANN, BOB, CID, DEE))]
    hashes = [r["invite_hash"] for r in lobby.records()]
    for text in texts:
        parse_lobby_server(text, strict=True)
        for secret in [*secrets, *hashes]:
            assert secret and secret not in text
        assert b.table not in text


# ---------------------------------------------------------------------- quick play
def test_quick_play_opens_a_quick_table_with_the_clock_on() -> None:
    lobby = new_lobby(quick_turn_seconds=45)
    seating = seated(lobby.quick(ANN, QuickPlay(3, 50, RULES, 20), 100.0))
    (listing,) = listed(seating.events)
    assert (listing.quick, listing.turn_seconds, listing.fill_in, listing.phase) == (True, 45, 20, OPEN)
    assert lobby.listing(seating.table, 112.5).fill_in == 8


def test_quick_play_joins_the_fullest_matching_table_the_oldest_among_equals() -> None:
    lobby = new_lobby()
    ask = QuickPlay(4, 50, RULES, 30)
    first = seated(lobby.quick(ANN, ask, 0.0)).table
    second = seated(lobby.quick(ANN, ask, 0.0)).table  # Ann sits at the first: a new table
    assert second != first
    seated(lobby.join(BOB, second, None, 1.0))
    assert seated(lobby.quick(CID, ask, 2.0)).table == second
    assert seated(lobby.quick(DEE, ask, 2.0)).table == second
    assert lobby.phase(second) == PLAYING
    assert seated(lobby.quick(CID, ask, 3.0)).table == first
    # Equal tables: the oldest.
    lobby = new_lobby()
    one = seated(lobby.quick(ANN, ask, 0.0)).table
    seated(lobby.quick(ANN, ask, 0.0))
    assert seated(lobby.quick(BOB, ask, 1.0)).table == one


@pytest.mark.parametrize(
    "other",
    [QuickPlay(3, 50, RULES, 30), QuickPlay(4, 60, RULES, 30), QuickPlay(4, 50, {"draw": "start"}, 30)],
    ids=["players", "target", "rules"],
)
def test_quick_play_opens_a_new_table_for_other_rules_target_or_players(other: QuickPlay) -> None:
    lobby = new_lobby()
    first = seated(lobby.quick(ANN, QuickPlay(4, 50, RULES, 30), 0.0)).table
    assert seated(lobby.quick(BOB, other, 1.0)).table != first


def test_quick_play_matches_rules_as_normalized() -> None:
    lobby = new_lobby()
    first = seated(lobby.quick(ANN, QuickPlay(2, 50, {"draw": "end", "hand_size": 7}, 30), 0.0)).table
    joined = seated(lobby.quick(BOB, QuickPlay(2, 50, {"target": 50, "draw": "end"}, 30), 1.0))
    assert joined.table == first and joined.full


def test_a_quick_table_is_filled_with_the_nearest_rated_ai_when_its_wait_is_over() -> None:
    lobby = new_lobby()
    table = seated(lobby.quick(ANN, QuickPlay(4, 50, RULES, 30), 100.0)).table  # Ann: 1000
    seated(lobby.quick(BOB, QuickPlay(4, 50, RULES, 5), 110.0))  # Bob: 1080; his wait does not count
    assert lobby.due(129.9) == []
    assert lobby.phase(table) == OPEN
    events = lobby.due(130.0)
    assert kinds(events) == ["table:playing", "start"]
    start: Start = the(events, Start)
    assert start.table == table
    assert [s.kind for s in start.seats] == ["human", "human", "lookahead", "lookahead"]  # mean 1040
    assert start.people == ((0, ANN.key), (1, BOB.key))
    assert start.turn_seconds == LobbyLimits().quick_turn_seconds
    assert lobby.due(200.0) == []


@pytest.mark.parametrize(
    ("ratings", "chosen"),
    [((1000.0,), "greedy"), ((0.0,), "random"), ((1005.0,), "king-aware"), ((3000.0, 3000.0), "expert")],
    ids=["exact", "weakest", "tie-the-stronger", "strongest"],
)
def test_the_fill_takes_the_ai_nearest_the_mean_rating(ratings: tuple[float, ...], chosen: str) -> None:
    lobby = new_lobby()
    people = [Person(f"key-{i}", f"P{i}", r) for i, r in enumerate(ratings)]
    assert lobby.ai_for(people) == chosen


def test_a_quick_table_without_a_wait_starts_at_once() -> None:
    seating = seated(new_lobby().quick(ANN, QuickPlay(3, 50, RULES, 0), 5.0))
    assert seating.full
    assert [s.kind for s in the(seating.events, Start).seats] == ["human", "greedy", "greedy"]


def test_the_lobby_takes_the_shipped_ratings() -> None:
    lobby = Lobby(LobbyLimits(), shipped_ai_ratings())
    assert lobby.ai_for([Person("k", "P", 1000.0)]) == "greedy"
    with pytest.raises(ValueError, match="rating"):
        Lobby(LobbyLimits(), {"not-a-kind": 1.0})


# -------------------------------------------------------------------------- leaving
def test_a_seat_left_before_the_start_is_free_again_and_the_last_leaving_closes_the_table() -> None:
    lobby = new_lobby()
    table = create(lobby, ANN, ("human", "human", "human")).table
    seated(lobby.join(BOB, table, None, 1.0))
    events = lobby.leave(ANN, table, 2.0)
    assert kinds(events) == ["table:open"]
    assert [s.name for s in listed(events)[0].seats] == [None, "Bob", None]
    assert lobby.leave(ANN, table, 2.0) == []
    assert kinds(lobby.leave(BOB, table, 3.0)) == ["gone:closed", "close"]
    assert lobby.phase(table) is None and lobby.listings() == ()


def test_a_seat_left_during_play_is_listed_free_and_can_be_joined() -> None:
    lobby = new_lobby()
    table = create(lobby, ANN, ("human", "greedy", "human")).table
    seated(lobby.join(BOB, table, None, 1.0))
    events = lobby.leave(BOB, table, 2.0)
    assert kinds(events) == ["table:playing", "free"]
    assert the(events, Free) == Free(table, 2, BOB.key)
    assert listed(events)[0].seats[2].name is None
    seating = seated(lobby.join(CID, table, None, 3.0))
    assert (seating.seat, seating.full, seating.playing) == (2, False, True)
    assert kinds(seating.events) == ["table:playing", "reseat"]
    assert the(seating.events, Reseat) == Reseat(table, 2, CID.key)


def test_the_clock_frees_a_seat_and_the_last_person_gone_closes_a_table_in_play() -> None:
    lobby = new_lobby()
    table = create(lobby, ANN, ("human", "greedy", "human")).table
    seated(lobby.join(BOB, table, None, 1.0))
    assert kinds(lobby.seat_freed(table, 0, 2.0)) == ["table:playing", "free"]
    assert lobby.seat_freed(table, 0, 2.0) == []
    assert kinds(lobby.leave(BOB, table, 3.0)) == ["gone:closed", "close"]


def test_the_hub_closes_a_table() -> None:
    lobby = new_lobby()
    table = create(lobby, ANN, ("human", "greedy")).table
    events = lobby.close(table, 1.0)
    assert kinds(events) == ["gone:closed", "close"]
    assert the(events, Close) == Close(table, "closed")
    assert lobby.close(table, 1.0) == [] and lobby.tables() == ()


def test_a_table_reports_its_round_spectators_and_connections() -> None:
    lobby = new_lobby()
    table = create(lobby, ANN, ("human", "greedy")).table
    (listing,) = listed(lobby.changed(table, round=3, spectators=2, connected=[True, False]))
    assert (listing.round, listing.spectators, [s.connected for s in listing.seats]) == (3, 2, [True, False])
    assert lobby.changed(table, round=3) == []
    assert listed(lobby.round_changed(table, 4))[0].round == 4


# -------------------------------------------------------------------------- rematch
def test_the_end_of_a_match_offers_its_people_a_rematch() -> None:
    lobby = new_lobby()
    table = create(lobby, ANN, ("human", "expert", "human")).table
    seated(lobby.join(BOB, table, None, 1.0))
    events = lobby.ended(table, 2.0)
    assert kinds(events) == ["gone:ended", "tell"]
    tell: Tell = the(events, Tell)
    assert tell.keys == (ANN.key, BOB.key)
    assert tell.message == RematchMsg(table, ("Ann", "Bob"), ())
    assert lobby.phase(table) == ENDED and lobby.listings() == ()


def test_a_rematch_all_accept_starts_a_new_table_with_the_same_people_and_plan() -> None:
    lobby = new_lobby()
    table, first = ended_table(lobby)
    vote = lobby.rematch(BOB, table, True, 3.0)
    assert isinstance(vote, RematchOutcome) and vote.new_table is None
    assert vote.offer == RematchMsg(table, ("Ann", "Bob"), ("Bob",))
    assert kinds(vote.events) == ["tell"]
    done = lobby.rematch(ANN, table, True, 4.0)
    assert isinstance(done, RematchOutcome) and done.new_table not in (None, table)
    assert kinds(done.events) == ["tell", "table:playing", "start"]
    start: Start = the(done.events, Start)
    assert start.table == done.new_table and start.rematch_of == table
    assert (start.seats, start.rules, start.target, start.turn_seconds) == (
        first.seats,
        first.rules,
        first.target,
        first.turn_seconds,
    )
    assert lobby.phase(table) is None and lobby.phase(start.table) == PLAYING


def test_a_quick_tables_rematch_keeps_its_ais_and_a_private_ones_privacy() -> None:
    lobby = new_lobby()
    quick = the(seated(lobby.quick(ANN, QuickPlay(3, 50, RULES, 0), 0.0)).events, Start)
    lobby.ended(quick.table, 1.0)
    done = lobby.rematch(ANN, quick.table, True, 2.0)
    assert isinstance(done, RematchOutcome)
    again: Start = the(done.events, Start)
    assert (again.seats, again.quick) == (quick.seats, True)
    private = create(lobby, BOB, ("human", "greedy"), private=True).table
    lobby.ended(private, 3.0)
    done = lobby.rematch(BOB, private, True, 4.0)
    assert isinstance(done, RematchOutcome) and kinds(done.events) == ["tell", "start"]
    assert the(done.events, Start).private


def test_a_decline_ends_the_rematch_for_everyone() -> None:
    lobby = new_lobby()
    table, _start = ended_table(lobby)
    assert isinstance(lobby.rematch(ANN, table, True, 3.0), RematchOutcome)
    no = lobby.rematch(BOB, table, False, 4.0)
    assert isinstance(no, RematchOutcome) and no.new_table is None
    tell: Tell = the(no.events, Tell)
    assert tell.keys == (ANN.key, BOB.key)
    assert tell.message == RematchMsg(table, ("Ann", "Bob"), ("Ann",), declined=True)
    line = refused(lobby.rematch(ANN, table, True, 5.0), NO_TABLE).reason
    assert line == "There is no rematch offered at this table."
    assert lobby.phase(table) is None


def test_leaving_ends_the_rematch_for_everyone() -> None:
    lobby = new_lobby()
    table, _start = ended_table(lobby)
    events = lobby.leave(BOB, table, 3.0)
    assert [e.message.declined for e in events if isinstance(e, Tell)] == [True]
    refused(lobby.rematch(ANN, table, True, 4.0), NO_TABLE)


def test_a_rematch_offer_lapses_and_is_for_the_tables_people_only() -> None:
    lobby = new_lobby(rematch_seconds=60)
    table, _start = ended_table(lobby)
    refused(lobby.rematch(CID, table, True, 3.0), NO_TABLE)
    assert lobby.due(61.9) == []
    (lapsed,) = lobby.due(62.0)
    assert isinstance(lapsed, Tell) and lapsed.message.declined


# --------------------------------------------------------------------------- limits
def test_a_person_may_have_so_many_open_tables() -> None:
    lobby = new_lobby(tables_per_person=2)
    create(lobby, ANN)
    create(lobby, ANN)
    line = refused(lobby.create(ANN, CreateTable(("human", "human"), 50, {}), 1.0), LIMIT).reason
    assert line == "You have 2 open tables already: start or leave one first."
    refused(lobby.quick(ANN, QuickPlay(2, 50, {}, 30), 1.0), LIMIT)
    seated(lobby.join(BOB, lobby.tables()[0], None, 2.0))  # it starts: Ann has one open table
    create(lobby, ANN)
    lobby = new_lobby(tables_per_person=1, seats_per_person=1)
    create(lobby, ANN)
    line = refused(lobby.create(ANN, CreateTable(("human", "human"), 50, {}), 1.0), LIMIT).reason
    assert line == "You have 1 open table already: start or leave it first."
    line = refused(lobby.quick(ANN, QuickPlay(2, 50, {}, 30), 1.0), LIMIT).reason
    assert line == "You have 1 open table already: start or leave it first."
    line = refused(lobby.join(ANN, create(lobby, BOB).table, None, 1.0), LIMIT).reason
    assert line == "You hold 1 seat already: leave it first."
    # A table its creator left is not theirs to count.
    lobby = new_lobby(tables_per_person=1)
    left = create(lobby, ANN, ("human", "human", "human")).table
    seated(lobby.join(BOB, left, None, 1.0))
    lobby.leave(ANN, left, 2.0)
    create(lobby, ANN)


def test_the_server_has_so_many_tables() -> None:
    lobby = new_lobby(max_tables=2)
    create(lobby, ANN)
    create(lobby, BOB, ("human", "greedy"))
    line = refused(lobby.create(CID, CreateTable(("human", "human"), 50, {}), 1.0), LIMIT).reason
    assert line == "The server has 2 tables, its most: try again later."
    refused(lobby.quick(CID, QuickPlay(2, 50, {}, 30), 1.0), LIMIT)


def test_a_person_may_hold_so_many_seats() -> None:
    lobby = new_lobby(seats_per_person=2)
    create(lobby, ANN, ("human", "greedy"))
    other = create(lobby, BOB, ("human", "human", "human")).table
    seated(lobby.join(ANN, other, None, 1.0))
    line = refused(lobby.create(ANN, CreateTable(("human", "greedy"), 50, {}), 1.0), LIMIT).reason
    assert line == "You hold 2 seats already: leave one first."
    third = create(lobby, CID, ("human", "human")).table
    refused(lobby.join(ANN, third, None, 1.0), LIMIT)
    refused(lobby.quick(ANN, QuickPlay(2, 50, {}, 30), 1.0), LIMIT)
    lobby.leave(ANN, other, 2.0)
    seated(lobby.join(ANN, third, None, 3.0))


def test_a_rematch_when_the_server_is_full_is_declined() -> None:
    lobby = new_lobby(max_tables=2)
    table, _start = ended_table(lobby)
    create(lobby, CID)
    create(lobby, DEE)
    lobby.rematch(ANN, table, True, 3.0)
    full = lobby.rematch(BOB, table, True, 4.0)
    assert isinstance(full, RematchOutcome) and full.new_table is None and full.offer.declined


# ------------------------------------------------------------------ bad requests
@pytest.mark.parametrize(
    ("seats", "rules", "target", "turn", "line"),
    [
        (("human",), {}, 50, 0, "A table has 2 to 4 seats, not 1."),
        (("human",) * 5, {}, 50, 0, "A table has 2 to 4 seats, not 5."),
        (("greedy", "expert"), {}, 50, 0, "A table needs a person's seat for its creator."),
        (("human", "wizard"), {}, 50, 0, "Seat 1 must be 'human' or an AI kind ("),
        (("human", "Greedy"), {}, 50, 0, "Seat 1 must be 'human' or an AI kind ("),
        (("human", "greedy"), {"draw": "sometimes"}, 50, 0, "The rules are not valid: rule draw cannot be"),
        (("human", "greedy"), {"house": 1}, 50, 0, "The rules are not valid: unknown rule 'house'"),
        (("human", "greedy"), {"hand_size": True}, 50, 0, "The rules are not valid: rule hand_size must be"),
        (("human", "greedy"), {"hand_size": "7"}, 50, 0, "The rules are not valid: rule hand_size must be"),
        (("human", "greedy"), ["draw"], 50, 0, "The rules are not valid: 'rules' must be an object"),
        (("human", "greedy"), {}, 0, 0, "The rules are not valid: rule target must be"),
        (("human", "greedy"), {}, 50, -1, "The turn time must be whole seconds from 0 (no clock) to 3600."),
    ],
)
def test_a_bad_plan_or_rules_are_refused_in_one_line(
    seats: tuple[str, ...], rules: Any, target: int, turn: int, line: str
) -> None:
    lobby = new_lobby()
    result = lobby.create(ANN, CreateTable(seats, target, rules, turn_seconds=turn), 0.0)
    assert refused(result, MALFORMED).reason.startswith(line)
    assert lobby.tables() == ()


@pytest.mark.parametrize(
    ("request_", "line"),
    [
        (QuickPlay(5, 50, {}, 30), "A table has 2 to 4 seats, not 5."),
        (QuickPlay(2, 50, {"draw": 3}, 30), "The rules are not valid: rule draw cannot be 3"),
        (QuickPlay(2, 50, {}, -1), "The wait must be whole seconds from 0 to 600."),
    ],
)
def test_a_bad_quick_play_is_refused_in_one_line(request_: QuickPlay, line: str) -> None:
    lobby = new_lobby()
    assert refused(lobby.quick(ANN, request_, 0.0), MALFORMED).reason.startswith(line)
    assert lobby.tables() == ()


# ----------------------------------------------------------------- deltas in order
def test_the_deltas_come_in_the_order_things_happened() -> None:
    lobby = new_lobby()
    seating = create(lobby, ANN, ("human", "greedy", "human"))
    table = seating.table
    steps = [
        seating.events,
        seated(lobby.join(BOB, table, None, 1.0)).events,
        tuple(lobby.changed(table, round=1)),
        tuple(lobby.leave(BOB, table, 2.0)),
        seated(lobby.join(CID, table, 2, 3.0)).events,
        tuple(lobby.ended(table, 4.0)),
    ]
    assert [kinds(s) for s in steps] == [
        ["table:open"],
        ["table:playing", "start"],
        ["table:playing"],
        ["table:playing", "free"],
        ["table:playing", "reseat"],
        ["gone:ended", "tell"],
    ]
    names = [[s.name for s in listing.seats] for step in steps for listing in listed(step)]
    assert names == [
        ["Ann", "Greedy", None],
        ["Ann", "Greedy", "Bob"],
        ["Ann", "Greedy", "Bob"],
        ["Ann", "Greedy", None],
        ["Ann", "Greedy", "Cid"],
    ]
    assert the(steps[-1], Tell).keys == (ANN.key, CID.key)
    gone = steps[-1][0]
    assert isinstance(gone, Broadcast) and gone.message == TableGoneMsg(table, "ended")


# ---------------------------------------------------------------- records, restore
def test_the_lobby_restored_from_its_records_holds_the_same_tables() -> None:
    lobby = new_lobby()
    waiting = create(lobby, ANN, ("human", "human", "human"), rules=RULES)
    quick = seated(lobby.quick(BOB, QuickPlay(3, 50, {}, 30), 10.0)).table
    playing = create(lobby, CID, ("human", "expert")).table
    private = create(lobby, DEE, ("human", "human"), private=True)
    lobby.changed(playing, round=2, spectators=1, connected=[True, False])
    records = lobby.records()
    assert [r["table"] for r in records] == [waiting.table, quick, playing, private.table]
    back = Lobby.restore(LobbyLimits(), RATINGS, records[::-1], now=20.0)
    assert back.records() == records
    assert [listing.table for listing in back.listings()] == [waiting.table, quick, playing]
    assert back.listing(quick).fill_in == 20
    assert back.listing(playing).round == 2 and back.listing(playing).spectators == 0
    assert back.plan(playing) == lobby.plan(playing)
    assert private.invite is not None
    assert seated(back.accept_invite(ANN, private.table, private.invite, 21.0)).full
    assert seated(back.join(DEE, waiting.table, None, 21.0)).seat == 1
    assert kinds(back.due(40.0)) == ["table:playing", "start"]
    new = seated(back.create(ANN, CreateTable(("human", "human"), 50, {}), 41.0)).table
    assert new not in [r["table"] for r in records]
    assert back.tables()[-1] == new


def test_an_ended_table_is_not_recorded() -> None:
    lobby = new_lobby()
    table, _start = ended_table(lobby)
    assert lobby.record(table) is None and lobby.records() == []


@pytest.mark.parametrize(
    "change",
    [
        {"version": 9},
        {"kinds": ["human"]},
        {"phase": "ended"},
        {"people": [None, None, None]},
        {"people": [{"key": "k", "name": "N", "rating": "high"}, None, None]},
        {"rules": {"draw": "never"}},
        {"order": "1"},
    ],
)
def test_a_bad_record_is_refused_in_one_line(change: dict[str, Any]) -> None:
    lobby = new_lobby()
    create(lobby, ANN, ("human", "human", "greedy"))
    (record,) = lobby.records()
    with pytest.raises(LobbyRecordError) as info:
        Lobby.restore(LobbyLimits(), RATINGS, [{**record, **change}])
    assert "\n" not in str(info.value)


def test_a_table_recorded_twice_is_refused() -> None:
    lobby = new_lobby()
    create(lobby, ANN)
    (record,) = lobby.records()
    with pytest.raises(LobbyRecordError, match="twice"):
        Lobby.restore(LobbyLimits(), RATINGS, [record, record])


# ------------------------------------------------------------------- invariants
PEOPLE = [Person(f"key-{i}", f"P{i}", 900.0 + 60 * i) for i in range(5)]
people_st = st.sampled_from(PEOPLE)


class LobbyMachine(RuleBasedStateMachine):
    """Random requests of five people; the listing the deltas build stays the lobby's own."""

    def __init__(self) -> None:
        super().__init__()
        self.limits = LobbyLimits(tables_per_person=2, max_tables=6, seats_per_person=3, rematch_seconds=30)
        self.lobby = Lobby(self.limits, RATINGS)
        self.now = 0.0
        self.seen: dict[str, TableListing] = {}
        self.invites: dict[str, str] = {}

    def apply(self, events: Sequence[Event]) -> None:
        for e in events:
            if isinstance(e, Broadcast):
                m = e.message
                if isinstance(m, TableMsg):
                    self.seen[m.listing.table] = m.listing
                else:
                    self.seen.pop(m.table, None)
            elif isinstance(e, Start | Reseat):
                assert self.lobby.phase(e.table) == PLAYING

    def result(self, result: object) -> None:
        if isinstance(result, Seating):
            self.apply(result.events)
            if result.invite is not None:
                self.invites[result.table] = result.invite
        elif isinstance(result, RematchOutcome):
            self.apply(result.events)
        else:
            assert isinstance(result, Refusal) and result.reason and "\n" not in result.reason

    def some_table(self, data: st.DataObject) -> str:
        tables = self.lobby.tables()
        return data.draw(st.sampled_from(tables)) if tables else "nosuchtb"

    @rule(
        person=people_st,
        seats=st.lists(st.sampled_from(["human", "human", "greedy", "expert"]), min_size=1, max_size=4),
        private=st.booleans(),
    )
    def create(self, person: Person, seats: list[str], private: bool) -> None:
        self.result(self.lobby.create(person, CreateTable(tuple(seats), 50, {}, private=private), self.now))

    @rule(person=people_st, data=st.data(), seat=st.none() | st.integers(0, 3))
    def join(self, person: Person, data: st.DataObject, seat: int | None) -> None:
        self.result(self.lobby.join(person, self.some_table(data), seat, self.now))

    @rule(person=people_st, data=st.data())
    def invite(self, person: Person, data: st.DataObject) -> None:
        table = self.some_table(data)
        self.result(self.lobby.accept_invite(person, table, self.invites.get(table, "nope"), self.now))

    @rule(person=people_st, players=st.integers(2, 4), wait=st.integers(0, 20))
    def quick(self, person: Person, players: int, wait: int) -> None:
        self.result(self.lobby.quick(person, QuickPlay(players, 50, {}, wait), self.now))

    @rule(person=people_st, data=st.data())
    def leave(self, person: Person, data: st.DataObject) -> None:
        self.apply(self.lobby.leave(person, self.some_table(data), self.now))

    @rule(data=st.data())
    def end(self, data: st.DataObject) -> None:
        self.apply(self.lobby.ended(self.some_table(data), self.now))

    @rule(person=people_st, data=st.data(), accept=st.booleans())
    def rematch(self, person: Person, data: st.DataObject, accept: bool) -> None:
        self.result(self.lobby.rematch(person, self.some_table(data), accept, self.now))

    @rule(seconds=st.integers(1, 15))
    def wait(self, seconds: int) -> None:
        self.now += seconds
        self.apply(self.lobby.due(self.now))

    @invariant()
    def the_deltas_build_the_listing(self) -> None:
        listings = {listing.table: listing for listing in self.lobby.listings(self.now)}
        assert self.seen.keys() == listings.keys()
        for table, listing in listings.items():
            assert [(s.kind, s.name) for s in self.seen[table].seats] == [(s.kind, s.name) for s in listing.seats]
            assert self.seen[table].phase == listing.phase

    @invariant()
    def no_person_twice_at_a_table_and_counts_within_limits(self) -> None:
        live = 0
        for table in self.lobby.tables():
            plan = self.lobby.plan(table)
            assert plan is not None
            keys = [key for _seat, key in plan.people]
            assert len(keys) == len(set(keys))
            if self.lobby.phase(table) in (OPEN, PLAYING):
                live += 1
                assert keys, "a table in play has a person"
        assert live <= self.limits.max_tables
        for p in PEOPLE:
            assert len(self.lobby.seats_of(p.key)) <= self.limits.seats_per_person
            mine = [
                r
                for r in self.lobby.records()
                if r["phase"] == OPEN and r["creator"] == p.key and (p.key, p.name) in self.seated_in(r)
            ]
            assert len(mine) <= self.limits.tables_per_person

    @staticmethod
    def seated_in(record: dict[str, Any]) -> list[tuple[str, str]]:
        return [(q["key"], q["name"]) for q in record["people"] if q is not None]


LobbyMachine.TestCase.settings = settings(
    max_examples=60, stateful_step_count=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestLobbyInvariants = LobbyMachine.TestCase
