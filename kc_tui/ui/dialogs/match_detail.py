"""One past match from the history: its rounds (penalties, or chips won and lost, per round),
the totals, who won, and a plot of every player's total over the rounds.

Names are data: they reach the screen through :mod:`kc_tui.ui.literal_text` (tables) or
:func:`~kc_tui.ui.literal_text.visible` (the plot's legend, which is drawn as ANSI text, not markup).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from kc_tui.config import seat_kind_title
from kc_tui.engine import is_secret
from kc_tui.i18n import N_, _, ngettext
from kc_tui.records.rows import MatchRecord
from kc_tui.records.stats_shown import is_chips, result, score_series, scoring_text, when
from kc_tui.ui.dialogs.modal import Modal
from kc_tui.ui.literal_text import plain, rich_fill, rich_plain, visible
from kc_tui.ui.widgets.footer import Footer
from kc_tui.ui.widgets.plot import LegendPlot, Line, Reference

#: The widest name in the plot's legend and the table's header (a longer one ends in "…").
NAME_WIDTH = 16
DOT = "·"
#: The mark beside the round's figure of the player who went out.
WENT_OUT = "*"


def short(name: str, width: int = NAME_WIDTH) -> str:
    text = visible(name)
    return text if len(text) <= width else text[: width - 1] + "…"


#: The lines' colours, in order (plotext's names): the first line is the player's.
COLORS: tuple[str, ...] = ("orange", "cyan", "green", "magenta", "blue", "red", "yellow", "gray")


def draw_lines(
    plot: LegendPlot,
    lines: Sequence[tuple[str, Sequence[float]]],
    *,
    title: str,
    xlabel: str,
    xs: Sequence[float] | None = None,
    colors: Sequence[str] = COLORS,
    label_width: int = NAME_WIDTH,
    references: Sequence[tuple[str, float, str]] = (),
) -> None:
    """Draw ``lines`` (legend name, y values) on ``plot`` in ``colors`` (in turn), replacing what
    it showed, with ``references`` (legend name, value, colour: flat lines across the whole
    plot, dashed over the lines) first in the legend; the axes are marked in whole numbers and
    legend names cut to ``label_width``. The title and legend are above the plot, where they
    cover no line or tick."""
    legend = [(short(name, label_width), color) for name, _value, color in references]
    drawn: list[Line] = []
    for k, (name, ys) in enumerate(lines):
        if not ys:
            continue
        x = list(xs) if xs is not None else list(range(len(ys)))
        color = colors[k % len(colors)]
        legend.append((short(name, label_width), color))
        drawn.append(Line(tuple(float(v) for v in x[: len(ys)]), tuple(float(v) for v in ys), color))
    refs = [Reference(value, color) for _, value, color in references] if drawn else []
    plot.show(title, legend if drawn else [], drawn, xlabel=xlabel, references=refs)


def draw_match(plot: LegendPlot, m: MatchRecord) -> None:
    """Every player's total (chips: stack) after each round of ``m``, one line each."""
    if is_chips(m):
        title = _("Match #{id}: chips after each round").format(id=m.id)
    else:
        title = _("Match #{id}: penalty points after each round").format(id=m.id)
    draw_lines(plot, score_series(m), title=title, xlabel=_("Round"))


def rounds_table(m: MatchRecord, person: str | None = None) -> Table:
    """A row per round: each player's penalty (chips: chips won or lost), ``*`` for who went out;
    then the totals. The seat of ``person`` (None: the first human's) is "you"."""
    chips = is_chips(m)
    me = m.seat_of(person)
    t = Table(box=None, padding=(0, 2), show_edge=False, header_style="bold")
    t.add_column(_("Round"), justify="right", no_wrap=True)
    for seat, info in enumerate(m.seats):
        head = Text.assemble(
            rich_plain(short(info.name)), ("\n" + (_("you") if seat == me else seat_kind_title(info.kind)), "dim")
        )
        t.add_column(head, justify="right", no_wrap=True)
    for r in m.rounds:
        cells: list[Text] = [Text(str(r.number))]
        for seat in range(len(m.seats)):
            if seat not in r.seats:
                # Translators: in a round's row, the player was out of the match (out of chips).
                cells.append(Text(_("out"), style="dim"))
                continue
            values = r.chips_delta if chips else r.penalties
            v = values[seat] if seat < len(values) else 0
            if r.winner == seat:  # went out: no penalty (chips: the pot won)
                cells.append(Text((f"{v:+d} " if chips else "") + WENT_OUT, style="bold"))
            else:
                cells.append(Text(((f"{v:+d}" if v else "0") if chips else (str(v) if v else DOT)) + "  "))
        t.add_row(*cells)
    t.add_section()
    totals = [Text(str(v) + "  ", style="bold") for v in m.totals]
    t.add_row(Text(_("Total"), style="bold"), *totals)
    return t


