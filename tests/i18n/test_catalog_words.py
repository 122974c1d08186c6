"""The catalogs' words: every translation of a text drawn into a fixed number of cells fits them
(measured as the screen draws it: in cells, a Thai word break taking none, each placeholder at
its widest), and every translation of a text naming one of the game's things uses the word the
glossary (docs/GLOSSARY.md) chose for it. A language with no catalog yet is skipped."""

from __future__ import annotations

import re

import pytest
from babel.messages.catalog import Catalog

from kc_tui.engine import VARIANTS
from kc_tui.lab import reports
from kc_tui.ui.screens import menu, settings
from kc_tui.ui.table import parts
from kc_tui.ui.widgets import footer, hand, pile, scoreboard

from .catalogkit import ROOT, catalogs
from .wordkit import ZWSP, Budget, Term, cells, footer_descriptions, forms, glossary_misses, overruns, with_text

tool = catalogs()
TARGETS: tuple[str, ...] = tool.TARGETS


def shipped_catalog(code: str) -> Catalog:
    path = tool.po_path(code, ROOT)
    if not path.is_file():
        pytest.skip(f"no catalog for {code} yet ({path.relative_to(ROOT)})")
    catalog: Catalog = tool.read_catalog(path, code)
    return catalog


def setting_labels() -> list[str]:
    """The labels of the settings' rows: the screen's own and the rule variants' titles."""
    source = (ROOT / "kc_tui" / "ui" / "screens" / "settings.py").read_text(encoding="utf-8")
    own = re.findall(r'_row\(\s*(?:plain\()?_\("([^"]+)"\)', source)
    return [*own, *(v.title for v in VARIANTS)]


def menu_labels() -> list[str]:
    """The labels of the menu's buttons."""
    source = (ROOT / "kc_tui" / "ui" / "screens" / "menu.py").read_text(encoding="utf-8")
    return re.findall(r'Button\(_\("([^"]+)"\)', source)


def budgets() -> list[Budget]:
    """Every fixed-width place a translated text is drawn in, with its budget as the code that
    draws it declares it."""
    return [
        Budget("hand.NEW_MARK_CELLS", hand.NEW_MARK_CELLS, ["new"]),
        Budget("pile.EMPTY_MARK_CELLS", pile.EMPTY_MARK_CELLS, ["any"]),
        Budget(
            "pile.STOCK_WORDS_CELLS",
            pile.STOCK_WORDS_CELLS,
            ["stock {count}", "stock empty", "pot {pot}", "round {number}"],
        ),
        Budget(
            "parts.LABEL_WIDTH",
            parts.LABEL_WIDTH,
            ["your turn", "{n} card", "to play", "went out", "sat out", "{total}/{target} pts", "{n} chip"],
        ),
        *(Budget("footer.description_cells", footer.description_cells(d), [d]) for d in footer_descriptions()),
        Budget("settings.LABEL_CELLS", settings.LABEL_CELLS, setting_labels()),
        Budget("scoreboard.HEAD_CELLS", scoreboard.HEAD_CELLS, ["R{number}", "Tot"]),
        Budget("menu.BUTTON_LABEL_CELLS", menu.BUTTON_LABEL_CELLS, menu_labels()),
        *(
            Budget(f"reports.{name} {head!r}", width - 1, [head])
            for name, columns in (("ROUNDS_COLUMNS", reports.ROUNDS_COLUMNS), ("MATCH_COLUMNS", reports.MATCH_COLUMNS))
            for head, width, _align in columns
            if head
        ),
        # Under chips scoring the per-round column's head is "chips/round".
        *(
            Budget("reports.MATCH_COLUMNS 'chips/round'", width - 1, ["chips/round"])
            for head, width, _align in reports.MATCH_COLUMNS
            if head == "pen/round"
        ),
    ]


def test_the_budgets_hold_their_english() -> None:
    """The English texts fit their own budgets, and each budget names texts the template has."""
    template = tool.read_catalog(tool.template_path(ROOT))
    ids = {m.id[0] if isinstance(m.id, tuple | list) else m.id for m in template}
    for budget in budgets():
        assert budget.msgids, budget.where
        for msgid in budget.msgids:
            assert msgid in ids, (budget.where, msgid)
            assert cells(msgid) <= budget.cells, (budget.where, msgid)


