"""The history file on disk: SQLite connections, what an error means (:func:`fault`, :func:`reason`),
what is at the path, setting a damaged file aside, snapshots and copies in memory."""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from kc_tui.config.store import data_dir
from kc_tui.i18n import N_, _
from kc_tui.records.rows import (
    ENV_HISTORY,
    HISTORY_NAME,
)
from kc_tui.records.schema import (
    APPLICATION_ID,
    BUSY_TIMEOUT_MS,
    SCHEMA_VERSION,
    _check_ours,
    _migrate,
)
from kc_tui.util.printable import PROBLEM_MAX, one_line

#: How long a read (and opening) waits for another process's lock (ms).
READ_TIMEOUT_MS = 200
#: The first bytes of every SQLite database file, and the size of its header.
SQLITE_MAGIC = b"SQLite format 3\x00"
SQLITE_HEADER_SIZE = 100


# ---------------------------------------------------------------------- what went wrong
@dataclass(frozen=True)
class Fault:
    """What an error met reading or writing the history means: ``kind`` (``"full"``, ``"locked"``,
    ``"readonly"``, ``"denied"``, ``"io"``, ``"damaged"``, ``"missing"``, ``"cantopen"`` or
    ``"other"``) and the reason in plain words (``"the disk is full"``)."""

    kind: str
    words: str

    @property
    def unwritable(self) -> bool:
        """Whether the file may be readable but cannot be written (a full disk, a read-only file...)."""
        return self.kind in ("full", "readonly", "denied", "io", "cantopen")


#: The words of each kind of fault (shown through ``_()``).
_WORDS = {
    "full": N_("the disk is full"),
    "locked": N_("the history is locked by another program"),
    "readonly": N_("the file or its folder is read-only"),
    "denied": N_("permission is denied"),
    "io": N_("the disk reported an input/output error"),
    "damaged": N_("the file is damaged"),
    "missing": N_("the file or its folder does not exist"),
    "cantopen": N_("the file cannot be opened"),
}
_ERRNO_KINDS = {
    errno.ENOSPC: "full",
    errno.EDQUOT: "full",
    errno.EACCES: "denied",
    errno.EPERM: "denied",
    errno.EROFS: "readonly",
    errno.EIO: "io",
    errno.ENOENT: "missing",
    errno.ENOTDIR: "missing",
}


def _folder_fault(folder: Path | None) -> str | None:
    """The kind of fault the folder shows (a read-only or full file system, a missing folder), if any."""
    if folder is None:
        return None
    try:
        st = os.statvfs(folder)
    except FileNotFoundError:
        return "missing"
    except (OSError, ValueError):
        return None
    if st.f_flag & os.ST_RDONLY:
        return "readonly"
    if st.f_bavail == 0:
        return "full"
    return None


def fault(exc: BaseException, folder: Path | None = None) -> Fault:
    """What ``exc`` means, from SQLite's error code (``sqlite_errorname``) or the OS's errno; an
    I/O error or a file that cannot be opened is told apart by looking at ``folder`` (the
    history's folder): a full disk or a read-only file system say so."""
    kind = "other"
    if isinstance(exc, UnicodeDecodeError):  # SQLite's message names a damaged schema's bytes
        return Fault("damaged", _(_WORDS["damaged"]))
    if isinstance(exc, sqlite3.Error):
        name = getattr(exc, "sqlite_errorname", "") or ""
        text = str(exc)
        if name == "SQLITE_FULL" or (not name and "disk is full" in text):
            kind = "full"
        elif name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or (not name and "locked" in text):
            kind = "locked"
        elif name.startswith("SQLITE_CORRUPT") or name == "SQLITE_NOTADB" or (not name and "malformed" in text):
            kind = "damaged"
        elif name.startswith("SQLITE_READONLY") or (not name and "readonly" in text):
            kind = _folder_fault(folder) or "readonly"
        elif name == "SQLITE_PERM" or name.startswith("SQLITE_AUTH"):
            kind = "denied"
        elif name.startswith("SQLITE_IOERR"):
            kind = _folder_fault(folder) or "io"
        elif name.startswith("SQLITE_CANTOPEN") or (not name and "unable to open" in text):
            kind = _folder_fault(folder) or "cantopen"
        if kind == "other":
            return Fault(kind, one_line(text or name or type(exc).__name__, PROBLEM_MAX))
        return Fault(kind, _(_WORDS[kind]))
    if isinstance(exc, OSError):
        kind = _ERRNO_KINDS.get(exc.errno or 0, "other")
        if kind == "other":
            return Fault(kind, one_line((exc.strerror or type(exc).__name__).lower(), PROBLEM_MAX))
        return Fault(kind, _(_WORDS[kind]))
    return Fault(kind, one_line(str(exc) or type(exc).__name__, PROBLEM_MAX))


def reason(exc: BaseException, folder: Path | None = None) -> str:
    """Why ``exc`` happened, in plain words (:func:`fault`)."""
    return fault(exc, folder).words


