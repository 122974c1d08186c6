"""The replay of a recorded round (kc_tui/match/replay.py): every position reached by stepping either way
is the position a direct replay of the first k moves gives; turns; the end and its result; what
the viewer may see; records that do not replay."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest

from kc_tui.config import HUMAN
from kc_tui.engine import END, Match, Round, Rules, cards_of, move_str, play, position_dict, sort_for_hand
from kc_tui.match.replay import CHECKPOINT_EVERY, ReplayError, RoundReplay
from kc_tui.records.rows import MatchRecord
from kc_tui.records.store import History
from tests.match.kit import direct_round, play_match, store

#: Rule sets the replays are checked under: the defaults, draws at the end of a turn with closed
#: completed piles, and chips scoring with small stacks (players drop out, the seats change).
RULE_SETS = {
    "points": Rules(),
    "draw-end": Rules(draw="end", completed_piles="stay", out_with_open_side="draw3"),
    "chips": Rules(scoring="chips", chips_start=15, chips_per_card=True, chips_rounds=8),
}


def same(a: Round, b: Round) -> bool:
    """The same position: hands, piles, stock (in order), whose turn, and the turn's state."""
    return position_dict(a) == position_dict(b) and (a.over, a.winner, a.fines, a.last_drawn) == (
        b.over,
        b.winner,
        b.fines,
        b.last_drawn,
    )


@pytest.fixture(scope="module")
def matches() -> dict[str, MatchRecord]:
    kinds = {"points": ["greedy", "king-aware", "greedy"], "draw-end": ["king-aware", "greedy"]}
    out = {
        name: play_match(kinds.get(name, ["greedy", "king-aware", "random"]), 11, rules)
        for name, rules in RULE_SETS.items()
    }
    assert len(out["chips"].rounds) >= 2 and len(out["points"].rounds) >= 2
    return out


def long_round(m: MatchRecord) -> int:
    """The number of the round with the most moves (several checkpoints)."""
    return max(m.rounds, key=lambda r: len(r.moves)).number


# ---------------------------------------------------------------------- positions
@pytest.mark.parametrize("rules", list(RULE_SETS))
def test_stepping_both_ways_reaches_exactly_the_recorded_positions(matches: dict[str, MatchRecord], rules: str) -> None:
    m = matches[rules]
    number = long_round(m)
    moves = m.rounds[number - 1].moves
    assert len(moves) > 2 * CHECKPOINT_EVERY
    rp = RoundReplay.from_record(m, number, 0)
    direct = [direct_round(m, number, k) for k in range(len(moves) + 1)]
    assert rp.position == 0 and rp.length == len(moves) and same(rp.round, direct[0])
    for k in range(1, len(moves) + 1):
        assert rp.step(+1)
        assert rp.position == k and same(rp.round, direct[k]), f"forward to {k}"
    assert not rp.step(+1) and rp.position == len(moves)
    for k in range(len(moves) - 1, -1, -1):
        assert rp.step(-1)
        assert rp.position == k and same(rp.round, direct[k]), f"back to {k}"
    assert not rp.step(-1) and rp.position == 0
    # Jumps anywhere, in any order (checkpoints and the kept round agree).
    rng = random.Random(5)
    for k in rng.sample(range(len(moves) + 1), len(moves) + 1):
        rp.seek(k)
        assert same(rp.round, direct[k]), f"seek {k}"
        assert same(rp.round_at(k), direct[k])


def test_every_round_of_a_chips_match_replays(matches: dict[str, MatchRecord]) -> None:
    """Players dropping out of a chips match change who deals and plays: every round replays."""
    m = matches["chips"]
    assert any(len(r.seats) < len(m.seats) for r in m.rounds), "no one dropped out: choose another seed"
    for rec in m.rounds:
        rp = RoundReplay.from_record(m, rec.number, 0)
        assert rp.seats == rec.seats
        rp.to_end()
        assert same(rp.round, direct_round(m, rec.number, len(rec.moves)))
        snap = rp.snapshot()
        assert snap.totals == rec.totals and snap.results[-1].scores == rec.chips_delta
        assert all(s.playing == (s.seat in rec.seats) for s in snap.seats)


def test_the_round_handed_out_is_a_copy(matches: dict[str, MatchRecord]) -> None:
    m = matches["points"]
    rp = RoundReplay.from_record(m, 1, 0)
    rp.seek(5)
    r = rp.round
    r.apply(r.legal_moves()[0])
    assert same(rp.round, direct_round(m, 1, 5))


def test_a_seek_outside_the_round_is_refused(matches: dict[str, MatchRecord]) -> None:
    rp = RoundReplay.from_record(matches["points"], 1, 0)
    for bad in (-1, rp.length + 1):
        with pytest.raises(ValueError, match="positions 0 to"):
            rp.seek(bad)
    assert rp.position == 0


