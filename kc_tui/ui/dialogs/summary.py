"""The round summary and the match summary: one of each for every table. A table played here
makes a round's from the engine's result (:func:`scored_round`), a remote seat from the server's
words and the cards it showed (:func:`told_round`); the match summary is made from the table's
view at the match's end (:func:`match_end`). What only one of them offers is a capability the
dialog is given: the round's replay (with its review, at a table played here), playing again, a
table to go back to (a remote seat's, which goes on without waiting for the dialog).

Under points (R15) the round summary shows what every hand caught (the cards, face up), its
penalty and the totals against the target. Under chips (R16) it shows the cards caught, the
stack each player had at the round's deal (its ante taken), the chips paid during the round
(fines, and cards with ``chips_per_card``), the pot won, the ante already taken for the next
round and the stacks as the scoreboard shows them: on every row the start, minus what was paid,
plus the pot won, minus the next ante, is the stack shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from kc_tui.engine import KING_PENALTY, Card, RoundResult, cards_of, sort_for_hand
from kc_tui.i18n import N_, _, ngettext
from kc_tui.match.session import MatchSession, match_end_text
from kc_tui.match.view import RoundRow, TableSnapshot
from kc_tui.ui.cards import CardLook
from kc_tui.ui.dialogs.modal import Modal
from kc_tui.ui.literal_text import plain, rich_plain, visible
from kc_tui.util.printable import is_you

#: The widest name column in the summaries (a longer name ends in "…").
NAME_WIDTH = 16
#: The width the summaries' tables may use (the dialog's 76 columns less border and padding).
TABLE_WIDTH = 70
#: The mark beside a round's number for the player who went out (as on the scoreboard).
WENT_OUT = "*"

DOT = "·"


def _signed(value: int, sign: str) -> str:
    return f"{sign}{value}" if value else DOT


def _delta(value: int) -> str:
    """A change of chips: "+7", "-2", "0"."""
    return f"{value:+d}" if value else "0"


def _caught(look: CardLook, result: RoundResult, seat: int) -> Text:
    """The cards left in ``seat``'s hand, face up; "went out" for the winner."""
    if seat not in result.seats:
        return Text(_("out of chips"), style="dim")
    if seat == result.winner:
        return Text(_("went out"), style="dim")
    if seat < len(result.hands_left):
        cards = sort_for_hand(cards_of(result.hands_left[seat]))
        if cards:
            return look.fan(cards)
    n = result.cards_left[seat] if seat < len(result.cards_left) else 0
    return Text(ngettext("{n} card", "{n} cards", n).format(n=n) if n else DOT)


def _name_cell(name: str, won: bool) -> Text:
    return rich_plain(("▶ " if won else "  ") + name, style="bold green" if won else "")


def _table() -> Table:
    t = Table(box=None, padding=(0, 1), pad_edge=False, expand=False, header_style="bold")
    t.add_column(_("Player"), no_wrap=True, overflow="ellipsis", max_width=NAME_WIDTH)
    t.add_column(_("Left in hand"), overflow="fold")
    return t


def round_table(
    s: MatchSession,
    result: RoundResult,
    hands: Sequence[tuple[int, int]] | None = None,
    *,
    look: CardLook | None = None,
) -> Table:
    """Every hand's cards left and what the round did to the scores, as the engine scored them
    (``result`` carries the hands). Points (R15): the penalty (kings 10) and the total. Chips
    (R16): the stack at the round's deal, chips paid, the pot won, the next round's ante and the
    stack now, so that every row adds up as shown. ``hands`` is accepted for older callers and
    not used."""
    look = look or CardLook()
    t = _table()
    if s.chips_scoring:
        ante = s.ante_after(result.number)
        with_ante = any(ante)
        # Translators: a column of the round's chips: the stack at the round's deal.
        t.add_column(_("Start"), justify="right", no_wrap=True)
        t.add_column(_("Paid"), justify="right", no_wrap=True)
        t.add_column(_("Won"), justify="right", no_wrap=True)
        if with_ante:
            t.add_column(_("Ante"), justify="right", no_wrap=True)
        t.add_column(_("Chips"), justify="right", no_wrap=True)
        for seat, name in enumerate(s.names):
            row: list[Text | str] = [_name_cell(name, result.winner == seat), _caught(look, result, seat)]
            row.append(str(start_stack(result, seat)))
            row += [_signed(result.chips_paid(seat), "-"), _signed(result.chips_won(seat), "+")]
            if with_ante:
                row.append(_signed(ante[seat], "-"))
            row.append(Text(str(result.totals[seat] - ante[seat]), style="bold"))
            t.add_row(*row)
        return t
    t.add_column(_("Penalty"), justify="right", no_wrap=True)
    t.add_column(_("Total"), justify="right", no_wrap=True)
    for seat, name in enumerate(s.names):
        kings, others = result.penalty_parts(seat)
        pen = result.penalties[seat]
        penalty = f"{pen}" + (f" ({kings}×{KING_PENALTY}+{others})" if kings else "")
        t.add_row(
            _name_cell(name, result.winner == seat),
            _caught(look, result, seat),
            penalty,
            Text(str(result.totals[seat]), style="bold"),
        )
    return t


