"""What a remote seat's screen reads out of the server's ``state``: the table's view
(the ``state``'s ``view``, the same :class:`~kc_tui.match.view.TableSnapshot` every local
screen draws), the targets of a picked card or pile, the
scoreboard's rounds for a replay, and the status line (who the table waits for, who is
connected, the connection's state). Every name from the network stays data (Rich ``Text`` built
from literal strings, never markup)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text

from kc_tui.engine import (
    Card,
    Move,
    Rules,
    is_pile_move,
    is_play,
    play_card,
    source,
    target,
)
from kc_tui.i18n import _
from kc_tui.match.view import TableSnapshot
from kc_tui.net.client import Link, SeatClock, Status
from kc_tui.net.listings import rules_of
from kc_tui.net.schema import CLOSED
from kc_tui.ui.literal_text import rich_fill, visible


def card_targets(moves: Sequence[Move], card: Card) -> set[int]:
    """The places ``card`` may be played on."""
    return {target(m) for m in moves if is_play(m) and play_card(m) == card}


def pile_targets(moves: Sequence[Move], place: int) -> set[int]:
    """The places the pile at ``place`` may be moved onto."""
    return {target(m) for m in moves if is_pile_move(m) and source(m) == place}


def table_rules(settings: Mapping[str, object] | None) -> tuple[Rules, str | None]:
    """The rules of the ``welcome``'s settings, and why they could not be read (then the
    defaults stand in), shown literally (:func:`kc_tui.net.listings.rules_of`)."""
    rules, problem = rules_of(settings)
    return rules, None if problem is None else visible(problem)


def is_my_turn(view: TableSnapshot | None) -> bool:
    """The view's seat is on turn (a spectator never is)."""
    return view is not None and view.my_turn and not view.over


def clock_line(clock: SeatClock | None, view: TableSnapshot | None, now: float) -> Text | None:
    """The turn clock's words for the seat on turn (``now`` on the loop's clock): "Your turn:
    25 s", at the warning "9 s left: then an AI plays this turn", another's "Ben: 25 s"; after a
    turn ran out "Your time ran out: an AI plays the rest of this turn" (another's: "Ben's time
    ran out..."). None when no clock runs for the seat on turn: none told, the table between
    rounds, over, holding, or its person away."""
    if view is None or view.over or view.waiting_for is None or view.to_move is None or view.save_problem:
        return None
    seat = view.seats[view.to_move]
    if seat.kind != "human" or not seat.connected:
        return None
    mine = seat.seat == view.viewer
    if seat.stand_in:  # connected and played for: the clock ran out this turn
        if mine:
            return Text(_("Your time ran out: an AI plays the rest of this turn"), "bold")
        # Translators: {name} is the player whose turn's time ran out.
        return Text(_("{name}'s time ran out: an AI plays this turn").format(name=visible(seat.name)))
    if clock is None or clock.seat != seat.seat:
        return None
    seconds = clock.left(now)
    if not mine:
        # Translators: {name} is the player on turn, {seconds} the whole seconds left of their turn.
        return Text(_("{name}: {seconds} s").format(name=visible(seat.name), seconds=seconds))
    if clock.warned(now):
        # Translators: {seconds} is the whole seconds left of your turn.
        return Text(_("{seconds} s left: then an AI plays this turn").format(seconds=seconds), "bold reverse")
    # Translators: {seconds} is the whole seconds left of your turn.
    return Text(_("Your turn: {seconds} s").format(seconds=seconds), "bold")


def link_line(link: Link, view: TableSnapshot | None, *, watching: bool, clock: Text | None = None) -> tuple[Text, str]:
    """The status line and its kind (``ok``, ``wait``, ``down``, ``ended``): the connection's
    state, the turn clock (``clock``, :func:`clock_line`: first, where it is always seen), who
    the table waits for, and which people are connected."""
    if link.status is Status.ENDED:
        gone = Text(_("Not at the table"), "bold")
        if link.reason:
            # Translators: {gone} is "Not at the table" (in bold), {reason} why the seat left the table.
            ended = _("{gone}: {reason}. Esc, q or m: main menu")
            return rich_fill(ended, gone=gone, reason=Text(visible(link.reason))), "ended"
        # Translators: {gone} is "Not at the table" (in bold).
        return rich_fill(_("{gone}. Esc, q or m: main menu"), gone=gone), "ended"
    if link.status is Status.CONNECTING:
        return Text(_("Connecting to the table…")), "wait"
    out = Text(no_wrap=True, overflow="ellipsis")
    kind = "ok"
    if link.status is Status.RECONNECTING and link.code == CLOSED:
        out.append(_("Waiting for the host to serve the table again"), "bold")
        return out, "down"
    if link.status is Status.RECONNECTING:
        out.append(_("reconnecting…"), "bold")
        if link.reason:
            out.append(f" ({visible(link.reason)})")
        return out, "down"  # what the table waited for is stale until the connection is back
    if watching:
        out.append(_("Watching") + " · ", "bold")
    if clock is not None:
        out.append_text(clock)
        out.append(" · ")
    if view is not None and view.save_problem is not None:
        out.append(_("The table holds: not saved"), "bold")
        out.append(f" ({visible(view.save_problem)}) · ")
        kind = "down"
    if view is None:
        out.append(_("waiting for the table"))
        return out, kind
    if view.over:
        out.append(_("The match is over"))
    elif view.waiting_for is not None:
        me = view.seats[view.viewer].name if view.viewer is not None else None
        if is_my_turn(view) and view.waiting_for == me:
            out.append(_("The table waits for you"), "bold")
        else:
            # Translators: {name} is the player the table waits for.
            out.append_text(rich_fill(_("Waiting for {name}"), name=Text(visible(view.waiting_for), "bold")))
    else:
        out.append(_("Between rounds"))
    people = [s for s in view.seats if s.kind == "human"]
    here = [s.name for s in people if s.connected]
    away = [s for s in people if not s.connected]
    if here:
        out.append(" · ")
        # Translators: {names} are the names of the people connected to the table.
        out.append_text(rich_fill(_("connected: {names}"), names=Text(", ".join(visible(name) for name in here))))
    if away:
        out.append(" · ")
        # Translators: {name} is a person away from the table whose seat an AI plays.
        stand_in = _("{name} (an AI stands in)")
        names = ", ".join(stand_in.format(name=visible(s.name)) if s.stand_in else visible(s.name) for s in away)
        # Translators: {names} are the names of the people away from the table.
        out.append_text(rich_fill(_("away: {names}"), names=Text(names, "bold")))
    return out, kind


__all__ = [
    "card_targets",
    "clock_line",
    "is_my_turn",
    "link_line",
    "pile_targets",
    "table_rules",
]
