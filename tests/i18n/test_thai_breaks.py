"""tools/thai_breaks.py: the break marks the Thai catalog gets between its words."""

from __future__ import annotations

import importlib.util
import itertools
import re
import unicodedata

import pytest

from tests.i18n.catalogkit import ROOT, catalogs, dictionary_segmenter
from tests.i18n.wordkit import cells, forms
from tools.thai_breaks import (
    EXTRA_WORDS,
    NOT_WORDS,
    THAI_RUN,
    WHOLE_WORDS,
    ZWSP,
    doc_phrases,
    mark,
    mark_markdown,
    marks_inside,
    unmark,
)

tool = catalogs()
#: The catalog's Thai abbreviations: มส. (ms, milliseconds), ร (R, a round's column).
ABBREVIATIONS = frozenset({"มส", "ร"})

#: Words of the Thai rules, as a dictionary segmenter finds them (the test's own, so that it
#: needs no PyThaiNLP).
WORDS = ("เป้าหมาย", "ของ", "เกม", "คือ", "การ", "กำจัด", "ไพ่", "ทั้งหมด", "คุณ", "คน", "อื่น", "ๆ", "เด็ค")


#: ``text`` cut into the longest :data:`WORDS` from the left (a letter alone where none fits).
by_dictionary = dictionary_segmenter(WORDS)


def test_thai_words_get_a_mark_between_them() -> None:
    marked = mark("เป้าหมายของเกมคือการกำจัดไพ่ทั้งหมดของคุณ", by_dictionary)
    assert marked.split(ZWSP) == ["เป้าหมาย", "ของ", "เกม", "คือ", "การ", "กำจัด", "ไพ่", "ทั้งหมด", "ของ", "คุณ"]


def test_marks_stay_inside_thai() -> None:
    text = "[b]{name}[/b] เด็คของคุณ: Kings Corners {count} ไพ่ (R10)"
    marked = mark(text, by_dictionary)
    assert marked == "[b]{name}[/b] เด็ค\u200bของ\u200bคุณ: Kings Corners {count} ไพ่ (R10)"
    assert mark("Your turn", by_dictionary) == "Your turn"


def test_no_mark_before_mai_yamok_nor_after_a_leading_vowel() -> None:
    assert mark("คนอื่นๆ", by_dictionary) == "คน\u200bอื่นๆ"
    assert mark("เด็ค", lambda run: ["เ", "ด็ค"]) == "เด็ค"
    assert mark("ไพ่", lambda run: ["ไพ", "่"]) == "ไพ่"


def test_marking_again_gives_the_same_text_in_nfc() -> None:
    once = mark("เกมของคุณ", by_dictionary)
    assert mark(once, by_dictionary) == once
    assert unmark(once) == "เกมของคุณ"
    decomposed = unicodedata.normalize("NFD", "Tiếng Việt")
    assert mark(decomposed, by_dictionary) == unicodedata.normalize("NFC", decomposed)


def test_a_segmenter_that_changes_the_text_is_not_trusted() -> None:
    assert mark("เกมของคุณ", lambda run: ["เกม", "ของ"]) == "เกมของคุณ"


def test_pythainlp_marks_a_sentence_of_the_rules() -> None:
    pytest.importorskip("pythainlp")
    text = "แต่ละเทิร์นเริ่มต้นด้วยผู้เล่นจั่วการ์ดหนึ่งใบจากบนสุดของเด็ค"
    marked = mark(text)
    assert unmark(marked) == text
    assert "การ์ด" in marked.split(ZWSP)
    assert marked.count(ZWSP) >= 8


def thai_translations() -> list[str]:
    catalog = tool.read_catalog(tool.po_path("th", ROOT), "th")
    return [form for message in catalog if message.id for form in forms(message)]


def test_no_thai_translation_has_a_mark_inside_a_word() -> None:
    inside = [(text, marks_inside(text)) for text in thai_translations() if marks_inside(text)]
    assert not inside, inside


def test_a_mark_inside_a_word_is_found() -> None:
    assert marks_inside(f"เล่น{ZWSP}แล้{ZWSP}วจะ{ZWSP}จำ") == [f"แล้{ZWSP}ว"]
    assert marks_inside(f"ออกจาก{ZWSP}แอ{ZWSP}ป") == [f"แอ{ZWSP}ป"]
    assert marks_inside(f"แล้ว{ZWSP}จะ{ZWSP}แอป") == []


