"""The server's people: a key signs in under a name no other key holds (names that look alike
are one), a held name is refused with a free one offered, a finished match moves its people's
ratings as the Stats model does, and a database that fails says so in one line, changing
nothing."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from kc_tui.net.accounts import MAX_NAME, Accounts, AccountsError, NameTaken, Person, name_key
from kc_tui.net.identity import PlayerKey
from kc_tui.records.rating import DEFAULT_PRIOR_SD, people_ratings
from tests.historykit import ANCHORS


def _key() -> str:
    return PlayerKey.generate().public_text


@pytest.fixture
def db(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    con = sqlite3.connect(tmp_path / "server.sqlite3", isolation_level=None)
    yield con
    con.close()


@pytest.fixture
def accounts(db: sqlite3.Connection) -> Accounts:
    return Accounts(db, anchors=ANCHORS)


def _signed(result: Person | NameTaken | None) -> Person:
    assert isinstance(result, Person), result
    return result


# ---------------------------------------------------------------------- names
def test_a_new_key_takes_a_free_name_with_the_first_rating(accounts: Accounts) -> None:
    key = _key()
    ana = _signed(accounts.sign_in(key, "  Ana  "))
    centre = sum(a.value for a in ANCHORS.values()) / len(ANCHORS)
    assert ana == Person(key, "Ana", centre, 0, DEFAULT_PRIOR_SD)
    assert accounts.person(key) == ana
    assert accounts.person(_key()) is None


def test_a_known_key_keeps_its_name_or_takes_a_free_one(accounts: Accounts) -> None:
    key = _key()
    _signed(accounts.sign_in(key, "Ana"))
    assert _signed(accounts.sign_in(key, "Ana")).name == "Ana"
    assert _signed(accounts.sign_in(key, "ANA")).name == "ANA"  # its own name, in another case
    assert _signed(accounts.sign_in(key, "Bea")).name == "Bea"
    # The name it left is free for another key.
    assert _signed(accounts.sign_in(_key(), "ana")).name == "ana"


def test_a_held_name_is_refused_with_a_free_one_offered(accounts: Accounts) -> None:
    _signed(accounts.sign_in(_key(), "Ana"))
    _signed(accounts.sign_in(_key(), "Ana2"))
    newcomer = _key()
    taken = accounts.sign_in(newcomer, "Ana")
    assert taken == NameTaken("Ana", "Ana3")
    assert accounts.person(newcomer) is None  # nothing kept of a refused sign-in
    assert _signed(accounts.sign_in(newcomer, taken.suggestion)).name == "Ana3"


def test_a_known_key_cannot_rename_to_a_held_name(accounts: Accounts) -> None:
    _signed(accounts.sign_in(_key(), "Ana"))
    bea = _key()
    _signed(accounts.sign_in(bea, "Bea"))
    assert accounts.sign_in(bea, "ana") == NameTaken("ana", "ana2")
    assert _signed(accounts.person(bea)).name == "Bea"


def test_the_offered_name_fits_the_longest_name(accounts: Accounts) -> None:
    long = "A" * MAX_NAME
    _signed(accounts.sign_in(_key(), long))
    taken = accounts.sign_in(_key(), long)
    assert isinstance(taken, NameTaken)
    assert len(taken.suggestion) <= MAX_NAME and taken.suggestion == "A" * (MAX_NAME - 1) + "2"
    _signed(accounts.sign_in(_key(), taken.suggestion))


@pytest.mark.parametrize(
    ("held", "twin"),
    [
        ("Ana", "ANA"),
        ("Ana", "ana"),
        ("Ana", "Ａｎａ"),  # full-width letters
        ("ＡＮＡ", "ana"),
        ("Ana", " ana "),
        ("Ana Bel", "Ana  Bel"),
        ("Straße", "STRASSE"),
        ("ﬁnn", "Finn"),  # a ligature
    ],
)
def test_names_that_look_alike_are_one_name(accounts: Accounts, held: str, twin: str) -> None:
    assert name_key(held) == name_key(twin)
    _signed(accounts.sign_in(_key(), held))
    taken = accounts.sign_in(_key(), twin)
    assert isinstance(taken, NameTaken)
    assert name_key(taken.suggestion) != name_key(held)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("", "the name cannot be empty"),
        ("   ", "the name cannot be empty"),
        ("A" * (MAX_NAME + 1), "the name is too long: at most 24 characters"),
        ("Ana\nBel", "the name must be printable text"),
        ("Ana\x1b[31m", "the name must be printable text"),
        ("\u202eanA", "the name must be printable text"),  # a bidi override
        ("An\u200ba", "the name must be printable text"),  # a zero-width space
        ("An\x00a", "the name must be printable text"),
        ("You", "is everyone's name until they choose one"),
        ("ｙｏｕ", "is everyone's name until they choose one"),
        (None, "the name must be text"),
        (42, "the name must be text"),
    ],
)
def test_an_unusable_name_is_refused_in_one_line(accounts: Accounts, name: object, words: str) -> None:
    key = _key()
    with pytest.raises(ValueError) as caught:
        accounts.sign_in(key, name)
    said = str(caught.value)
    assert words in said and "\n" not in said
    assert accounts.person(key) is None


@pytest.mark.parametrize("name", ["[b]Ana[/b]", "[red]x", "Ana]", "[[", "<b>Ana</b>", "$(rm)", "Ana's \\n"])
def test_names_with_brackets_or_markup_are_kept_as_data(accounts: Accounts, name: str) -> None:
    key = _key()
    assert _signed(accounts.sign_in(key, name)).name == name
    assert _signed(accounts.person(key)).name == name


def test_a_key_that_is_not_a_public_key_is_refused(accounts: Accounts) -> None:
    for junk in ("", "abc", "a" * 43 + "="):
        with pytest.raises(ValueError, match="not a player's public key"):
            accounts.sign_in(junk, "Ana")


def test_people_and_the_server_id_outlive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "server.sqlite3"
    key = _key()
    with sqlite3.connect(path, isolation_level=None) as con:
        first = Accounts(con, anchors=ANCHORS)
        ana = _signed(first.sign_in(key, "Ana"))
        server = first.server_id()
        assert server == first.server_id()
    con.close()
    again = sqlite3.connect(path)  # the default (implicit transactions) works as well
    try:
        later = Accounts(again, anchors=ANCHORS)
        assert later.person(key) == ana
        assert later.server_id() == server
    finally:
        again.close()


# ---------------------------------------------------------------------- ratings
def test_beating_an_ai_raises_a_rating_and_losing_lowers_it(accounts: Accounts) -> None:
    winner, loser = _key(), _key()
    start = _signed(accounts.sign_in(winner, "Ana")).rating
    _signed(accounts.sign_in(loser, "Bea"))
    won = accounts.record_match([winner, None], [12, 55], True, [None, "expert"])
    lost = accounts.record_match([None, loser], [12, 55], True, ["expert", None])
    assert won[winner].rating > start and won[winner].games == 1
    assert lost[loser].rating < start and lost[loser].games == 1
    assert _signed(accounts.person(winner)) == won[winner]
    assert won[winner].sd < DEFAULT_PRIOR_SD


def test_chips_count_the_higher_total_as_better(accounts: Accounts) -> None:
    key = _key()
    start = _signed(accounts.sign_in(key, "Ana")).rating
    after = accounts.record_match([key, None], [80, 20], False, [None, "greedy"])
    assert after[key].rating > start


def test_a_match_between_people_moves_the_winner_up_and_the_loser_down(accounts: Accounts) -> None:
    ana, bea, cy = _key(), _key(), _key()
    for key, name in ((ana, "Ana"), (bea, "Bea"), (cy, "Cy")):
        _signed(accounts.sign_in(key, name))
    before = {k: _signed(accounts.person(k)).rating for k in (ana, bea, cy)}
    after = accounts.record_match([ana, bea, cy, None], [5, 30, 60, 20], True, [None, None, None, "lookahead"])
    assert after[ana].rating > before[ana]
    assert after[cy].rating < before[cy]
    assert after[ana].rating > after[bea].rating > after[cy].rating
    assert all(after[k].games == 1 for k in (ana, bea, cy))


def test_a_person_who_played_ais_gets_the_rating_stats_gives(accounts: Accounts) -> None:
    key = _key()
    _signed(accounts.sign_in(key, "Ana"))
    matches: list[tuple[list[str | None], list[float], list[str | None]]] = [
        ([key, None, None], [10, 40, 70], [None, "expert", "greedy"]),
        ([None, key], [20, 35], ["lookahead", None]),
        ([None, None, key, None], [50, 50, 50, 90], ["random", "king-aware", None, "greedy"]),
        ([key, None], [60, 30], [None, "expert"]),
    ]
    games: list[tuple[str, str, float]] = []  # what Stats fits: Ana's score against each AI seat
    for seats, totals, kinds in matches:
        accounts.record_match(seats, totals, True, kinds)
        me = seats.index(key)
        for seat, kind in enumerate(kinds):
            if kind is not None:
                score = 1.0 if totals[me] < totals[seat] else 0.0 if totals[me] > totals[seat] else 0.5
                games.append(("Ana", kind, score))
    stats = people_ratings(games, [], ANCHORS)["Ana"]
    mine = _signed(accounts.person(key))
    assert mine.rating == pytest.approx(stats.value, abs=1e-6)
    assert mine.sd == pytest.approx(stats.sd, abs=1e-6)
    assert mine.games == len(matches)


def test_people_of_earlier_matches_are_held_at_their_ratings(accounts: Accounts) -> None:
    ana, bea = _key(), _key()
    _signed(accounts.sign_in(ana, "Ana"))
    _signed(accounts.sign_in(bea, "Bea"))
    accounts.record_match([ana, bea], [10, 50], True, [None, None])
    bea_then = _signed(accounts.person(bea))
    after = accounts.record_match([ana, None], [10, 50], True, [None, "expert"])
    assert set(after) == {ana}
    assert _signed(accounts.person(bea)) == bea_then


def test_a_match_that_does_not_add_up_is_refused_and_keeps_nothing(accounts: Accounts, db: sqlite3.Connection) -> None:
    key = _key()
    ana = _signed(accounts.sign_in(key, "Ana"))
    bad: list[tuple[list[str | None], list[float], list[str | None]]] = [
        ([key], [10], [None]),  # one seat
        ([key, None], [10], [None, "greedy"]),  # a total short
        ([key, None], [10, 20], [None, None]),  # a seat neither person nor AI
        ([key, "x"], [10, 20], [None, "greedy"]),  # a seat both
        ([key, _key()], [10, 20], [None, None]),  # a key the server does not know
        ([key, None], [10, float("nan")], [None, "greedy"]),
    ]
    for seats, totals, kinds in bad:
        with pytest.raises(ValueError):
            accounts.record_match(seats, totals, True, kinds)
    assert accounts.person(key) == ana
    assert db.execute("SELECT count(*) FROM rated_results").fetchone() == (0,)


# ---------------------------------------------------------------------- a failing database
def test_a_locked_database_is_told_in_one_line_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "server.sqlite3"
    mine = sqlite3.connect(path, isolation_level=None, timeout=0)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        accounts = Accounts(mine, anchors=ANCHORS)
        other.execute("BEGIN IMMEDIATE")
        key = _key()
        with pytest.raises(AccountsError) as caught:
            accounts.sign_in(key, "Ana")
        said = str(caught.value)
        assert "locked by another program" in said and "\n" not in said
        other.execute("ROLLBACK")
        assert accounts.person(key) is None
        assert _signed(accounts.sign_in(key, "Ana")).name == "Ana"  # it works once the lock is gone
    finally:
        mine.close()
        other.close()


def test_a_full_database_is_told_in_one_line_and_changes_nothing(accounts: Accounts, db: sqlite3.Connection) -> None:
    key = _key()
    _signed(accounts.sign_in(key, "Ana"))
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(AccountsError) as caught:
        for n in range(10_000):
            accounts.sign_in(_key(), f"P{n}")
    said = str(caught.value)
    assert "the disk is full" in said and "\n" not in said
    count = db.execute("SELECT count(*) FROM people").fetchone()[0]
    recorded = 0
    with pytest.raises(AccountsError):  # matches until one does not fit: that one keeps nothing
        for _n in range(10_000):
            accounts.record_match([key, None], [10, 20], True, [None, "greedy"])
            recorded += 1
    assert db.execute("SELECT count(*) FROM people").fetchone()[0] == count
    assert db.execute("SELECT count(*) FROM rated_matches").fetchone()[0] == recorded
    assert db.execute("SELECT count(DISTINCT match) FROM rated_results").fetchone()[0] == recorded
    assert _signed(accounts.person(key)).games == recorded


def test_inside_the_callers_transaction_its_rollback_undoes_the_sign_in(
    accounts: Accounts, db: sqlite3.Connection
) -> None:
    key = _key()
    db.execute("BEGIN")
    _signed(accounts.sign_in(key, "Ana"))
    db.execute("ROLLBACK")
    assert accounts.person(key) is None


def test_another_version_of_the_tables_is_refused_in_one_line(db: sqlite3.Connection) -> None:
    Accounts(db, anchors=ANCHORS)
    db.execute("UPDATE accounts_meta SET value = '99' WHERE name = 'schema'")
    with pytest.raises(AccountsError) as caught:
        Accounts(db, anchors=ANCHORS)
    assert "another version (99)" in str(caught.value) and "\n" not in str(caught.value)
