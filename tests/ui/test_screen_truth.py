"""What the screens say is what the table holds, at every size a player uses: the round's end
(the summary, the labels behind it, the chips that add up on their face), a replay's open hands,
opponents' panels that show the same parts, pile text with no card left alone on a line, plots
whose legend covers nothing, and the summary's buttons one size."""

from __future__ import annotations

import re
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Button, Static

from kc_tui.config import Config, Opponent
from kc_tui.engine import Rules, cards_of, parse_card, sort_for_hand
from kc_tui.records.rows import ENV_HISTORY, MatchRecord, default_history_path
from kc_tui.records.stats_shown import reference_lines
from kc_tui.records.store import History
from kc_tui.screenshots import DEMO_SEED, _advance, record_stats_history, shot_config
from kc_tui.ui.app import KingsCornersApp
from kc_tui.ui.cards import CardLook
from kc_tui.ui.dialogs.summary import RoundSummary, round_footer
from kc_tui.ui.screens.demo import DemoScreen
from kc_tui.ui.screens.replay import ReplayScreen, open_replay
from kc_tui.ui.screens.stats import StatsScreen
from kc_tui.ui.widgets import OpponentPanel, PileView
from kc_tui.ui.widgets.plot import LegendPlot
from tests.match.kit import direct_round, play_match, store

from .conftest import wait_for
from .gamekit import game_of, make_config, play_app, play_until, settle

SIZES = ((80, 24), (120, 40), (160, 50))
LOOK = CardLook()


def screen_lines(app: App[Any], widget: Any = None) -> list[str]:
    """What the screen shows, line by line (or only ``widget``'s part of it)."""
    strips = app.screen._compositor.render_strips()
    if widget is not None:
        r = widget.region
        strips = [strip.crop(r.x, r.right) for strip in strips[r.y : r.bottom]]
    return ["".join(seg.text for seg in strip) for strip in strips]


def three_opponents(**changes: Any) -> Config:
    opponents = (Opponent("Greedy", "greedy"), Opponent("Kingsley", "king-aware"), Opponent("Lena", "lookahead"))
    return make_config(opponents=opponents, **changes)


# ---------------------------------------------------------------------- 1. the round's end
async def test_the_label_behind_the_summary_counts_the_hand_that_ended_the_round() -> None:
    app = play_app()
    async with app.run_test(size=(120, 40)) as pilot:
        summary = await play_until(pilot, RoundSummary)
        game = await settle(pilot)
        shown = len(game.query_one("#hand").cards)  # type: ignore[attr-defined]
        left = summary.result.cards_left[0]
        assert shown == left
        label = str(game.query_one("#me-label", Static).render())
        assert "your turn" not in label
        assert f"{left} card" in label, label


async def test_the_summary_shows_the_cards_left_in_every_hand_at_the_round_end() -> None:
    app = play_app()
    async with app.run_test(size=(120, 40)) as pilot:
        summary = await play_until(pilot, RoundSummary)
        res = summary.result
        body = screen_lines(app, summary.query_one("#body"))
        for seat, name in enumerate(game_of(app).session.names):
            row = next(line for line in body if f" {name} " in line)
            held = sort_for_hand(cards_of(res.hands_left[seat]))
            if seat == res.winner:
                assert "went out" in row
            else:
                assert " ".join(LOOK.label(c) for c in held) in row, (name, row)


# ---------------------------------------------------------------------- 3. the summary's words and sums
async def test_the_next_dealer_is_named_with_the_verb_that_agrees() -> None:
    app = play_app()
    async with app.run_test(size=(120, 40)) as pilot:
        summary = await play_until(pilot, RoundSummary)
        s = game_of(app).session
        dealer = s.names[s.match.dealer]
        shown = " ".join(" ".join(screen_lines(app, summary.query_one("#next"))).split())
        assert f"Next round: {dealer} deals." in shown
    for name, words in (("You", "You deal."), ("Ana", "Ana deals."), ("you", "you deal.")):
        table = SimpleNamespace(names=[name, "Greedy"], match_over=False, dealer=0, chips_scoring=False, rules=Rules())
        assert round_footer(table, summary.result).endswith(f"Next round: {words}")  # type: ignore[arg-type]


async def test_every_chips_row_adds_up_from_its_start_to_its_stack() -> None:
    config = three_opponents(rules=Rules(scoring="chips"))
    app = play_app(config=config)
    async with app.run_test(size=(120, 40)) as pilot:
        summary = await play_until(pilot, RoundSummary)
        game = await settle(pilot)
        body = screen_lines(app, summary.query_one("#body"))
        head = body[0].split()
        assert head[-5:] == ["Start", "Paid", "Won", "Ante", "Chips"], body[0]
        for seat, name in enumerate(game_of(app).session.names):
            row = next(line for line in body if re.search(rf"\s{name}\s", line))
            cells = row.strip(" █▌▐").split()[-5:]
            start, paid, won, ante, chips = (0 if c == "·" else int(c) for c in cells)
            assert start + paid + won + ante == chips, (name, row)
            assert chips == game.session.match.live_chips()[seat]  # the stack the scoreboard shows
            assert start == game.session.match.rules.chips_start - summary.result.ante[seat]  # at the deal


