"""The log file: capped in size, and a record that cannot be written is dropped quietly."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from kc_tui.config.logs import LOG_NAME, LogFile


def _record(message: str, level: int = logging.WARNING) -> logging.LogRecord:
    return logging.LogRecord("kc_tui.test", level, __file__, 1, message, None, None)


def test_the_file_is_set_aside_once_it_would_pass_its_cap(tmp_path: Path) -> None:
    handler = LogFile(tmp_path, max_bytes=400)
    for i in range(40):
        handler.handle(_record(f"record {i:02d}"))
    handler.close()
    current, older = tmp_path / LOG_NAME, tmp_path / (LOG_NAME + ".1")
    assert current.stat().st_size <= 400 and older.stat().st_size <= 400
    assert "record 39" in current.read_text(encoding="utf-8")
    assert "record 00" not in current.read_text(encoding="utf-8") + older.read_text(encoding="utf-8")


def test_the_file_follows_the_data_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    handler = LogFile()
    for name in ("one", "two"):
        monkeypatch.setenv("KINGS_CORNERS_DATA", str(tmp_path / name))
        handler.handle(_record(f"in {name}"))
    handler.close()
    assert "in one" in (tmp_path / "one" / LOG_NAME).read_text(encoding="utf-8")
    assert "in one" not in (tmp_path / "two" / LOG_NAME).read_text(encoding="utf-8")


def test_a_record_that_cannot_be_written_is_dropped_quietly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("", encoding="utf-8")
    handler = LogFile(blocker / "data")
    handler.handle(_record("nowhere to go"))
    handler.close()
    assert capsys.readouterr() == ("", "")
    assert blocker.read_text(encoding="utf-8") == ""
