"""The position file of POSITION_FORMAT.md: writing, reading back, and refusing bad files."""

from __future__ import annotations

import json
import os
import random
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kc_tui.engine import (
    PositionError,
    Round,
    Rules,
    card_str,
    dump_position,
    load_position,
    parse_card,
    parse_position,
)

from .helpers import all_rule_combos, build, draw3_position, hand_text, invariant_problems, position

CANONICAL = re.compile(r"^[A2-9TJQK][CDHS]$")
EXAMPLE = """{
  "format": "kings-corners/position/1",
  "rules": {"draw": "start", "layout_kings": "to_corner", "completed_piles": "to_stock",
            "out_with_open_side": "end", "scoring": "points", "target": 50},
  "players": [
    {"name": "You",    "hand": ["7H", "KS", "2C"]},
    {"name": "Greedy", "hand": ["QD", "9S"]}
  ],
  "to_move": 0,
  "drawn": true,
  "stock": ["4C", "JH"],
  "piles": {"N": ["8C", "7H"], "E": ["5S"], "S": [], "W": ["TD"],
            "NE": ["KH", "QS"], "SE": [], "SW": [], "NW": []}
}"""


def _same_round(a: Round, b: Round) -> None:
    assert a.rules == b.rules and a.n == b.n
    assert a.hands == b.hands and a.piles == b.piles and a.stock == b.stock
    assert (a.to_move, a.drawn, a.idle_turns, a.over, a.winner) == (b.to_move, b.drawn, b.idle_turns, b.over, b.winner)
    assert a.legal_moves() == b.legal_moves()


def _all_card_texts(doc: dict[str, Any]) -> list[str]:
    out = list(doc["stock"])
    for p in doc["players"]:
        out += p["hand"]
    for pile in doc["piles"].values():
        out += pile
    return out


# ------------------------------------------------------------------ round trip


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(k=st.integers(0, 95), n=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**32), stop=st.floats(0, 1))
def test_dump_then_load_gives_the_same_position(k: int, n: int, seed: int, stop: float) -> None:
    rules = all_rule_combos()[k]
    r = Round.deal(n, rules, seed=seed, dealer=seed % n)
    rng = random.Random(seed)
    steps = 0
    while not r.over and rng.random() > stop * 0.05:
        ms = r.legal_moves()
        r.apply(ms[rng.randrange(len(ms))])
        steps += 1
    text = dump_position(r)
    doc = json.loads(text)
    assert all(CANONICAL.match(t) for t in _all_card_texts(doc))
    assert len(_all_card_texts(doc)) == 52
    again = load_position(text)
    _same_round(r, again)
    assert dump_position(again) == text, "writing what was read gives the same text"
    if r.over:
        assert doc["round_over"] is True and doc["winner"] == r.winner and doc["penalties"] == r.penalties()


def test_stock_is_written_top_card_first_and_piles_bottom_first() -> None:
    r = build([["5C"], ["6C"]], {"N": ["9H", "8S"]}, stock=["2D", "3D"], drawn=False)
    # draw = start: 2D (the top) was drawn when the turn began
    assert "2D" in hand_text(r, 0)
    doc = json.loads(dump_position(r))
    assert doc["stock"][0] == "3D"
    assert doc["piles"]["N"] == ["9H", "8S"]
    assert doc["drawn"] is True


def test_extra_keys_are_kept() -> None:
    doc = position([["5C"], ["6C"]], {"N": ["9H"]})
    doc["history"] = [{"round": 1, "winner": 0}]
    doc["note"] = "from a bug report"
    r = parse_position(doc)
    out = json.loads(dump_position(r))
    assert out["history"] == [{"round": 1, "winner": 0}]
    assert out["note"] == "from a bug report"
    again = json.loads(dump_position(load_position(dump_position(r))))
    assert again["history"] == doc["history"] and again["note"] == doc["note"]


def test_names_are_kept() -> None:
    doc = position([["5C"], ["6C"]], {"N": ["9H"]})
    doc["players"][0]["name"] = "Ada"
    doc["players"][1]["name"] = "Greedy"
    out = json.loads(dump_position(parse_position(doc)))
    assert [p["name"] for p in out["players"]] == ["Ada", "Greedy"]


