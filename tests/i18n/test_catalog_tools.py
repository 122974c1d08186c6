"""``tools/catalogs.py`` on a tree of its own: extract finds every kind of marked text with its
translators' comment, update writes each language's catalog with the declared Plural-Forms (not
CLDR's) and puts the break marks into Thai, compile makes the catalogs gettext reads, and check
finds what is wrong (Thai without break marks too)."""

from __future__ import annotations

import datetime
import gettext
import shutil
import unicodedata
from pathlib import Path

import pytest

from kc_tui.i18n import DOMAIN, PLURAL_FORMS

from .catalogkit import catalogs, dictionary_segmenter

tool = catalogs()
needs_msgfmt = pytest.mark.skipif(
    shutil.which("msgfmt") is None, reason="msgfmt is not installed (Debian: apt-get install gettext)"
)
ZWSP = "\u200b"
#: The words of the Thai below, for a segmenter of the test's own (PyThaiNLP may be absent).
THAI_WORDS = ("เป้าหมาย", "ของ", "เกม", "คือ", "การ", "กำจัด", "ไพ่", "ทั้งหมด", "คุณ")
SENTENCE = "เป้าหมายของเกมคือการกำจัดไพ่ทั้งหมดของคุณ"
segment = dictionary_segmenter(THAI_WORDS)

SOURCE = """
from kc_tui.i18n import N_, _, ngettext, pgettext

LABEL = N_("Deal")


def show(name: str, n: int) -> list[str]:
    # Translators: {name} is a player's name.
    played = _("{name} played").format(name=name)
    cards = ngettext("{n} card", "{n} cards", n).format(n=n)
    return [played, cards, pgettext("pile", "Open"), _(LABEL)]
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "kc_tui" / "game").mkdir(parents=True)
    (root / "ai").mkdir()
    (root / "kc_tui" / "game" / "show.py").write_text(SOURCE, encoding="utf-8")
    (root / "babel.cfg").write_text("[python: kc_tui/**.py]\n[python: ai/**.py]\n", encoding="utf-8")
    return root


def translate(root: Path, code: str, strings: dict[str, str | tuple[str, ...]]) -> Path:
    """Put ``strings`` (msgid: msgstr, or the plural forms) into ``code``'s catalog under ``root``."""
    from babel.messages.pofile import write_po

    path: Path = tool.po_path(code, root)
    catalog = tool.read_catalog(path, code)
    for message in catalog:
        key = message.id[0] if isinstance(message.id, tuple) else message.id
        if key in strings:
            message.string = strings[key]
            message.flags.discard("fuzzy")
    with path.open("wb") as f:
        write_po(f, catalog, sort_by_file=True)
    return path


def test_extract_finds_every_kind_of_marked_text(tree: Path) -> None:
    template = tool.read_catalog(tool.extract(tree))
    ids = {m.id: m for m in template if m.id}
    assert set(ids) == {"Deal", "{name} played", ("{n} card", "{n} cards"), "Open"}
    assert ids["{name} played"].auto_comments == ["Translators: {name} is a player's name."]
    assert template.get("Open", "pile") is not None
    assert "python-brace-format" in ids["{name} played"].flags  # so msgfmt checks the placeholders


def test_update_sets_the_declared_plural_forms(tree: Path) -> None:
    tool.extract(tree)
    made = tool.update(tree)
    assert [p.parent.parent.name for p in made] == list(tool.TARGETS)
    for code in tool.TARGETS:
        catalog = tool.read_catalog(tool.po_path(code, tree), code)
        assert catalog.plural_forms == PLURAL_FORMS[code]
        text = tool.po_path(code, tree).read_text(encoding="utf-8")
        assert f'"Plural-Forms: {PLURAL_FORMS[code]}\\n"' in text
    italian = tool.po_path("it", tree).read_text(encoding="utf-8")
    assert "msgstr[1]" in italian and "msgstr[2]" not in italian  # two forms, not CLDR's three
    assert "msgstr[1]" not in tool.po_path("th", tree).read_text(encoding="utf-8")
    # A second update keeps the translations and the headers.
    translate(tree, "it", {"Deal": "Distribuisci"})
    tool.update(tree)
    assert tool.read_catalog(tool.po_path("it", tree), "it").get("Deal").string == "Distribuisci"


