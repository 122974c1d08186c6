"""The table drawn from a :class:`~kc_tui.match.view.TableSnapshot`: one renderer and one turn
prompt for the game screen (one person, or several at one keyboard) and a remote seat (a person's
or a spectator's). What only one of them has is a case of the same function: the pause and the
handoff (the game screen's), a person away from the table or an AI standing in for them (a
remote table's), the "your turn" lines that name the person at a shared keyboard.

Everything a snapshot holds that a player or the network wrote (names, scores, log lines) is
shown literally, control characters as visible escapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from rich.text import Text
from textual.screen import Screen
from textual.widgets import Static

from kc_tui.engine import PLACES, Card, Move, is_pile_move, is_play, play_card, source, target
from kc_tui.i18n import _, ngettext
from kc_tui.match import log_lines
from kc_tui.match.view import SeatSnapshot, TableSnapshot, who_plays
from kc_tui.ui.cards import CardLook
from kc_tui.ui.literal_text import rich_fill, visible
from kc_tui.ui.table.parts import seat_label
from kc_tui.ui.widgets import HandView, MoveLog, OpponentPanel, Scoreboard, TableView
from kc_tui.ui.widgets.pile import PLACE_KEYS


@dataclass(frozen=True, slots=True)
class Picked:
    """What the screen's person has picked (a card of the hand, or a pile), the places it may go
    (lit green), and the places a hint on show plays on."""

    card: Card | None = None
    pile: int | None = None
    targets: frozenset[int] = frozenset()
    hint: frozenset[int] = frozenset()


def card_targets(moves: Sequence[Move], card: Card) -> set[int]:
    """The places ``card`` may be played on, of the legal ``moves``."""
    return {target(m) for m in moves if is_play(m) and play_card(m) == card}


def pile_targets(moves: Sequence[Move], place: int) -> set[int]:
    """The places the pile at ``place`` may be moved onto, of the legal ``moves``."""
    return {target(m) for m in moves if is_pile_move(m) and source(m) == place}


def seat_kind(seat: SeatSnapshot) -> str:
    """A seat's panel's kind: the AI's, "human", or where the person is (a remote table's)."""
    if seat.kind != "human":
        return seat.kind
    if seat.stand_in:
        return _("AI stands in")
    # Translators: an opponent's panel: the seat is a person's (connected or away).
    return _("human") if seat.connected else _("away")


def behind_summary(ended: TableSnapshot, now: TableSnapshot) -> TableSnapshot:
    """The table under a round's summary: the round's last position (``ended``: its piles, its
    hands and counts) with the scores as they are now (``now``: the round counted, and under
    chips the next ante in the pot)."""
    if len(ended.seats) != len(now.seats):
        return ended
    seats = tuple(replace(e, total=n.total, score=n.score) for e, n in zip(ended.seats, now.seats, strict=True))
    return replace(ended, seats=seats, results=now.results, pot=now.pot)


def draw_table(
    screen: Screen[Any],
    snap: TableSnapshot,
    look: CardLook,
    picked: Picked,
    *,
    me: int | None,
    mine: bool,
    keys: list[int | None] | None,
    thinking: bool = False,
) -> None:
    """Draw ``screen``'s table parts (:func:`~kc_tui.ui.table.parts.table_parts`) from ``snap``:
    the piles and the stock with what is picked lit, the viewer's hand (numbered by ``keys``;
    None: no hand is drawn), the label of seat ``me`` beside it ("your turn" when ``mine``), the
    other seats' panels (``thinking``: the seat on turn is an AI at work), the scoreboard and
    the move log."""
    table = screen.query_one(TableView)
    table.show(snap.piles, snap.stock, round_number=snap.round_number, pot=snap.pot, look=look)
    table.highlight(picked.targets, picked.pile, picked.hint)
    if keys is not None:
        hand = list(snap.hand or ())
        screen.query_one(HandView).show(hand, drawn=snap.drawn, selected=picked.card, look=look, keys=keys)
    if me is not None and 0 <= me < len(snap.seats):
        seat = snap.seats[me]
        count = (ngettext("{n} card", "{n} cards", seat.cards).format(n=seat.cards), "dim")
        turn = (_("your turn"), "bold #ffd75f") if mine else count
        seat_label(screen.query_one("#me-label", Static), seat.name, visible(seat.score), turn)
    draw_panels(screen, snap, look, me=me, thinking=thinking)
    draw_scoreboard(screen, snap)
    screen.query_one(MoveLog).sync([visible(line) for line in snap.log])


def draw_panels(screen: Screen[Any], snap: TableSnapshot, look: CardLook, *, me: int | None, thinking: bool) -> None:
    """Every other seat's panel from ``snap`` (seat ``me``'s is hidden: its label is beside the
    hand): its cards (or its hand, where the viewer may see it), score, turn and dealer, and
    whether the person is away or an AI stands in (a remote table's)."""
    for panel in screen.query(OpponentPanel):
        panel.display = panel.seat != me
        if panel.seat >= len(snap.seats):
            continue
        seat = snap.seats[panel.seat]
        if seat.kind == "human" and (kind := seat_kind(seat)) != panel.kind:
            panel.kind = kind
            for neighbour in panel.row():  # the row's panels are fitted together
                neighbour.refresh()
        panel.show(
            cards=seat.cards,
            total=seat.total,
            score=visible(seat.score),
            target=snap.target,
            to_move=seat.to_move,
            thinking=thinking and seat.to_move,
            dealer=seat.dealer,
            hand=list(seat.hand) if seat.hand is not None else None,
            look=look,
        )


def draw_scoreboard(screen: Screen[Any], snap: TableSnapshot) -> None:
    """The scoreboard from ``snap``: every seat's name and total, the rounds scored, the target
    (R15) or the stacks and the pot (R16)."""
    screen.query_one(Scoreboard).show(
        [seat.name for seat in snap.seats],
        snap.results,
        [seat.total for seat in snap.seats],
        snap.target,
        snap.round_number,
        chips=snap.chips,
        pot=snap.pot,
    )


def _places(where: set[int]) -> str:
    return ", ".join(f"{PLACES[p]} [{PLACE_KEYS[p]}]" for p in sorted(where))


def turn_prompt(
    snap: TableSnapshot,
    look: CardLook,
    picked: Picked,
    *,
    hot_seat: bool = False,
    paused: bool = False,
    handoff: bool = False,
    watching: bool = False,
) -> tuple[str, str]:
    """The message area's line about the table, and its kind (``info`` or ``hint``): the match's
    or the round's end, a pause (``paused``), a spectator's view (``watching``), the keyboard
    passing to the person on turn (``handoff``), the viewer's turn (what is picked and where it
    may go; how a move is made, and at a shared keyboard (``hot_seat``) whose turn it is; under
    chips what ending the turn now costs), else who the table waits for."""
    if snap.over:
        return snap.end_text or _("The match is over."), "info"
    if snap.round_over:
        return _("The round is over."), "info"
    if paused:
        return _("Paused. Press p to go on."), "hint"
    if watching:
        if snap.waiting_for is None:
            return _("Watching the table."), "info"
        # Translators: {who} says who the table waits for ("Ben is playing…").
        return _("Watching: {who}").format(who=who_plays(snap)), "info"
    name = snap.seats[snap.to_move].name if snap.to_move is not None else ""
    if handoff:
        return _("Waiting for {name} at the keyboard.").format(name=name), "info"
    if not snap.my_turn:
        return who_plays(snap) if snap.waiting_for is not None else _("The round is over."), "info"
    if picked.card is not None:
        card = look.label(picked.card)
        if picked.targets:
            # Translators: {card} is a card ("7♥"); {places} are places with their keys ("N [w], E [d]").
            line = _("{card} selected: it can go on {places}. Esc to cancel.")
            return line.format(card=card, places=_places(set(picked.targets))), "info"
        return _("{card} selected: no pile takes it now. Esc to cancel.").format(card=card), "info"
    if picked.pile is not None:
        pile = PLACES[picked.pile]
        if picked.targets:
            # Translators: {pile} is a place ("NW"); {places} are places with their keys ("N [w], E [d]").
            line = _("Pile {pile} picked up: it can move onto {places}. Esc to cancel.")
            return line.format(pile=pile, places=_places(set(picked.targets))), "info"
        return _("Pile {pile} picked: it cannot move anywhere now. Esc to cancel.").format(pile=pile), "info"
    costs = snap.end_turn_costs  # one line at 80 columns, the cost in it
    if hot_seat and costs:
        line = _("{name}, your turn: pick a card (←→ 1-9) then a pile. t: end turn (costs a chip)")
    elif hot_seat:
        line = _("{name}, your turn: pick a card (←→ 1-9) then a pile (its key or click). t: end turn")
    elif costs:
        line = _("Your turn: pick a card (←→ 1-9) then a pile. t: end turn (costs a chip)")
    else:
        line = _("Your turn: pick a card (←→ 1-9) then a pile (its key or click). t: end turn")
    return line.format(name=name), "info"


def move_made(line: str) -> Text:
    """The viewer's move just made, in the log's words (``line``), and that the turn goes on."""
    # Translators: {line} is the log's line of the move just made.
    done = rich_fill(_("{line}. Go on, or t to end your turn."), line=Text(visible(log_lines.shown(line))))
    return Text.assemble(("✓ ", "bold green"), done)


__all__ = [
    "Picked",
    "behind_summary",
    "card_targets",
    "draw_table",
    "move_made",
    "pile_targets",
    "seat_kind",
    "turn_prompt",
]