def test_the_settings_label_budget_is_its_css() -> None:
    css = (ROOT / "kc_tui" / "ui" / "screens" / "settings.tcss").read_text(encoding="utf-8")
    rule = re.search(r"#settings-body \.label \{([^}]*)\}", css)
    assert rule is not None
    width = int(re.search(r"width: (\d+);", rule.group(1)).group(1))  # type: ignore[union-attr]
    padding = int(re.search(r"padding-right: (\d+);", rule.group(1)).group(1))  # type: ignore[union-attr]
    assert width - padding == settings.LABEL_CELLS


@pytest.mark.parametrize("code", TARGETS)
def test_fixed_width_texts_fit_their_cells(code: str) -> None:
    bad = overruns(shipped_catalog(code), budgets())
    assert not bad, f"{len(bad)} too wide in {code}:\n" + "\n".join(bad)


def test_a_text_too_wide_is_found() -> None:
    """A translation one cell too wide is found; a Thai mark and word break take no cell; a
    placeholder counts at its widest."""
    catalog = shipped_catalog("it")
    new = [Budget("hand.NEW_MARK_CELLS", hand.NEW_MARK_CELLS, ["new"])]
    assert overruns(with_text(catalog, "new", "nuova"), new) == ["hand.NEW_MARK_CELLS (3): 'new' -> 'nuova' takes 5"]
    assert not overruns(with_text(catalog, "new", "ใหม่"), new)  # 4 characters, 3 cells
    assert not overruns(with_text(catalog, "new", "ให\u200bม่"), new)
    stock = [Budget("pile.STOCK_WORDS_CELLS", pile.STOCK_WORDS_CELLS, ["stock {count}"])]
    assert overruns(with_text(catalog, "stock {count}", "tallone: {count}"), stock) == []
    assert overruns(with_text(catalog, "stock {count}", "il tallone {count}"), stock) == [
        "pile.STOCK_WORDS_CELLS (11): 'stock {count}' -> 'il tallone {count}' takes 13"
    ]


# Not checked: "hand" (a verb too, and the translations name a hand by its cards: ไพ่, "a carte
# scoperte"), "table" (a chart too, in the statistics).
# The glossary's words (docs/GLOSSARY.md, each language's table): for each term, the English
# that names it in a msgid and each language's chosen word in the forms the catalogs inflect it
# to (a regular expression; matched from a word's start, Thai anywhere).
TERMS: tuple[Term, ...] = (
    Term(
        "card",
        r"cards?",
        # Thai counts cards with ใบ ("{n} ใบ"); Vietnamese says lá or bài.
        {"sw": ["karata"], "th": ["ไพ่", "ใบ"], "vi": ["lá", "bài"], "it": ["cart[ae]"]},
    ),
    Term(
        "player",
        r"players?",
        {"sw": ["mchezaji", "wachezaji"], "th": ["ผู้เล่น"], "vi": ["người chơi"], "it": ["giocator"]},
    ),
    Term(
        "stock",
        r"stock",
        {"sw": ["fungu"], "th": ["กองจั่ว"], "vi": ["nọc"], "it": ["tallone"]},
    ),
    Term(
        "pile",
        r"piles?",
        {"sw": ["rundo", "marundo"], "th": ["กอง"], "vi": ["chồng"], "it": ["pil[ae]"]},
    ),
    Term(
        "corner",
        r"corners?",
        {"sw": ["kona"], "th": ["มุม"], "vi": ["góc"], "it": ["angol[oi]"]},
    ),
    Term(
        "side",
        r"sides?",
        {"sw": ["upande", "pande"], "th": ["ด้าน"], "vi": ["cạnh"], "it": ["lat[oi]"]},
    ),
    Term(
        "king",
        r"kings?",
        {"sw": ["mfalme", "wafalme", "K"], "th": ["คิง", "K"], "vi": ["K"], "it": [r"re\b", "K"]},
    ),
    Term(
        "round",
        r"rounds?",
        # Short forms in tables' heads: Kiswahili "raund", Italian "smazz." and "sm.".
        {"sw": ["raund"], "th": ["รอบ"], "vi": ["ván"], "it": ["smazz", r"sm\."]},
    ),
    Term(
        "match",
        r"match(es)?",
        {"sw": ["mechi"], "th": ["แมตช์"], "vi": ["trận"], "it": ["partit"]},
    ),
    Term(
        "turn",
        r"turns?",
        # Italian says whose turn it is with "tocca a" ("tocca a te": your turn).
        {"sw": ["zamu"], "th": ["ตา"], "vi": ["lượt"], "it": ["turn[oi]", "tocca a"]},
    ),
    Term(
        "draw",
        r"(draw|draws|drew|drawing)",
        {"sw": ["\\w*vut"], "th": ["จั่ว"], "vi": ["bốc"], "it": ["pesc"]},
    ),
    Term(
        "go out",
        r"(go|goes|went|going|gone) out",
        {"sw": ["\\w*maliz"], "th": ["หมดมือ"], "vi": ["hết bài"], "it": ["chiu[ds]"]},
    ),
    Term(
        "hint",
        r"hints?",
        {"sw": ["(ma)?dokezo"], "th": ["คำใบ้"], "vi": ["gợi ý"], "it": ["suggeri", r"sugger\."]},
    ),
    Term(
        "undo",
        r"undo(ne)?",
        {"sw": ["\\w*tendu"], "th": ["ย้อนกลับ"], "vi": ["hoàn tác"], "it": ["annull"]},
    ),
    Term(
        "chips",
        r"chips?",
        {"sw": ["chipu"], "th": ["ชิป"], "vi": ["chip"], "it": ["fiche"]},
    ),
    Term(
        "pot",
        r"pot",
        {"sw": ["mfuko"], "th": ["กองกลาง"], "vi": ["quỹ", "tiền cược chung"], "it": ["piatto"]},
    ),
    Term(
        "dealer",
        r"dealers?",
        {"sw": ["mgawaji"], "th": ["เจ้ามือ"], "vi": ["người chia bài"], "it": ["mazzier"]},
    ),
    Term(
        "penalty",
        r"(penalty|penalties)",
        {"sw": ["adhabu"], "th": ["โทษ"], "vi": ["phạt"], "it": ["penalit"]},
    ),
)

