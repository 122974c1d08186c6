"""The tournament: reproducible from its seed whatever --jobs is, and its counts add up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kc_tui.cli import main as cli_main
from kc_tui.lab.options import seat_names
from kc_tui.lab.results import wilson


def _run(tmp_path: Path, name: str, *args: str) -> dict:  # type: ignore[type-arg]
    out = tmp_path / f"{name}.json"
    code = cli_main(["tournament", *args, "--json", str(out), "--quiet"])
    assert code == 0
    data: dict = json.loads(out.read_text())  # type: ignore[type-arg]
    return data


def test_same_seed_same_results_whatever_jobs(tmp_path: Path) -> None:
    args = ["--seats", "greedy,king-aware,greedy", "--deals", "6", "--seed", "9"]
    one = _run(tmp_path, "one", *args, "--jobs", "1")
    two = _run(tmp_path, "two", *args, "--jobs", "2")
    one.pop("timing")
    two.pop("timing")
    assert one == two
    other = _run(tmp_path, "other", "--seats", "greedy,king-aware,greedy", "--deals", "6", "--seed", "10")
    other.pop("timing")
    assert other != one


def test_counts_add_up_and_json_has_the_issue_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _run(tmp_path, "t", "--seats", "greedy,random,greedy,king-aware", "--deals", "5", "--seed", "3")
    assert d["seats"] == ["greedy", "random", "greedy#2", "king-aware"]
    assert d["deals"] == 5 and d["rotations"] == 4 and d["rounds"] == 5 * 4
    wins = sum(p["rounds_won"] for p in d["players"].values())
    assert wins + d["blocks"] == d["rounds"]
    for name, p in d["players"].items():
        assert set(p) >= {"rounds_won", "win_rate", "ci95", "mean_penalty", "mean_penalty_lost", "moves_per_turn"}
        assert p["win_rate"] == round(p["rounds_won"] / d["rounds"], 4)
        lo, hi = p["ci95"]
        assert 0 <= lo <= p["win_rate"] <= hi <= 1
        assert p["rounds_lost"] == d["rounds"] - d["blocks"] - p["rounds_won"]
        assert d["timing"][name]["faults"] == 0
    table = capsys.readouterr().out
    assert "greedy#2" in table and "95% CI" in table


def test_rules_are_passed_and_reported(tmp_path: Path) -> None:
    d = _run(tmp_path, "r", "--seats", "greedy,greedy", "--deals", "3", "--rules", "draw=end", "kings_on_sides=forbid")
    assert d["rules"] == {"draw": "end", "kings_on_sides": "forbid"}
    assert d["seats"] == ["greedy", "greedy#2"]


@pytest.mark.parametrize(
    "args, words",
    [
        (["--seats", "greedy"], "2 to 4"),
        (["--seats", "greedy,genius"], "unknown AI kind"),
        (["--seats", "greedy,random", "--deals", "0"], "--deals"),
        (["--seats", "greedy,random", "--jobs", "0"], "--jobs"),
        (["--seats", "greedy,random", "--rules", "draw=sometimes"], "draw"),
        (["--seats", "greedy,random", "--rules", "colour=red"], "unknown rule"),
        (["--seats", "greedy,expert", "--think-ms", "-5"], "--think-ms"),
        (["--seats", "greedy,lookahead", "--param", "lookahead.bogus=1"], "bogus"),
        (["--seats", "greedy,lookahead", "--param", "nonsense"], "KIND.KEY=VALUE"),
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(
    args: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli_main(["tournament", *args, "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and words in err


def test_progress_bar_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["tournament", "--seats", "greedy,random", "--deals", "2"]) == 0
    captured = capsys.readouterr()
    assert "\r[" in captured.err and "2/2 deals" in captured.err
    assert "\r" not in captured.out


def test_seat_names_and_wilson() -> None:
    assert seat_names(["a", "b", "a", "a"]) == ["a", "b", "a#2", "a#3"]
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


@pytest.mark.slow  # a strength sweep; tests/benchmarks and docs/MEASUREMENTS.md measure strength
def test_greedy_beats_random_on_100_deals(tmp_path: Path) -> None:
    """A small statistical sanity check (docs/MEASUREMENTS.md has the 2,000-deal measurement)."""
    d = _run(tmp_path, "s", "--seats", "greedy,random", "--deals", "100", "--seed", "77")
    assert d["rounds"] == 200
    assert d["players"]["greedy"]["win_rate"] >= 0.8
    assert d["players"]["greedy"]["mean_penalty"] < d["players"]["random"]["mean_penalty"]
