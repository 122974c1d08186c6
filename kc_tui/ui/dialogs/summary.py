"""The round summary and the match summary."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from kc_tui.engine import KING_PENALTY, RoundResult
from kc_tui.engine.rules import Scoring
from kc_tui.session import MatchSession
from kc_tui.ui.text import plain, rich_plain


def round_table(s: MatchSession, result: RoundResult, hands: Sequence[tuple[int, int]] | None = None) -> Table:
    """Each hand's penalty (kings 10), the totals and the target, as the engine scored them
    (R15: ``result`` carries every seat's cards and kings left). ``hands`` is accepted for older
    callers and not used."""
    chips = s.rules.scoring == Scoring.CHIPS
    t = Table(box=None, padding=(0, 2), expand=False, header_style="bold")
    t.add_column("Player")
    t.add_column("Cards left", justify="right")
    t.add_column("Kings", justify="right")
    t.add_column("Chips" if chips else "Penalty", justify="right")
    t.add_column("Total", justify="right")
    for seat, name in enumerate(s.names):
        cards = result.cards_left[seat] if seat < len(result.cards_left) else 0
        kings, others = result.penalty_parts(seat)
        pen = result.penalties[seat]
        won = result.winner == seat
        penalty = (
            f"{result.chips_delta[seat]:+d}"
            if chips
            else f"{pen}" + (f"  ({kings}×{KING_PENALTY} + {others})" if kings else "")
        )
        t.add_row(
            rich_plain(("▶ " if won else "  ") + name, style="bold green" if won else ""),
            str(cards),
            str(kings) if kings else "·",
            penalty,
            Text(str(result.totals[seat]), style="bold"),
        )
    return t


class RoundSummary(ModalScreen[None]):
    """How the round ended: who went out, each hand's penalty, totals, target, next dealer."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space,escape", "close", "Continue"),
    ]
    DEFAULT_CSS = """
    RoundSummary { align: center middle; }
    RoundSummary > Vertical {
        width: 76; max-width: 95%; height: auto;
        border: thick $accent; background: $panel; padding: 1 2;
    }
    RoundSummary #title { text-style: bold; width: 100%; content-align: center middle; }
    RoundSummary #body { width: 100%; margin: 1 0; }
    RoundSummary #next { color: $text-muted; margin-bottom: 1; }
    RoundSummary Button { width: 100%; }
    """

    def __init__(
        self, session: MatchSession, result: RoundResult, hands: Sequence[tuple[int, int]] | None = None
    ) -> None:
        """``hands`` (cards, kings per seat) is accepted for older callers and not used: the
        engine's ``result`` carries them."""
        super().__init__()
        self.session = session
        self.result = result
        self.hands = None if hands is None else list(hands)

    def compose(self) -> ComposeResult:
        s, res = self.session, self.result
        if res.winner is None:
            head = f"Round {res.number}: blocked, no one went out"
        else:
            head = f"Round {res.number}: {s.names[res.winner]} went out!"
        with Vertical():
            yield Static(plain(head), id="title")
            yield Static(round_table(s, res, self.hands), id="body")
            if s.match_over:
                nxt = f"Someone reached {s.rules.target}: the match is over."
            else:
                nxt = f"Target {s.rules.target}. Next round: {s.names[s.match.dealer]} deals."
            yield Static(plain(nxt), id="next")
            yield Button("Continue", variant="primary", id="continue")

    def on_mount(self) -> None:
        for button in self.query(Button).results():
            button.focus()
            break

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


class MatchSummary(ModalScreen[str | None]):
    """The winner(s), the final totals, and play again / main menu."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "again", "Play again"),
        Binding("m,escape", "menu", "Main menu"),
    ]
    DEFAULT_CSS = """
    MatchSummary { align: center middle; }
    MatchSummary > Vertical {
        width: 76; max-width: 95%; height: auto;
        border: thick $success; background: $panel; padding: 1 2;
    }
    MatchSummary #title { text-style: bold; width: 100%; content-align: center middle; color: $success; }
    MatchSummary #body { width: 100%; margin: 1 0; }
    MatchSummary #sub { color: $text-muted; width: 100%; content-align: center middle; }
    MatchSummary Horizontal { height: auto; width: 100%; align-horizontal: center; }
    MatchSummary Button { margin: 0 1; }
    """

    def __init__(self, session: MatchSession) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        s = self.session
        names = [s.names[w] for w in s.winners]
        human = s.human_seat
        if human is not None and human in s.winners:
            head = "You win the match!" if len(names) == 1 else f"A shared win: {' and '.join(names)}"
        elif len(names) == 1:
            head = f"{names[0]} wins the match"
        else:
            head = f"A shared win: {' and '.join(names)}"
        t = Table(box=None, padding=(0, 2), header_style="bold")
        t.add_column("Player")
        for res in s.results:
            t.add_column(rich_plain(f"R{res.number}"), justify="right", style="dim")
        t.add_column("Total", justify="right")
        for seat, name in enumerate(s.names):
            won = seat in s.winners
            cells = [str(res.penalties[seat]) for res in s.results]
            t.add_row(
                rich_plain(("▶ " if won else "  ") + name, style="bold green" if won else ""),
                *cells,
                Text(str(s.totals[seat]), style="bold"),
            )
        unit = "chips" if s.rules.scoring == Scoring.CHIPS else f"points · target {s.rules.target} · lowest total wins"
        with Vertical():
            yield Static(plain(head), id="title")
            yield Static(plain(f"After {len(s.results)} rounds ({unit})"), id="sub")
            yield Static(t, id="body")
            with Horizontal():
                yield Button("Play again", variant="success", id="again")
                yield Button("Main menu", id="menu")

    def on_mount(self) -> None:
        for button in self.query("#again").results(Button):
            button.focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss("again" if event.button.id == "again" else "menu")

    def action_again(self) -> None:
        self.dismiss("again")

    def action_menu(self) -> None:
        self.dismiss("menu")
