"""The rules screen: a player's guide (GUIDE.md), then the exact rules (RULES.md), as Markdown.

The guide comes first: the aim, the table with a drawn example, a turn step by step, scoring and
the keys. The exact rules follow, with the table's current settings on top and the active choice
of every variant marked "✓ active"; they are RULES.md shown in a player's words (setting keys
become the titles the Settings screen shows, the notes about the sources are left out), the rules
themselves unchanged. Both are in the language in use (GUIDE.<code>.md, RULES.<code>.md): the
rules are read by their structure (rule ids, backticked keys, heading levels) and by the few
words :mod:`kc_tui.data.rules_words` declares for each language. ``t`` opens the contents and jumps to
a heading; Escape or q closes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.markdown import Markdown
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, OptionList, Static
from textual.widgets.option_list import Option

from kc_tui.data import guide_markdown, rules_markdown
from kc_tui.data.rules_words import RulesWords, rules_words
from kc_tui.engine import VARIANTS, Rules, Variant
from kc_tui.engine.rules import HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, SCORING, TARGET, Scoring
from kc_tui.i18n import N_, _, ngettext
from kc_tui.ui.dialogs.modal import Modal
from kc_tui.ui.literal_text import plain
from kc_tui.ui.widgets.footer import Footer

#: The mark of a variant's choice in use (these three are translated where used).
ACTIVE = N_("**✓ active**")
#: The heading of the second part of the screen.
RULES_TITLE = N_("The exact rules")
#: The heading of the table's settings, on top of the exact rules.
YOUR_TABLE = N_("Your table")
HOUSE_RULE = N_(" *(house rule)*")


def _rule_number(v: Variant[Any]) -> int:
    """The number of the rule a variant varies (``R11`` -> 11), to list them as RULES.md does."""
    m = re.match(r"R(\d+)", v.rule)
    return int(m.group(1)) if m else 0


#: The word-valued variants of play (scoring has its own line), in the order of RULES.md.
VARIANT_ORDER: tuple[Variant[str], ...] = tuple(
    sorted((v for v in VARIANTS if v.choices and v is not SCORING), key=_rule_number)
)
_BY_KEY: dict[str, Variant[Any]] = {v.key: v for v in VARIANTS}


def settings_table(rules: Rules) -> str:
    """The active settings as a Markdown list in the words of the Settings screen, house rules
    (not the default) flagged."""
    default = Rules()
    rows: list[str] = []
    for v in VARIANT_ORDER:
        value = getattr(rules, v.key)
        mark = "" if value == getattr(default, v.key) else _(HOUSE_RULE)
        rows.append(f"- **{_(v.title)}** ({v.rule}): {v.label(value)}{mark}")
    size_mark = "" if rules.hand_size == default.hand_size else _(HOUSE_RULE)
    # Translators: {mark} is " *(house rule)*", or empty. The English says "cards" for one card too.
    cards = ngettext("{n} cards{mark}", "{n} cards{mark}", rules.hand_size).format(n=rules.hand_size, mark=size_mark)
    rows.append(f"- **{_(HAND_SIZE.title)}** ({HAND_SIZE.rule}): {cards}")
    if rules.scoring == Scoring.CHIPS:
        if rules.chips_per_card:
            # Translators: {mark} is " *(house rule)*"; Markdown, keep its * as they are.
            chips = _(
                "chips{mark}: start with {start} chips, ante 1 a round, losers also pay per card left;"
                " at most {rounds} rounds, most chips wins"
            )
        else:
            # Translators: {mark} is " *(house rule)*"; Markdown, keep its * as they are.
            chips = _("chips{mark}: start with {start} chips, ante 1 a round; at most {rounds} rounds, most chips wins")
        chips = chips.format(mark=_(HOUSE_RULE), start=rules.chips_start, rounds=rules.chips_rounds)
        rows.append(f"- **{_(SCORING.title)}** (R16): {chips}")
    else:
        points = _(
            "penalty points, target **{target}**: the match ends when a total reaches {target}; the lowest total wins"
        ).format(target=rules.target)
        rows.append(f"- **{_(SCORING.title)}** (R15): {points}")
    return "\n".join(rows)


def house_rules(rules: Rules) -> list[str]:
    """What a table plays differently from the standard game, in a few words each."""
    default = Rules()
    out = [v.label(getattr(rules, v.key)) for v in VARIANT_ORDER if getattr(rules, v.key) != getattr(default, v.key)]
    if rules.hand_size != default.hand_size:
        # Translators: the English says "cards" for one card too.
        out.append(ngettext("{n} cards a hand", "{n} cards a hand", rules.hand_size).format(n=rules.hand_size))
    if rules.scoring == Scoring.CHIPS:
        out.append(_("chips instead of points ({start} each)").format(start=rules.chips_start))
    elif rules.target != default.target:
        out.append(_("a target of {target}").format(target=rules.target))
    return out


def _blocks(text: str) -> list[tuple[int, int]]:
    """Spans of the top-level bullets and headed sections, where a variant's choices live."""
    starts = [m.start() for m in re.finditer(r"^(- |## )", text, flags=re.M)]
    return [(s, e) for s, e in zip(starts, [*starts[1:], len(text)], strict=True)]