@needs_msgfmt
def test_compiled_catalogs_are_what_gettext_reads(tree: Path) -> None:
    tool.extract(tree)
    tool.update(tree)
    translate(tree, "it", {"{name} played": "{name} ha giocato", "{n} card": ("{n} carta", "{n} carte")})
    translate(tree, "th", {"{n} card": ("ไพ่ {n} ใบ",)})
    tool.compile_catalogs(tree)
    locale = tree / "kc_tui" / "i18n" / "locale"
    it = gettext.translation(DOMAIN, localedir=locale, languages=["it"])
    assert it.gettext("{name} played") == "{name} ha giocato"
    assert [it.ngettext("{n} card", "{n} cards", n) for n in (0, 1, 2)] == ["{n} carte", "{n} carta", "{n} carte"]
    th = gettext.translation(DOMAIN, localedir=locale, languages=["th"])
    assert {th.ngettext("{n} card", "{n} cards", n) for n in (1, 5)} == {"ไพ่ {n} ใบ"}
    assert list(tool.problems(tree)) == []


@needs_msgfmt
def test_update_names_the_translators_and_the_revision_so_msgfmt_warns_of_nothing(tree: Path) -> None:
    tool.extract(tree)
    tool.update(tree)
    for code in tool.TARGETS:
        path = tool.po_path(code, tree)
        catalog = tool.read_catalog(path, code)
        assert catalog.last_translator == tool.TRANSLATOR
        assert isinstance(catalog.revision_date, datetime.datetime)
        assert tool.msgfmt_problems(path) == []
    # Updating again changes nothing (the date included); a changed translation moves the date.
    before = {code: tool.po_path(code, tree).read_bytes() for code in tool.TARGETS}
    tool.update(tree)
    assert {code: tool.po_path(code, tree).read_bytes() for code in tool.TARGETS} == before
    catalog = tool.read_catalog(tool.po_path("it", tree), "it")
    later = datetime.datetime(2030, 1, 2, 3, 4, 59, tzinfo=datetime.UTC)
    tool.set_revision(catalog, changed=False, now=later)
    assert catalog.revision_date != later.replace(second=0)
    tool.set_revision(catalog, changed=True, now=later)
    assert catalog.revision_date == later.replace(second=0)


@needs_msgfmt
def test_check_reports_msgfmts_warnings(tree: Path) -> None:
    tool.extract(tree)
    tool.update(tree)
    tool.compile_catalogs(tree)
    path = tool.po_path("sw", tree)
    text = path.read_text(encoding="utf-8").replace(tool.TRANSLATOR, "FULL NAME <EMAIL@ADDRESS>")
    path.write_text(text, encoding="utf-8")
    tool.compile_catalogs(tree)
    found = list(tool.problems(tree))
    assert any("Last-Translator" in line and "sw/" in line for line in found), found


@needs_msgfmt
def test_check_finds_what_is_wrong(tree: Path) -> None:
    tool.extract(tree)
    tool.update(tree)
    tool.compile_catalogs(tree)
    assert tool.check(tree) == 0
    path = translate(tree, "it", {"{name} played": "{nome} ha giocato"})
    found = list(tool.problems(tree))
    assert any("'name'" in line and "it/" in line for line in found), found  # msgfmt: the placeholder
    assert any("it/LC_MESSAGES/kings_corners.mo: older than its .po" in line for line in found), found
    translate(tree, "it", {"{name} played": "{name} ha giocato"})
    tool.compile_catalogs(tree)
    assert list(tool.problems(tree)) == []
    decomposed = unicodedata.normalize("NFD", "{name} è")
    translate(tree, "it", {"{name} played": decomposed})
    tool.compile_catalogs(tree)
    assert any("not NFC" in line for line in tool.problems(tree))
    text = path.read_text(encoding="utf-8").replace(PLURAL_FORMS["it"], "nplurals=3; plural=(n != 1);")
    path.write_text(unicodedata.normalize("NFC", text), encoding="utf-8")
    tool.compile_catalogs(tree)
    assert any("Plural-Forms is" in line for line in tool.problems(tree))
    assert tool.check(tree) == 1


