"""Helpers for the game's Pilot tests."""

from __future__ import annotations

import html
import io
import re
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text
from textual.app import App, ComposeResult
from textual.content import Content
from textual.pilot import Pilot
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Button, Input, OptionList, Static
from textual.worker import WorkerState

from ai.advice.hint import Advice, HintAI
from kc_tui.cli import build_parser
from kc_tui.config import HUMAN, Config, Opponent
from kc_tui.config.store import save_config
from kc_tui.engine import END, Rules, is_play, play_card, position_dict, source, target
from kc_tui.match.session import MatchSession
from kc_tui.ui.app import KingsCornersApp, StartOptions
from kc_tui.ui.cards import screen_face
from kc_tui.ui.dialogs.summary import RoundSummary
from kc_tui.ui.dialogs.whose_view import WhoseView
from kc_tui.ui.launch import build_app
from kc_tui.ui.remote.screen import RemoteScreen
from kc_tui.ui.screens.demo import DemoScreen
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.screens.replay import ReplayScreen, open_replay
from kc_tui.ui.screens.settings import SettingsScreen
from kc_tui.ui.widgets import HandView
from tests.waiting import POLL, WAIT, wait_until

SEED = 3
#: With SEED, a match of the beginner (play_until) and make_config's two AIs ends in its second
#: round: a round summary, then the match summary.
TWO_ROUNDS = Rules(target=5)
#: With SEED, that match ends in its first round, after 8 moves (hands of 4 cards).
ONE_ROUND = Rules(target=5, hand_size=4)


async def click_button(pilot: Pilot[Any], selector: str) -> None:
    """Click the button ``selector`` as a person does: once it has come back up from the last
    click. Textual's :class:`~textual.widgets.Button` ignores a click while it shows the "pressed"
    effect (its ``-active`` class, 0.2 s), so clicks in quick succession on one button would
    otherwise count once or more depending on how fast the machine is."""
    from .conftest import wait_for

    button = pilot.app.screen.query_one(selector, Button)
    await wait_for(pilot, lambda: not button.has_class("-active"), what=f"{selector} back up")
    await pilot.click(selector)


@pytest.fixture
def advised(monkeypatch: pytest.MonkeyPatch) -> list[Advice]:
    """Every advice the hint gives during the test, in order (``HintAI.advice`` recorded). A
    fixture of every UI test (``tests/ui/conftest.py`` takes it in)."""
    told: list[Advice] = []
    advice = HintAI.advice

    def recorded(self: HintAI, *args: Any, **kwargs: Any) -> Advice:
        given = advice(self, *args, **kwargs)
        told.append(given)
        return given

    monkeypatch.setattr(HintAI, "advice", recorded)
    return told


def new_app(*argv: str) -> Any:
    """The app as the command line ``kings-corners ARGV`` builds it."""
    args = build_parser().parse_args(list(argv))
    return build_app(args.command or "menu", args)


@asynccontextmanager
async def joined(
    address: str, config: Config | None = None, size: tuple[int, int] = (80, 24), *, first_state: bool = True
) -> AsyncIterator[tuple[KingsCornersApp, Pilot[Any], RemoteScreen]]:
    """``kings-corners join ADDRESS`` (a seat's or the spectators' address) run headless at
    ``size``: the app, its pilot and the table's screen, once that screen has the table's first
    state (with ``first_state``; else at once)."""
    from .conftest import wait_for

    app = KingsCornersApp(config or make_config(), None, "join", StartOptions(join=address))
    async with app.run_test(size=size) as pilot:
        screen = app.screen
        assert isinstance(screen, RemoteScreen), f"the screen is {screen!r}"
        if first_state:
            await wait_for(pilot, lambda: screen.state is not None, what="the table's first state")
        yield app, pilot, screen


def menu_app() -> KingsCornersApp:
    """The app at its menu, with :func:`make_config`'s opponents."""
    return KingsCornersApp(make_config(), None, "menu")


async def set_input(pilot: Pilot[Any], screen: Screen[Any], wid: str, text: str) -> None:
    """Type ``text`` into the input ``#wid`` of ``screen`` in place of what it holds."""
    inp = screen.query_one(f"#{wid}", Input)
    inp.focus()
    await pilot.press("ctrl+a", "ctrl+k", *list(text))


