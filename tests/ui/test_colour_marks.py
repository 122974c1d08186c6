"""A card's colour told by its mark wherever a card is written: red suits in outline (♡ ♢), black
suits solid (♠ ♣), the suit's letter in ASCII; text written with the solid red suits (an older
log, a person typing ♥) still reads as the same cards; the Keys page says so."""

from __future__ import annotations

import pytest

from kc_tui.engine import ALL_CARDS, Round, Rules, card_str, card_symbol, is_play, is_red, parse_card, play_card
from kc_tui.match.card_format import UI_GLYPHS, can_show, card_formatter
from kc_tui.match.narration import suggest_move
from kc_tui.ui.dialogs.help import MARKS
from kc_tui.ui.literal_text import as_ascii

RED_MARKS = "♡♢"
BLACK_MARKS = "♠♣"


def test_every_card_written_in_symbols_has_the_mark_of_its_colour() -> None:
    for card in ALL_CARDS:
        mark = card_symbol(card)[-1]
        assert mark in (RED_MARKS if is_red(card) else BLACK_MARKS), card_str(card)
    assert [card_symbol(parse_card(t)) for t in ("TH", "QD", "AS", "2C")] == ["10♡", "Q♢", "A♠", "2♣"]


def test_in_ascii_the_letter_is_the_mark() -> None:
    fmt = card_formatter("ascii")
    for card in ALL_CARDS:
        assert fmt(card)[-1] in ("HD" if is_red(card) else "SC")


@pytest.mark.parametrize(("solid", "outline"), [("7♥", "7♡"), ("10♦", "10♢"), ("K♠", "K♤"), ("2♣", "2♧")])
def test_both_forms_of_a_suit_read_as_the_same_card(solid: str, outline: str) -> None:
    assert parse_card(solid) == parse_card(outline) == parse_card(solid[:-1] + "HDSC"["♥♦♠♣".index(solid[-1])])


def test_an_older_log_with_solid_red_suits_reads_and_shows_in_ascii() -> None:
    assert as_ascii("Ana played 7♥ on 8♣ at N; 5♦ 4♠") == "Ana played 7H on 8C at N; 5D 4S"
    assert as_ascii("Ana played 7♡ on 8♣ at N; 5♢ 4♠") == "Ana played 7H on 8C at N; 5D 4S"


def test_a_terminal_that_cannot_show_the_outline_suits_gets_ascii() -> None:
    assert set(RED_MARKS) <= set(UI_GLYPHS)
    assert not can_show("latin-1", "♡♢")
    assert can_show("utf-8")


def test_the_hint_writes_red_cards_in_outline() -> None:
    r = Round.deal(2, Rules(), seed=1)
    red = [m for m in r.legal_moves() if is_play(m) and is_red(play_card(m))]
    assert red
    for m in red:
        text = suggest_move(r, m)
        assert any(mark in text for mark in RED_MARKS) and "♥" not in text and "♦" not in text, text


def test_the_keys_page_says_how_a_cards_colour_shows() -> None:
    marks = dict(MARKS)
    assert "outline" in marks["♡ ♢  ♠ ♣"] and "solid" in marks["♡ ♢  ♠ ♣"]
    assert "H and D are red" in marks["H D  S C"]
