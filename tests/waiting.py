"""The one way the tests wait: until a condition holds, polled, within a generous deadline.

:func:`wait_for` waits in the calling thread (a process, a terminal, a file); :func:`wait_until`
on the running event loop (a server, a client, an app), its condition plain or awaitable. Both
return the condition's value once it is true, and fail the test (``AssertionError``) after
``timeout`` seconds naming what was awaited (``what``, else the condition's source) and what is
showing then (``showing()``: a screen, the last messages). The deadline is the only bound: the poll
between two looks is short, and a test never waits a number of seconds instead of a condition.
The domain helpers of the kits (a screen up, a client's turn, a pane's text) are one-liners over
these two."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, overload

T = TypeVar("T")

#: How long a wait may take before it fails (seconds): generous, for a heavily loaded machine.
WAIT = 60.0
#: The pause between two looks at the condition (seconds), unless a wait says otherwise (a look
#: that costs a process or a browser's round trip looks less often).
POLL = 0.02
#: The most of what is showing a failure quotes (its end, in characters).
SHOWN = 6000


def described(condition: Callable[[], object]) -> str:
    """The condition's source (a lambda's line), else its name."""
    try:
        return inspect.getsource(condition).strip()
    except (OSError, TypeError):
        return getattr(condition, "__qualname__", None) or repr(condition)


def timed_out(timeout: float, condition: Callable[[], object], what: str | None, shown: object) -> AssertionError:
    """The failure of a wait: what was awaited, and what is showing (None: nothing to say)."""
    message = f"timed out after {timeout:g} s waiting for {what or described(condition)}"
    return AssertionError(message if shown is None else f"{message}\nshowing: {str(shown)[-SHOWN:]}")


def unreadable(exc: Exception) -> str:
    """What is showing when it cannot be read: said, rather than hiding the wait's failure."""
    return f"(unreadable: {exc!r})"


def wait_for(
    condition: Callable[[], T | None],
    *,
    timeout: float = WAIT,
    what: str | None = None,
    showing: Callable[[], object] | None = None,
    poll: float = POLL,
) -> T:
    """Wait in this thread until ``condition()`` is true, looking every ``poll`` seconds; its
    value. Fails after ``timeout`` seconds naming ``what`` was awaited and what ``showing()``
    shows."""
    end = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() >= end:
            try:
                shown = showing() if showing is not None else None
            except Exception as exc:
                shown = unreadable(exc)
            raise timed_out(timeout, condition, what, shown)
        time.sleep(poll)
    return value


@overload
async def wait_until(
    condition: Callable[[], Awaitable[T | None]],
    *,
    timeout: float = WAIT,
    what: str | None = None,
    showing: Callable[[], object] | None = None,
    pause: Callable[[float], Awaitable[object]] = asyncio.sleep,
    poll: float = POLL,
) -> T: ...


@overload
async def wait_until(
    condition: Callable[[], T | None],
    *,
    timeout: float = WAIT,
    what: str | None = None,
    showing: Callable[[], object] | None = None,
    pause: Callable[[float], Awaitable[object]] = asyncio.sleep,
    poll: float = POLL,
) -> T: ...


async def wait_until(
    condition: Callable[[], Any],
    *,
    timeout: float = WAIT,
    what: str | None = None,
    showing: Callable[[], object] | None = None,
    pause: Callable[[float], Awaitable[object]] = asyncio.sleep,
    poll: float = POLL,
) -> Any:
    """Wait on the event loop until ``condition()`` (awaited when it gives an awaitable) is true,
    looking every ``poll`` seconds; its value. ``pause``: how the loop lets others run between two
    looks (an app's pilot pauses so the app handles its messages). Fails after ``timeout``
    seconds naming ``what`` was awaited and what ``showing()`` (awaited when it gives an
    awaitable) shows."""
    end = time.monotonic() + timeout
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if time.monotonic() >= end:
            try:
                shown = showing() if showing is not None else None
                if inspect.isawaitable(shown):
                    shown = await shown
            except Exception as exc:
                shown = unreadable(exc)
            raise timed_out(timeout, condition, what, shown)
        await pause(poll)