class DemoHost(App[None]):
    """An app that shows ``screen`` (a demo) over a bare screen."""

    TITLE = "Host"  # the title in the snapshots

    def __init__(self, screen: DemoScreen) -> None:
        super().__init__()
        self.demo = screen

    def compose(self) -> ComposeResult:
        yield Static("menu")

    def on_mount(self) -> None:
        self.push_screen(self.demo)


async def click_card(pilot: Pilot[Any], index: int, offset: tuple[int, int] = (1, 1)) -> None:
    """Click card ``index`` of the hand row of the screen shown, ``offset`` into the card."""
    hand = pilot.app.screen.query_one(HandView)
    card = hand.shown()[index]
    await pilot.click("#hand-row", offset=(card.region.x - hand.row.region.x + offset[0], offset[1]))


def make_config(**changes: Any) -> Config:
    cfg = Config(opponents=(Opponent("Greedy", "greedy"), Opponent("Kingsley", "king-aware")), pace="instant")
    return cfg.with_(**changes) if changes else cfg


def play_app(seed: int = SEED, config: Config | None = None, mode: str = "play") -> KingsCornersApp:
    return KingsCornersApp(config or make_config(), None, mode, StartOptions(seed=seed))


def game_of(app: KingsCornersApp) -> GameScreen:
    game = app.game
    assert game is not None, f"no game screen; the screen is {app.screen!r}"
    return game


def _idle(app: KingsCornersApp, game: GameScreen) -> bool:
    """The game is the top screen, no AI is to move or thinking, and no worker (an AI's, a hint's)
    is running or waiting to run."""
    working = (WorkerState.PENDING, WorkerState.RUNNING)
    return app.screen is game and not game.busy and not any(w.state in working for w in app.workers)


def _dialog_over(app: KingsCornersApp, game: GameScreen) -> bool:
    stack = app.screen_stack
    return isinstance(app.screen, ModalScreen) and stack.index(app.screen) > stack.index(game)


async def settle(pilot: Pilot[Any], timeout: float = WAIT) -> GameScreen:
    """Wait until the game is up and it is for the human to act: the game is the top screen and
    idle (also after the messages of its finished workers are handled), or a dialog (a summary, a
    menu) is on top of it."""
    from .conftest import showing

    app = pilot.app
    assert isinstance(app, KingsCornersApp)

    async def settled() -> GameScreen | None:
        game = app.game
        if game is None or game not in app.screen_stack:
            return None
        if _dialog_over(app, game):
            return game
        if _idle(app, game):
            await pilot.pause()
            if _idle(app, game):
                return game
        return None

    await pilot.pause(POLL)
    return await wait_until(
        settled, timeout=timeout, what="the game settled", showing=lambda: showing(pilot), pause=pilot.pause
    )


@asynccontextmanager
async def settled_game(
    app: KingsCornersApp, size: tuple[int, int] = (120, 40)
) -> AsyncIterator[tuple[Pilot[Any], GameScreen]]:
    """``app`` run headless at ``size`` until its game has settled (:func:`settle`): the pilot
    and the game."""
    async with app.run_test(size=size) as pilot:
        yield pilot, await settle(pilot)


async def opened(pilot: Pilot[Any], match_id: int, number: int) -> ReplayScreen:
    """The replay of round ``number`` of the recorded match ``match_id``, opened."""
    app = pilot.app
    await pilot.pause()
    open_replay(app, match_id, number)
    await pilot.pause()
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ReplayScreen), f"the screen is {screen!r}"
    return screen


async def open_settings(pilot: Pilot[Any]) -> SettingsScreen:
    """Settings opened from the menu (``s``): the screen, once it is up."""
    from .conftest import wait_for

    app = pilot.app
    await pilot.press("s")
    await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen))
    screen = app.screen
    assert isinstance(screen, SettingsScreen)
    return screen


async def new_game(pilot: Pilot[Any]) -> GameScreen:
    """New game from the menu (``n``) with the choices its set-up offers (Ctrl+S starts): the
    match, settled."""
    from kc_tui.ui.dialogs.new_game import NewGameDialog

    from .conftest import wait_for

    app = pilot.app
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, NewGameDialog), what="the set-up on New game")
    assert isinstance(app.screen, NewGameDialog), f"no set-up on New game; the screen is {app.screen!r}"
    await pilot.press("ctrl+s")
    return await settle(pilot)


