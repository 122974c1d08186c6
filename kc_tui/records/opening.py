"""Opening the history file: what is at the path looked at before SQLite opens it, then opened,
migrated, set aside or left alone (see "What goes wrong" in :mod:`kc_tui.records.store`); the
connections a store is made of (:class:`Opened`)."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import stat
from dataclasses import dataclass
from pathlib import Path

from kc_tui.i18n import N_, _
from kc_tui.records.files import (
    READ_TIMEOUT_MS,
    SQLITE_MAGIC,
    Fault,
    _connect,
    _current_copy,
    _file_uri,
    _head,
    _header_ours,
    _is_app_file,
    _memory,
    _read_copy,
    _set_aside,
    _snapshot,
    fault,
    reason,
)
from kc_tui.records.rows import (
    HistoryError,
    default_history_path,
)
from kc_tui.records.schema import (
    SCHEMA_VERSION,
    _check_ours,
    _Damaged,
    _integrity,
    _migrate,
    _Newer,
    _NotOurs,
)
from kc_tui.util.files import PRIVATE_FILE, FileError, kind_of, make_folder, stat_regular
from kc_tui.util.printable import one_line


@dataclass(frozen=True)
class Opened:
    """The connections a :class:`~kc_tui.records.store.History` is made of: ``con`` reads (and
    writes too when no ``writer`` is given); ``file_reader``: the file's reading connection while
    ``con`` is a migrated copy in memory; ``path`` None when the history lives in memory."""

    con: sqlite3.Connection
    path: Path | None
    read_only: bool = False
    writer: sqlite3.Connection | None = None
    file_reader: sqlite3.Connection | None = None


log = logging.getLogger(__name__)
#: The sentence that ends every message about a history left as it is (shown through ``_()``).
_LEFT = N_("It was left as it is; this session's games are kept in memory only.")


def open_history(path: Path | None = None) -> tuple[Opened, str | None]:
    """Open (create or migrate) the history at ``path`` (default: :func:`default_history_path`);
    the second value is a one-line message for the player when the file could not be used as
    it is (None otherwise). See "What goes wrong" in the module's doc. Never raises, and never
    waits on another program's lock: at worst the history lives in memory."""
    p = Path(path) if path is not None else default_history_path()
    try:
        return _open(p)
    except Exception as exc:  # the last guard: the app starts whatever is at the path
        log.exception("the history %s could not be opened", p)
        # Translators: {path} is the history file, {reason} why it cannot be used.
        said = _("History {path} cannot be used: {reason}.").format(path=one_line(str(p)), reason=reason(exc, p.parent))
        return _in_memory(said + " " + _(_LEFT))


def _open(p: Path) -> tuple[Opened, str | None]:
    shown = one_line(str(p))
    try:
        st: os.stat_result | None = os.lstat(p)
    except FileNotFoundError:
        st = None
    except (OSError, ValueError) as exc:  # e.g. a file where a folder of the path should be
        said = _("History {path} cannot be used: {reason}.").format(path=shown, reason=reason(exc, p.parent))
        return _in_memory(said + " " + _(_LEFT))
    if st is not None and stat.S_ISLNK(st.st_mode):
        try:
            st = os.stat(p)
        except FileNotFoundError:
            target = one_line(os.readlink(p))
            said = _("History {path} is a link to {target}, which does not exist.").format(path=shown, target=target)
            return _in_memory(said + " " + _(_LEFT))
        except OSError as exc:
            said = _("History {path} is a link that cannot be followed ({reason}).").format(
                path=shown, reason=reason(exc)
            )
            return _in_memory(said + " " + _(_LEFT))
    if st is not None and not stat.S_ISREG(st.st_mode):
        # Translators: {kind} is what the path is (a directory, a socket, ...).
        said = _("History {path} is {kind}, not a regular file.").format(path=shown, kind=kind_of(st.st_mode))
        return _in_memory(said + " " + _(_LEFT))
    if st is None or st.st_size == 0:
        try:
            make_folder(p.parent)
            _make_private(p)
        except OSError as exc:
            return _in_memory(
                _("History {path} cannot be created: {reason}; this session's games are kept in memory only.").format(
                    path=shown, reason=reason(exc, p.parent)
                )
            )
        return _open_file(p, b"", new=True)
    try:
        head = _head(p)
    except OSError as exc:
        said = _("History {path} cannot be read: {reason}.").format(path=shown, reason=reason(exc, p.parent))
        return _in_memory(said + " " + _(_LEFT))
    if not head.startswith(SQLITE_MAGIC):
        said = _("History {path} is not a Kings Corners history (not an SQLite database).").format(path=shown)
        return _in_memory(said + " " + _(_LEFT))
    return _open_file(p, head, new=False)