# ---------------------------------------------------------------------- opening
#: What every message about a file left alone ends with.
def _connect(target: str, *, uri: bool = False, timeout_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    con = sqlite3.connect(
        target,
        timeout=timeout_ms / 1000,
        isolation_level=None,  # transactions are explicit (BEGIN IMMEDIATE ... COMMIT)
        check_same_thread=False,  # guarded by History's locks
        uri=uri,
    )
    try:
        con.text_factory = _text  # text that is not UTF-8 is read, not a failed query
        con.execute(f"PRAGMA busy_timeout = {int(timeout_ms)}")
    except BaseException:
        con.close()
        raise
    return con


def _file_uri(path: Path, mode: str) -> str:
    """The SQLite URI of ``path`` opened with ``mode`` (``ro``, ``rw``, ``rwc``)."""
    return f"{path.absolute().as_uri()}?mode={mode}"


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _memory() -> sqlite3.Connection:
    con = _connect(":memory:")
    con.execute("PRAGMA foreign_keys = ON")
    _migrate(con)
    return con


def _head(path: Path) -> bytes:
    """The first :data:`SQLITE_HEADER_SIZE` bytes of the file (never blocking on a FIFO)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        return os.read(fd, SQLITE_HEADER_SIZE)
    finally:
        os.close(fd)


def _header_ours(head: bytes) -> bool:
    """Whether an SQLite header carries our application_id (a big-endian u32 at offset 68)."""
    return (
        len(head) >= SQLITE_HEADER_SIZE
        and head.startswith(SQLITE_MAGIC)
        and int.from_bytes(head[68:72], "big") == APPLICATION_ID
    )


def _side_files(path: Path) -> list[Path]:
    return [path.with_name(path.name + extra) for extra in ("-wal", "-shm", "-journal")]


def _is_app_file(path: Path) -> bool:
    """Whether ``path`` is the app's own history, ``data_dir()/history.sqlite3`` (while no
    ``$KINGS_CORNERS_HISTORY`` names another): the only file ever set aside."""
    if os.environ.get(ENV_HISTORY):
        return False
    try:
        return os.path.abspath(path) == os.path.abspath(data_dir() / HISTORY_NAME)
    except (OSError, ValueError):
        return False


def _set_aside(path: Path) -> Path:
    """Move the damaged file and its -wal, -shm and -journal to ``<name>.corrupt-<time>`` (with
    the same endings), never over an earlier file; where it went. OSError when it cannot be."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    k = 0
    while True:
        aside = path.with_name(f"{path.name}.corrupt-{stamp}" + (f".{k}" if k else ""))
        if not any(os.path.lexists(p) for p in (aside, *_side_files(aside))):
            break
        k += 1
    _rename_new(path, aside)
    for side, to in zip(_side_files(path), _side_files(aside), strict=True):
        if os.path.lexists(side):
            _rename_new(side, to)
    return aside


def _rename_new(src: Path, dst: Path) -> None:
    """Rename ``src`` to ``dst``, which must not exist (a hard link then an unlink where links
    work, so that nothing is ever overwritten)."""
    try:
        os.link(src, dst, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError:
        if os.path.lexists(dst):
            raise FileExistsError(errno.EEXIST, "the name is taken", str(dst)) from None
        os.rename(src, dst)
        return
    os.unlink(src)


def _wal_size(path: Path) -> int | None:
    """The size of the database's -wal file, None when there is none."""
    try:
        return os.stat(path.with_name(path.name + "-wal")).st_size
    except FileNotFoundError:
        return None


def _snapshot(path: Path, *, empty_wal: bool = False) -> sqlite3.Connection | None:
    """A copy in memory of a database no one has open (no -wal beside it; with ``empty_wal`` an
    empty one is allowed too), read from its bytes without opening it in SQLite (which would make
    a -wal and a -shm beside it); None when it may be in use (then SQLite must read it, minding
    the locks) or it changed while it was read."""
    if os.path.lexists(path.with_name(path.name + "-journal")):
        return None
    before = os.stat(path)
    if _wal_size(path) not in ((None, 0) if empty_wal else (None,)):
        return None
    data = bytearray(path.read_bytes())
    after = os.stat(path)
    if (
        _wal_size(path) not in ((None, 0) if empty_wal else (None,))
        or (before.st_size, before.st_mtime_ns) != (after.st_size, after.st_mtime_ns)
        or len(data) != after.st_size
    ):
        return None
    if len(data) >= SQLITE_HEADER_SIZE and data[18:20] == b"\x02\x02":
        data[18:20] = b"\x01\x01"  # a copy in memory has no WAL: read it as a rollback database
    con = _connect(":memory:", timeout_ms=READ_TIMEOUT_MS)
    try:
        con.deserialize(bytes(data))
    except BaseException:
        con.close()
        raise
    return con


def _read_copy(path: Path) -> sqlite3.Connection:
    """A copy in memory of the database at ``path``, made without writing anything there (an
    empty -wal, as SQLite leaves when it cannot size the -shm on a full disk, holds nothing)."""
    snap = _snapshot(path, empty_wal=True)
    if snap is not None:
        return snap
    src = _connect(_file_uri(path, "ro"), uri=True, timeout_ms=READ_TIMEOUT_MS)
    try:
        mem = _connect(":memory:", timeout_ms=READ_TIMEOUT_MS)
        try:
            src.backup(mem)
        except BaseException:
            mem.close()
            raise
        return mem
    finally:
        src.close()


def _current_copy(con: sqlite3.Connection, *, keep: bool = False) -> sqlite3.Connection:
    """``con`` migrated to the current schema: itself when it is current, else a copy in memory
    migrated there (the file is not touched; ``con`` is closed then unless ``keep``)."""
    if _check_ours(con) == SCHEMA_VERSION:
        return con
    mem = _connect(":memory:", timeout_ms=READ_TIMEOUT_MS)
    try:
        con.backup(mem)
        mem.execute("PRAGMA foreign_keys = ON")
        _migrate(mem)
    except BaseException:
        mem.close()
        raise
    if not keep:
        con.close()
    return mem


# ---------------------------------------------------------------------- the history
