"""What the catalog tests share: the catalog tools (``tools/catalogs.py``, loaded from the
repository), the parts of a text a translation must keep (its placeholders, its markup), and a
Thai word segmenter of the tests' own."""

from __future__ import annotations

import importlib.util
import re
import string
import sys
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]

#: A Rich/Textual markup tag: ``[b]``, ``[/b]``, ``[/]``, ``[@click=app.quit]``, ``[$accent]``.
TAG = re.compile(r"(?<!\\)\[(/?[A-Za-z@$#][^\[\]]*|/)\]")


@cache
def catalogs() -> ModuleType:
    """``tools/catalogs.py`` as a module."""
    spec = importlib.util.spec_from_file_location("catalogs_tool", ROOT / "tools" / "catalogs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def placeholders(text: str) -> list[str]:
    """The ``{name}`` placeholders of ``text`` as str.format reads them (with their conversion and
    format spec), sorted: a translation may reorder them. ``["<not a format string>"]`` when
    str.format cannot read ``text`` (a stray brace)."""
    try:
        fields = [(name, conv, spec) for _text, name, spec, conv in string.Formatter().parse(text) if name is not None]
    except ValueError:
        return ["<not a format string>"]
    return sorted(f"{{{name}{'!' + conv if conv else ''}{':' + spec if spec else ''}}}" for name, conv, spec in fields)


def tags(text: str) -> list[str]:
    """The markup tags of ``text``, sorted (a translation may move them, not change them)."""
    return sorted(TAG.findall(text))


def write_catalog(locale_dir: Path, code: str, translations: dict[str, str]) -> Path:
    """A compiled catalog of ``translations`` (msgid: msgstr) for ``code`` under ``locale_dir``,
    laid out as :data:`kc_tui.i18n.LOCALE_DIR` is; the ``.mo``'s path."""
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import write_mo

    from kc_tui.i18n import DOMAIN, PLURAL_FORMS

    catalog = Catalog(locale=code, domain=DOMAIN, fuzzy=False)
    catalog.mime_headers = [("Plural-Forms", PLURAL_FORMS[code])]
    for msgid, msgstr in translations.items():
        catalog.add(msgid, msgstr)
    path = locale_dir / code / "LC_MESSAGES" / f"{DOMAIN}.mo"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_mo(f, catalog)
    return path


def dictionary_segmenter(words: Sequence[str]) -> Callable[[str], list[str]]:
    """A word segmenter for ``tools/thai_breaks.py`` that needs no PyThaiNLP: it cuts a run of
    Thai into the longest of ``words`` from the left (a letter alone where none fits)."""

    def segment(text: str) -> list[str]:
        out: list[str] = []
        at = 0
        while at < len(text):
            word = max((w for w in words if text.startswith(w, at)), key=len, default=text[at])
            out.append(word)
            at += len(word)
        return out

    return segment
