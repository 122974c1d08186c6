"""A screen's CSS file joins the app's stylesheet once the screen has been shown, and stays: a
rule that names an id without its screen's type (``#demo {...}``) also styles that id on every
other screen (the menu's "Watch a demo" button, id ``demo``, grew to the whole screen after a
demo). Every id a screen's file styles so is no other screen's."""

from __future__ import annotations

import re
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "kc_tui" / "ui"
SCREEN_CLASS = re.compile(r"^class \w+\([^)]*Screen\b", re.M)


def unscoped_ids(tcss: str) -> set[str]:
    """The ids the rules of ``tcss`` start with (no type selector before them)."""
    text = re.sub(r"/\*.*?\*/", "", tcss, flags=re.S)
    ids: set[str] = set()
    for selectors in re.findall(r"([^{}]+)\{", text):
        for selector in selectors.split(","):
            first = selector.strip().split()[0] if selector.strip() else ""
            m = re.match(r"#([\w-]+)", first)
            if m:
                ids.add(m.group(1))
    return ids


def screens_using_id(wid: str) -> dict[Path, str]:
    """The modules of kc_tui/ui that define a screen and give a widget the id ``wid``: their text."""
    found = {}
    for path in UI.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if SCREEN_CLASS.search(text) and re.search(rf"""id=f?["']{re.escape(wid)}["']""", text):
            found[path] = text
    return found


def test_an_id_a_screens_css_styles_unscoped_is_that_screens_alone() -> None:
    files = sorted((UI / "screens").glob("*.tcss"))
    assert len(files) >= 5
    clashes = []
    for tcss in files:
        for wid in unscoped_ids(tcss.read_text(encoding="utf-8")):
            for path, text in screens_using_id(wid).items():
                if tcss.name not in text:  # a screen that does not load the file
                    clashes.append(f"{tcss.name} styles #{wid}, an id of {path.relative_to(UI)}")
    assert not clashes, clashes


def test_the_check_finds_an_unscoped_id() -> None:
    assert unscoped_ids("/* x */\n#demo { height: 1fr; }\nDemoScreen #side, #a.-b > Static { x: 1; }") == {"demo", "a"}
    assert "menu.py" in {p.name for p in screens_using_id("demo")}