@needs_msgfmt
def test_the_command_line_runs_every_step(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tool.main(["all", "--root", str(tree)]) == 0
    out = capsys.readouterr().out
    assert "template: kc_tui/i18n/kings_corners.pot" in out
    assert "compiled: kc_tui/i18n/locale/vi/LC_MESSAGES/kings_corners.mo" in out
    assert "catalogs: sw, th, vi, it: all well" in out


@needs_msgfmt
def test_update_puts_the_break_marks_into_thai_and_check_wants_them(tree: Path) -> None:
    tool.extract(tree)
    tool.update(tree, segment=segment)
    translate(tree, "th", {"{name} played": "[b]{name}[/b] " + SENTENCE, "{n} card": (f"{SENTENCE} {{n}} ใบ",)})
    translate(tree, "it", {"Deal": "Distribuisci"})
    tool.compile_catalogs(tree)
    found = list(tool.problems(tree))
    assert [line.split(": ", 1)[0] for line in found] == ["kc_tui/i18n/locale/th/LC_MESSAGES/kings_corners.po"] * 2
    assert "'{name} played'" in found[0] and "no break mark" in found[0] and "update" in found[0], found
    tool.update(tree, segment=segment)
    th = tool.read_catalog(tool.po_path("th", tree), "th")
    marked = ZWSP.join(["เป้าหมาย", "ของ", "เกม", "คือ", "การ", "กำจัด", "ไพ่", "ทั้งหมด", "ของ", "คุณ"])
    assert th.get("{name} played").string == "[b]{name}[/b] " + marked
    assert th.get("{n} card").string == (f"{marked} {{n}} ใบ",)
    assert tool.read_catalog(tool.po_path("it", tree), "it").get("Deal").string == "Distribuisci"  # not Thai
    files = {code: tool.po_path(code, tree).read_bytes() for code in tool.TARGETS}
    tool.update(tree, segment=segment)  # marking again changes nothing
    assert {code: tool.po_path(code, tree).read_bytes() for code in tool.TARGETS} == files
    tool.compile_catalogs(tree)
    assert list(tool.problems(tree)) == []


def test_a_thai_run_may_go_unmarked_as_wide_as_the_longest_word() -> None:
    from babel.messages.catalog import Catalog

    catalog = Catalog(locale="th")
    catalog.add("North-east", "ตะวันออกเฉียงเหนือ")  # one word, 15 cells: its vowels above and below take none
    catalog.add("Deal", "แจกไพ่")
    catalog.add("marked", ZWSP.join([SENTENCE[:14], SENTENCE[14:25], SENTENCE[25:]]))
    catalog.add(("{n} card", "{n} cards"), ("ไพ่ {n} ใบ",))
    assert list(tool.unmarked(catalog)) == []
    assert tool.cells("ตะวันออกเฉียงเหนือ") == tool.MAX_UNBROKEN == 15
    catalog.add("Open", "ตะวันออกเฉียงเหนือก")
    catalog.add(("{n} pile", "{n} piles"), (f"{{n}} {SENTENCE}",))
    found = list(tool.unmarked(catalog))
    assert len(found) == 2 and found[0].startswith("'Open': 'ตะวันออกเฉียงเหนือก' (16 cells)"), found
    assert found[1].startswith("'{n} pile'"), found


def test_update_without_pythainlp_leaves_the_marks_and_says_so(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(tool, "thai_segmenter", lambda: None)
    tool.extract(tree)
    tool.update(tree)
    translate(tree, "th", {"Deal": SENTENCE, "Open": "เกม" + ZWSP + "ของ"})
    assert tool.main(["update", "--root", str(tree)]) == 0
    out = capsys.readouterr().out
    assert "break marks: not put into th (PyThaiNLP is not installed: pip install pythainlp)" in out
    th = tool.read_catalog(tool.po_path("th", tree), "th")
    assert (th.get("Deal").string, th.get("Open", "pile").string) == (SENTENCE, "เกม" + ZWSP + "ของ")
    assert any("'Deal'" in line for line in tool.problems(tree))
