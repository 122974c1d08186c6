"""What a remote seat's screen reads out of the server's ``state``: the legal moves it offers,
the targets of a picked card or pile, the scoreboard's rounds, and the status line (who the table
waits for, who is connected, the connection's state). Plain functions over
:mod:`kc_tui.net.protocol`'s messages; every name from the network stays data (Rich ``Text``
built from literal strings, never markup)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text

from kc_tui.engine import (
    Card,
    Move,
    MoveError,
    Rules,
    RulesError,
    is_pile_move,
    is_play,
    parse_move,
    play_card,
    source,
    target,
)
from kc_tui.engine.rules import Scoring
from kc_tui.engine.scoring import RoundResult
from kc_tui.i18n import _
from kc_tui.net.client import Link, Status
from kc_tui.net.schema import CLOSED, StateMsg
from kc_tui.ui.text import rich_fill, visible


def legal_moves(state: StateMsg | None) -> tuple[list[Move], list[str]]:
    """The moves of ``state``'s ``legal`` list the engine reads, and the texts it does not."""
    moves: list[Move] = []
    bad: list[str] = []
    for text in state.legal if state is not None else ():
        try:
            moves.append(parse_move(text))
        except MoveError:
            bad.append(text)
    return moves, bad


def card_targets(moves: Sequence[Move], card: Card) -> set[int]:
    """The places ``card`` may be played on."""
    return {target(m) for m in moves if is_play(m) and play_card(m) == card}


def pile_targets(moves: Sequence[Move], place: int) -> set[int]:
    """The places the pile at ``place`` may be moved onto."""
    return {target(m) for m in moves if is_pile_move(m) and source(m) == place}


def table_rules(settings: Mapping[str, object] | None) -> tuple[Rules, str | None]:
    """The rules of the ``welcome``'s settings, and why they could not be read (then the
    defaults stand in)."""
    if settings is None:
        return Rules(), None
    try:
        return Rules.from_dict(dict(settings)), None
    except (RulesError, TypeError, ValueError) as exc:
        # Translators: {problem} is what was wrong with the rules the table sent.
        unread = _("the table's rules could not be read ({problem}); the standard rules are shown")
        return Rules(), visible(unread.format(problem=exc))


def chips_scoring(rules: Rules) -> bool:
    return rules.scoring == Scoring.CHIPS


def round_results(state: StateMsg, winners: Mapping[int, str | None], *, chips: bool) -> list[RoundResult]:
    """The scoreboard's rounds from ``state.results`` (points or chips per seat), with the
    seat that went out in each round whose ``round`` message was seen (``winners``: its number
    to the winner's name)."""
    names = [s.name for s in state.seats]
    n = len(names)
    out: list[RoundResult] = []
    for i, row in enumerate(state.results):
        values = tuple(row[:n]) + (0,) * max(0, n - len(row))
        number = i + 1
        name = winners.get(number)
        winner = names.index(name) if name is not None and name in names else None
        zeros = (0,) * n
        out.append(
            RoundResult(
                number=number,
                dealer=0,
                seats=tuple(range(n)),
                winner=winner,
                penalties=zeros if chips else values,
                chips_delta=values if chips else zeros,
                totals=zeros,
            )
        )
    return out


def is_my_turn(state: StateMsg | None) -> bool:
    """The state's seat is on turn (a spectator never is)."""
    if state is None or state.seat is None or state.over or not 0 <= state.seat < len(state.seats):
        return False
    return state.seats[state.seat].to_move


def link_line(link: Link, state: StateMsg | None, *, watching: bool) -> tuple[Text, str]:
    """The status line and its kind (``ok``, ``wait``, ``down``, ``ended``): the connection's
    state, who the table waits for, and which people are connected."""
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
    if state is not None and state.save_problem is not None:
        out.append(_("The table holds: not saved"), "bold")
        out.append(f" ({visible(state.save_problem)}) · ")
        kind = "down"
    if state is None:
        out.append(_("waiting for the table"))
        return out, kind
    if state.over:
        out.append(_("The match is over"))
    elif state.waiting_for is not None:
        me = state.seats[state.seat].name if state.seat is not None and state.seat < len(state.seats) else None
        if is_my_turn(state) and state.waiting_for == me:
            out.append(_("The table waits for you"), "bold")
        else:
            # Translators: {name} is the player the table waits for.
            out.append_text(rich_fill(_("Waiting for {name}"), name=Text(visible(state.waiting_for), "bold")))
    else:
        out.append(_("Between rounds"))
    people = [s for s in state.seats if s.kind == "human"]
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


def seat_kind(kind: str, *, connected: bool, stand_in: bool) -> str:
    """An opponent panel's kind: the AI's, "human", or where the person is."""
    if kind != "human":
        return kind
    if stand_in:
        return _("AI stands in")
    # Translators: an opponent's panel: the seat is a person's (connected or away).
    return _("human") if connected else _("away")


__all__ = [
    "card_targets",
    "chips_scoring",
    "is_my_turn",
    "legal_moves",
    "link_line",
    "pile_targets",
    "round_results",
    "seat_kind",
    "table_rules",
]