async def new_match_from_the_table(pilot: Pilot[Any]) -> GameScreen:
    """New game from a match in play (the ``new_game`` action): Resume? answered New, the
    set-up started with Ctrl+S; the new match, settled."""
    from kc_tui.ui.dialogs.confirm import ResumeDialog
    from kc_tui.ui.dialogs.new_game import NewGameDialog

    from .conftest import wait_for

    app = pilot.app
    await app.run_action("new_game")
    await wait_for(pilot, lambda: isinstance(app.screen, ResumeDialog))
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, NewGameDialog))
    await pilot.press("ctrl+s")
    return await settle(pilot)


def position(session: MatchSession) -> dict[str, Any]:
    return position_dict(session.match.round, session.names)


def screen_text(app: App[Any]) -> str:
    """Everything on screen as plain text (from the SVG screenshot)."""
    svg = app.export_screenshot()
    text = re.sub(r"<[^>]+>", "", svg)
    return html.unescape(text).replace("\xa0", " ")


def highlighted_command(app: App[Any]) -> str:
    """The text of the command the command palette has highlighted ("" while it has none)."""
    from textual.command import CommandList

    lists = app.screen.query(CommandList)
    if not lists:
        return ""
    hit = lists.first()
    if hit.highlighted is None:
        return ""
    return str(hit.get_option_at_index(hit.highlighted).prompt)


async def play_until(pilot: Any, dialog: type, limit: int = 600) -> Any:
    """Play the human's turns like a beginner (the first legal move, else end the turn)
    through the screen's key actions, until ``dialog`` shows."""
    app = pilot.app
    for _ in range(limit):
        game = await settle(pilot)
        if isinstance(app.screen, dialog):
            await pilot.pause()
            await pilot.pause()
            return app.screen
        if isinstance(app.screen, RoundSummary):
            await pilot.pause()
            app.screen.action_close()
            continue
        first_move(game)
    raise AssertionError(f"never reached {dialog.__name__}")


#: The people of :func:`hot_seat_app`'s table, in seat order, and its AI (the third seat).
HOT_SEAT_PEOPLE = ("Ana", "Ben")


def hot_seat_app(seed: int = SEED, rules: Rules | None = None) -> KingsCornersApp:
    """A match of Ana and Ben at one keyboard with the greedy Cy, started at once (and recorded
    in the history, as any match is)."""
    people = Opponent(HOT_SEAT_PEOPLE[1], HUMAN)
    config = make_config(player_name=HOT_SEAT_PEOPLE[0], opponents=(people, Opponent("Cy", "greedy")))
    return play_app(seed, config.with_(rules=rules) if rules is not None else config)


async def play_hot_seat_until(
    pilot: Pilot[Any], dialog: type, limit: int = 600, *, hints: Mapping[str, int] | None = None
) -> Any:
    """Play a table of several people like a beginner (:func:`first_move`), each handoff
    confirmed at once (Enter) and each round summary before ``dialog`` closed, until ``dialog``
    shows: the dialog. ``hints``: how many hints each person (by name) asks for (``h``, each
    shown, then cleared with Esc) on their turns before moving."""
    from kc_tui.ui.screens.handoff import HandoffScreen

    from .conftest import wait_for

    app = pilot.app
    assert isinstance(app, KingsCornersApp)

    def ready() -> bool:
        screen, game = app.screen, app.game
        if isinstance(screen, HandoffScreen | ModalScreen):
            return True
        return screen is game and game is not None and game.seating.may_act() and not game.thinking

    asked: dict[str, int] = {}
    for _ in range(limit):
        await wait_for(pilot, ready)
        await pilot.pause()
        screen = app.screen
        if isinstance(screen, dialog):
            await pilot.pause()
            return screen
        if isinstance(screen, HandoffScreen):
            await pilot.press("enter")
            await until_gone(pilot, screen)
        elif isinstance(screen, RoundSummary):
            screen.action_close()
            await until_gone(pilot, screen)
        else:
            table = game_of(app)
            name = table.session.names[table.session.to_move]
            if asked.get(name, 0) < (hints or {}).get(name, 0):
                asked[name] = asked.get(name, 0) + 1
                await ask_hint(pilot, table)
            else:
                first_move(table)
    raise AssertionError(f"never reached {dialog.__name__}")


