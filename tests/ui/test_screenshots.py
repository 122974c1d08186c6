"""``python -m kc_tui.screenshots`` writes every screenshot as valid SVG and PNG."""

from __future__ import annotations

import html
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from kc_tui.screenshots import SHOTS

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_the_command_regenerates_every_screenshot(tmp_path: Path) -> None:
    pytest.importorskip("cairosvg")
    out = tmp_path / "shots"
    done = subprocess.run(
        [sys.executable, "-m", "kc_tui.screenshots", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    for name, _caption in SHOTS:
        svg = out / f"{name}.svg"
        root = ET.parse(svg).getroot()
        assert root.tag.endswith("svg"), name
        assert "Kings Corners" in html.unescape(svg.read_text(encoding="utf-8")).replace("\xa0", " ")
        png = (out / f"{name}.png").read_bytes()
        assert png.startswith(PNG_MAGIC), name
        width = int.from_bytes(png[16:20], "big")
        height = int.from_bytes(png[20:24], "big")
        assert width > 800 and height > 400, (name, width, height)
    listed = sorted(p.name for p in out.iterdir())
    assert listed == sorted([f"{n}.svg" for n, _ in SHOTS] + [f"{n}.png" for n, _ in SHOTS])


def test_the_committed_screenshots_are_in_the_players_doc() -> None:
    root = Path(__file__).resolve().parents[2]
    playing = (root / "docs" / "PLAYING.md").read_text(encoding="utf-8")
    assert "## Screenshots" in playing and "## Settings" in playing
    for name, _caption in SHOTS:
        assert f"screenshots/{name}.png" in playing, name
        assert (root / "screenshots" / f"{name}.png").is_file(), name
        assert (root / "screenshots" / f"{name}.svg").is_file(), name


def test_unknown_screenshot_names_are_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kc_tui.screenshots", "--out", str(tmp_path), "--only", "nope"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and "unknown screenshot 'nope'" in done.stderr


def test_the_match_summary_shot_stops_at_the_round_that_ends_the_match() -> None:
    """The script asks the engine whether scoring a finished round ends the match (R15): every
    earlier round end says no, and finishing the round it stops at ends the match."""
    from kc_tui.screenshots import _advance, _last_round_over, _session, shot_config

    session = _session(shot_config())
    earlier: list[bool] = []

    def stop(s: Any) -> bool:
        if s.match.round.over:
            earlier.append(_last_round_over(s))
        return _last_round_over(s)

    _advance(session, stop)
    assert earlier[-1] and not any(earlier[:-1])
    assert not session.match.over
    before = session.match.live_chips()
    session.finish_round()
    assert session.match.over
    assert max(session.match.live_chips()) >= session.match.rules.target > max(before)


def test_the_table_is_taken_in_each_language_the_title_in_english(tmp_path: Path) -> None:
    """``table-<code>`` is the seeded game in that language; the run speaks English after it."""
    from kc_tui.i18n import _, current, use
    from kc_tui.screenshots import OTHER_LANGUAGES, SHOT_LANGUAGES, generate

    assert set(SHOT_LANGUAGES.values()) == set(OTHER_LANGUAGES) == {"sw", "th", "vi", "it"}
    names = {n for n, _caption in SHOTS}
    assert all(f"table-{code}" in names and f"table-{code}-80x24" in names for code in OTHER_LANGUAGES)
    generate(tmp_path, ["table-it-80x24"], png=False)
    assert current() == "en"
    text = html.unescape((tmp_path / "table-it-80x24.svg").read_text(encoding="utf-8")).replace("\xa0", " ")
    use("it")
    turn = _("your turn")
    use("en")
    assert turn != "your turn" and turn in text
    assert "Kings Corners · table it 80x24" in text
