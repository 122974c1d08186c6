"""Several people at one table, driven by the session and the table driver (no Textual): a whole
match of two people and an AI with the people's moves chosen by the test; play, hints and undo
for the seat on turn; a log that names everyone and shows no one's drawn card; save and resume."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ai import make_player
from kc_tui.config import HUMAN, Config, Opponent
from kc_tui.engine import END, Move, Rules
from kc_tui.match.saves import SaveError
from kc_tui.match.session import MatchSession, match_end_text
from kc_tui.match.table import Event, MoveMade, TableDriver, TurnEnded

ANA, BEN, AI = 0, 1, 2
CONFIG = Config("Ana", (Opponent("Ben", HUMAN), Opponent("Greedy", "greedy")), rules=Rules(target=30))


def hot_seat(seed: int = 5, path: Path | None = None) -> MatchSession:
    return MatchSession.from_config(CONFIG, seed, save_path=path)


def chosen(s: MatchSession) -> Move:
    """The move the test makes for the person on turn: a greedy AI's choice from their view."""
    return make_player("greedy", 1).choose(s.view(s.to_move))


def to_turn_of(driver: TableDriver, seat: int, limit: int = 500) -> None:
    """Play on (people by the test, the AI by its job) until ``seat`` is on turn mid-round."""
    for _ in range(limit):
        s = driver.session
        if not s.match.round.over and s.to_move == seat:
            return
        if s.match.round.over:
            driver.finish_round()
        elif s.human_to_move:
            assert driver.play(chosen(s)) is None
        else:
            assert driver.decide(driver.ai_job().run())
    raise AssertionError(f"seat {seat} never came to move")


def to_round_end(driver: TableDriver, limit: int = 500) -> None:
    """Play on (as :func:`to_turn_of`) until the round is over, and score it."""
    s = driver.session
    for _ in range(limit):
        if s.match.round.over:
            driver.finish_round()
            return
        if s.human_to_move:
            assert driver.play(chosen(s)) is None
        else:
            assert driver.decide(driver.ai_job().run())
    raise AssertionError("the round never ended")


def a_play(s: MatchSession) -> Move | None:
    """A legal move of the seat on turn other than ending the turn, or None."""
    return next((m for m in s.match.round.legal_moves() if m != END), None)


def test_the_session_knows_every_person_and_the_first_is_only_the_first() -> None:
    s = hot_seat()
    assert s.human_seats == (ANA, BEN) and s.hot_seat
    assert [seat.is_human for seat in s.seats] == [True, True, False]
    assert s.human_seat == ANA
    solo = MatchSession.from_config(CONFIG.with_(opponents=(Opponent("Greedy", "greedy"),)), 5, save_path=None)
    assert solo.human_seats == (0,) and not solo.hot_seat
    assert MatchSession.all_ai(["greedy", "greedy"], seed=1).human_seats == ()


def test_a_whole_match_of_two_people_and_an_ai_plays_through_for_each_seat_on_turn() -> None:
    driver = TableDriver(hot_seat(7), "instant")
    events: list[Event] = []
    driver.listen(events.append)
    s = driver.session
    people_moves = {ANA: 0, BEN: 0}
    for _ in range(20_000):
        if s.match.over:
            break
        if s.match.round.over:
            driver.finish_round()
        elif s.human_to_move:
            seat = s.to_move
            assert s.seats[seat].is_human
            assert driver.play(chosen(s)) is None
            assert isinstance(events[-1], MoveMade | TurnEnded)
            made = [e for e in events if isinstance(e, MoveMade)][-1]
            assert made.seat == seat
            people_moves[seat] += 1
        else:
            assert not s.seats[s.to_move].is_human
            assert driver.decide(driver.ai_job().run())
    assert s.match.over and people_moves[ANA] > 0 and people_moves[BEN] > 0
    log = [line for e in events if isinstance(e, MoveMade) for line in e.lines]
    assert any(line.startswith("Ana ") for line in log) and any(line.startswith("Ben ") for line in log)
    assert not any(re.search(r"\byou\b", line, re.IGNORECASE) for line in s.log), "no one is 'you'"
    for line in log:
        # A shared log names no one's drawn card: "Ana drew a card", "Ben drew 3 cards".
        if " drew " in line:
            assert re.fullmatch(r"(Ana|Ben|Greedy) drew (a card|\d+ cards)", line), line
    text = match_end_text(s)
    winners = [s.names[w] for w in s.match.winners]
    assert all(name in text for name in winners) and not re.search(r"\byou\b", text, re.IGNORECASE)
    assert ("share the win" if len(winners) > 1 else f"{winners[0]} wins") in text


def test_one_person_against_ais_keeps_their_drawn_cards_named_and_is_you_at_the_end() -> None:
    cfg = CONFIG.with_(opponents=(Opponent("Greedy", "greedy"),))
    driver = TableDriver(MatchSession.from_config(cfg, 7, save_path=None), "instant")
    s = driver.session
    while not s.match.over:
        if s.match.round.over:
            driver.finish_round()
        elif s.human_to_move:
            driver.play(chosen(s))
        else:
            driver.decide(driver.ai_job().run())
    drawn = [line for line in s.log if line.startswith("Ana drew ") and "card" not in line]
    assert drawn, "the one person's draws name the card"
    assert re.search(r"\b(You|you)\b", match_end_text(s))


