"""The words of RULES.md (and its translations) that the rules screen looks for or rewrites, one
declaration a language (docs/GLOSSARY.md, "Words tied to the rules screen").

Everything else the screen finds by the files' structure: the rule ids (``**R15 ...**``), the
backticked setting keys (a variant's list of choices follows ``` `draw`: ```), the heading levels.
What is left is words: the one a translation writes before a variant's key, the words of its notes
about the sources, and the few sentences about what the program must do, which a player reads as
what the program does. A language without its own RULES file reads the English one, and with it
the English words (:func:`rules_words`).
"""

from __future__ import annotations

from dataclasses import dataclass

from kc_tui.i18n import LANGUAGES, SOURCE, current

from . import has_translation


@dataclass(frozen=True, slots=True)
class RulesWords:
    """The fixed words of one language's RULES file."""

    #: The word before a variant's key: "Variant" in "Variant `draw`:".
    variant: str
    #: What the screen shows in its place, ``{title}`` the setting's title on the Settings screen.
    variant_head: str
    #: Words of a bracketed note that cite the sources or the project's own choices: such a part
    #: of a note is left out ("(default, seeds 000–002)" shows as "(default)"). The sources'
    #: numbers (000–003) count as such words in every language.
    source_words: tuple[str, ...]
    #: The words before which a setting is the condition of its sentence ("while `key = value`":
    #: "while *Title* is set to ..."); elsewhere it reads "*Title: choice*".
    conditions: tuple[str, ...] = ()
    #: Whether the language has spaces between words (a word is found whole, as ``\b`` finds it);
    #: Thai has not, and divides the parts of a note by a space, not a comma: a source word after
    #: a space starts a part of its own there.
    spaced: bool = True
    #: What the file says the program must or may do, and what the screen says it does.
    rewrites: tuple[tuple[str, str], ...] = ()


WORDS: dict[str, RulesWords] = {
    "en": RulesWords(
        variant="Variant",
        variant_head="In Settings, **{title}**",
        source_words=("seed", "seeds", "source", "sources", "project choice"),
        conditions=("while", "when", "if"),
        rewrites=(
            ("The screen may draw cards", "The screen draws cards"),
            ("; an ASCII mode must exist.", " or in plain ASCII (Settings)."),
            ("= true` (default false)", "= true` (default off)"),
        ),
    ),
    "sw": RulesWords(
        variant="Chaguo",
        variant_head="Katika Mipangilio, **{title}**",
        source_words=("chanzo", "vyanzo", "uamuzi wa mradi"),
        conditions=("wakati",),
        rewrites=(
            ("Skrini inaweza kuchora karata", "Skrini huchora karata"),
            ("; lazima kuwe na hali ya ASCII.", " au kwa ASCII pekee (Mipangilio)."),
            ("= true` (chaguo-msingi false)", "= true` (chaguo-msingi imezimwa)"),
        ),
    ),
    "th": RulesWords(
        variant="ตัวเลือก",
        variant_head="ในการตั้งค่า **{title}**",
        source_words=("ต้นทาง", "ทางเลือกของโครงการ"),
        spaced=False,
        rewrites=(
            ("หน้าจออาจวาดไพ่", "หน้าจอวาดไพ่"),
            (" และต้องมีโหมด ASCII", " หรือเป็น ASCII ล้วน (การตั้งค่า)"),
            ("= true` (ค่าเริ่มต้น false)", "= true` (ค่าเริ่มต้น ปิด)"),
        ),
    ),
    "vi": RulesWords(
        variant="Biến thể",
        variant_head="Trong Cài đặt, **{title}**",
        source_words=("nguồn", "lựa chọn của dự án"),
        rewrites=(
            ("Màn hình có thể vẽ lá bài", "Màn hình vẽ lá bài"),
            ("; phải có một chế độ ASCII.", " hoặc bằng ASCII thuần (Cài đặt)."),
            ("= true` (mặc định false)", "= true` (mặc định tắt)"),
        ),
    ),
    "it": RulesWords(
        variant="Variante",
        variant_head="Nelle Impostazioni, **{title}**",
        source_words=("seed", "fonte", "fonti", "scelta del progetto"),
        rewrites=(
            ("Lo schermo può disegnare le carte", "Lo schermo disegna le carte"),
            ("; deve esistere una modalità ASCII.", " o in semplice ASCII (Impostazioni)."),
            ("= true` (predefinito false)", "= true` (predefinito no)"),
        ),
    ),
}


def rules_words(code: str | None = None) -> RulesWords:
    """The words of the RULES file that :func:`kc_tui.data.rules_markdown` gives for language
    ``code`` (None: the one in use): its own when it is translated, else English's."""
    code = current() if code is None else code
    if code != SOURCE and code in LANGUAGES and has_translation("RULES", code):
        return WORDS.get(code, WORDS[SOURCE])
    return WORDS[SOURCE]
