"""A table told in lines: every move of a round once and in order, with the seat's cards left,
from a whole log or one cut to its last lines; never a card the viewer may not see; a round's
scores, the match's end, the save's problem, the pot; the hand, the table and the numbered
moves; and all of it in each language."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

import pytest

from kc_tui.config import Config, Opponent
from kc_tui.engine import Card, Rules, card_str
from kc_tui.i18n import _, pgettext, use
from kc_tui.match.log_lines import read
from kc_tui.match.roster import Seat
from kc_tui.match.session import MatchSession
from kc_tui.match.table import TableDriver
from kc_tui.match.view import TableSnapshot
from kc_tui.plain.reading import Command, Play, Refused, fold, read_input
from kc_tui.plain.telling import Teller, told_line
from tests.match.kit import cards_in_text

from .kit import one_plain_line, solid, view

RULES = Rules(target=15, hand_size=5)
CHIPS = Rules(scoring="chips", hand_size=5, chips_rounds=2)
#: "...; Ben has 4 cards", "...; you have 1 card", "...; Ben has no cards left".
CARDS_LEFT = re.compile(r"; (?P<who>.+) (has|have) (?P<n>\d+|no) cards?( left)?$")


def step(driver: TableDriver) -> None:
    """One step of the table: the round finished, a person's first legal move, or an AI's move."""
    s = driver.session
    if driver.round_over:
        driver.finish_round()
    elif s.human_to_move:
        assert driver.play(s.match.round.legal_moves()[0]) is None
    else:
        driver.decide(driver.ai_job().run())


def views(driver: TableDriver, viewer: int | None, *, rounds: int = 1) -> Iterator[TableSnapshot]:
    """``viewer``'s view after every step of the table, for the first ``rounds`` rounds (the
    last one to its last move, not scored) or to the match's end."""
    yield driver.snapshot(viewer)
    while not driver.over:
        if driver.round_over and driver.session.match.number >= rounds:
            return
        step(driver)
        yield driver.snapshot(viewer)


def ai_table(rules: Rules = RULES, seats: int = 2) -> TableDriver:
    return TableDriver(MatchSession.all_ai(["greedy"] * seats, rules, seed=3, think_ms=50))


def without_count(line: str) -> str:
    return CARDS_LEFT.sub("", line)


def test_a_round_played_by_ais_is_told_move_by_move_once_in_order_with_the_cards_left() -> None:
    driver = ai_table(seats=3)
    teller = Teller(solid, rules=RULES)
    told: list[str] = []
    for snap in views(driver, 0):
        news = teller.news(snap)
        told += news
        cards = {seat.name: seat.cards for seat in snap.seats}
        last: dict[str, int] = {}
        for line in news:
            m = CARDS_LEFT.search(line)
            if m:
                last[m["who"]] = 0 if m["n"] == "no" else int(m["n"])
        assert all(cards[who] == n for who, n in last.items()), (news, cards)
    log = driver.session.log
    assert len(log) > 20 and read(log[0]) is not None
    assert [without_count(line) for line in told] == [told_line(line, solid)[0] for line in log]
    plays = [line for line in told if " played " in line or " put " in line]
    assert plays and all(CARDS_LEFT.search(line) for line in plays)
    assert any("North" in line or "East" in line or "South" in line or "West" in line for line in plays)
    assert not any(re.search(r" at (N|E|S|W|NE|SE|SW|NW)\b", line) for line in told)
    assert all(one_plain_line(line) for line in told)


@pytest.mark.parametrize("kept", [5, 8, 50])
def test_a_log_cut_to_its_last_lines_still_tells_each_line_once(kept: int) -> None:
    whole, cut = Teller(solid, rules=RULES), Teller(solid, rules=RULES)
    told_whole: list[str] = []
    told_cut: list[str] = []
    for snap in views(ai_table(seats=2), 0, rounds=3):
        told_whole += whole.news(snap)
        told_cut += cut.news(dataclasses.replace(snap, log=snap.log[-kept:]))
    assert len(told_whole) > 60
    assert told_cut == told_whole


def test_a_move_taken_back_and_another_made_tells_only_the_new_move() -> None:
    teller = Teller(solid)
    base = ("Round 1: Ana dealt", "Ana drew 7♥")
    first = view("7H 4D", ("8C", "", "", "", "", "", "", ""), log=base)
    teller.news(first)
    taken_back = dataclasses.replace(first, log=(*base, "Ana played 7♥ on 8♣ at N"))
    assert teller.news(taken_back) == ["Ana played 7♥ on 8♣ at North; Ana has 2 cards"]
    assert teller.news(first) == []
    other = dataclasses.replace(first, log=(*base, "Ana put 4♦ on the empty side E"))
    assert teller.news(other) == ["Ana put 4♦ on the empty side East; Ana has 2 cards"]