def test_card_text_is_read_in_every_spelling_and_written_canonically() -> None:
    assert parse_card("TH") == parse_card("10H") == parse_card("th") == parse_card("10h") == parse_card(" Th ")
    assert card_str(parse_card("10h")) == "TH"
    assert parse_card("ks") == parse_card("KS") and card_str(parse_card("ac")) == "AC"
    doc = position([["10h", "ks"], ["2c"]], {"N": ["9s", "8d"], "NE": ["kD", "qc"]})
    r = parse_position(doc)
    out = json.loads(dump_position(r))
    assert "TH" in out["players"][0]["hand"] and "KS" in out["players"][0]["hand"]
    assert out["players"][1]["hand"][0] == "2C" or "2C" in out["players"][1]["hand"]
    assert out["piles"]["N"] == ["9S", "8D"] and out["piles"]["NE"] == ["KD", "QC"]
    assert all(CANONICAL.match(t) for t in _all_card_texts(out))


@pytest.mark.parametrize("bad", ["1H", "11H", "TX", "ZZ", "H", "", "10", "KSS", "T♥x"])
def test_unknown_card_text_is_refused(bad: str) -> None:
    from kc_tui.engine import CardError

    with pytest.raises(CardError):
        parse_card(bad)


def test_missing_optional_keys_take_defaults() -> None:
    doc = position([["5C"], ["6C"]], {"N": ["9H"]})
    for key in ("rules", "drawn", "idle_turns", "format"):
        del doc[key]
    r = parse_position(doc)
    assert r.rules == Rules()
    assert r.drawn is True and r.idle_turns == 0
    assert hand_text(r, 0) == {"5C"}, "drawn defaults to true: no draw on loading"


def test_rules_subset_takes_defaults_for_the_rest() -> None:
    r = parse_position(position([["5C"], ["6C"]], rules={"draw": "end", "target": 25}))
    assert r.rules == Rules(draw="end", target=25)


def test_drawn_false_makes_the_routine_draw() -> None:
    r = parse_position(position([["5C"], ["6C"]], stock=["JH"], drawn=False))
    assert hand_text(r, 0) == {"5C", "JH"}


def test_a_complete_pile_is_allowed_when_completed_piles_stay() -> None:
    full = ["KS", "QH", "JC", "TD", "9S", "8H", "7C", "6D", "5S", "4H", "3C", "2D", "AS"]
    r = parse_position(position([["5C"], ["6C"]], {"N": full}, rules={"completed_piles": "stay"}))
    assert len(r.piles[0]) == 13
    with pytest.raises(PositionError, match="R12"):
        parse_position(position([["5C"], ["6C"]], {"N": full}))


def test_a_hand_already_empty_means_the_round_is_over() -> None:
    r = parse_position(position([[], ["6C"]], {"N": ["9H"]}))
    assert r.over and r.winner == 0


def test_round_over_keys_are_read_back() -> None:
    r = build([["QH"], ["2C"]], {"N": ["KS"]})
    from kc_tui.engine import parse_move

    r.apply(parse_move("play QH N"))
    again = load_position(dump_position(r))
    assert again.over and again.winner == 0
    doc = json.loads(dump_position(again))
    assert list(doc).count("round_over") == 1 and doc["penalties"] == r.penalties()


# ------------------------------------------------------------------ bad files: one message naming the problem


def _doc(**changes: Any) -> dict[str, Any]:
    doc = position([["5C", "7H"], ["6C"]], {"N": ["9H", "8S"], "NE": ["KD"]})
    doc.update(changes)
    return doc


def _error(doc: Any) -> str:
    with pytest.raises(PositionError) as info:
        parse_position(doc)
    msg = str(info.value)
    assert "\n" not in msg
    return msg


def test_bad_unknown_card_names_the_card_and_place() -> None:
    doc = _doc()
    doc["players"][1]["hand"].append("XQ")
    msg = _error(doc)
    assert "XQ" in msg and "player 1" in msg


def test_bad_duplicate_card_names_the_card_and_both_places() -> None:
    doc = _doc()
    doc["stock"].append("7H")
    msg = _error(doc)
    assert "duplicate" in msg and "7H" in msg and "player 0" in msg and "stock" in msg


def test_bad_duplicate_spelled_differently_is_still_a_duplicate() -> None:
    doc = _doc()
    doc["stock"].remove("TH")
    doc["stock"] += ["TH", "10h"]
    assert "duplicate card TH" in _error(doc)


