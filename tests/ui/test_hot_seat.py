"""Several people at one keyboard: two humans and an AI play a whole match by keys; a hand is
drawn for the human on turn only, after the handoff screen, and nowhere else in the screen tree."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.content import Content
from textual.pilot import Pilot

from kc_tui.config import HUMAN, Opponent
from kc_tui.engine import END, Match, Move, Rules, cards_of, is_pile_move, is_play, play_card, source, target
from kc_tui.match.roster import Seat
from kc_tui.match.session import MatchSession
from kc_tui.ui.app import KingsCornersApp, StartOptions
from kc_tui.ui.dialogs.summary import MatchSummary, RoundSummary
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.screens.handoff import HandoffScreen, handoff_line
from kc_tui.ui.widgets import HandView, MoveLog, OpponentPanel
from kc_tui.ui.widgets.hand import KEYS
from kc_tui.ui.widgets.pile import PLACE_KEYS

from .conftest import wait_for
from .gamekit import SEED, make_config, screen_text, widget_text

NAMES = ("Ana", "Ben", "Cy")
SIZES = ((80, 24), (120, 40))
#: A deal whose match (to 10 points) lasts two rounds when the humans play as :func:`choose`.
WHOLE_SEED = 4


def hot_session(seed: int = SEED, rules: Rules | None = None) -> MatchSession:
    """Ana and Ben at one keyboard, the greedy Cy in the third seat."""
    match = Match(3, rules or Rules(), seed)
    s = MatchSession(match, [Seat("Ana", HUMAN), Seat("Ben", HUMAN), Seat("Cy", "greedy")])
    s._round_started()
    return s


def humans(s: MatchSession) -> tuple[int, ...]:
    return tuple(i for i, seat in enumerate(s.seats) if seat.is_human)


def hot_app() -> KingsCornersApp:
    return KingsCornersApp(make_config(), None, "menu")


def game_of(app: KingsCornersApp) -> GameScreen:
    game = app.game
    assert game is not None, f"no game screen; the screens: {app.screen_stack}"
    return game


def round_log(s: MatchSession) -> list[str]:
    """The log's lines since the deal, or since a pile last went back into the stock (R12): the
    cards named earlier are dealt, or drawn, again."""
    start = f"Round {s.match.number}: "
    begins = [i for i, line in enumerate(s.log) if line.startswith(start) or "shuffled into the stock" in line]
    return s.log[begins[-1] :] if begins else list(s.log)


def tree_text(app: KingsCornersApp) -> dict[str, str]:
    """Everything every widget of every screen of the stack renders (shown or not; the move log:
    its lines of this round), and the screen on top when it is not the table; by where."""
    game = game_of(app)
    parts = {
        f"{screen!r} {w!r}": widget_text(w)
        for screen in app.screen_stack
        for w in screen.query("*")
        if not isinstance(w, MoveLog)
    }
    parts["the log"] = "\n".join(round_log(game.session))
    if app.screen is not game:
        parts["the screen"] = screen_text(app)
    return parts


def check_private(app: KingsCornersApp) -> None:
    """No hand but the open one (the human on turn's, once they confirmed) is drawn anywhere:
    not in the hand row, not in any widget of any screen, not on the screen."""
    game = game_of(app)
    s = game.session
    open_seat = game.seating.open_seat()
    hand = game.query_one(HandView)
    if open_seat is None:
        assert hand.cards == []
        assert hand.shown() == []
    else:
        assert hand.cards == s.hand(open_seat)
    if isinstance(app.screen, RoundSummary):
        # The summary shows the hands caught in the round that ended, the table behind it that
        # round's piles: the cards of the next deal's hands are the same 52, dealt again.
        assert open_seat is None
        return
    texts = tree_text(app)
    for seat in humans(s):
        if seat == open_seat:
            continue
        labels = [game.look.label(c) for c in s.hand(seat)]
        shown = [(where, label) for where, text in texts.items() for label in labels if label in text]
        assert not shown, f"{s.names[seat]}'s {shown} on {app.screen}; the open hand is {open_seat}"


async def wait_turn(pilot: Pilot[Any]) -> None:
    """Until a person has something to do: a handoff, a summary, or a human's turn with the hand open."""
    app = pilot.app
    assert isinstance(app, KingsCornersApp)

    def ready() -> bool:
        screen = app.screen
        if isinstance(screen, HandoffScreen | RoundSummary | MatchSummary):
            return True
        game = app.game
        return screen is game and game is not None and game.seating.may_act() and not game.thinking

    await wait_for(pilot, ready)
    await pilot.pause()


async def start(pilot: Pilot[Any], session: MatchSession) -> GameScreen:
    app = pilot.app
    assert isinstance(app, KingsCornersApp)
    await pilot.pause()
    game = app.show_game(session)
    await wait_turn(pilot)
    return game


async def confirm(pilot: Pilot[Any]) -> None:
    """The person named on the handoff is at the keyboard: Enter."""
    assert isinstance(pilot.app.screen, HandoffScreen)
    await pilot.press("enter")
    await wait_turn(pilot)


async def to_ana(pilot: Pilot[Any], s: MatchSession) -> GameScreen:
    """The table of ``s`` opened; Ben (first to play) confirms and ends his turn, Cy plays, Ana
    confirms: her turn, her hand open."""
    app = pilot.app
    assert isinstance(app, KingsCornersApp)
    game = await start(pilot, s)
    await confirm(pilot)
    await pilot.press("t")
    await wait_turn(pilot)
    assert isinstance(app.screen, HandoffScreen) and app.screen.player == "Ana"
    check_private(app)
    await confirm(pilot)
    return game


def label_text(game: GameScreen) -> str:
    label = game.query_one("#me-label").render()
    assert isinstance(label, Content | Text)
    return label.plain


async def press_move(pilot: Pilot[Any], game: GameScreen, m: Move) -> None:
    """``m`` by the keys the game uses: the key written on the card (a card with none by the
    click's action)."""
    if m == END:
        await pilot.press("t")
    elif is_play(m):
        row = game.query_one(HandView).row
        key = row.key_of(row.cards.index(play_card(m)))
        if key:
            await pilot.press(key)
        else:
            game._select_card(play_card(m))
        await pilot.press(PLACE_KEYS[target(m)])
    else:
        assert is_pile_move(m)
        await pilot.press(PLACE_KEYS[source(m)], PLACE_KEYS[target(m)])
    await pilot.pause()


def choose(s: MatchSession) -> Move:
    """A card to play when there is one (the highest first: rounds end sooner), else the turn's end."""
    moves = s.view(s.to_move).legal_moves()
    plays = sorted((m for m in moves if is_play(m)), key=lambda m: -play_card(m))
    return plays[0] if plays else END


# ---------------------------------------------------------------------------- a whole match
async def test_a_whole_match_of_two_humans_and_an_ai_keeps_each_hand_private() -> None:
    app = hot_app()
    async with app.run_test(size=(120, 40)) as pilot:
        s = hot_session(WHOLE_SEED, Rules(target=10))  # two rounds, eleven human turns
        game = await start(pilot, s)
        handoffs: list[tuple[int, str]] = []
        rounds = 0
        human_turns = 0
        for _ in range(3000):
            screen = app.screen
            if isinstance(screen, MatchSummary):
                break
            check_private(app)
            if isinstance(screen, HandoffScreen):
                assert game.seating.open_seat() is None
                handoffs.append((s.match.number, screen.player))
                assert screen.player == s.names[s.to_move]
                assert handoff_line(screen.player) in screen_text(app)
                await confirm(pilot)
                assert game.seating.open_seat() == s.to_move or not isinstance(app.screen, GameScreen)
                continue
            if isinstance(screen, RoundSummary):
                rounds += 1
                result = s.match.results[-1]
                body = widget_text(screen.query_one("#body"), 300)
                for seat in range(s.match.n):  # every hand caught, face up
                    assert all(game.look.label(c) in body for c in cards_of(result.hands_left[seat]))
                await pilot.press("enter")
                await wait_turn(pilot)
                continue
            seat = s.to_move
            assert screen is game and s.seats[seat].is_human
            assert label_text(game).startswith(s.names[seat])
            number = s.match.number
            for _ in range(60):  # the turn, move by move
                m = choose(s)
                before = s.stamp
                await press_move(pilot, game, m)
                assert s.stamp != before, f"{m} was not played: {game.query_one('#status').render()}"
                if s.to_move != seat or s.match.round.over or s.match.number != number:
                    break  # the turn or the round is over (at the instant pace, scored at once)
            human_turns += 1
            check_private(app)  # the turn is over: no hand is open until the next person confirms
            await wait_turn(pilot)
        else:
            raise AssertionError("the match did not end")
        title = widget_text(app.screen.query_one("#title"))
        assert "You" not in title and all(s.names[w] in title for w in s.match.winners)
        assert s.match.over and rounds == len(s.match.results) >= 2
        # A handoff at every deal, and between every two turns of different humans.
        assert {n for n, _ in handoffs} == set(range(1, rounds + 1))
        assert human_turns >= len(handoffs) - rounds
        assert {name for _, name in handoffs} == {"Ana", "Ben"}
        # The log on screen names every seat and never says "you".
        shown = game.query_one(MoveLog).shown
        for name in NAMES:
            assert any(line.startswith(f"{name} played") or line.startswith(f"{name} put") for line in shown), name
            assert any(line == f"{name} ended the turn" for line in shown), name
        assert not [line for line in shown if "you" in line.lower().split()], "the log says 'you'"


async def test_the_first_to_play_confirms_before_any_hand_opens() -> None:
    app = hot_app()
    async with app.run_test(size=(120, 40)) as pilot:
        s = hot_session()
        game = await start(pilot, s)
        assert isinstance(app.screen, HandoffScreen) and app.screen.player == "Ben"
        assert game.query_one(HandView).cards == []
        await confirm(pilot)
        assert game.query_one(HandView).cards == s.hand(1) and label_text(game).startswith("Ben")
        assert marked(game) == [c for c in (s.last_drawn(1),) if c is not None]
        game.schedule()  # Ben is at the keyboard: no second handoff
        await wait_turn(pilot)
        assert app.screen_stack[-1] is game and game.seating.open_seat() == 1


async def test_ana_comes_to_the_keyboard_after_ben_and_the_ai() -> None:
    app = hot_app()
    async with app.run_test(size=(120, 40)) as pilot:
        s = hot_session()
        game = await to_ana(pilot, s)
        check_private(app)
        assert game.query_one(HandView).cards == s.hand(0) and label_text(game).startswith("Ana")


def marked(game: GameScreen) -> list[int]:
    """The cards of the hand row marked "new"."""
    return [c.card for c in game.query_one(HandView).shown() if c.new]


async def test_the_drawn_mark_is_only_its_owners() -> None:
    app = hot_app()
    async with app.run_test(size=(120, 40)) as pilot:
        s = hot_session()
        game = await to_ana(pilot, s)
        ben, ana = s.last_drawn(1), s.last_drawn(0)
        assert ben is not None and ana is not None and ben != ana
        assert marked(game) == [ana]


async def test_a_resumed_hot_seat_match_opens_on_the_handoff() -> None:
    """A match of Ana, Ben and Cy saved after Ben's first move, then resumed by a new app (a new
    session of the game): it opens on Ben's handoff with no hand drawn, then on his hand."""
    config = make_config(player_name="Ana", opponents=(Opponent("Ben", HUMAN), Opponent("Cy", "greedy")))
    app = KingsCornersApp(config, None, "play", StartOptions(seed=SEED))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_turn(pilot)
        assert isinstance(app.screen, HandoffScreen) and app.screen.player == "Ben"
        await confirm(pilot)
        game = game_of(app)
        s = game.session
        await press_move(pilot, game, choose(s))
        await wait_for(pilot, lambda: s.saved, what="the save after Ben's move")
        position = (s.to_move, [s.hand(i) for i in range(3)], s.match.round.piles)
    resumed = KingsCornersApp(config, None, "menu")
    async with resumed.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        resumed.action_resume()
        await wait_turn(pilot)
        assert isinstance(resumed.screen, HandoffScreen) and resumed.screen.player == "Ben"
        again = game_of(resumed)
        t = again.session
        assert (t.to_move, [t.hand(i) for i in range(3)], t.match.round.piles) == position
        assert again.query_one(HandView).cards == []
        check_private(resumed)
        await confirm(pilot)
        assert again.query_one(HandView).cards == t.hand(1)
        check_private(resumed)


# ---------------------------------------------------------------------------- hints and undo
async def test_hints_and_undo_act_for_the_seat_on_turn() -> None:
    app = hot_app()
    async with app.run_test(size=(120, 40)) as pilot:
        s = hot_session()
        game = await to_ana(pilot, s)
        assert s.to_move == 0 and not game.check_action("undo", ())
        await pilot.press("h")
        await wait_for(pilot, lambda: game.hint_move is not None)
        assert game.hint_move in s.view(0).legal_moves()
        m = next((m for m in s.view(0).legal_moves() if is_play(m)), None)
        if m is not None:
            before = s.hand(0)
            await press_move(pilot, game, m)
            assert s.hand(0) != before and game.check_action("undo", ())
            await pilot.press("u")
            await pilot.pause()
            assert s.hand(0) == before and game.query_one(HandView).cards == before
        await pilot.press("t")
        await wait_turn(pilot)
        assert isinstance(app.screen, HandoffScreen) and app.screen.player == "Ben"
        await confirm(pilot)
        assert s.to_move == 1 and not game.check_action("undo", ())
        await pilot.press("h")
        await wait_for(pilot, lambda: game.hint_move is not None)
        assert game.hint_move in s.view(1).legal_moves()


async def test_the_handoff_button_confirms_as_enter_does() -> None:
    app = hot_app()
    async with app.run_test(size=(120, 40)) as pilot:
        s = hot_session()
        game = await start(pilot, s)
        await pilot.click("#handoff-ready")
        await wait_turn(pilot)
        assert app.screen is game and game.query_one(HandView).cards == s.hand(1)


async def test_names_on_the_handoff_are_shown_literally() -> None:
    app = hot_app()
    async with app.run_test(size=(120, 40)) as pilot:
        match = Match(3, Rules(), SEED)
        s = MatchSession(match, [Seat("[b]x[/b]", HUMAN), Seat("[/]", HUMAN), Seat("Cy", "greedy")])
        s._round_started()
        await start(pilot, s)
        assert handoff_line("[/]") in screen_text(app)


async def test_the_handoff_to_a_person_named_you_reads_your_turn() -> None:
    app = hot_app()
    async with app.run_test(size=(120, 40)) as pilot:
        match = Match(3, Rules(), SEED)
        s = MatchSession(match, [Seat("Ana", HUMAN), Seat("You", HUMAN), Seat("Cy", "greedy")])
        s._round_started()
        await start(pilot, s)
        assert isinstance(app.screen, HandoffScreen) and app.screen.player == "You"
        text = " ".join(screen_text(app).split())
        assert "Your turn: press Enter when you are at the keyboard" in text
        assert "your hand opens on the table next" in text and "You are here" in text
        assert "You's" not in text and "You is" not in text


async def test_one_human_sees_no_handoff() -> None:
    app = hot_app()
    async with app.run_test(size=(120, 40)) as pilot:
        match = Match(3, Rules(), SEED)
        s = MatchSession(match, [Seat("Ana", HUMAN), Seat("Bo", "greedy"), Seat("Cy", "greedy")])
        s._round_started()
        game = await start(pilot, s)
        assert app.screen is game and game.query_one(HandView).cards == s.hand(0)
        assert [p.seat for p in game.query(OpponentPanel)] == [1, 2]


# ---------------------------------------------------------------------------- snapshots
def _handoff(size: tuple[int, int]) -> Any:
    async def run_before(pilot: Pilot[Any]) -> None:
        await start(pilot, hot_session())
        assert isinstance(pilot.app.screen, HandoffScreen)

    return run_before


async def _table(pilot: Pilot[Any]) -> None:
    s = hot_session()
    game = await to_ana(pilot, s)
    m = next((m for m in s.view(0).legal_moves() if is_play(m)), None)
    if m is not None:
        await pilot.press(KEYS[s.hand(0).index(play_card(m))])
        await pilot.pause()
    assert app_screen_is(pilot, game)


def app_screen_is(pilot: Pilot[Any], screen: Any) -> bool:
    return pilot.app.screen is screen


def test_snapshot_handoff_80x24(snap_compare: Any) -> None:
    assert snap_compare(hot_app(), terminal_size=SIZES[0], run_before=_handoff(SIZES[0]))


def test_snapshot_handoff_120x40(snap_compare: Any) -> None:
    assert snap_compare(hot_app(), terminal_size=SIZES[1], run_before=_handoff(SIZES[1]))


def test_snapshot_hot_seat_table_80x24(snap_compare: Any) -> None:
    assert snap_compare(hot_app(), terminal_size=SIZES[0], run_before=_table)


def test_snapshot_hot_seat_table_120x40(snap_compare: Any) -> None:
    assert snap_compare(hot_app(), terminal_size=SIZES[1], run_before=_table)
