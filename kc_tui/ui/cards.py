"""How cards look on screen: suit symbols (``10♥``) or ASCII (``TH``), red suits in red,
optionally four colours (clubs green, diamonds blue). Every widget draws cards through here."""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from kc_tui.cardtext import card_formatter
from kc_tui.engine import Card, is_red, suit_of

FACE_BG = "#f4f1e8"
BACK_STYLE = Style(color="#e8e8ff", bgcolor="#2a4d8f")
#: Foreground per suit (clubs, diamonds, hearts, spades).
TWO_COLOUR = ("#1b1b1b", "#c62828", "#c62828", "#1b1b1b")
FOUR_COLOUR = ("#1e7b34", "#1456b8", "#c62828", "#1b1b1b")


@dataclass(frozen=True, slots=True)
class CardLook:
    """The card style setting: ``style`` is 'symbols' or 'ascii'."""

    style: str = "symbols"
    four_colour: bool = False

    @classmethod
    def of(cls, config: object) -> CardLook:
        return cls(getattr(config, "card_style", "symbols"), bool(getattr(config, "four_colour", False)))

    def label(self, card: Card) -> str:
        return card_formatter(self.style)(card)

    def colour(self, card: Card) -> str:
        palette = FOUR_COLOUR if self.four_colour else TWO_COLOUR
        return palette[suit_of(card)]

    def style_of(self, card: Card, *, bold: bool = False) -> Style:
        return Style(color=self.colour(card), bgcolor=FACE_BG, bold=bold)

    def top(self, card: Card) -> Text:
        """The top card of a pile, in full: a brighter, bold face."""
        return Text(f" {self.label(card)} ", style=Style(color=self.colour(card), bgcolor="#ffffff", bold=True))

    def chip(self, card: Card, *, bold: bool = True, width: int = 0) -> Text:
        """One card face: `` 10♥ `` on a light face, padded to ``width`` when given."""
        label = self.label(card)
        body = f" {label} " if not width else f" {label}".ljust(width)
        return Text(body, style=self.style_of(card, bold=bold))

    def fan(self, cards: list[Card] | tuple[Card, ...], *, sep: str = " ") -> Text:
        """Cards overlapped left to right on one strip (each still readable)."""
        out = Text()
        for i, c in enumerate(cards):
            if i:
                out.append(sep, Style(bgcolor=FACE_BG))
            out.append(self.label(c), self.style_of(c))
        return out

    def plain(self, card: Card) -> Text:
        """A card in running text (log, messages): coloured, no face."""
        colour = self.colour(card) if is_red(card) or self.four_colour else None
        return Text(self.label(card), style=Style(color=colour, bold=True) if colour else Style(bold=True))


def label_width(look: CardLook, cards: list[Card] | tuple[Card, ...], sep: int = 1) -> int:
    return sum(len(look.label(c)) for c in cards) + sep * max(0, len(cards) - 1)
