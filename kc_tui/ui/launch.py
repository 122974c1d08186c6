"""Start the app in a mode chosen on the command line ('menu', 'play', 'demo' or 'tutorial')."""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from types import FrameType
from typing import Any

from kc_tui.config import Config
from kc_tui.config.args import CliError, check_target, parse_kinds
from kc_tui.i18n import _, break_marks
from kc_tui.match.starting import Start, start_settings
from kc_tui.util.signals import handling, known_signals


def build_app(mode: str, args: argparse.Namespace, start: Start | None = None) -> object:
    """The app for ``mode`` and the parsed command line (CliError for bad values); ``start``:
    the settings read for it already (:func:`kc_tui.match.starting.start_settings`)."""
    from kc_tui.ui.app import KingsCornersApp, StartOptions

    if start is None:
        start = start_settings(mode, args)
    options = StartOptions(
        seed=start.seed, warnings=[start.warning] if start.warning else [], first_start=start.first_start
    )
    if mode == "demo":
        options.seats = start.demo_seats
        options.pace = start.pace
    config, path = start.config, start.path
    from kc_tui.ui.literal_text import use_ascii

    app = KingsCornersApp(config, path, mode, options)
    use_ascii(app)  # a terminal that cannot show suits and box drawing: everything in ASCII
    return app


#: The signals that end the app as a confirmed Quit does (the match saved, the terminal put back
#: as it was): ``kill``'s default, the terminal closing, and ``kill -INT`` (in the app, Ctrl+C is
#: a key, so SIGINT comes from another program).
EXIT_SIGNALS: tuple[signal.Signals, ...] = known_signals(("SIGTERM", "SIGHUP", "SIGINT"))


@contextmanager
def exit_on_signals(app: Any, loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """While the block runs ``app`` on ``loop``: each of :data:`EXIT_SIGNALS` ends it with
    ``app.exit()`` called from the loop, so Textual leaves the alternate screen and turns mouse
    reporting off before the process ends, and the last save is written (the match is saved after
    every move). The handler runs in the main thread even while the loop waits for a terminal that
    takes no output: it first tells the app's output to wait a moment at most (``app.hurry_output()``)."""

    def ask_to_end(_signum: int, _frame: FrameType | None) -> None:
        hurry = getattr(app, "hurry_output", None)
        if hurry is not None:
            hurry()
        with suppress(RuntimeError):  # the loop is closed: the app has ended
            loop.call_soon_threadsafe(app.exit)

    with handling(EXIT_SIGNALS, ask_to_end):
        yield


def no_terminal(app: Any) -> str | None:
    """Why ``app`` cannot run here, or None: its driver is a terminal's (not a browser tab's)
    and the terminal is missing, its keys read from the standard input and its screen drawn on
    the standard error (Textual's), with the standard output a terminal too. Without one the
    driver would read an end of input and redraw for ever, holding the data folder."""
    try:
        from textual.drivers.linux_driver import LinuxDriver
    except ImportError:  # pragma: no cover - Windows (no termios): not checked there
        return None
    if not issubclass(app.get_driver_class(), LinuxDriver):
        return None
    for stream in (sys.__stdin__, sys.__stdout__, sys.__stderr__):
        try:
            if stream is None or not os.isatty(stream.fileno()):
                break
        except (OSError, ValueError):
            break
    else:
        return None
    return _(
        "the app needs a terminal: run kings-corners in one (its input and output a terminal), or"
        " serve it to a browser with 'kings-corners serve'"
    )


def run(app: Any) -> int:
    """Run ``app`` on an event loop of its own, ended cleanly by :data:`EXIT_SIGNALS`; its return
    code. CliError when there is no terminal to run it in (:func:`no_terminal`): nothing is
    taken (the data folder's lock is the app's once it runs)."""
    missing = no_terminal(app)
    if missing is not None:
        raise CliError(missing)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        # The screens break Thai lines at the translations' break marks (the command line's
        # lines go without them: kc_tui.cli.main).
        with exit_on_signals(app, loop), break_marks(True):
            app.run(loop=loop)
    finally:
        with suppress(Exception):
            loop.run_until_complete(loop.shutdown_asyncgens())
        asyncio.set_event_loop(None)
        loop.close()
    return int(app.return_code or 0)


def launch(mode: str, args: argparse.Namespace, start: Start | None = None) -> int:
    # No collection while the app's modules load and the app is made (tens of collections that
    # walk the new modules' objects, about 10% of the time to the first frame): they live as long
    # as the process, and the app puts them out of the collector's reach as it is made, then holds
    # the collector again until its first screen is drawn (kc_tui.ui.app).
    held = gc.isenabled()
    gc.disable()
    try:
        app = build_app(mode, args) if start is None else build_app(mode, args, start)
    finally:
        if held:
            gc.enable()
    from kc_tui.ui.app import KingsCornersApp

    assert isinstance(app, KingsCornersApp)
    return run(app)


__all__ = ["CliError", "Config", "build_app", "check_target", "launch", "no_terminal", "parse_kinds", "run"]
