"""Every text is marked where the extractor finds it: no ``_()``, ``ngettext`` or ``pgettext``
call takes an f-string, and none with a literal text sits inside an f-string (the extractor
does not read inside one, so the text would never reach the catalogs and would show in English
in every language). The replay's words (its status line, the last move beside the log) are in
the catalogs, translated, and shown in the language in use; so are the paces and the AI kinds
(named both ways); R16 names the chips rounds' setting without its unit twice."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

import pytest
from textual.widgets import Static

from kc_tui.i18n import _, use
from kc_tui.match import log_lines
from kc_tui.match.replay import RoundReplay
from kc_tui.records.rows import MatchRecord
from kc_tui.ui.screens.replay import ReplayScreen
from kc_tui.util.printable import is_you
from tests.match.kit import play_match
from tests.ui.gamekit import menu_app

from .catalogkit import ROOT, catalogs
from .wordkit import find, forms

tool = catalogs()
#: The functions that mark a text, and the argument that is the text (pgettext's second).
MARKERS: dict[str, int] = {"_": 0, "ngettext": 0, "pgettext": 1}
#: The files of the replay: the round stepped through, and the screen that shows it.
REPLAY_FILES = ("kc_tui/match/replay.py", "kc_tui/ui/screens/replay.py")


def _name(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def marker_calls(tree: ast.AST) -> Iterator[ast.Call]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node) in MARKERS:
            yield node


def misplaced(source: str, where: str) -> list[str]:
    """The marking calls of ``source`` the extractor cannot read: those given an f-string, and
    those given a literal text inside an f-string."""
    tree = ast.parse(source)
    bad = [
        f"{where}:{call.lineno}: {ast.unparse(call)[:70]} takes an f-string"
        for call in marker_calls(tree)
        if any(isinstance(arg, ast.JoinedStr) for arg in call.args)
    ]
    for fstring in (node for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)):
        bad += [
            f"{where}:{call.lineno}: {ast.unparse(call)[:70]} inside an f-string"
            for call in marker_calls(fstring)
            if any(isinstance(arg, ast.Constant) and isinstance(arg.value, str) for arg in call.args)
        ]
    return bad


def sources() -> Iterator[tuple[str, str]]:
    for package in ("kc_tui", "ai"):
        for path in sorted((ROOT / package).rglob("*.py")):
            yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")


def test_no_marked_text_is_out_of_the_extractors_sight() -> None:
    bad = [line for where, source in sources() for line in misplaced(source, where)]
    assert not bad, "\n".join(bad)


def test_a_text_inside_an_f_string_is_found() -> None:
    source = 'a = f"{head} · {_(\'the deal\')}"\nb = _(f"{n} cards")\nc = f"{_(TITLE)}"\n'
    assert [line.split(": ", 1)[0] for line in misplaced(source, "x.py")] == ["x.py:2", "x.py:1"]


def replay_msgids() -> list[str]:
    """The literal texts the replay's files mark."""
    out = []
    for name in REPLAY_FILES:
        tree = ast.parse((ROOT / name).read_text(encoding="utf-8"))
        for call in marker_calls(tree):
            index = MARKERS[_name(call) or "_"]
            if len(call.args) > index and isinstance(arg := call.args[index], ast.Constant):
                out.append(str(arg.value))
    return out


@pytest.mark.parametrize("code", tool.TARGETS)
def test_every_replay_word_is_in_the_catalogs_translated(code: str) -> None:
    template = tool.read_catalog(tool.template_path(ROOT))
    catalog = tool.read_catalog(tool.po_path(code, ROOT), code)
    msgids = replay_msgids()
    assert {"the deal", "{name} went out", "you went out", "blocked: no one went out", "Last move: "} <= set(msgids)
    for msgid in msgids:
        assert find(template, msgid) is not None, f"{msgid!r} is not in the template"
        message = find(catalog, msgid)
        assert message is not None and forms(message) and not message.fuzzy, f"{msgid!r} untranslated in {code}"


@pytest.fixture(scope="module")
def match() -> MatchRecord:
    return play_match(["greedy", "king-aware", "greedy"], 11)


@pytest.mark.parametrize("code", tool.TARGETS)
def test_the_replays_status_line_is_in_the_language(code: str, match: MatchRecord) -> None:
    use(code)
    try:
        replay = RoundReplay.from_record(match, 2, 0)
        at_deal = replay.status_text()
        assert _("the deal") in at_deal and _("the deal") != "the deal"
        replay.to_end()
        end = replay.status_text()
        winner = replay.snapshot().round_winner
        said = (
            _("blocked: no one went out")
            if winner is None
            else _("you went out")
            if is_you(replay.names[winner])
            else _("{name} went out").format(name=replay.names[winner])
        )
        assert end.endswith(said) and "went out" not in end, end
    finally:
        use("en")


@pytest.mark.parametrize("code", ["it", "th"])
async def test_the_last_move_is_in_the_language_of_the_log(code: str, match: MatchRecord) -> None:
    use(code)
    try:
        app = menu_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            screen = ReplayScreen.of_record(match, 2, 0)
            app.push_screen(screen)
            await pilot.pause()
            await pilot.press("right", "right")
            await pilot.pause()
            last = screen.replay.last_move
            assert last is not None and log_lines.shown(last) != last
            line = str(screen.query_one("#replay-note", Static).render())
            assert _("Last move: ") in line and log_lines.shown(last) in line and last not in line, line
    finally:
        use("en")


def test_paces_and_ai_kinds_are_named_in_the_language() -> None:
    """The settings' and the demo's paces, and an AI kind named both ways: its title in the
    language and the name the settings file and the command line take."""
    from ai import kind_shown, kind_title
    from kc_tui.config import PACES, pace_name, seat_kind_shown
    from kc_tui.ui.screens.settings import pace_label

    assert [pace_name(p) for p in PACES] == list(PACES)
    assert kind_shown("lookahead") == "Lookahead" and kind_shown("king-aware") == "King-aware"
    use("it")
    assert [pace_name(p) for p in PACES] == ["lento", "normale", "veloce", "immediato"]
    assert pace_label("slow").startswith("lento (") and "slow" not in pace_label("slow")
    assert kind_shown("lookahead") == "Lungimirante (lookahead)" and kind_title("lookahead") == "Lungimirante"
    assert seat_kind_shown("human") == "persona (human)" and kind_shown("no-such-kind") == "no-such-kind"
    use("sw")
    assert kind_shown("lookahead") == "Mwona-mbali (lookahead)"


#: The word for rounds in each language's rules (docs/GLOSSARY.md).
ROUNDS_WORD = {"en": "rounds", "sw": "raundi", "th": "รอบ", "vi": "ván", "it": "smazzate"}


@pytest.mark.parametrize("code", ROUNDS_WORD)
def test_r16_names_the_chips_rounds_setting_without_its_unit_twice(code: str) -> None:
    """The rules screen writes the setting's title where RULES.md has `chips_rounds`: the
    sentence around it does not say "rounds" beside it ("after *Chips rounds* rounds")."""
    from kc_tui.data import rules_markdown
    from kc_tui.engine.rules import CHIPS_ROUNDS
    from kc_tui.ui.screens.rules import player_words

    use(code)
    text = player_words(rules_markdown()).replace("\u200b", "")
    title = re.escape(f"*{_(CHIPS_ROUNDS.title)}*".replace("\u200b", ""))
    assert re.search(title, text), title
    word = ROUNDS_WORD[code]
    assert not re.search(rf"{title}\s*{word}|{word}\s*{title}", text, flags=re.IGNORECASE)
