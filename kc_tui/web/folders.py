"""The browser tabs' private folders under serve's root: made, told apart live from dead, removed.

Every tab (every app process textual-serve starts) gets a folder of its own, ``tab-XXXXXXXX``
directly under the root, made by :func:`tempfile.mkdtemp` (mode 0700, a name no one else holds).
Its settings, its data folder (the save, the log) and its game history are in it:
:func:`tab_environment` names them for the app. While the tab's app runs, its launcher holds a
lock on ``.tab.lock`` in the folder; a folder whose lock anyone can take belongs to no live tab.

A tab's folder is removed when its app ends (the tab closed or reloaded, Quit, ``serve``
stopped): a closed tab can never be opened again (a new tab is a new visitor with a new folder),
so what it kept would only pile up, unreachable, with a visitor's name in it. A folder left by a
process that was killed is removed by the next ``serve`` on the same root (:func:`sweep`).
Removal is safe: only a real folder (not a link) named ``tab-*`` whose parent is the root itself
is removed, and :func:`shutil.rmtree` never follows a link inside it. Plain Python.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from kc_tui.config.store import ENV_CONFIG, ENV_DATA, data_dir
from kc_tui.i18n import _
from kc_tui.records.rows import ENV_HISTORY, HISTORY_NAME
from kc_tui.util.files import describe_os_error, make_folder
from kc_tui.util.printable import one_line

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no locks, so no folder is ever taken for dead
    fcntl = None  # type: ignore[assignment]

#: The name of serve's root in the data folder (``--root`` names another).
ROOT_NAME = "web-tabs"
#: Every tab's folder is named this and 8 random characters.
PREFIX = "tab-"
LOCK_NAME = ".tab.lock"
SETTINGS_NAME = "settings.toml"
DATA_NAME = "data"
#: The mode of the root when serve makes it, and of every tab's folder.
PRIVATE = 0o700
#: A folder younger than this (seconds) is never swept: its tab may be taking its lock.
SWEEP_AGE = 60.0


class RootError(Exception):
    """Serve's root cannot be used; the message (one line) says why."""


def default_root() -> Path:
    """Where the tabs' folders go unless ``--root`` says: ``web-tabs`` in the user's data folder."""
    return data_dir() / ROOT_NAME


def ready_root(root: str | os.PathLike[str]) -> Path:
    """The root, made (mode 0700, and so every missing folder above it) if it is missing, as its
    real path; :class:`RootError` when it is not a folder this user can write into."""
    shown = one_line(os.fsdecode(root), 300)
    path = Path(root)
    try:
        make_folder(path)
        real = path.resolve(strict=True)
        mode = real.stat().st_mode
    except FileExistsError:
        raise RootError(_("the root {path} is a file, not a folder").format(path=shown)) from None
    except NotADirectoryError:
        raise RootError(_("the root {path} cannot be made: a part of its path is a file").format(path=shown)) from None
    except OSError as exc:
        raise RootError(
            _("the root {path} cannot be used: {reason}").format(path=shown, reason=describe_os_error(exc))
        ) from None
    except ValueError:  # a NUL byte in the name
        raise RootError(_("the root {path} is not a usable folder name").format(path=shown)) from None
    if not stat.S_ISDIR(mode):
        raise RootError(_("the root {path} is not a folder").format(path=shown))
    if not os.access(real, os.W_OK | os.X_OK):
        raise RootError(_("the root {path} is not writable").format(path=shown))
    return real


@dataclass
class TabFolder:
    """A tab's folder, locked while its app runs (:meth:`release` ends the lock)."""

    path: Path
    _lock: IO[bytes] | None = None

    def release(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None


def _lock(folder: Path, wait: bool) -> IO[bytes] | None:
    """The lock file of ``folder`` opened and locked (exclusively), or None when another process
    holds it (``wait`` False) or it cannot be opened."""
    try:
        fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:
        return None
    handle = os.fdopen(fd, "r+b")
    if fcntl is not None:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except OSError:
            handle.close()
            return None
    return handle


def new_tab_folder(root: Path) -> TabFolder:
    """A new private folder for one tab directly under ``root`` (mode 0700), locked."""
    path = Path(tempfile.mkdtemp(prefix=PREFIX, dir=root))
    lock = _lock(path, wait=True)
    (path / DATA_NAME).mkdir(mode=PRIVATE)
    return TabFolder(path, lock)


def tab_environment(folder: Path) -> dict[str, str]:
    """The variables that point the app at ``folder``: its settings, its data, its history."""
    data = folder / DATA_NAME
    return {
        ENV_CONFIG: str(folder / SETTINGS_NAME),
        ENV_DATA: str(data),
        ENV_HISTORY: str(data / HISTORY_NAME),
    }


def is_tab_folder(root: Path, folder: Path) -> bool:
    """Whether ``folder`` is a tab's folder of ``root``: a real folder (not a link) named ``tab-*``
    whose parent is ``root`` itself."""
    if not folder.name.startswith(PREFIX) or folder.name in {".", ".."} or os.sep in folder.name:
        return False
    try:
        if os.path.realpath(folder.parent) != os.path.realpath(root):
            return False
        return stat.S_ISDIR(os.lstat(folder).st_mode)
    except (OSError, ValueError):
        return False


def remove_tab_folder(root: Path, folder: Path) -> bool:
    """Remove ``folder`` with everything in it when it is a tab's folder of ``root``
    (:func:`is_tab_folder`); whether it is gone."""
    if not is_tab_folder(root, folder):
        return False
    with contextlib.suppress(OSError):
        shutil.rmtree(folder)
    return not os.path.lexists(folder)


def sweep(root: Path) -> int:
    """Remove the tabs' folders under ``root`` that no live tab holds (their processes were
    killed); how many were removed. A folder a tab's app holds, one younger than
    :data:`SWEEP_AGE` and one without a tab's lock file are left alone."""
    removed = 0
    try:
        entries = list(os.scandir(root))
    except OSError:
        return 0
    for entry in entries:
        folder = Path(entry.path)
        if fcntl is None or not is_tab_folder(root, folder):
            continue
        try:
            if time.time() - entry.stat(follow_symlinks=False).st_mtime < SWEEP_AGE:
                continue
            if not stat.S_ISREG(os.lstat(folder / LOCK_NAME).st_mode):
                continue  # not a tab's: a tab's folder has its lock file from its first moment
        except OSError:
            continue
        held = _lock(folder, wait=False)
        if held is None:
            continue  # a live tab's, or a folder we cannot look into: left as it is
        try:
            if remove_tab_folder(root, folder):
                removed += 1
        finally:
            held.close()
    return removed


__all__ = [
    "PREFIX",
    "RootError",
    "TabFolder",
    "default_root",
    "is_tab_folder",
    "new_tab_folder",
    "ready_root",
    "remove_tab_folder",
    "sweep",
    "tab_environment",
]