def _make_private(p: Path) -> None:
    """Make the empty file ``p`` with mode 0600 when it is missing, for SQLite to open: SQLite
    would make it with the umask's mode, and its -wal, -shm and -journal files take the mode of
    the database's file."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    with contextlib.suppress(FileExistsError):  # an empty file, or one made meanwhile: SQLite opens it
        os.close(os.open(p, flags, PRIVATE_FILE))


def _open_file(p: Path, head: bytes, *, new: bool) -> tuple[Opened, str | None]:
    """Open the file at ``p`` (``new``: missing or empty; else its header is ``head``)."""
    shown = one_line(str(p))
    try:
        reader = _connect(_file_uri(p, "rwc" if new else "rw"), uri=True, timeout_ms=READ_TIMEOUT_MS)
    except sqlite3.Error as exc:
        return _unusable(p, fault(exc, p.parent), new=new)
    writer: sqlite3.Connection | None = None
    try:
        version = _check_ours(reader)
        if version > 0:
            _integrity(reader)
        mode = str(reader.execute("PRAGMA journal_mode").fetchone()[0]).lower()
        if mode != "wal":
            try:
                mode = str(reader.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
            except sqlite3.Error as exc:  # another program reads it now: next time
                if fault(exc).kind != "locked":
                    raise
            if mode != "wal":
                log.warning("the history %s is not in WAL mode (%s)", p, mode)
        writer = _connect(_file_uri(p, "rw"), uri=True)
        writer.execute("PRAGMA synchronous = NORMAL")
        writer.execute("PRAGMA foreign_keys = ON")
        if version < SCHEMA_VERSION:
            try:
                _migrate(writer, wait=False)
            except sqlite3.Error as exc:
                if fault(exc).kind != "locked":
                    raise
                # Another program holds the write lock: read a migrated copy, migrate the
                # file at the first write.
                log.info("the history %s is migrated at the first write (it is locked now)", p)
                copy = _current_copy(reader, keep=True)
                return Opened(copy, p, writer=writer, file_reader=reader), None
        return Opened(reader, p, writer=writer), None
    except _Newer as exc:
        if writer is not None:
            writer.close()
        reader.execute("PRAGMA query_only = 1")
        # Translators: {schema} and {known} are version numbers of the history's format.
        message = _(
            "History {path} was written by a newer version of Kings Corners (schema {schema}, this one"
            " knows {known}): it is shown as it is and this session's games are not recorded."
        ).format(path=shown, schema=exc.args[0], known=SCHEMA_VERSION)
        return Opened(reader, p, read_only=True), message
    except BaseException as exc:
        for con in (reader, writer):
            if con is not None:
                con.close()
        if isinstance(exc, _NotOurs):
            said = _("History {path} is not a Kings Corners history ({reason}).").format(path=shown, reason=exc)
            return _in_memory(said + " " + _(_LEFT))
        if isinstance(exc, _Damaged):
            return _damaged(p, head, str(exc))
        if isinstance(exc, sqlite3.Error | UnicodeDecodeError):
            f = fault(exc, p.parent)
            if f.kind == "damaged":
                # Translators: {error} is SQLite's own message (in English).
                return _damaged(p, head, _("SQLite reports: {error}").format(error=one_line(str(exc), 120)))
            return _unusable(p, f, new=new)
        raise


def _damaged(p: Path, head: bytes, detail: str) -> tuple[Opened, str | None]:
    """A damaged file: set aside and a new one started when it is provably ours and the
    app's own; else left as it is."""
    shown = one_line(str(p))
    if not (_header_ours(head) and _is_app_file(p)):
        said = _("History {path} is damaged ({detail}).").format(path=shown, detail=detail)
        return _in_memory(said + " " + _(_LEFT))
    try:
        aside = _set_aside(p)
    except OSError as exc:
        said = _("History {path} is damaged ({detail}) and cannot be set aside ({reason}).").format(
            path=shown, detail=detail, reason=reason(exc)
        )
        return _in_memory(said + " " + _(_LEFT))
    log.warning("History %s is damaged (%s): it was set aside as %s", shown, detail, one_line(aside.name))
    h, problem = _open_file(p, b"", new=True)
    if problem is not None:
        # Translators: {aside} is the name the damaged file was given.
        said = _("History {path} is damaged ({detail}): it was set aside as {aside}.")
        return h, said.format(path=shown, detail=detail, aside=one_line(aside.name)) + " " + problem
    said = _("History {path} is damaged ({detail}): it was set aside as {aside} and a new history was started.")
    return h, said.format(path=shown, detail=detail, aside=one_line(aside.name))


