"""One browser tab's app: ``python -m kc_tui.web.tab ROOT``, the command textual-serve runs for
every tab that connects.

It makes the tab's private folder under ``ROOT`` (:mod:`kc_tui.web.folders`), runs the app
(``python -m kc_tui``, the menu) with its settings, data and history in that folder, and removes
the folder when the app ends. The app's standard streams are this process's own: textual-serve
talks to the app through them. Signals that end a process are passed on to the app, which quits
as it does in a terminal (its match is saved after every move already); the folder goes then.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from kc_tui.util.text import one_line
from kc_tui.web.folders import RootError, new_tab_folder, ready_root, remove_tab_folder, tab_environment

#: The signals passed on to the app.
FORWARDED: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT") if hasattr(signal, name)
)


def app_command() -> list[str]:
    """The app on its menu, run by this Python."""
    return [sys.executable, "-m", "kc_tui"]


def run_tab(root: Path, command: Sequence[str] | None = None) -> int:
    """Run one tab's app (``command``, default :func:`app_command`) in a new folder under ``root``
    (a ready root); its exit code. The signals of :data:`FORWARDED` go to the app meanwhile."""
    folder = new_tab_folder(root)
    before: dict[signal.Signals, Any] = {}
    try:
        env = {**os.environ, **tab_environment(folder.path)}
        try:
            child = subprocess.Popen(list(command or app_command()), env=env)
        except OSError as exc:
            sys.stderr.write(f"kings-corners serve: cannot start the app: {one_line(exc.strerror or str(exc))}\n")
            return 1

        def forward(sig: int, _frame: FrameType | None) -> None:
            if child.poll() is None:
                child.send_signal(sig)

        for sig in FORWARDED:
            before[sig] = signal.signal(sig, forward)
        while True:
            try:
                return child.wait()
            except KeyboardInterrupt:  # pragma: no cover - SIGINT is forwarded, not raised
                continue
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        folder.release()
        remove_tab_folder(root, folder.path)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        sys.stderr.write("usage: python -m kc_tui.web.tab ROOT\n")
        return 2
    try:
        root = ready_root(args[0])
    except RootError as exc:
        sys.stderr.write(f"kings-corners serve: {exc}\n")
        return 2
    return run_tab(root)


if __name__ == "__main__":
    sys.exit(main())
