"""The translated rules and guide keep the structure of the English ones: every RULES.<code>.md
has the same rule ids in the same order, the same headings and the same identifiers in `code`
spans as RULES.md; every GUIDE.<code>.md the same headings and `code` spans as GUIDE.md."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "kc_tui" / "data"
LANGUAGES = ("sw", "th", "vi", "it")
#: The word each translation of RULES.md writes before a variant's key, as RULES.md writes
#: "Variant `draw`" (docs/GLOSSARY.md: variant).
VARIANT_WORD = {"sw": "Chaguo", "th": "ตัวเลือก", "vi": "Biến thể", "it": "Variante"}


def translations(kind: str) -> list[Path]:
    """The translated files of ``kind`` (``RULES`` or ``GUIDE``) that exist."""
    return [p for code in LANGUAGES if (p := DATA / f"{kind}.{code}.md").exists()]


def outside_code_blocks(text: str) -> list[str]:
    """The lines of ``text`` that are not inside a fenced code block."""
    lines: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def headings(text: str) -> list[str]:
    """The Markdown heading markers (``#``, ``##``) of ``text``, in order."""
    return [m.group(1) for line in outside_code_blocks(text) if (m := re.match(r"(#{1,6}) ", line))]


def rule_ids(text: str) -> list[str]:
    """The rule ids as RULES.md writes them at the start of a rule: ``**R8 ...**``."""
    return re.findall(r"\*\*(R\d+) ", text)


def code_spans(text: str) -> Counter[str]:
    """Every inline `code` span outside code blocks, with how often it occurs."""
    return Counter(re.findall(r"`([^`\n]+)`", "\n".join(outside_code_blocks(text))))


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_every_language_has_its_rules_and_guide() -> None:
    assert [p.name for p in translations("RULES")] == [f"RULES.{c}.md" for c in LANGUAGES]
    assert [p.name for p in translations("GUIDE")] == [f"GUIDE.{c}.md" for c in LANGUAGES]


@pytest.mark.parametrize("path", translations("RULES"), ids=lambda p: p.name)
def test_translated_rules_keep_the_rule_ids_headings_and_identifiers(path: Path) -> None:
    english, text = read(DATA / "RULES.md"), read(path)
    assert rule_ids(text) == rule_ids(english)
    assert rule_ids(english) == [f"R{n}" for n in range(1, 17)]
    assert headings(text) == headings(english)
    assert code_spans(text) == code_spans(english)


@pytest.mark.parametrize("path", translations("RULES"), ids=lambda p: p.name)
def test_translated_rules_name_every_variant_as_the_english_does(path: Path) -> None:
    word = VARIANT_WORD[path.name.split(".")[1]]
    english = re.findall(r"Variant `(\w+)`", read(DATA / "RULES.md"))
    assert re.findall(rf"{word} `(\w+)`", read(path)) == english


@pytest.mark.parametrize("path", translations("GUIDE"), ids=lambda p: p.name)
def test_translated_guides_keep_the_headings_and_keys(path: Path) -> None:
    english, text = read(DATA / "GUIDE.md"), read(path)
    assert headings(text) == headings(english)
    assert code_spans(text) == code_spans(english)


@pytest.mark.parametrize("path", translations("RULES") + translations("GUIDE"), ids=lambda p: p.name)
def test_translated_docs_are_nfc_text(path: Path) -> None:
    text = read(path)
    assert unicodedata.normalize("NFC", text) == text
    assert text.endswith("\n") and "\t" not in text
