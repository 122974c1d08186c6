"""``join`` in ``App.run_test()`` against a real table server on loopback, in the same loop: the
table shown, a card played by keys, the other seat's move seen, the waiting line, reconnecting…
while the connection is down, names with markup shown literally, and no hidden card anywhere on
the screen."""

from __future__ import annotations

import html
import json
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from kc_tui.engine import Card, Rules, cards_of, parse_move, play_card, sort_for_hand, source, target
from kc_tui.match.recorder import match_record
from kc_tui.match.replay import RoundReplay
from kc_tui.match.session import MatchSession, match_end_text
from kc_tui.net import schema as p
from kc_tui.net.replays import RemoteRoundReplay
from kc_tui.net.server import WATCH_PATH, TableServer, seat_path
from kc_tui.screenshots import take
from kc_tui.ui.app import KingsCornersApp, StartOptions
from kc_tui.ui.dialogs.help import HelpDialog
from kc_tui.ui.dialogs.summary import MatchSummary, RoundSummary
from kc_tui.ui.remote.dialogs import JoinDialog
from kc_tui.ui.remote.screen import RemoteScreen, WatchScreen
from kc_tui.ui.remote.view import card_targets, is_my_turn
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.screens.replay import ReplayScreen
from kc_tui.ui.widgets import HandView, MoveLog, OpponentPanel
from kc_tui.ui.widgets.hand import KEYS
from kc_tui.ui.widgets.pile import PLACE_KEYS
from tests.match.kit import cards_in_text
from tests.net.clientkit import relayed
from tests.net.serverkit import TWO_ROUNDS, Client, seat, seated, session_for

from .conftest import wait_for
from .gamekit import joined, make_config, screen_text, widget_text

#: Ben's name is markup: it must be shown as typed, never styled or run.
BEN = "[b]Ben[/b] [@click=app.quit]x[/]"
SEATS = (("Ana", "human"), (BEN, "human"))
SIZE = (80, 24)


def join_app(url: str) -> KingsCornersApp:
    return KingsCornersApp(make_config(), None, "join", StartOptions(join=url))


def remote(app: KingsCornersApp) -> RemoteScreen:
    screen = app.screen
    assert isinstance(screen, RemoteScreen), f"the screen is {screen!r}"
    return screen


def table_under(app: KingsCornersApp) -> RemoteScreen:
    """The remote seat's screen under the dialogs and screens shown over it."""
    return next(screen for screen in app.screen_stack if isinstance(screen, RemoteScreen))


def link_text(screen: RemoteScreen) -> str:
    return str(screen.query_one("#link", Static).render())


@asynccontextmanager
async def table(session: MatchSession | None = None, **options: Any) -> AsyncIterator[tuple[TableServer, str, Client]]:
    """A server of Ana and Ben (Ben's seat taken by a test client), and its base URL; ``session``
    (a match of :data:`SEATS` to two rounds unless given) and ``options`` as :func:`seated` takes
    them."""
    session = session or session_for(SEATS, rules=TWO_ROUNDS)
    async with seated(BEN, session=session, **options) as (server, base, (ben,)):
        yield server, base, ben


def hidden_cards(server: TableServer, viewer: int | None) -> set[Card]:
    """The cards ``viewer`` may not see: every other hand, and the stock (less any card that was
    face up once: on a pile, or named in the log as played)."""
    s = server.session
    r = s.match.round
    played = [line for line in s.log if " played " in line or " put " in line]
    seen: set[Card] = {c for pile in r.piles for c in pile} | cards_in_text("\n".join(played))
    if viewer is not None:
        seen |= set(s.hand(viewer))
    everything = {c for seat in range(s.match.n) for c in s.hand(seat)} | set(r.stock)
    return everything - seen


def assert_nothing_hidden(app: KingsCornersApp, screen: RemoteScreen, server: TableServer, viewer: int | None) -> None:
    text = screen_text(app)
    for card in hidden_cards(server, viewer):
        assert screen.look.label(card) not in text, f"{screen.look.label(card)} is on the screen"
    for panel in screen.query(OpponentPanel):
        assert panel.hand == [] and not panel.reveal


