"""A server's open tables in words, as the lobby lists them (the app's list and the plain
mode's numbered lines): a table's seats, its rules, what it is doing and its clock; and the rules
a table's settings say. Plain Python: every name from the network is handed on as data.
"""

from __future__ import annotations

from collections.abc import Mapping

from kc_tui.config import HUMAN, seat_kind_title
from kc_tui.engine import Rules, RulesError
from kc_tui.i18n import _
from kc_tui.net.lobby_schema import ENDED, OPEN, PLAYING, TableListing


def rules_of(settings: Mapping[str, object] | None) -> tuple[Rules, str | None]:
    """The rules of a table's settings (a ``welcome``'s, a listing's), and why they could not
    be read (one line; then the defaults stand in)."""
    if settings is None:
        return Rules(), None
    try:
        return Rules.from_dict(dict(settings)), None
    except (RulesError, TypeError, ValueError) as exc:
        # Translators: {problem} is what was wrong with the rules the table sent.
        unread = _("the table's rules could not be read ({problem}); the standard rules are shown")
        return Rules(), unread.format(problem=exc)


def seats_text(listing: TableListing) -> str:
    """A table's seats in one line: "Ana, Ben, free, greedy" (a person's name, a free seat, an
    AI's kind)."""
    words = []
    for seat in listing.seats:
        if seat.kind != HUMAN:
            words.append(seat_kind_title(seat.kind))
        elif seat.name is None:
            words.append(_("free"))
        else:
            words.append(seat.name)
    return ", ".join(words)


def free_seats(listing: TableListing) -> int:
    """How many person's seats of ``listing`` are free."""
    return sum(1 for seat in listing.seats if seat.kind == HUMAN and seat.name is None)


def rules_text(listing: TableListing) -> str:
    """A table's rules in a few words: "standard", or the variants that differ ("draw=end")."""
    rules, problem = rules_of(listing.rules)
    if problem is not None:
        return _("unknown rules")
    changed = {k: v for k, v in rules.changed().items() if k != "target"}
    if not changed:
        return _("standard")
    return ", ".join(f"{k}={v}" for k, v in changed.items())


def phase_text(listing: TableListing, fill_in: int | None = None) -> str:
    """What a table is doing: open (and when AIs fill its empty seats), a round of its match, over."""
    if listing.phase == OPEN:
        if fill_in is not None:
            # Translators: {seconds} is a number of seconds; a table's state in the lobby's list.
            return _("open, AIs in {seconds} s").format(seconds=fill_in)
        return _("open")
    if listing.phase == PLAYING:
        # Translators: {number} is the round being played; a table's state in the lobby's list.
        return _("round {number}").format(number=max(1, listing.round))
    if listing.phase == ENDED:
        return _("over")
    return listing.phase


def clock_text(listing: TableListing) -> str:
    """A table's turn time: "60 s", or "-" without a clock."""
    return _("{seconds} s").format(seconds=listing.turn_seconds) if listing.turn_seconds else "-"


__all__ = ["clock_text", "free_seats", "phase_text", "rules_of", "rules_text", "seats_text"]