# ---------------------------------------------------------------------- turns
@pytest.mark.parametrize("rules", list(RULE_SETS))
def test_step_turn_lands_on_turn_starts(matches: dict[str, MatchRecord], rules: str) -> None:
    m = matches[rules]
    number = long_round(m)
    moves = m.rounds[number - 1].moves
    rp = RoundReplay.from_record(m, number, 0)
    starts = [0] + [i + 1 for i, mv in enumerate(moves) if mv == END and i + 1 < len(moves)]
    assert list(rp.turn_starts) == starts and rp.turns == len(starts)
    landed = [0]
    while rp.step_turn(+1):
        landed.append(rp.position)
    assert landed == [*starts, len(moves)]
    for p in starts:  # a turn start: the player to move has done nothing yet this turn
        r = rp.round_at(p)
        assert not r.moved and not r.played_card
        assert p == 0 or moves[p - 1] == END
    back = [rp.position]
    while rp.step_turn(-1):
        back.append(rp.position)
    assert back == list(reversed(landed))
    # From the middle of a turn: back to its start, forward to the next one.
    mid = next(i for i in range(1, len(moves)) if i not in starts)
    rp.seek(mid)
    assert rp.turn_start == max(s for s in starts if s <= mid)
    rp.step_turn(-1)
    assert rp.position == max(s for s in starts if s < mid)
    rp.seek(mid)
    rp.step_turn(+1)
    assert rp.position == min([s for s in starts if s > mid] + [len(moves)])
    assert rp.turn == sum(1 for s in starts if s <= rp.position)


# ---------------------------------------------------------------------- the end
@pytest.mark.parametrize("rules", list(RULE_SETS))
def test_to_end_is_the_rounds_last_position_and_its_recorded_result(
    matches: dict[str, MatchRecord], rules: str
) -> None:
    m = matches[rules]
    for rec in m.rounds:
        rp = RoundReplay.from_record(m, rec.number, None)
        assert rp.to_end() and not rp.to_end()
        r = rp.round
        assert r.over and rp.over and rp.finished
        assert same(r, direct_round(m, rec.number, len(rec.moves)))
        penalties = [0] * len(m.seats)
        for i, s in enumerate(rec.seats):
            penalties[s] = r.penalties()[i]
        assert tuple(penalties) == rec.penalties
        snap = rp.snapshot()
        assert snap.round_over and snap.to_move is None and snap.round_winner == rec.winner
        assert snap.totals == rec.totals and snap.results[-1].scores == (
            rec.chips_delta if snap.chips else rec.penalties
        )
        assert len(snap.results) == rec.number
        assert rp.to_start() and rp.position == 0 and same(rp.round, direct_round(m, rec.number, 0))
        assert len(rp.snapshot().results) == rec.number - 1


def test_status_line_and_log_follow_the_position(matches: dict[str, MatchRecord]) -> None:
    m = matches["points"]
    rec = m.rounds[1]
    rp = RoundReplay.from_record(m, 2, 0)
    assert rp.status_text().startswith(f"Round 2 · move 0 of {len(rec.moves)} · the deal · ")
    assert rp.log_lines[0].startswith("Round 2: ") and rp.last_move is None
    seen: list[int] = [len(rp.log_lines)]
    for k in range(1, len(rec.moves) + 1):
        rp.step(+1)
        lines = rp.log_lines
        assert len(lines) > seen[-1]  # every move writes at least its own line
        assert rp.last_move == lines[seen[-1]]
        seen.append(len(lines))
        r = rp.round
        if not r.over:
            seat = rec.seats[r.to_move]
            whose = "your turn" if seat == 0 else f"{m.seats[seat].name}'s turn"
            assert rp.status_text() == f"Round 2 · move {k} of {len(rec.moves)} · {whose}"
    assert "went out" in rp.status_text() or "blocked" in rp.status_text()
    assert "went out and won the round" in rp.log_lines[-1] or "blocked" in rp.log_lines[-1]
    # Back again: the log is cut at the position.
    rp.seek(3)
    assert len(rp.log_lines) == seen[3]


def test_the_log_reads_like_the_games(matches: dict[str, MatchRecord]) -> None:
    """The replay's lines are the narrator's: the same words the game's log wrote."""
    from kc_tui.match.card_format import card_formatter
    from kc_tui.match.narration import Narrator

    m = matches["points"]
    match = Match(len(m.seats), Rules.from_dict(m.rules), m.seed, first_dealer=m.first_dealer)
    narrator = Narrator(match, [s.name for s in m.seats], [s.is_human for s in m.seats], card_formatter("ascii"))
    lines = narrator.round_started()
    for mv in m.rounds[0].moves:
        lines += narrator.play(match.round, mv)
    rp = RoundReplay.from_record(m, 1, 0, card_style="ascii")
    rp.to_end()
    assert rp.log_lines == lines