def test_bad_missing_card_is_named() -> None:
    doc = _doc()
    doc["stock"].remove("QC")
    msg = _error(doc)
    assert "missing" in msg and "QC" in msg


def test_bad_example_from_the_format_document_is_refused_at_its_first_problem() -> None:
    # The illustration in POSITION_FORMAT.md is not a whole position: 7H is both in the first
    # hand and on pile N (the first problem, read in file order), and most cards are missing.
    with pytest.raises(PositionError, match="duplicate card 7H: in player 0's hand and in pile N"):
        load_position(EXAMPLE)
    fixed = json.loads(EXAMPLE)
    fixed["players"][0]["hand"].remove("7H")
    with pytest.raises(PositionError, match="missing"):
        parse_position(fixed)


def test_bad_pile_of_the_wrong_colour_names_the_cards_and_place() -> None:
    doc = _doc()
    doc["piles"]["N"] = ["9H", "8D"]
    doc["stock"].remove("8D")
    doc["stock"].append("8S")
    msg = _error(doc)
    assert "8D" in msg and "9H" in msg and "pile N" in msg


def test_bad_pile_of_the_wrong_rank_names_the_cards_and_place() -> None:
    doc = _doc()
    doc["piles"]["E"] = ["9C", "7H"]
    doc["players"][0]["hand"].remove("7H")
    doc["stock"].remove("9C")
    msg = _error(doc)
    assert "7H" in msg and "9C" in msg and "pile E" in msg


def test_bad_corner_without_a_king() -> None:
    doc = _doc()
    doc["piles"]["SW"] = ["QS"]
    doc["stock"].remove("QS")
    msg = _error(doc)
    assert "corner SW" in msg and "QS" in msg and "king" in msg


def test_bad_unknown_rule_value() -> None:
    msg = _error(_doc(rules={"draw": "sometimes"}))
    assert "draw" in msg and "sometimes" in msg


def test_bad_unknown_rule_key() -> None:
    msg = _error(_doc(rules={"jokers": True}))
    assert "jokers" in msg


@pytest.mark.parametrize("seat", [2, -1, "0", 1.0, True, None])
def test_bad_seat_out_of_range(seat: Any) -> None:
    msg = _error(_doc(to_move=seat))
    assert "to_move" in msg


@pytest.mark.parametrize(
    ("changes", "word"),
    [
        ({"format": "chess/1"}, "format"),
        ({"players": "two"}, "players"),
        ({"players": [{"hand": ["2C"]}]}, "R1"),
        ({"piles": ["N"]}, "piles"),
        ({"piles": {"X": []}}, "X"),
        ({"stock": "4C"}, "stock"),
        ({"drawn": "yes"}, "drawn"),
        ({"idle_turns": -1}, "idle_turns"),
        ({"rules": ["draw"]}, "rules"),
        ({"rules": {"target": "fifty"}}, "target"),
        ({"rules": {"hand_size": 0}}, "hand_size"),
        ({"rules": {"chips_per_card": "yes"}}, "chips_per_card"),
    ],
)
def test_bad_shapes_are_named(changes: dict[str, Any], word: str) -> None:
    assert word in _error(_doc(**changes))


def test_bad_not_an_object() -> None:
    assert "object" in _error([1, 2, 3])


def test_bad_empty_text_and_malformed_json() -> None:
    with pytest.raises(PositionError, match="empty"):
        load_position("  \n")
    with pytest.raises(PositionError, match="JSON"):
        load_position('{"players": [')
    with pytest.raises(PositionError):
        load_position("[" * 100_000)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 60) | st.floats(allow_nan=True) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(where=st.integers(0, 10_000), value=json_values, data=st.data())
