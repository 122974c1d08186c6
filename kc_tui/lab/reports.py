"""The tournament's printed tables, of a rounds tournament and of a matches tournament."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kc_tui.engine.rules import Scoring


def players_table(
    summary: dict[str, Any], title: str, head: str, row: Callable[[str, dict[str, Any], dict[str, Any]], str]
) -> list[str]:
    """The lines of a table: ``title``, the column heads and a rule under them, then one line a
    seat entry, ``row(name, its results, its timing)``."""
    rows = [row(name, p, summary["timing"][name]) for name, p in summary["players"].items()]
    return [title, head, "-" * len(head), *rows]


#: The column heads of a rounds tournament's table.
ROUNDS_HEAD = (
    f"{'seat':<14}{'won':>7}{'rate':>8}  {'95% CI':<15}{'pen/round':>10}{'pen/lost':>10}"
    f"{'moves/turn':>12}{'ms/turn':>10}{'faults':>8}"
)


def _rounds_row(name: str, p: dict[str, Any], t: dict[str, Any]) -> str:
    lo, hi = p["ci95"]
    return (
        f"{name:<14}{p['rounds_won']:>7}{100 * p['win_rate']:>7.1f}%  "
        f"{f'[{100 * lo:.1f}, {100 * hi:.1f}]':<15}{p['mean_penalty']:>10.2f}{p['mean_penalty_lost']:>10.2f}"
        f"{p['moves_per_turn']:>12.2f}{t['mean_think_ms_per_turn']:>10.2f}{t['faults']:>8}"
    )


def format_rounds_table(summary: dict[str, Any]) -> str:
    """The printed table of a rounds tournament."""
    title = (
        f"{summary['deals']} deals x {summary['rotations']} rotations = {summary['rounds']} rounds, "
        f"seed {summary['seed']}, rules {summary['rules'] or 'default'}; "
        f"blocked {summary['blocks']} (stopped at the turn limit: {summary['capped']})"
    )
    return "\n".join(players_table(summary, title, ROUNDS_HEAD, _rounds_row))


def _num(x: float | None, fmt: str) -> str:
    return "n/a" if x is None else format(x, fmt)


def interval_text(ci: Sequence[float | None], fmt: str, scale: float = 1.0) -> str:
    """A 95% interval as printed: "[lo, hi]" in ``fmt`` (times ``scale``), "[n/a]" when open."""
    lo, hi = ci
    if lo is None or hi is None:
        return "[n/a]"
    return f"[{format(scale * lo, fmt)}, {format(scale * hi, fmt)}]"


def differences_text(ws: dict[str, Any], per_round: str, pr: dict[str, Any], fmt: str) -> str:
    """A pair's paired differences as printed: the win share's mean and interval, then the
    per-round figure's (named ``per_round``, in ``fmt``)."""
    return (
        f"win share {_num(ws['mean'], '+.3f')} {interval_text(ws['ci95'], '+.3f')}"
        f"   {per_round} {_num(pr['mean'], fmt)} {interval_text(pr['ci95'], fmt)}"
    )


def format_match_table(summary: dict[str, Any]) -> str:
    """The printed table of a ``--matches`` tournament, then the pairs block."""
    chips = summary["scoring"] == Scoring.CHIPS
    per_round = "chips/round" if chips else "pen/round"
    key = "mean_chips_per_round" if chips else "mean_penalty_per_round"
    if chips:
        scoring = f"chips (start {summary['chips_start']}, at most {summary['chips_rounds']} rounds)"
    else:
        scoring = f"points to {summary['target']}"
    head = (
        f"{'seat':<14}{'won':>8}{'rate':>8}  {'95% CI':<15}{'mean final':>11}{per_round:>12}"
        f"{'rounds won':>12}{'ms/turn':>10}{'faults':>8}"
    )
    title = (
        f"{summary['matches']} matches x {summary['rotations']} rotations = {summary['matches_played']} played, "
        f"{summary['rounds']} rounds, seed {summary['seed']}, rules {summary['rules'] or 'default'}, "
        f"scoring {scoring}; capped {summary['capped']}"
    )

    def row(name: str, p: dict[str, Any], t: dict[str, Any]) -> str:
        return (
            f"{name:<14}{p['matches_won']:>8.1f}{100 * p['match_win_rate']:>7.1f}%  "
            f"{interval_text(p['match_ci95'], '.1f', 100):<15}{_num(p['mean_final_score'], '.2f'):>11}"
            f"{_num(p[key], '.2f'):>12}{p['rounds_won']:>12}{t['mean_think_ms_per_turn']:>10.2f}{t['faults']:>8}"
        )

    lines = players_table(summary, title, head, row)
    lines.append(f"pairs (first minus second; mean over match seeds, 95% CI): win share, {per_round}")
    for pair in summary["pairs"]:
        ws, pr = pair["win_share_diff"], pair["per_round_diff"]
        lines.append(f"  {pair['a'] + ' - ' + pair['b']:<28} {differences_text(ws, per_round, pr, '+.2f')}")
    return "\n".join(lines)