def start_stack(result: RoundResult, seat: int) -> int:
    """R16: ``seat``'s stack as the table showed it at the round's deal (its ante taken): the
    stack after the round less what the round changed it by."""
    return result.totals[seat] - result.chips_delta[seat]


def round_headline(s: MatchSession, result: RoundResult) -> str:
    """ "Round 3: Alice went out!" (under chips: and what the pot held, or that it stays)."""
    number, pot = result.number, result.pot
    if result.winner is None:
        if s.chips_scoring and pot:
            stays = ngettext(
                "Round {number}: blocked, no one went out; the pot ({pot} chip) stays",
                "Round {number}: blocked, no one went out; the pot ({pot} chips) stays",
                pot,
            )
            return stays.format(number=number, pot=pot)
        return _("Round {number}: blocked, no one went out").format(number=number)
    name = s.names[result.winner]
    if not s.chips_scoring:
        return _("Round {number}: {name} went out!").format(number=number, name=name)
    if is_you(name):
        # Translators: {name} is the player called "You": the verb agrees with "you".
        took = ngettext(
            "Round {number}: {name} went out and take the pot: {pot} chip",
            "Round {number}: {name} went out and take the pot: {pot} chips",
            pot,
        )
    else:
        took = ngettext(
            "Round {number}: {name} went out and takes the pot: {pot} chip",
            "Round {number}: {name} went out and takes the pot: {pot} chips",
            pot,
        )
    return took.format(number=number, name=name, pot=pot)


def round_footer(s: MatchSession, result: RoundResult) -> str:
    """What comes next: the match's end and its winner, or the next deal (and its ante)."""
    if s.match_over:
        return match_end_text(s)
    dealer = s.names[s.dealer]
    you = is_you(dealer)
    if not s.chips_scoring:
        if you:
            # Translators: {name} is the player called "You": the verb agrees with "you".
            target = _("Target {target}. Next round: {name} deal.")
        else:
            target = _("Target {target}. Next round: {name} deals.")
        return target.format(target=s.rules.target, name=dealer)
    pot = (result.pot if result.winner is None else 0) + sum(s.ante_after(result.number))
    if you:
        # Translators: {name} is the player called "You": the verb agrees with "you".
        deals = _("Next round: {name} deal. Its ante of 1 chip each is already in the pot: the pot holds {pot}.")
    else:
        deals = _("Next round: {name} deals. Its ante of 1 chip each is already in the pot: the pot holds {pot}.")
    return deals.format(name=dealer, pot=pot)


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """A round's end as its summary shows it: the headline, the body (every hand's cards left
    and what the round did to the scores), what comes next, the cards left in every seat's hand
    (empty when not known) and, at a table played here, the round as the engine scored it."""

    number: int
    title: str
    body: RenderableType
    next: str
    cards: tuple[tuple[Card, ...], ...] = ()
    result: RoundResult | None = None


def scored_round(s: MatchSession, result: RoundResult, *, look: CardLook) -> RoundEnd:
    """Round ``result`` of the match ``s`` played here, as the engine scored it."""
    cards = tuple(tuple(sort_for_hand(cards_of(mask))) for mask in result.hands_left)
    body = round_table(s, result, look=look)
    return RoundEnd(result.number, round_headline(s, result), body, round_footer(s, result), cards, result)


