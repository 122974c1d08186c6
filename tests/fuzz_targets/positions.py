"""Fuzz target: position files through ``kings-corners check | moves | apply``.

- :func:`cases` yields damaged position files (bytes), made by :mod:`tests.fuzzkit` from valid
  positions taken at random points of random seeded rounds (every rule variant, 2 to 4 players).
- :func:`check` runs the commands on one file in-process and returns what broke the contract,
  or None. The contract, for each of ``check FILE``, ``moves FILE``, ``moves --json FILE`` and
  ``apply FILE end``: either exit 2 with exactly one non-empty line on stderr (starting
  ``kings-corners: ``) and nothing on stdout, or exit 0 with nothing on stderr, where the output
  of ``moves --json`` and ``apply`` is strict JSON (no NaN/Infinity) and ``apply``'s output reads
  back with ``load_position``. No exception may escape. ``check`` and ``moves`` agree on
  whether the file is valid.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kc_tui.cli import main
from kc_tui.engine import PositionError, Round, Rules, load_position, position_dict
from kc_tui.engine.rules import CHOICES
from tests import fuzzkit

#: How many cases are made from one valid position before the next round is dealt.
CASES_PER_POSITION = 20


def random_rules(rng: random.Random) -> Rules:
    """Any combination of the rule variants (and a few number settings)."""
    settings: dict[str, Any] = {key: rng.choice(values) for key, values in CHOICES.items()}
    settings["chips_per_card"] = rng.random() < 0.5
    settings["target"] = rng.choice([25, 50, 10_000])
    return Rules(**settings)


def random_position(rng: random.Random) -> dict[str, Any]:
    """A valid position document at a random point of a random round (maybe its end)."""
    n = rng.choice([2, 3, 4])
    r = Round.deal(n, random_rules(rng), seed=rng.randrange(2**64), dealer=rng.randrange(n))
    for _ in range(rng.randrange(0, 300)):
        if r.over:
            break
        ms = r.legal_moves()
        r.apply(ms[rng.randrange(len(ms))])
    doc = position_dict(r, [rng.choice(["You", "Greedy", "Zoë", "P"]) for _ in range(n)])
    if rng.random() < 0.3:
        doc["history"] = [{"round": 1, "winner": None, "note": "kept"}]
    return doc


def cases(rng: random.Random, n: int) -> Iterator[bytes]:
    """``n`` damaged position files, a fresh valid position every :data:`CASES_PER_POSITION`."""
    made = 0
    while made < n:
        k = min(CASES_PER_POSITION, n - made)
        yield from fuzzkit.cases(random_position(rng), rng, k)
        made += k


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name} in the output")


def strict_json(text: str) -> Any:
    """``json.loads`` that refuses NaN, Infinity and -Infinity."""
    return json.loads(text, parse_constant=_reject_constant)


def run(argv: list[str]) -> tuple[int, str, str]:
    """``kings-corners ARGV`` in-process: (exit code, stdout, stderr). Exceptions propagate."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _problem(argv: list[str], code: int, out: str, err: str) -> str | None:
    if code == 2:
        if out:
            return f"exit 2 but stdout is not empty: {out[:100]!r}"
        if not err.endswith("\n") or err.count("\n") != 1 or not err.strip():
            return f"exit 2 but stderr is not one non-empty line: {err[:200]!r}"
        if "\r" in err or not err.startswith("kings-corners: "):
            return f"exit 2 but stderr is not 'kings-corners: <message>': {err[:200]!r}"
        return None
    if code != 0:
        return f"exit {code} (expected 0 or 2); stderr {err[:200]!r}"
    if err:
        return f"exit 0 but stderr is not empty: {err[:200]!r}"
    if argv[0] == "moves" and "--json" in argv:
        try:
            moves = strict_json(out)
        except ValueError as exc:
            return f"moves --json output is not strict JSON ({exc})"
        if not isinstance(moves, list) or moves != sorted(moves):
            return f"moves --json output is not a sorted list: {out[:100]!r}"
    if argv[0] == "apply":
        try:
            strict_json(out)
        except ValueError as exc:
            return f"apply output is not strict JSON ({exc})"
        try:
            load_position(out)
        except PositionError as exc:
            return f"apply output does not read back: {exc}"
    return None


def check(data: bytes, tmpdir: Path) -> str | None:
    """Run the position commands on ``data`` (written to a file in ``tmpdir``); the first
    contract violation found, described in one line, or None."""
    path = tmpdir / "case.json"
    path.write_bytes(data)
    p = str(path)
    codes: dict[str, int] = {}
    for argv in (["check", p], ["moves", p], ["moves", "--json", p], ["apply", p, "end"]):
        name = " ".join(a for a in argv if a != p)
        try:
            code, out, err = run(argv)
        except BaseException as exc:  # anything escaping is a violation
            if isinstance(exc, KeyboardInterrupt):
                raise
            return f"{name}: raised {type(exc).__name__}: {str(exc)[:200]}"
        problem = _problem(argv, code, out, err)
        if problem:
            return f"{name}: {problem}"
        codes[name] = code
    if len({codes["check"], codes["moves"], codes["moves --json"]}) != 1:
        return f"check and moves disagree on whether the file is valid: {codes}"
    if codes["check"] == 2 and codes["apply end"] == 0:
        return "apply accepted a file that check refused"
    return None
