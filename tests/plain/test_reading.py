"""A typed line read as a move or a command: every typed form of a move, every command, and
anything else refused in one printable line that fits 80 columns, naming the rule when the move
is well formed but not legal."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kc_tui.engine import END, Rules, move, parse_card, play
from kc_tui.plain.reading import Command, Play, Refused, help_lines, legal_order, read_input
from kc_tui.plain.telling import Teller

from .kit import one_plain_line, solid, view

RULES = Rules()
#: Ana's turn: N 8♣, E 7♦, S 5♣, W J♦, NE K♠ Q♦ J♣, the other corners empty.
PILES = ("8C", "7D", "5C", "JD", "KS QD JC", "", "", "")
HAND = "7H TH KH 4D 3C"
N, E, S, W, NE, SE, SW, NW = range(8)


def card(code: str) -> int:
    return parse_card(code)


SEVEN_ON_NORTH = play(card("7H"), N)
TEN_ON_NE = play(card("TH"), NE)
EAST_ONTO_NORTH = move(E, N)

TYPED_MOVES: list[tuple[str, int]] = [
    ("7h north", SEVEN_ON_NORTH),
    ("7h n", SEVEN_ON_NORTH),
    ("play 7h n", SEVEN_ON_NORTH),
    ("7H N", SEVEN_ON_NORTH),
    ("7♡ n", SEVEN_ON_NORTH),
    ("7♥ n", SEVEN_ON_NORTH),
    ("7♥️ n", SEVEN_ON_NORTH),
    ("  7h   n  ", SEVEN_ON_NORTH),
    ("put 7h on n", SEVEN_ON_NORTH),
    ("play 7h on the north pile", SEVEN_ON_NORTH),
    ("7h to North", SEVEN_ON_NORTH),
    ("7h 8c", SEVEN_ON_NORTH),
    ("7h on 8♣", SEVEN_ON_NORTH),
    ("7h", SEVEN_ON_NORTH),
    ("7h.", SEVEN_ON_NORTH),
    ("10♥ NE", TEN_ON_NE),
    ("10h ne", TEN_ON_NE),
    ("th north-east", TEN_ON_NE),
    ("TH NE", TEN_ON_NE),
    ("10♡ northeast", TEN_ON_NE),
    ("th north east", TEN_ON_NE),
    ("play 10h on north-east", TEN_ON_NE),
    ("10h", TEN_ON_NE),
    ("4d", play(card("4D"), S)),
    ("4♢ s", play(card("4D"), S)),
    ("4d south", play(card("4D"), S)),
    ("kh se", play(card("KH"), SE)),
    ("K♥ south-west", play(card("KH"), SW)),
    ("kh nw", play(card("KH"), NW)),
    ("move east to north", EAST_ONTO_NORTH),
    ("move e n", EAST_ONTO_NORTH),
    ("e to n", EAST_ONTO_NORTH),
    ("move e north", EAST_ONTO_NORTH),
    ("MOVE E N", EAST_ONTO_NORTH),
    ("e n", EAST_ONTO_NORTH),
    ("e -> n", EAST_ONTO_NORTH),
    ("e → n", EAST_ONTO_NORTH),
    ("move the pile from east onto north", EAST_ONTO_NORTH),
    ("end", END),
    ("end turn", END),
    ("End the turn", END),
    ("END", END),
]


@pytest.mark.parametrize(("text", "expected"), TYPED_MOVES)
def test_every_typed_form_of_a_legal_move_plays_it(text: str, expected: int) -> None:
    assert read_input(text, view(HAND, PILES), RULES, fmt=solid) == Play(expected)


def test_a_moves_number_plays_that_move_of_the_list_and_ending_the_turn_is_last() -> None:
    snap = view(HAND, PILES)
    order = legal_order(snap)
    told = Teller(solid, rules=RULES).moves(snap)
    assert order[-1] == END and len(told) == len(order)
    for n, m in enumerate(order, 1):
        assert read_input(str(n), snap, RULES, fmt=solid) == Play(m)
        assert read_input(f" {n}. ", snap, RULES, fmt=solid) == Play(m)
    assert told[-1] == f"{len(order)}. end the turn"
    assert told[0].startswith("1. ")


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("hand", Command.HAND),
        ("HAND", Command.HAND),
        ("table", Command.TABLE),
        ("moves", Command.MOVES),
        ("scores", Command.SCORES),
        ("hint", Command.HINT),
        ("undo", Command.UNDO),
        ("rules", Command.RULES),
        ("help", Command.HELP),
        ("?", Command.HELP),
        ("quit", Command.QUIT),
        ("q", Command.QUIT),
        ("Q", Command.QUIT),
        ("exit", Command.QUIT),
        (" hint ", Command.HINT),
    ],
)
def test_every_command_is_read_by_its_word(text: str, command: Command) -> None:
    assert read_input(text, view(HAND, PILES), RULES, fmt=solid) == command
    assert read_input(text, view(HAND, PILES, to_move=1), RULES, fmt=solid) == command


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("7h s", ("7♥ can't go on 5♣ at S", "R8")),
        ("kh n", ("K♥ can't go on 8♣ at N", "R8")),
        ("7h w", ("7♥ can't go on J♦ at W", "R8")),
        ("th n", ("10♥ can't go on 8♣ at N", "R8")),
        ("move s n", ("5♣ can't go on 8♣ at N", "R9")),
        ("move n n", ("onto itself", "R9")),
        ("move sw n", ("no pile at SW", "R9")),
        ("move ne sw", ("corner pile stays", "R9")),
        ("2s n", ("2♠ is not in your hand",)),
        ("2s", ("2♠ is not in your hand",)),
        ("3c", ("3♣ cannot be played anywhere now",)),
        ("kh", ("K♥ may go on South-east, South-west, North-west", "kh se")),
        ("ks", ("K♠ is not in your hand",)),
        ("7h 9c", ("9♣ is not on top of any pile",)),
        ("e", ("East alone is not a move",)),
        ("n", ("North alone is not a move",)),
        ("north-east", ("North-east alone is not a move",)),
        ("0", ("There is no move 0: the moves are 1 to",)),
        ("99", ("There is no move 99",)),
    ],
)
def test_a_well_formed_move_that_is_not_legal_is_refused_naming_the_rule(text: str, words: tuple[str, ...]) -> None:
    got = read_input(text, view(HAND, PILES), RULES, fmt=solid)
    assert isinstance(got, Refused), got
    assert all(word in got.line for word in words), got.line
    assert one_plain_line(got.line)


def test_a_king_on_an_empty_side_is_refused_with_its_rule_when_the_rules_forbid_it() -> None:
    rules = Rules(kings_on_sides="forbid")
    snap = view("KH 7H", ("8C", "", "5C", "JD", "KS", "", "", ""), rules=rules)
    got = read_input("kh e", snap, rules, fmt=solid)
    assert isinstance(got, Refused) and "R11" in got.line
    assert read_input("7h e", snap, rules, fmt=solid) == Play(play(card("7H"), E))


def test_a_move_typed_when_it_is_not_your_turn_is_refused_and_a_spectator_has_none() -> None:
    waiting = view(HAND, PILES, to_move=1)
    for text in ("7h n", "1", "end", "move e n", "10h"):
        assert read_input(text, waiting, RULES, fmt=solid) == Refused("it is not your turn")
    watching = view(HAND, PILES, viewer=None)
    for text in ("7h n", "1", "end", "move e n"):
        got = read_input(text, watching, RULES, fmt=solid)
        assert isinstance(got, Refused) and "watching" in got.line
    over = view(HAND, PILES, to_move=None)
    assert read_input("end", over, RULES, fmt=solid) == Refused("the round is over")


MALFORMED = [
    "",
    "   ",
    "\t",
    "\x00",
    "\x1b[2J",
    "\x1b]0;title\x07",
    "\u202e7h n",
    "7h\x00n",
    "[b]bold[/b]",
    "[red]7h n[/red]",
    "0",
    "-1",
    "+1",
    "99",
    "9" * 200,
    "1e9",
    "10**100",
    "7x n",
    "7h nowhere",
    "7h n e",
    "7h n s w",
    "play",
    "move",
    "move e",
    "move e n s",
    "play e n",
    "play 7h 8c 9d",
    "end now",
    "end 7h",
    "undo me",
    "hand table",
    "zz",
    "🂡",
    "七",
    "ไพ่",
    "東 北",
    "e",
    "s",
    "a",
    "k",
    "10",
    "1 2",
    "kh",
    "x" * 500,
    "ℵ₀",
    "\ud800",
    "7h\x7fn",
    "; DROP TABLE",
    "{who}",
    "%s %d",
]


@pytest.mark.parametrize("text", MALFORMED)
def test_a_malformed_line_is_refused_in_one_printable_line_that_fits(text: str) -> None:
    got = read_input(text, view(HAND, PILES), RULES, fmt=solid)
    assert isinstance(got, Refused), (text, got)
    assert got.line and one_plain_line(got.line), got.line


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_text_is_read_without_raising_and_a_refusal_is_one_plain_line(text: str) -> None:
    got = read_input(text, view(HAND, PILES), RULES, fmt=solid)
    assert isinstance(got, Play | Command | Refused)
    if isinstance(got, Refused):
        assert one_plain_line(got.line), got.line
    if isinstance(got, Play):
        assert got.move in view(HAND, PILES).legal


def test_the_help_says_every_command_and_the_forms_of_a_move_in_short_lines() -> None:
    lines = help_lines()
    text = "\n".join(lines)
    for command in Command:
        assert command.value in text
    for form in ("7h n", "move e n", "end", "?", " q"):
        assert form in text
    assert all(one_plain_line(line) for line in lines)
