"""Every player's last few rounds and total: penalty points against the target (R15), or chips
and the pot (R16)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widget import Widget

from kc_tui.i18n import N_, _
from kc_tui.match.view import RoundRow
from kc_tui.ui.literal_text import plain, rich_plain, visible
from kc_tui.util.printable import name_shown

SHOW_ROUNDS = 4
#: The fewest cells of the names the board keeps before it shows a round (a shorter name: whole).
NAME_CELLS = 10
#: The cells of a column's head ("R12", "Tot"): as wide as its figures (a total of 3 digits and
#: its mark), so that a head does not widen its column and push a round out of the 80 columns.
HEAD_CELLS = 4
#: The mark beside the number of the player who went out in a round, and what it means.
WENT_OUT = "*"
# Translators: {mark} is the mark ("*") beside the figure of who went out.
LEGEND = N_("{mark} went out")


def round_head(number: int) -> str:
    """The head of round ``number``'s column: "R3"."""
    # Translators: the head of a round's column on the scoreboard: "R3" is round 3.
    return _("R{number}").format(number=number)


def total_head() -> str:
    """The head of the totals' column: "Tot"."""
    # Translators: the head of the totals' column on the scoreboard, short for "Total".
    return _("Tot")


def board_title(*, chips: bool, target: int, pot: int | None) -> str:
    """The scoreboard's title: "Score · target 50", or "Chips · pot 7" (R16)."""
    if chips:
        return _("Chips") if pot is None else _("Chips · pot {pot}").format(pot=pot)
    return _("Score · target {target}").format(target=target)


class Scoreboard(Widget):
    """``show(names, results, totals, target, round_number, chips=, pot=)``: one row per player,
    the rounds as the snapshot's :class:`~kc_tui.match.view.RoundRow` rows,
    the last few rounds and the total. Points (R15): each round's penalty, the total and the
    target in the title. Chips (R16): each round's chips won or paid (the antes apart), the
    stack now, and the pot in the title. A ``*`` marks who went out, explained underneath."""

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
        self.results: list[RoundRow] = []
        self.totals: list[int] = []
        self.target = 50
        self.round_number = 1
        self.chips = False
        self.pot: int | None = None
        self.border_title = board_title(chips=False, target=self.target, pot=None)

    def show(
        self,
        names: Sequence[str],
        results: Sequence[RoundRow],
        totals: Sequence[int],
        target: int,
        round_number: int,
        *,
        chips: bool = False,
        pot: int | None = None,
    ) -> None:
        names = [name_shown(n) for n in names]
        rows = list(results)
        state = (list(names), rows, list(totals), target, round_number, chips, pot)
        if state == (self.names, self.results, self.totals, self.target, self.round_number, self.chips, self.pot):
            return
        grew = len(names) != len(self.names) or len(rows) != len(self.results)
        self.names, self.results, self.totals = list(names), rows, list(totals)
        self.target, self.round_number, self.chips, self.pot = target, round_number, chips, pot
        self.border_title = plain(board_title(chips=chips, target=target, pot=pot))
        self.refresh(layout=grew)

    def cell(self, res: RoundRow, seat: int) -> str:
        """Round ``res`` of ``seat``'s as its column shows it: the penalty (chips: won or paid),
        ``*`` first for who went out."""
        mark = WENT_OUT if res.winner == seat else ""
        value = res.scores[seat] if seat < len(res.scores) else 0
        return mark + ((f"{value:+d}" if value else "0") if self.chips else str(value))

    def rounds_shown(self, width: int) -> list[RoundRow]:
        """The latest rounds (at most :data:`SHOW_ROUNDS`) whose columns fit ``width`` cells
        beside the total and the names, each name kept to at least :data:`NAME_CELLS` cells
        (a shorter name whole): at 80 columns the names are read, not cut to a letter."""
        names = max((cell_len(visible(n)) for n in self.names), default=0)
        head = cell_len(total_head())
        total = max(head, *(len(str(t)) for t in self.totals)) if self.totals else head
        # The columns are 2 cells apart (no padding at the table's edges).
        room = width - min(names, NAME_CELLS) - 2 - total
        shown: list[RoundRow] = []
        for res in reversed(self.results[-SHOW_ROUNDS:]):
            need = (
                max(cell_len(round_head(res.number)), *(len(self.cell(res, seat)) for seat in range(len(self.names))))
                + 2
            )
            if need > room:
                break
            room -= need
            shown.insert(0, res)
        return shown

    def render(self) -> RenderableType:
        table = Table(box=None, pad_edge=False, expand=True, show_edge=False, padding=(0, 1))
        table.add_column("", no_wrap=True, overflow="ellipsis", ratio=3)
        shown = self.rounds_shown(self.size.width) if self.size.width else self.results[-SHOW_ROUNDS:]
        for res in shown:
            table.add_column(rich_plain(round_head(res.number)), justify="right", style="dim", no_wrap=True)
        table.add_column(rich_plain(total_head()), justify="right", style="bold", no_wrap=True)
        best: int | None = None
        if self.totals and self.results:
            best = max(self.totals) if self.chips else min(self.totals)
        for seat, name in enumerate(self.names):
            row: list[Text | str] = [rich_plain(name)]
            row += [self.cell(res, seat) for res in shown]
            total = self.totals[seat] if seat < len(self.totals) else 0
            style = "bold green" if best is not None and total == best else ""
            if not self.chips and total >= self.target * 0.8:
                style = "bold red"
            row.append(Text(str(total), style=style))
            table.add_row(*row)
        if any(res.winner is not None for res in shown):
            return Group(table, Text(_(LEGEND).format(mark=WENT_OUT), style="dim"))
        return table