# ---------------------------------------------------------------------- what the viewer sees
@pytest.mark.parametrize("viewer", [0, 1, None])
def test_hidden_hands_stay_hidden_until_the_end(matches: dict[str, MatchRecord], viewer: int | None) -> None:
    m = matches["points"]
    number = long_round(m)
    rec = m.rounds[number - 1]
    rp = RoundReplay.from_record(m, number, viewer)
    names = [s.name for s in m.seats]
    for k in range(len(rec.moves)):
        rp.seek(k)
        assert not rp.may_open_hands and not rp.open_hands() and not rp.hands_open
        snap = rp.snapshot()
        r = rp.round
        for s in snap.seats:
            rs = rec.seats.index(s.seat)
            assert s.cards == r.hands[rs].bit_count()
            if s.seat == viewer:
                assert s.hand == tuple(sort_for_hand(cards_of(r.hands[rs]))) == snap.hand
            else:
                assert s.hand is None
        if viewer is None:
            assert snap.hand is None and snap.drawn is None
        # The log names only the viewer's draws.
        for line in rp.log_lines:
            for seat, name in enumerate(names):
                if seat != viewer and line.startswith(f"{name} drew "):
                    assert line.endswith(("drew a card", "cards")), line
    rp.to_end()
    assert rp.snapshot().seats[1 if viewer != 1 else 0].hand is None  # not yet opened
    assert rp.may_open_hands and rp.open_hands() and rp.hands_open
    snap = rp.snapshot()
    r = rp.round
    for s in snap.seats:
        assert s.hand == tuple(sort_for_hand(cards_of(r.hands[rec.seats.index(s.seat)])))
    # Open hands stay open while stepping back (the round was seen to its end), until closed.
    rp.step(-3)
    assert all(s.hand is not None for s in rp.snapshot().seats)
    assert any(
        " drew " in line and not line.endswith(("a card", "cards"))
        for line in rp.log_lines
        if not line.startswith("You")
    )
    rp.close_hands()
    assert not rp.hands_open and rp.snapshot().seats[2].hand is None


def _people(m: MatchRecord, *seats: int) -> MatchRecord:
    """``m`` as if ``seats`` had been people at one keyboard."""
    people = tuple(dataclasses.replace(s, kind=HUMAN) if i in seats else s for i, s in enumerate(m.seats))
    return dataclasses.replace(m, seats=people)


def _named_draws(lines: list[str], names: list[str]) -> set[int]:
    """The seats whose drawn cards ``lines`` name ("Bo drew 7H"; a counted draw is "drew a card")."""
    return {
        seat
        for line in lines
        for seat, name in enumerate(names)
        if line.startswith(f"{name} drew ") and not line.endswith(("drew a card", "cards"))
    }


@pytest.mark.parametrize("viewer", [0, 1, None])
def test_at_a_table_of_people_draws_stay_their_owners(matches: dict[str, MatchRecord], viewer: int | None) -> None:
    """Seats 0 and 1 shared the keyboard: the open hands show at the round's last position only,
    and the log names no draw but the viewer's, before or after the hands are opened."""
    m = _people(matches["points"], 0, 1)
    number = long_round(m)
    rp = RoundReplay.from_record(m, number, viewer)
    names = [s.name for s in m.seats]
    assert rp.draws_private
    rp.to_end()
    assert rp.open_hands() and rp.hands_open
    r = rp.round
    rec = m.rounds[number - 1]
    assert all(s.hand == tuple(sort_for_hand(cards_of(r.hands[rec.seats.index(s.seat)]))) for s in rp.snapshot().seats)
    assert _named_draws(rp.log_lines, names) <= {viewer}
    for k in range(rp.length - 1, -1, -1):
        rp.seek(k)
        snap = rp.snapshot()
        assert not rp.hands_open and not snap.hands_open
        assert [s.seat for s in snap.seats if s.hand is not None] == ([] if viewer is None else [viewer])
        assert _named_draws(rp.log_lines, names) <= {viewer}
        if rp.last_move is not None:
            assert _named_draws([rp.last_move], names) <= {viewer}
    # Back at the end the opened hands show again; a plan drawn in the position's place shows the
    # viewer's hand only.
    rp.to_end()
    assert rp.hands_open
    plan = rp.round_at(rp.turn_start)
    assert [s.seat for s in rp.snapshot(plan).seats if s.hand is not None] == ([] if viewer is None else [viewer])
    # One person among AIs: their opened hands stay open while stepping back, every draw named.
    alone = RoundReplay.from_record(_people(matches["points"], 0), number, 0)
    assert not alone.draws_private
    alone.to_end()
    alone.open_hands()
    alone.step(-3)
    assert alone.hands_open and _named_draws(alone.log_lines, names) - {0}


