"""The app's output thread (:class:`kc_tui.ui.terminal.TerminalOutput`) on a real pipe: what is
written arrives whole and in order; a write that fails marks the output dead, drops the rest at
once and says so once; a pipe that takes nothing keeps no write waiting once the app is ending."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

import pytest

from kc_tui.ui.terminal import TerminalOutput

WAIT = 30.0


@contextmanager
def output_to_pipe() -> Iterator[tuple[TerminalOutput, Callable[[], None], list[int]]]:
    """A started TerminalOutput writing to a new pipe that nobody reads: it, a function that
    closes the pipe's read end, and a list that grows by one for each call of its ``gone``."""
    read, write = os.pipe()
    file: TextIO = open(write, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    calls: list[int] = []
    output = TerminalOutput(file, lambda: calls.append(1))
    output.start()
    reader = [read]

    def close_reader() -> None:
        os.close(reader.pop())

    try:
        yield output, close_reader, calls
    finally:
        output.hurry(0.1)
        output.stop()
        file.close()
        if reader:
            close_reader()


def returns(call: Callable[[], object]) -> bool:
    """Whether ``call`` returns within :data:`WAIT` seconds (it runs in a thread of its own)."""
    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(WAIT)
    return not thread.is_alive()


def writes(output: TerminalOutput, text: str, times: int) -> Callable[[], None]:
    """A function that writes ``text`` ``times`` times to ``output``."""

    def write() -> None:
        for _ in range(times):
            output.write(text)

    return write


def read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)


def test_what_is_written_arrives_whole_and_in_order() -> None:
    read, write = os.pipe()
    file = open(write, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    calls: list[int] = []
    output = TerminalOutput(file, lambda: calls.append(1))
    output.start()
    texts = [f"\x1b[{n}H♠ line {n} ♥\n" for n in range(500)]
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(read_all(read)))
    reader.start()
    for text in texts:
        output.write(text)
    output.stop()
    file.close()
    reader.join(WAIT)
    os.close(read)
    assert got == ["".join(texts).encode("utf-8")]
    assert output.dead is None and calls == []


def test_a_failed_write_marks_the_output_dead_and_drops_the_rest_at_once() -> None:
    with output_to_pipe() as (output, close_reader, calls):
        close_reader()  # the terminal is gone: writing gives EPIPE
        output.write("the first frame")
        assert returns(writes(output, "more", 1000))  # never waits on the dead output
        assert output.dead is not None and calls == [1]
        assert returns(output.stop)


@pytest.mark.parametrize("end", ["hurry", "stop"])
def test_a_pipe_that_takes_nothing_keeps_no_write_waiting_once_the_app_is_ending(end: str) -> None:
    with output_to_pipe() as (output, _close_reader, calls):
        output.write("x" * (1 << 20))  # more than the pipe holds: the thread waits in its write
        writing = threading.Thread(target=writes(output, "frame", 100), daemon=True)
        writing.start()  # the queue fills: these wait
        if end == "hurry":
            output.hurry(0.2)  # a signal came: the app is ending
            writing.join(WAIT)
            assert not writing.is_alive()
            assert output.dead == "the terminal took no output" and calls == [1]
        assert returns(output.stop)
