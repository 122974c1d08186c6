"""Snapshots of the seeded table mid-round at 80x24 in Thai and in Italian (the screenshot
maker's ``table-<code>-80x24``: a card picked, its legal pile highlighted)."""

from __future__ import annotations

from typing import Any

import pytest

from kc_tui.i18n import use
from kc_tui.screenshots import DRIVERS, SIZES, make_app, shot_config


@pytest.mark.parametrize("code", ["th", "it"])
def test_the_table_at_80x24_snapshot(snap_compare: Any, code: str) -> None:
    use(code)
    name = f"table-{code}-80x24"
    assert snap_compare(make_app(shot_config()), terminal_size=SIZES[name], run_before=DRIVERS[name])