def test_the_viewers_drawn_card_is_marked(matches: dict[str, MatchRecord]) -> None:
    m = matches["points"]
    rp = RoundReplay.from_record(m, 1, 0)
    marked = 0
    for k in range(rp.length + 1):
        rp.seek(k)
        snap = rp.snapshot()
        if snap.drawn is not None:
            marked += 1
            assert snap.hand is not None and snap.drawn in snap.hand
    assert marked > 0


# ---------------------------------------------------------------------- records that do not replay
def _with_round(m: MatchRecord, number: int, **changes: Any) -> MatchRecord:
    rounds = list(m.rounds)
    rounds[number - 1] = dataclasses.replace(rounds[number - 1], **changes)
    return dataclasses.replace(m, rounds=tuple(rounds))


def test_a_corrupted_record_is_a_replay_error(matches: dict[str, MatchRecord]) -> None:
    m = matches["points"]
    moves = m.rounds[0].moves
    r = direct_round(m, 1, 3)
    hidden = next(c for c in range(52) if not (r.hands[r.to_move] >> c) & 1 and all(c not in p for p in r.piles))
    bad_move = (*moves[:3], play(hidden, 0), *moves[4:])
    cases: list[tuple[MatchRecord, int, int | None, str]] = [
        (
            _with_round(m, 1, moves=bad_move),
            1,
            0,
            f"round 1, move 4 \\({move_str(play(hidden, 0))}\\) does not replay: .* is not in",
        ),
        (_with_round(m, 1, moves=bad_move), 2, 0, "round 1, move 4 .*does not replay"),
        (_with_round(m, 1, moves=(*moves[:3], 1023)), 1, 0, "round 1, move 4 .*does not replay"),
        (_with_round(m, 1, moves=moves[:-1]), 2, 0, "round 1 does not end with its recorded moves"),
        (_with_round(m, 1, moves=(*moves, END)), 1, 0, f"round 1 goes on after it ended \\(move {len(moves) + 1}\\)"),
        (_with_round(m, 1, penalties=(1, 2, 3)), 1, 0, "round 1 replays to another result"),
        (_with_round(m, 1, penalties=(1, 2, 3)), 2, 0, "round 1 replays to another result"),
        (_with_round(m, 2, dealer=(m.rounds[1].dealer + 1) % 3), 2, 0, "round 2 was not dealt as recorded"),
        (dataclasses.replace(m, seed=m.seed + 1), 1, 0, "does not replay|another result"),
        (dataclasses.replace(m, rules={"draw": "sideways"}), 1, 0, "the recorded rules are not valid"),
        (dataclasses.replace(m, rules={"hand_size": "seven"}), 1, 0, "the recorded rules are not valid"),
        (dataclasses.replace(m, rounds=m.rounds[1:]), 2, 0, "round 1 is missing from the record"),
        (m, len(m.rounds) + 1, 0, f"round {len(m.rounds) + 1} is not in the record"),
        (m, 0, 0, "round 0 is not in the record"),
        (m, 1, 3, "there is no seat 3"),
    ]
    for record, number, viewer, message in cases:
        with pytest.raises(ReplayError, match=message):
            RoundReplay.from_record(record, number, viewer)


def test_a_round_recorded_without_its_end_replays_but_never_opens_hands(matches: dict[str, MatchRecord]) -> None:
    m = matches["points"]
    last = m.rounds[-1]
    cut = _with_round(m, last.number, moves=last.moves[:-5])
    rp = RoundReplay.from_record(cut, last.number, 0)
    assert not rp.finished
    rp.to_end()
    assert not rp.over and not rp.open_hands()
    assert all(s.hand is None for s in rp.snapshot().seats if s.seat != 0)
    assert same(rp.round, direct_round(m, last.number, len(last.moves) - 5))


def test_a_record_read_back_from_the_history_replays(tmp_path: Path, matches: dict[str, MatchRecord]) -> None:
    m = matches["chips"]
    path = tmp_path / "history.sqlite3"
    match_id = store(path, m)
    h, _ = History.open(path)
    try:
        stored = h.match(match_id)
    finally:
        h.close()
    assert stored is not None and stored.rounds == m.rounds
    rp = RoundReplay.from_record(stored, len(m.rounds), stored.human_seat())
    rp.to_end()
    assert rp.snapshot().totals == m.totals
