"""No save file can crash the app: every unusable one is reported in one plain line and kept
aside with its bytes intact; usable ones resume exactly, undo included."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from kc_tui.config import NAME_MAX, Config, Opponent
from kc_tui.engine import END, position_dict
from kc_tui.match.saves import SAVE_MAX_BYTES, SaveError
from kc_tui.match.session import MatchSession, load_or_quarantine
from tests.match.kit import step

HUGE = "9" * 5000


def _config() -> Config:
    return Config(opponents=(Opponent("Greedy", "greedy"), Opponent("Kingsley", "king-aware")), pace="instant")


def _mid_turn(path: Path, seed: int = 5) -> MatchSession:
    """A session saved at ``path`` with the human to move, one card already played this turn."""
    s = MatchSession.from_config(_config(), seed, save_path=path)
    for _ in range(400):
        if s.match.round.over:
            s.finish_round()
        elif s.ai_to_move:
            s.step_ai()
        else:
            plays = [m for m in s.match.round.legal_moves() if m != END]
            if plays and len(s.match.round.history) > 6:
                s.play_human(plays[0])
                if s.human_to_move:
                    return s
            s.play_human(END)
    raise AssertionError("no mid-turn position reached")


@pytest.fixture
def save(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    path = tmp_path / "current-match.json"
    _mid_turn(path)
    return path, json.loads(path.read_text(encoding="utf-8"))


def _assert_quarantined(path: Path, original: bytes, message: str | None) -> str:
    assert message is not None and message.startswith("The saved match could not be resumed")
    assert message.isprintable(), f"not one plain line: {message!r}"
    assert not path.exists()
    aside = list(path.parent.glob(path.name + ".corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == original
    assert str(aside[0]) in message
    return message


def _load_text(path: Path, text: str) -> tuple[MatchSession | None, str | None, bytes]:
    path.write_text(text, encoding="utf-8")
    original = path.read_bytes()
    session, message = load_or_quarantine(path)
    return session, message, original


def test_the_fixture_is_a_usable_save(save: tuple[Path, dict[str, Any]]) -> None:
    path, _ = save
    session, message = load_or_quarantine(path)
    assert message is None and session is not None and session.can_undo
    assert path.exists()


def _edit(doc: dict[str, Any], change: str) -> str:
    """The save's text after ``change`` (a few named edits, some only possible in text)."""
    doc = json.loads(json.dumps(doc))
    human_name = doc["seats"][0]["name"]
    if change == "log null":
        doc["log"] = None
    elif change == "log 5":
        doc["log"] = 5
    elif change == "log with an escape":
        doc["log"].append("\u001b[2J")
    elif change == "log too long":
        doc["log"] = ["x"] * 401
    elif change == "one seat short":
        doc["seats"].pop()
    elif change == "one seat too many":
        doc["seats"].append({"name": "Extra", "kind": "greedy", "think_ms": 1000})
    elif change == "seats null":
        doc["seats"] = None
    elif change == "two people of one name":
        old = doc["seats"][1]["name"]
        doc["seats"][1] = {"name": human_name.upper(), "kind": "human", "think_ms": 1000}
        for p in doc["players"]:
            if p["name"] == old:
                p["name"] = human_name.upper()
    elif change == "unknown kind":
        doc["seats"][1]["kind"] = "[@click=app.quit]boom[/]"
    elif change == "think_ms true":
        doc["seats"][1]["think_ms"] = True
    elif change == "think_ms float":
        doc["seats"][1]["think_ms"] = 1000.0
    elif change == "think_ms too big":
        doc["seats"][1]["think_ms"] = 10**7
    elif change == "unknown seat field":
        doc["seats"][1]["colour"] = "red"
    elif change.startswith("name "):
        long = "x" * (NAME_MAX + 1)
        bad: Any = {"name empty": "", "name long": long, "name escape": "a\u001bb", "name int": 5}[change]
        doc["seats"][0]["name"] = bad
        for p in doc["players"]:
            if p["name"] == human_name:
                p["name"] = bad
    elif change == "move as text":
        doc["match"]["rounds"][-1][0] = str(doc["match"]["rounds"][-1][0])
    elif change == "move as bool":
        doc["match"]["rounds"][-1].append(True)
    elif change == "seed as text":
        doc["match"]["seed"] = str(doc["match"]["seed"])
    elif change == "seed negative":
        doc["match"]["seed"] = -1
    elif change == "seed too big":
        doc["match"]["seed"] = 2**64
    elif change == "to_move as bool":
        doc["to_move"] = bool(doc["to_move"])
        assert doc["to_move"] == json.loads(json.dumps(doc))["to_move"]
    elif change == "idle_turns as float":
        doc["idle_turns"] = float(doc["idle_turns"])
    elif change == "unknown field":
        doc["note"] = "hello"
    elif change == "match null":
        doc["match"] = None
    elif change == "not a save":
        doc = {"format": doc["format"]}
    else:
        text = json.dumps(doc)
        if change == "move Infinity":
            return text.replace('"rounds": [[', '"rounds": [[Infinity, ', 1)
        if change == "seed Infinity":
            return text.replace('"seed": ', '"seed": Infinity, "_x": ', 1)
        if change == "think_ms Infinity":
            return text.replace('"think_ms": ', '"think_ms": Infinity, "_x": ', 1)
        if change == "NaN":
            return text.replace('"idle_turns": ', '"idle_turns": NaN, "_x": ', 1)
        if change == "huge move":
            return text.replace('"rounds": [[', f'"rounds": [[{HUGE}, ', 1)
        if change == "huge int in the log":
            return text.replace('"log": [', f'"log": [{HUGE}, ', 1)
        if change == "huge float":
            return text.replace('"seed": ', '"seed": 1e999, "_x": ', 1)
        if change == "seed given twice":  # JSON alone would keep the last, the real one
            return text.replace('"seed": ', '"seed": 7, "seed": ', 1)
        if change == "deep nesting":
            return text[:-1] + ', "deep": ' + "[" * 100_000 + "]" * 100_000 + "}"
        raise AssertionError(change)
    return json.dumps(doc)