def told_round(
    number: int,
    winner: str | None,
    lines: Sequence[str],
    *,
    cards: Sequence[Sequence[Card]] = (),
    names: Sequence[str] = (),
    look: CardLook,
) -> RoundEnd:
    """Round ``number`` as a table's server told it: who went out (None: blocked), its lines
    (shown literally; the first is the headline when it names the round) and every seat's cards
    left, face up (``cards`` by seat, ``names`` the seats'; none from a server that sends none).
    The table goes on meanwhile."""
    if lines and lines[0].startswith(f"Round {number}"):
        title, told = lines[0], list(lines[1:])
    elif winner is None:
        title, told = _("Round {number} was blocked").format(number=number), list(lines)
    else:
        title, told = _("Round {number}: {name} went out").format(number=number, name=winner), list(lines)
    parts: list[RenderableType] = [Text("\n").join(Text(visible(line)) for line in told)]
    left = [tuple(hand) for hand in cards]
    if left and len(names) == len(left):
        t = _table()
        for name, hand in zip(names, left, strict=True):
            shown = look.fan(sort_for_hand(list(hand))) if hand else Text(_("no cards left"), style="dim")
            t.add_row(_name_cell(name, name == winner), shown)
        parts += [Text(), t]
    nxt = _("The table goes on meanwhile: the next round is dealt there.")
    return RoundEnd(number, title, Group(*parts), nxt, tuple(left))