def test_any_damaged_position_is_refused_cleanly_or_read_validly(where: int, value: Any, data: Any) -> None:
    """Replace one part of a valid document by arbitrary JSON: PositionError or a valid round."""
    doc = position([["5C", "7H", "KS"], ["6C", "2D"], ["AC"]], {"N": ["9H", "8S"], "NE": ["KD"], "E": ["4D"]})
    targets: list[tuple[Any, Any]] = [(doc, k) for k in doc]
    targets += [(doc["rules"], k) for k in ("draw", "target", "scoring", "x")]
    for p in doc["players"]:
        targets += [(p, "hand"), (p, "name")] + [(p["hand"], i) for i in range(len(p["hand"]))]
    targets += [(doc["piles"], k) for k in doc["piles"]] + [(doc["piles"]["N"], 0), (doc["piles"]["N"], 1)]
    targets += [(doc["stock"], i) for i in range(0, len(doc["stock"]), 7)]
    container, key = targets[where % len(targets)]
    if data.draw(st.booleans()) and isinstance(container, dict):
        container.pop(key, None)
    else:
        container[key] = value
    text = json.dumps(doc)
    try:
        r = load_position(text)
    except PositionError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert invariant_problems(r) == []
    assert load_position(dump_position(r)).hands == r.hands


def test_a_blocked_round_reads_back_exactly() -> None:
    from kc_tui.engine import END

    r = build([["2C"], ["3C"]], {"N": ["9H"], "E": ["7C"], "S": ["7H"], "W": ["9S"]}, rest=1)
    r.apply(END)
    r.apply(END)
    assert r.blocked
    text = dump_position(r)
    again = load_position(text)
    assert again.blocked and again.winner is None
    assert dump_position(again) == text


@pytest.mark.parametrize("draw", ["start", "when_stuck"])
def test_a_position_where_someone_is_already_out_makes_no_draw(draw: str) -> None:
    # R13: the round ended when seat 0's hand emptied; reading it must not deal seat 0 a card.
    doc = position([[], ["6C"]], {"N": ["9H"], "E": ["7C"], "S": ["7H"], "W": ["9S"]}, stock=["2D"], drawn=False)
    doc["rules"] = {"draw": draw}
    r = parse_position(doc)
    assert r.over and r.winner == 0
    assert r.hand_sizes()[0] == 0 and r.penalties()[0] == 0
    assert r.stock_top_first()[0] == parse_card("2D")
    text = dump_position(r)
    assert dump_position(load_position(text)) == text


def test_a_finished_round_marked_in_the_file_makes_no_draw() -> None:
    doc = position([["5C"], ["6C"]], {"N": ["9H"]}, stock=["2D"], drawn=False)
    doc["round_over"] = True
    doc["winner"] = None
    r = parse_position(doc)
    assert r.over and r.winner is None
    assert hand_text(r, 0) == {"5C"}


def test_R14_a_position_saved_mid_turn_keeps_what_the_turn_did() -> None:
    """A file written after a move keeps that fact, so ending the turn is not counted idle."""
    from kc_tui.engine import Round, Rules, dump_position, load_position

    r = Round.deal(2, Rules(), seed=7, dealer=1)
    other = 1 - r.to_move
    for c in r.stock:  # an empty stock (its cards go to the other hand): idle turns now count towards a block
        r.hands[other] |= 1 << c
    r.stock.clear()
    r.idle_turns = 1
    first = next(m for m in r.legal_moves() if m != r.legal_moves()[-1])
    r.apply(first)
    text = dump_position(r)
    assert '"turn"' in text
    again = load_position(text)
    assert (again.moved, again.played_card, again.drew) == (r.moved, r.played_card, r.drew)
    assert dump_position(again) == text
    r.apply(r.legal_moves()[-1])
    again.apply(again.legal_moves()[-1])
    assert again.idle_turns == r.idle_turns == 0
    assert not again.over


def test_R16_a_fine_is_not_charged_for_a_turn_that_played_before_saving() -> None:
    from kc_tui.engine import END, Round, Rules, dump_position, is_play, load_position

    r = Round.deal(2, Rules(scoring="chips"), seed=0, dealer=0)
    plays = [m for m in r.legal_moves() if is_play(m)]
    assert plays, "seed 0 gives the first player a card to play"
    r.apply(plays[0])
    seat = r.to_move
    again = load_position(dump_position(r))
    again.apply(END)
    assert again.fines[seat] == 0


def test_a_bad_turn_object_is_refused() -> None:
    import json

    import pytest

    from kc_tui.engine import PositionError, Round, Rules, load_position, position_dict

    doc = position_dict(Round.deal(2, Rules(), seed=1))
    doc["turn"] = {"moved": "yes"}
    with pytest.raises(PositionError, match="'turn'"):
        load_position(json.dumps(doc))


