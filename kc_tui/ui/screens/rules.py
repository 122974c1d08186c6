"""The rules screen: RULES.md rendered as Markdown, with the table's active variants marked.

A table at the top lists the current settings; in the text below, the active choice of
every variant is marked "✓ active". Escape or q closes the screen.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from rich.markdown import Markdown
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from kc_tui.data import rules_markdown
from kc_tui.engine import VARIANTS, Rules, Variant
from kc_tui.engine.rules import HAND_SIZE, SCORING, Scoring

ACTIVE = "**✓ active**"


def _rule_number(v: Variant[Any]) -> int:
    """The number of the rule a variant varies (``R11`` -> 11), to list them as RULES.md does."""
    m = re.match(r"R(\d+)", v.rule)
    return int(m.group(1)) if m else 0


#: The word-valued variants of play (scoring has its own line), in the order of RULES.md.
VARIANT_ORDER: tuple[Variant[str], ...] = tuple(
    sorted((v for v in VARIANTS if v.choices and v is not SCORING), key=_rule_number)
)


def settings_table(rules: Rules) -> str:
    """The active settings as a Markdown list, house rules (not the default) flagged."""
    default = Rules()
    rows: list[str] = []
    for v in VARIANT_ORDER:
        value = getattr(rules, v.key)
        mark = "" if value == getattr(default, v.key) else " *(house rule)*"
        rows.append(f"- **{v.rule} {v.title}:** `{value}`{mark}: {v.label(value)}")
    size_mark = "" if rules.hand_size == default.hand_size else " *(house rule)*"
    rows.append(f"- **{HAND_SIZE.rule} {HAND_SIZE.title}:** {rules.hand_size} cards{size_mark}")
    if rules.scoring == Scoring.CHIPS:
        per_card = ", losers also pay per card left" if rules.chips_per_card else ""
        rows.append(
            f"- **R16 Scoring:** `chips` *(house rule)*: start with {rules.chips_start} chips, ante 1 a round"
            f"{per_card}; at most {rules.chips_rounds} rounds, most chips wins"
        )
    else:
        rows.append(
            f"- **R15 Scoring:** `points`, target **{rules.target}**: the match ends when a total reaches "
            f"{rules.target}; the lowest total wins"
        )
    return "\n".join(rows)


def _blocks(text: str) -> list[tuple[int, int]]:
    """Spans of the top-level bullets and headed sections, where a variant's choices live."""
    starts = [m.start() for m in re.finditer(r"^(- |## )", text, flags=re.M)]
    return [(s, e) for s, e in zip(starts, [*starts[1:], len(text)], strict=True)]


def mark_active(text: str, rules: Rules) -> str:
    """Append the active mark to the active choice of every variant named in ``text``."""
    inserts: list[int] = []
    for v in VARIANT_ORDER:
        key = v.key
        value = getattr(rules, key)
        for m in re.finditer(rf"Variant `{key}`", text):
            end = next((e for s, e in _blocks(text) if s <= m.start() < e), len(text))
            hit = text.find(f"`{value}`", m.end(), end)
            if hit >= 0:
                inserts.append(hit + len(value) + 2)
    # R15 / R16: mark the scoring in use on its rule.
    rule = "R16 Chips" if rules.scoring == Scoring.CHIPS else "R15 Penalty points"
    hit = text.find(f"**{rule}**")
    if hit >= 0:
        inserts.append(hit + len(rule) + 4)
    for pos in sorted(inserts, reverse=True):
        text = text[:pos] + " " + ACTIVE + text[pos:]
    return text


def rules_document(rules: Rules) -> str:
    """RULES.md for players: the settings table first, then the rules with marks."""
    text = rules_markdown()
    _, _, rest = text.partition("\n")
    title = "# The rules of Kings Corners"
    # The opening paragraph is about the project's sources, not the game: start at the cards.
    cut = rest.find("## Cards and notation")
    body = rest[cut:] if cut >= 0 else rest
    body = body.replace(" (each is a test)", "")
    head = (
        f"{title}\n\n## Your table\n\n{settings_table(rules)}\n\n"
        f"Change these in **Settings**. In the rules below, {ACTIVE} marks the choice in use.\n\n"
    )
    return head + mark_active(body, rules)


class RulesScreen(Screen[None]):
    """The rules of the game, with the active variants marked. Escape or q closes it.

    The text is drawn as one Rich Markdown renderable in a scrolling view: it opens at once
    (a Markdown widget tree for the whole of RULES.md takes over a second to build)."""

    DEFAULT_CSS = """
    RulesScreen #rules-scroll {
        height: 1fr;
        padding: 0 2;
    }
    RulesScreen #rules-text {
        width: 1fr;
        max-width: 110;
    }
    """
    TITLE = "Kings Corners"
    SUB_TITLE = "Rules"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        Binding("home", "top", "Top", show=False),
        Binding("end", "bottom", "End", show=False),
    ]

    def __init__(self, rules: Rules) -> None:
        super().__init__()
        self.rules = rules
        self.document = rules_document(rules)

    def compose(self) -> ComposeResult:
        yield Header(icon="♠")
        with VerticalScroll(id="rules-scroll"):
            yield Static(Markdown(self.document, hyperlinks=False), id="rules-text")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#rules-scroll", VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_top(self) -> None:
        self.query_one("#rules-scroll", VerticalScroll).scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.query_one("#rules-scroll", VerticalScroll).scroll_end(animate=False)
