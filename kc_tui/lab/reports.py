"""The tournament's printed tables, of a rounds tournament and of a matches tournament."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kc_tui.engine.rules import Scoring
from kc_tui.i18n import N_, _
from kc_tui.util.printable import cells

#: A rounds tournament's columns: each head and the width of its column (``<`` left-aligned, else
#: right); the rows are laid out to the same widths. A head fits its width with a blank to spare.
ROUNDS_COLUMNS: tuple[tuple[str, int, str], ...] = (
    # Translators: the tournament table's column heads (short: each fits a fixed width).
    (N_("seat"), 14, "<"),
    (N_("won"), 7, ">"),
    (N_("rate"), 8, ">"),
    ("", 2, "<"),
    (N_("95% CI"), 15, "<"),
    (N_("pen/round"), 10, ">"),
    (N_("pen/lost"), 10, ">"),
    (N_("moves/turn"), 12, ">"),
    (N_("ms/turn"), 10, ">"),
    (N_("faults"), 8, ">"),
)
#: A matches tournament's columns, as :data:`ROUNDS_COLUMNS` (the per-round figure's head is the
#: chips' or the points', chosen with the scoring).
MATCH_COLUMNS: tuple[tuple[str, int, str], ...] = (
    (N_("seat"), 14, "<"),
    (N_("won"), 8, ">"),
    (N_("rate"), 8, ">"),
    ("", 2, "<"),
    (N_("95% CI"), 15, "<"),
    (N_("mean final"), 11, ">"),
    (N_("pen/round"), 12, ">"),
    (N_("rounds won"), 12, ">"),
    (N_("ms/turn"), 10, ">"),
    (N_("faults"), 8, ">"),
)


def heads(columns: Sequence[tuple[str, int, str]]) -> str:
    """The heads of ``columns`` on one line, each padded to its column's width in cells."""
    out = []
    for head, width, align in columns:
        text = _(head) if head else ""
        pad = " " * max(width - cells(text), 0)
        out.append(text + pad if align == "<" else pad + text)
    return "".join(out)


def players_table(
    summary: dict[str, Any], title: str, head: str, row: Callable[[str, dict[str, Any], dict[str, Any]], str]
) -> list[str]:
    """The lines of a table: ``title``, the column heads and a rule under them, then one line a
    seat entry, ``row(name, its results, its timing)``."""
    rows = [row(name, p, summary["timing"][name]) for name, p in summary["players"].items()]
    return [title, head, "-" * len(head), *rows]


def rounds_head() -> str:
    """The column heads of a rounds tournament's table (in the language in use)."""
    return heads(ROUNDS_COLUMNS)


def _rounds_row(name: str, p: dict[str, Any], t: dict[str, Any]) -> str:
    lo, hi = p["ci95"]
    return (
        f"{name:<14}{p['rounds_won']:>7}{100 * p['win_rate']:>7.1f}%  "
        f"{f'[{100 * lo:.1f}, {100 * hi:.1f}]':<15}{p['mean_penalty']:>10.2f}{p['mean_penalty_lost']:>10.2f}"
        f"{p['moves_per_turn']:>12.2f}{t['mean_think_ms_per_turn']:>10.2f}{t['faults']:>8}"
    )


def format_rounds_table(summary: dict[str, Any]) -> str:
    """The printed table of a rounds tournament."""
    # Translators: {rules} are the rule variants (key=value) or "default".
    title = _(
        "{deals} deals x {rotations} rotations = {rounds} rounds, "
        "seed {seed}, rules {rules}; "
        "blocked {blocks} (stopped at the turn limit: {capped})"
    ).format(
        deals=summary["deals"],
        rotations=summary["rotations"],
        rounds=summary["rounds"],
        seed=summary["seed"],
        rules=summary["rules"] or _("default"),
        blocks=summary["blocks"],
        capped=summary["capped"],
    )
    return "\n".join(players_table(summary, title, rounds_head(), _rounds_row))


def _num(x: float | None, fmt: str) -> str:
    # Translators: no figure (not available).
    return _("n/a") if x is None else format(x, fmt)


def interval_text(ci: Sequence[float | None], fmt: str, scale: float = 1.0) -> str:
    """A 95% interval as printed: "[lo, hi]" in ``fmt`` (times ``scale``), "[n/a]" when open."""
    lo, hi = ci
    if lo is None or hi is None:
        return "[" + _("n/a") + "]"
    return f"[{format(scale * lo, fmt)}, {format(scale * hi, fmt)}]"


def differences_text(ws: dict[str, Any], per_round: str, pr: dict[str, Any], fmt: str) -> str:
    """A pair's paired differences as printed: the win share's mean and interval, then the
    per-round figure's (named ``per_round``, in ``fmt``)."""
    # Translators: {mean} and {interval} are figures; {per_round} the name of the second figure (pen/round).
    return _("win share {mean} {interval}   {per_round} {pr_mean} {pr_interval}").format(
        mean=_num(ws["mean"], "+.3f"),
        interval=interval_text(ws["ci95"], "+.3f"),
        per_round=per_round,
        pr_mean=_num(pr["mean"], fmt),
        pr_interval=interval_text(pr["ci95"], fmt),
    )


def format_match_table(summary: dict[str, Any]) -> str:
    """The printed table of a ``--matches`` tournament, then the pairs block."""
    chips = summary["scoring"] == Scoring.CHIPS
    per_round = _("chips/round") if chips else _("pen/round")
    key = "mean_chips_per_round" if chips else "mean_penalty_per_round"
    if chips:
        scoring = _("chips (start {start}, at most {rounds} rounds)").format(
            start=summary["chips_start"], rounds=summary["chips_rounds"]
        )
    else:
        scoring = _("points to {target}").format(target=summary["target"])
    head = heads([(N_("chips/round"), *c[1:]) if c[0] == "pen/round" and chips else c for c in MATCH_COLUMNS])
    # Translators: {scoring} is how the matches were scored (points to 100).
    title = _(
        "{matches} matches x {rotations} rotations = {played} played, "
        "{rounds} rounds, seed {seed}, rules {rules}, "
        "scoring {scoring}; capped {capped}"
    ).format(
        matches=summary["matches"],
        rotations=summary["rotations"],
        played=summary["matches_played"],
        rounds=summary["rounds"],
        seed=summary["seed"],
        rules=summary["rules"] or _("default"),
        scoring=scoring,
        capped=summary["capped"],
    )

    def row(name: str, p: dict[str, Any], t: dict[str, Any]) -> str:
        return (
            f"{name:<14}{p['matches_won']:>8.1f}{100 * p['match_win_rate']:>7.1f}%  "
            f"{interval_text(p['match_ci95'], '.1f', 100):<15}{_num(p['mean_final_score'], '.2f'):>11}"
            f"{_num(p[key], '.2f'):>12}{p['rounds_won']:>12}{t['mean_think_ms_per_turn']:>10.2f}{t['faults']:>8}"
        )

    lines = players_table(summary, title, head, row)
    lines.append(
        _("pairs (first minus second; mean over match seeds, 95% CI): win share, {per_round}").format(
            per_round=per_round
        )
    )
    for pair in summary["pairs"]:
        ws, pr = pair["win_share_diff"], pair["per_round_diff"]
        lines.append(f"  {pair['a'] + ' - ' + pair['b']:<28} {differences_text(ws, per_round, pr, '+.2f')}")
    return "\n".join(lines)