#: Msgids where a term's English word has another sense, or the translation names the thing
#: otherwise on purpose: (term, msgid) and why.
EXCEPTIONS: dict[tuple[str, ...], str] = {
    ("card", "any card but K", "it"): "said as 'tranne i re' (all but kings): the cards are implied",
    ("player", "list the legal moves of the player to move", "vi"): "'người đang đến lượt': the one whose turn it is",
    ("match", "ambiguous option: %(option)s could match %(matches)s"): "to match: to correspond",
    ("match", "the saved position does not match its history ({key} differs)"): "to match: to correspond",
    ("match", "No matches found"): "the command palette's: no command matches the search",
}


@pytest.mark.parametrize("code", TARGETS)
def test_translations_use_the_glossarys_words(code: str) -> None:
    bad = glossary_misses(shipped_catalog(code), code, TERMS, EXCEPTIONS)
    assert not bad, f"{len(bad)} in {code} without the glossary's word:\n" + "\n".join(bad)


def test_a_term_left_out_is_found() -> None:
    """A translation that names the thing otherwise than the glossary is found: Italian's "Undo"
    as "Indietro" (back) instead of "Annulla", Thai's stock as "เด็ค" (a loan)."""
    changes = (("it", "undo", "Undo", "Indietro"), ("th", "stock", "stock {count}", "เด็ค {count}"))
    for code, term, msgid, text in changes:
        catalog = shipped_catalog(code)
        before = glossary_misses(catalog, code, TERMS, EXCEPTIONS)
        after = glossary_misses(with_text(catalog, msgid, text), code, TERMS, EXCEPTIONS)
        assert set(after) - set(before) == {f"{term}: {msgid!r} -> {text!r}"}


def test_terms_are_whole_words() -> None:
    side = next(t for t in TERMS if t.name == "side")
    assert side.named_in("an empty side") and side.named_in("Sides") and not side.named_in("inside")
    assert not side.named_in("side-by-side")
    pot = next(t for t in TERMS if t.name == "pot")
    assert not pot.named_in("spot") and not pot.named_in("pots and pans of a potato")


def test_every_exception_is_of_a_message_naming_its_term() -> None:
    """An exception names a term and a msgid of the template that names it (none is stale)."""
    template = tool.read_catalog(tool.template_path(ROOT))
    ids = {m.id[0] if isinstance(m.id, tuple | list) else m.id for m in template}
    by_name = {t.name: t for t in TERMS}
    for key, reason in EXCEPTIONS.items():
        name, msgid, *code = key
        assert reason and msgid in ids and by_name[name].named_in(msgid), key
        assert all(c in TARGETS for c in code), key


