"""Penalties per round and totals against the target."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.widget import Widget

from kc_tui.engine import RoundResult
from kc_tui.ui.text import plain, rich_plain

SHOW_ROUNDS = 4


class Scoreboard(Widget):
    """``show(names, results, totals, target, round_number)``: one row per player, the last
    few rounds' penalties, the total and the target."""

    DEFAULT_CSS = """
    Scoreboard {
        height: auto;
        border: round $panel-lighten-2;
        border-title-align: left;
        padding: 0 0;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.names: list[str] = []
        self.results: list[RoundResult] = []
        self.totals: list[int] = []
        self.target = 50
        self.round_number = 1
        self.chips = False
        self.border_title = "Score"

    def show(
        self,
        names: Sequence[str],
        results: Sequence[RoundResult],
        totals: Sequence[int],
        target: int,
        round_number: int,
        *,
        chips: bool = False,
    ) -> None:
        state = (list(names), list(results), list(totals), target, round_number, chips)
        if state == (self.names, self.results, self.totals, self.target, self.round_number, self.chips):
            return
        grew = len(names) != len(self.names) or len(results) != len(self.results)
        self.names, self.results, self.totals = list(names), list(results), list(totals)
        self.target, self.round_number, self.chips = target, round_number, chips
        self.border_title = plain("Chips" if chips else f"Score · target {target}")
        self.refresh(layout=grew)

    def render(self) -> RenderableType:
        table = Table(box=None, pad_edge=False, expand=True, show_edge=False, padding=(0, 1))
        table.add_column("", no_wrap=True, overflow="ellipsis", ratio=3)
        shown = self.results[-SHOW_ROUNDS:]
        for res in shown:
            table.add_column(rich_plain(f"R{res.number}"), justify="right", style="dim")
        table.add_column("Tot", justify="right", style="bold")
        best = min(self.totals) if self.totals and not self.chips else None
        for seat, name in enumerate(self.names):
            row: list[Text | str] = [rich_plain(name)]
            for res in shown:
                value = res.chips_delta[seat] if self.chips else res.penalties[seat]
                mark = "*" if res.winner == seat else ""
                row.append(f"{value:+d}" if self.chips else f"{mark}{value}")
            total = self.totals[seat] if seat < len(self.totals) else 0
            style = "bold green" if best is not None and total == best and len(self.results) else ""
            if not self.chips and total >= self.target * 0.8:
                style = "bold red"
            row.append(Text(str(total), style=style))
            table.add_row(*row)
        return table
