"""The move log's lines, and each line in the language in use where it is shown.

The log is kept in English (a save holds it, a replay writes it again, the hosted table sends
it): every line is one of :data:`LINES` filled in by :class:`~kc_tui.match.narration.Narrator`.
:func:`shown` reads a line back by the template it was written from and writes it again in the
language in use, with the same names, cards and places; a line of no template (an older save's)
is shown as it is. Plain Python.
"""

from __future__ import annotations

import re
from functools import cache

from kc_tui.i18n import N_, SOURCE, _, current

# Translators: the move log. {who} is a player's name, {card} and {top} cards such as 7♥,
# {place} and {source} places such as NE, {cards} a pile's cards such as "6♥ 5♠ 4♦".
PUT_CORNER = N_("{who} put {card} on the empty corner {place}")
PUT_SIDE = N_("{who} put {card} on the empty side {place}")
PLAYED = N_("{who} played {card} on {top} at {place}")
MOVED_CORNER = N_("{who} moved {cards} from {source} to the empty corner {place}")
MOVED_SIDE = N_("{who} moved {cards} from {source} to the empty side {place}")
MOVED = N_("{who} moved {cards} from {source} onto {top} at {place}")
ENDED = N_("{who} ended the turn")
DREW_CARD = N_("{who} drew {card}")
DREW_ONE = N_("{who} drew a card")
# Translators: the move log; {count} is 2 or more.
DREW_MANY = N_("{who} drew {count} cards")
TO_STOCK = N_("The pile at {place} ran from K to A and was shuffled into the stock (R12)")
BLOCKED = N_("No one can move and the stock is empty: the round is blocked (R14)")
WENT_OUT = N_("{who} went out and won the round")
DEALT = N_("Round {number}: {who} dealt")
# Translators: {who} is the winners' names, joined by " and ".
MATCH_OVER = N_("The match is over: {who} won")
# Translators: {reason} is one of the reasons below ("it ran out of time").
AI_FAULT = N_("{who}'s AI failed ({reason}); a simple fallback played instead")

#: Every line the log holds, the most particular first (a line is read by the first that fits).
LINES = (
    TO_STOCK,
    BLOCKED,
    DEALT,
    MATCH_OVER,
    AI_FAULT,
    WENT_OUT,
    PUT_CORNER,
    PUT_SIDE,
    PLAYED,
    MOVED_CORNER,
    MOVED_SIDE,
    MOVED,
    ENDED,
    DREW_ONE,
    DREW_MANY,
    DREW_CARD,
)

# Translators: the same lines for the player called You (the default name), so that the verb
# can agree with "you".
YOU_LINES = {
    PUT_CORNER: N_("You put {card} on the empty corner {place}"),
    PUT_SIDE: N_("You put {card} on the empty side {place}"),
    PLAYED: N_("You played {card} on {top} at {place}"),
    MOVED_CORNER: N_("You moved {cards} from {source} to the empty corner {place}"),
    MOVED_SIDE: N_("You moved {cards} from {source} to the empty side {place}"),
    MOVED: N_("You moved {cards} from {source} onto {top} at {place}"),
    ENDED: N_("You ended the turn"),
    DREW_CARD: N_("You drew {card}"),
    DREW_ONE: N_("You drew a card"),
    DREW_MANY: N_("You drew {count} cards"),
    WENT_OUT: N_("You went out and won the round"),
    DEALT: N_("Round {number}: You dealt"),
    MATCH_OVER: N_("The match is over: You won"),
}

#: Why an AI's move was made by the fallback (:func:`~kc_tui.match.narration.fault_reason`).
RAISED = N_("it raised an error")
ILLEGAL = N_("it chose an illegal move")
BUSY = N_("it was still busy with an earlier move")
TIMED_OUT = N_("it ran out of time")
NO_MOVE = N_("it did not give a move")
REASONS = frozenset({RAISED, ILLEGAL, BUSY, TIMED_OUT, NO_MOVE})

#: The default player's name, as the log writes it.
YOU = "You"
_FIELD = re.compile(r"\{(\w+)\}")
#: What a field may hold: a count or a round's number is digits, a place one of the eight.
_SHAPES = {"count": r"\d+", "number": r"\d+", "place": r"NW|NE|SW|SE|N|E|S|W", "source": r"NW|NE|SW|SE|N|E|S|W"}


@cache
def _pattern(template: str) -> re.Pattern[str]:
    """What reads a line of ``template``, compiled when a line first gets that far (the first
    frame's log reads its first line only)."""
    parts: list[str] = []
    at = 0
    for field in _FIELD.finditer(template):
        parts.append(re.escape(template[at : field.start()]))
        parts.append(f"(?P<{field[1]}>{_SHAPES.get(field[1], '.+?')})")
        at = field.end()
    parts.append(re.escape(template[at:]))
    return re.compile("".join(parts), re.DOTALL)


def read(line: str) -> tuple[str, dict[str, str]] | None:
    """The template ``line`` was written from and what filled it, or None."""
    for template in LINES:
        m = _pattern(template).fullmatch(line)
        if m:
            return template, m.groupdict()
    return None


def shown(line: str) -> str:
    """``line`` of the log in the language in use (as it is in English, or when it is no
    line the log writes)."""
    if current() == SOURCE:
        return line
    found = read(line)
    if found is None:
        return line
    template, fields = found
    if fields.get("reason") in REASONS:
        fields["reason"] = _(fields["reason"])
    if fields.get("who") == YOU and template in YOU_LINES:
        del fields["who"]
        return _(YOU_LINES[template]).format(**fields)
    return _(template).format(**fields)


__all__ = ["LINES", "REASONS", "YOU_LINES", "read", "shown"]
