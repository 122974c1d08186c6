"""Chips scoring (R16) as the player sees it: the stacks and the pot live on the table, the round
summary and the scoreboard showing the same stacks, the cards caught in every hand, and the match
summary naming who won (R15 too). Names are data: "[b]x" shows as it is."""

from __future__ import annotations

import re
from typing import Any

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from kc_tui.config import Config, Opponent
from kc_tui.engine import Rules, cards_of
from kc_tui.match.session import MatchSession, match_end_text
from kc_tui.match.table import TableDriver
from kc_tui.ui.cards import CardLook
from kc_tui.ui.dialogs.summary import MatchSummary, RoundSummary, match_end
from kc_tui.ui.widgets import Scoreboard

from .gamekit import game_of, play_app, play_until, settle

#: The smallest screen the game is played on, with three opponents.
SIZE = (80, 24)
HOSTILE = "[b]x"
NAMES = ("You", HOSTILE, "Kingsley", "Bob")


def chips_config(**rules: Any) -> Config:
    return Config(
        opponents=(Opponent(HOSTILE, "greedy"), Opponent("Kingsley", "king-aware"), Opponent("Bob", "greedy")),
        pace="instant",
        rules=Rules(scoring="chips", **rules),
    )


def screen_lines(screen: Screen[Any], widget: Widget | None = None) -> list[str]:
    """What ``screen`` shows, line by line (or only ``widget``'s part of it)."""
    strips = screen._compositor.render_strips()
    if widget is not None:
        r = widget.region
        strips = [strip.crop(r.x, r.right) for strip in strips[r.y : r.bottom]]
    return ["".join(seg.text for seg in strip) for strip in strips]


def row_of(lines: list[str], name: str) -> str:
    """The line of a table that starts with ``name`` (after a "▶" mark)."""
    for line in lines:
        cells = line.strip(" │█").removeprefix("▶").strip()
        if cells.startswith(name + " "):
            return line
    raise AssertionError(f"no row for {name!r} in {lines}")


def flat(lines: list[str]) -> str:
    """Lines as one line of words, without the borders."""
    return " ".join(" ".join(line.strip(" │█▌▐") for line in lines).split())


def last_number(line: str) -> int:
    numbers = re.findall(r"-?\d+", line.strip(" │█"))
    assert numbers, line
    return int(numbers[-1])


async def test_r16_a_turn_ended_without_playing_pays_its_chip_at_once() -> None:
    """R16: the fine leaves the stack when the turn is ended, and the pot shows it."""
    app = play_app(config=chips_config())
    async with app.run_test(size=SIZE) as pilot:
        game = await settle(pilot)
        driver = game.driver
        before = driver.snapshot(0)
        assert before.pot == 4 and before.seats[0].score == "49 chips"  # the antes are in
        driver.pace = "slow"  # the next AI waits: what the end of the turn did stays on screen
        game.action_end_turn()  # the first t says that ending now costs a chip
        assert game.session.to_move == 0 and driver.snapshot(0).seats[0].score == "49 chips"
        game.action_end_turn()
        await pilot.pause()
        after = driver.snapshot(0)
        assert after.seats[0].score == "48 chips" and after.seats[0].total == 48
        assert after.pot == 5
        assert [s.score for s in after.seats[1:]] == [s.score for s in before.seats[1:]]
        assert driver.score_text(0) == "48 chips"
        text = "\n".join(screen_lines(game))
        assert "48 chips" in text  # your label
        assert "Chips · pot 5" in text  # the scoreboard's title
        board = screen_lines(game, game.query_one(Scoreboard))
        assert last_number(row_of(board, "You")) == 48
        assert last_number(row_of(board, "Bob")) == 49


async def test_r16_the_round_summary_and_the_scoreboard_show_the_same_chips() -> None:
    app = play_app(config=chips_config())
    async with app.run_test(size=SIZE) as pilot:
        summary = await play_until(pilot, RoundSummary)
        game = await settle(pilot)
        lines = screen_lines(summary)
        body = screen_lines(summary, summary.query_one("#body"))
        board = screen_lines(game, game.query_one(Scoreboard))
        s = game.session
        for seat, name in enumerate(NAMES):
            shown = last_number(row_of(body, name))
            assert shown == last_number(row_of(board, name)), (name, lines, board)
            assert shown == s.match.live_chips()[seat] == summary.result.totals[seat] - 1  # after the next ante
        text = "\n".join(lines)
        pot = s.pot
        assert pot is not None and f"the pot holds {pot}." in flat(screen_lines(summary, summary.query_one("#next")))
        assert f"Chips · pot {pot}" in board[0]
        # Nothing overflows the 80x24 screen: every row and the Continue button are on it.
        assert "Continue" in text and "Round 1:" in text
        for line in lines:
            assert len(line) <= SIZE[0]
        # The next deal: the same stacks on the table.
        summary.action_close()
        game = await settle(pilot)