def test_pythainlp_keeps_the_games_words_whole() -> None:
    pytest.importorskip("pythainlp")
    assert mark("แล้วจะจำไว้") == f"แล้ว{ZWSP}จะ{ZWSP}จำไว้"
    for word in EXTRA_WORDS | WHOLE_WORDS:
        assert ZWSP not in mark(word), word
    # Words the dictionary's pieces (ทุ, บอ, แจ, แร) cut before their last letter.
    assert mark("ทุกรอบ") == f"ทุก{ZWSP}รอบ"
    assert mark("บอกว่า") == f"บอก{ZWSP}ว่า"
    assert mark("แจกรอบ") == f"แจก{ZWSP}รอบ"
    assert mark("แรกลบ") == f"แรก{ZWSP}ลบ"
    # The glossary's words, whole in a sentence.
    assert mark("ผู้เล่นขอคำใบ้") == f"ผู้เล่น{ZWSP}ขอ{ZWSP}คำใบ้"


def test_a_mark_never_goes_inside_a_whole_word_even_where_the_segmenter_cuts_it() -> None:
    assert mark("ผู้เล่น", lambda run: ["ผู้", "เล่น"]) == "ผู้เล่น"
    assert mark("ผู้เล่นคน", lambda run: ["ผู้", "เล่น", "คน"]) == f"ผู้เล่น{ZWSP}คน"


def dictionary_cuts(text: str, words: set[str]) -> list[str]:
    """The marks of ``text`` inside a word of ``words``: the piece before the mark is no word, and
    with the letters after the mark it makes one (ทุ|กรอบ: ทุก)."""
    found = []
    for run in re.findall(f"[\u0e01-\u0e5b{ZWSP}]+", text):
        pieces = run.split(ZWSP)
        for before, after in itertools.pairwise(pieces):
            if before and before not in words and any(before + after[:k] in words for k in range(1, len(after) + 1)):
                found.append(f"{before}|{after}")
    return found


def thai_docs() -> dict[str, str]:
    return {
        name: (ROOT / "kc_tui" / "data" / f"{name}.th.md").read_text(encoding="utf-8") for name in ("RULES", "GUIDE")
    }


def test_no_mark_cuts_a_word_of_the_thai_dictionary() -> None:
    corpus = pytest.importorskip("pythainlp.corpus")
    words = (set(corpus.thai_words()) - NOT_WORDS) | EXTRA_WORDS | WHOLE_WORDS
    texts = [*thai_translations(), *thai_docs().values()]
    cut = [c for text in texts for c in dictionary_cuts(text, words)]
    assert not cut, cut
    assert dictionary_cuts(f"ทุ{ZWSP}กรอบ", words) == ["ทุ|กรอบ"]
    assert not [w for text in texts for w in marks_inside(text)]


def test_the_thai_rules_and_guide_are_marked_for_wrapping() -> None:
    """Every line of RULES.th.md and GUIDE.th.md but the headings has its break marks: no run of
    Thai wider than the catalogs allow without one, but the phrases the rules screen looks for;
    the marks are what tools/thai_breaks.py --markdown puts (checked where PyThaiNLP is)."""
    whole = doc_phrases()
    for name, text in thai_docs().items():
        for line in text.splitlines():
            if line.startswith("#"):
                continue
            for phrase in whole:
                line = line.replace(phrase, " ")
            long = [run for run in THAI_RUN.findall(line) if cells(run) > tool.MAX_UNBROKEN]
            assert not long, (name, long)
        assert ZWSP in text
    if importlib.util.find_spec("pythainlp") is not None:
        for name, text in thai_docs().items():
            assert mark_markdown(text, whole) == text, name


def test_every_piece_between_thai_marks_is_a_dictionary_word() -> None:
    """Each piece of Thai between two marks is a word of the dictionary the marks come from
    (PyThaiNLP's, with the game's loanwords), or one of the catalog's abbreviations: a piece
    that is none is a word cut in two."""
    corpus = pytest.importorskip("pythainlp.corpus")
    words = (set(corpus.thai_words()) - NOT_WORDS) | EXTRA_WORDS | WHOLE_WORDS | ABBREVIATIONS
    pieces = {
        run
        for text in thai_translations()
        for piece in ZWSP.join(text.split()).split(ZWSP)
        for run in THAI_RUN.findall(piece)
    }
    assert not sorted(pieces - words), sorted(pieces - words)