# ------------------------------------------------------------------ strict reading (the fixed crashes)


def _example_text() -> str:
    from pathlib import Path

    return (Path(__file__).parents[2] / "examples" / "position.json").read_text(encoding="utf-8")


def _with_extra(raw_value: str) -> str:
    """The example position with one extra key whose value is ``raw_value`` (raw JSON text)."""
    text = _example_text().rstrip()
    assert text.endswith("}")
    return text[:-1].rstrip() + ',\n  "extra": ' + raw_value + "\n}\n"


def test_huge_integer_is_refused_with_a_message_not_a_ValueError_traceback() -> None:
    for raw in ("9" * 5000, "-" + "9" * 5000, str(2**64), str(-(2**63) - 1)):
        with pytest.raises(PositionError, match="out of range") as info:
            load_position(_with_extra(raw))
        assert "\n" not in str(info.value) and len(str(info.value)) < 400
    for raw in ("0", str(2**64 - 1), str(-(2**63))):  # the documented range, both ends
        assert load_position(_with_extra(raw)).extra["extra"] == int(raw)


@pytest.mark.parametrize("raw", ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "[1, NaN]"])
def test_non_finite_numbers_are_refused_when_reading(raw: str) -> None:
    with pytest.raises(PositionError, match="finite"):
        load_position(_with_extra(raw))


def test_the_writer_never_writes_non_finite_numbers() -> None:
    r = load_position(_example_text())
    r.extra["bad"] = float("nan")
    with pytest.raises(ValueError):
        dump_position(r)
    r.extra["bad"] = [1.5, -0.0, 1e300]
    doc = json.loads(dump_position(r), parse_constant=lambda name: pytest.fail(f"{name} written"))
    assert doc["bad"] == [1.5, -0.0, 1e300]


def test_nesting_deeper_than_the_limit_is_refused_and_within_it_is_kept_and_written() -> None:
    from kc_tui.engine.position import MAX_DEPTH

    too_deep = "[" * 500 + "]" * 500
    with pytest.raises(PositionError, match=f"nested more than {MAX_DEPTH} deep"):
        load_position(_with_extra(too_deep))
    with pytest.raises(PositionError, match=f"nested more than {MAX_DEPTH} deep"):
        load_position(_with_extra('{"a": ' * 100 + "1" + "}" * 100))
    # the document is depth 1, so an extra key may hold MAX_DEPTH - 1 levels
    fits = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)
    r = load_position(_with_extra(fits))
    out = json.loads(dump_position(r))
    assert json.dumps(out["extra"]).replace(" ", "") == fits
    with pytest.raises(PositionError, match="nested"):
        load_position(_with_extra("[" + fits + "]"))


def test_nesting_the_writer_is_given_in_process_does_not_recurse_in_format_json() -> None:
    from kc_tui.engine.position import format_json

    deep: Any = []
    for _ in range(600):
        deep = [deep, {"k": 1}]
    value = {"a": deep, "b": [{"c": [1]}]}
    text = format_json(value)
    assert json.loads(text) == value
    assert '"b": [\n' in text, "the top levels are still spread over lines"


def test_size_cap_applies_to_text_and_bytes() -> None:
    from kc_tui.engine.position import MAX_BYTES

    text = _example_text()
    padded = text + " " * (MAX_BYTES - len(text.encode()))
    assert load_position(padded).n == 2 and load_position(padded.encode()).n == 2  # exactly the cap: read
    with pytest.raises(PositionError, match="1 MiB"):
        load_position(padded + " ")
    with pytest.raises(PositionError, match="1 MiB"):
        load_position((padded + " ").encode())


def test_duplicate_keys_are_refused() -> None:
    with pytest.raises(PositionError, match="'to_move' appears twice"):
        load_position(_example_text().replace('"to_move": 0,', '"to_move": 0, "to_move": 1,'))


