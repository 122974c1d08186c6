"""A table's history as the worker writes it (kc_tui.net.store.history): random served matches,
their saves given to a sink that writes rows as the worker's does (a move row for one step of a
turn, else a snapshot; a write that fails now and then), and the replay of the rows giving
exactly the save written at every seq."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kc_tui import i18n
from kc_tui.config import HUMAN
from kc_tui.engine import END, Rules
from kc_tui.match.roster import Seat
from kc_tui.match.saves import save_bytes
from kc_tui.match.session import MatchSession
from kc_tui.match.table import TableDriver
from kc_tui.net.store.history import HistoryError, Replay, over, rebuild, row_of, saves
from kc_tui.net.store.tablestore import MOVE, SNAPSHOT, Written

#: A failed write's reason, as a store that cannot be reached gives one.
DOWN = "the store of the tables cannot be reached"

RULES = st.builds(
    Rules,
    scoring=st.sampled_from(("points", "chips")),
    hand_size=st.integers(2, 5),
    target=st.integers(5, 30),
    chips_start=st.integers(3, 12),
    chips_rounds=st.integers(2, 4),
    draw=st.sampled_from(("start", "end", "when_stuck")),
    out_with_open_side=st.sampled_from(("end", "draw3")),
    completed_piles=st.sampled_from(("to_stock", "stay")),
)
SEATS = st.lists(st.sampled_from((HUMAN, "greedy", "random")), min_size=2, max_size=4)


@dataclass
class Table:
    """A served match's session with a sink writing its rows as the worker does: ``rows`` the
    history, ``written`` the save each row's seq holds; a write fails while ``down``."""

    session: MatchSession
    rows: list[Written] = field(default_factory=list)
    written: dict[int, bytes] = field(default_factory=dict)
    follows: bool = True
    down: bool = False

    def __post_init__(self) -> None:
        first = save_bytes(self.session.to_dict(), compact=True)
        self.rows.append(Written(0, 0, SNAPSHOT, first))
        self.written[0] = first
        self.session.save_sink = self.sink
        self.session.keep_save_at_end = True

    def sink(self, data: bytes) -> str | None:
        row, snapshot = row_of(self.session, data, self.follows)
        self.follows = False
        if self.down:
            return DOWN
        seq = len(self.rows)
        self.rows.append(Written(seq, 1, SNAPSHOT if snapshot else MOVE, row))
        self.written[seq] = data
        self.follows = True
        return None


