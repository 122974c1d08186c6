"""Fuzz target: the saved-match reader (``kc_tui.match.session.load_or_quarantine``).

* ``cases(rng, n)``: ``n`` files as bytes, from valid saves of real sessions (2 to 4 seats,
  several rule variants, saved at random points of play, some with every seat an AI),
  mutated generically (``tests.fuzzkit``) and in ways that know the save format (a seat too
  few or too many, a number replaced by a bool, float, text, NaN/Infinity or a 5,000-digit
  int, markup and control characters in names, moves changed, rounds cut, deep nesting...).
  Some cases are left valid, so the usable path is checked too.
* ``check(data, tmpdir)``: the contract, None when it holds, else what broke. The bytes are
  written to a save file and ``load_or_quarantine`` is called. It must not raise; either the
  save is usable (a session, no message, the file in place, ``to_dict()`` round-trips through
  ``from_dict`` and ``json.dumps(allow_nan=False)``, and play goes on from it without error:
  moves, undo, the end of the round), or there is a one-line printable message, the file is
  gone from its path and kept aside beside it with its bytes unchanged.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from kc_tui.config import NAME_MAX, Config, Opponent
from kc_tui.engine import END, Rules
from kc_tui.match.session import MatchSession, load_or_quarantine
from tests import fuzzkit
from tests.fuzzkit import cut, in_fresh_folder, kept_aside_problem, pick_place

SAVE_NAME = "current-match.json"

#: Rule variants the valid saves are played under.
RULE_VARIANTS: tuple[Rules, ...] = (
    Rules(target=25),
    Rules(target=10, draw="when_stuck", completed_piles="stay"),
    Rules(scoring="chips", chips_start=3, chips_rounds=4, chips_per_card=True),
    Rules(target=15, draw="end", layout_kings="stay", kings_on_sides="forbid", out_with_open_side="draw3"),
    Rules(target=30, hand_size=3),
)
FAST_KINDS: tuple[str, ...] = ("greedy", "king-aware", "random")


# ---------------------------------------------------------------- valid saves of real sessions
def _play_and_snapshot(s: MatchSession, rng: random.Random, snapshots: int) -> list[dict[str, Any]]:
    """Play ``s`` with random legal moves for the human and fast AIs; a save at random points."""
    docs: list[dict[str, Any]] = [s.to_dict()]
    steps = 0
    while len(docs) < snapshots and not s.match.over and steps < 3000:
        steps += 1
        if s.match.round.over:
            s.finish_round()
            if s.match.over:
                break
        elif s.human_to_move:
            ms = s.match.round.legal_moves()
            plays = [m for m in ms if m != END]
            # Mostly play on (mid-turn saves with undo), sometimes end the turn.
            s.play_human(rng.choice(plays) if plays and rng.random() < 0.7 else END)
        else:
            s.step_ai()
        if rng.random() < 0.04:
            docs.append(s.to_dict())
    if not s.match.over:
        docs.append(s.to_dict())
    return docs


@lru_cache(maxsize=8)
def valid_saves(seed: int = 0) -> tuple[str, ...]:
    """JSON texts of valid saves of real sessions (cached: they take a second to play)."""
    rng = random.Random(seed)
    texts: list[str] = []
    names = ["You", "[b]Me[/b]", "Zoë ♥", "a" * 16]
    for k, rules in enumerate(RULE_VARIANTS):
        n_ops = 1 + k % 3
        ops = tuple(Opponent(f"Op {i + 1}", FAST_KINDS[(k + i) % 2], 50 + 100 * i) for i in range(n_ops))
        cfg = Config(player_name=names[k % len(names)], opponents=ops, rules=rules)
        s = MatchSession.from_config(cfg, rng.randrange(2**32), save_path=None)
        texts += [json.dumps(d, ensure_ascii=False, indent=1) for d in _play_and_snapshot(s, rng, 6)]
    for kinds in (["greedy", "random"], ["random", "greedy", "king-aware", "random"]):
        s = MatchSession.all_ai(kinds, RULE_VARIANTS[0], seed=rng.randrange(2**64))
        texts += [json.dumps(d) for d in _play_and_snapshot(s, rng, 3)]
    return tuple(texts)


# ---------------------------------------------------------------- format-aware mutations
HUGE = "9" * 5000


def _weird_json(rng: random.Random, like: Any) -> str:
    """JSON text of a value that confuses types with ``like`` (or is not JSON at all)."""
    options: list[str] = [
        "null",
        "true",
        "false",
        "0",
        "-1",
        "1.0",
        "1e999",
        "-1e999",
        "NaN",
        "Infinity",
        "-Infinity",
        HUGE,
        "-" + HUGE,
        str(2**64),
        str(2**63),
        '""',
        '"1024"',
        '"\\u001b[31m"',
        '"[@click=app.quit]boom[/]"',
        '"[link=http://x]y[/link]"',
        "[]",
        "{}",
        "[" * 3000 + "]" * 3000,
        '{"a":' * 3000 + "1" + "}" * 3000,
        json.dumps("x" * rng.randrange(1, 2000)),
        '"\\ud800"',
    ]
    if isinstance(like, bool):
        options += ["1", "0", '"true"']
    elif isinstance(like, int):
        options += [str(like + d) for d in (-2, -1, 1, 2, 8, 512)] + [f"{like}.0", f'"{like}"', "1024", "1025"]
    elif isinstance(like, str):
        options += [json.dumps(like + "\u001b"), json.dumps(like * 3), json.dumps(like[:-1]), "1"]
    elif isinstance(like, list):
        options += [json.dumps(like[:-1]), json.dumps([*like, like[-1] if like else 0]), json.dumps([like])]
    return rng.choice(options)


_MARK = "\u2063FUZZ\u2063"


def _replace_at(doc: dict[str, Any], path: tuple[Any, ...], raw_json: str) -> str:
    """The doc as JSON text with the value at ``path`` replaced by the raw JSON ``raw_json``."""
    doc = copy.deepcopy(doc)
    if not path:
        return raw_json
    node: Any = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = _MARK
    return json.dumps(doc).replace(json.dumps(_MARK), raw_json, 1)


def _structural(doc: dict[str, Any], rng: random.Random) -> str:
    """A change that keeps the JSON valid but breaks (or keeps) what the save means."""
    doc = copy.deepcopy(doc)
    seats, rounds = doc["seats"], doc["match"]["rounds"]
    choice = rng.randrange(15)
    if choice == 0:
        seats.pop(rng.randrange(len(seats)))
    elif choice == 1:
        seats.append(copy.deepcopy(rng.choice(seats)))
    elif choice == 2:
        rng.choice(seats)["kind"] = rng.choice(["human", "expert", "nobody", "Human", "[red]x[/]", ""])
    elif choice == 3:
        long = "x" * (NAME_MAX + 1)
        name = rng.choice(["", " ", long, "a\nb", "\u001b[2J", "[@click=app.quit]q[/]", "\u202eevil", "ok"])
        i = rng.randrange(len(seats))
        old = seats[i]["name"]
        seats[i]["name"] = name
        for p in doc["players"]:
            if p["name"] == old:
                p["name"] = name
    elif choice == 4 and rounds[-1]:
        rounds[-1].pop()
    elif choice == 5:
        rounds[-1].append(rng.choice([END, 0, 511, 512, 1023, rng.randrange(0, END + 1)]))
    elif choice == 6:
        r = rng.randrange(len(rounds))
        if rounds[r]:
            rounds[r][rng.randrange(len(rounds[r]))] = rng.randrange(0, END + 1)
    elif choice == 7:
        del rounds[rng.randrange(len(rounds)) :]
    elif choice == 8:
        doc["match"]["seed"] = rng.choice([0, 2**64 - 1, doc["match"]["seed"] + 1])
    elif choice == 9:
        doc["match"]["results"] = doc["match"].get("results", [])[:-1]
    elif choice == 10:
        doc["log"] = rng.choice([[], ["x"] * 400, ["x"] * 401, ["\t"], [""], doc["log"][::-1]])
    elif choice == 11:
        del doc[rng.choice(list(doc))]
    elif choice == 12:
        doc["to_move"] = (doc["to_move"] + 1) % len(doc["players"])
    elif choice == 13:
        doc["match"]["rules"] = dict(doc["match"]["rules"], **rng.choice([{"target": 1}, {"hand_size": 10}, {}]))
    else:
        seats[rng.randrange(len(seats))]["think_ms"] = rng.choice([49, 50, 10_000, 10_001, 1000])
    return json.dumps(doc, ensure_ascii=rng.random() < 0.5)


def _generic(text: str, rng: random.Random) -> bytes:
    """A generic mutation from tests.fuzzkit (of the document, of its bytes, or both)."""
    return next(fuzzkit.cases(json.loads(text), rng, 1))


def cases(rng: random.Random, n: int) -> Iterator[bytes]:
    """``n`` save files (bytes) to try; about one in ten is left valid."""
    texts = valid_saves()
    for _ in range(n):
        text = rng.choice(texts)
        kind = rng.random()
        if kind < 0.1:
            yield text.encode("utf-8")
        elif kind < 0.45:
            doc = json.loads(text)
            path, value = pick_place(doc, rng, 0.3)
            yield _replace_at(doc, path, _weird_json(rng, value)).encode("utf-8", "surrogatepass")
        elif kind < 0.7:
            yield _structural(json.loads(text), rng).encode("utf-8", "surrogatepass")
        else:
            yield _generic(text, rng)


# ---------------------------------------------------------------- the contract
def check(data: bytes, tmpdir: Path) -> str | None:
    """None when loading ``data`` as the save keeps the contract (module docs), else what broke."""
    return in_fresh_folder(tmpdir, lambda folder: _check_in(data, folder))


def _check_in(data: bytes, folder: Path) -> str | None:
    path = folder / SAVE_NAME
    path.write_bytes(data)
    try:
        session, message = load_or_quarantine(path)
    except Exception as exc:
        return f"load_or_quarantine raised {type(exc).__name__}: {cut(exc)}"
    if session is not None:
        if message is not None:
            return f"a usable save came with a message: {message!r}"
        if not path.is_file() or path.read_bytes() != data:
            return "a usable save was moved or changed by loading it"
        return _usable(session, folder)
    return kept_aside_problem(data, path, message)


def _usable(s: MatchSession, folder: Path) -> str | None:
    """A resumed session must round-trip, play on without error and save and resume again."""
    where = ["to_dict"]
    try:
        doc = s.to_dict()
        where[0] = "json.dumps(allow_nan=False)"
        text = json.dumps(doc, allow_nan=False)
        where[0] = "from_dict(to_dict())"
        again = MatchSession.from_dict(json.loads(text))
        if json.dumps(again.to_dict(), allow_nan=False) != text:
            return "to_dict() does not round-trip through from_dict"
        where[0] = "summary"
        s.summary()
        s.save_path = None  # no fsync per move while playing on; one save at the end
        _play_on(s, random.Random(len(text)), where)
        where[0] = "save after playing on"
        s.save_path = folder / "played-on.json"
        s.save()
        if not s.match.over:
            where[0] = "load after playing on"
            resumed = MatchSession.load(s.save_path)
            if resumed is None or json.dumps(resumed.to_dict()) != json.dumps(s.to_dict()):
                return "the save written after playing on does not resume to the same match"
    except Exception as exc:
        return f"a resumed session failed at {where[0]}: {type(exc).__name__}: {cut(exc)}"
    return None


def _play_on(s: MatchSession, rng: random.Random, step: list[str]) -> None:
    """Play on from a resumed session: undo, the human's and the AIs' moves (chosen at
    random, not thought), the end of the round. Raises whatever goes wrong."""
    for _ in range(40):
        if s.match.over:
            return
        if s.match.round.over:
            step[0] = "finish_round"
            s.finish_round()
            continue
        ms = s.match.round.legal_moves()
        if s.human_to_move:
            if s.can_undo and rng.random() < 0.2:
                step[0] = "undo"
                if not s.undo():
                    raise AssertionError("can_undo but undo() did nothing")
                continue
            step[0] = "hint_turn"
            s.hint_turn()
            seat = s.human_seat
            assert seat is not None
            s.view(seat)
            step[0] = "play_human"
            reason = s.play_human(rng.choice(ms))
            if reason is not None:
                raise AssertionError(f"a legal move was refused: {reason}")
        else:
            step[0] = "AI turn"
            turn = s.prepare_ai_turn()
            if not s.apply_ai_turn(turn, rng.choice(ms)):
                raise AssertionError("a fresh AI turn was discarded")
