"""Helpers of the match tests: a match played by AIs and recorded as the game records it, stored
into a history, a round of it replayed directly through the engine; a session stepped as a
beginner plays."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from hypothesis import strategies as st

from kc_tui.engine import Card, Match, Round, Rules, parse_card
from kc_tui.engine.rules import CHOICES
from kc_tui.match.roster import Seat
from kc_tui.match.session import MatchSession
from kc_tui.records.rows import MatchRecord
from kc_tui.records.store import History
from tests.historykit import play_recorded

#: A card in text: its code ("7H", "TH") or its symbol ("7♡", "10♡", or the solid "7♥" of older logs).
CARD_TEXT = re.compile(r"(?<![A-Za-z0-9])(10|[2-9TJQKA])([SHDC♠♡♢♣♥♦♤♧])(?![A-Za-z0-9])")


def cards_in_text(text: str) -> set[Card]:
    """Every card named in ``text`` (as a code or a symbol)."""
    found: set[Card] = set()
    for rank, suit in CARD_TEXT.findall(text):
        found.add(parse_card(("T" if rank == "10" else rank) + suit))
    return found


def people(n: int) -> list[Seat]:
    """``n`` people's seats: Ana, Ben, Cat, Dan."""
    return [Seat(name, "human") for name in ("Ana", "Ben", "Cat", "Dan")[:n]]


#: Every rule variant with choices, each with all of them; the match short (hands of 3 to 7, to 5 points).
VARIANT_CHOICES: dict[str, tuple[object, ...]] = {key: tuple(values) for key, values in CHOICES.items()}


@st.composite
def fair_rules(draw: st.DrawFn) -> Rules:
    """Rules with any choice of every variant (chips scoring included), short matches."""
    chosen = {key: draw(st.sampled_from(values)) for key, values in VARIANT_CHOICES.items()}
    return Rules.from_dict(chosen | {"target": 5, "hand_size": draw(st.integers(3, 7)), "chips_rounds": 2})


def play_match(kinds: Sequence[str], seed: int, rules: Rules | None = None, *, human: int | None = 0) -> MatchRecord:
    """A match played to its end by AIs through the engine, recorded as the game records it
    (seat ``human`` recorded as the human; None: a demo)."""
    return play_recorded(kinds, seed, rules, human=human, seat_name=lambda i, k: f"{k.title()} {i}")


def store(path: Path, m: MatchRecord) -> int:
    """Record ``m`` into the history at ``path`` as the game does; its id."""
    h, problem = History.open(path)
    assert problem is None
    try:
        match_id = h.start_match(seats=m.seats, rules=m.rules, seed=m.seed, first_dealer=m.first_dealer, demo=m.demo)
        for r in m.rounds:
            h.record_round(match_id, r)
        h.finish_match(match_id, winners=m.winners, totals=m.totals)
    finally:
        h.close()
    return match_id


def direct_round(m: MatchRecord, number: int, k: int) -> Round:
    """Round ``number`` of ``m`` after its first ``k`` moves, replayed directly (no replay model)."""
    match = Match(len(m.seats), Rules.from_dict(m.rules), m.seed, first_dealer=m.first_dealer)
    for rec in m.rounds[: number - 1]:
        for mv in rec.moves:
            match.round.apply(mv)
        match.finish_round()
    r = match.round
    for mv in m.rounds[number - 1].moves[:k]:
        r.apply(mv)
    return r


def step(s: MatchSession) -> None:
    """One step of ``s``: the round finished when it is over, else the human's first legal move,
    else an AI's move."""
    if s.match.round.over:
        s.finish_round()
    elif s.human_to_move:
        s.play_human(s.match.round.legal_moves()[0])
    else:
        s.step_ai()
