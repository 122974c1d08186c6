"""The move log is kept in English and shown in the language in use: every line the narrator
writes is read back by the template it was written from, and written again in each language
with the same names, cards and places."""

from __future__ import annotations

import re

import pytest

from kc_tui.engine import Match, card_symbol
from kc_tui.engine.rules import CompletedPiles, Rules
from kc_tui.i18n import LANGUAGES, use
from kc_tui.match import log_lines
from kc_tui.match.narration import Narrator, fault_reason
from kc_tui.match.replay import RoundReplay
from tests.match.kit import play_match

CARD = re.compile(r"(?:10|[2-9AJQK])[♡♢♣♠]")


def all_lines() -> list[str]:
    """The log of every round of two whole matches (one sending completed piles to the stock),
    as the replay writes it for the first seat."""
    lines: list[str] = []
    for kinds, seed, rules in (
        (["greedy", "king-aware", "lookahead"], 5, None),
        (["greedy", "greedy"], 8, Rules(completed_piles=CompletedPiles.TO_STOCK)),
    ):
        record = play_match(kinds, seed, rules)
        for number in range(1, len(record.rounds) + 1):
            rp = RoundReplay.from_record(record, number, 0)
            rp.seek(len(rp.moves))
            lines += rp.log_lines
    return lines


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return all_lines()


def test_every_line_the_log_writes_is_read_by_its_template(lines: list[str]) -> None:
    assert len(lines) > 200
    unread = [line for line in lines if log_lines.read(line) is None]
    assert unread == []
    used = {found[0] for line in lines if (found := log_lines.read(line)) is not None}
    assert {log_lines.DEALT, log_lines.PLAYED, log_lines.ENDED, log_lines.WENT_OUT, log_lines.DREW_CARD} <= used


def test_in_english_a_line_is_shown_as_it_is(lines: list[str]) -> None:
    use("en")
    assert [log_lines.shown(line) for line in lines] == lines


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_each_language_writes_the_line_again_with_its_names_cards_and_places(code: str, lines: list[str]) -> None:
    use(code)
    for line in lines:
        found = log_lines.read(line)
        assert found is not None
        shown = log_lines.shown(line)
        assert shown != line, (code, line)
        for field, value in found[1].items():
            if field == "who" and value == log_lines.YOU and found[0] in log_lines.YOU_LINES:
                continue  # the player called You is spoken to in the language's own words
            assert value in shown.replace("\u200b", ""), (code, line, shown)
        assert sorted(CARD.findall(shown)) == sorted(CARD.findall(line)), (code, line, shown)


def test_the_lines_of_an_ai_fault_and_a_blocked_round_are_translated() -> None:
    names = ["Ana", "Kingsley [bold]"]
    narrator = Narrator(Match(2, Rules(), 1), names, [True, False], card_symbol)
    fault = narrator.ai_fault(1, fault_reason("took 3.2 s"))
    assert fault == "Kingsley [bold]'s AI failed (it ran out of time); a simple fallback played instead"
    use("it")
    assert log_lines.shown(fault) == "L'IA di Kingsley [bold] ha fallito (ha finito il tempo); " + (
        "ha giocato al suo posto una mossa semplice di riserva"
    )
    assert "stallo" in log_lines.shown(log_lines.BLOCKED)


def test_a_line_of_no_template_is_shown_as_it_is() -> None:
    use("vi")
    for line in ("", "Ana said hello", "Round x: Ana dealt", "Ana played 7♥ on 8♣ at Q"):
        assert log_lines.shown(line) == line


def test_the_player_called_you_is_spoken_to() -> None:
    use("it")
    assert log_lines.shown("You drew 7♥") == "Peschi 7♥"
    assert log_lines.shown("You played 7♥ on 8♣ at S") == "Giochi 7♥ su 8♣ in S"
    assert log_lines.shown("Round 2: You dealt") == "Smazzata 2: distribuisci tu"
    assert log_lines.shown("Ana drew 7♥") == "Ana pesca 7♥"
    use("vi")
    assert log_lines.shown("You ended the turn") == "Bạn kết thúc lượt"


def test_the_default_name_is_shown_in_the_language() -> None:
    from kc_tui.util.printable import name_shown

    assert name_shown("You") == "You" and name_shown("you") == "you" and name_shown("Ana") == "Ana"
    use("sw")
    assert name_shown("You") == "Wewe" and name_shown(" you ") == "Wewe" and name_shown("Ana") == "Ana"