async def ben_moves(ben: Client) -> str:
    """Ben's first play (else the end of his turn), sent; the move."""
    state = ben.state
    plays = [m for m in state.legal if m.startswith("play")]
    chosen = plays[0] if plays else "end"
    await ben.move(chosen, state.stamp)
    return chosen


def moved_on(server: TableServer, stamp: int, or_: Callable[[], bool] = lambda: False) -> Callable[[], bool]:
    """Whether the table's stamp is past ``stamp`` (or ``or_()`` holds)."""
    return lambda: server.stamp > stamp or or_()


async def ana_on_turn(pilot: Pilot[Any], screen: RemoteScreen, server: TableServer, ben: Client) -> None:
    """Play Ben's turns from the test client until the table waits for Ana (whose screen shows it)."""
    for _ in range(40):
        await wait_for(pilot, lambda: screen.state is not None and screen.state.stamp == server.stamp)
        if is_my_turn(screen.latest):
            return
        await wait_for(pilot, lambda: bool(ben.state.legal) and ben.state.stamp == server.stamp)
        await ben_moves(ben)
        await wait_for(pilot, moved_on(server, server.stamp))
    raise AssertionError("the table never waited for Ana")


async def test_join_shows_the_table_and_plays_a_card_by_keys() -> None:
    async with table() as (server, base, ben), joined(base + seat_path(server.tokens[0])) as (app, pilot, screen):
        await ana_on_turn(pilot, screen, server, ben)
        assert_nothing_hidden(app, screen, server, 0)
        assert "The table waits for you" in link_text(screen)
        state = screen.state
        assert state is not None and state.hand is not None
        assert screen.query_one(HandView).cards == list(state.hand)
        move = next((parse_move(m) for m in state.legal if m.startswith("play")), None)
        if move is None:  # nothing to play: the turn is ended by its key
            await pilot.press("t")
            await wait_for(pilot, lambda: not is_my_turn(screen.latest))
            return
        card, place = play_card(move), target(move)
        await pilot.press(KEYS[list(state.hand).index(card)])
        assert screen.selected_card == card and place in screen._targets()
        await pilot.press(PLACE_KEYS[place])
        await wait_for(pilot, lambda: screen.state is not None and screen.state.stamp > state.stamp)
        assert server.session.match.round.piles[place][-1] == card
        assert screen.state is not None and card not in (screen.state.hand or ())
        assert screen.look.label(card) in str(screen.query_one(MoveLog).shown[-1])
        assert_nothing_hidden(app, screen, server, 0)


async def test_the_other_seats_move_and_the_waiting_line_are_seen_and_names_stay_literal() -> None:
    async with table() as (server, base, ben), joined(base + seat_path(server.tokens[0])) as (app, pilot, screen):
        await ana_on_turn(pilot, screen, server, ben)
        await pilot.press("t")  # Ana ends her turn: the table waits for Ben
        await wait_for(pilot, lambda: screen.state is not None and screen.state.waiting_for == BEN)
        await pilot.pause()
        line = link_text(screen)
        assert f"Waiting for {BEN}" in line and "connected: Ana, " + BEN in line
        text = screen_text(app)
        assert BEN in text, "a name with markup is shown as typed"
        assert_nothing_hidden(app, screen, server, 0)
        await wait_for(pilot, lambda: bool(ben.state.legal))
        log_before = len(server.session.log)
        await ben_moves(ben)
        await wait_for(pilot, lambda: len(server.session.log) > log_before)
        await wait_for(pilot, lambda: screen.query_one(MoveLog).shown[-1] == server.session.log[-1])
        assert screen.query_one(MoveLog).shown[-1].startswith(BEN)
        assert app.is_running, "no markup in a name ran an action"