async def ask_hint(pilot: Pilot[Any], game: GameScreen) -> None:
    """Ask for a hint (``h``), wait for it to show, then clear it (Esc)."""
    from .conftest import wait_for

    await pilot.press("h")
    await wait_for(pilot, lambda: game.hint_move is not None or pilot.app.screen is not game)
    await pilot.press("escape")
    await wait_for(pilot, lambda: game.hint_move is None or pilot.app.screen is not game)


def view_choices(screen: WhoseView) -> list[str]:
    """The views the question whose view offers, in its order."""
    views = screen.query_one(OptionList)
    return [str(views.get_option_at_index(i).prompt) for i in range(views.option_count)]


async def choose_view(pilot: Pilot[Any], label: str) -> None:
    """The view ``label`` chosen on the question whose view on top (as the keys choose it: to it,
    then Enter), once the question has gone."""
    from .conftest import wait_for

    screen = pilot.app.screen
    assert isinstance(screen, WhoseView), f"the screen is {screen!r}"
    await wait_for(pilot, lambda: bool(screen.query(OptionList)), what="the views to choose from")
    screen.query_one(OptionList).highlighted = view_choices(screen).index(label)
    await pilot.press("enter")
    await until_gone(pilot, screen)


async def until_gone(pilot: Pilot[Any], screen: Screen[Any]) -> None:
    """Until ``screen`` is not the one on top."""
    from .conftest import wait_for

    await wait_for(pilot, lambda: pilot.app.screen is not screen, what=f"{screen!r} to go")


def widget_text(widget: Widget, width: int = 60) -> str:
    """What ``widget`` renders, as plain text (at ``width`` columns at least)."""
    r = widget.content if isinstance(widget, Static) else widget.render()
    if isinstance(r, str):
        return r
    if isinstance(r, Text | Content):
        return r.plain
    console = Console(width=max(widget.size.width, width), file=io.StringIO(), record=True, color_system=None)
    console.print(r)
    return console.export_text()


def rendered_text(screen: Screen[Any]) -> dict[str, str]:
    """Everything every widget of ``screen`` renders, shown or not, by widget: what it renders
    (:func:`widget_text`), the rows it draws at its size (a log's every row, scrolled away or not),
    its border's titles and its tooltip."""
    from textual.geometry import Region
    from textual.scroll_view import ScrollView

    out: dict[str, str] = {}
    for w in screen.query("*"):
        parts = [widget_text(w), str(w.border_title or ""), str(w.border_subtitle or ""), str(w.tooltip or "")]
        lines = getattr(w, "lines", None)
        if isinstance(w, ScrollView) and isinstance(lines, list):
            parts += [strip.text for strip in lines]
        elif w.size.area:
            parts += [strip.text for strip in w.render_lines(Region(0, 0, *w.size))]
        out[repr(w)] = "\n".join(parts)
    return out


async def past_the_first_round(pilot: Pilot[Any]) -> GameScreen:
    """The first round played as :func:`play_until` plays and its summary closed; the game, settled."""
    summary = await play_until(pilot, RoundSummary)
    summary.action_close()
    return await settle(pilot)


def first_move(game: GameScreen) -> None:
    """The human's first legal move through the screen's key actions (a card or a pile; else
    the end of the turn), as a beginner plays."""
    plays = [m for m in game.session.match.round.legal_moves() if m != END]
    if not plays:
        game.action_end_turn()
    elif is_play(plays[0]):
        game._select_card(play_card(plays[0]))
        game.action_pile(target(plays[0]))
    else:
        game.action_pile(source(plays[0]))
        game.action_pile(target(plays[0]))


#: A mid-round table with long piles (11 and 10 cards), kings in three corners and a large hand
#: for the human: the places, bottom card first (N E S W NE SE SW NW).
LONG_PILES: tuple[tuple[str, ...], ...] = (
    ("KS", "QH", "JS", "TH", "9S", "8H", "7S", "6H", "5S", "4H", "3S"),
    ("JC", "TD", "9C", "8D", "7C", "6D", "5C", "4D", "3C", "2D"),
    (),
    (),
    ("KH", "QC"),
    ("KD",),
    (),
    ("KC",),
)
#: Cards in the opponents' hands, by how many opponents there are.
LONG_OPPONENTS = {1: (5,), 2: (1, 5), 3: (1, 4, 5)}
LONG_HAND = 15