def test_a_log_that_starts_over_is_told_from_its_start() -> None:
    teller = Teller(solid)
    snap = view("7H", ("8C", "", "", "", "", "", "", ""), log=("Round 1: Ana dealt", "Ana drew a card"))
    assert teller.news(snap) == ["Round 1: Ana dealt", "Ana drew a card; Ana has 1 card"]
    again = dataclasses.replace(snap, log=("Round 2: Ben dealt", "Ben ended the turn"))
    assert teller.news(again) == ["Round 2: Ben dealt", "Ben ended the turn"]


def seen_cards(snap: TableSnapshot) -> set[Card]:
    """The cards ``snap``'s viewer sees: the piles and its own hand."""
    seen = {c for pile in snap.piles for c in pile}
    return seen | set(snap.hand or ())


def assert_tells_only_what_is_seen(driver: TableDriver, viewer: int | None, rounds: int = 2) -> list[str]:
    teller = Teller(solid, rules=RULES)
    seen: set[Card] = set()
    told: list[str] = []
    for snap in views(driver, viewer, rounds=rounds):
        seen |= seen_cards(snap)
        for line in [*teller.news(snap), *teller.table(snap), *teller.hand(snap), *teller.scores(snap)]:
            assert cards_in_text(line) <= seen, (viewer, line)
            told.append(line)
    return told


def test_the_news_names_the_viewers_own_draws_and_no_one_elses_card() -> None:
    config = Config(player_name="Ana", opponents=(Opponent("Greedy", "greedy", 50),), rules=RULES)
    driver = TableDriver(MatchSession.from_config(config, seed=3, save_path=None))
    told = assert_tells_only_what_is_seen(driver, 0)
    assert any(re.match(r"Ana drew (10|[2-9AJQK])[♠♥♦♣]", line) for line in told)
    assert any(line.startswith("Greedy drew a card") for line in told)


@pytest.mark.parametrize("viewer", [None, 0, 1])
def test_a_hosted_tables_news_names_no_ones_hidden_card_to_a_seat_or_a_spectator(viewer: int | None) -> None:
    seats = [Seat("Ana", "human"), Seat("Ben", "human"), Seat("Greedy", "greedy", 50)]
    driver = TableDriver(MatchSession.hosted(seats, RULES, seed=3))
    told = assert_tells_only_what_is_seen(driver, viewer)
    assert any(line.startswith("Ana drew a card") for line in told)


def test_a_rounds_end_tells_every_seats_points_and_total_before_the_next_deal() -> None:
    driver = ai_table(seats=2)
    teller = Teller(solid, rules=RULES)
    told: list[str] = []
    for snap in views(driver, 0, rounds=2):
        told += teller.news(snap)
    row = driver.session.match.results[0]
    at = told.index("Scores of round 1:")
    names = driver.session.names
    for i, name in enumerate(names):
        points = row.penalties[i]
        unit = "point" if points == 1 else "points"
        assert told[at + 1 + i].startswith(f"{name}: {points} penalty {unit}, total ")
    assert told[at + 1 + len(names)].startswith("Round 2: ")
    assert told.count("Scores of round 1:") == 1


def test_the_matchs_end_is_told_once() -> None:
    driver = ai_table(Rules(target=5, hand_size=3), seats=2)
    teller = Teller(solid)
    told: list[str] = []
    for snap in views(driver, 0, rounds=1000):
        told += teller.news(snap)
    told += teller.news(driver.snapshot(0))
    end = driver.snapshot(0).end_text
    assert driver.over and end and told.count(end) == 1 and told[-1] == end
    last = driver.session.match.results[-1].number
    scores = told.index(f"Scores of round {last}:")
    over = next(i for i, line in enumerate(told) if line.startswith("The match is over: "))
    went_out = max(i for i, line in enumerate(told) if " went out" in line or " is blocked" in line)
    assert went_out < scores < over


def test_a_save_problem_is_told_when_it_appears_and_when_it_is_gone() -> None:
    teller = Teller(solid)
    snap = view("7H", ("8C", "", "", "", "", "", "", ""), log=("Round 1: Ana dealt",))
    teller.news(snap)
    failing = dataclasses.replace(snap, save_problem="the disk is full")
    assert teller.news(failing) == ["The table is not saved: the disk is full"]
    assert teller.news(failing) == []
    assert teller.news(snap) == ["The table is saved again."]


def test_a_chips_match_tells_the_pot_what_ending_the_turn_costs_and_the_chips_of_each_round() -> None:
    snap = view("7H 4D", ("8C", "", "", "", "", "", "", ""), pot=6, end_turn_costs=True)
    teller = Teller(solid, rules=CHIPS)
    assert "Pot: 6 chips" in teller.table(snap)
    assert teller.moves(snap)[-1].endswith("end the turn (it costs you a chip)")
    assert "Pot: 6 chips" in teller.scores(snap)
    assert "Ben: 3 chips" in teller.scores(snap)
    driver = ai_table(CHIPS, seats=3)
    told: list[str] = []
    chips_told = Teller(solid, rules=CHIPS)
    for view_ in views(driver, 0, rounds=2):
        told += chips_told.news(view_)
        assert any(line.startswith("Pot: ") for line in chips_told.table(view_))
    at = told.index("Scores of round 1:")
    assert any(re.search(r": (won|paid) \d+ chips?, now \d+ chips?$", line) for line in told[at + 1 : at + 4])