async def test_reconnecting_is_shown_while_the_connection_is_down() -> None:
    async with (
        table() as (server, base, _ben),
        relayed(base) as (relay, front),
        joined(front + seat_path(server.tokens[0])) as (app, pilot, screen),
    ):
        await wait_for(pilot, lambda: screen.seat.connected and screen.state is not None)
        assert "reconnecting" not in link_text(screen)
        relay.refusing = True
        await relay.drop()
        await wait_for(pilot, lambda: "reconnecting…" in link_text(screen))
        assert "waits for" not in link_text(screen) and "connected:" not in link_text(screen), "stale while down"
        await wait_for(pilot, lambda: not server.connected[0])
        assert "connection is down" in str(screen.query_one("#status", Static).render())
        await pilot.press("question_mark")  # the screen still answers keys
        await wait_for(pilot, lambda: app.screen is not screen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        relay.refusing = False
        await wait_for(pilot, lambda: screen.seat.connected, timeout=15)
        await wait_for(pilot, lambda: "reconnecting" not in link_text(screen))
        assert server.connected[0] and screen.seat.connections >= 2


async def test_a_spectator_sees_every_seat_and_no_hand() -> None:
    async with table() as (server, base, _ben), joined(base + WATCH_PATH) as (app, pilot, screen):
        assert isinstance(screen, WatchScreen)
        await wait_for(pilot, lambda: screen.state is not None and len(screen.query(OpponentPanel)) == 2)
        await pilot.pause()
        assert not screen.query_one("#me").display
        assert "Watching" in link_text(screen)
        keys = {binding.key for _, binding, _, _ in screen.active_bindings.values()}
        assert "w" not in keys and "t" not in keys and {"q", "escape", "m"} <= keys
        assert_nothing_hidden(app, screen, server, None)
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))


async def test_the_menu_joins_a_table_by_its_address_and_m_leaves_it() -> None:
    async with table() as (server, base, _ben):
        app = KingsCornersApp(make_config(), None, "menu", StartOptions())
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("j")
            await wait_for(pilot, lambda: isinstance(app.screen, JoinDialog))
            await pilot.press(*"ws://nowhere", "enter")
            assert isinstance(app.screen, JoinDialog), "a bad address keeps the dialog up"
            assert "names no seat" in str(app.screen.query_one("#problem", Static).render())
            address = app.screen.query_one("#address")
            address.value = f"Ana: kings-corners join {base}{seat_path(server.tokens[0])}"  # type: ignore[attr-defined]
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, RemoteScreen))
            screen = remote(app)
            await wait_for(pilot, lambda: screen.seat.connected and server.connected[0])
            await pilot.press("m")
            await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
            await wait_for(pilot, lambda: not server.connected[0])
            assert screen.seat.ended


async def ana_presses(pilot: Pilot[Any], screen: RemoteScreen, chosen: str) -> None:
    """Ana's move ``chosen`` ("play 7H N", "move N E", "end") made by its keys."""
    state = screen.state
    assert state is not None
    m = parse_move(chosen)
    if chosen == "end":
        await pilot.press("t")
    elif chosen.startswith("play"):
        await pilot.press(KEYS[list(state.hand or ()).index(play_card(m))], PLACE_KEYS[target(m)])
    else:
        await pilot.press(PLACE_KEYS[source(m)], PLACE_KEYS[target(m)])


async def test_a_refused_move_hint_and_undo_by_keys() -> None:
    async with table() as (server, base, ben), joined(base + seat_path(server.tokens[0])) as (_, pilot, screen):
        await ana_on_turn(pilot, screen, server, ben)
        state = screen.state
        assert state is not None and state.hand
        card = state.hand[0]
        wrong = next(place for place in range(8) if place not in card_targets(screen.moves, card))
        before = list(server.session.log)
        await pilot.press(KEYS[0], PLACE_KEYS[wrong])
        await wait_for(pilot, lambda: "✗" in status_text(screen))
        assert list(server.session.log) == before and "\n" not in status_text(screen).strip()
        await pilot.press("escape", "h")
        await wait_for(pilot, lambda: status_text(screen).startswith("Hint"))
        assert screen.hint_move is not None
        plays = [m for m in screen.state.legal if m.startswith(("play", "move"))] if screen.state else []
        if not plays:
            return
        stamp = server.stamp
        await pilot.press("escape")  # the hint picked its card: start afresh
        await ana_presses(pilot, screen, plays[0])
        await wait_for(pilot, moved_on(server, stamp))
        await wait_for(pilot, lambda: screen.state is not None and screen.state.can_undo)
        assert screen.state is not None
        played = list(screen.state.hand or ())
        await pilot.press("u")
        await wait_for(pilot, lambda: screen.state is not None and not screen.state.can_undo)
        assert screen.state is not None and len(screen.state.hand or ()) >= len(played)
        assert list(screen.state.hand or ()) == list(server.session.hand(0))