def play(table: Table, data: st.DataObject, steps: int) -> None:
    """Up to ``steps`` steps of the table, each drawn: the people's moves, undos, hints, stand-ins,
    a seat's new name, the AIs' moves (a fault now and then), the rounds' ends, and the store
    going down and coming back."""
    s = table.session
    driver = TableDriver(s, pace="instant")
    for step in range(steps):
        if s.match.over:
            return
        table.down = data.draw(st.integers(0, 9), label="store") == 0
        if s.holding:
            s.retry_save()
            continue
        if s.match.round.over:
            driver.finish_round()
            continue
        if s.ai_to_move:
            decision = driver.ai_job().run()
            if data.draw(st.integers(0, 9), label="fault") == 0:
                turn = s.prepare_ai_turn()
                # An AI that failed: its fallback's move, or an illegal one (ending its turn).
                wrong = data.draw(st.sampled_from((decision.move, 0)), label="fallback")
                s.apply_ai_turn(turn, wrong, fault="it raised an error")
            else:
                driver.decide(decision)
            continue
        seat = s.to_move
        choice = data.draw(st.integers(0, 19), label="choice")
        legal = s.view(seat).legal_moves()
        if choice < 3 and s.can_undo:
            driver.undo()
        elif choice == 3:
            hint = driver.hint_job().run()
            driver.hint_ready(hint)
        elif choice == 4:
            s.rename_seat(seat, f"Person {step}")
            s.save()
        elif choice == 5:
            # A stand-in plays the seat (as the served table does): the AI's move, or the end.
            m = s.players.get(seat) or None
            stand_in = m.choose(s.view(seat)) if m is not None else legal[0]
            if driver.play(stand_in) is not None and not s.holding:
                driver.play(END)
        else:
            driver.play(data.draw(st.sampled_from(legal), label="move"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    kinds=SEATS,
    rules=RULES,
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(20, 160),
    data=st.data(),
)
def test_the_replay_of_a_served_matchs_rows_gives_the_save_written_at_every_seq(
    kinds: list[str], rules: Rules, seed: int, steps: int, data: st.DataObject
) -> None:
    seats = [Seat(f"Seat {n}", kind, 50) for n, kind in enumerate(kinds)]
    table = Table(MatchSession.hosted(seats, rules, seed))
    play(table, data, steps)
    assert [row.seq for row in table.rows] == list(range(len(table.rows)))
    for row in table.rows[1:]:
        entry = json.loads(row.data) if row.kind == MOVE else {"snapshot": True}
        for key in sorted(set(entry) - {"digest"}):
            event(f"a row with {key}")
    assert saves(table.rows) == table.written
    # Served again from any snapshot with the rows after it: the last save written.
    last = max(table.written)
    for at in [row.seq for row in table.rows if row.kind == SNAPSHOT and not over(table.written[last])]:
        session = rebuild(table.rows[at].data, table.rows[at + 1 :])
        assert save_bytes(session.to_dict(), compact=True) == table.written[last]


def served(kinds: tuple[str, ...], seed: int) -> Table:
    seats = [Seat(f"Seat {n}", kind, 50) for n, kind in enumerate(kinds)]
    return Table(MatchSession.hosted(seats, Rules(target=30, hand_size=5), seed))


def plays(session: MatchSession) -> list[int]:
    return [m for m in session.view(session.to_move).legal_moves() if m != END]


def test_a_move_row_names_one_step_and_holds_no_position() -> None:
    table = next(t for t in (served((HUMAN, HUMAN), seed) for seed in range(50)) if plays(t.session))
    driver = TableDriver(table.session, pace="instant")
    assert driver.play(plays(table.session)[0]) is None
    assert table.session.can_undo and driver.undo()
    assert driver.play(END) is None
    moves = [json.loads(row.data) for row in table.rows[1:]]
    assert [sorted(entry) for entry in moves] == [["digest", "play"], ["digest", "undo"], ["digest", "play"]]
    assert moves[2]["play"] == "end"
    assert all(len(row.data) < 200 for row in table.rows[1:])
    assert len(table.rows[0].data) > 1000


def test_a_rounds_first_position_a_new_name_and_a_save_after_a_failed_one_are_snapshots() -> None:
    table = served((HUMAN, "greedy"), 5)
    s = table.session
    driver = TableDriver(s, pace="instant")
    while s.ai_to_move:
        s.step_ai()
    assert {row.kind for row in table.rows[1:]} <= {MOVE}, "an AI's moves"
    s.rename_seat(0, "Zoe")
    s.save()
    assert table.rows[-1].kind == SNAPSHOT
    table.down = True
    assert driver.play(END) is not None and s.holding
    table.down = False
    assert s.retry_save()
    assert [row.kind for row in table.rows[-2:]] == [SNAPSHOT, SNAPSHOT]
    assert driver.play(END) is None
    assert table.rows[-1].kind == MOVE
    while not s.match.round.over:
        if s.ai_to_move:
            s.step_ai()
        else:
            driver.play(s.view(s.to_move).legal_moves()[0])
    driver.finish_round()
    assert table.rows[-1].kind == SNAPSHOT
    assert json.loads(table.rows[-1].data)["match"]["results"]
    assert saves(table.rows) == table.written


def test_a_damaged_row_or_a_digest_that_differs_does_not_replay() -> None:
    table = served((HUMAN, HUMAN), 9)
    driver = TableDriver(table.session, pace="instant")
    for _ in range(3):
        assert driver.play(table.session.view(table.session.to_move).legal_moves()[0]) is None
    good = table.rows[2]
    entry = json.loads(good.data)
    other = dict(entry, digest=json.loads(table.rows[1].data)["digest"])
    illegal = dict(entry, play="move N N") if "play" in entry else entry
    hostile = (b"{not json", b"[]", b"[" * 100_000, b'{"play":NaN}', b'{"undo":1}')
    for damaged in (*hostile, json.dumps(other).encode(), json.dumps(illegal).encode()):
        rows = [*table.rows[:2], Written(2, 1, MOVE, damaged), *table.rows[3:]]
        try:
            saves(rows)
        except HistoryError as exc:
            assert "seq 2" in str(exc)
            step = str(entry.get("play", entry.get("ai", "")))
            assert step not in str(exc) and "♥" not in str(exc), "no card in the error"
        else:
            raise AssertionError(f"{damaged!r} replayed")
    try:
        Replay().feed(good)
    except HistoryError as exc:
        assert "no snapshot" in str(exc)
    else:
        raise AssertionError("a move row with no snapshot before it replayed")


def test_a_history_written_in_one_language_replays_the_same_in_another() -> None:
    session = MatchSession.hosted([Seat("Ana", HUMAN), Seat("Greedy", "greedy")], Rules(hand_size=4, target=10), 11)
    table = Table(session)
    driver = TableDriver(session, pace="instant")
    for _ in range(40):
        if session.match.round.over or session.match.over:
            break
        if session.ai_to_move:
            driver.decide(driver.ai_job().run())
        else:
            driver.play(session.view(session.to_move).legal_moves()[0])
    assert any(row.kind == MOVE for row in table.rows)
    try:
        assert i18n.use("it") == "it"
        replayed = saves(table.rows)
    finally:
        i18n.use("en")
    assert replayed == table.written, "a worker speaking Italian replays a history written in English"


def test_a_claims_rebuild_makes_every_step_and_checks_the_last_save() -> None:
    table = served((HUMAN, HUMAN), 9)
    driver = TableDriver(table.session, pace="instant")
    for _ in range(4):
        assert driver.play(table.session.view(table.session.to_move).legal_moves()[0]) is None
    snapshot, entries = table.rows[0].data, table.rows[1:]
    assert [row.kind for row in entries] == [MOVE] * 4
    last = max(table.written)
    assert save_bytes(rebuild(snapshot, entries).to_dict(), compact=True) == table.written[last]

    def changed(at: int, **fields: object) -> list[Written]:
        row = entries[at]
        entry = dict(json.loads(row.data), **fields)
        return [*entries[:at], Written(row.seq, row.epoch, MOVE, json.dumps(entry).encode()), *entries[at + 1 :]]

    wrong = json.loads(entries[0].data)["digest"]
    with pytest.raises(HistoryError, match=f"seq {entries[-1].seq} differs"):
        rebuild(snapshot, changed(3, digest=wrong))
    with pytest.raises(HistoryError, match=f"seq {entries[1].seq} is"):
        rebuild(snapshot, changed(1, play="move N N"))
    # A middle row's digest alone is not what a claim checks: its step is made, and the save
    # after the last step is the one written.
    rebuilt = rebuild(snapshot, changed(1, digest=wrong))
    assert save_bytes(rebuilt.to_dict(), compact=True) == table.written[last]
