"""``kings-corners join --plain`` at a real host (``kings-corners host``): a whole match played by
reading the lines only, a spectator told the same match, every typed line answered, the input's
end leaving the table, and the host stopping told in a line."""

from __future__ import annotations

from pathlib import Path

from tests.net.serverkit import HostProcess, host_process
from tests.plain.remotekit import PROMPT, WIDTH, PlainProcess, over, plain_process

#: Ana (a person) against a greedy AI: a short match of hands of 2 cards, to 5 points.
SHORT = ["--rules", "hand_size=2", "--target", "5", "--seed", "3", "--stand-in", "0"]


async def seat_urls(*seats: str) -> tuple[HostProcess, dict[str, str]]:
    host = host_process("--seats", ",".join(seats), *SHORT)
    return host, await host.urls()


def no_trace(*processes: PlainProcess | HostProcess) -> None:
    for p in processes:
        assert "Traceback" not in "".join(p.err) + "".join(p.out), "".join(p.err)


async def test_a_whole_match_is_played_and_watched_by_reading_the_lines() -> None:
    host, urls = await seat_urls("human:Ana", "greedy")
    ana = plain_process("join", "--plain", urls["Ana"])
    watcher = plain_process("join", "--plain", "--watch", urls["Watch"])
    try:
        await ana.line_with("You sit at the table as Ana; the seats: Ana, Greedy.")
        await watcher.line_with("You are watching the table of Ana, Greedy.")
        typed = await ana.play_until(over)
        assert await ana.ended() == 0
        assert await watcher.ended() == 0
    finally:
        ana.stop()
        watcher.stop()
        host.stop()
    assert typed > 3
    # The seat heard its hand, the table and its moves, the other's moves with their cards left,
    # the round's scores and the match's end.
    said = "\n".join(ana.out)
    assert "Your hand: " in said and "Stock: " in said and "1. " in said
    assert "Greedy has " in said and "Scores of round 1:" in said
    assert any(over(line) for line in ana.out)
    # The spectator was told the same moves, with no hand and no prompt.
    assert any(over(line) for line in watcher.out)
    assert "Scores of round 1:" in "\n".join(watcher.out)
    assert PROMPT not in watcher.out and not any(line.startswith("Your hand: ") for line in watcher.out)
    for p in (ana, watcher):
        assert p.bad_lines() == [], p.bad_lines()
    no_trace(ana, watcher, host)


#: Lines that are no move, each answered in one line at the seat's turn.
MALFORMED = [
    "xyzzy",
    "99",
    "0",
    "7x north",
    "play",
    "move north",
    "north",
    "\x1b[31mred\x1b[0m",
    "k♠ nowhere",
    "ZZ" * 150,
]


async def test_every_typed_line_is_answered_in_one_line_at_a_remote_seat() -> None:
    host, urls = await seat_urls("human:Ana", "greedy")
    ana = plain_process("join", "--plain", urls["Ana"], width=200)
    try:
        await ana.line_with(PROMPT)
        for text in MALFORMED:
            start = len(ana.out)
            ana.type(text)
            ana.type("hand")
            at = await ana.line(lambda line: line.startswith("Your hand: "), start)
            answer = ana.out[start:at]
            assert len(answer) == 1, (text, answer)
        # Nothing to take back yet; the rules of this table; the help; the server's hint.
        for command, words in (
            ("undo", "Nothing to undo"),
            ("rules", "Drawing (R"),
            ("help", "7h n"),
            ("hint", "Hint: "),
        ):
            start = len(ana.out)
            ana.type(command)
            await ana.line_with(words, start)
        start = len(ana.out)
        ana.type("quit")
        assert await ana.ended() == 0
    finally:
        ana.stop()
        host.stop()
    assert "You left the table: your seat waits for you" in " ".join(ana.out[start:])
    assert ana.bad_lines(200) == [], ana.bad_lines(200)
    no_trace(ana, host)


async def test_the_inputs_end_leaves_the_table_and_the_seat_is_taken_again() -> None:
    host, urls = await seat_urls("human:Ana", "greedy")
    first = plain_process("join", "--plain", urls["Ana"])
    again = None
    try:
        await first.line_with(PROMPT)
        first.end_input()
        assert await first.ended() == 0
        assert "You left the table: your seat waits for you" in " ".join(first.out)
        # The same address takes the seat back, at the same turn.
        again = plain_process("join", "--plain", urls["Ana"])
        await again.line_with(PROMPT)
        again.type("1")
        await again.line_with("Ana ")
    finally:
        first.stop()
        if again is not None:
            again.stop()
        host.stop()
    no_trace(first, host)


async def test_the_host_stopping_is_told_in_a_line_and_the_seat_is_back_when_it_serves_again() -> None:
    host, urls = await seat_urls("human:Ana", "greedy")
    ana = plain_process("join", "--plain", urls["Ana"])
    wrong = plain_process("join", "--plain", urls["Ana"][:-4] + "AAAA")
    again = None
    try:
        await ana.line_with(PROMPT)
        assert await wrong.ended() == 1
        port = host.port()
        host.stop()
        stopped = await ana.line_with("The host stopped the table")
        ana.type("table")
        await ana.line_with("North: ", stopped)
        again = host_process("--resume", "--stand-in", "0", "--port", str(port))
        back = await ana.line_with("Connected again.", stopped)
        ana.type("moves")
        await ana.line(lambda line: line.startswith("1. "), back)
        ana.type("1")
        await ana.line(lambda line: line.startswith("Ana "), back)
        ana.type("quit")
        assert await ana.ended() == 0
    finally:
        ana.stop()
        wrong.stop()
        host.stop()
        if again is not None:
            again.stop()
    assert any(line.startswith("You are not at the table: ") for line in wrong.out), wrong.out
    assert len([line for line in ana.out if line.startswith("The host stopped the table")]) == 1
    assert len([line for line in ana.out if line.startswith("Connected again.")]) == 1
    assert ana.bad_lines(WIDTH) == []
    no_trace(ana, wrong)


async def test_a_seats_file_from_host_addresses_seats_the_plain_mode(tmp_path: Path) -> None:
    folder = tmp_path / "seats"
    host = host_process("--seats", "human:Ana,greedy", *SHORT, "--addresses", str(folder))
    ana = None
    try:
        await host.urls()
        ana = plain_process("join", "--plain", "--file", str(folder / "seat-1-Ana.url"))
        await ana.line_with("You sit at the table as Ana; the seats: Ana, Greedy.")
        await ana.line_with(PROMPT)
        ana.end_input()
        assert await ana.ended() == 0
    finally:
        if ana is not None:
            ana.stop()
        host.stop()
    no_trace(ana, host)
