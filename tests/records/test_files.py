"""The history file's faults in plain words (kc_tui/records/files.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kc_tui.records import files


def test_reason_reads_sqlite_error_codes_into_plain_words(tmp_path: Path) -> None:
    def error(name: str) -> sqlite3.Error:
        exc = sqlite3.OperationalError("x")
        exc.sqlite_errorname = name
        return exc

    assert files.reason(error("SQLITE_FULL")) == "the disk is full"
    assert files.reason(error("SQLITE_BUSY")) == "the history is locked by another program"
    assert files.reason(error("SQLITE_LOCKED_SHAREDCACHE")) == "the history is locked by another program"
    assert files.reason(error("SQLITE_READONLY_DBMOVED"), tmp_path) == "the file or its folder is read-only"
    assert files.reason(error("SQLITE_IOERR_WRITE"), tmp_path) == "the disk reported an input/output error"
    assert files.reason(error("SQLITE_CORRUPT")) == "the file is damaged"
    assert files.reason(error("SQLITE_NOTADB")) == "the file is damaged"
    assert files.reason(error("SQLITE_PERM")) == "permission is denied"
    assert files.reason(OSError(28, "No space left on device")) == "the disk is full"
    assert files.reason(OSError(13, "Permission denied")) == "permission is denied"