@pytest.mark.parametrize(
    ("changes", "word"),
    [
        ({"round_over": "false"}, "round_over"),
        ({"round_over": 0}, "round_over"),
        ({"round_over": None}, "round_over"),
        ({"idle_turns": True}, "idle_turns"),
        ({"idle_turns": 1.0}, "idle_turns"),
        ({"drawn": 1}, "drawn"),
        ({"to_move": False}, "to_move"),
        ({"format": ["kings-corners/position/1"]}, "format"),
        ({"turn": {"moved": 1}}, "turn"),
        ({"turn": {"played_card": True}}, "moved"),
        ({"winner": None}, "winner"),  # without round_over: true
        ({"penalties": [0, 0]}, "penalties"),
        ({"round_over": True, "winner": True}, "winner"),
        ({"round_over": True, "winner": 0}, "winner"),  # nobody is out: a block has no winner
        ({"round_over": True, "penalties": [True, 1]}, "penalties"),
        ({"round_over": True, "penalties": [1, 2]}, "penalties"),  # the hands score [2, 1]
    ],
)
def test_every_known_key_has_its_exact_json_type(changes: dict[str, Any], word: str) -> None:
    assert word in _error(_doc(**changes))


def test_a_name_must_be_text() -> None:
    for bad in (5, None, True, ["Ada"]):
        doc = _doc()
        doc["players"][0]["name"] = bad
        assert "name" in _error(doc)


def test_output_keys_that_agree_with_the_position_are_read() -> None:
    # 5C 7H for seat 0, seat 1 out already
    doc = position([["5C", "7H"], []], {"N": ["9H", "8S"]})
    doc.update(round_over=True, winner=1, penalties=[2, 0])
    r = parse_position(doc)
    assert r.over and r.winner == 1 and r.penalties() == [2, 0]
    doc["round_over"] = False
    assert "round_over" in _error(doc)
    block = _doc(round_over=True, winner=None, penalties=[2, 1])
    b = parse_position(block)
    assert b.over and b.winner is None


def test_user_keys_starting_with_an_underscore_are_kept() -> None:
    doc = _doc(_names=["not", "names"], _note={"x": 1})
    doc["players"][0]["_seat_note"] = "kept too"
    doc["players"][1]["name"] = "Greedy"
    r = parse_position(doc)
    out = json.loads(dump_position(r))
    assert out["_names"] == ["not", "names"] and out["_note"] == {"x": 1}
    assert [p["name"] for p in out["players"]] == ["P0", "Greedy"], "a user key never becomes the names"
    assert out["players"][0]["_seat_note"] == "kept too"
    assert r.extra == {"_names": ["not", "names"], "_note": {"x": 1}}, "no internal data among the user's keys"
    again = json.loads(dump_position(load_position(dump_position(r))))
    assert again == out


def test_a_name_missing_from_the_file_is_written_as_a_default() -> None:
    doc = _doc()
    del doc["players"][1]["name"]
    out = json.loads(dump_position(parse_position(doc)))
    assert [p["name"] for p in out["players"]] == ["P0", "Player 2"]


# ------------------------------------------------------------------ R14 and reading back


def _draw3_mid_turn() -> Round:
    """R14 scenario: when_stuck + draw3; two idle turns with cards in the stock, then seat 0
    plays its last card with side W empty and draw3 takes the last two stock cards."""
    r = parse_position(draw3_position())
    from kc_tui.engine import parse_move

    r.apply(parse_move("play 7H N"))
    assert not r.stock and r.moved and r.idle_turns == 2 and not r.over
    return r


def test_R14_reading_back_after_draw3_emptied_the_stock_mid_turn_does_not_block() -> None:
    r = _draw3_mid_turn()
    text = dump_position(r)
    doc = json.loads(text)
    assert doc["idle_turns"] == 2 and doc["stock"] == [] and doc["turn"]["moved"] is True
    again = load_position(text)
    assert not again.over, "the turn in progress has moved: no full circle of idle turns"
    assert again.legal_moves() == r.legal_moves()
    from kc_tui.engine import END

    r.apply(END)
    again.apply(END)
    assert dump_position(again) == dump_position(r)
    assert again.idle_turns == r.idle_turns == 0 and not again.over


def test_R14_a_file_at_the_start_of_a_turn_after_a_full_idle_circle_is_a_block() -> None:
    r = parse_position(_blocked_doc())
    assert r.over and r.winner is None
    doc = _blocked_doc()
    doc["turn"] = {"moved": True}  # the same file mid-turn, after a move: not (yet) a block
    assert not parse_position(doc).over


def _blocked_doc() -> dict[str, Any]:
    doc = position([["2C"], ["3C"]], {"N": ["9H"], "E": ["7C"], "S": ["7H"], "W": ["9S"]}, rest=1, idle_turns=2)
    assert doc["stock"] == []
    return doc