def mark_active(text: str, rules: Rules) -> str:
    """Append the active mark to the active choice of every variant in ``text`` (a RULES file,
    in any language): a variant's choices follow its backticked key (`` `draw` ``), in its
    bullet; the scoring in use is marked on its rule (``**R15 ...**`` or ``**R16 ...**``)."""
    inserts: list[int] = []
    for v in VARIANT_ORDER:
        key = v.key
        value = getattr(rules, key)
        for m in re.finditer(rf"`{key}`", text):
            end = next((e for s, e in _blocks(text) if s <= m.start() < e), len(text))
            hit = text.find(f"`{value}`", m.end(), end)
            if hit >= 0:
                inserts.append(hit + len(value) + 2)
    rule = "R16" if rules.scoring == Scoring.CHIPS else "R15"
    name = re.search(rf"\*\*{rule} [^*\n]*\*\*", text)
    if name is not None:
        inserts.append(name.end())
    for pos in sorted(inserts, reverse=True):
        text = text[:pos] + " " + _(ACTIVE) + text[pos:]
    return text


_BREAK = "\u200b"


def _loose(literal: str) -> str:
    """A pattern for ``literal`` as a file may write it: any run of spaces or a line break where
    it has a space, a Thai break mark (U+200B) anywhere between its letters."""
    parts = [re.escape(ch) for ch in literal]
    return f"{_BREAK}?".join(p if p != "\\ " else f"[\\s{_BREAK}]+" for p in parts)


def _word(words: RulesWords, literal: str) -> str:
    """A pattern for the word ``literal``, found whole where the language spaces its words."""
    return rf"\b{_loose(literal)}\b" if words.spaced else _loose(literal)


def _source_note(words: RulesWords) -> re.Pattern[str]:
    """A part of a bracketed note that cites the sources (their words, or their numbers
    000–003) or the project's choices."""
    number = r"\b00\d\b" if words.spaced else r"(?<!\d)00\d(?!\d)"
    return re.compile("|".join([number, *(_word(words, w) for w in words.source_words)]), flags=re.I)


#: A note in brackets (it may go over a line break), with the asterisks of an italic one.
_BRACKETS = re.compile(r"[ \t]*\n?[ \t]*\*?\((?P<inner>[^()]*)\)\*?")


def _drop_source_notes(text: str, words: RulesWords) -> str:
    """Leave out the parts of bracketed notes that cite the sources or the project's choices;
    a note left empty goes entirely (``(default, seeds 000–002)`` becomes ``(default)``)."""
    source = _source_note(words)
    parts_at = r"[;,:]"
    if not words.spaced:
        parts_at += "|" + "|".join(rf" (?={_loose(w)})" for w in words.source_words)

    def keep(m: re.Match[str]) -> str:
        parts = re.split(parts_at, m.group("inner"))
        kept = [p.strip() for p in parts if not source.search(p)]
        if len(kept) == len(parts):
            return m.group(0)
        return f" ({', '.join(kept)})" if kept else ""

    return _BRACKETS.sub(keep, text)


def _setting(v: Variant[Any], value: str, *, condition: bool = False) -> str:
    """``key = value`` of RULES.md in a player's words: ``*Kings on sides: a king may ...*``;
    as the ``condition`` of a sentence ("while ..."): ``*Kings on sides* is set to "a king may
    ..."``, so that the sentence goes on after it."""
    if v.choices and value in v.values:
        if condition:
            # Translators: Markdown: keep the * as they are; {title} is a setting, {label} its choice.
            return _("*{title}* is set to “{label}”").format(title=_(v.title), label=v.label(value))
        return f"*{_(v.title)}: {v.label(value)}*"
    if v.type is bool:
        # Translators: Markdown: keep the * as they are; {title} is a setting that is on or off.
        return (_("*{title}* on") if value == "true" else _("*{title}* off")).format(title=_(v.title))
    return f"*{_(v.title)}* {value}"


