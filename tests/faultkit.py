"""Faults made for real, for the fault tests: a full disk and SQLite locks held by another process.

- :func:`small_disk`: a real tmpfs of 256 KiB mounted on a fresh folder (the tests run as root in
  CI; elsewhere the test is skipped). :func:`fill` takes its last free byte; removing the file it
  returns gives the space back.
- :class:`FullDisk`: the same fault made by hand, everywhere: while it is ``full``, every
  :func:`os.replace` into its folder (the last step of an atomic write) fails with ENOSPC.
- :func:`lock_held`: a second process holding the write lock (``BEGIN IMMEDIATE``, as the sqlite3
  shell or DB Browser do while editing) or an exclusive lock (``locking_mode=EXCLUSIVE``, which
  keeps readers out too) on a database until the block ends.
- :func:`data_folder_held`: a second process holding a data folder's lock (as another Kings
  Corners window does) until the block ends; :func:`dead_pid`: the id of a process that has ended.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from functools import cache
from pathlib import Path
from typing import Literal

import pytest

#: The program run by :func:`lock_held`: it takes the lock, says "ready", and keeps the lock until
#: its standard input closes.
_HOLDER = r"""
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
if sys.argv[2] == "exclusive":
    con.execute("PRAGMA locking_mode = EXCLUSIVE")
    con.execute("BEGIN EXCLUSIVE")
    con.execute("SELECT count(*) FROM sqlite_master").fetchall()
else:
    con.execute("BEGIN IMMEDIATE")
print("ready", flush=True)
sys.stdin.read()
con.execute("ROLLBACK")
con.close()
"""


@cache
def can_mount() -> bool:
    """Whether this process may mount a tmpfs (root, with a working ``mount``)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    folder = tempfile.mkdtemp(prefix="kc-mount-probe-")
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", folder], capture_output=True, timeout=10
        )
        if done.returncode != 0:
            return False
        subprocess.run(["umount", folder], capture_output=True, timeout=10)
        return True
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        os.rmdir(folder)


@contextmanager
def small_disk(size: str = "256k") -> Iterator[Path]:
    """A real file system of ``size`` mounted on a new folder (skips the test where it cannot be)."""
    if not can_mount():
        pytest.skip("a real full disk needs root to mount a tmpfs (the tests run as root in CI)")
    folder = Path(tempfile.mkdtemp(prefix="kc-small-disk-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], check=True, timeout=10)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, timeout=10)
        os.rmdir(folder)


def fill(folder: Path) -> Path:
    """Write a file in ``folder`` until its file system is full; the file (remove it to free the space)."""
    filler = folder / "filler"
    with open(filler, "ab", buffering=0) as f:
        for size in (65536, 4096, 512, 1):  # big blocks first, then down to the last byte
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
    return filler


class FullDisk:
    """Atomic writes into ``folder`` fail as on a full disk while :attr:`full` (their
    :func:`os.replace` raises ENOSPC: the file keeps what it held); :meth:`fill_after` lets the
    next writes work first. Install it with ``monkeypatch.setattr(os, "replace", disk.replace)``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder.resolve()
        self.full = False
        self._left: int | None = None
        self.refused = 0
        self._replace = os.replace

    def fill_after(self, writes: int) -> None:
        """The disk fills once ``writes`` more writes into the folder have worked."""
        self._left = writes

    def replace(self, src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        inside = Path(dst).resolve().is_relative_to(self.folder)
        if inside and self._left is not None:
            if self._left == 0:
                self.full, self._left = True, None
            else:
                self._left -= 1
        if inside and self.full:
            self.refused += 1
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(dst))
        self._replace(src, dst)


@contextmanager
def lock_held(db: Path, kind: Literal["write", "exclusive"] = "write") -> Iterator[subprocess.Popen[str]]:
    """Another process holding ``kind`` lock on the SQLite database ``db`` for the block."""
    child = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(db), kind],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        if line.strip() != "ready":
            child.kill()
            raise RuntimeError(f"the lock holder did not start: {child.stderr.read() if child.stderr else ''}")
        yield child
    finally:
        _end_holder(child)


def _end_holder(child: subprocess.Popen[str]) -> None:
    """End a holder: its standard input closed (it lets go and ends), killed if it will not."""
    if child.stdin is not None:
        with suppress(OSError):
            child.stdin.close()
    try:
        child.wait(timeout=10)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


#: The program run by :func:`data_folder_held`: it takes the data folder's lock, says "held", and
#: keeps it until its standard input closes (then ends without letting go, as a killed window).
_DATA_HOLDER = r"""
import pathlib, sys
from kc_tui.records.datalock import acquire
lock, why = acquire(pathlib.Path(sys.argv[1]))
print("held" if lock is not None and lock.fd is not None else why, flush=True)
sys.stdin.read()
"""


@contextmanager
def data_folder_held(folder: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the lock of the data folder ``folder`` for the block (ended at
    the end, if the test has not ended it)."""
    child = subprocess.Popen(
        [sys.executable, "-c", _DATA_HOLDER, str(folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        said = child.stdout.readline().strip()
        assert said == "held", f"the data folder's holder did not take it: {said}"
        yield child
    finally:
        _end_holder(child)


def dead_pid() -> int:
    """The process id of a process that ran and has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(30)
    return child.pid
