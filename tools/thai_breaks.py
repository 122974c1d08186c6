"""Mark where Thai text may break: ``python tools/thai_breaks.py < text`` (or :func:`mark`).

A development script of the repository, not part of the installed package. Thai writes the
words of a phrase without spaces, so a terminal cannot tell where a line may break. When the
Thai catalog is made, each translation goes through :func:`mark`: a U+200B ZERO WIDTH SPACE is
put between two Thai words (found by PyThaiNLP's dictionary segmenter, ``newmm``). The app
breaks lines there (:mod:`kc_tui.ui.linebreak`) and draws nothing for the mark, so it needs no
Thai library at run time.

PyThaiNLP is needed only here: ``pip install pythainlp`` (a pure-Python wheel, 67 MB with its
dictionaries; its first segmentation takes about two seconds to load them).

The marks go only *inside* a run of Thai letters, never beside a space, a placeholder
(``{name}``), markup (``[b]``) or Latin text; never after a leading vowel (เ แ โ ใ ไ), before
a mark, ๆ or ฯ. Marks already there are taken out first, so marking again gives the same text;
the result is NFC, as the catalogs are.

The Thai rules and guide are marked the same way, but for their headings and the phrases the
rules screen looks for: ``python tools/thai_breaks.py --markdown < kc_tui/data/RULES.th.md``.
"""

from __future__ import annotations

import importlib
import itertools
import re
import sys
import unicodedata
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

ZWSP = "\u200b"
#: A run of Thai letters, vowels, marks and digits (no spaces, no punctuation of other scripts).
THAI_RUN = re.compile("[\u0e01-\u0e5b]+")
LEADING_VOWELS = frozenset("\u0e40\u0e41\u0e42\u0e43\u0e44")
#: Signs that end the word before them (ๆ repeats it, ฯ shortens it).
NO_BREAK_BEFORE = frozenset("\u0e46\u0e2f")

Segmenter = Callable[[str], Sequence[str]]

#: Words of the game's Thai that PyThaiNLP's dictionary lacks (loanwords: app, millisecond, ace,
#: token, session, schema, field, chip, joker), which it would break inside (แอ|ป, ชิ|ปลง).
EXTRA_WORDS: frozenset[str] = frozenset({"แอป", "มิลลิวินาที", "เอซ", "โทเค็น", "เซสชัน", "สคีมา", "ฟิลด์", "ชิป", "โจ๊กเกอร์"})
#: Entries of PyThaiNLP's dictionary that its segmenter takes for words where they are pieces of
#: the catalog's: with them it breaks แล้วจะ (then ... will) as แล้|วจะ, ชิปลง (chips into) as ชิ|ปลง,
#: ทุกรอบ (every round) as ทุ|กรอบ, บอกว่า (says that) as บอ|กว่า, แจกรอบ (deals a round) as
#: แจ|กรอบ, แรกลบ (first ... minus) as แร|กลบ.
NOT_WORDS: frozenset[str] = frozenset({"แล้", "วจะ", "ชิ", "ทุ", "บอ", "แจ", "แร"})
#: Words a break mark may never go inside (:func:`marks_inside`): those above, and the glossary's
#: terms (player, hint, default) and the common words the segmenter has been seen to break.
WHOLE_WORDS: frozenset[str] = EXTRA_WORDS | frozenset(
    {
        "แล้ว",
        "คิง",
        "ควีน",
        "แจ็ค",
        "แมตช์",
        "เรตติ้ง",
        "จั่ว",
        "กติกา",
        "สถิติ",
        "ผู้เล่น",
        "คำใบ้",
        "ค่าเริ่มต้น",
        "ทุก",
        "บอก",
        "แจก",
        "แรก",
    }
)


@cache
def pythainlp_words() -> Segmenter:
    """PyThaiNLP's word segmenter (``newmm``) with its dictionary, less :data:`NOT_WORDS` and
    with :data:`EXTRA_WORDS`: imported when first needed."""
    tokenize = importlib.import_module("pythainlp.tokenize")
    corpus = importlib.import_module("pythainlp.corpus")
    trie = importlib.import_module("pythainlp.util").Trie((set(corpus.thai_words()) - NOT_WORDS) | EXTRA_WORDS)
    word_tokenize = tokenize.word_tokenize

    def words(text: str) -> Sequence[str]:
        return list(word_tokenize(text, engine="newmm", custom_dict=trie, keep_whitespace=True))

    return words