def test_the_hand_names_its_cards_count_and_the_card_drawn() -> None:
    teller = Teller(solid)
    snap = view("7S TH KC", ("8C", "", "", "", "", "", "", ""), drawn="TH")
    assert teller.hand(snap) == ["Your hand: 7♠ 10♥ K♣ (3 cards); you drew 10♥"]
    assert teller.hand(view("7S", ("8C", "", "", "", "", "", "", ""))) == ["Your hand: 7♠ (1 card)"]
    assert teller.hand(view("7S", ("8C", "", "", "", "", "", "", ""), viewer=None)) == [
        "You hold no cards in this round."
    ]


def test_the_table_says_each_pile_what_it_takes_the_empty_places_the_stock_the_others_and_the_turn() -> None:
    teller = Teller(solid, rules=RULES)
    snap = view("7H", ("9S 8H", "", "2C AH", "KD QS JH TS 9D", "KS", "", "", ""), rules=RULES, to_move=1)
    assert teller.table(snap) == [
        "North: 9♠ 8♥, next black 7",
        "South: 2♣ A♥, nothing goes on an ace",
        "West: 5 cards from K♦ to 9♦, next black 8",
        "North-east: K♠, next red Q",
        "Empty sides (any card): East",
        "Empty corners (K only): South-east, South-west, North-west",
        "Stock: 20 cards",
        "Ben: 4 cards, 3/15 pts, dealer",
        "Turn: Ben",
    ]
    assert teller.table(view("7H", ("8C", "", "", "", "", "", "", "")))[-1] == "Your turn."


def test_the_moves_are_numbered_in_the_order_of_the_legal_moves_and_ending_the_turn_is_last() -> None:
    teller = Teller(solid, rules=RULES)
    snap = view("7H KH", ("8C", "7D", "", "", "KS", "", "", ""))
    assert teller.moves(snap) == [
        "1. move the pile at East (from 7♦) onto 8♣ at North",
        "2. play 7♥ on 8♣ at North",
        "3. put 7♥ on the empty side South",
        "4. put 7♥ on the empty side West",
        "5. put K♥ on the empty corner North-west",
        "6. put K♥ on the empty side South",
        "7. put K♥ on the empty corner South-east",
        "8. put K♥ on the empty corner South-west",
        "9. put K♥ on the empty side West",
        "10. end the turn",
    ]
    assert teller.moves(view("7H", ("8C", "", "", "", "", "", "", ""), to_move=1)) == ["You have no moves now."]


LANGUAGES = ["sw", "th", "vi", "it"]


@pytest.mark.parametrize("code", LANGUAGES)
def test_each_language_tells_the_table_and_reads_its_own_words(code: str) -> None:
    def table() -> TableSnapshot:
        """The view as the table makes it in the language in use (a seat's score is its label)."""
        piles = ("8C", "7D", "2C AH", "", "KS", "", "", "")
        return view("7H KH", piles, pot=4, log=("Round 1: Ana dealt", "Ana drew 7♥"))

    def everything() -> list[str]:
        teller, snap = Teller(solid, rules=CHIPS), table()
        return [*teller.news(snap), *teller.turn(snap), *teller.scores(snap)]

    english = everything()
    use(code)
    spoken = everything()
    snap = table()
    assert len(spoken) == len(english)
    same = [line for line, source in zip(spoken, english, strict=True) if line == source]
    assert same == [], same
    north = _("North")
    assert north != "North" and any(north in line for line in spoken)
    assert read_input(f"7h {north}", snap, CHIPS, fmt=solid) == Play(read_input("7h n", snap, CHIPS, fmt=solid).move)  # type: ignore[union-attr]
    assert isinstance(read_input(fold(north).upper(), snap, CHIPS, fmt=solid), Refused)
    hand = _typed(Command.HAND)
    assert hand != "hand" and read_input(hand, snap, CHIPS, fmt=solid) == Command.HAND
    assert read_input("hand", snap, CHIPS, fmt=solid) == Command.HAND


def _typed(command: Command) -> str:
    return pgettext("typed command", command.value)


def test_the_cards_are_told_in_the_players_card_style_whatever_the_log_wrote() -> None:
    teller = Teller(card_str)
    log = ("Round 1: Ana dealt", "Ana played 7♥ on 8♣ at N", "Ana moved 6♦ 5♠ from W onto 7♥ at N")
    snap = view("TH", ("8C 7H 6D 5S", "", "", "", "", "", "", ""), log=log)
    assert teller.news(snap) == [
        "Round 1: Ana dealt",
        "Ana played 7H on 8C at North; Ana has 1 card",
        "Ana moved 6D 5S from West onto 7H at North",
    ]
    assert teller.hand(snap) == ["Your hand: TH (1 card)"]
    assert teller.table(snap)[0] == "North: 4 cards from 8C to 5S, next red 4"