def _unusable(p: Path, f: Fault, *, new: bool) -> tuple[Opened, str | None]:
    """A file that cannot be used for ``f``: left as it is, its games copied into memory when
    they can be read."""
    shown = one_line(str(p))
    if f.kind == "locked":
        return _in_memory(_("History {path} is locked by another program.").format(path=shown) + " " + _(_LEFT))
    if new:
        return _in_memory(
            _("History {path} cannot be created: {reason}; this session's games are kept in memory only.").format(
                path=shown, reason=f.words
            )
        )
    if f.unwritable:
        said = _("History {path} cannot be written: {reason}.")
    else:
        said = _("History {path} cannot be used: {reason}.")
    message = said.format(path=shown, reason=f.words) + " " + _(_LEFT)
    log.warning("%s", message)
    try:
        copy = _current_copy(_read_copy(p))
        copy.execute("PRAGMA foreign_keys = ON")
    except Exception as exc:  # it cannot be read either: an empty history
        log.info("the history %s cannot be copied into memory: %s", p, reason(exc))
        return Opened(_memory(), None), message
    return Opened(copy, None), message


def _in_memory(message: str) -> tuple[Opened, str | None]:
    log.warning("%s", message)
    return Opened(_memory(), None), message


def open_read_only(path: Path) -> Opened:
    """The history at ``path`` for reading only (the ``stats`` command): nothing is created,
    written, migrated on disk or moved, and recording does nothing. An earlier version is
    migrated in a copy in memory; a newer one is read as it is. :class:`HistoryError` (one
    plain line naming the file) when it is missing, not ours, damaged, locked or unreadable."""
    p = Path(path)
    shown = one_line(str(p))
    try:
        st = stat_regular(p)
    except FileError as exc:
        raise HistoryError(str(exc)) from None
    if st.st_size == 0 and not os.path.lexists(p.with_name(p.name + "-wal")):
        return Opened(_memory(), p, read_only=True)  # a history not yet written to
    try:
        head = _head(p)
    except OSError as exc:
        raise HistoryError(
            _("{path}: cannot be read ({reason})").format(path=shown, reason=reason(exc, p.parent))
        ) from None
    if st.st_size and not head.startswith(SQLITE_MAGIC):
        raise HistoryError(_("{path}: not a Kings Corners history (not an SQLite database)").format(path=shown))
    con: sqlite3.Connection | None = None
    try:
        con = _snapshot(p) or _connect(_file_uri(p, "ro"), uri=True, timeout_ms=READ_TIMEOUT_MS)
        version = _check_ours(con)
        if version > 0:
            _integrity(con)
        con.execute("PRAGMA query_only = 0")
        con = _current_copy(con)
        con.execute("PRAGMA query_only = 1")
    except _Newer:
        assert con is not None
        con.execute("PRAGMA query_only = 1")
    except BaseException as exc:
        if con is not None:
            con.close()
        if isinstance(exc, _NotOurs):
            raise HistoryError(
                _("{path}: not a Kings Corners history ({reason})").format(path=shown, reason=exc)
            ) from None
        if isinstance(exc, _Damaged):
            raise HistoryError(_("{path}: the history is damaged ({reason})").format(path=shown, reason=exc)) from None
        if isinstance(exc, sqlite3.Error | OSError | UnicodeDecodeError):
            f = fault(exc, p.parent)
            if f.kind == "locked":
                raise HistoryError(_("{path}: locked by another program").format(path=shown)) from None
            if f.kind == "damaged" and not _header_ours(head):
                raise HistoryError(
                    _("{path}: not a Kings Corners history (a damaged SQLite file)").format(path=shown)
                ) from None
            if f.kind == "damaged":
                raise HistoryError(
                    _("{path}: the history is damaged ({reason})").format(path=shown, reason=one_line(str(exc), 120))
                ) from None
            raise HistoryError(_("{path}: cannot be read ({reason})").format(path=shown, reason=f.words)) from None
        raise
    return Opened(con, p, read_only=True)