def stage_long_piles(session: MatchSession) -> None:
    """Rearrange the round being played into :data:`LONG_PILES`: the human (seat 0, to move)
    holds :data:`LONG_HAND` cards, the opponents :data:`LONG_OPPONENTS`, the rest is the stock.
    Every card is still in play exactly once."""
    from kc_tui.engine import mask_of, parse_card

    r = session.match.round
    assert r.to_move == 0, "stage the table on the human's turn"
    piles = [tuple(parse_card(c) for c in p) for p in LONG_PILES]
    on_table = {c for p in piles for c in p}
    rest = [c for c in range(52) if c not in on_table]
    sizes = (LONG_HAND, *LONG_OPPONENTS[r.n - 1])
    hands: list[int] = []
    for size in sizes:
        hands.append(mask_of(rest[:size]))
        rest = rest[size:]
    r.piles = piles
    r.hands = hands
    r.stock = rest
    r.last_drawn = [-1] * r.n


class SettingsHost(App[None]):
    """A bare app that opens the settings screen and records what it dismisses with."""

    def __init__(self, config: Config, path: Path | None = None) -> None:
        super().__init__()
        self.config = config
        self.path = path
        self.results: list[Config | None] = []

    def compose(self) -> ComposeResult:
        yield Static("host")

    def on_mount(self) -> None:
        self.push_screen(SettingsScreen(self.config, self.path), self.results.append)


def saved_settings_host() -> tuple[Config, SettingsHost]:
    """Settings of a player named Kim, saved, and a host of the settings screen over them."""
    config = Config(player_name="Kim")
    save_config(config)
    return config, SettingsHost(config)


async def type_into(pilot: Any, app: App[Any], wid: str, text: str) -> None:
    """Type ``text`` into the field ``#wid`` of the screen on top, in place of its value."""
    inp = app.screen.query_one(f"#{wid}", Input)
    inp.focus()
    await pilot.pause()
    inp.value = ""
    await pilot.press(*list(text))
    await pilot.pause()


#: Three opponents of three kinds, for tables of one to three opponents.
OPPONENTS = (Opponent("Greedy", "greedy"), Opponent("Kingsley", "king-aware"), Opponent("Lookout", "lookahead"))


def table_app(n: int, scoring: str) -> KingsCornersApp:
    """A game against the first ``n`` of :data:`OPPONENTS`, scored by ``scoring``."""
    rules = Rules(scoring=scoring)
    return play_app(config=make_config(opponents=OPPONENTS[:n], rules=rules))


async def stage(pilot: Pilot[Any]) -> GameScreen:
    """The settled game with long piles and hands (:func:`stage_long_piles`), drawn."""
    game = await settle(pilot)
    stage_long_piles(game.session)
    game.number_afresh()  # a hand dealt anew, numbered in its order
    game.refresh_view()
    await pilot.pause()
    await pilot.pause()
    return game


def whole_card(game: GameScreen, card: int) -> str:
    """A card drawn whole (a top card) at the terminal's size of card: ``│3♠ │`` or ``│3♠   │``."""
    return f"│{game.look.label(card).ljust(screen_face(game).inner)}│"


def demo_started(demo: DemoScreen) -> bool:
    """Whether the demo's match has made a move (in a round played or in the one being played)."""
    match = demo.session.match
    return bool(match.results) or bool(match.round.history)


async def demo_under_way(pilot: Pilot[Any]) -> DemoScreen:
    """The demo shown, once its match has made a move."""
    from .conftest import wait_for

    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, DemoScreen) and demo_started(app.screen))
    demo = app.screen
    assert isinstance(demo, DemoScreen)
    return demo


async def watch_a_demo(pilot: Pilot[Any]) -> DemoScreen:
    """A demo started from the menu as a person does (``d``, Tab four times to Start, Enter):
    the demo, once its match has made a move."""
    from kc_tui.ui.dialogs.demo_setup import DemoSetupDialog

    from .conftest import wait_for

    app = pilot.app
    await pilot.press("d")
    await wait_for(pilot, lambda: isinstance(app.screen, DemoSetupDialog))
    await pilot.press("tab", "tab", "tab", "tab")
    await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "start")
    await pilot.press("enter")
    return await demo_under_way(pilot)
