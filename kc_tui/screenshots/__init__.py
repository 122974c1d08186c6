"""Regenerate the screenshots (docs/PLAYING.md shows them all): ``python -m kc_tui.screenshots [--out screenshots]``.

Each screen is driven headless at a fixed size from fixed seeds, saved as SVG (Textual's own
export) and, when cairosvg is installed, as a PNG copy. The table is also taken in each other
language the game speaks (``table-<code>`` and ``table-<code>-80x24``: the same seeded game).
The user's settings and saved match are never touched: the run uses a temporary settings file
and data folder.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import os
import re
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest.mock import patch

from kc_tui.config import Config, Opponent
from kc_tui.config.store import ENV_CONFIG, ENV_DATA
from kc_tui.engine import END, Rules
from kc_tui.i18n import ENGLISH_NAMES, LANGUAGES, SOURCE

if TYPE_CHECKING:
    from datetime import datetime

    from kc_tui.records.rows import SeatInfo
    from kc_tui.records.store import History

SIZE = (110, 36)
SMALL = (80, 24)
#: The languages other than English the table is shown in, each by its code.
OTHER_LANGUAGES: tuple[str, ...] = tuple(code for code in LANGUAGES if code != SOURCE)
#: The language of each shot not in English, by the shot's name.
SHOT_LANGUAGES: dict[str, str] = {
    name: code for code in OTHER_LANGUAGES for name in (f"table-{code}", f"table-{code}-80x24")
}
#: Shots taken at another size than :data:`SIZE`.
SIZES: dict[str, tuple[int, int]] = {
    "game-80x24": SMALL,
    "remote": (100, 30),
    "lobby": (100, 30),
    "tutorial": SMALL,
    **{f"table-{code}-80x24": SMALL for code in OTHER_LANGUAGES},
}
SVG_FONT = "font-family: Fira Code, monospace;"
PNG_FONT = "font-family: DejaVu Sans Mono, Fira Code, monospace;"
#: The PNG copy's font for Thai (DejaVu has none; Debian's fonts-thai-tlwg has it).
PNG_THAI_FONT = "Tlwg Typewriter"
_THAI = re.compile("([\u0e00-\u0e7f]+)")
#: The PNG copy's font for the Vietnamese letters DejaVu Sans Mono lacks (ả, ế, ổ, ủ...):
#: DejaVu Sans has them all; each is drawn alone, in its own cell.
PNG_LETTER_FONT = "DejaVu Sans"
_LETTER = re.compile("([\u1ea0-\u1ef9])")
_SVG_TEXT = re.compile(
    r'<text (?P<head>[^>]*?)x="(?P<x>[\d.]+)"(?P<mid>[^>]*?)textLength="(?P<length>[\d.]+)"'
    r"(?P<tail>[^>]*)>(?P<body>[^<]*)</text>"
)
SEED = 3
DEMO_SEED = 7
#: The screenshots, in the order of docs/PLAYING.md's gallery: file stem and caption.
SHOTS: tuple[tuple[str, str], ...] = (
    ("main-menu", "The main menu"),
    ("game", "A seeded game in progress: a card picked, its legal piles highlighted"),
    ("game-80x24", "The same game in an 80×24 terminal, the smallest the table fits"),
    ("replay", "A recorded round replayed, as you saw it then: step by move or by turn"),
    ("review", "The review: each of your turns marked against the expert, the better plan on the table"),
    ("round-summary", "The round summary"),
    ("match-summary", "The match summary"),
    ("demo", "The AI demo with open hands"),
    ("settings", "Settings"),
    ("rules", "The rules, with the active variants marked"),
    ("stats", "Statistics: your rating against the AI players, results by opponent and table size, streaks"),
    ("handoff", "Two people at one keyboard: between their turns the handoff hides every hand"),
    ("remote", "A remote seat at a table hosted on another machine: who the table waits for, who is connected"),
    ("lobby", "Play online: a server's lobby, live; your table waits for players, its invite link to share"),
    ("tutorial", "Learn to play at 80×24: the coach beside the table names the move, its rule and its keys"),
    *(
        shot
        for code in OTHER_LANGUAGES
        for shot in (
            (f"table-{code}", f"The same game in {ENGLISH_NAMES[code]}"),
            (f"table-{code}-80x24", f"The same game in {ENGLISH_NAMES[code]} at 80×24"),
        )
    ),
)


def shot_config() -> Config:
    return Config(
        player_name="You",
        opponents=(Opponent("Greedy", "greedy"), Opponent("Kingsley", "king-aware")),
        rules=Rules(target=25),
        pace="instant",
    )


def make_app(config: Config) -> Any:
    from kc_tui.ui.app import KingsCornersApp

    return KingsCornersApp(config, None, "menu")


async def _wait(pilot: Any, condition: Callable[[], bool], timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError("the screen did not reach the expected state")
        await pilot.pause(0.05)
    await pilot.pause(0.2)


def _advance(session: Any, until: Callable[[Any], bool], limit: int = 5000, kind: str = "greedy") -> None:
    """Play moves until ``until(session)`` holds; the human's moves are the greedy AI's choice,
    so the position is the same on every run."""
    from kc_tui.match.roster import build_ai

    helper = build_ai(kind, 99)
    for _ in range(limit):
        if until(session):
            return
        if session.match.round.over:
            session.finish_round()
        elif session.human_to_move:
            reason = session.play_human(helper.choose(session.view(session.human_seat)))
            assert reason is None, reason
        else:
            session.step_ai()
    raise RuntimeError("the seeded match did not reach the position for the screenshot")


def _last_round_over(session: Any) -> bool:
    """The round is over and scoring it ends the match (the engine's own scoring says so)."""
    return bool(session.match.round.over and session.match.finishing_ends_match())


def _session(config: Config) -> Any:
    from kc_tui.match.session import MatchSession

    return MatchSession.from_config(config, SEED, save_path=None)


# ---------------------------------------------------------------------- the screens
async def shot_menu(pilot: Any) -> None:
    from kc_tui.ui.screens.menu import MenuScreen

    await _wait(pilot, lambda: isinstance(pilot.app.screen, MenuScreen))


async def shot_game(pilot: Any) -> None:
    app = pilot.app
    session = _session(app.config)

    def two_turns_in(s: Any) -> bool:
        me = s.match.round_seat(s.human_seat)
        ended = sum(1 for seat, m in s.match.round.history if seat == me and m == END)
        return ended >= 2 and s.human_to_move

    _advance(session, two_turns_in)
    game = app.show_game(session)
    await _wait(pilot, lambda: app.screen is game)
    await pilot.press("right")
    await pilot.pause(0.2)


async def shot_handoff(pilot: Any) -> None:
    """A match of two people and an AI, just dealt: the first person is asked to the keyboard."""
    from kc_tui.config import HUMAN
    from kc_tui.engine import Match
    from kc_tui.match.roster import Seat
    from kc_tui.match.session import MatchSession
    from kc_tui.ui.screens.handoff import HandoffScreen

    app = pilot.app
    seats = [Seat("Ana", HUMAN), Seat("Ben", HUMAN), Seat("Kingsley", "king-aware")]
    session = MatchSession(Match(len(seats), app.config.rules, SEED), seats)
    session._round_started()
    app.show_game(session)
    await _wait(pilot, lambda: isinstance(app.screen, HandoffScreen))


async def shot_round_summary(pilot: Any) -> None:
    from kc_tui.ui.dialogs.summary import RoundSummary

    app = pilot.app
    session = _session(app.config)
    _advance(session, lambda s: s.match.round.over)
    app.show_game(session)
    await _wait(pilot, lambda: isinstance(app.screen, RoundSummary))


async def shot_match_summary(pilot: Any) -> None:
    from kc_tui.ui.dialogs.summary import RATING_PENDING, MatchSummary, RoundSummary

    app = pilot.app
    session = _session(app.config)
    _advance(session, _last_round_over)
    app.show_game(session)
    await _wait(pilot, lambda: isinstance(app.screen, RoundSummary))
    await pilot.press("enter")
    await _wait(pilot, lambda: isinstance(app.screen, MatchSummary))
    await _wait(pilot, lambda: getattr(app.screen, "rating", None) != RATING_PENDING)  # worked out in a thread


async def shot_demo(pilot: Any) -> None:
    from kc_tui.ui.screens.demo import DemoScreen

    app = pilot.app
    demo = DemoScreen(["greedy", "king-aware", "lookahead"], DEMO_SEED, "normal", app.config)
    session = demo.session
    _advance(session, lambda s: s.match.number >= 2 and len(s.match.round.history) >= 30 and s.ai_to_move)
    demo.paused = True
    demo.show_hands = True
    app.push_screen(demo)
    await _wait(pilot, lambda: app.screen is demo)


async def shot_settings(pilot: Any) -> None:
    from textual.widgets import Input

    from kc_tui.ui.screens.settings import SettingsScreen

    app = pilot.app
    screen = SettingsScreen(app.config, None)
    app.push_screen(screen)
    await _wait(pilot, lambda: app.screen is screen)
    # A blinking cursor would be caught on or off at random: keep it on for a stable picture.
    for field in screen.query(Input):
        field.cursor_blink = False
    await pilot.pause()


async def shot_rules(pilot: Any) -> None:
    from kc_tui.ui.screens.rules import RulesScreen

    app = pilot.app
    screen = RulesScreen(app.config.rules.with_(draw="when_stuck"))
    app.push_screen(screen)
    await _wait(pilot, lambda: app.screen is screen)


#: The matches the statistics shot remembers: (opponents as (name, kind), the player's chance
#: of going out in a round), oldest first: the player gets better, the opponents stronger.
STATS_MATCHES: tuple[tuple[tuple[tuple[str, str], ...], float], ...] = (
    ((("Greedy", "greedy"),), 0.45),
    ((("Greedy", "greedy"),), 0.55),
    ((("Greedy", "greedy"), ("Kingsley", "king-aware")), 0.35),
    ((("Kingsley", "king-aware"),), 0.5),
    ((("Greedy", "greedy"),), 0.65),
    ((("Kingsley", "king-aware"),), 0.55),
    ((("Lucy", "lookahead"),), 0.4),
    ((("Greedy", "greedy"), ("Kingsley", "king-aware")), 0.45),
    ((("Lucy", "lookahead"),), 0.5),
    ((("Kingsley", "king-aware"),), 0.6),
    ((("Lucy", "lookahead"), ("Kingsley", "king-aware")), 0.45),
    ((("Lucy", "lookahead"),), 0.55),
    ((("Exa", "expert"),), 0.4),
    ((("Lucy", "lookahead"),), 0.6),
    ((("Exa", "expert"),), 0.5),
)


#: One round of a made-up match: who went out (None: blocked), every seat's penalty, and the
#: hints and undos the player asked for.
MadeRound = tuple[int | None, Sequence[int], int, int]


def record_made_match(
    history: History,
    seats: Sequence[SeatInfo],
    rounds: Iterable[MadeRound],
    *,
    rules: Rules,
    seed: int,
    first_dealer: int,
    started_at: datetime,
    minutes: int,
    finish: bool = True,
) -> int:
    """Record a match of made-up ``rounds`` into ``history``, a round every ``minutes`` from
    ``started_at``, the dealer passing on from ``first_dealer``; when ``finish``, the match ends a
    minute after its last round, the lowest total winning. The match's id."""
    from datetime import timedelta

    from kc_tui.records.rows import RoundRecord

    n = len(seats)
    match_id = history.start_match(
        seats=seats, rules=rules.to_dict(), seed=seed, first_dealer=first_dealer, started_at=started_at
    )
    totals = [0] * n
    number = 0
    for number, (winner, penalties, hints, undos) in enumerate(rounds, 1):
        totals = [t + p for t, p in zip(totals, penalties, strict=True)]
        history.record_round(
            match_id,
            RoundRecord(
                number=number,
                dealer=(first_dealer + number - 1) % n,
                seats=tuple(range(n)),
                winner=winner,
                penalties=tuple(penalties),
                chips_delta=(0,) * n,
                totals=tuple(totals),
                moves=(),
                hints=hints,
                undos=undos,
                played_at=started_at + timedelta(minutes=minutes * number),
            ),
        )
    if finish:
        best = min(totals)
        history.finish_match(
            match_id,
            winners=[i for i, t in enumerate(totals) if t == best],
            totals=totals,
            finished_at=started_at + timedelta(minutes=minutes * number + 1),
        )
    return match_id


def record_stats_history(history: History, config: Config) -> None:
    """Record :data:`STATS_MATCHES` (seeded, so the same every run) into ``history``: rounds
    until a total reaches the target, the lowest total winning."""
    import random
    from datetime import UTC, datetime, timedelta

    from kc_tui.records.rows import SeatInfo

    rng = random.Random(SEED)
    start = datetime(2026, 11, 2, 19, 0, tzinfo=UTC)
    target = config.rules.target

    def rounds(n: int, skill: float) -> Iterator[MadeRound]:
        totals = [0] * n
        while max(totals) < target:
            winner = 0 if rng.random() < skill else rng.randrange(1, n)
            penalties = [0 if i == winner else rng.choice((1, 2, 3, 5, 6, 8, 10, 12, 15)) for i in range(n)]
            totals = [t + p for t, p in zip(totals, penalties, strict=True)]
            yield winner, penalties, rng.choice((0, 0, 0, 1, 2)), rng.choice((0, 0, 1))

    for k, (opponents, skill) in enumerate(STATS_MATCHES):
        seats = [SeatInfo(config.player_name, "human"), *(SeatInfo(n, kind, 300) for n, kind in opponents)]
        began = start + timedelta(days=k, minutes=rng.randrange(90))
        record_made_match(
            history,
            seats,
            rounds(len(seats), skill),
            rules=config.rules,
            seed=SEED + k,
            first_dealer=k % len(seats),
            started_at=began,
            minutes=4,
        )


async def shot_stats(pilot: Any) -> None:
    from kc_tui.records.store import History
    from kc_tui.ui.screens.stats import StatsScreen

    app = pilot.app
    recorder, _ = History.open()  # the history in the run's data folder (the app's, if it keeps one)
    try:
        record_stats_history(recorder, app.config)
    finally:
        recorder.close()
    history = getattr(app, "history", None)
    if history is None:
        history, _ = History.open()
    screen = StatsScreen(history)
    app.push_screen(screen)
    await _wait(pilot, lambda: app.screen is screen and (screen.rating is not None or bool(screen.problem)))
    await pilot.pause(0.3)


async def _recorded_round(pilot: Any, kind: str = "greedy") -> Any:
    """Play the seeded match's first round (the human's moves those of the AI ``kind``), record
    it in the app's history through a table driver, and open its replay."""
    from kc_tui.match.table import TableDriver
    from kc_tui.ui.screens.replay import ReplayScreen, open_replay

    app = pilot.app
    session = _session(app.config)
    _advance(session, lambda s: s.match.round.over, kind=kind)
    driver = TableDriver(session, history=app.history)
    driver.finish_round()
    assert driver.history_match is not None, "the round was not recorded"
    open_replay(app, driver.history_match, 1)
    await _wait(pilot, lambda: isinstance(app.screen, ReplayScreen))
    return app.screen


async def shot_replay(pilot: Any) -> None:
    screen = await _recorded_round(pilot)
    for _ in range(3):
        screen.action_turn(1)
    screen.action_step(1)
    await pilot.pause(0.3)


async def shot_review(pilot: Any) -> None:
    screen = await _recorded_round(pilot, "random")  # a beginner's round: something to review
    screen.action_review()
    await _wait(pilot, lambda: not screen.reviewing, timeout=300)
    worst = max(screen.reviewed.items(), key=lambda item: item[1].loss)
    screen.replay.seek(worst[0])
    screen.refresh_view()
    if worst[1].better_plan_exists:
        screen.action_better()
        screen.action_step(1)
    await pilot.pause(0.3)


async def shot_remote(pilot: Any) -> Callable[[], Awaitable[None]]:
    """Ana's remote seat at a table served on loopback (Ben connected from another client, the
    AI Kingsley playing on the server), two of her turns in, a card picked. The server is
    stopped by the returned cleanup, once the shot is taken."""
    from websockets.asyncio.client import connect

    from kc_tui.config import HUMAN
    from kc_tui.match.roster import Seat, build_ai
    from kc_tui.match.session import MatchSession
    from kc_tui.net.protocol import write
    from kc_tui.net.schema import Hello
    from kc_tui.net.server import TableServer, seat_path
    from kc_tui.ui.remote.screen import remote_screen
    from kc_tui.ui.remote.view import is_my_turn

    app = pilot.app
    seats = [Seat("Ana", HUMAN), Seat("Ben", HUMAN), Seat("Kingsley", "king-aware")]
    session = MatchSession.hosted(seats, app.config.rules, SEED)
    helper = build_ai("greedy", 99)
    for _ in range(5000):
        ended = sum(1 for seat, m in session.match.round.history if seat == 0 and m == END)
        if ended >= 2 and session.to_move == 0 and not session.match.round.over:
            break
        if session.human_to_move:
            reason = session.play_human(helper.choose(session.view(session.to_move)))
            assert reason is None, reason
        else:
            session.step_ai()
    server = TableServer(session, ai_delay=0.0, round_pause=0.0, stand_in=0)
    port = await server.start("127.0.0.1", 0)
    base = f"ws://127.0.0.1:{port}"
    ben = await connect(base + seat_path(server.tokens[1]))
    await ben.send(write(Hello("kings-corners")))
    screen = remote_screen(base + seat_path(server.tokens[0]), app.config)
    app.push_screen(screen)
    await _wait(pilot, lambda: screen.state is not None and is_my_turn(screen.latest) and server.connected[1])
    await pilot.press("right")
    await pilot.pause(0.3)

    async def stop() -> None:
        await ben.close()
        await server.close()

    return stop


async def shot_lobby(pilot: Any) -> Callable[[], Awaitable[None]]:
    """Ana in the lobby of a ``kings-corners server`` run in this process on loopback (its store
    in the run's temporary data folder): her own table waiting for a second person, its invite
    link shown; Ben's table with a free seat, Cy and Dee's match under way (one person watching),
    Eve's quick table waiting for AIs. The others are lobby clients of their own keys. The server
    is stopped by the returned cleanup, once the shot is taken."""
    from textual.widgets import Select

    from kc_tui.net.client import RemoteSeat
    from kc_tui.net.hub import Hub, HubSettings
    from kc_tui.net.identity import PlayerKey
    from kc_tui.net.lobby_client import LobbyClient
    from kc_tui.net.lobby_schema import (
        CreateTable,
        JoinTable,
        QuickPlay,
        StartMsg,
        TableListing,
        WatchingMsg,
        WatchTable,
    )
    from kc_tui.net.server_store import ServerStore
    from kc_tui.ui.dialogs.online import NewTableDialog
    from kc_tui.ui.remote.lobby import LobbyScreen

    app = pilot.app
    folder = Path(os.environ[ENV_DATA]).parent
    hub = Hub(ServerStore.open(folder / "server"), settings=HubSettings(ai_delay=0.0, round_pause=0.0))
    port = await hub.start("127.0.0.1", 0)
    base = f"ws://127.0.0.1:{port}"
    people: dict[str, LobbyClient] = {}
    tasks: list[asyncio.Task[None]] = []
    starts: list[StartMsg] = []

    async def person(name: str) -> LobbyClient:
        key = PlayerKey.load_or_create(folder / "keys" / name)
        client = LobbyClient(base, key, name, on_event=lambda m: starts.append(m) if isinstance(m, StartMsg) else None)
        tasks.append(asyncio.create_task(client.run()))
        await _wait(pilot, lambda: client.signed_in is not None)
        people[name] = client
        return client

    rules = app.config.rules
    ben = await person("Ben")
    await ben.request(CreateTable(("human", "human", "greedy"), rules.target, rules.to_dict()))
    cy, dee = await person("Cy"), await person("Dee")
    hands = rules.with_(hand_size=5, draw="end", target=50)
    playing = await cy.request(CreateTable(("human", "human"), hands.target, hands.to_dict(), turn_seconds=45))
    table = getattr(playing, "table", "")
    await dee.request(JoinTable(table))
    await _wait(pilot, lambda: any(s.table == table for s in starts))
    watching = await (await person("Fay")).request(WatchTable(table))
    watcher = RemoteSeat(watching.url, watch=True) if isinstance(watching, WatchingMsg) else None
    if watcher is not None:
        tasks.append(asyncio.create_task(watcher.run()))
    eve = await person("Eve")
    await eve.request(QuickPlay(4, rules.target, rules.to_dict(), fill_after=90))
    screen = LobbyScreen(base, app.config, name="Ana")
    app.push_screen(screen)
    await _wait(pilot, lambda: screen.client is not None and screen.client.signed_in is not None)
    await pilot.press("n")
    await _wait(pilot, lambda: isinstance(app.screen, NewTableDialog))
    app.screen.query_one("#seat-1", Select).value = "human"  # a second person's seat, then an AI's
    await pilot.pause(0.1)
    await pilot.press("enter")

    def listed() -> list[TableListing]:
        return [] if screen.client is None else list(screen.client.listings.values())

    await _wait(pilot, lambda: screen.seated is not None and len(listed()) == 4)
    await _wait(pilot, lambda: any(t.spectators for t in listed()))
    await pilot.pause(0.3)

    async def stop() -> None:
        if watcher is not None:
            watcher.close()
        for client in people.values():
            await client.close()
        for task in tasks:
            task.cancel()
        await hub.close()

    return stop


def lesson_at(lesson: str, step: int) -> Callable[[Any], Awaitable[None]]:
    """A driver: Learn to play's lesson ``lesson`` at step ``step`` (0-based), the opponent's turn played."""

    async def drive(pilot: Any) -> None:
        from kc_tui.learn.lessons import BY_ID
        from kc_tui.ui.screens.tutorial import TutorialScreen

        app = pilot.app
        screen = TutorialScreen(BY_ID[lesson], step, app.config)
        app.push_screen(screen)
        await _wait(pilot, lambda: app.screen is screen and not screen.busy and bool(screen.query("#coach")))

    return drive


DRIVERS: dict[str, Callable[[Any], Awaitable[Callable[[], Awaitable[None]] | None]]] = {
    "main-menu": shot_menu,
    "game": shot_game,
    "game-80x24": shot_game,
    "replay": shot_replay,
    "review": shot_review,
    "round-summary": shot_round_summary,
    "match-summary": shot_match_summary,
    "demo": shot_demo,
    "settings": shot_settings,
    "rules": shot_rules,
    "stats": shot_stats,
    "handoff": shot_handoff,
    "remote": shot_remote,
    "lobby": shot_lobby,
    "tutorial": lesson_at("move", 0),
    **dict.fromkeys(SHOT_LANGUAGES, shot_game),
}


async def take(name: str, out: Path, size: tuple[int, int] = SIZE) -> Path:
    """Drive one screen, in its language (:data:`SHOT_LANGUAGES`; else English), and write
    ``out/<name>.svg``. The title stays English: the game's name is a proper name."""
    from kc_tui.i18n import current, use

    before = current()
    use(SHOT_LANGUAGES.get(name, SOURCE))
    try:
        app = make_app(shot_config())
        async with app.run_test(size=size) as pilot:
            await pilot.pause(0.2)
            cleanup = await DRIVERS[name](pilot)
            svg = app.export_screenshot(title=f"Kings Corners · {name.replace('-', ' ')}")
            if cleanup is not None:
                await cleanup()
    finally:
        use(before)
    path = out / f"{name}.svg"
    path.write_text(thai_runs(svg), encoding="utf-8")
    return path


def thai_runs(svg: str, font: str | None = None) -> str:
    """``svg`` with each text that holds Thai given its length in cells (Rich makes a text as
    long as its characters, and Thai's marks take no cell), and marked ``data-cells``; with
    ``font``, also cut into its Thai and other pieces, each at its own cells, the Thai drawn in
    ``font``. An SVG with no Thai is given back as it is."""
    from rich.cells import cell_len

    def split(match: re.Match[str]) -> str:
        body = html.unescape(match["body"])
        if not _THAI.search(body):
            return match[0]
        given = re.search(r'data-cells="(\d+)"', match["tail"])
        cell = float(match["length"]) / (int(given[1]) if given else len(body))
        tail = re.sub(r' data-cells="\d+"| style="[^"]*"', "", match["tail"])
        x = float(match["x"])
        out = []
        for piece in filter(None, _THAI.split(body)) if font else [body]:
            cells = cell_len(piece)
            hint = f' style="font-family: {font}"' if font and _THAI.fullmatch(piece) else ""
            out.append(
                f'<text {match["head"]}x="{x:g}"{match["mid"]}textLength="{cells * cell:g}"{tail}'
                f' data-cells="{cells}"{hint}>{html.escape(piece).replace(" ", "&#160;")}</text>'
            )
            x = round(x + cells * cell, 4)
        return "".join(out)

    return _SVG_TEXT.sub(split, svg) if _THAI.search(svg) else svg


def letter_runs(svg: str, font: str) -> str:
    """``svg`` with each letter of Latin Extended Additional (Vietnamese's ả, ế, ổ...) cut out
    of its text into a text of its own, one cell wide, drawn in ``font``: cairo draws a text in
    one font, and the monospace one lacks them. An SVG with none is given back as it is."""
    from rich.cells import cell_len

    def split(match: re.Match[str]) -> str:
        body = html.unescape(match["body"])
        if not _LETTER.search(body) or f"font-family: {font}" in match["tail"]:
            return match[0]
        given = re.search(r'data-cells="(\d+)"', match["tail"])
        cell = float(match["length"]) / (int(given[1]) if given else len(body))
        tail = re.sub(r' data-cells="\d+"', "", match["tail"])
        x = float(match["x"])
        out = []
        for piece in filter(None, _LETTER.split(body)):
            cells = cell_len(piece)
            hint = f' style="font-family: {font}"' if _LETTER.fullmatch(piece) else ""
            out.append(
                f'<text {match["head"]}x="{x:g}"{match["mid"]}textLength="{cells * cell:g}"{tail}'
                f' data-cells="{cells}"{hint}>{html.escape(piece).replace(" ", "&#160;")}</text>'
            )
            x = round(x + cells * cell, 4)
        return "".join(out)

    return _SVG_TEXT.sub(split, svg) if _LETTER.search(svg) else svg


def to_png(svg: Path) -> Path | None:
    """A PNG copy of ``svg`` (None when cairosvg is not installed)."""
    try:
        import cairosvg
    except ImportError:
        return None
    png = svg.with_suffix(".png")
    # cairo draws each text run in one font with no fallback per glyph: Fira Code (the SVG's
    # font) lacks ★ and a few other symbols, so the PNG copy uses DejaVu Sans Mono, which has them.
    # cairo has no Thai in DejaVu either: Thai is drawn in Tlwg Typewriter (fonts-thai-tlwg),
    # whose marks take no room and sit on the letter before them, as in a terminal.
    # Nor some Vietnamese letters (ả, ế, ổ...): each is drawn alone in DejaVu Sans, in its cell.
    text = thai_runs(svg.read_text(encoding="utf-8").replace(SVG_FONT, PNG_FONT), PNG_THAI_FONT)
    text = letter_runs(text, PNG_LETTER_FONT)
    cairosvg.svg2png(bytestring=text.encode("utf-8"), write_to=str(png))
    return png


def generate(out: Path, names: Sequence[str] | None = None, *, png: bool = True) -> list[Path]:
    """Write every screenshot (or only ``names``) to ``out``; return the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with (
        tempfile.TemporaryDirectory(prefix="kc-shots-") as tmp,
        patch.dict(os.environ, {ENV_CONFIG: str(Path(tmp) / "settings.toml"), ENV_DATA: str(Path(tmp) / "data")}),
    ):
        for name in names or [n for n, _ in SHOTS]:
            svg = asyncio.run(take(name, out, SIZES.get(name, SIZE)))
            written.append(svg)
            if png:
                p = to_png(svg)
                if p is not None:
                    written.append(p)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kc_tui.screenshots", description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="screenshots", help="folder to write to (default: screenshots)")
    every = ", ".join(n for n, _ in SHOTS)
    parser.add_argument("--only", help="comma-separated screenshot names: " + every)
    parser.add_argument("--no-png", action="store_true", help="write the SVG files only")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.only.split(",")] if args.only else None
    for n in names or []:
        if n not in DRIVERS:
            parser.error(f"unknown screenshot {n!r}: choose from {', '.join(DRIVERS)}")
    for path in generate(Path(args.out), names, png=not args.no_png):
        print(path)
    return 0
