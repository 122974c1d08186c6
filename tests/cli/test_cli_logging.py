"""The log file of a run of the command line: where it is, what level goes into it, and that a
run leaves the loggers as it found them."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

import kc_tui.cli as cli
import kc_tui.cli.positions as positions
from kc_tui.config.logs import LOG_NAME, LOGGERS
from kc_tui.match.saves import write_save
from tests.engine.helpers import valid_position

LEVELS = ("debug", "info", "warning", "error")


def _check(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    logs: Callable[[], None],
    *flags: str,
) -> tuple[int, str, Path]:
    """``kings-corners [flags] check FILE`` with the data folder in ``tmp_path``, ``logs`` run while
    the position is read; the exit code, stderr and the log file's path."""
    data = tmp_path / "data"
    monkeypatch.setenv("KINGS_CORNERS_DATA", str(data))
    pos = tmp_path / "pos.json"
    pos.write_text(json.dumps(valid_position()), encoding="utf-8")
    real = positions._read_position

    def reading(file: str) -> object:
        logs()
        return real(file)

    monkeypatch.setattr(positions, "_read_position", reading)
    code = cli.main([*flags, "check", str(pos)])
    return code, capsys.readouterr().err, data / LOG_NAME


def test_a_fault_logged_during_a_run_lands_in_the_log_file_and_not_on_the_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a folder should be", encoding="utf-8")
    problems: list[str | None] = []
    code, err, log_file = _check(
        monkeypatch, capsys, tmp_path, lambda: problems.append(write_save(blocker / "save.json", b"{}"))
    )
    assert code == 0 and err == ""
    assert problems[0] is not None  # the save failed, and said so
    text = log_file.read_text(encoding="utf-8")
    assert "ERROR kc_tui.match.saves: could not save the match to" in text
    assert problems[0] in text


@pytest.mark.parametrize("level", [None, *LEVELS])
def test_the_log_level_is_honoured(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, level: str | None
) -> None:
    def every_level() -> None:
        for name in LEVELS:
            getattr(logging.getLogger("kc_tui.match.session"), name)("a record at %s", name)

    flags = () if level is None else ("--log-level", level)
    code, err, log_file = _check(monkeypatch, capsys, tmp_path, every_level, *flags)
    assert code == 0 and err == ""
    text = log_file.read_text(encoding="utf-8")
    shown = LEVELS[LEVELS.index(level or "warning") :]
    assert [name for name in LEVELS if f"a record at {name}" in text] == list(shown)


def test_a_run_that_logs_nothing_makes_no_file_and_leaves_the_loggers_as_they_were(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    before = [(logging.getLogger(n).level, list(logging.getLogger(n).handlers)) for n in LOGGERS]
    code, _, log_file = _check(monkeypatch, capsys, tmp_path, lambda: None, "--log-level", "debug")
    assert code == 0
    assert not log_file.parent.exists()
    assert [(logging.getLogger(n).level, list(logging.getLogger(n).handlers)) for n in LOGGERS] == before


def test_an_unknown_log_level_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--log-level", "loud", "check", "x.json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--log-level" in err and "loud" in err
