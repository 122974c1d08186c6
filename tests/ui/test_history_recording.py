"""Every game remembered: a match played on the screen is in the history with every
move, its rounds replay from the record to the recorded penalties; hints and undos are counted;
a resumed match goes on under the same record; demos are marked (and can be left out); a
history that fails never stops the game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kc_tui.engine import Match, Rules, is_play, play_card, target
from kc_tui.records.rows import HistoryError, default_history_path
from kc_tui.records.store import History
from kc_tui.ui.app import KingsCornersApp
from kc_tui.ui.dialogs.summary import MatchSummary, RoundSummary

from .conftest import wait_for
from .gamekit import ONE_ROUND, TWO_ROUNDS, make_config, past_the_first_round, play_app, play_until, settle


def recorded() -> History:
    history, problem = History.open(default_history_path())
    assert problem is None, problem
    return history


def replay_penalties(m: Any) -> None:
    replay = Match(len(m.seats), Rules.from_dict(m.rules), m.seed, first_dealer=m.first_dealer)
    for r in m.rounds:
        for mv in r.moves:
            replay.round.apply(mv)
        res = replay.finish_round()
        assert (res.number, res.winner, res.penalties, res.totals) == (r.number, r.winner, r.penalties, r.totals)
    assert replay.over and tuple(replay.winners) == m.winners


async def test_a_match_played_on_the_screen_is_recorded_with_every_move_and_replays() -> None:
    app = play_app(config=make_config(rules=ONE_ROUND))
    async with app.run_test(size=(120, 40)) as pilot:
        await play_until(pilot, MatchSummary)
        session = app.game.session if app.game else None
        assert session is not None
        played = [res.penalties for res in session.match.results]
    with recorded() as history:
        (m,) = history.matches()
        full = history.match(m.id)
    assert full is not None and full.finished and not full.demo
    assert [s.kind for s in full.seats] == ["human", "greedy", "king-aware"]
    assert [s.name for s in full.seats][1:] == ["Greedy", "Kingsley"]
    assert [r.penalties for r in full.rounds] == played
    assert all(r.moves for r in full.rounds), "a round was recorded without its moves"
    replay_penalties(full)


async def test_hints_and_undos_are_counted_with_the_round() -> None:
    app = play_app()
    async with app.run_test(size=(120, 40)) as pilot:
        game = await settle(pilot)
        s = game.session
        await pilot.press("h")
        game = await settle(pilot)
        play = next(m for m in s.match.round.legal_moves() if is_play(m))
        game._select_card(play_card(play))
        game.action_pile(target(play))
        await pilot.pause()
        await pilot.press("u")
        await pilot.pause()
        driver = game.driver
        assert (driver.hints_this_round, driver.undos_this_round) == (1, 1)
        await play_until(pilot, RoundSummary)
    with recorded() as history:
        (m,) = history.matches()
        full = history.match(m.id)
    assert full is not None and full.rounds[0].hints == 1 and full.rounds[0].undos == 1


async def test_a_resumed_match_goes_on_under_the_same_record() -> None:
    config = make_config(rules=TWO_ROUNDS)
    app = play_app(config=config)
    async with app.run_test(size=(120, 40)) as pilot:
        await past_the_first_round(pilot)
    with recorded() as history:
        assert history.count_matches() == 1
    # A new app (a new session of the game) resumes the saved match and finishes it.
    app2 = KingsCornersApp(config, None, "menu")
    async with app2.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app2.action_resume()
        await play_until(pilot, MatchSummary)
    with recorded() as history:
        assert history.count_matches() == 1, "the resumed match was recorded as a new one"
        (m,) = history.matches()
        full = history.match(m.id)
    assert full is not None and full.finished and len(full.rounds) >= 2
    assert [r.number for r in full.rounds] == list(range(1, len(full.rounds) + 1))
    replay_penalties(full)


async def test_demos_are_recorded_as_demos_unless_the_setting_is_off() -> None:
    for record_demos in (True, False):
        config = make_config(rules=Rules(target=5), record_demos=record_demos)
        app = KingsCornersApp(config, None, "menu")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            from kc_tui.ui.screens.demo import DemoScreen

            demo = DemoScreen(["greedy", "greedy"], 5, "instant", config, app.demo_recorder)
            app.push_screen(demo)
            await wait_for(pilot, lambda: demo.session.match.over, 60)  # noqa: B023 (awaited here)
            assert demo.session.match.over
        with recorded() as history:
            demos = [m for m in history.matches(demos=True) if m.demo]
            assert history.matches() == [], "a demo counted as the player's match"
        assert len(demos) == 1, "the demo with recording off was recorded too" if not record_demos else "no demo"
        if record_demos:
            full = recorded().match(demos[0].id)
            assert full is not None and full.finished
            replay_penalties(full)


async def test_a_failing_history_is_reported_once_and_the_game_goes_on(monkeypatch: Any) -> None:
    def broken(*_: Any, **__: Any) -> None:
        raise HistoryError("could not record the round: disk I/O error")

    monkeypatch.setattr(History, "sync_match", broken)
    notes: list[str] = []
    app = play_app(config=make_config(rules=Rules(target=5)))
    monkeypatch.setattr(app, "notify", lambda message, **_: notes.append(message))
    async with app.run_test(size=(120, 40)) as pilot:
        await play_until(pilot, MatchSummary)
        assert app.game is not None and app.game.session.match.over
    problems = [n for n in notes if "history" in n.lower()]
    assert len(problems) == 1 and "disk I/O error" in problems[0] and "goes on" in problems[0]


async def test_a_file_that_is_not_a_history_is_left_as_it_is_and_the_game_starts(tmp_path: Path) -> None:
    path = default_history_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    junk = b"not a database at all" * 100
    path.write_bytes(junk)
    notes: list[str] = []
    app = play_app()
    app.notify = lambda message, **_: notes.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        game = await settle(pilot)
        assert game.session.human_to_move
        await wait_for(pilot, lambda: notes, what="a note about the history")
    assert any("not a Kings Corners history" in n and "left as it is" in n for n in notes), notes
    assert path.read_bytes() == junk
    assert not any(p.name.startswith(path.name + ".corrupt-") for p in path.parent.iterdir())


async def test_the_history_opens_a_moment_after_the_first_frame_or_at_once_when_asked(monkeypatch: Any) -> None:
    import kc_tui.ui.app as app_module

    monkeypatch.setattr(app_module, "HISTORY_OPEN_DELAY", 60.0)
    app = play_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.pause()
        assert app.recorder is not None and not app.recorder.status.opened  # it waits its moment
        assert not default_history_path().exists()
        assert app.history is not None  # asked for: it opens at once
        assert app.recorder.status.opened and default_history_path().exists()


async def test_the_history_opens_by_itself_once_its_moment_has_come(monkeypatch: Any) -> None:
    import kc_tui.ui.app as app_module

    monkeypatch.setattr(app_module, "HISTORY_OPEN_DELAY", 0.05)
    app = play_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        recorder = app.recorder
        assert recorder is not None
        await wait_for(pilot, lambda: recorder.status.opened, what="the history opened")
        assert recorder.status.opened and default_history_path().exists()