CHANGES = [
    "log null",
    "log 5",
    "log with an escape",
    "log too long",
    "one seat short",
    "one seat too many",
    "seats null",
    "two people of one name",
    "unknown kind",
    "think_ms true",
    "think_ms float",
    "think_ms too big",
    "unknown seat field",
    "name empty",
    "name long",
    "name escape",
    "name int",
    "move as text",
    "move as bool",
    "seed as text",
    "seed negative",
    "seed too big",
    "to_move as bool",
    "idle_turns as float",
    "unknown field",
    "match null",
    "not a save",
    "move Infinity",
    "seed Infinity",
    "think_ms Infinity",
    "NaN",
    "huge move",
    "huge int in the log",
    "huge float",
    "seed given twice",
    "deep nesting",
]


@pytest.mark.parametrize("change", CHANGES)
def test_a_bad_save_is_reported_in_one_line_and_kept_aside(save: tuple[Path, dict[str, Any]], change: str) -> None:
    path, doc = save
    session, message, original = _load_text(path, _edit(doc, change))
    assert session is None
    _assert_quarantined(path, original, message)
    with pytest.raises(SaveError):  # a clear reason, not an accident
        path.write_bytes(original)
        MatchSession.load(path)


def test_the_reasons_name_the_problem(save: tuple[Path, dict[str, Any]]) -> None:
    path, doc = save
    expected = {
        "log null": "log",
        "one seat short": "exactly 3 seats",
        "two people of one name": "cannot share the name",
        "unknown kind": "unknown kind '[@click=app.quit]boom[/]'",
        "name escape": "printable",
        "move Infinity": "Infinity",
        "huge move": "too long",
        "seed too big": "'seed'",
        "deep nesting": "nested too deeply",
        "seed given twice": 'the field "seed" is given twice',
        "think_ms Infinity": "Infinity",
    }
    for change, words in expected.items():
        path.write_text(_edit(doc, change), encoding="utf-8")
        with pytest.raises(SaveError) as info:
            MatchSession.load(path)
        assert words in str(info.value), (change, str(info.value))


