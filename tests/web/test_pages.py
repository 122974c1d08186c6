"""``kings-corners serve``'s own pages: the app's page, whose terminal a screen reader reads
(xterm.js' ``screenReaderMode``: its accessibility tree of rows and its live region), in the
player's language, with the plain page one click away; textual-serve's page script changed by one
checked replacement, and a script not known refused in one line. A real serve, a real headless
Chromium (:mod:`tests.web.cdp`)."""

from __future__ import annotations

from pathlib import Path

import pytest
import textual_serve

from kc_tui.cli import main
from kc_tui.i18n import catalog
from kc_tui.web import page as pages
from kc_tui.web.page import PageError, load_reader_script, reader_script

from .cdp import CHROMIUM, Page, browser, chromium_available
from .servekit import serving

STATICS = Path(textual_serve.__file__).resolve().parent / "static"
READER = "screenReaderMode:!0"

needs_chromium = pytest.mark.skipif(
    not chromium_available(), reason=f"Chromium is not installed at {CHROMIUM} (.ci/run installs Debian's chromium)"
)


def test_the_page_script_makes_its_terminal_in_the_screen_readers_mode() -> None:
    shipped = (STATICS / pages.SCRIPT_NAME).read_text(encoding="utf-8")
    assert READER not in shipped  # textual-serve's own terminal has no screen reader's mode
    changed = load_reader_script(STATICS).decode("utf-8")
    assert changed.count(READER) == 1
    at = changed.index(READER)
    assert changed[:at].endswith(".Terminal({") and changed[:at].rfind("this.terminal=new ") > at - 40
    # Nothing else changed.
    assert changed.replace(pages.READER_OPTION, "", 1) == shipped


@pytest.mark.parametrize(
    "script",
    [
        "",
        "const t = new Terminal({fontSize: 12});",
        "this.terminal=new v.Terminal({a:1});this.terminal=new w.Terminal({b:2});",
    ],
    ids=["empty", "another-build", "twice"],
)
def test_a_page_script_not_known_is_refused_in_one_line(script: str) -> None:
    with pytest.raises(PageError) as refused:
        reader_script(script)
    assert "textual-serve's page script is not one this version knows" in str(refused.value)
    assert "\n" not in str(refused.value)


def test_serve_with_a_page_script_it_cannot_read_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(pages, "SCRIPT_NAME", "js/not-there.js")
    assert main(["serve", "--port", "1", "--root", str(tmp_path / "root")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith("kings-corners: textual-serve's page script cannot be read: "), line


async def click(page: Page, selector: str) -> None:
    """One click of the mouse in the middle of the element ``selector``."""
    box = await page.evaluate(
        f"(() => {{ const r = document.querySelector({selector!r}).getBoundingClientRect();"
        " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
    )
    x, y = box
    for kind in ("mousePressed", "mouseReleased"):
        await page.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)


@needs_chromium
async def test_the_app_page_is_read_by_a_screen_reader_in_the_players_language(tmp_path: Path) -> None:
    italian = catalog("it")
    with serving(tmp_path, lang="it") as served:
        async with browser() as b:
            page = await b.open(served.url)
            await page.wait_for("document.body && document.body.classList.contains('-first-byte')")
            assert await page.evaluate("document.documentElement.lang") == "it"
            # The terminal keeps its rows as text for a screen reader, and a live region it reads.
            tree = "document.querySelector('#terminal .xterm-accessibility .xterm-accessibility-tree')"
            await page.wait_for(f"{tree} && {tree}.getAttribute('role') === 'list'")
            menu = italian.gettext("New game")
            assert menu != "New game"
            await page.wait_for(f"{tree}.textContent.includes({menu!r})")
            live = "document.querySelector('#terminal .xterm-accessibility .live-region')"
            assert await page.evaluate(f"{live}.getAttribute('aria-live')") == "assertive"
            # The plain page, one click away, in the same language.
            link = italian.gettext("Plain text mode (for screen readers)")
            assert link != "Plain text mode (for screen readers)"
            assert await page.evaluate("document.getElementById('plain-link').textContent") == link
            await click(page, "#plain-link")
            await page.wait_for("location.pathname === '/plain' && document.readyState === 'complete'")
            assert await page.evaluate("document.documentElement.lang") == "it"
            heading = italian.gettext("Kings Corners in plain text")
            assert await page.evaluate("document.querySelector('h1').textContent") == heading
            assert await page.evaluate("document.querySelector('#log').getAttribute('role')") == "log"
            assert await page.evaluate("document.querySelector('#log').getAttribute('aria-live')") == "polite"
