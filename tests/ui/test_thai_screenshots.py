"""Screenshots of Thai: the SVG gives each Thai text its length in cells, and the PNG copy draws
Thai in a font that has it (Debian's fonts-thai-tlwg, which .ci/run installs), not as boxes, and
the Vietnamese letters the monospace font lacks in DejaVu Sans."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from rich.cells import cell_len

from kc_tui.screenshots import PNG_LETTER_FONT, PNG_THAI_FONT, letter_runs, thai_runs, to_png
from kc_tui.ui.linebreak import ZWSP
from tests.ui.thaikit import PARAGRAPHS, Shows

TEXT = re.compile(r'<text [^>]*?x="([\d.]+)"[^>]*?textLength="([\d.]+)"([^>]*)>([^<]*)</text>')
THAI = re.compile("[\u0e00-\u0e7f]")


async def screenshot(text: str, size: tuple[int, int] = (80, 24)) -> str:
    app = Shows(text)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        return app.export_screenshot(title="Kings Corners")


def texts(svg: str) -> list[tuple[float, float, str, str]]:
    return [(float(x), float(length), rest, html.unescape(body)) for x, length, rest, body in TEXT.findall(svg)]


async def test_each_thai_text_is_as_long_as_its_cells() -> None:
    svg = thai_runs(await screenshot(PARAGRAPHS[0]))
    assert ZWSP not in svg
    found = texts(svg)
    cell = next(length / len(body) for _x, length, _rest, body in found if body and not THAI.search(body))
    thai = [(length, body) for _x, length, _rest, body in found if THAI.search(body)]
    assert len(thai) >= 2
    for length, body in thai:
        assert length == pytest.approx(cell_len(body) * cell, abs=0.01), body
    assert thai_runs(svg) == svg


async def test_the_png_font_draws_the_thai_pieces_at_their_cells() -> None:
    svg = thai_runs(await screenshot(PARAGRAPHS[2].replace("(", "K♠ ("), (30, 24)), PNG_THAI_FONT)
    found = texts(svg)
    thai = [(x, length, rest) for x, length, rest, body in found if THAI.search(body)]
    assert thai and all(f"font-family: {PNG_THAI_FONT}" in rest for _x, _length, rest in thai)
    assert not any(f"font-family: {PNG_THAI_FONT}" in rest for _x, _l, rest, body in found if not THAI.search(body))
    assert any("♠" in body for _x, _l, _rest, body in found)
    cells = [(x, length, int(re.findall(r'data-cells="(\d+)"', rest)[0])) for x, length, rest in thai]
    cell = cells[0][1] / cells[0][2]
    for x, length, n in cells:
        assert length == pytest.approx(n * cell, abs=0.01)
        assert x / cell == pytest.approx(round(x / cell), abs=0.01), f"a Thai piece starts between cells at {x}"
    assert thai_runs(svg, PNG_THAI_FONT) == svg


async def test_the_png_font_draws_each_vietnamese_letter_alone_in_its_cell() -> None:
    """DejaVu Sans Mono lacks ể and ủ: each letter of Latin Extended Additional is cut out and
    drawn in DejaVu Sans, one cell wide; the others stay in their texts."""
    svg = letter_runs(await screenshot("Có thể đánh lên N. lượt của bạn 7♥"), PNG_LETTER_FONT)
    found = texts(svg)
    alone = [(x, length, body) for x, length, rest, body in found if f"font-family: {PNG_LETTER_FONT}" in rest]
    assert sorted(body for _x, _l, body in alone) == sorted("ểợủạ")
    cell = next(length / len(body) for _x, length, rest, body in found if body.strip() and "font-family" not in rest)
    for x, length, body in alone:
        assert len(body) == 1 and length == pytest.approx(cell, abs=0.01), body
        assert x / cell == pytest.approx(round(x / cell), abs=0.01), f"{body} starts between cells at {x}"
    assert "đánh" in "".join(body for _x, _l, _rest, body in found)
    assert letter_runs(svg, PNG_LETTER_FONT) == svg


async def test_text_with_no_thai_is_left_as_it_is() -> None:
    svg = await screenshot("Kings Corners: your turn, 7♥ on K♠")
    assert thai_runs(svg) == svg
    assert thai_runs(svg, PNG_THAI_FONT) == svg
    assert letter_runs(svg, PNG_LETTER_FONT) == svg


@pytest.mark.skipif(shutil.which("fc-match") is None, reason="no fontconfig")
async def test_the_png_copy_of_thai_has_its_font(tmp_path: Path) -> None:
    pytest.importorskip("cairosvg")
    matched = subprocess.run(
        ["fc-match", "-f", "%{family}", PNG_THAI_FONT], capture_output=True, text=True, check=True, timeout=30
    )
    assert PNG_THAI_FONT in matched.stdout, f"{PNG_THAI_FONT} is not installed (apt-get install fonts-thai-tlwg)"
    svg = tmp_path / "thai.svg"
    svg.write_text(thai_runs(await screenshot(PARAGRAPHS[1])), encoding="utf-8")
    png = to_png(svg)
    assert png is not None and png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