# ---------------------------------------------------------------------- 7. the summary's buttons
async def test_the_replay_button_stays_one_row_after_the_replay() -> None:
    app = play_app()
    async with app.run_test(size=(120, 40)) as pilot:
        summary = await play_until(pilot, RoundSummary)
        assert summary.query_one("#replay", Button).outer_size.height == 1
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        assert isinstance(app.screen, ReplayScreen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is summary)
        await pilot.pause()
        assert app.screen is summary
        assert summary.query_one("#replay", Button).outer_size.height == 1
        assert summary.query_one("#continue", Button).outer_size.height == 3
        assert "Replay and review (v)" in "\n".join(screen_lines(app))


# ---------------------------------------------------------------------- 2. a replay's open hands
@pytest.fixture(scope="module")
def four_seats() -> MatchRecord:
    return play_match(["greedy", "king-aware", "greedy", "random"], 11)


@pytest.fixture
def recorded(four_seats: MatchRecord, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    monkeypatch.delenv(ENV_HISTORY, raising=False)
    yield store(default_history_path(), four_seats)


def hand_text(cards: list[int]) -> str:
    return " ".join(LOOK.label(c) for c in cards)


def panel_shows(app: App[Any], panel: OpponentPanel, cards: list[int]) -> bool:
    """Every card of ``cards`` is on the panel, in order (wrapped lines read one after another)."""
    text = " ".join(line.strip(" │┃") for line in screen_lines(app, panel)[1:-1])
    return hand_text(cards) in " ".join(text.split()) if cards else "no cards" in text


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_o_opens_every_opponents_hand_at_every_size(
    size: tuple[int, int], recorded: int, four_seats: MatchRecord
) -> None:
    number = 2
    rec = four_seats.rounds[number - 1]
    app = KingsCornersApp(make_config(), None, "menu")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        open_replay(app, recorded, number)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await pilot.press("end", "o")
        await pilot.pause()

        def check(position: int) -> None:
            status = str(screen.query_one("#replay-status", Static).render())
            assert "hands open" in status
            r = direct_round(four_seats, number, position)
            panels = list(screen.query(OpponentPanel))
            assert len(panels) == 3
            for panel in panels:
                held = sort_for_hand(cards_of(r.hands[rec.seats.index(panel.seat)]))
                assert panel_shows(app, panel, held), (size, position, panel.seat, screen_lines(app, panel))
            assert len({p.size.height for p in panels}) == 1  # one height for the row

        check(len(rec.moves))
        # Stepping back, the hands stay open (the round was seen to its end): shown, not just said.
        for _ in range(3):
            await pilot.press("left")
        await pilot.pause()
        check(screen.replay.position)
        await pilot.press("o")
        await pilot.pause()
        assert "hands open" not in str(screen.query_one("#replay-status", Static).render())


# ---------------------------------------------------------------------- 4. panels of one size
async def test_opponent_panels_of_one_size_show_the_same_parts() -> None:
    app = play_app(config=three_opponents())
    async with app.run_test(size=(120, 40)) as pilot:
        game = await settle(pilot)
        panels = list(game.query(OpponentPanel))
        kinds_shown = [p.kind in line for p, line in ((p, screen_lines(app, p)[1]) for p in panels)]
        backs_shown = ["▒" in screen_lines(app, p)[1] for p in panels]
        assert len(set(kinds_shown)) == 1 and len(set(backs_shown)) == 1, [screen_lines(app, p)[1] for p in panels]
        # A turn passing on moves nothing but its mark: the parts stay the same while they think.
        for _ in range(40):
            await pilot.pause(0.05)
            lines = [screen_lines(app, p)[1] for p in panels]
            assert len({p.kind in line for p, line in zip(panels, lines, strict=True)}) == 1, lines
            assert len({"▒" in line for line in lines}) == 1, lines


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_demo_with_open_hands_shows_every_hand_and_the_one_to_move(size: tuple[int, int]) -> None:
    app = KingsCornersApp(shot_config(), None, "menu")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        demo = DemoScreen(["greedy", "king-aware", "lookahead"], DEMO_SEED, "normal", app.config)
        session = demo.session
        # A player to move with a big hand: the one that had no room beside its turn's mark.
        _advance(session, lambda s: s.ai_to_move and len(s.hand(s.to_move)) >= 9 and len(s.match.round.history) >= 10)
        demo.paused = True
        app.push_screen(demo)
        await wait_for(pilot, lambda: app.screen is demo and demo.query(OpponentPanel))
        await pilot.press("h")
        await wait_for(pilot, lambda: all(p.reveal for p in demo.query(OpponentPanel)), what="every hand shown")
        await pilot.pause()
        assert "hands open" in str(demo.query_one("#demo-status", Static).render())
        for panel in demo.query(OpponentPanel):
            held = session.hand(panel.seat)
            text = " ".join(" ".join(line.split()) for line in screen_lines(app, panel))
            assert hand_text(held) in text or "".join(LOOK.label(c) for c in held) in text, (panel.seat, text)
        mover = next(p for p in demo.query(OpponentPanel) if p.seat == session.to_move)
        assert mover.to_move
        await pilot.press("h")
        await wait_for(pilot, lambda: not any(p.reveal for p in demo.query(OpponentPanel)), what="every hand hidden")
        await pilot.pause()
        for panel in demo.query(OpponentPanel):
            text = "\n".join(screen_lines(app, panel))
            assert not any(LOOK.label(c) in text for c in session.hand(panel.seat) if LOOK.label(c) not in "10")


# ---------------------------------------------------------------------- 5. pile text
class PileApp(App[None]):
    def __init__(self, pile: tuple[int, ...]) -> None:
        super().__init__()
        self.pile = pile

    def compose(self) -> ComposeResult:
        yield PileView(1, id="pile")

    def on_mount(self) -> None:
        self.query_one(PileView).set_pile(self.pile)


@pytest.mark.parametrize(
    "cards",
    [("KS", "QD", "JS", "TD"), ("KC", "QH", "JC", "TH", "9C", "8H", "7C", "6H", "5C"), ("5H", "4C", "3H", "2C", "AD")],
    ids=["four", "long", "five"],
)
async def test_a_compact_pile_never_leaves_a_card_alone_on_a_line(cards: tuple[str, ...]) -> None:
    """A place too small for drawn cards (17x4, as at 80x24) writes its cards on lines: the top
    card ends a line beside others, never alone over the caption where it reads as a label."""
    pile = tuple(parse_card(c) for c in cards)
    app = PileApp(pile)
    async with app.run_test(size=(17, 4)) as pilot:
        await pilot.pause()
        view = app.query_one(PileView)
        lines = [line.strip(" │╭╮╰╯─") for line in screen_lines(app, view)[1:-1]]
        card_lines = [line for line in lines if line and not line.startswith(("next", "nothing"))]
        assert card_lines, lines
        for line in card_lines:
            assert len(line.split()) >= 2, lines
        assert card_lines[-1].split()[-1] == LOOK.label(pile[-1])  # the top card ends the last line
        assert LOOK.label(pile[0]) in card_lines[0]  # the bottom card starts the first


# ---------------------------------------------------------------------- 6. the plots' legends
@pytest.fixture
def stats_history(monkeypatch: pytest.MonkeyPatch) -> Iterator[History]:
    monkeypatch.delenv(ENV_HISTORY, raising=False)
    history, problem = History.open()
    assert problem is None
    record_stats_history(history, shot_config())
    yield history
    history.close()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_rating_plots_legend_covers_no_line_and_no_tick(
    stats_history: History, size: tuple[int, int]
) -> None:
    app = KingsCornersApp(make_config(), None, "menu")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = StatsScreen(stats_history)
        app.push_screen(screen)
        await wait_for(pilot, lambda: screen.rating is not None and screen.query("#rating-plot"))
        await app.workers.wait_for_complete()
        await pilot.pause()
        plot = screen.query_one("#rating-plot", LegendPlot)
        rendered = plot.render()
        lines = str(rendered).split("\n")
        names = [name for name, _ in plot.legend]
        assert "You" in names and len(names) >= 2
        head = len(plot.header(plot.size.width))
        assert head >= 2 and all(name in "\n".join(lines[:head]) for name in names)
        for line in lines[head:]:  # the plot itself: axes, ticks and lines, no name on them
            assert not any(name in line for name in names), line
        ticks = [line for line in lines[head:] if re.match(r"\s*\d+┤", line)]
        assert ticks, lines


def test_reference_lines_closer_than_a_row_are_one_line() -> None:
    anchors = [("greedy", 1000.0), ("king-aware", 1005.6), ("lookahead", 1045.3), ("expert", 1048.2)]
    # 10 rows over 600 points: a row is 60 points, so the four share one line.
    assert [k for k, _ in reference_lines(anchors, 600.0, 1200.0, rows=10)] == ["Greedy/King-aware/Lookahead/Expert"]
    # 40 rows: 15 points a row, two lines.
    assert [k for k, _ in reference_lines(anchors, 600.0, 1200.0, rows=40)] == ["Greedy/King-aware", "Lookahead/Expert"]
