"""A quick fuzz run of the save and settings readers (fixed seeds, a few seconds): no file,
however damaged, may crash them, and every unusable file is reported and kept aside.

The contract is in ``tests/fuzz_targets/saves.py`` and ``tests/fuzz_targets/settings.py``; for a
long run call their ``cases``/``check`` directly with a larger ``n``.
"""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType

import pytest

from tests.fuzz_targets import saves, settings

CASES = 250


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
    from kc_tui.config import load_config
    from kc_tui.session import load_or_quarantine

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