class RoundSummary(Modal[None]):
    """How the round ended (:class:`RoundEnd`): who went out, the cards caught in every hand, the
    penalties or chips, the totals, and the next deal or the match's end. ``replay`` shows the
    round again (``v``; with its review when ``review``), when there is one; :meth:`note` says
    how it goes when it takes a while (a remote seat's is fetched)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space,escape", "close", N_("Continue")),
        Binding("v", "replay", N_("Replay and review")),
        Binding("v", "replay_only", N_("Replay")),
    ]
    DEFAULT_CSS = """
    RoundSummary > Vertical {
        width: 76; max-width: 100%; max-height: 100%; padding: 0 2; overflow-y: auto;
    }
    RoundSummary #title { text-style: bold; width: 100%; content-align: center middle; margin-top: 1; }
    RoundSummary #body { width: 100%; margin: 1 0; }
    RoundSummary #next { color: $text-muted; margin-bottom: 1; }
    RoundSummary #replay-note { margin-bottom: 1; }
    RoundSummary Button { width: 100%; }
    RoundSummary #replay { height: 1; margin-top: 1; }
    """
    AUTO_FOCUS = ""  # on_mount focuses Continue, leaving the summary at its title

    def __init__(self, end: RoundEnd, *, replay: Callable[[], None] | None = None, review: bool = True) -> None:
        super().__init__()
        self.end = end
        self.replay = replay
        self.review = review

    @property
    def number(self) -> int:
        return self.end.number

    @property
    def cards(self) -> tuple[tuple[Card, ...], ...]:
        """Every seat's cards left (empty when not known)."""
        return self.end.cards

    @property
    def result(self) -> RoundResult:
        """The round as the engine scored it (a table played here: a remote seat has the
        server's words)."""
        if self.end.result is None:
            raise AttributeError("the round was told by a table's server: it has no engine result")
        return self.end.result

    def compose(self) -> ComposeResult:
        end = self.end
        with Vertical():
            yield Static(plain(end.title), id="title")
            yield Static(end.body, id="body")
            yield Static(plain(end.next), id="next")
            note = Static("", id="replay-note")
            note.display = False
            yield note
            yield Button(_("Continue"), variant="primary", id="continue")
            if self.replay is not None:
                label = _("Replay and review (v)") if self.review else _("Replay this round  (v)")
                yield Button(label, id="replay", compact=True)

    def on_mount(self) -> None:
        # Focused without scrolling to it: the summary opens at its title (it scrolls when taller).
        self.query_one("#continue", Button).focus(scroll_visible=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "replay":
            self.action_replay()
        else:
            self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "replay":
            return self.replay is not None and self.review
        if action == "replay_only":
            return self.replay is not None and not self.review
        return True

    def note(self, text: str) -> None:
        """One line under the summary about its replay (text from the network shown literally)."""
        if self.is_attached:
            note = self.query_one("#replay-note", Static)
            note.update(plain(text))
            note.display = bool(text)

    def action_replay(self) -> None:
        if self.replay is not None:
            self.replay()

    def action_replay_only(self) -> None:
        self.action_replay()

    def action_close(self) -> None:
        self.dismiss(None)


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """A finished match as its summary shows it: every seat's name, rounds and final total,
    the winners (match seats), the end in words, the scoring (``target``: 0 under chips) and the
    seat of the one person at the screen, who is "you" (None: everyone is named)."""

    names: tuple[str, ...]
    rounds: tuple[RoundRow, ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    end_text: str
    chips: bool
    target: int
    you: int | None = None


def match_end(view: TableSnapshot, *, you: int | None = None) -> MatchEnd:
    """The match's end as the table's view at its end holds it (``you``: the person's seat)."""
    return MatchEnd(
        names=tuple(seat.name for seat in view.seats),
        rounds=view.results,
        totals=tuple(seat.total for seat in view.seats),
        winners=tuple(seat.seat for seat in view.seats if seat.winner),
        end_text=view.end_text,
        chips=view.chips,
        target=view.target,
        you=you,
    )


def match_table(end: MatchEnd) -> tuple[Table, int]:
    """Every player's rounds (the last ones that fit) and final total: penalties (R15) or chips
    won or paid (R16, antes apart), a ``*`` by the number of who went out. Also how many early
    rounds were left out."""
    t = Table(box=None, padding=(0, 1), pad_edge=False, header_style="bold")
    t.add_column(_("Player"), no_wrap=True, overflow="ellipsis", max_width=NAME_WIDTH)

    def cell(res: RoundRow, seat: int) -> str:
        mark = WENT_OUT if res.winner == seat else ""
        value = res.scores[seat] if seat < len(res.scores) else 0
        return mark + (_delta(value) if end.chips else str(value))

    def head(res: RoundRow) -> str:
        # Translators: the head of a round's column in the match summary: "R3" is round 3.
        return _("R{number}").format(number=res.number)

    total = _("Total")
    # Every column after the first takes its width and 2 spaces of padding.
    room = TABLE_WIDTH - NAME_WIDTH - (len(total) + 2)
    shown: list[RoundRow] = []
    for res in reversed(end.rounds):
        width = max(len(head(res)), *(len(cell(res, seat)) for seat in range(len(end.names)))) + 2
        if width > room:
            break
        room -= width
        shown.insert(0, res)
    for res in shown:
        t.add_column(rich_plain(head(res)), justify="right", style="dim", no_wrap=True)
    t.add_column(total, justify="right", no_wrap=True)
    for seat, name in enumerate(end.names):
        t.add_row(
            _name_cell(name, seat in end.winners),
            *(cell(res, seat) for res in shown),
            Text(str(end.totals[seat] if seat < len(end.totals) else 0), style="bold"),
        )
    return t, len(end.rounds) - len(shown)


#: The rating line while the rating is being worked out.
RATING_PENDING = N_("Working out your rating…")


class MatchSummary(Modal[str | None]):
    """The winner(s) by name and why the match ended, every player's rounds and final total.
    At a table played here: play again (``a``), the rounds to replay (``v``, when recorded), the
    main menu; at a remote seat (``table``): back to the table, which goes on showing (Enter,
    dismissed with None), or the main menu ("menu"). The one person at the screen is "you";
    where several play, everyone is named."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "again", N_("Play again")),
        Binding("enter", "table", N_("Table"), show=False),
        Binding("m", "menu", N_("Main menu")),
        Binding("escape", "close", show=False),
        Binding("v", "rounds", N_("Replay a round")),
    ]
    DEFAULT_CSS = """
    MatchSummary > Vertical {
        width: 76; max-width: 100%; max-height: 100%; border: thick $success; padding: 0 2; overflow-y: auto;
    }
    MatchSummary #title {
        text-style: bold; width: 100%; content-align: center middle; color: $success; margin-top: 1;
    }
    MatchSummary #body { width: 100%; margin: 1 0 0 0; }
    MatchSummary #sub { color: $text-muted; width: 100%; content-align: center middle; }
    MatchSummary #rating { text-style: bold; width: 100%; content-align: center middle; }
    MatchSummary #legend { color: $text-muted; width: 100%; margin-bottom: 1; }
    MatchSummary Horizontal { height: auto; width: 100%; align-horizontal: center; margin-bottom: 1; }
    MatchSummary Button { margin: 0 1; }
    """

    def __init__(
        self,
        end: MatchEnd,
        rounds: Callable[[], None] | None = None,
        rating: str | None = None,
        *,
        table: bool = False,
    ) -> None:
        """``end``: the match's end (:func:`match_end` of the table's view at its end).
        ``rounds``: shows the match's rounds to replay and review (when it was recorded).
        ``rating``: how the match moved the player's rating (:func:`kc_tui.match.rating_line.rating_change`; None: no
        such line, as after a demo); :meth:`show_rating` changes it. ``table``: a remote seat's
        (the table goes on showing behind; no playing again from here)."""
        super().__init__()
        self.end = end
        self.rounds = rounds
        self.rating = rating
        self.table = table

    def compose(self) -> ComposeResult:
        end = self.end
        names = [end.names[w] for w in end.winners]
        # Translators: put between the names of the players who share a win ("Ana and Ben").
        joined = _(" and ").join(names)
        if len(names) != 1:
            # Translators: {names} are the names of the players who share the win.
            head = _("A shared win: {names}").format(names=joined)
        elif end.you is not None and end.you in end.winners:
            head = _("You win the match!")
        else:
            head = _("{name} wins the match").format(name=names[0])
        table, hidden = match_table(end)
        if end.chips:
            # Translators: {mark} is the mark ("*") beside the figure of who went out.
            legend = _("{mark} went out · chips won or paid, antes apart").format(mark=WENT_OUT)
        else:
            # Translators: {mark} is the mark ("*") beside the figure of who went out.
            legend = _("{mark} went out · penalty points · target {target}, lowest total wins").format(
                mark=WENT_OUT, target=end.target
            )
        if hidden:
            # Translators: {hidden} is the last round left out of the table; {legend} what its figures mean.
            legend = _("Rounds 1–{hidden} not shown · {legend}").format(hidden=hidden, legend=legend)
        with Vertical():
            yield Static(plain(head), id="title")
            yield Static(plain(end.end_text), id="sub")
            rating = Static(plain(self.rating_text(self.rating)), id="rating")
            rating.display = self.rating is not None
            yield rating
            yield Static(table, id="body")
            yield Static(plain(legend), id="legend")
            with Horizontal():
                if self.table:
                    yield Button(_("Back to the table  (Enter)"), variant="primary", id="table")
                else:
                    yield Button(_("Play again"), variant="success", id="again")
                if self.rounds is not None:
                    yield Button(_("Replay a round (v)"), id="rounds")
                yield Button(_("Main menu"), id="menu")

    def on_mount(self) -> None:
        for button in self.query("#again, #table").results(Button):
            button.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "again":
            return not self.table
        if action == "table":
            return self.table
        if action == "rounds":
            return self.rounds is not None
        return True

    @staticmethod
    def rating_text(line: str | None) -> str:
        """``line`` as shown: :data:`RATING_PENDING` in the current language; a rating line as
        :func:`kc_tui.match.rating_line.rating_change` made it."""
        return _(RATING_PENDING) if line == RATING_PENDING else line or ""

    def show_rating(self, line: str | None) -> None:
        """The rating line says ``line`` (None: it goes)."""
        self.rating = line
        for rating in self.query("#rating").results(Static):
            rating.update(plain(self.rating_text(line)))
            rating.display = line is not None

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "rounds":
            self.action_rounds()
        elif event.button.id == "table":
            self.action_table()
        else:
            self.dismiss("again" if event.button.id == "again" else "menu")

    def action_rounds(self) -> None:
        if self.rounds is not None:
            self.rounds()

    def action_again(self) -> None:
        if not self.table:
            self.dismiss("again")

    def action_table(self) -> None:
        if self.table:
            self.dismiss(None)

    def action_menu(self) -> None:
        self.dismiss("menu")

    def action_close(self) -> None:
        """Escape: back to the table at a remote seat, else the main menu."""
        self.dismiss(None if self.table else "menu")
