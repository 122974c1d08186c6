"""A few hundred damaged position files through check, moves and apply: no contract violation.

The heavy run (20,000+ cases) is tests/benchmarks/fuzz_files.py; this is the quick one.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from kc_tui.engine import load_position
from tests import fuzzkit
from tests.fuzz_targets import positions

SEED = 20_240_601
CASES = 300


def test_position_fuzz_finds_no_contract_violation(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    violations: list[str] = []
    outcomes = {0: 0, 2: 0}
    for data in positions.cases(rng, CASES):
        problem = positions.check(data, tmp_path)
        if problem:
            violations.append(f"{problem} <- {data[:120]!r}")
        else:
            outcomes[positions.run(["check", str(tmp_path / "case.json")])[0]] += 1
    assert violations == []
    assert outcomes[0] > CASES // 20, "some cases are still valid positions (the fuzzer is not all noise)"
    assert outcomes[2] > CASES // 2


def test_check_reports_a_violation_when_the_contract_breaks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker itself can fail: a command that crashes, prints two lines or writes NaN."""
    good = Path(__file__).parents[2].joinpath("examples", "position.json").read_bytes()
    assert positions.check(good, tmp_path) is None
    import kc_tui.cli as cli

    def crash(_args: object) -> int:
        raise RecursionError("boom")

    monkeypatch.setattr(cli, "cmd_check", crash)
    monkeypatch.setattr(cli, "_parser", lambda _language: cli.build_parser())  # rebuilt: the patched command
    assert "raised RecursionError" in (positions.check(good, tmp_path) or "")
    monkeypatch.undo()

    def two_lines(_args: object) -> int:
        raise cli.CliError("one")

    monkeypatch.setattr(cli, "write_line", lambda stream, line: stream.write(line + "\nmore\n"))
    monkeypatch.setattr(cli, "cmd_check", two_lines)
    monkeypatch.setattr(cli, "_parser", lambda _language: cli.build_parser())
    assert "one non-empty line" in (positions.check(good, tmp_path) or "")
    monkeypatch.undo()

    def nan_out(_args: object) -> int:
        import sys

        sys.stdout.write('{"x": NaN}\n')
        return 0

    monkeypatch.setattr(cli, "cmd_apply", nan_out)
    monkeypatch.setattr(cli, "_parser", lambda _language: cli.build_parser())
    assert "not strict JSON" in (positions.check(good, tmp_path) or "")


def test_fuzzkit_is_seeded_and_covers_its_mutations() -> None:
    doc = {"a": [1, "x", {"b": True}], "c": None, "d": "text"}
    first = list(fuzzkit.cases(doc, random.Random(5), 200))
    assert first == list(fuzzkit.cases(doc, random.Random(5), 200)), "same seed, same cases"
    assert first != list(fuzzkit.cases(doc, random.Random(6), 200))
    blob = b"\n".join(first)
    assert b"NaN" in blob or b"Infinity" in blob
    assert any(len(c) > 4300 and c.count(b"[") < 100 for c in first), "a huge integer"
    assert any(c.count(b"[") >= fuzzkit.DEEP for c in first), "deep nesting"
    assert any(b"[@click=app.quit]q[/]" in c or b"[link=http://x]y[/link]" in c for c in first), "markup"
    assert any(b"\\u001b[31m" in c or b"\x1b[31m" in c for c in first), "an ANSI escape"
    assert any(b"\\u202e" in c or "\u202e".encode() in c for c in first), "a right-to-left override"
    assert json.dumps(doc).encode() in [c.replace(b", ", b",").replace(b": ", b":") for c in first] or any(
        c == fuzzkit.to_json_text(doc).encode() for c in first
    ), "the document itself now and then"


def test_fuzzkit_text_writer_goes_where_json_dumps_cannot() -> None:
    deep = fuzzkit.deep_value(random.Random(1), 3000)
    text = fuzzkit.to_json_text({"deep": deep, "n": fuzzkit.RawJSON("9" * 5000), "f": math.nan, "g": -math.inf})
    assert text.count("[") + text.count("{") >= 3000
    assert '"n":' + "9" * 5000 in text and '"f":NaN' in text and '"g":-Infinity' in text
    doc = {"a": [1, 2.5, None, True, "é\n"], "b": {"c": []}}
    assert json.loads(fuzzkit.to_json_text(doc)) == doc
    assert json.loads(fuzzkit.to_json_text(doc, random.Random(3))) == doc


def test_fuzzkit_mutations_leave_the_original_alone_and_damage_the_copy() -> None:
    doc = {"players": [{"name": "Ada", "hand": ["7H", "KS"]}], "to_move": 0}
    snapshot = json.dumps(doc)
    rng = random.Random(11)
    changed = sum(fuzzkit.mutate_doc(doc, rng) != doc for _ in range(100))
    assert json.dumps(doc) == snapshot
    assert changed > 80
    spoiled = fuzzkit.hostile_strings(fuzzkit.copy_doc(doc), random.Random(2))
    assert all(
        any(h in s for h in fuzzkit.HOSTILE) for s in [spoiled["players"][0]["name"], *spoiled["players"][0]["hand"]]
    )
    data = json.dumps(doc).encode()
    damaged = [fuzzkit.mutate_bytes(data, random.Random(i)) for i in range(50)]
    assert sum(d != data for d in damaged) > 40
    assert any(len(d) < len(data) for d in damaged), "truncation"


def test_a_valid_case_from_the_target_reads_back() -> None:
    rng = random.Random(3)
    for _ in range(5):
        doc = positions.random_position(rng)
        r = load_position(json.dumps(doc))
        assert r.n == len(doc["players"])
