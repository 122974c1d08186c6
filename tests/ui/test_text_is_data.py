"""Text from a player or a file is data: names, kinds and messages appear literally everywhere,
are never parsed as markup, and can never trigger an action."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from textual.content import Content
from textual.widgets import Static

from kc_tui.config import Config, Opponent
from kc_tui.config.store import config_path, data_dir
from kc_tui.engine import Rules
from kc_tui.match.session import MatchSession
from kc_tui.ui.dialogs.confirm import ResumeDialog
from kc_tui.ui.dialogs.summary import MatchSummary, RoundSummary
from kc_tui.ui.literal_text import fill, plain, rich_fill, rich_plain, visible
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.widgets import OpponentPanel, Scoreboard

from .conftest import wait_for
from .gamekit import new_app, new_game, open_settings, play_app, play_until, screen_text, set_input, settle

SIZE = (120, 40)
ME = "[/]"
BOLD = "[b]x[/b]"
CLICK = "[@click=app.quit]q[/]"
HOSTILE = (ME, BOLD, CLICK)
UI = Path(__file__).resolve().parents[2] / "kc_tui" / "ui"


def hostile_config(**changes: Any) -> Config:
    cfg = Config(
        player_name=ME,
        opponents=(Opponent(BOLD, "greedy"), Opponent(CLICK, "king-aware")),
        pace="instant",
    )
    return cfg.with_(**changes) if changes else cfg


def flat(text: str) -> str:
    return " ".join(text.split())


# ---------------------------------------------------------------------------- the helpers
def test_plain_is_never_markup_and_shows_control_characters() -> None:
    for raw in (*HOSTILE, "[link=http://x]y[/link]", "a[", "]]"):
        assert plain(raw).plain == raw
        assert plain(raw).spans == []
        assert rich_plain(raw).plain == raw and not rich_plain(raw).spans
    assert visible("a\x1b[31mb\x00\r\u202e") == "a\\x1b[31mb\\x00\\x0d\\u202e"
    assert visible("two\nlines") == "two\\x0alines"
    assert visible("two\nlines", newlines=True) == "two\nlines"


def test_fill_inserts_values_literally_into_markup_written_here() -> None:
    c = fill("[b]$name[/b] went out", name=CLICK)
    assert c.plain == f"{CLICK} went out"
    assert all("@click" not in str(span.style) for span in c.spans)
    assert any("b" in str(span.style) for span in c.spans)


def test_rich_fill_puts_values_where_the_sentence_has_them_literally() -> None:
    text = rich_fill("You lost: {names} won.", lead="bold red", names=rich_plain(CLICK, "bold"))
    assert text.plain == f"You lost: {CLICK} won."
    assert [(text.plain[s.start : s.end], str(s.style)) for s in text.spans] == [
        ("You lost: ", "bold red"),
        (CLICK, "bold"),
    ]
    # A language that puts the name first: the name keeps its style, the words are never markup.
    moved = rich_fill("{names} [b]won[/b]", lead="bold", names=rich_plain(BOLD))
    assert moved.plain == f"{BOLD} [b]won[/b]"
    assert [str(s.style) for s in moved.spans] == []


# ---------------------------------------------------------------------------- no markup built by hand
#: Callables and attributes that parse a plain str as markup.
SINK_CALLS = {
    "Static",
    "Label",
    "Button",
    "update",
    "notify",
    "add_row",
    "add_column",
    "from_markup",
    "write",
    "Table",
    "Panel",
    "Option",
}
#: The keywords of those that are read as markup (None: ``**kwargs``).
SINK_KEYWORDS = (None, "label", "title", "caption", "prompt", "header")
SINK_ATTRS = {"border_title", "border_subtitle"}


def _formats_text(node: ast.AST) -> bool:
    """An f-string with values, ``"..." % x``, ``"...".format(...)``, ``a + b`` on strings, ``"".join``."""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(v, ast.FormattedValue) for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        return any(isinstance(side, ast.Constant | ast.JoinedStr) and _is_str(side) for side in (node.left, node.right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in ("format", "join") and _is_str(node.func.value)
    if isinstance(node, ast.IfExp):
        return _formats_text(node.body) or _formats_text(node.orelse)
    return False


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def test_the_ui_never_formats_text_into_markup() -> None:
    """Every string put together at run time reaches a markup sink through ``plain``/``fill``/
    ``rich_plain`` (or a Rich ``Text``), never as a bare ``str``."""
    found = []
    for path in sorted(UI.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            args: list[ast.expr] = []
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
                if name in SINK_CALLS:
                    args = [*node.args, *(k.value for k in node.keywords if k.arg in SINK_KEYWORDS)]
            elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Attribute) and t.attr in SINK_ATTRS for t in node.targets
            ):
                args = [node.value]
            found += [f"{path.relative_to(UI)}:{a.lineno}" for a in args if _formats_text(a)]
    assert not found, f"text formatted into markup (use kc_tui.ui.literal_text.plain/fill): {found}"


def test_the_sink_check_catches_a_formatted_string() -> None:
    bad = ast.parse('Static(f"Hello {name}")').body[0]
    assert isinstance(bad, ast.Expr) and isinstance(bad.value, ast.Call)
    assert _formats_text(bad.value.args[0])
    good = ast.parse('Static(plain(f"Hello {name}"))').body[0]
    assert isinstance(good, ast.Expr) and isinstance(good.value, ast.Call)
    assert not _formats_text(good.value.args[0])


# ---------------------------------------------------------------------------- in the app
def _literal_everywhere(app: Any, names: tuple[str, ...]) -> str:
    text = flat(screen_text(app))
    for name in names:
        assert name in text, f"{name!r} is not shown literally: {text[:400]}"
    return text


async def test_hostile_names_show_literally_on_the_table_and_clicks_do_nothing() -> None:
    app = play_app(config=hostile_config())
    async with app.run_test(size=SIZE) as pilot:
        game = await settle(pilot)
        s = game.session
        assert s.names == [ME, BOLD, CLICK]
        _literal_everywhere(app, HOSTILE)
        # The panel titles and the scoreboard hold the names as plain text.
        for panel in game.query(OpponentPanel):
            # The getter gives the title back as markup: read as markup it is the name again.
            assert panel.player_name in Content.from_markup(str(panel.border_title)).plain
        board = game.query_one(Scoreboard)
        assert board.names == [ME, BOLD, CLICK]
        # Click every cell of the opponents' panels and the scoreboard: nothing happens.
        for widget in [*game.query(OpponentPanel), board]:
            region = widget.region
            for x in range(0, region.width, 2):
                await pilot.click(widget, offset=(x, 0))
        await pilot.pause()
        assert app.is_running and app.return_code is None
        assert app.game is game
        # An opponent's turn: the status line names them literally.
        game.action_end_turn()
        await pilot.pause()
        log = "\n".join(s.log)
        assert any(n in log for n in (BOLD, CLICK))


async def test_hostile_names_in_the_summaries_and_after_resume() -> None:
    cfg = hostile_config(rules=Rules(target=5))
    app = play_app(config=cfg)
    async with app.run_test(size=SIZE) as pilot:
        summary = await play_until(pilot, RoundSummary)
        assert isinstance(summary, RoundSummary)
        _literal_everywhere(app, HOSTILE)
        for x in range(0, SIZE[0], 3):
            await pilot.click(offset=(x, SIZE[1] // 2))
        assert app.is_running
        if not isinstance(app.screen, RoundSummary):
            summary = await play_until(pilot, RoundSummary)
        summary.action_close()
        game = await settle(pilot)
        if not game.session.match.over:
            await pilot.press("ctrl+q", "y")
            await pilot.pause()
    saved = data_dir() / "current-match.json"
    if saved.exists():
        # The menu's saved-match line and the resume dialog show the names as they are.
        app2 = play_app(config=cfg, mode="menu")
        async with app2.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app2.screen, MenuScreen))
            await pilot.pause()
            assert ME in str(app2.screen.query_one("#saved", Static).render())
            _literal_everywhere(app2, HOSTILE)
        app3 = play_app(config=cfg)
        async with app3.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app3.screen, ResumeDialog))
            _literal_everywhere(app3, HOSTILE)
            await pilot.press("c")
            await settle(pilot)
            _literal_everywhere(app3, HOSTILE)
            match = await play_until(pilot, MatchSummary)
            assert isinstance(match, MatchSummary)
            _literal_everywhere(app3, HOSTILE)
            for x in range(0, SIZE[0], 3):
                await pilot.click(offset=(x, SIZE[1] // 2 - 2))
            assert app3.is_running


async def test_a_name_typed_in_settings_as_markup_starts_a_game() -> None:
    """Settings, Your name ``[/]``, save, New game: it used to crash with MarkupError."""
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        await open_settings(pilot)
        await set_input(pilot, app.screen, "player-name", ME)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        assert app.config.player_name == ME
        game = await new_game(pilot)
        assert game.session.names[0] == ME
        # The name shows as typed once the table is drawn (a loaded machine draws it later).
        await wait_for(pilot, lambda: ME in flat(screen_text(app)), what="the name [/] on the table")
        await pilot.press("ctrl+q", "y")
    # The next launch shows the saved match's line in the menu without crashing.
    app2 = new_app()
    async with app2.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app2.screen, MenuScreen))
        await pilot.pause()
        assert re.search(rf"Saved match: Round \d+ · {re.escape(ME)}", flat(screen_text(app2)))


@pytest.mark.parametrize("kind", ["[@click=app.quit]boom[/]", "[link=http://x]y[/link]", "[/]"])
async def test_a_settings_file_quoting_markup_warns_literally(kind: str) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'[[opponents]]\nname = "A"\nkind = {json.dumps(kind)}\n', encoding="utf-8")
    app = new_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        await wait_for(pilot, lambda: any(kind in n.message for n in app._notifications))
        assert app.config == Config()
        messages = [n.message for n in app._notifications]
        assert any(kind in m for m in messages), messages
        # The toast wraps the message over lines with a bar at their left: compare without them
        # (and wait for it to be drawn: a loaded machine can take a moment).
        await wait_for(pilot, lambda: kind.replace(" ", "") in re.sub(r"[\s▌]", "", screen_text(app)))
        # Clicking every cell of the toasts does nothing but dismiss them (a click beside them
        # would reach the menu's own buttons, Quit among them).
        from textual.widgets._toast import Toast

        cells = [
            (x, y)
            for toast in app.screen.query(Toast)
            for y in range(toast.region.y, toast.region.bottom)
            for x in range(toast.region.x, toast.region.right, 2)
        ]
        # The text first: a click on its middle, where a parsed link would be, before any other.
        mid = [(t.region.x + t.region.width // 2, t.region.y + t.region.height // 2) for t in app.screen.query(Toast)]
        cells.sort(key=lambda c: min(abs(c[0] - mx) + abs(c[1] - my) for mx, my in mid))
        assert cells, "no toast on the screen"
        for x, y in cells:
            under, _ = app.screen.get_widget_at(x, y)
            if isinstance(under, Toast) or any(isinstance(a, Toast) for a in under.ancestors):
                await pilot.click(offset=(x, y))  # a toast's cell, while it is there
        await pilot.pause()
        assert app.is_running and app.return_code is None


async def test_a_toast_is_never_markup_even_when_asked() -> None:
    app = play_app(mode="menu")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        app.notify(CLICK, title=BOLD, markup=True)
        await wait_for(pilot, lambda: CLICK in flat(screen_text(app)))
        text = flat(screen_text(app))
        assert CLICK in text and BOLD in text


def test_a_saved_session_summary_keeps_names_as_data() -> None:
    s = MatchSession.from_config(hostile_config(), 5, save_path=None)
    line = s.summary()
    assert ME in line and BOLD in line and CLICK in line
    assert isinstance(plain(line), Content) and plain(line).plain == line