def status_text(screen: RemoteScreen) -> str:
    return str(screen.query_one("#status", Static).render())


async def test_after_u_the_status_says_the_move_was_taken_back() -> None:
    async with table() as (server, base, ben), joined(base + seat_path(server.tokens[0])) as (_, pilot, screen):
        await ana_on_turn(pilot, screen, server, ben)
        assert screen.state is not None
        hand = list(screen.state.hand or ())
        plays = [m for m in screen.state.legal if m.startswith("play")]
        plays = [m for m in plays if hand.index(play_card(parse_move(m))) < len(KEYS)]
        assert plays, "this deal gives Ana a card to play on her first turn"
        stamp = server.stamp
        await ana_presses(pilot, screen, plays[0])
        await wait_for(pilot, lambda: screen.state is not None and screen.state.can_undo)
        await wait_for(pilot, lambda: status_text(screen).startswith("✓"))
        assert server.stamp > stamp
        await pilot.press("u")
        await wait_for(pilot, lambda: screen.state is not None and not screen.state.can_undo)
        await wait_for(pilot, lambda: "Took back your last move." in status_text(screen))
        assert "✓" not in status_text(screen) and list(screen.state.hand or ()) == hand


async def play_until(
    pilot: Pilot[Any], app: KingsCornersApp, server: TableServer, ben: Client, done: Callable[[], bool]
) -> None:
    """Play (Ana by keys, Ben from his client, each their first play, else the end of the turn)
    until ``done()``; no round's summary shows meanwhile."""
    screen = remote(app)
    s = server.session
    for _ in range(200):
        await wait_for(pilot, lambda: done() or s.human_to_move)
        if done():
            return
        assert not isinstance(app.screen, RoundSummary)
        await wait_for(pilot, lambda: screen.state is not None and screen.state.stamp == server.stamp)
        await wait_for(pilot, lambda: ben.state.stamp == server.stamp)
        stamp = server.stamp
        if is_my_turn(screen.latest):
            assert screen.state is not None
            hand = list(screen.state.hand or ())
            plays = [m for m in screen.state.legal if m.startswith("play")]
            plays = [m for m in plays if hand.index(play_card(parse_move(m))) < len(KEYS)]
            await ana_presses(pilot, screen, plays[0] if plays else "end")
        else:
            await ben_moves(ben)
        await wait_for(pilot, moved_on(server, stamp, done))


async def first_round_summary(
    pilot: Pilot[Any], app: KingsCornersApp, server: TableServer, ben: Client
) -> RoundSummary:
    """Play round 1 until Ana's screen shows its summary (the next round is dealt meanwhile)."""
    await play_until(pilot, app, server, ben, lambda: server.session.match.number > 1)
    await wait_for(pilot, lambda: isinstance(app.screen, RoundSummary) and bool(app.screen.query("#continue")))
    summary = app.screen
    assert isinstance(summary, RoundSummary) and summary.number == 1
    return summary


@asynccontextmanager
async def round_ones_summary() -> AsyncIterator[tuple[TableServer, Client, KingsCornersApp, Pilot[Any]]]:
    """Ana's app at a table of Ana and Ben, round 1 played until its summary shows: the deal of
    the whole-match test below (its round ends in five moves), to a higher target, so the next
    round is dealt while the summary shows."""
    async with (
        table(session_for(SEATS, rules=Rules(target=100, hand_size=4), seed=12)) as (server, base, ben),
        joined(base + seat_path(server.tokens[0])) as (app, pilot, _screen),
    ):
        await first_round_summary(pilot, app, server, ben)
        yield server, ben, app, pilot


