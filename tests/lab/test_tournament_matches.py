"""``kings-corners tournament --matches N``: whole matches over duplicate deals, shared wins
counted as fractions, intervals clustered by match seed, the same results for any --jobs."""

from __future__ import annotations

import argparse
import json
import math
import statistics
from pathlib import Path
from typing import Any

import pytest

import kc_tui.lab.tournament as tournament
from ai import make_player
from kc_tui.cli import main as cli_main
from kc_tui.engine import Match
from kc_tui.lab import batching, play, reports
from kc_tui.lab.options import DEFAULT_DEALS, MATCHES_RANGE, TournamentOptions, add_arguments, parse_options
from kc_tui.lab.play import MatchPlayRecord, MatchSeatRecord, play_match
from kc_tui.lab.results import summarize_matches

# Small targets and few chips rounds keep every match short.
POINTS = ["--rules", "target=10"]
CHIPS = ["--rules", "scoring=chips", "chips_start=3", "chips_rounds=3"]


def _namespace(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_arguments(p)
    return p.parse_args(list(argv))


def _run(tmp_path: Path, name: str, *args: str) -> dict[str, Any]:
    out = tmp_path / f"{name}.json"
    assert cli_main(["tournament", *args, "--json", str(out), "--quiet"]) == 0
    data: dict[str, Any] = json.loads(out.read_text())
    return data


def _seat(final: int = 0, penalty: int = 0, chips_won: int = 0, rounds_won: int = 0, seat: int = 0) -> MatchSeatRecord:
    return MatchSeatRecord(
        match_seat=seat,
        final=final,
        penalty=penalty,
        chips_won=chips_won,
        rounds_won=rounds_won,
        turns=10,
        moves=12,
        think_s=0.01,
        max_think_s=0.002,
        faults=0,
    )


def _rec(match: int, rotation: int, winners: list[int], *, rounds: int = 4, capped: bool = False) -> MatchPlayRecord:
    """A constructed record of three seats: seat entry j has penalty 10 * (j + 1) over the match."""
    return MatchPlayRecord(
        match=match,
        rotation=rotation,
        rounds=rounds,
        capped=capped,
        winners=winners,
        seats=[_seat(final=10 * (j + 1), penalty=10 * (j + 1), rounds_won=int(j in winners)) for j in range(3)],
    )


# ------------------------------------------------------------------- the summary on made-up records
def test_shared_wins_are_fractions_and_add_up_to_the_matches_played() -> None:
    cfg = parse_options(_namespace("--seats", "greedy,random,king-aware", "--matches", "2"))
    records = [
        _rec(0, 0, [0, 1]),  # a 2-way tie: 1/2 each
        _rec(0, 1, [0, 1, 2]),  # a 3-way tie: 1/3 each
        _rec(0, 2, [2]),
        _rec(1, 0, [], rounds=7, capped=True),  # capped: 1/3 each, no per-round figures
        _rec(1, 1, [1]),
        _rec(1, 2, [0, 2]),
    ]
    d = summarize_matches(cfg, records)
    assert d["mode"] == "matches" and d["matches"] == 2 and d["rotations"] == 3
    assert d["matches_played"] == 6 and d["capped"] == 1
    assert d["rounds"] == 5 * 4  # the capped play's rounds are left out
    won = {name: p["matches_won"] for name, p in d["players"].items()}
    expected = {
        "greedy": 1 / 2 + 1 / 3 + 0 + 1 / 3 + 0 + 1 / 2,
        "random": 1 / 2 + 1 / 3 + 0 + 1 / 3 + 1 + 0,
        "king-aware": 0 + 1 / 3 + 1 + 1 / 3 + 0 + 1 / 2,
    }
    assert won == pytest.approx(expected, abs=1e-6)
    assert sum(won.values()) == pytest.approx(d["matches_played"], abs=1e-5)
    for name, p in d["players"].items():
        assert p["match_win_rate"] == pytest.approx(expected[name] / 6, abs=1e-4)
        # Clustered by seed: the seat's share averaged over each seed's rotations, mean ± 1.96 sd/sqrt(2).
        per_seed = [sum(s for s in shares) / 3 for shares in _shares(records, cfg.names.index(name))]
        half = 1.96 * statistics.stdev(per_seed) / math.sqrt(2)
        mean = statistics.fmean(per_seed)
        assert p["match_ci95"] == pytest.approx([max(0, mean - half), min(1, mean + half)], abs=1e-4)
        j = cfg.names.index(name)
        assert p["mean_penalty_per_round"] == pytest.approx(5 * 10 * (j + 1) / 20, abs=1e-3)
        assert p["mean_final_score"] == pytest.approx(10 * (j + 1))
        assert p["rounds_played"] == 20
        assert "mean_chips_per_round" not in p
    assert d["players"]["greedy"]["rounds_won"] == 3  # won or tied in 3 of the 5 finished plays
    assert d["scoring"] == "points" and d["target"] == 50 and "chips_start" not in d


def _shares(records: list[MatchPlayRecord], entry: int) -> list[list[float]]:
    out: dict[int, list[float]] = {}
    for r in records:
        share = 1 / 3 if r.capped else (1 / len(r.winners) if entry in r.winners else 0.0)
        out.setdefault(r.match, []).append(share)
    return list(out.values())


def test_pairs_are_paired_differences_over_seeds() -> None:
    cfg = parse_options(_namespace("--seats", "greedy,random,king-aware", "--matches", "2"))
    records = [_rec(0, r, [0]) for r in range(3)] + [_rec(1, r, [1]) for r in range(3)]
    d = summarize_matches(cfg, records)
    rows = {(row["a"], row["b"]): row for row in d["pairs"]}
    assert list(rows) == [("greedy", "random"), ("greedy", "king-aware"), ("random", "king-aware")]
    ws = rows[("greedy", "random")]["win_share_diff"]
    # Seed 0: greedy won all three (+1); seed 1: random did (-1): mean 0, sd sqrt(2).
    assert ws["mean"] == 0 and ws["seeds"] == 2
    half = 1.96 * math.sqrt(2) / math.sqrt(2)
    assert ws["ci95"] == [-1.0, 1.0] and half > 1  # clipped to [-1, 1]
    pr = rows[("greedy", "king-aware")]["per_round_diff"]
    # Every seed: (10 - 30) * 3 plays / (3 plays * 4 rounds) = -5 per round, no spread.
    assert pr["of"] == "penalty" and pr["mean"] == -5 and pr["ci95"] == [-5, -5] and pr["seeds"] == 2


def test_one_seed_gives_no_interval() -> None:
    cfg = parse_options(_namespace("--seats", "greedy,random", "--matches", "1"))
    records = [
        MatchPlayRecord(0, rot, 3, False, [rot], [_seat(final=5), _seat(final=9)][:: 1 if rot == 0 else -1])
        for rot in range(2)
    ]
    d = summarize_matches(cfg, records)
    assert d["players"]["greedy"]["match_ci95"] == [None, None]
    assert d["pairs"][0]["win_share_diff"]["ci95"] == [None, None]
    assert d["pairs"][0]["per_round_diff"]["ci95"] == [None, None]
    assert "n/a" in reports.format_match_table(d)


# ----------------------------------------------------------------------------------- real matches
def test_same_seed_same_results_whatever_jobs(tmp_path: Path) -> None:
    args = ["--seats", "greedy,king-aware", "--matches", "3", "--seed", "5", *POINTS]
    one = _run(tmp_path, "one", *args, "--jobs", "1")
    two = _run(tmp_path, "two", *args, "--jobs", "2")
    assert set(one["timing"]) == {"greedy", "king-aware"}
    one.pop("timing")
    two.pop("timing")
    assert one == two
    assert one["matches_played"] == 6 and one["rotations"] == 2
    assert one["target"] == 10 and one["scoring"] == "points"
    other = _run(tmp_path, "other", "--seats", "greedy,king-aware", "--matches", "3", "--seed", "6", *POINTS)
    other.pop("timing")
    assert other != one


def _options(*argv: str) -> TournamentOptions:
    return parse_options(_namespace(*argv))


def test_every_rotation_of_a_match_seed_gets_the_same_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    first_deals: list[tuple[Any, ...]] = []

    class Recording(Match):
        def __init__(self, *a: Any, **k: Any) -> None:
            super().__init__(*a, **k)
            r = self.round
            first_deals.append((tuple(r.hands), tuple(r.stock), tuple(map(tuple, r.piles)), r.dealer, r.to_move))

    monkeypatch.setattr(play, "Match", Recording)
    cfg = _options("--seats", "greedy,random,king-aware", "--matches", "2", "--seed", "4", *POINTS)
    deal_of_seed = []
    for k in range(2):
        first_deals.clear()
        recs = [play_match(cfg, k, rot) for rot in range(3)]
        assert len(first_deals) == 3 and first_deals[0] == first_deals[1] == first_deals[2]
        deal_of_seed.append(first_deals[0])
        # ...and the rotation moves the seat entries round the table.
        for rot, rec in enumerate(recs):
            assert [s.match_seat for s in rec.seats] == [(j + rot) % 3 for j in range(3)]
        assert len({first_deals[0][0][rec.seats[0].match_seat] for rec in recs}) == 3  # entry 0's hand moves
    assert deal_of_seed[0] != deal_of_seed[1]  # another match seed, other deals


def test_each_ai_is_told_of_every_round_and_sees_the_rounds_views(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Any] = []

    def spying(kind: str, seed: int = 0, **params: Any) -> Any:
        ai = make_player(kind, seed, **params)
        calls = {"new_round": 0, "views": 0}
        inner_new_round, inner_choose = ai.new_round, ai.choose

        def new_round() -> None:
            calls["new_round"] += 1
            inner_new_round()

        def choose(view: Any) -> Any:
            calls["views"] += 1
            return inner_choose(view)

        ai.new_round, ai.choose = new_round, choose  # type: ignore[method-assign]
        made.append(calls)
        return ai

    cfg = _options("--seats", "greedy,king-aware", "--matches", "1", *POINTS)  # builds probes: before the spy
    monkeypatch.setattr(play, "make_player", spying)
    rec = play_match(cfg, 0, 1)
    assert not rec.capped and rec.rounds >= 1
    assert len(made) == 2  # one AI per seat per match
    for calls in made:
        assert calls["new_round"] == rec.rounds and calls["views"] > 0


def test_points_matches_are_won_by_the_lowest_total() -> None:
    cfg = _options("--seats", "greedy,random", "--matches", "2", "--seed", "3", *POINTS)
    for k in range(2):
        for rot in range(2):
            rec = play_match(cfg, k, rot)
            finals = [s.final for s in rec.seats]
            assert max(finals) >= 10
            assert rec.winners == [j for j, f in enumerate(finals) if f == min(finals)]
            assert [s.penalty for s in rec.seats] == finals  # points are the penalties summed


def test_chips_mode_reports_chips_per_round_and_the_most_chips_wins(tmp_path: Path) -> None:
    cfg = _options("--seats", "greedy,random,king-aware", "--matches", "3", "--seed", "2", *CHIPS)
    records = [play_match(cfg, k, rot) for k in range(3) for rot in range(3)]
    for rec in records:
        assert not rec.capped and 1 <= rec.rounds <= 3
        finals = [s.final for s in rec.seats]
        assert rec.winners == [j for j, f in enumerate(finals) if f == max(finals)]
        assert [s.chips_won for s in rec.seats] == [f - 3 for f in finals]
    d = _run(tmp_path, "chips", "--seats", "greedy,random,king-aware", "--matches", "3", "--seed", "2", *CHIPS)
    assert d["scoring"] == "chips" and d["chips_start"] == 3 and d["chips_rounds"] == 3 and "target" not in d
    rounds = sum(r.rounds for r in records)
    assert d["rounds"] == rounds
    for j, (name, p) in enumerate(d["players"].items()):
        assert p["mean_chips_per_round"] == pytest.approx(sum(r.seats[j].chips_won for r in records) / rounds, abs=1e-3)
        assert p["mean_final_score"] == pytest.approx(sum(r.seats[j].final for r in records) / 9, abs=1e-3)
        assert p["rounds_played"] == rounds
        assert "mean_penalty_per_round" in p
        wins = sum(1 / len(r.winners) for r in records if j in r.winners)
        assert p["matches_won"] == pytest.approx(wins, abs=1e-5), name
    assert all(row["per_round_diff"]["of"] == "chips" for row in d["pairs"])


def test_a_match_past_the_turn_limit_is_capped_and_shared(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _run(tmp_path, "c", "--seats", "greedy,random", "--matches", "2", "--max-turns", "1", *POINTS)
    assert d["capped"] == d["matches_played"] == 4
    assert d["rounds"] == 0
    for p in d["players"].values():
        assert p["matches_won"] == 2.0 and p["match_win_rate"] == 0.5
        assert p["mean_penalty_per_round"] is None and p["mean_final_score"] is None
    assert "capped 4" in capsys.readouterr().out


def test_the_table_and_the_progress_bar_count_matches(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["tournament", "--seats", "greedy,random", "--matches", "2", *POINTS]) == 0
    captured = capsys.readouterr()
    assert "\r[" in captured.err and "2/2 matches" in captured.err
    out = captured.out
    assert "\r" not in out
    assert out.startswith("2 matches x 2 rotations = 4 played, ")
    assert "scoring points to 10" in out and "pen/round" in out and "95% CI" in out
    assert "greedy - random" in out and "win share" in out


# ------------------------------------------------------------------------------------- the options
def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = cli_main(["tournament", *argv])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("kings-corners tournament: ")
    return lines[0]


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    def started(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("the tournament started before every argument was checked")

    for name in (
        "iter_records",
        "iter_match_records",
        "iter_batched",
        "play_deals",
        "play_matches",
        "play_match",
        "ProcessPoolExecutor",
        "Progress",
    ):
        for module in (tournament, batching, play):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, started)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--matches", "0"], "--matches must be a whole number from 1 to 100000, not 0"),
        (["--matches", "100001"], "--matches must be a whole number from 1 to 100000, not 100001"),
        (["--matches", "-3"], "--matches must be a whole number from 1 to 100000"),
        (["--deals", "5", "--matches", "5"], "--deals and --matches are alternatives"),
        (["--matches", "5", "--deals", "0"], "--deals and --matches are alternatives"),
    ],
)
def test_bad_matches_are_one_line_exit_2_and_nothing_starts(
    argv: list[str], words: str, no_work: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert words in _refused(["--seats", "greedy,random", *argv], capsys)


def test_the_matches_bounds_are_in_the_help() -> None:
    p = argparse.ArgumentParser()
    add_arguments(p)
    text = " ".join(p.format_help().split())
    part = text.split("--matches MATCHES ", 1)[-1].split(" --seed SEED")[0]  # the option's own help
    lo, hi = MATCHES_RANGE
    assert f"{lo} to {hi}" in part and "95% interval" in part and "not with --deals" in part


def test_rounds_mode_is_the_default_and_says_so(tmp_path: Path) -> None:
    cfg = _options("--seats", "greedy,random")
    assert not cfg.match_mode and cfg.deals == DEFAULT_DEALS == 200 and cfg.matches is None
    cfg = _options("--seats", "greedy,random", "--matches", "7")
    assert cfg.match_mode and cfg.matches == 7
    d = _run(tmp_path, "r", "--seats", "greedy,random", "--deals", "2")
    assert d["mode"] == "rounds" and d["deals"] == 2 and d["rounds"] == 4
    assert not {"matches", "pairs", "matches_played", "scoring"} & set(d)
