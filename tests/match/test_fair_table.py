"""A fair table: no seat or spectator can work out a card it may not see, by any route.

The deals of a match nobody gave a seed come from secret entropy that no public number
reproduces; an undo never puts a card the mover has seen back on the stock; every view of
the table is made by one function, and a log that names a person's draws goes to no one else.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kc_tui.engine import END, Card, Match, Round, Rules, is_secret, move_str, round_seed
from kc_tui.engine import rng as _rng
from kc_tui.engine.match import SECRET_BITS, SEED_MAX
from kc_tui.match import saves
from kc_tui.match.roster import hint_seed, seat_seed
from kc_tui.match.session import MatchSession
from kc_tui.match.table import TableDriver
from kc_tui.match.undo import drew_from_stock
from tests.match.kit import cards_in_text, fair_rules, people

DRAW3 = Rules(out_with_open_side="draw3", hand_size=3, target=5)


# ---------------------------------------------------------------------- the deal's entropy
def test_a_match_without_a_seed_takes_128_bits_from_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []
    real = secrets.randbits

    def randbits(k: int) -> int:
        asked.append(k)
        return real(k)

    monkeypatch.setattr(secrets, "randbits", randbits)
    for session in (
        MatchSession.hosted(people(2), Rules()),
        MatchSession.all_ai(["greedy", "greedy"]),
        TableDriver.for_demo(["greedy", "greedy"], Rules(), None, "instant").session,
    ):
        assert is_secret(session.match.seed)
    assert asked == [SECRET_BITS] * 3 and SECRET_BITS >= 128
    assert len({MatchSession.hosted(people(2), Rules()).match.seed for _ in range(20)}) == 20


def test_a_secret_is_kept_in_the_save_and_deals_the_same_match_again() -> None:
    session = MatchSession.hosted(people(3), Rules())
    doc = session.to_dict()
    assert "seed" not in doc["match"] and len(doc["match"]["secret"]) == SECRET_BITS // 4
    again = MatchSession.from_dict(doc)
    assert again.match.seed == session.match.seed
    assert again.match.round.hands == session.match.round.hands
    assert again.match.round.stock == session.match.round.stock


def public_numbers(driver: TableDriver) -> Iterator[int]:
    """Every number a seat or a spectator is shown, and the small numbers anyone can try."""
    snap = driver.snapshot(None)
    s = driver.session
    yield from range(0, 5000)
    yield from (snap.stock, snap.round_number, snap.target, *(x.cards for x in snap.seats))
    yield from (x.total for x in snap.seats)
    yield int(s.record.uid, 16)
    yield from driver.stamp
    yield s.match.first_dealer
    yield s.match.seed & SEED_MAX  # the secret's low bits, had they leaked
    yield s.match.seed >> 64


def test_no_public_number_reproduces_the_stock() -> None:
    driver = TableDriver(MatchSession.hosted(people(3), Rules()))
    s = driver.session
    r = s.match.round
    truth = Round.deal(r.n, r.rules, round_seed(s.match.seed, 1), r.dealer)
    assert (truth.hands, truth.stock) == (r.hands, r.stock)  # the deal does come from the secret
    for x in set(public_numbers(driver)):
        for seed in (x, round_seed(x & SEED_MAX, 1)):
            assert Round.deal(r.n, r.rules, seed, r.dealer).stock != r.stock, x


def test_the_rounds_and_the_ais_of_a_secret_are_drawn_from_it_one_way() -> None:
    secret = saves.new_seed()
    rounds = {round_seed(secret, k) for k in range(1, 50)}
    assert len(rounds) == 49 and all(x > SEED_MAX for x in rounds)
    seats = [seat_seed(secret, k) for k in range(4)] + [hint_seed(secret)]
    assert len(set(seats)) == 5 and all(0 <= x <= SEED_MAX for x in seats)
    assert seat_seed(secret, 1) != secret * 31 + 2
    # A keyed stream: the same key gives the same numbers, another key others.
    a, b = _rng.keyed_state(secret), _rng.keyed_state(secret + 1)
    assert [_rng.next_u64(a)[1] for _ in range(2)] == [_rng.next_u64(a)[1]] * 2
    assert _rng.next_u64(a)[1] != _rng.next_u64(b)[1]


def test_a_seeded_match_deals_what_its_seed_always_dealt() -> None:
    m = Match(3, Rules(), 3)
    assert not is_secret(m.seed) and m.to_dict()["seed"] == 3
    r = Round.deal(3, Rules(), round_seed(3, 1), m.round.dealer)
    assert r.hands == m.round.hands and r.stock == m.round.stock
    assert round_seed(3, 1) < 1 << 62


@pytest.mark.parametrize("bad", ["", "0" * 31, "0" * 33, "G" * 32, "A" * 32, 5, None, ["0" * 32]])
def test_a_save_with_a_bad_secret_is_refused(bad: object) -> None:
    from kc_tui.engine.match import MatchRecordError

    doc = Match(2, Rules(), saves.new_seed()).to_dict()
    doc["secret"] = bad
    with pytest.raises(MatchRecordError, match="secret"):
        Match.from_dict(doc)
    both = Match(2, Rules(), 4).to_dict() | {"secret": "0" * 32}
    with pytest.raises(MatchRecordError, match="one of them"):
        Match.from_dict(both)


# ---------------------------------------------------------------------- undo and the stock
def drawing_move(session: MatchSession, rng: random.Random) -> bool:
    """Play the person on turn's moves at random until one draws from the stock mid-turn
    (going out with a side open under draw3); False when the round ended first."""
    driver = TableDriver(session)
    while not session.match.round.over:
        r = session.match.round
        seat = session.to_move
        plays = [m for m in r.legal_moves() if m != END]
        # Going out with a side open draws: prefer the last card when a side is empty.
        m = rng.choice(plays) if plays and rng.random() < 0.9 else END
        before = set(session.hand(seat))
        assert driver.play(m) is None
        if m != END and session.to_move == seat and not set(session.hand(seat)) <= before:
            return True
    return False


def session_at_a_draw(seed: int = 0) -> MatchSession:
    rng = random.Random(seed)
    for k in range(400):
        session = MatchSession.hosted(people(2), DRAW3, k)
        if drawing_move(session, rng):
            return session
    raise AssertionError("no seed of 400 drew mid-turn")


def test_a_move_that_drew_from_the_stock_cannot_be_undone_and_says_why() -> None:
    session = session_at_a_draw()
    stock, hands = list(session.match.round.stock), list(session.match.round.hands)
    assert not session.can_undo
    assert "R13" in session.why_no_undo and "drew from the stock" in session.why_no_undo
    assert TableDriver(session).undo() is False
    assert session.match.round.stock == stock and session.match.round.hands == hands
    view = TableDriver(session).snapshot(session.to_move)
    assert not view.can_undo and "R13" in view.undo_note


def test_after_a_draw_the_moves_that_follow_it_can_be_undone_back_to_it() -> None:
    for seed in range(30):
        session = session_at_a_draw(seed)
        r = session.match.round
        plays = [m for m in r.legal_moves() if m != END]
        if not plays:
            continue
        at_draw = (list(r.stock), list(r.hands), list(r.piles))
        driver = TableDriver(session)
        assert driver.play(plays[0]) is None
        if session.match.round.over or not session.can_undo:
            continue
        assert driver.undo()
        r = session.match.round
        assert (list(r.stock), list(r.hands), list(r.piles)) == at_draw
        assert not session.can_undo and "R13" in session.why_no_undo
        return
    pytest.skip("no seed played a card after its draw")  # pragma: no cover - seeds are fixed


def test_a_resumed_turn_keeps_its_draw_undone_never() -> None:
    session = session_at_a_draw()
    again = MatchSession.from_dict(session.to_dict())
    assert again.to_move == session.to_move and not again.can_undo
    assert "R13" in again.why_no_undo


# ---------------------------------------------------------------------- one view per viewer
def test_a_log_that_names_a_persons_draws_is_given_to_no_one_else() -> None:
    from kc_tui.config import Config, Opponent
    from kc_tui.match.table import LogNotShared

    session = MatchSession.from_config(Config(opponents=(Opponent("Greedy", "greedy"),)), 3, save_path=None)
    driver = TableDriver(session)
    assert session.log_owner == 0 and driver.snapshot(0).log == tuple(session.log)
    for viewer in (None, 1):
        with pytest.raises(LogNotShared):
            driver.snapshot(viewer)


class Knowledge:
    """What each viewer has been shown this round: the cards seen in its own hand, and the cards
    the table showed everyone (on a pile, or named by the log). A card a seat held that the
    table never showed is its private knowledge, and must still be in its hand: else an undo (or
    anything) put it back where others draw."""

    def __init__(self, n: int) -> None:
        self.held: list[set[Card]] = [set() for _ in range(n)]
        self.public: set[Card] = set()

    def new_round(self) -> None:
        self.held = [set() for _ in self.held]
        self.public = set()

    def see(self, driver: TableDriver) -> list[str]:
        s = driver.session
        problems: list[str] = []
        spectator = driver.snapshot(None)
        if any(x.hand is not None for x in spectator.seats) or spectator.drawn is not None or spectator.legal:
            problems.append("the spectator's view has a hand")
        heading = f"Round {spectator.round_number}: "
        start = max((i for i, line in enumerate(spectator.log) if line.startswith(heading)), default=0)
        named = cards_in_text(" ".join(spectator.log[start:]))
        if any(cards_in_text(line.partition(" drew ")[2]) for line in spectator.log if " drew " in line):
            problems.append("the log names a drawn card")
        self.public |= named | {c for pile in spectator.piles for c in pile}
        for viewer in range(s.match.n):
            view = driver.snapshot(viewer)
            hand = set(view.seats[viewer].hand or ())
            if hand != set(s.hand(viewer)):
                problems.append(f"seat {viewer}'s view is not its hand")
            if any(x.hand is not None for x in view.seats if x.seat != viewer):
                problems.append(f"seat {viewer} sees another hand")
            if view.log != spectator.log:
                problems.append(f"seat {viewer}'s log is not the table's")
            self.held[viewer] |= hand
            private = self.held[viewer] - self.public
            if not private <= hand:
                problems.append(f"seat {viewer} knows cards not in its hand now: {sorted(private - hand)}")
            if not {c for m in view.legal for c in cards_in_text(move_str(m))} <= hand:
                problems.append(f"seat {viewer}'s legal moves name a card outside its hand")
        return problems


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=fair_rules(), seed=st.integers(0, 2**32), rng=st.randoms(use_true_random=False))
def test_after_any_moves_and_undos_a_seat_has_been_shown_only_what_its_view_allowed(
    rules: Rules, seed: int, rng: random.Random
) -> None:
    session = MatchSession.hosted(people(3), rules, seed)
    driver = TableDriver(session)
    known = Knowledge(session.match.n)
    for _ in range(400):
        if session.match.over:
            break
        a = rng.randrange(100)
        if session.match.round.over:
            driver.finish_round()
            known.new_round()
        elif a < 25:
            driver.undo()
        else:
            plays = sorted(m for m in session.match.round.legal_moves() if m != END)
            before = session.match.round.clone()
            assert driver.play(plays[a % len(plays)] if plays and a < 92 else END) is None
            if drew_from_stock(before, session.match.round) and known.see(driver) == []:
                driver.undo()  # a draw is followed by an undo at once: the case most worth trying
        assert known.see(driver) == []


def test_a_secret_match_is_recorded_and_every_round_replays_from_the_history(tmp_path: Path) -> None:
    from kc_tui.match.recorder import match_sync
    from kc_tui.match.replay import RoundReplay
    from kc_tui.records.store import History

    driver = TableDriver(MatchSession.all_ai(["greedy", "greedy"], Rules(target=5)))
    s = driver.session
    while not s.match.over:
        if s.match.round.over:
            driver.finish_round()
        else:
            driver.decide(driver.ai_job().run())
    assert is_secret(s.match.seed)
    history, problem = History.open(tmp_path / "history.sqlite3")
    try:
        assert problem is None
        match = history.match(history.sync_match(match_sync(s.match, s.seats, s.record, True)))
        assert match is not None and match.seed == s.match.seed and match.finished_at is not None
        for number in range(1, len(match.rounds) + 1):
            replay = RoundReplay.from_record(match, number, None)
            assert replay.moves == match.rounds[number - 1].moves  # each round deals again as played
    finally:
        history.close()
