"""``kings-corners online --plain`` at a real server (``kings-corners server``): the lobby's list,
quick play whose AIs fill the empty seat, the match played to its end by reading the lines only
and the rematch declined; a table opened by one person and joined by its number by another, both
playing it through; a command that is none answered in one line."""

from __future__ import annotations

import asyncio
from pathlib import Path

from kc_tui.config import Config, Opponent
from kc_tui.config.store import save_config
from kc_tui.engine import Rules
from tests.net.hubkit import server
from tests.plain.remotekit import PlainProcess, over, plain_process

#: The server's pace: AIs at once, no pause between rounds, no clock.
FAST = ("--turn-seconds", "0", "--ai-delay", "0", "--round-pause", "0")
#: A short match of a few rounds (the server deals at random: a round or more where the AI goes
#: out before the person's first turn may come, never all of them): hands of 3 cards, to 15 points.
SHORT = Rules(hand_size=3, target=15)


def person(folder: Path, name: str, *opponents: Opponent) -> dict[str, str]:
    """The environment of a person of their own (their settings, their data folder and so their
    player key): ``name``, and a table of ``opponents``."""
    folder.mkdir(parents=True, exist_ok=True)
    settings = folder / "settings.toml"
    save_config(Config(player_name=name, opponents=opponents, rules=SHORT), settings)
    return {"KINGS_CORNERS_CONFIG": str(settings), "KINGS_CORNERS_DATA": str(folder / "data")}


def no_trace(*processes: PlainProcess) -> None:
    for p in processes:
        assert "Traceback" not in "".join(p.err) + "\n".join(p.out), "".join(p.err)
        assert p.bad_lines() == [], p.bad_lines()


async def test_quick_play_from_the_list_to_the_match_end_and_back_in_the_lobby(tmp_path: Path) -> None:
    async with server(tmp_path / "server", *FAST) as hub:
        env = person(tmp_path / "ana", "Ana", Opponent("Greedy", "greedy"))
        ana = plain_process("online", "--plain", hub.url, "--fill-after", "1", env=env)
        try:
            await ana.line_with("Signed in as Ana")
            await ana.line_with("No open tables yet")
            start = len(ana.out)
            ana.type("dance")
            await ana.line_with("dance is no command here", start)
            ana.type("quick")
            await ana.line_with("Looking for a table…")
            ana.read_to = await ana.line_with("The table starts.")
            typed = await ana.play_until(over)
            assert typed > 0
            back = await ana.line_with("Back in the lobby")
            await ana.line_with("A rematch with ", back)
            ana.type("no")
            await ana.line_with("No rematch.", back)
            start = len(ana.out)
            ana.type("list")
            await ana.line(lambda line: line.startswith(("1. ", "No open tables yet")), start)
            ana.type("quit")
            assert await ana.ended() == 0
        finally:
            ana.stop()
    said = "\n".join(ana.out)
    assert "Your hand: " in said and "Scores of round 1:" in said
    no_trace(ana)


async def test_a_table_opened_by_one_and_joined_by_its_number_is_played_by_both(tmp_path: Path) -> None:
    async with server(tmp_path / "server", *FAST) as hub:
        ana_env = person(tmp_path / "ana", "Ana", Opponent("Ben", "human"))
        ben_env = person(tmp_path / "ben", "Ben", Opponent("Ana", "human"))
        cy_env = person(tmp_path / "cy", "Cy", Opponent("Greedy", "greedy"))
        ana = plain_process("online", "--plain", hub.url, env=ana_env)
        ben = plain_process("online", "--plain", hub.url, env=ben_env)
        cy = plain_process("online", "--plain", hub.url, env=cy_env)
        try:
            await ana.line_with("Signed in as Ana")
            ana.type("new")
            await ana.line_with("Opening a table…")
            await ana.line_with("Waiting for players: 1 of 2 seats taken.")
            await ben.line_with("Signed in as Ben")
            start = len(ben.out)
            ben.type("list")
            listed = await ben.line(lambda line: line.startswith("1. "), start)
            assert "Ana, free" in ben.out[listed], ben.out[listed]
            ben.type("join 7")
            await ben.line_with("Type the table's number from the list: 1 to 1.", listed)
            ben.type("join 1")
            for p in (ana, ben):
                p.read_to = await p.line_with("The table starts.")
            # Cy watches the table while it waits for its first move, and is told its match to the end.
            await cy.line_with("Signed in as Cy")
            start = len(cy.out)
            cy.type("list")
            await cy.line(lambda line: line.startswith("1. ") and "Ana, Ben" in line, start)
            cy.type("watch 1")
            await cy.line_with("You are watching the table of Ana, Ben.")
            typed = await asyncio.gather(ana.play_until(over), ben.play_until(over))
            assert sum(typed) > 0
            await cy.line(over)
            for p in (ana, ben, cy):
                await p.line_with("Back in the lobby")
                p.type("quit")
            for p in (ana, ben, cy):
                assert await p.ended() == 0
        finally:
            ana.stop()
            ben.stop()
            cy.stop()
    assert "Scores of round 1:" in "\n".join(ana.out) and "Scores of round 1:" in "\n".join(ben.out)
    assert "Your move (its number, or help):" not in cy.out
    no_trace(ana, ben, cy)
