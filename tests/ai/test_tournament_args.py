"""``kings-corners tournament`` checks every argument before any work starts: a bad one is one
line on stderr, exit status 2, nothing on stdout, no process pool and no progress bar."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

import ai.tournament as tournament
from ai import ai_kinds, make_player
from ai.tournament import (
    DEALS_RANGE,
    ITERATIONS_RANGE,
    JOBS_RANGE,
    MAX_TURNS_RANGE,
    SEED_RANGE,
    THINK_MS_RANGE,
    add_arguments,
    parse_config,
    settings_of,
)
from kc_tui.cli import main as cli_main
from kc_tui.config import THINK_MS_RANGE as APP_THINK_MS_RANGE


def _namespace(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_arguments(p)
    return p.parse_args(list(argv))


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if the tournament starts: plays a deal, makes a pool or a progress bar."""

    def started(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("the tournament started before every argument was checked")

    for name in ("run", "play_deals", "play_round", "ProcessPoolExecutor", "Progress"):
        monkeypatch.setattr(tournament, name, started)


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the command, check it was refused the documented way, return the one line."""
    code = cli_main(["tournament", *argv])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert captured.err.endswith("\n") and "\r" not in captured.err
    assert lines[0].startswith("kings-corners tournament: ")
    return lines[0]


GREEDY2 = ["--seats", "greedy,random"]
EXPERT = ["--seats", "greedy,expert"]


@pytest.mark.parametrize(
    "argv, words",
    [
        # the think time: finite and within the app's settings range
        ([*EXPERT, "--think-ms", "inf"], "--think-ms must be a finite number of ms from 50 to 10000, not inf"),
        ([*EXPERT, "--think-ms=-inf"], "--think-ms must be a finite number"),
        ([*EXPERT, "--think-ms", "nan"], "not nan"),
        ([*EXPERT, "--think-ms", "0"], "--think-ms"),
        ([*EXPERT, "--think-ms", "49.9"], "--think-ms"),
        ([*EXPERT, "--think-ms", "10001"], "--think-ms"),
        ([*EXPERT, "--param", "expert.think_ms=nan"], "expert.think_ms must be a finite number from 50 to 10000"),
        # --param: kind, key, type, finite, range
        ([*EXPERT, "--param", "expert.margin=abc"], "expert.margin must be a number from 0 to 1000000, not 'abc'"),
        ([*EXPERT, "--param", "expert.margin=nan"], "expert.margin must be a finite number"),
        ([*EXPERT, "--param", "expert.margin=inf"], "expert.margin must be a finite number"),
        ([*EXPERT, "--param", "expert.margin=-1"], "expert.margin must be a finite number from 0"),
        ([*EXPERT, "--param", "expert.infer=maybe"], "expert.infer must be true or false, not 'maybe'"),
        ([*EXPERT, "--param", "expert.iterations=0"], "expert.iterations must be a whole number from 1 to 100000"),
        ([*EXPERT, "--param", "expert.tolerance=2"], "expert.tolerance must be a finite number from 0 to 1"),
        ([*EXPERT, "--param", "expert.horizon=-1"], "expert.horizon must be a whole number from 0"),
        (
            [*EXPERT, "--param", "expert.horizon=soon"],
            "expert.horizon must be a whole number from 0 to 1000000 or none",
        ),
        ([*GREEDY2, "--param", "lookahead.samples=-1"], "lookahead.samples must be a whole number from 0"),
        ([*GREEDY2, "--param", "lookahead.samples=1.5"], "lookahead.samples must be a whole number"),
        ([*GREEDY2, "--param", "lookahead.node_limit=0"], "lookahead.node_limit must be a whole number from 1"),
        ([*GREEDY2, "--param", "king-aware.hold_cost=1e400"], "king-aware.hold_cost must be a finite number"),
        ([*GREEDY2, "--param", "greedy.samples=3"], "greedy has no setting 'samples' (it has no settings)"),
        ([*GREEDY2, "--param", "lookahead.bogus=1"], "lookahead has no setting 'bogus' (its settings are"),
        ([*GREEDY2, "--param", "genius.depth=3"], "unknown AI kind 'genius'"),
        ([*GREEDY2, "--param", "expert.margin"], "KIND.KEY=VALUE"),
        ([*GREEDY2, "--param", ".margin=1"], "KIND.KEY=VALUE"),
        # counts and sizes
        ([*GREEDY2, "--deals", "0"], "--deals must be a whole number from 1 to 1000000, not 0"),
        ([*GREEDY2, "--deals", "1000000000"], "--deals must be a whole number from 1 to 1000000, not 1000000000"),
        ([*GREEDY2, "--jobs", "0"], "--jobs must be a whole number from 1 to 64"),
        ([*GREEDY2, "--jobs", "100000"], "--jobs must be a whole number from 1 to 64, not 100000"),
        ([*GREEDY2, "--max-turns", "0"], "--max-turns must be a whole number from 1 to 100000"),
        ([*GREEDY2, "--max-turns", "100001"], "--max-turns"),
        ([*GREEDY2, "--seed", "-1"], "--seed must be a whole number from 0 to 18446744073709551615, not -1"),
        ([*GREEDY2, "--seed", str(2**64)], "--seed must be a whole number from 0 to 18446744073709551615"),
        ([*EXPERT, "--iterations", "0"], "--iterations must be a whole number from 1 to 100000"),
        ([*EXPERT, "--iterations", "100001"], "--iterations"),
        # seats and rules
        (["--seats", "greedy"], "--seats needs 2 to 4 comma-separated AI kinds, not 1: choose from random, greedy"),
        (["--seats", "greedy,random,greedy,random,greedy"], "not 5"),
        (["--seats", " , "], "not 0"),
        (["--seats", "greedy,genius"], "unknown AI kind 'genius' in --seats: choose from random, greedy"),
        ([*GREEDY2, "--rules", "draw=sometimes"], "--rules: rule draw cannot be 'sometimes'"),
        ([*GREEDY2, "--rules", "colour=red"], "--rules: unknown rule 'colour'"),
        ([*GREEDY2, "--rules", "draw"], "must look like key=value"),
        ([*GREEDY2, "--rules", "target=lots"], "rule target must be a whole number"),
    ],
)
def test_a_bad_argument_is_one_line_exit_2_and_nothing_starts(
    argv: list[str], words: str, no_work: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert words in _refused(argv, capsys)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--seats", "greedy,gen\nius"], r"unknown AI kind 'gen\nius' in --seats"),
        (["--seats", "greedy,a\rb\x1b[2J"], r"unknown AI kind 'a\rb\x1b[2J'"),
        (["--seats", "greedy,bad\u2028line"], r"'bad\u2028line'"),
        ([*GREEDY2, "--param", "expert.mar\ngin=1"], r"expert has no setting 'mar\ngin'"),
        ([*GREEDY2, "--param", "expert.margin=1\n2"], r"not '1\n2'"),
        ([*GREEDY2, "--rules", "col\nour=red"], r"unknown rule 'col\nour'"),
    ],
)
def test_user_text_is_escaped_so_the_error_stays_one_line(
    argv: list[str], words: str, no_work: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert words in _refused(argv, capsys)


def test_an_ai_that_refuses_its_settings_is_one_line_before_the_run(
    monkeypatch: pytest.MonkeyPatch, no_work: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every AI is built once with its settings before the run; whatever it raises is reported."""
    real = make_player

    def picky(kind: str, seed: int = 0, **params: Any) -> Any:
        if params:
            raise RuntimeError("cannot use these\nsettings")
        return real(kind, seed, **params)

    monkeypatch.setattr(tournament, "make_player", picky)
    line = _refused(["--seats", "greedy,lookahead", "--param", "lookahead.samples=3"], capsys)
    assert r"bad setting for lookahead: RuntimeError: cannot use these\nsettings" in line


def test_a_setting_of_an_ai_not_seated_is_still_checked(no_work: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert "expert.margin" in _refused([*GREEDY2, "--param", "expert.margin=abc"], capsys)


def test_the_bounds_are_in_the_help_and_think_time_matches_the_app() -> None:
    assert THINK_MS_RANGE == APP_THINK_MS_RANGE
    p = argparse.ArgumentParser()
    add_arguments(p)
    text = " ".join(p.format_help().split())
    for option, (lo, hi) in [
        ("--deals", DEALS_RANGE),
        ("--jobs", JOBS_RANGE),
        ("--seed", SEED_RANGE),
        ("--max-turns", MAX_TURNS_RANGE),
        ("--iterations", ITERATIONS_RANGE),
        ("--think-ms", THINK_MS_RANGE),
    ]:
        part = text.split(f"{option} ", 2)[-1]  # after the usage line, the option's own help
        assert f"{lo} to {hi}" in part.split(" --")[0], option
    for kind in ai_kinds():
        assert kind in text


def test_good_settings_reach_the_players_with_the_type_of_the_default(no_work: None) -> None:
    cfg = parse_config(
        _namespace(
            "--seats",
            "expert,lookahead,King_Aware",
            "--think-ms",
            "250",
            "--param",
            "expert.margin=2",
            "--param",
            "expert.infer=off",
            "--param",
            "expert.horizon=none",
            "--param",
            "lookahead.samples=3",
            "--param",
            "king-aware.hold-cost=12",
        )
    )
    assert cfg.kinds == ("expert", "lookahead", "king-aware")
    expert, lookahead, king_aware = (dict(p) for p in cfg.params)
    assert expert == {"think_ms": 250.0, "margin": 2.0, "infer": False, "horizon": None}
    assert type(expert["margin"]) is float and type(expert["think_ms"]) is float
    assert lookahead == {"samples": 3} and type(lookahead["samples"]) is int
    assert king_aware == {"hold_cost": 12.0} and type(king_aware["hold_cost"]) is float


def test_settings_of_every_kind_come_from_the_constructors() -> None:
    assert settings_of("greedy") == {} and settings_of("random") == {}
    la = settings_of("lookahead")
    assert la["node_limit"].default == 1500  # the most derived default
    assert la["samples"].type is int and la["shed_weight"].type is float
    ex = settings_of("expert")
    assert ex["iterations"].type is int and ex["iterations"].optional
    assert ex["infer"].type is bool and not ex["infer"].optional
    assert set(la) < set(ex)