def winners_text(m: MatchRecord, person: str | None = None) -> Text:
    """The outcome in words for ``person`` (None: the first human seat): "You won.", "You lost:
    Greedy won.", "You shared the win with Greedy." or, in a demo, "Won by Greedy"."""
    if not m.finished_at or not m.winners:
        return Text(_("Unfinished: the match was left before its end."), style="dim")
    me = m.seat_of(person)
    others = ", ".join(m.seats[w].name for w in m.winners if 0 <= w < len(m.seats) and w != me)
    outcome = result(m, person)
    if me is None:
        # Translators: {names} are the winners' names, joined by commas.
        return rich_fill(_("Won by {names}"), lead="bold", names=rich_plain(others))
    if outcome == "won":
        return Text(_("You won."), style="bold green")
    if outcome == "shared":
        # Translators: {names} are the other winners' names, joined by commas.
        shared = _("You shared the win with {names}.")
        return rich_fill(shared, lead="bold green", names=rich_plain(others, "bold"))
    # Translators: {names} are the winners' names, joined by commas.
    return rich_fill(_("You lost: {names} won."), lead="bold red", names=rich_plain(others, "bold"))


class MatchDetail(Modal[None]):
    """A past match: its rounds, totals and winner, and its score plot. Escape closes."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "close", N_("Close"))]
    DEFAULT_CSS = """
    MatchDetail > Vertical {
        width: 100; max-width: 100%; height: 92%; padding: 0 1;
    }
    MatchDetail #detail-title { text-style: bold; }
    MatchDetail #detail-rules { color: $text-muted; }
    MatchDetail #detail-rounds { height: auto; max-height: 45%; margin-top: 1; }
    MatchDetail #detail-winner { margin: 1 0 0 0; }
    MatchDetail #detail-plot { height: 1fr; min-height: 10; }
    MatchDetail #detail-legend { color: $text-muted; }
    MatchDetail #detail-replay { height: auto; max-height: 6; margin-top: 1; }
    """

    def __init__(
        self, record: MatchRecord, replay: Callable[[int], None] | None = None, person: str | None = None
    ) -> None:
        """``replay(round_number)``: replays a round (offered for every round when given);
        ``person``: whose match it is shown as (None: the first human seat's)."""
        super().__init__()
        self.record = record
        self.replay = replay
        self.person = person

    def compose(self) -> ComposeResult:
        m = self.record
        n = len(m.rounds)
        with Vertical():
            # Translators: {id} is the match's number, {when} the day it was played.
            title = ngettext("Match #{id} · {when} · {n} round", "Match #{id} · {when} · {n} rounds", n)
            yield Static(plain(title.format(id=m.id, when=when(m), n=n)), id="detail-title")
            if is_secret(m.seed):
                # Translators: {scoring} is how the match was scored (points to a target, or chips).
                dealt = _("Scoring: {scoring} · a secret deal").format(scoring=scoring_text(m))
            else:
                # Translators: {seed} is the number the cards were shuffled with.
                dealt = _("Scoring: {scoring} · seed {seed}").format(scoring=scoring_text(m), seed=m.seed)
            yield Static(plain(dealt), id="detail-rules")
            yield Static(winners_text(m, self.person), id="detail-winner")
            with VerticalScroll(id="detail-rounds"):
                yield Static(
                    rounds_table(m, self.person) if m.rounds else Text(_("No round was finished."), style="dim")
                )
            if is_chips(m):
                # Translators: {mark} is the mark ("*") beside the figure of who went out.
                legend = _("{mark} went out · chips won (+) or paid (-) each round")
            else:
                # Translators: {mark} is the mark ("*") beside the figure of who went out.
                legend = _("{mark} went out · the others: penalty points for the cards left in their hands")
            yield Static(plain(legend.format(mark=WENT_OUT)), id="detail-legend")
            if m.rounds and self.replay is not None:
                yield OptionList(
                    *[
                        Option(plain(_("Replay and review round {number}").format(number=r.number)), id=str(r.number))
                        for r in m.rounds
                    ],
                    id="detail-replay",
                )
            yield LegendPlot(id="detail-plot")
        yield Footer()

    def on_mount(self) -> None:
        draw_match(self.query_one("#detail-plot", LegendPlot), self.record)
        for rounds in self.query("#detail-replay").results(OptionList):
            rounds.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter or a click on a round: replay it (the review is one key away there)."""
        event.stop()
        if event.option.id is not None and self.replay is not None:
            self.replay(int(event.option.id))

    def action_close(self) -> None:
        self.dismiss(None)