@pytest.mark.parametrize("mark", ["ใหม่", "mới", "nuova"])
def test_a_cards_mark_is_cut_by_cells(mark: str) -> None:
    """The mark under a card keeps what fits its cells: Thai's "ใหม่" (4 characters, 3 cells)
    whole with its tone mark, a longer mark cut to the card's inside."""
    from rich.cells import cell_len

    from kc_tui.engine import parse_card
    from kc_tui.ui.cards import SMALL, CardLook

    bottom = CardLook().face(parse_card("7H"), mark=mark, size=SMALL)[-1].plain
    assert cell_len(bottom) == SMALL.width
    assert bottom[1:-1].startswith(mark if cell_len(mark) <= SMALL.inner else mark[: SMALL.inner])


#: English words of the glossary that no translation keeps: each language has its own word for
#: them (docs/GLOSSARY.md), and "seed" and "host" (the person who opens a table) theirs too.
ENGLISH_LEFT = re.compile(
    r"(?<![\w'`./:=<{-])(seeds?|hosts?|decks?|stock|dealers?|hints?|undo|penalty|penalties|opponents?"
    r"|spectators?)(?![\w'`=:}/.-])",
    re.IGNORECASE,
)
#: What a translation keeps as the source writes it: a command (``kings-corners host``,
#: ``host --resume``), an option, a placeholder, markup, a quoted or backticked identifier, a file
#: name, a KEY=VALUE.
KEPT_AS_WRITTEN = (
    r"\bkings-corners(?: \w+)?",
    r"\bhost(?= --)",
    r"--[\w-]+",
    r"`[^`]*`",
    r"\{[^}]*\}",
    r"\[[^\]]*\]",
    r"'[^']*'",
    r"\b[\w.]+\.(?:json|toml|py|md|sqlite3)\b",
    r"\b\w+[=:]\S*",
)
#: Translations that keep one of those words on purpose: (word, msgid, language) and why.
ENGLISH_KEPT: dict[tuple[str, ...], str] = {
    ("host", "host needs --seats, e.g. --seats human:Ana,human:Ben,expert (a person's seat is human:NAME)"): (
        "the command host"
    ),
    (
        "host",
        "start a new table over an unfinished hosted one, kept aside as hosted.json.replaced (else host refuses)",
    ): "the command host",
    ("opponents", "opponents must be a list of tables, not {value}"): "a key of the settings file",
    (
        "host",
        "let the tabs join the table a 'host' serves at HOST:PORT (repeatable; the host and port compared "
        "exactly, no name looked up; IPv6 as [::1]:8765). Without it a tab joins no table",
        "it",
    ): ("a network host: Italian says host"),
    ("host", "not a host name (letters, digits, '-' and '.' between them): {value}", "it"): "a network host",
    ("host", "a table's address has no '@' (its host is what follows one): write ws://HOST:PORT/...", "it"): (
        "a network host"
    ),
}


def english_left(catalog: Catalog, code: str) -> list[str]:
    """The translations that keep an English word of the glossary (outside what they keep as the
    source writes it, and :data:`ENGLISH_KEPT`)."""
    found = []
    for message in catalog:
        if not message.id:
            continue
        msgid = message.id[0] if isinstance(message.id, tuple | list) else message.id
        for text in forms(message):
            plain = text.replace(ZWSP, "")
            for pattern in KEPT_AS_WRITTEN:
                plain = re.sub(pattern, " ", plain)
            for word in ENGLISH_LEFT.findall(plain):
                key = word.lower().rstrip("s") if word.lower() not in ("opponents",) else "opponents"
                if (key, msgid) in ENGLISH_KEPT or (key, msgid, code) in ENGLISH_KEPT:
                    continue
                found.append(f"{word!r} in {msgid!r} -> {text!r}")
    return found


@pytest.mark.parametrize("code", TARGETS)
def test_no_english_word_of_the_glossary_is_left_in_a_translation(code: str) -> None:
    left = english_left(shipped_catalog(code), code)
    assert not left, f"{len(left)} in {code}:\n" + "\n".join(left)


def test_an_english_word_left_is_found() -> None:
    catalog = shipped_catalog("vi")
    msgid = "Demo · {players} · seed {seed}"
    assert english_left(with_text(catalog, msgid, "Demo · {players} · seed {seed}"), "vi") == [
        f"'seed' in {msgid!r} -> 'Demo · {{players}} · seed {{seed}}'"
    ]
    assert not english_left(with_text(catalog, msgid, "Demo · {players} · số xáo bài {seed}"), "vi")
