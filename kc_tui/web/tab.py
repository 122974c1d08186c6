"""One browser tab's app: ``python -m kc_tui.web.tab ROOT [--plain] [--online URL] [HOST:PORT ...]``,
the command textual-serve runs for every tab that connects (with ``--plain``, the command a plain
page's process is: :mod:`kc_tui.web.bridge`).

It makes the tab's private folder under ``ROOT`` (:mod:`kc_tui.web.folders`), runs the app
(``python -m kc_tui``, the menu; with ``--online URL`` the lobby of that server; with
``--plain`` the plain mode, ``play --plain`` or ``online URL --plain``) with its
settings, data and history in that folder and the tables it may join (``serve --allow-join``,
none when none is given: :mod:`kc_tui.net.allowlist`) in its environment, and removes the folder
when the app ends. The app's standard streams are this process's own: textual-serve talks to the
app through them. Signals that end a process are passed on to the app, which quits as it does in
a terminal (its match is saved after every move already); the folder goes then.
A server killed without a word (``kill -9``) closes its end of the app's standard input: the
launcher sees it, ends the app, and removes the folder too.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from kc_tui.i18n import _
from kc_tui.net.allowlist import Endpoint, join_environment, parse_tables
from kc_tui.util.files import describe_os_error
from kc_tui.util.printable import one_line
from kc_tui.util.terminal import hung_up
from kc_tui.web.folders import RootError, new_tab_folder, ready_root, remove_tab_folder, tab_environment

#: The signals passed on to the app.
FORWARDED: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT") if hasattr(signal, name)
)


#: How often the launcher looks whether the server is gone (seconds).
WATCH_EVERY = 0.5
#: How long the app has to quit when the server is gone, before it is killed (seconds).
APP_EXIT_WAIT = 10.0


def app_command(online: str | None = None, plain: bool = False) -> list[str]:
    """The app on its menu (or at the lobby of the server at ``online``), run by this Python;
    with ``plain``, the plain mode (``play --plain``, or ``online URL --plain``)."""
    if plain:
        return [sys.executable, "-m", "kc_tui", *(["online", online] if online else ["play"]), "--plain"]
    return [sys.executable, "-m", "kc_tui", *(["online", online] if online else [])]


def server_gone() -> bool:
    """Whether the server that started this tab is gone: its end of the standard input, a pipe,
    is closed (it was killed without telling the app to quit). Nothing is read."""
    try:
        if not stat.S_ISFIFO(os.fstat(0).st_mode):
            return False
    except OSError:  # no standard input
        return False
    return hung_up(0)


def end_app(child: subprocess.Popen[bytes]) -> None:
    """Ask the app to quit (SIGTERM: it quits as in a terminal), then kill it if it will not."""
    child.terminate()
    try:
        child.wait(APP_EXIT_WAIT)
    except subprocess.TimeoutExpired:
        child.kill()


def app_environment(folder: Path, tables: Sequence[Endpoint]) -> dict[str, str]:
    """The variables a tab's app is started with besides this process's: its folder's
    (:func:`~kc_tui.web.folders.tab_environment`) and the tables it may join (none: it joins none)."""
    return {**tab_environment(folder), **join_environment(tables)}


def run_tab(
    root: Path, command: Sequence[str] | None = None, watch: bool = False, tables: Sequence[Endpoint] = ()
) -> int:
    """Run one tab's app (``command``, default :func:`app_command`) in a new folder under ``root``
    (a ready root), joining only ``tables``; its exit code. The signals of :data:`FORWARDED` go to
    the app meanwhile; with ``watch``, the app is ended when the server is gone (:func:`server_gone`)."""
    folder = new_tab_folder(root)
    before: dict[signal.Signals, Any] = {}
    try:
        env = {**os.environ, **app_environment(folder.path, tables)}
        try:
            child = subprocess.Popen(list(command or app_command()), env=env)
        except OSError as exc:
            # Translators: {reason} is why the system refused (describe_os_error's words).
            line = _("kings-corners serve: cannot start the app: {reason}").format(reason=describe_os_error(exc))
            sys.stderr.write(line + "\n")
            return 1

        def forward(sig: int, _frame: FrameType | None) -> None:
            if child.poll() is None:
                child.send_signal(sig)

        for sig in FORWARDED:
            before[sig] = signal.signal(sig, forward)
        while True:
            try:
                return child.wait(WATCH_EVERY)
            except subprocess.TimeoutExpired:
                if watch and server_gone():
                    end_app(child)
            except KeyboardInterrupt:  # pragma: no cover - SIGINT is forwarded, not raised
                continue
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        folder.release()
        remove_tab_folder(root, folder.path)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    plain = len(args) >= 2 and args[1] == "--plain"
    if plain:
        del args[1]
    online: str | None = None
    if len(args) >= 3 and args[1] == "--online":
        online = args[2]
        del args[1:3]
    if not args:
        sys.stderr.write("usage: python -m kc_tui.web.tab ROOT [--plain] [--online URL] [HOST:PORT ...]\n")
        return 2
    try:
        tables = parse_tables(args[1:])
        root = ready_root(args[0])
    except (RootError, ValueError) as exc:
        sys.stderr.write(f"kings-corners serve: {one_line(str(exc))}\n")
        return 2
    return run_tab(root, app_command(online, plain), watch=True, tables=tables)


if __name__ == "__main__":
    sys.exit(main())