async def test_a_rounds_summary_shows_every_hand_face_up_over_the_table_as_the_round_ended() -> None:
    async with round_ones_summary() as (server, ben, app, pilot):
        screen = table_under(app)
        s = server.session
        summary = app.screen
        assert isinstance(summary, RoundSummary)
        (scored,) = s.match.results
        left = [sort_for_hand(cards_of(mask)) for mask in scored.hands_left]
        assert any(left) and [sorted(hand) for hand in summary.cards] == [sorted(h) for h in left]
        labels = [screen.look.label(c) for hand in left for c in hand]
        await wait_for(pilot, lambda: all(label in screen_text(app) for label in labels))
        assert "v" in summary.active_bindings, "the round's replay is offered"
        # The next deal reached the seat; the table under the summary shows the round as it ended.
        await wait_for(pilot, lambda: screen.state is not None and screen.state.round == 2)
        await pilot.pause()
        assert sorted(screen.query_one(HandView).cards) == sorted(left[0])
        label = widget_text(screen.query_one("#me-label", Static))
        assert f"{len(left[0])} card" in label.splitlines()[2], label
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen)
        dealt = screen.state
        assert dealt is not None and dealt.round == 2
        await wait_for(pilot, lambda: screen.query_one(HandView).cards == list(dealt.hand or ()))
        assert ben.leaks == []


async def test_a_whole_match_shows_the_rounds_summary_and_then_its_end() -> None:
    # A deal whose one round ends in five moves when both play their first play (else end the turn).
    async with (
        table(session_for(SEATS, rules=Rules(target=1, hand_size=4), seed=12)) as (server, base, ben),
        joined(base + seat_path(server.tokens[0])) as (app, pilot, screen),
    ):
        s = server.session

        def ended() -> bool:
            return s.match.round.over or s.match.over

        await play_until(pilot, app, server, ben, ended)
        await wait_for(pilot, lambda: isinstance(app.screen, RoundSummary))
        summary = app.screen
        assert isinstance(summary, RoundSummary) and summary.number == 1
        await wait_for(pilot, lambda: screen.state is not None and screen.state.over)
        await wait_for(pilot, lambda: "Round 1" in screen_text(app), what="the round's summary drawn")
        text = screen_text(app)
        assert "Round 1" in text and BEN in text
        assert app.screen is summary, "the match's end waits for the round's summary"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, MatchSummary))
        end = app.screen
        assert isinstance(end, MatchSummary) and end.end.end_text == match_end_text(s)
        assert "the match is over" in screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen)
        assert "The match is over" in link_text(screen)
        await ben.close()


async def test_the_remote_shot_is_a_seat_mid_game(tmp_path: Path) -> None:
    svg = await take("remote", tmp_path, (80, 24))
    text = html.unescape(re.sub(r"<[^>]+>", "", svg.read_text(encoding="utf-8"))).replace("\xa0", " ")
    assert "The table waits for you" in text and "connected: Ana, Ben" in text
    assert "selected: it can go on" in text


async def test_a_wrong_token_says_so_in_one_line_and_escape_leaves() -> None:
    async with (
        table() as (_server, base, _ben),
        joined(base + seat_path("x" * p.TOKEN_LENGTH), first_state=False) as (app, pilot, screen),
    ):
        await wait_for(pilot, lambda: screen.seat.ended)
        await pilot.pause()
        assert "no seat at this table has this token" in status_text(screen)
        assert "Not at the table" in link_text(screen) and screen.seat.connections == 1
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))


async def test_an_away_person_and_the_ai_standing_in_are_shown() -> None:
    async with (
        table(stand_in=0.2) as (server, base, ben),
        joined(base + seat_path(server.tokens[0])) as (app, pilot, screen),
    ):
        await wait_for(pilot, lambda: screen.state is not None and screen.state.seats[1].connected)
        await ben.close()
        await wait_for(pilot, lambda: screen.state is not None and screen.state.seats[1].stand_in)
        await pilot.pause()
        assert f"away: {BEN} (an AI stands in)" in link_text(screen)
        panel = screen.query_one(OpponentPanel)
        assert panel.kind == "AI stands in" and "AI stands in" in screen_text(app)
        assert_nothing_hidden(app, screen, server, 0)


#: What a hostile server might slip into its lines: escape sequences and markup with an action.
HOSTILE = "\x1b[2J[@click=app.quit]boom[/] \u202e"