def player_words(text: str, words: RulesWords | None = None) -> str:
    """A RULES file (in the language of ``words``, by default the one in use) as players read
    it: setting keys become the titles the Settings screen shows, the notes about the sources go,
    the rules stay word for word."""
    words = rules_words() if words is None else words
    text = _drop_source_notes(text, words)
    for said, shown in words.rewrites:
        text = re.sub(_loose(said), shown.replace("\\", "\\\\"), text)

    def variant_head(m: re.Match[str]) -> str:
        v = _BY_KEY.get(m.group(1))
        return m.group(0) if v is None else words.variant_head.format(title=_(v.title))

    def setting(m: re.Match[str]) -> str:
        v = _BY_KEY.get(m.group("key"))
        if v is None:
            return m.group(0)
        word = m.group("word")
        return f"{word} " * bool(word) + _setting(v, m.group("value"), condition=bool(word))

    def name(m: re.Match[str]) -> str:
        v = _BY_KEY.get(m.group(1))
        return m.group(0) if v is None else f"*{_(v.title)}*"

    text = re.sub(rf"{_loose(words.variant)} `(\w+)`", variant_head, text)
    # A setting after "while", "when" or "if" (the language's words) is the condition of the sentence.
    condition = "|".join(_loose(w) for w in words.conditions) or "(?!)"
    text = re.sub(rf"(?:\b(?P<word>{condition}) )?`(?P<key>\w+) = (?P<value>\w+)`", setting, text)
    return re.sub(r"`(\w+)`", name, text)


def defaults_list() -> str:
    """Every setting's default in a player's words, in the order of RULES.md."""
    rows = [_("- **Players** (R1): {least} to {most}").format(least=MIN_PLAYERS, most=MAX_PLAYERS)]
    cards = ngettext("{n} card", "{n} cards", HAND_SIZE.default).format(n=HAND_SIZE.default)
    rows.append(f"- **{_(HAND_SIZE.title)}** ({HAND_SIZE.rule}): {cards}")
    rows += [f"- **{_(v.title)}** ({v.rule}): {v.label(v.default)}" for v in VARIANT_ORDER]
    rows.append(f"- **{_(SCORING.title)}** ({SCORING.rule}): {SCORING.label(SCORING.default)}")
    rows.append(f"- **{_(TARGET.title)}** ({TARGET.rule}): {TARGET.default}")
    for v in VARIANTS:
        if v.only_with is not None:
            value = (_("yes") if v.default else _("no")) if v.type is bool else str(v.default)
            # Translators: Markdown: a setting's default; {rule} is its rule's id (R16).
            rows.append(
                _("- **{title}** ({rule}, with chips): {value}").format(title=_(v.title), rule=v.rule, value=value)
            )
    return "\n".join(rows)


def _replace_section(text: str, first_line: str, body: str) -> str:
    """``text`` with the body of the ``##`` section whose body begins with ``first_line`` (up
    to the next heading) replaced; its heading kept."""
    m = re.search(rf"^## [^\n]*\n+(?={re.escape(first_line)})", text, flags=re.M)
    if m is None:
        return text
    end = text.find("\n## ", m.end())
    end = len(text) if end < 0 else end + 1
    return f"{text[: m.start()]}{m.group(0).rstrip()}\n\n{body}\n\n{text[end:]}"


def guide_document(rules: Rules) -> str:
    """GUIDE.md, with a note on the table's house rules under its title when there are any."""
    text = guide_markdown().strip()
    changes = house_rules(rules)
    if not changes:
        return text
    title, _newline, rest = text.partition("\n")
    # Translators: Markdown; {changes} are the table's house rules, joined by "; ".
    note = _(
        "> **Your table** plays with house rules: {changes}. "
        "This guide describes the standard game; the exact rules below say how yours differs."
    ).format(changes="; ".join(changes))
    return f"{title}\n\n{note}\n{rest}"


def exact_rules(rules: Rules) -> str:
    """RULES.md for players: the settings table first, then the rules with marks."""
    text = rules_markdown()
    _title, _newline, rest = text.partition("\n")
    # The opening paragraph is about the project's sources, not the game: start at the first
    # section (the cards).
    cut = re.search(r"^## ", rest, flags=re.M)
    body = rest[cut.start() :] if cut is not None else rest
    # A note in brackets closing a heading is about the project's tests: "(each is a test)".
    body = re.sub(r"^(## [^\n]*?) \([^()\n]*\)$", r"\1", body, flags=re.M)
    # The defaults, a line of `key = value`, in the words of Settings.
    body = _replace_section(body, "`players = ", defaults_list())
    change = _("Change these in **Settings**. In the rules below, {active} marks the choice in use.").format(
        active=_(ACTIVE)
    )
    head = f"# {_(RULES_TITLE)}\n\n## {_(YOUR_TABLE)}\n\n{settings_table(rules)}\n\n{change}\n\n"
    return head + player_words(mark_active(body, rules)).strip()


