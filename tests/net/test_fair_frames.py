"""Whole hosted matches under every rule variant, undos included: every frame each seat and the
spectator receives is one the server built for that viewer from its view, and agrees with the
truth at that moment, every finished round's replay too; no seat is ever shown a card it may not
know."""

from __future__ import annotations

import asyncio
import random

import pytest

from kc_tui.engine import Card, Rules
from kc_tui.engine.match import secret_text
from kc_tui.net import schema as p
from kc_tui.net.server import TableServer
from tests.match.kit import VARIANT_CHOICES, cards_in_text
from tests.net.serverkit import (
    Client,
    Frame,
    play_on,
    record_frames,
    replay_problems,
    running,
    seat,
    session_for,
    watch,
)

BASE = {"target": 5, "hand_size": 5, "chips_rounds": 2}


def variants() -> list[dict[str, object]]:
    """The defaults, then every other choice of every variant on its own, and draw3 with each."""
    out: list[dict[str, object]] = [{}]
    for key, values in VARIANT_CHOICES.items():
        out += [{key: v} for v in values[1:]]
    out += [{"out_with_open_side": "draw3", key: v} for key, values in VARIANT_CHOICES.items() for v in values[1:]]
    return [dict(x) for x in {tuple(sorted(v.items())): v for v in out}.values()]


def check_frames(client: Client, frames: dict[str, Frame], viewer: int | None) -> list[str]:
    """Every state ``client`` received against the frame the server built and its truth."""
    problems: list[str] = []
    held: set[Card] = set()
    public: set[Card] = set()
    number = 0
    for text, message in zip(client.raw, client.messages, strict=True):
        if not isinstance(message, p.StateMsg):
            continue
        frame = frames.get(text)
        if frame is None or frame.viewer != viewer:
            problems.append(f"a state not built for viewer {viewer}: {text[:120]}")
            continue
        if message.round != number:
            number, held, public = message.round, set(), set()
        heading = f"Round {message.round}: "
        start = max((i for i, line in enumerate(message.log) if line.startswith(heading)), default=0)
        public |= cards_in_text(" ".join(message.log[start:])) | {c for pile in message.piles for c in pile}
        if any(cards_in_text(line.partition(" drew ")[2]) for line in message.log if " drew " in line):
            problems.append("the log names a drawn card")
        if viewer is None:
            if message.hand is not None or message.legal or message.drawn is not None:
                problems.append("the spectator got a hand")
            continue
        hand = set(message.hand or ())
        if hand != frame.hands[viewer]:
            problems.append(f"seat {viewer}'s hand is not its hand at that moment")
        held |= hand
        if not held - public <= hand:
            problems.append(f"seat {viewer} knows cards not in its hand now: {sorted(held - public - hand)}")
        if (held - public) & frame.stock:
            problems.append(f"seat {viewer} knows cards in the stock: {sorted((held - public) & frame.stock)}")
    return problems


async def play_match(server: TableServer, base: str, frames: dict[str, Frame], seed: int) -> list[str]:
    ana, ben, spectator = await seat(server, base, "Ana"), await seat(server, base, "Ben"), await watch(base)

    def over() -> bool:
        return server.session.match.over

    await asyncio.gather(
        play_on(ana, random.Random(seed), over, undo=0.3), play_on(ben, random.Random(seed + 1), over, undo=0.3)
    )
    for c in (ana, ben, spectator):
        await c.expect(p.StateMsg, where=lambda m: m.over)
    # Every finished round's replay, as each viewer saw it, agrees with the truth there.
    replays: list[str] = []
    for viewer, c in ((0, ana), (1, ben), (None, spectator)):
        for number in range(1, len(server.session.match.results) + 1):
            steps = [f for page in await c.whole_replay(number) for f in page.frames]
            replays += replay_problems(server, number, viewer, steps)
    for c in (ana, ben, spectator):
        await c.close()
    clients = (("Ana", ana), ("Ben", ben), ("spectator", spectator))
    problems = replays + [f"{who}: {x}" for who, c in clients for x in c.leaks]
    for viewer, c in ((0, ana), (1, ben), (None, spectator)):
        problems += check_frames(c, frames, viewer)
        assert len(c.states()) > 3
    secret = server.session.match.seed
    for c in (ana, ben, spectator):
        if any(secret_text(secret) in text or str(secret) in text for text in c.raw):
            problems.append("the deal's secret reached a client")
    return problems


@pytest.mark.parametrize("choices", variants(), ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()) or "defaults")
async def test_every_frame_of_a_hosted_match_agrees_with_its_viewers_view(
    choices: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    frames = record_frames(monkeypatch)
    rules = Rules.from_dict(BASE | choices)
    session = session_for(rules=rules, seed=None)
    async with running(session, stand_in=0) as (server, base):
        assert await play_match(server, base, frames, 7) == []
    assert session.match.over


def test_a_session_whose_log_names_draws_cannot_be_served() -> None:
    from kc_tui.config import Config, Opponent
    from kc_tui.match.session import MatchSession
    from kc_tui.match.table import LogNotShared

    session = MatchSession.from_config(Config(opponents=(Opponent("Greedy", "greedy"),)), 3, save_path=None)
    with pytest.raises(LogNotShared, match="shared log"):
        TableServer(session)
