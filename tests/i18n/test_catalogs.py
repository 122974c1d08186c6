"""The catalogs shipped: every source message translated in every shipped language, each
translation keeping the source's placeholders and markup tags (and parsing as markup), plural
forms complete, Plural-Forms as the game declares it, NFC, msgfmt content, the ``.mo`` fresh.
A language with no catalog yet is skipped, saying so."""

from __future__ import annotations

import shutil
import unicodedata
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from rich.errors import MarkupError
from rich.markup import render
from textual.content import Content

from kc_tui.i18n import PLURAL_FORMS

from .catalogkit import ROOT, catalogs, placeholders, tags

tool = catalogs()
TARGETS: tuple[str, ...] = tool.TARGETS


def shipped_catalog(code: str) -> tuple[Path, Catalog]:
    """The ``.po`` of ``code`` in the repository and its catalog; skipped when there is none."""
    path = tool.po_path(code, ROOT)
    if not path.is_file():
        pytest.skip(f"no catalog for {code} yet ({path.relative_to(ROOT)})")
    return path, tool.read_catalog(path, code)


def forms(message: Message) -> list[str]:
    """The translated texts of ``message`` (each plural form), empty ones left out."""
    strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
    return [s for s in strings if s]


def sources(message: Message) -> list[str]:
    return list(message.id) if isinstance(message.id, tuple | list) else [message.id]


def is_markup(text: str) -> bool:
    """Whether ``text`` parses as Rich markup and as Textual's."""
    try:
        render(text)
        Content.from_markup(text)
    except (MarkupError, Exception):
        return False
    return True


def test_the_template_holds_what_the_source_marks(tmp_path: Path) -> None:
    """The committed template is the one ``extract`` makes now (``python tools/catalogs.py extract``)."""
    committed = tool.template_path(ROOT)
    assert committed.is_file(), "no template: python tools/catalogs.py extract"
    work = tmp_path / "tree"
    for part in ("kc_tui", "ai"):
        shutil.copytree(ROOT / part, work / part, ignore=shutil.ignore_patterns("__pycache__", "locale"))
    shutil.copy(ROOT / "babel.cfg", work / "babel.cfg")
    fresh = tool.read_catalog(tool.extract(work))
    kept = tool.read_catalog(committed)
    fresh_keys = {(str(m.id), m.context) for m in fresh if m.id}
    kept_keys = {(str(m.id), m.context) for m in kept if m.id}
    missing = sorted(str(key) for key in fresh_keys - kept_keys)
    extra = sorted(str(key) for key in kept_keys - fresh_keys)
    assert not missing and not extra, f"re-run python tools/catalogs.py extract: new {missing[:5]}, gone {extra[:5]}"


@pytest.mark.parametrize("code", TARGETS)
def test_every_source_message_is_translated(code: str) -> None:
    _path, catalog = shipped_catalog(code)
    template = tool.read_catalog(tool.template_path(ROOT))
    untranslated = []
    for source in template:
        if not source.id:
            continue
        message = catalog.get(source.id, source.context)
        if message is None or message.fuzzy or not forms(message):
            untranslated.append(source.id)
    assert not untranslated, f"{len(untranslated)} not translated in {code}, e.g. {untranslated[:5]}"


@pytest.mark.parametrize("code", TARGETS)
def test_the_headers_say_the_languages_plural_forms(code: str) -> None:
    _path, catalog = shipped_catalog(code)
    assert catalog.plural_forms == PLURAL_FORMS[code]
    assert str(catalog.locale) == code


@pytest.mark.parametrize("code", TARGETS)
def test_translations_keep_placeholders_and_markup(code: str) -> None:
    _path, catalog = shipped_catalog(code)
    bad = []
    for message in catalog:
        if not message.id:
            continue
        ids = sources(message)
        for text in forms(message):
            if placeholders(text) not in [placeholders(i) for i in ids]:
                bad.append(f"{ids[-1]!r}: placeholders {placeholders(text)} in {text!r}")
            if tags(text) not in [tags(i) for i in ids]:
                bad.append(f"{ids[-1]!r}: tags {tags(text)} in {text!r}")
            elif all(is_markup(i) for i in ids) and not is_markup(text):
                bad.append(f"{ids[-1]!r}: {text!r} does not parse as markup")
    assert not bad, "\n".join(bad[:20])


@pytest.mark.parametrize("code", TARGETS)
def test_plural_forms_are_complete(code: str) -> None:
    _path, catalog = shipped_catalog(code)
    incomplete = []
    for message in catalog:
        if message.pluralizable and forms(message):
            strings = list(message.string) if isinstance(message.string, tuple | list) else [message.string]
            if len(strings) != catalog.num_plurals or not all(strings):
                incomplete.append(message.id[0])
    assert not incomplete, f"{code}: plural forms missing for {incomplete[:5]}"


@pytest.mark.parametrize("code", TARGETS)
def test_the_catalog_is_nfc_and_msgfmt_finds_nothing_wrong(code: str) -> None:
    path, _catalog = shipped_catalog(code)
    text = path.read_text(encoding="utf-8")
    assert unicodedata.normalize("NFC", text) == text
    if shutil.which("msgfmt") is None:
        pytest.skip("msgfmt is not installed (Debian: apt-get install gettext)")
    assert tool.msgfmt_problems(path) == []


@pytest.mark.parametrize("code", TARGETS)
def test_the_compiled_catalog_is_fresh(code: str) -> None:
    path, _catalog = shipped_catalog(code)
    mo = path.with_suffix(".mo")
    assert mo.is_file(), f"no {mo.name}: python tools/catalogs.py compile"
    assert mo.read_bytes() == tool.mo_bytes(path, code), "python tools/catalogs.py compile"