def test_undo_is_for_the_seat_on_turn_and_never_takes_back_another_persons_move() -> None:
    driver = TableDriver(hot_seat(3), "instant")
    s = driver.session
    to_turn_of(driver, ANA)
    while (m := a_play(s)) is None:  # Ana needs a card to play: play on to a turn that has one
        driver.end_turn()
        to_turn_of(driver, ANA)
    assert driver.play(m) is None and s.can_undo
    assert driver.end_turn() is None
    assert s.to_move == BEN and not s.can_undo and not driver.undo(), "Ana's move is not Ben's to undo"
    m = a_play(s)
    assert m is not None, "this deal gives Ben a card to play"
    before_round, before_log = s.match.round.clone(), list(s.log)
    assert driver.play(m) is None and s.can_undo
    assert driver.undo() and s.to_move == BEN
    assert s.match.round.hands == before_round.hands and s.log == before_log
    assert not s.can_undo, "only Ben's own move of this turn was taken back"


def test_a_hint_is_for_the_seat_on_turn_and_goes_stale_when_the_turn_passes() -> None:
    driver = TableDriver(hot_seat(3), "instant")
    s = driver.session
    to_turn_of(driver, ANA)
    job = driver.hint_job()
    assert job.turn.seat == ANA and job.turn.view.seat == s.match.round_seat(ANA)
    decision = job.run()
    assert driver.end_turn() is None and s.to_move == BEN
    assert not driver.hint_ready(decision), "Ana's hint is stale on Ben's turn"
    assert driver.hints_this_round == 0
    ben = driver.hint_job()
    assert ben.turn.seat == BEN and ben.turn.view.seat == s.match.round_seat(BEN)
    assert driver.hint_ready(ben.run()) and driver.hints_this_round == 1


def test_a_hot_seat_match_saves_and_resumes_exactly_undo_included(tmp_path: Path) -> None:
    path = tmp_path / "save.json"
    driver = TableDriver(hot_seat(11, path), "instant")
    s = driver.session
    to_turn_of(driver, BEN)
    while (m := a_play(s)) is None:
        driver.end_turn()
        to_turn_of(driver, BEN)
    assert driver.play(m) is None
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert [seat["kind"] for seat in doc["seats"]] == [HUMAN, HUMAN, "greedy"]
    # The save says nothing of whose hand is open: the keys of a one-person save, and seats of
    # a name, a kind and a think time only.
    solo = MatchSession.from_config(CONFIG.with_(opponents=(Opponent("Greedy", "greedy"),)), 5, save_path=None)
    assert doc.keys() == solo.to_dict().keys()
    assert all(seat.keys() == {"name", "kind", "think_ms"} for seat in doc["seats"])
    back = MatchSession.load(path)
    assert back is not None
    assert back.human_seats == (ANA, BEN) and back.to_move == BEN and back.human_to_move
    assert back.names == s.names and back.log == s.log and back.to_dict() == s.to_dict()
    assert back.can_undo and back.undo() and s.undo()
    assert back.to_dict() == s.to_dict()
    assert back.hint_turn().seat == BEN


def test_a_table_of_four_people_and_no_ai_saves_and_resumes(tmp_path: Path) -> None:
    path = tmp_path / "save.json"
    cfg = Config("Ana", tuple(Opponent(n, HUMAN) for n in ("Ben", "Cy", "Di")))
    s = MatchSession.from_config(cfg, 2, save_path=path)
    assert s.human_seats == (0, 1, 2, 3) and not s.players
    assert s.play_human(chosen(s)) is None
    back = MatchSession.load(path)
    assert back is not None and back.human_seats == (0, 1, 2, 3) and back.to_dict() == s.to_dict()


def test_hints_and_undos_are_noted_for_the_person_who_asked_and_kept_in_the_save(tmp_path: Path) -> None:
    path = tmp_path / "save.json"
    driver = TableDriver(hot_seat(11, path), "instant")
    s = driver.session
    to_turn_of(driver, ANA)
    for _ in range(2):
        assert driver.hint_ready(driver.hint_job().run())
    driver.end_turn()
    to_turn_of(driver, BEN)
    assert driver.hint_ready(driver.hint_job().run())
    while (m := a_play(s)) is None:
        driver.end_turn()
        to_turn_of(driver, BEN)
    assert driver.play(m) is None and driver.undo()
    assert (driver.hints_by_seat[ANA], driver.hints_by_seat[BEN], driver.undos_by_seat[BEN]) == (2, 1, 1)
    to_round_end(driver)
    note = s.record.rounds[-1]
    assert (note.seat_hints[ANA], note.seat_hints[BEN], note.seat_undos[BEN], note.hints, note.undos) == (2, 1, 1, 3, 1)
    assert driver.hints_by_seat == [0, 0, 0], "the next round counts from none"
    resumed = MatchSession.load(path)
    assert resumed is not None and resumed.record.rounds == s.record.rounds


def test_a_save_whose_notes_have_the_tables_counts_only_reads_as_before(tmp_path: Path) -> None:
    path = tmp_path / "save.json"
    driver = TableDriver(hot_seat(11, path), "instant")
    to_round_end(driver)
    doc = json.loads(path.read_text(encoding="utf-8"))
    (note,) = doc["record"]["rounds"]
    assert note["seat_hints"] == [0, 0, 0]
    del note["seat_hints"], note["seat_undos"]
    note["hints"] = 5
    path.write_text(json.dumps(doc), encoding="utf-8")
    resumed = MatchSession.load(path)
    assert resumed is not None
    (old,) = resumed.record.rounds
    assert (old.hints, old.seat_hints, old.seat_undos) == (5, (), ())
    note["seat_hints"], note["seat_undos"] = [1, 2], [0, 0]
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(SaveError, match="seat_hints of round 1 must be a list of 3 counts"):
        MatchSession.load(path)