def _may_break(before: str, after: str) -> bool:
    """Whether a mark may go between two words, ``before`` ending where ``after`` begins."""
    if not before or not after:
        return False
    last, first = before[-1], after[0]
    if last in LEADING_VOWELS or first in NO_BREAK_BEFORE:
        return False
    return not unicodedata.category(first).startswith("M") and first != "\u0e33"


def _inside_whole_words(run: str) -> set[int]:
    """The positions of ``run`` inside one of :data:`WHOLE_WORDS` (between two of its letters)."""
    inside: set[int] = set()
    for word in WHOLE_WORDS:
        for m in re.finditer(re.escape(word), run):
            inside.update(range(m.start() + 1, m.end()))
    return inside


def mark_run(run: str, segment: Segmenter) -> str:
    """``run`` (Thai letters only) with a U+200B between each two of its words, never inside
    one of :data:`WHOLE_WORDS`."""
    words = [w for w in segment(run) if w]
    if "".join(words) != run:  # a segmenter that changed the text: leave the run as it was
        return run
    inside = _inside_whole_words(run)
    out = [words[0]] if words else []
    at = len(words[0]) if words else 0
    for before, after in itertools.pairwise(words):
        if _may_break(before, after) and at not in inside:
            out.append(ZWSP)
        out.append(after)
        at += len(after)
    return "".join(out)


def mark(text: str, segment: Segmenter | None = None) -> str:
    """``text`` (NFC) with a U+200B between each two Thai words; ``segment`` splits a run of
    Thai into words (PyThaiNLP's by default). Text with no Thai comes back as it was (NFC)."""
    text = unicodedata.normalize("NFC", text.replace(ZWSP, ""))
    if not THAI_RUN.search(text):
        return text
    split = segment or pythainlp_words()
    return THAI_RUN.sub(lambda m: mark_run(m.group(0), split), text)


def marks_inside(text: str, words: frozenset[str] = WHOLE_WORDS) -> list[str]:
    """The words of ``words`` that ``text`` holds with a break mark inside, as marked (แล้\u200bว)."""
    found = []
    for word in sorted(words):
        pattern = f"{ZWSP}?".join(re.escape(letter) for letter in word)
        found += [m.group(0) for m in re.finditer(pattern, text) if ZWSP in m.group(0)]
    return found


def unmark(text: str) -> str:
    """``text`` without its break marks."""
    return text.replace(ZWSP, "")


def unmark_phrases(text: str, phrases: Sequence[str]) -> str:
    """``text`` with no break mark inside any of ``phrases``."""
    for phrase in phrases:
        pattern = f"{ZWSP}?".join(re.escape(letter) for letter in phrase)
        text = re.sub(pattern, lambda m: m.group(0).replace(ZWSP, ""), text)
    return text


def mark_markdown(text: str, whole: Sequence[str] = (), segment: Segmenter | None = None) -> str:
    """A Markdown file (Thai's RULES.th.md, GUIDE.th.md) marked as :func:`mark` marks a text,
    but for its headings and the phrases of ``whole``, left unmarked: the rules screen and its
    tests find them by their words (``kc_tui/data/rules_words.py``)."""
    lines = text.split("\n")
    return "\n".join(line if line.startswith("#") else unmark_phrases(mark(line, segment), whole) for line in lines)


def doc_phrases() -> list[str]:
    """The Thai phrases the rules screen looks for in RULES.th.md (``kc_tui/data/rules_words.py``), and
    the setting's word (ค่าเริ่มต้น, default) and the active mark (ใช้อยู่) it names."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    words = importlib.import_module("kc_tui.data.rules_words").WORDS["th"]
    return [words.variant, *words.source_words, *(said.strip() for said, _ in words.rewrites), "ค่าเริ่มต้น", "ใช้อยู่"]


def main(argv: Sequence[str] | None = None) -> int:
    """Mark standard input's text, written to standard output (marks shown as ``|`` with ``-v``);
    with ``--markdown``, as :func:`mark_markdown` marks the Thai rules and guide."""
    args = list(sys.argv[1:] if argv is None else argv)
    text = sys.stdin.read()
    marked = mark_markdown(text, doc_phrases()) if "--markdown" in args else mark(text)
    sys.stdout.write(marked.replace(ZWSP, "|") if "-v" in args else marked)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