async def test_r16_no_points_or_target_on_the_table_or_the_summary() -> None:
    app = play_app(config=chips_config())
    async with app.run_test(size=SIZE) as pilot:
        game = await settle(pilot)
        seen = ["\n".join(screen_lines(game))]
        summary = await play_until(pilot, RoundSummary)
        seen.append("\n".join(screen_lines(summary)))
        seen.append("\n".join(screen_lines(await settle(pilot), game.query_one(Scoreboard))))
        for text in seen:
            assert "pts" not in text and "target" not in text.lower(), text
            assert "chips" in text.lower()
        assert HOSTILE in seen[0] and HOSTILE in seen[1]  # the name shows as it is


async def test_the_round_summary_shows_the_cards_caught_in_an_opponents_hand() -> None:
    app = play_app(config=chips_config())
    async with app.run_test(size=SIZE) as pilot:
        summary = await play_until(pilot, RoundSummary)
        res = summary.result
        lines = screen_lines(summary, summary.query_one("#body"))
        look = CardLook()
        caught = [seat for seat in (1, 2, 3) if res.hands_left[seat]]
        assert caught, "every opponent went out?"
        for seat in caught:
            start = lines.index(row_of(lines, NAMES[seat]))
            # The row, and its second line when the cards wrap.
            block = lines[start] + " " + lines[start + 1]
            tokens = block.replace("│", " ").replace("█", " ").split()
            for card in cards_of(res.hands_left[seat]):
                assert look.label(card) in tokens, (look.label(card), block)
        if res.winner is not None:
            assert "went out" in row_of(lines, NAMES[res.winner])


async def test_r16_the_match_end_names_the_winner_with_chips() -> None:
    app = play_app(config=chips_config(chips_rounds=1))
    async with app.run_test(size=SIZE) as pilot:
        summary = await play_until(pilot, RoundSummary)
        s = game_of(app).session
        assert s.match.over
        winners = s.match.winners
        best = s.match.live_chips()[winners[0]]
        who = " and ".join("you" if w == 0 else s.names[w] for w in winners)
        said = flat(screen_lines(summary, summary.query_one("#next")))
        end = "The match is over after 1 round: "
        if len(winners) == 1:
            end += f"You win with {best} chips." if winners == [0] else f"{who} wins with {best} chips."
        assert end in said or "share the win" in said, said
        summary.action_close()
        match = await play_until(pilot, MatchSummary)
        text = flat(screen_lines(match))
        assert match_end_text(s) == flat(screen_lines(match, match.query_one("#sub")))
        assert "pts" not in text and "target" not in text.lower()
        assert HOSTILE in text
        body = screen_lines(match, match.query_one("#body"))
        for seat in range(4):
            assert last_number(row_of(body, NAMES[seat])) == s.match.live_chips()[seat]


class Host(App[None]):
    def __init__(self, session: MatchSession) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        yield Static("under")

    def on_mount(self) -> None:
        self.push_screen(MatchSummary(match_end(TableDriver(self.session).snapshot(None, open_hands=True))))


def _finished(names: tuple[str, ...], rules: Rules, seed: int) -> MatchSession:
    s = MatchSession.all_ai(["greedy"] * len(names), rules, seed, names=names, think_ms=10)
    driver = TableDriver(s, "instant")
    while not driver.session.match.over:
        if driver.session.match.round.over:
            driver.finish_round()
        else:
            driver.decide(driver.ai_job().run())
    return s


async def test_r15_the_match_summary_names_who_reached_the_target_and_who_won() -> None:
    names = (HOSTILE, "[i]Ann[/i]", "Bob")
    for seed in range(20):
        s = _finished(names, Rules(target=12), seed)
        reached = [x for x, t in enumerate(s.match.live_chips()) if t >= 12]
        if len(reached) == 1 and len(s.match.winners) == 1:
            break
    else:
        raise AssertionError("no match with one player past the target and one winner")
    loser, winner = reached[0], s.match.winners[0]
    totals = s.match.live_chips()
    expected = f"{names[loser]} reached {totals[loser]}: the match is over. {names[winner]} wins with {totals[winner]}."
    assert match_end_text(s) == expected
    app = Host(s)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        lines = screen_lines(app.screen)
        text = flat(lines)
        assert expected == flat(screen_lines(app.screen, app.screen.query_one("#sub")))
        assert f"{names[winner]} wins the match" in text
        body = screen_lines(app.screen, app.screen.query_one("#body"))
        for seat, name in enumerate(names):
            assert last_number(row_of(body, name)) == s.match.live_chips()[seat]


def test_r16_a_shared_win_names_every_winner() -> None:
    s = _finished(("Ann", "Bob", "Cy"), Rules(scoring="chips", chips_start=5, chips_rounds=2), 4)
    s.match.winners = [0, 2]
    text = match_end_text(s)
    assert text.endswith(f"Ann and Cy share the win with {s.match.live_chips()[0]} chips each.")
    s.match.winners = [1]
    assert f"Bob wins with {s.match.live_chips()[1]} chip" in match_end_text(s)
