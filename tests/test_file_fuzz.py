"""A quick fuzz run of the save, settings and history readers (fixed seeds, a few seconds): no
file, however damaged, may crash them; every unusable save or settings file is reported and kept
aside, and no history row crashes a reader or is changed by a command that only reads.

The contracts are in ``tests/fuzz_targets/saves.py``, ``settings.py`` and ``history_rows.py``; for
a long run use ``tests/benchmarks/fuzz_files.py``.
"""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType

import pytest

from kc_tui.records.store import History
from tests.fuzz_targets import history_rows, saves, settings

CASES = 250
#: History cases are slower (each opens two histories and runs every reader): a few seconds.
HISTORY_CASES = 60


def _violations(target: ModuleType, seed: int, n: int, tmp_path: Path) -> list[str]:
    out: list[str] = []
    for i, data in enumerate(target.cases(random.Random(seed), n)):
        problem = target.check(data, tmp_path)
        if problem is not None:
            out.append(f"case {i} ({len(data)} bytes, starts {data[:60]!r}): {problem}")
    return out


@pytest.mark.parametrize("target", [saves, settings], ids=["saves", "settings"])
def test_no_file_breaks_the_contract(target: ModuleType, tmp_path: Path) -> None:
    problems = _violations(target, 20250101, CASES, tmp_path)
    assert not problems, f"{len(problems)} violations, first: " + "\n".join(problems[:5])


@pytest.mark.parametrize("target", [saves, settings], ids=["saves", "settings"])
def test_the_cases_cover_both_outcomes(target: ModuleType, tmp_path: Path) -> None:
    """The run is worth something only if some files are usable and most are not."""
    from kc_tui.config.store import load_config
    from kc_tui.match.session import load_or_quarantine

    usable = 0
    n = 120
    for i, data in enumerate(target.cases(random.Random(7), n)):
        assert "\u2063FUZZ".encode() not in data and b"\\u2063FUZZ" not in data, "a placeholder was left in"
        path = tmp_path / f"{i}.file"
        path.write_bytes(data)
        if target is saves:
            usable += load_or_quarantine(path)[0] is not None
        else:
            usable += load_config(path)[1] is None
    assert 0.03 * n <= usable <= 0.5 * n


def test_check_reports_a_reader_that_crashes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks themselves can fail: a reader that raises, or leaves a bad file in place."""

    def crash(*args: object, **kwargs: object) -> object:
        raise IndexError("boom")

    monkeypatch.setattr(saves, "load_or_quarantine", crash)
    monkeypatch.setattr(settings, "load_config", crash)
    assert "raised IndexError" in (saves.check(b"{}", tmp_path) or "")
    assert "raised IndexError" in (settings.check(b"x = 1", tmp_path) or "")

    monkeypatch.setattr(saves, "load_or_quarantine", lambda path: (None, "The saved match could not be resumed."))
    assert "left at its path" in (saves.check(b"{}", tmp_path) or "")


def test_no_history_row_breaks_a_reader(tmp_path: Path) -> None:
    problems = _violations(history_rows, 20250101, HISTORY_CASES, tmp_path)
    assert not problems, f"{len(problems)} violations, first: " + "\n".join(problems[:5])


def test_the_history_check_reports_a_reader_that_crashes_or_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The history check itself can fail: a reader that raises, or a read-only open that writes."""
    data = next(history_rows.cases(random.Random(1), 1))
    assert history_rows.check(data, tmp_path) is None

    def crash(self: object, *args: object, **kwargs: object) -> object:
        raise IndexError("boom")

    with monkeypatch.context() as m:
        m.setattr(History, "summary", crash)
        assert "summary() raised IndexError" in (history_rows.check(data, tmp_path) or "")

    real = History.open_read_only

    def writes(path: Path) -> object:
        path.with_name(path.name + "-wal").write_bytes(b"")
        return real(path)

    monkeypatch.setattr(History, "open_read_only", staticmethod(writes))
    assert "changed the file or its folder" in (history_rows.check(data, tmp_path) or "")