def hostile(text: str) -> str:
    """A server's ``state`` with a hostile log line, score and waiting name."""
    data = json.loads(text)
    if data.get("type") == "state":
        view = data["view"]
        view["log"] = [*view["log"], HOSTILE]
        view["seats"][1]["score"] = HOSTILE
    return json.dumps(data)


async def test_a_hostile_servers_lines_are_shown_as_escaped_text() -> None:
    async with table() as (server, base, _ben), relayed(base) as (relay, front):
        relay.rewrite = hostile
        async with joined(front + seat_path(server.tokens[0]), size=(120, 40)) as (app, pilot, screen):
            await pilot.pause()
            shown = screen.query_one(MoveLog).shown[-1]
            assert shown == "\\x1b[2J[@click=app.quit]boom[/] \\u202e"
            assert "\x1b" not in "".join(str(p.score) for p in screen.query(OpponentPanel))
            text = screen_text(app)
            assert "[@click=app.quit]boom[/]" in text and "\x1b" not in text
            await pilot.click(MoveLog)
            await pilot.pause()
            assert app.is_running and isinstance(app.screen, RemoteScreen)


async def test_a_terminal_too_small_for_the_table_says_so_and_the_table_comes_back() -> None:
    async with (
        table() as (server, base, _ben),
        joined(base + seat_path(server.tokens[0]), size=(70, 20)) as (app, pilot, screen),
    ):
        await pilot.pause()
        assert screen.too_small and "The terminal is too small" in screen_text(app)
        await pilot.resize_terminal(*SIZE)
        await wait_for(pilot, lambda: not screen.too_small)
        await pilot.pause()
        assert "The terminal is too small" not in screen_text(app) and "stock" in screen_text(app)


async def test_the_screen_answers_keys_while_a_slow_server_has_not_answered() -> None:
    async with table() as (server, base, _ben), relayed(base) as (relay, front):
        relay.delay = 1.0  # each message: the welcome after a second, the state after two
        async with joined(front + seat_path(server.tokens[0]), first_state=False) as (app, pilot, screen):
            await pilot.press("question_mark")
            await wait_for(pilot, lambda: app.screen is not screen)
            assert screen.state is None, "the keys were answered before the server"
            assert "Connecting to the table" in status_text(screen)
            await pilot.press("escape")
            await wait_for(pilot, lambda: screen.state is not None)


async def test_a_seat_someone_else_joined_with_its_address_says_so_and_stays_off() -> None:
    async with table() as (server, base, _ben), joined(base + seat_path(server.tokens[0])) as (app, pilot, screen):
        await wait_for(pilot, lambda: screen.seat.connected and server.connected[0])
        other = await seat(server, base, "Ana")  # the same address, from another connection
        await wait_for(pilot, lambda: screen.seat.ended)
        await pilot.pause()
        words = "someone else joined with your seat's address"
        assert words in status_text(screen) and "Esc, q or m: main menu" in status_text(screen)
        assert "Not at the table" in link_text(screen) and words in link_text(screen)
        assert screen.seat.connections == 1 and server.connected[0] and other.state.seat == 0
        assert "w" not in footer_keys(screen), "no pile keys offered off the table"
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        assert screen.seat.connections == 1, "the displaced seat connected again"
        await other.close()


def footer_keys(screen: RemoteScreen) -> set[str]:
    """The keys the footer offers now (the bindings shown and enabled)."""
    return {b.key for _, b, enabled, _ in screen.active_bindings.values() if b.show and enabled}