def test_markup_in_names_is_legal_data(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    cfg = _config().with_(player_name="[b]me[/b]", opponents=(Opponent("[@click=x]", "greedy"),))
    s = MatchSession.from_config(cfg, 4, save_path=path)
    session, message = load_or_quarantine(path)
    assert message is None and session is not None
    assert session.names == s.names == ["[b]me[/b]", "[@click=x]"]


def test_a_save_larger_than_the_cap_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    with open(path, "wb") as fh:
        fh.truncate(SAVE_MAX_BYTES + 1)
    session, message = load_or_quarantine(path)
    assert session is None and message is not None and "larger than" in message
    assert not path.exists()


def test_binary_garbage_is_kept_aside(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_bytes(b"\xff\xfe\x00\x1b[2J")
    session, message = load_or_quarantine(path)
    assert session is None
    _assert_quarantined(path, b"\xff\xfe\x00\x1b[2J", message)


def test_a_directory_in_place_of_the_save_is_reported_and_left(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.mkdir()
    session, message = load_or_quarantine(path)
    assert session is None and message is not None and "not a regular file" in message
    assert "left in place" in message and path.is_dir()


@pytest.mark.parametrize("error", [IndexError, MemoryError, OverflowError, RecursionError, ValueError, AttributeError])
def test_an_unforeseen_error_is_reported_by_type_and_the_save_kept_aside(
    save: tuple[Path, dict[str, Any]], error: type[Exception], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _ = save
    original = path.read_bytes()

    def boom(*args: object, **kwargs: object) -> MatchSession:
        raise error("\u001b[2J\nsurprise")

    monkeypatch.setattr(MatchSession, "from_dict", boom)
    session, message = load_or_quarantine(path)
    assert session is None
    text = _assert_quarantined(path, original, message)
    assert f"could not be read ({error.__name__})" in text and "surprise" not in text


def test_a_save_that_cannot_be_moved_aside_is_left_and_ignored(
    save: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, doc = save
    path.write_text(_edit(doc, "log null"), encoding="utf-8")

    def refuse(src: object, dst: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    for _ in range(2):  # every later launch says so again, and never crashes
        session, message = load_or_quarantine(path)
        assert session is None and message is not None and message.isprintable()
        assert "permission denied" in message and "left in place and is ignored" in message
        assert path.exists()


def test_two_bad_saves_in_the_same_second_keep_both(
    save: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _ = save
    monkeypatch.setattr(time, "strftime", lambda fmt, *a: "20250101-000000")
    for text in ("first", "second"):
        path.write_text(text)
        assert load_or_quarantine(path)[0] is None
    kept = sorted(p.read_text() for p in path.parent.glob(path.name + ".corrupt-*"))
    assert kept == ["first", "second"]


def test_a_finished_match_in_a_read_only_folder_still_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.json"
    s = MatchSession.from_config(_config().with_(rules=Config().rules.with_(target=5)), 2, save_path=path)

    def refuse(self: Path, missing_ok: bool = False) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "unlink", refuse)
    while not s.match.over:
        step(s)
    assert s.match.winners and path.exists()


def test_a_resumed_save_round_trips_exactly(save: tuple[Path, dict[str, Any]]) -> None:
    path, doc = save
    s = MatchSession.load(path)
    assert s is not None
    again = s.to_dict()
    assert json.dumps(again, allow_nan=False, sort_keys=True) == json.dumps(doc, sort_keys=True)
    assert position_dict(s.match.round, s.names) == {k: doc[k] for k in position_dict(s.match.round, s.names)}


def test_saves_at_awkward_moments_resume_and_play_on(tmp_path: Path) -> None:
    """A save with the round just over (not yet scored), and one with no human seat, both
    resume and play on to the end of the match."""
    path = tmp_path / "m.json"
    s = MatchSession.from_config(_config().with_(rules=Config().rules.with_(target=10)), 6, save_path=path)
    while not s.match.round.over:
        if s.human_to_move:
            s.play_human(s.match.round.legal_moves()[0])
        else:
            s.step_ai()
    ended = MatchSession.load(path)
    assert ended is not None and ended.match.round.over and not ended.can_undo
    demo = MatchSession.all_ai(["greedy", "random", "king-aware"], Config().rules.with_(target=10), seed=3)
    demo.step_ai()
    path2 = tmp_path / "demo.json"
    path2.write_text(json.dumps(demo.to_dict()), encoding="utf-8")
    no_human = MatchSession.load(path2)
    assert no_human is not None and no_human.human_seat is None
    for resumed in (ended, no_human):
        for _ in range(5000):
            if resumed.match.over:
                break
            if resumed.match.round.over:
                resumed.finish_round()
            elif resumed.human_to_move:
                assert resumed.play_human(resumed.match.round.legal_moves()[0]) is None
            else:
                resumed.step_ai()
        assert resumed.match.over and resumed.match.winners


def _hinted_mid_turn(path: Path) -> tuple[MatchSession, tuple[int, ...]]:
    """A session saved mid-turn after following the first step of the hint's plan: the plan."""
    s = MatchSession.from_config(_config(), 11, save_path=path)
    while not s.human_to_move:
        s.step_ai()
    turn = s.hint_turn()
    plan = turn.player.plan_for(turn.view)  # type: ignore[attr-defined]
    assert len(plan) >= 2
    s.play_human(plan[0])
    return s, plan


def test_a_save_keeps_the_hints_plan_for_the_turn(tmp_path: Path) -> None:
    path = tmp_path / "current-match.json"
    s, plan = _hinted_mid_turn(path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["hint"] == {"at": len(s.match.round.history) - 1, "plan": list(plan)}
    again = MatchSession.load(path)
    assert again is not None
    assert again.hint_turn().think() == plan[1]
    assert again.hint_kept() == (len(s.match.round.history) - 1, plan)


@pytest.mark.parametrize(
    ("hint", "words"),
    [
        ("plan", "its hint must have a move number and a plan"),
        ({"at": -1, "plan": []}, "its hint's move number must be a whole number"),
        ({"at": 0, "plan": ["7H N"]}, "its hint's plan must be a list of at most"),
    ],
)
def test_a_save_with_a_malformed_hint_is_refused_in_one_line(tmp_path: Path, hint: Any, words: str) -> None:
    path = tmp_path / "current-match.json"
    _hinted_mid_turn(path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["hint"] = hint
    session, message, original = _load_text(path, json.dumps(doc))
    assert session is None
    assert words in _assert_quarantined(path, original, message)


def test_a_saved_hint_that_does_not_play_is_left_out(tmp_path: Path) -> None:
    path = tmp_path / "current-match.json"
    _session, plan = _hinted_mid_turn(path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["hint"]["plan"] = [plan[1], plan[1]]  # the same card twice
    path.write_text(json.dumps(doc), encoding="utf-8")
    again = MatchSession.load(path)
    assert again is not None and again.hint_kept() is None
