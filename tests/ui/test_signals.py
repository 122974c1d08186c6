"""SIGTERM, SIGHUP and SIGINT (``kill``, ``kill -HUP``, ``kill -INT`` from another terminal) end
the real app as a confirmed Quit does: the terminal put back as it was (the alternate screen
left, mouse reporting off), the match saved, the data folder let go. The app runs in a child
process on a pseudo-terminal (tests/ptykit.py)."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

from kc_tui.match.saves import SAVE_NAME
from kc_tui.match.session import MatchSession
from tests.ptykit import ALT_SCREEN_OFF, ALT_SCREEN_ON, MOUSE_OFF, app_env, lock_text, on_pty

PLAY = ("play", "--seed", "3", "--opponents", "greedy")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
@pytest.mark.parametrize("args", [(), PLAY], ids=["menu", "play"])
def test_a_signal_ends_the_app_and_restores_the_terminal(
    sig: signal.Signals, args: tuple[str, ...], tmp_path: Path
) -> None:
    drawn = b"Score" if args else b"Statistics"  # the table, or the menu, is up
    with on_pty(args, app_env(tmp_path)) as run:
        assert run.read_until(drawn), bytes(run.output[-400:])
        assert ALT_SCREEN_ON in run.output
        save = tmp_path / "data" / SAVE_NAME
        before = MatchSession.load(save) if args else None
        run.signal(sig)
        took = run.gone()
    print(f"{sig.name}: gone in {took:.3f} s")
    assert run.process.returncode == 0, bytes(run.output[-400:])
    # The output ends by leaving the alternate screen with mouse reporting off: after the last
    # \x1b[?1049l only mode switches follow (no more drawing).
    assert ALT_SCREEN_OFF in run.output, bytes(run.output[-400:])
    assert re.sub(rb"\x1b\[\??[0-9;]*[hl]", b"", run.after(ALT_SCREEN_OFF)).strip() == b""
    ending = bytes(run.output[-300:])
    for mode in MOUSE_OFF:
        assert mode in ending, mode
    assert lock_text(tmp_path) == b""
    if before is not None:
        after = MatchSession.load(save)
        assert after is not None and after.record.uid == before.record.uid
