"""tools/pool_matches.py: whole-match runs on different seeds pooled into one result."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest

from tools.pool_matches import PoolError, main, pool, report


def _run(seed: int, won: tuple[float, float], diff: float, half: float, seeds: int = 100) -> dict[str, Any]:
    pair = {"a": "greedy", "b": "lookahead"}
    return {
        "mode": "matches",
        "seats": ["greedy", "lookahead"],
        "rules": {},
        "scoring": "points",
        "target": 50,
        "seed": seed,
        "matches_played": 2 * seeds,
        "players": {"greedy": {"matches_won": won[0]}, "lookahead": {"matches_won": won[1]}},
        "pairs": [
            {
                **pair,
                "win_share_diff": {"mean": diff, "ci95": [diff - half, diff + half], "seeds": seeds},
                "per_round_diff": {"mean": -diff, "ci95": [-diff - half, -diff + half], "seeds": seeds},
            }
        ],
    }


def test_two_equal_runs_keep_the_mean_and_narrow_the_interval_by_root_two() -> None:
    got = pool([_run(1, (80, 120), -0.2, 0.1), _run(2, (90, 110), -0.2, 0.1)])
    w = got["pairs"][0]["win_share_diff"]
    assert w["mean"] == pytest.approx(-0.2)
    assert (w["ci95"][1] - w["ci95"][0]) / 2 == pytest.approx(0.1 / math.sqrt(2))
    assert w["seeds"] == 200
    assert got["players"]["greedy"] == {"won": 170.0, "played": 400.0}


def test_runs_are_weighted_by_their_match_seeds() -> None:
    got = pool([_run(1, (50, 50), 0.0, 0.1, seeds=300), _run(2, (50, 50), 0.4, 0.1, seeds=100)])
    assert got["pairs"][0]["win_share_diff"]["mean"] == pytest.approx(0.1)
    assert got["pairs"][0]["per_round_diff"]["mean"] == pytest.approx(-0.1)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.update(seats=["lookahead", "greedy"]), "other seats"),
        (lambda r: r.update(rules={"target": 100}), "other rules"),
        (lambda r: r.update(mode="rounds"), "not a --matches run"),
        (lambda r: r.update(seed=1), "same --seed"),
        (lambda r: r["pairs"][0]["win_share_diff"].update(mean=float("nan")), "not a finite number"),
        (lambda r: r["pairs"][0]["win_share_diff"].update(ci95=[None, None]), "no interval"),
        (lambda r: r["players"]["greedy"].update(matches_won="12"), "not a finite number"),
    ],
)
def test_runs_that_cannot_be_pooled_are_refused_with_the_reason(change: Any, message: str) -> None:
    other = copy.deepcopy(_run(2, (1, 1), 0.0, 0.1))
    change(other)
    with pytest.raises(PoolError, match=message):
        pool([_run(1, (1, 1), 0.0, 0.1), other])


def test_the_command_prints_the_pooled_lines_and_refuses_bad_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, bad = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "bad.json"
    a.write_text(json.dumps(_run(1, (80, 120), -0.2, 0.1)))
    b.write_text(json.dumps(_run(2, (90, 110), -0.2, 0.1)))
    bad.write_bytes(b"\xff{not json")
    assert main([str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "greedy           won   170.0 of 400 = 42.5%" in out
    assert "greedy - lookahead: win share -0.200" in out
    assert main([str(a), str(bad)]) == 2
    assert "cannot read it as JSON" in capsys.readouterr().err
    assert main([str(a)]) == 2
    assert "at least two runs" in capsys.readouterr().err


def test_settings_that_differ_between_runs_are_noted_not_refused() -> None:
    a, b = _run(1, (80, 120), -0.2, 0.1), _run(2, (90, 110), -0.2, 0.1)
    for run, params in ((a, {"rollouts": 24}), (b, {})):
        run["players"]["greedy"]["params"] = {}
        run["players"]["lookahead"]["params"] = params
    got = pool([a, b])
    assert got["notes"] == ['lookahead\'s settings differ between the runs (seed 1: {"rollouts": 24}; seed 2: {})']
    assert "note: lookahead's settings differ" in report(pool([a, b]))
    b["players"]["lookahead"]["params"] = {"rollouts": 24}
    assert pool([a, b])["notes"] == []


def test_a_file_of_another_shape_gets_one_line_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(_run(1, (80, 120), -0.2, 0.1)))
    odd = _run(2, (90, 110), -0.2, 0.1)
    odd["players"]["greedy"] = ["[bold]not a player[/]"]
    b.write_text(json.dumps(odd))
    assert main([str(a), str(b)]) == 2
    assert capsys.readouterr().err.startswith("pool_matches: ")
