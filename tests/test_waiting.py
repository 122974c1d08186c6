"""The tests' one way to wait (:mod:`tests.waiting`): the condition's value once it holds, and a
failure that says what was awaited and what is showing. A deadline of 0 fails at the first look
that finds the condition false: no test here waits."""

from __future__ import annotations

import pytest

from tests.waiting import wait_for, wait_until


def test_wait_for_gives_the_conditions_value_once_it_holds() -> None:
    looks = iter([None, 0, "", "ready"])
    assert wait_for(lambda: next(looks), poll=0) == "ready"


def test_wait_for_names_what_it_waited_for_and_what_shows() -> None:
    with pytest.raises(AssertionError) as failed:
        wait_for(lambda: False, timeout=0, what="the door open", showing=lambda: "the door shut")
    assert str(failed.value) == "timed out after 0 s waiting for the door open\nshowing: the door shut"


def test_wait_for_without_a_name_quotes_the_conditions_source() -> None:
    door = {"open": False}
    with pytest.raises(AssertionError, match=r'waiting for .*lambda: door\["open"\]'):
        wait_for(lambda: door["open"], timeout=0)


def test_a_showing_that_cannot_be_read_is_said_and_the_wait_still_fails() -> None:
    def broken() -> str:
        raise OSError("gone")

    with pytest.raises(AssertionError, match=r"showing: \(unreadable: OSError\('gone'\)\)"):
        wait_for(lambda: False, timeout=0, what="x", showing=broken)


async def test_wait_until_awaits_an_awaitable_condition_and_showing() -> None:
    looks = iter([False, True])

    async def look() -> bool:
        return next(looks)

    async def never() -> bool:
        return False

    async def shown() -> str:
        return "the table"

    assert await wait_until(look, poll=0) is True
    with pytest.raises(AssertionError) as failed:
        await wait_until(never, timeout=0, what="a look", showing=shown)
    assert str(failed.value) == "timed out after 0 s waiting for a look\nshowing: the table"


async def test_wait_until_lets_its_pause_run_between_looks() -> None:
    paused: list[float] = []
    looks = iter([0, 0, 7])

    async def pause(seconds: float) -> None:
        paused.append(seconds)

    assert await wait_until(lambda: next(looks), pause=pause, poll=0.5) == 7
    assert paused == [0.5, 0.5]