async def test_the_hosts_quit_is_said_in_the_players_words_and_the_seat_is_back_once_it_is_served() -> None:
    async with (
        table(stand_in=0) as (server, base, ben),
        joined(base + seat_path(server.tokens[0])) as (app, pilot, screen),
    ):
        await ana_on_turn(pilot, screen, server, ben)
        assert "w" in footer_keys(screen), "the pile keys are offered on Ana's turn"
        await pilot.press("t")  # the table waits for Ben
        await wait_for(pilot, lambda: status_text(screen) == f"{BEN} is playing…")
        await ben.close()
        await server.close()
        await wait_for(pilot, lambda: screen.seat.host_away)
        await pilot.pause()
        words = "The host stopped the table; you'll be reconnected when they serve it again"
        assert status_text(screen).startswith(words) and "host --resume" not in screen_text(app)
        assert "Waiting for the host to serve the table again" in link_text(screen)
        assert "reconnecting" not in link_text(screen)
        assert not footer_keys(screen) & {"w", "t", "h", "u", "j"}, footer_keys(screen)
        again = TableServer(server.session, tokens=server.tokens, stand_in=0, ai_delay=0, round_pause=0)
        assert server.port is not None
        await again.start("127.0.0.1", server.port)
        try:
            await wait_for(pilot, lambda: screen.seat.connected and again.connected[0], what="back by itself")
            await wait_for(pilot, lambda: status_text(screen) == f"{BEN} is away: the table waits.")
            ben = await seat(again, base, BEN)
            await wait_for(pilot, lambda: status_text(screen) == f"{BEN} is playing…", what="the stale line gone")
            await ben.close()
        finally:
            await again.close()


def at_position(replay: RemoteRoundReplay, position: int) -> Callable[[], bool]:
    return lambda: replay.position == position


async def test_v_on_a_rounds_summary_replays_the_round_as_this_seat_saw_it_and_esc_returns() -> None:
    async with round_ones_summary() as (server, ben, app, pilot):
        screen = table_under(app)
        summary = app.screen
        assert isinstance(summary, RoundSummary)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), what="the replay")
        replay = app.screen
        assert isinstance(replay, ReplayScreen) and isinstance(replay.replay, RemoteRoundReplay)
        rp = replay.replay
        assert rp.viewer == 0 and rp.round_number == 1 and rp.at_start and replay.record is None
        s = server.session
        truth = RoundReplay.from_record(match_record(s.match, s.seats, s.record), 1, 0)
        assert rp.length == truth.length
        for position in range(rp.length + 1):
            truth.seek(position)
            mine = truth.snapshot()
            shown = rp.snapshot()
            assert (shown.hand, shown.piles, shown.stock) == (mine.hand, mine.piles, mine.stock)
            assert all(seat.hand is None for seat in shown.seats if seat.seat != 0)
            assert [panel.reveal for panel in replay.query(OpponentPanel)] == [False]
            assert sorted(replay.query_one(HandView).cards) == sorted(mine.hand or ())
            if position < rp.length:
                await pilot.press("right")
                await wait_for(pilot, at_position(rp, position + 1))
        assert rp.at_end and "v" not in replay.active_bindings  # no review of a server's round
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpDialog), what="the keys page")
        page = app.screen
        assert isinstance(page, HelpDialog)
        listed = [key for key, _what in page.keys]
        assert "o" in listed and "v" not in listed and "b" not in listed, listed
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is replay)
        # The cards left open at the round's end, as the summary showed them.
        await pilot.press("o")
        await pilot.pause()
        assert rp.hands_open and sorted(rp.snapshot().seats[1].hand or ()) == sorted(summary.cards[1])
        # The table goes on meanwhile, and the seat takes its states.
        if ben.state.legal:
            stamp = server.stamp
            await ben_moves(ben)
            await wait_for(pilot, moved_on(server, stamp))
        await wait_for(pilot, lambda: screen.state is not None and screen.state.stamp == server.stamp)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is summary)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.state is not None and screen.state.round == 2
        assert ben.leaks == []


async def test_v_says_in_one_line_when_the_server_sends_no_replay_or_the_connection_is_down(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A server of an older version: it knows no replay request (it answers malformed).
    monkeypatch.delitem(p.CLIENT_MESSAGES, "replay")
    async with round_ones_summary() as (server, ben, app, pilot):
        screen = table_under(app)
        summary = app.screen
        assert isinstance(summary, RoundSummary)
        note = summary.query_one("#replay-note", Static)
        await pilot.press("v")
        await wait_for(pilot, lambda: "older version" in widget_text(note), what="the older server said")
        assert app.screen is summary and len(widget_text(note).splitlines()) == 1
        await ben.close()
        await server.close()
        await wait_for(pilot, lambda: not screen.seat.connected)
        await pilot.press("v")
        await wait_for(pilot, lambda: "connection is down" in widget_text(note))
        assert app.screen is summary
