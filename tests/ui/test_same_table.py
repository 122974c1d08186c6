"""One table, drawn once: the game screen and a remote seat's screen, each at the same position
of the same match (the same seats, rules and seed; the person plays the same moves), show the
same piles and stock, the same hand, the same panels of the other seats, the same label beside
the hand and the same scoreboard, line for line. The remote seat is a real client of a real table
server on loopback."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static

from kc_tui.engine import END, Move, Rules, is_play
from kc_tui.match.session import MatchSession
from kc_tui.match.view import TableSnapshot
from kc_tui.net.server import seat_path
from kc_tui.ui.dialogs.modal import Modal
from kc_tui.ui.remote.view import is_my_turn
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.table.picking import HandPicking
from kc_tui.ui.widgets import HandView, OpponentPanel, PileView, Scoreboard, StockView, TableView
from tests.net.serverkit import running, session_for
from tests.ui.test_remote import join_app, remote

from .conftest import wait_for
from .gamekit import make_config

SIZE = (120, 40)
SEATS = (("Ana", "human"), ("Greedy", "greedy"), ("Kingsley", "king-aware"))
POINTS = Rules(target=100, hand_size=5)
CHIPS = Rules(scoring="chips", hand_size=5)
SEED = 7


class TableHost(App[None]):
    """A bare app that shows the game screen of ``session`` (the local table)."""

    def __init__(self, session: MatchSession) -> None:
        super().__init__()
        self.session = session
        self.game = GameScreen(session, make_config())

    def compose(self) -> ComposeResult:
        yield Static("host")

    def on_mount(self) -> None:
        self.push_screen(self.game)


def padding(line: str) -> bool:
    """A line of a pile's box with nothing in it (a remote seat's table is a line shorter: its
    connection's line takes one)."""
    return not line.strip(" │")


def drawn(screen: HandPicking) -> dict[str, list[str]]:
    """What ``screen``'s table parts show, by part: each pile and the stock (their empty lines
    left out), the hand, the label beside it, each other seat's panel and the scoreboard (each
    cut to its region)."""
    table = screen.query_one(TableView)
    parts: dict[str, Widget] = {
        **{f"pile {pile.place}": pile for pile in table.query(PileView)},
        "stock": table.query_one(StockView),
        "hand": screen.query_one(HandView),
        "me": screen.query_one("#me-label", Static),
        "scoreboard": screen.query_one(Scoreboard),
    }
    parts |= {f"seat {panel.seat}": panel for panel in screen.query(OpponentPanel) if panel.display}
    strips = screen._compositor.render_strips()  # the screen's own, also under a summary

    def lines(widget: Widget) -> list[str]:
        r = widget.region
        return ["".join(seg.text for seg in strip.crop(r.x, r.right)).rstrip() for strip in strips[r.y : r.bottom]]

    shown = {name: lines(widget) for name, widget in parts.items()}
    return {name: [line for line in rows if not padding(line)] for name, rows in shown.items()}


def first_play(view: TableSnapshot) -> Move:
    """The person's move in these matches: the first play (in notation order), else the turn's end."""
    return next((m for m in view.legal if is_play(m)), END)


Step = Callable[[HandPicking], None]


def nothing(_screen: HandPicking) -> None:
    """The position as dealt."""


def pick_a_card(screen: HandPicking) -> None:
    """The first card of the hand picked (its key is 1): its places lit, the card raised."""
    screen.action_pick(0)


async def local_table(session: MatchSession, rounds: int, step: Step, *, summary: bool) -> dict[str, list[str]]:
    """The game screen's parts at the person's turn after ``rounds`` rounds (each played with
    :func:`first_play` and its summary closed), then ``step``; with ``summary``, under the last
    round's summary instead."""
    app = TableHost(session)
    async with app.run_test(size=SIZE) as pilot:
        game = app.game
        await person_plays(pilot, game, lambda: game.view, lambda: session.match.number > rounds, summary=summary)
        if not summary:
            await wait_for(pilot, lambda: app.screen is game and not game.busy and game.seating.may_act())
        step(game)
        await pilot.pause()
        return drawn(game)


async def remote_table(session: MatchSession, rounds: int, step: Step, *, summary: bool) -> dict[str, list[str]]:
    """A remote seat's parts at the same position (its person is seat 0)."""
    async with running(session) as (server, base):
        app = join_app(base + seat_path(server.tokens[0]))
        async with app.run_test(size=SIZE) as pilot:
            screen = remote(app)
            dealt = lambda: session.match.number > rounds  # noqa: E731
            await person_plays(pilot, screen, lambda: screen.latest, dealt, summary=summary)
            await wait_for(pilot, lambda: screen.state is not None and screen.state.stamp == server.stamp)
            step(screen)
            await pilot.pause()
            return drawn(screen)


def moved(app: App[Any], view: Callable[[], TableSnapshot | None], before: TableSnapshot) -> Callable[[], bool]:
    """Whether the table moved on from ``before`` (or a summary shows)."""
    return lambda: view() != before or isinstance(app.screen, Modal)


async def person_plays(
    pilot: Pilot[Any],
    screen: HandPicking,
    view: Callable[[], TableSnapshot | None],
    done: Callable[[], bool],
    *,
    summary: bool,
) -> None:
    """Play the person's turns (:func:`first_play`) and close each round's summary until
    ``done()``, and then until it is the person's turn (with ``summary``: until a round's
    summary shows once ``done()``, left open)."""
    app = pilot.app
    for _ in range(400):
        if isinstance(app.screen, Modal) and summary and done():
            return
        if isinstance(app.screen, Modal):
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.screen is screen)
            continue
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, Modal) or (app.screen is screen and is_my_turn(view())),
            what="the person's turn or a summary",
        )
        if isinstance(app.screen, Modal):
            continue
        if done() and not summary:
            return
        now = view()
        assert now is not None
        before = now
        m = first_play(now)
        if m == END:
            screen.end_turn_now()
        else:
            screen.submit_move(m)
        await wait_for(pilot, moved(app, view, before), what="the move made")
    raise AssertionError("the match never reached the position")


@pytest.mark.parametrize(
    ("rules", "rounds", "step", "summary"),
    [
        pytest.param(POINTS, 0, nothing, False, id="a fresh deal"),
        pytest.param(POINTS, 0, pick_a_card, False, id="a card picked"),
        pytest.param(CHIPS, 0, pick_a_card, False, id="a chips match"),
        pytest.param(POINTS, 0, nothing, True, id="under a round's summary"),
        pytest.param(CHIPS, 0, nothing, True, id="under a chips round's summary"),
        pytest.param(POINTS, 1, nothing, False, id="the next deal"),
    ],
)
async def test_the_game_screen_and_a_remote_seat_draw_the_same_table(
    rules: Rules, rounds: int, step: Step, summary: bool
) -> None:
    local = await local_table(session_for(SEATS, rules=rules, seed=SEED), rounds, step, summary=summary)
    far = await remote_table(session_for(SEATS, rules=rules, seed=SEED), rounds, step, summary=summary)
    assert local.keys() == far.keys()
    for part, lines in local.items():
        assert lines == far[part], (
            f"{part}:\n" + "\n".join(lines) + "\n---- the remote seat's:\n" + "\n".join(far[part])
        )
    if rounds or summary:
        assert any("R1" in line for line in local["scoreboard"]), local["scoreboard"]