def test_R14_drawn_false_with_a_turn_in_progress_is_refused() -> None:
    doc = _blocked_doc()
    doc.update(drawn=False, turn={"moved": True})
    assert "drawn" in _error(doc)


def _same_continuation(a: Round, b: Round, rng: random.Random, horizon: int, fines_before: list[int]) -> None:
    """Play the same random moves on ``a`` (continuous play) and ``b`` (read back); they must agree."""
    assert dump_position(a) == dump_position(b)
    for _ in range(horizon):
        assert _state(a) == _state(b)
        ms = a.legal_moves()
        assert ms == b.legal_moves()
        assert [x - y for x, y in zip(a.fines, fines_before, strict=True)] == b.fines, "R16 fines counted alike"
        if a.over:
            assert (a.winner, a.penalties()) == (b.winner, b.penalties())
            break
        m = ms[rng.randrange(len(ms))]
        a.apply(m)
        b.apply(m)
    assert dump_position(a) == dump_position(b)


def _state(r: Round) -> tuple[Any, ...]:
    """Everything a position file holds (cheaper to compare than its text); what the turn did
    only while the round is on (a finished round has no turn in progress)."""
    turn = () if r.over else (r.moved, r.played_card, r.drew)
    return (r.hands, r.piles, r.stock, r.to_move, r.drawn, r.idle_turns, r.over, r.winner, turn)


def _check_read_back_continues(rules: Rules, n: int, seed: int, every: float, horizon: int) -> int:
    """Play a random round; at random points write it, read it back, and continue both alike.

    The position file does not hold the shuffle generator (R12): ``--seed`` sets it when a file
    is read, so the continuous copy gets the same generator state as the one read back.
    Returns the number of positions checked.
    """
    from kc_tui.engine import rng as engine_rng

    r = Round.deal(n, rules, seed=seed, dealer=seed % n)
    rng = random.Random(seed)
    checked = 0
    for step in range(2000):
        if rng.random() < every or r.over:
            a = r.clone()
            a.fines = r.fines[:]
            a.rng = engine_rng.seed_state(step)
            b = load_position(dump_position(r), seed=step)
            _same_continuation(a, b, random.Random(step), horizon, r.fines)
            checked += 1
        if r.over:
            return checked
        ms = r.legal_moves()
        r.apply(ms[rng.randrange(len(ms))])
    raise AssertionError("the round did not end")  # pragma: no cover


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(k=st.integers(0, 95), n=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**64 - 1))
def test_R14_every_written_position_reads_back_and_continues_like_continuous_play(k: int, n: int, seed: int) -> None:
    assert _check_read_back_continues(all_rule_combos()[k], n, seed, every=0.05, horizon=60) >= 1


def test_R14_read_back_continues_alike_in_every_variant() -> None:
    """Every combination of the rule variants, with 2, 3 and 4 players in turn."""
    combos = all_rule_combos()
    assert len(combos) == 96
    for k, rules in enumerate(combos):
        assert _check_read_back_continues(rules, 2 + k % 3, seed=1000 + k, every=0.03, horizon=40) >= 1


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("KC_SLOW"), reason="heavy: set KC_SLOW=1 to run (a few minutes)")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(k=st.integers(0, 95), n=st.sampled_from([2, 3, 4]), seed=st.integers(0, 2**64 - 1))
def test_R14_read_back_continues_alike_many_rounds(k: int, n: int, seed: int) -> None:
    """Every position of each round, continued to the round's end."""
    assert _check_read_back_continues(all_rule_combos()[k], n, seed, every=1.0, horizon=10_000) >= 1


def test_the_documented_example_is_a_valid_position_and_the_readme_links_the_document() -> None:
    from pathlib import Path

    root = Path(__file__).parents[2]
    doc = (root / "docs" / "POSITION_FORMAT.md").read_text(encoding="utf-8")
    example = doc.split("```json\n", 1)[1].split("```", 1)[0]
    r = load_position(example)
    assert invariant_problems(r) == [] and r.n == 2
    assert json.loads(example) == json.loads(_example_text()), "the same as examples/position.json"
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert readme.count("(docs/POSITION_FORMAT.md)") >= 2
    assert "`POSITION_FORMAT.md`" not in readme