def rules_document(rules: Rules) -> str:
    """The whole screen as Markdown: the player's guide, then the exact rules."""
    return f"{guide_document(rules)}\n\n{exact_rules(rules)}\n"


@dataclass(frozen=True, slots=True)
class Section:
    """One headed part of the document: its heading's level (1 or 2), title and Markdown."""

    level: int
    title: str
    markdown: str


def sections(document: str) -> list[Section]:
    """The document cut at its headings (``#`` and ``##``, never inside a code block)."""
    out: list[Section] = []
    lines: list[str] = []
    level, title = 0, ""
    fenced = False

    def close() -> None:
        if any(line.strip() for line in lines):
            out.append(Section(level, title, "\n".join(lines).strip()))

    for line in document.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        m = None if fenced else re.match(r"(#{1,2}) (.+)", line)
        if m:
            close()
            lines, level, title = [], len(m.group(1)), re.sub(r"[*`]", "", m.group(2)).strip()
        lines.append(line)
    close()
    return out


class ContentsDialog(Modal[int | None]):
    """The headings of the rules screen; choosing one (Enter or a click) returns its index."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,t", "close", N_("Close"))]
    DEFAULT_CSS = """
    ContentsDialog > Vertical {
        width: 50; max-width: 95%; max-height: 90%; padding: 0 1;
    }
    ContentsDialog #contents-title { text-style: bold; dock: top; }
    ContentsDialog #contents-foot { color: $text-muted; dock: bottom; }
    ContentsDialog OptionList { height: auto; max-height: 1fr; }
    """

    def __init__(self, parts: list[Section], current: int = 0) -> None:
        super().__init__()
        self.parts = parts
        self.current = current

    def compose(self) -> ComposeResult:
        options = [
            Option(plain(p.title, "bold") if p.level == 1 else plain(f"  {p.title}"), id=str(i))
            for i, p in enumerate(self.parts)
        ]
        with Vertical():
            yield Static(_("Contents"), id="contents-title")
            yield OptionList(*options, id="contents")
            yield Static(_("Enter or a click jumps there · Esc closes"), id="contents-foot")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = self.current
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option_index)

    def action_close(self) -> None:
        self.dismiss(None)


class RulesScreen(Screen[None]):
    """The player's guide, then the rules with the active variants marked. ``t`` shows the
    contents; Escape or q closes the screen.

    Each headed part is one Rich Markdown renderable in a scrolling view: it opens at once
    (a Markdown widget tree for the whole of RULES.md takes over a second to build), and a
    heading of the contents is a widget to scroll to."""

    DEFAULT_CSS = """
    RulesScreen #rules-scroll {
        height: 1fr;
        padding: 0 2;
    }
    RulesScreen .rules-part {
        width: 1fr;
        max-width: 110;
        margin-bottom: 1;
    }
    """
    TITLE = "Kings Corners"
    SUB_TITLE = N_("How to play · Rules")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", N_("Close")),
        Binding("t", "contents", N_("Contents")),
        Binding("home", "top", N_("Top"), show=False),
        Binding("end", "bottom", N_("End"), show=False),
    ]

    def __init__(self, rules: Rules) -> None:
        super().__init__()
        self.sub_title = _(self.SUB_TITLE)
        self.rules = rules
        self.document = rules_document(rules)
        self.parts = sections(self.document)

    def compose(self) -> ComposeResult:
        yield Header(icon="♠")
        with VerticalScroll(id="rules-scroll"):
            for i, part in enumerate(self.parts):
                yield Static(Markdown(part.markdown, hyperlinks=False), id=f"part-{i}", classes="rules-part")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#rules-scroll", VerticalScroll).focus()

    def part(self, index: int) -> Static:
        """The widget of the ``index``-th headed part."""
        return self.query_one(f"#part-{index}", Static)

    def current_part(self) -> int:
        """The index of the part at the top of the view."""
        y = self.query_one("#rules-scroll", VerticalScroll).scroll_y
        current = 0
        for i in range(len(self.parts)):
            if self.part(i).virtual_region.y <= y:
                current = i
        return current

    def goto(self, index: int) -> None:
        """Scroll the ``index``-th part's heading to the top of the view (as far as it goes)."""
        if 0 <= index < len(self.parts):
            scroll = self.query_one("#rules-scroll", VerticalScroll)
            scroll.scroll_to(y=self.part(index).virtual_region.y, animate=False)

    def action_contents(self) -> None:
        def chosen(index: int | None) -> None:
            if index is not None:
                self.goto(index)

        self.app.push_screen(ContentsDialog(self.parts, self.current_part()), chosen)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_top(self) -> None:
        self.query_one("#rules-scroll", VerticalScroll).scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.query_one("#rules-scroll", VerticalScroll).scroll_end(animate=False)
