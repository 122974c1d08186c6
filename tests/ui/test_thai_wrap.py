"""Thai wrapped on a terminal: at its words (the catalog's U+200B marks), never inside a letter
(a consonant and its marks) nor after a leading vowel (เ แ โ ใ ไ), in the cells the screen has."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
import rich._wrap
import rich.text
import textual.content
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from kc_tui.ui import linebreak
from kc_tui.ui.app import KingsCornersApp
from kc_tui.ui.linebreak import ZWSP, ZeroWidthFilter, divide_line
from tests.ui.conftest import wait_for
from tests.ui.fitkit import screen_lines
from tests.ui.gamekit import make_config
from tests.ui.thaikit import PARAGRAPHS, Shows

#: Thai marks drawn on the letter before them: no line starts with one (nor with SARA AM ำ).
MARKS = frozenset("\u0e31\u0e33" + "".join(map(chr, range(0x0E34, 0x0E3B))) + "".join(map(chr, range(0x0E47, 0x0E4F))))
LEADING_VOWELS = frozenset("เแโใไ")


def line_starts(text: str, lines: list[str]) -> list[int]:
    """Where in ``text`` (its marks taken out) each of the screen's ``lines`` begins, checking that
    the lines are ``text`` in order, whole, with only spaces left out at the breaks."""
    shown = text.replace(ZWSP, "")
    starts = []
    at = 0
    for line in lines:
        while at < len(shown) and shown[at] == " " and not line.startswith(" "):
            at += 1
        assert shown[at : at + len(line)] == line, f"{line!r} is not the text at {at}: {shown[at:]!r}"
        starts.append(at)
        at += len(line)
    assert shown[at:].strip() == "", f"the screen lost {shown[at:]!r}"
    return starts


def breaks_allowed(text: str) -> set[int]:
    """The places in ``text`` (its marks taken out) where a line may begin: after a space, or
    where a mark was."""
    allowed = {0}
    at = 0
    for ch in text:
        if ch == ZWSP:
            allowed.add(at)
            continue
        at += 1
        if ch == " ":
            allowed.add(at)
    return allowed


def assert_wrapped(text: str, lines: list[str], width: int, marked: bool = True) -> None:
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    assert len(lines) > 1 or cell_len(text) <= width, "the text was not wrapped"
    for line in lines:
        assert ZWSP not in line, f"a break mark is drawn: {line!r}"
        assert cell_len(line) <= width, f"{line!r} takes {cell_len(line)} cells of {width}"
        assert line and line[0] not in MARKS, f"a line starts with a mark: {line!r}"
        assert line[-1] not in LEADING_VOWELS, f"a line ends with a leading vowel: {line!r}"
    starts = line_starts(text, lines)
    if marked:
        assert set(starts) <= breaks_allowed(text), f"lines begin between marks: {lines}"


async def shown_lines(text: str, size: tuple[int, int], width: int | None = None, label: bool = False) -> list[str]:
    app = Shows(text, width, label)
    async with app.run_test(size=size) as pilot:
        widget = app.query_one("#text")
        await wait_for(pilot, lambda: widget.region.height > 0)
        return screen_lines(app, widget)


@pytest.mark.parametrize("size", [(80, 24), (30, 24)], ids=["80x24", "30x24"])
@pytest.mark.parametrize("index", range(len(PARAGRAPHS)))
async def test_a_thai_paragraph_breaks_between_its_words(size: tuple[int, int], index: int) -> None:
    text = PARAGRAPHS[index]
    assert_wrapped(text, await shown_lines(text, size), size[0])


@pytest.mark.parametrize("width", [7, 12, 19, 23])
async def test_a_thai_paragraph_in_a_narrow_label_breaks_between_its_words(width: int) -> None:
    text = PARAGRAPHS[3]
    assert_wrapped(text, await shown_lines(text, (30, 24), width, label=True), width)


@pytest.mark.parametrize("width", [5, 9, 16, 30])
async def test_thai_without_marks_folds_between_letters(width: int) -> None:
    text = PARAGRAPHS[3].replace(ZWSP, "")
    assert_wrapped(text, await shown_lines(text, (30, 24), width), width, marked=False)


@pytest.mark.parametrize("width", [1, 2, 3, 4, 6])
def test_a_word_wider_than_the_line_folds_between_letters(width: int) -> None:
    for text in ("เด็ค", "น้ำเงิน", "ไม่ต้องจั่วไพ่", "คนอื่นๆ", "เกมไพ่เกมใหม่"):
        pieces = split(text, divide_line(text, width))
        assert "".join(pieces) == text
        for piece in pieces:
            assert piece[0] not in MARKS, pieces
            if width >= 2:  # a line of one cell splits เด as เ|ด, นๆ as น|ๆ
                assert piece[0] != "ๆ" and piece[-1] not in LEADING_VOWELS, pieces
                assert cell_len(piece) <= width, pieces


def split(text: str, offsets: list[int]) -> list[str]:
    return [text[a:b] for a, b in zip([0, *offsets], [*offsets, len(text)], strict=True)]


def test_a_break_mark_takes_no_cell_and_draws_nothing() -> None:
    assert cell_len(ZWSP) == 0
    segments = ZeroWidthFilter().apply(list(Text("ไพ่" + ZWSP + "ของ").render(Console())), None)  # type: ignore[arg-type]
    assert "".join(seg.text for seg in segments) == "ไพ่ของ"


def test_text_with_no_thai_wraps_as_rich_does() -> None:
    texts = (
        "Kings Corners is a multi-player card game similar to solitaire.",
        "Ana played the 7♥ on the K♠ pile   (R10) — and drew a card.",
        "averyveryverylongwordthatmustfoldsomewhere and more words",
        "  leading spaces, trailing spaces   ",
        "Tiếng Việt: người chơi đặt lá bài",
    )
    for text in texts:
        for width in (1, 5, 8, 13, 20, 40, 80):
            for fold in (True, False):
                assert divide_line(text, width, fold) == rich._wrap.divide_line(text, width, fold), (text, width)


def test_rich_text_wraps_thai_between_its_words() -> None:
    text = PARAGRAPHS[0]
    console = Console(width=30, file=None, force_terminal=False)
    linebreak.install()
    lines = [line.plain for line in Text(text).wrap(console, 30)]
    assert_wrapped(text, [line.replace(ZWSP, "") for line in lines], 30)


def test_the_hook_is_where_rich_and_textual_wrap() -> None:
    """A Textual or Rich upgrade that moves the function the lines are wrapped with fails here:
    both modules wrap with a ``divide_line(text, width, fold)`` imported by name."""
    assert linebreak.install() == ("rich.text", "textual.content")
    assert linebreak.installed()
    for module, caller in (
        (rich.text, rich.text.Text.wrap),
        (textual.content, textual.content.Content._wrap_and_format),
    ):
        assert module.divide_line is divide_line
        assert "divide_line(" in inspect.getsource(caller), f"{caller.__qualname__} wraps another way"
    assert list(inspect.signature(linebreak.rich_divide_line).parameters) == ["text", "width", "fold"]


def test_the_game_wraps_with_the_hook() -> None:
    app: Any = KingsCornersApp(make_config())
    assert linebreak.installed()
    assert any(isinstance(f, ZeroWidthFilter) for f in app._filters)
