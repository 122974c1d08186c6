"""``kings-corners tournament`` checks every argument before any work starts: a bad one is one
line on stderr, exit status 2, nothing on stdout, no process pool and no progress bar."""

from __future__ import annotations

import argparse
import errno
import itertools
import json
import os
import tempfile
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import kc_tui.lab.tournament as tournament
from ai import ai_kinds, make_player
from kc_tui.cli import main as cli_main
from kc_tui.config import THINK_MS_RANGE
from kc_tui.lab import batching, options, play
from kc_tui.lab.batching import batches, iter_records
from kc_tui.lab.options import (
    DEALS_RANGE,
    ITERATIONS_RANGE,
    JOBS_RANGE,
    MAX_TURNS_RANGE,
    SEED_RANGE,
    add_arguments,
    parse_options,
    settings_of,
)
from kc_tui.lab.play import DealRecord


def _namespace(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_arguments(p)
    return p.parse_args(list(argv))


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if the tournament starts: plays a deal, makes a pool or a progress bar."""

    def started(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("the tournament started before every argument was checked")

    for module in (tournament, batching, play):
        for name in ("iter_records", "run", "play_deals", "play_round", "ProcessPoolExecutor", "Progress"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, started)


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
        ([*EXPERT, "--param", "expert.min_deals=nan"], "expert.min_deals must be a whole number from 0"),
        ([*EXPERT, "--param", "expert.min_deals=1e999"], "expert.min_deals must be a whole number from 0"),
        ([*EXPERT, "--param", "expert.min_deals=[x]"], "expert.min_deals must be a whole number from 0"),
        ([*EXPERT, "--param", "expert.min_deals=8\x07"], "expert.min_deals must be a whole number from 0"),
        ([*EXPERT, "--param", "expert.min_deals=1"], "min_deals must be at least 2"),
        ([*EXPERT, "--param", "expert.sim=[red]x\x07"], "sim must be one of king-aware, greedy, not '[red]x\\x07'"),
        ([*EXPERT, "--param", "expert.sim=Greedy"], "sim must be one of king-aware, greedy"),
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
        (["--seats", "greedy"], "choose 2 to 4 seats, not 1"),
        (["--seats", "greedy,random,greedy,random,greedy"], "not 5"),
        (["--seats", " , "], "not 0"),
        (["--seats", "greedy,genius"], "unknown AI kind 'genius': choose from random, greedy"),
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
        (["--seats", "greedy,gen\nius"], r"unknown AI kind 'gen\nius'"),
        (["--seats", "greedy,a\rb\x1b[2J"], r"unknown AI kind 'a\rb\x1b[2J'"),
        (["--seats", "greedy,bad\u2028line"], r"'bad\u2028line'"),
        ([*GREEDY2, "--param", "expert.mar\ngin=1"], r"expert has no setting 'mar\ngin'"),
        ([*GREEDY2, "--param", "expert.margin=1\n2"], r"not '1\n2'"),
        ([*GREEDY2, "--rules", "col\nour=red"], r"unknown rule 'col\nour'"),
        ([*GREEDY2, "--json", "/no/such\nfolder/x.json"], r"'/no/such\nfolder/x.json'"),
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

    monkeypatch.setattr(options, "make_player", picky)
    line = _refused(["--seats", "greedy,lookahead", "--param", "lookahead.samples=3"], capsys)
    assert r"bad setting for lookahead: RuntimeError: cannot use these\nsettings" in line


def test_a_setting_of_an_ai_not_seated_is_still_checked(no_work: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert "expert.margin" in _refused([*GREEDY2, "--param", "expert.margin=abc"], capsys)


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda d: str(d / "missing" / "r.json"), "does not exist"),
        (lambda d: str(d), "is a folder, not a file"),
        (lambda d: str(d / "afile" / "r.json"), "is not a folder"),
        (lambda d: "", "--json needs a file name"),
    ],
)
def test_the_json_path_is_checked_before_the_run(
    make: Any, words: str, tmp_path: Path, no_work: None, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "afile").write_text("x")
    line = _refused([*GREEDY2, "--json", make(tmp_path)], capsys)
    assert line.startswith("kings-corners tournament: --json") and words in line


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs file permissions (not root)")
def test_a_json_folder_that_cannot_be_written_is_refused_before_the_run(
    tmp_path: Path, no_work: None, capsys: pytest.CaptureFixture[str]
) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        line = _refused([*GREEDY2, "--json", str(ro / "r.json")], capsys)
    finally:
        ro.chmod(0o700)
    assert "cannot write in" in line and "Permission denied" in line
    assert list(ro.iterdir()) == []


def test_a_json_folder_that_refuses_a_new_file_is_refused_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_work: None, capsys: pytest.CaptureFixture[str]
) -> None:
    def denied(*_a: Any, **_k: Any) -> Any:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    line = _refused([*GREEDY2, "--json", str(tmp_path / "r.json")], capsys)
    assert "cannot write in" in line and os.strerror(errno.EACCES) in line


def test_a_device_is_not_a_json_file(no_work: None, capsys: pytest.CaptureFixture[str]) -> None:
    if not os.path.exists(os.devnull) or os.path.isfile(os.devnull):
        pytest.skip("no device file")
    assert "not a regular file (use '-' for stdout)" in _refused([*GREEDY2, "--json", os.devnull], capsys)


def test_the_json_file_is_replaced_in_one_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.json"
    out.write_text("old")
    assert cli_main(["tournament", *GREEDY2, "--deals", "2", "--quiet", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["deals"] == 2 and data["rounds"] == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]  # no temporary file left
    assert "95% CI" in capsys.readouterr().out


def test_json_to_stdout_follows_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["tournament", *GREEDY2, "--deals", "2", "--quiet", "--json", "-"]) == 0
    out = capsys.readouterr().out
    table, brace, rest = out.partition("\n{")
    assert "95% CI" in table
    assert json.loads(brace.lstrip("\n") + rest)["rounds"] == 4


def test_if_the_json_cannot_be_written_at_the_end_the_results_go_to_stdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def full(path: Path, data: bytes, *, mode: int | None = None) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(tournament, "atomic_write", full)
    out = tmp_path / "r.json"
    code = cli_main(["tournament", *GREEDY2, "--deals", "3", "--quiet", "--json", str(out)])
    captured = capsys.readouterr()
    assert code == 1
    err = captured.err.splitlines()
    assert len(err) == 1
    assert "cannot write" in err[0] and "No space left on device" in err[0] and "stdout" in err[0]
    table, _, rest = captured.out.partition("\n{")
    assert "95% CI" in table
    data = json.loads("{" + rest)
    assert data["deals"] == 3 and data["rounds"] == 6
    assert not out.exists()


def test_the_bounds_are_in_the_help() -> None:
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
    cfg = parse_options(
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


def test_batches_are_made_lazily() -> None:
    todo = batches(DEALS_RANGE[1], 10)
    assert not isinstance(todo, list | tuple)
    assert list(itertools.islice(todo, 3)) == [range(0, 10), range(10, 20), range(20, 30)]
    assert [list(b) for b in batches(7, 3)] == [[0, 1, 2], [3, 4, 5], [6]]


def _played(records: list[DealRecord]) -> list[tuple[Any, ...]]:
    """Everything seeded in the records (think times are measured, not seeded)."""
    return [
        (r.deal, r.rotation, r.winner, r.capped, [(s.won, s.penalty, s.turns, s.moves, s.faults) for s in r.seats])
        for r in records
    ]


class InlinePool:
    """A stand-in process pool that runs each job when it is submitted, and counts how many were
    submitted and not yet collected."""

    outstanding = 0
    most = 0
    made = 0

    def __init__(self, max_workers: int, mp_context: Any = None) -> None:
        InlinePool.made += 1

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        fut: Future[Any] = Future()
        fut.set_result(fn(*args))
        InlinePool.outstanding += 1
        InlinePool.most = max(InlinePool.most, InlinePool.outstanding)
        real_result = fut.result

        def result(timeout: float | None = None) -> Any:
            InlinePool.outstanding -= 1
            return real_result(timeout)

        fut.result = result  # type: ignore[method-assign]
        return fut

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


def test_with_several_jobs_only_a_few_batches_are_in_flight(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = parse_options(_namespace("--seats", "greedy,random", "--deals", "32", "--seed", "8"))
    one = list(iter_records(cfg))
    monkeypatch.setattr(batching, "ProcessPoolExecutor", InlinePool)
    InlinePool.outstanding = InlinePool.most = InlinePool.made = 0
    two = replace(cfg, jobs=2)
    got = list(iter_records(two))
    assert InlinePool.made == 1
    assert InlinePool.outstanding == 0
    assert InlinePool.most == 2 * batching.IN_FLIGHT_PER_JOB  # 16 batches of 2 deals, 8 at a time
    assert _played(got) == _played(one)
    assert [(r.deal, r.rotation) for r in got] == [(d, rot) for d in range(32) for rot in range(2)]


def test_records_are_identical_for_one_and_two_processes() -> None:
    cfg = parse_options(_namespace("--seats", "greedy,random,king-aware", "--deals", "10", "--seed", "21"))
    one = list(iter_records(cfg))
    two = list(iter_records(replace(cfg, jobs=2)))
    assert len(one) == 10 * 3  # 10 batches of 1 deal, 8 in flight at first
    assert _played(one) == _played(two)
