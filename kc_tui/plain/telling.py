"""A view of the table told in sentences: :class:`Teller`.

Everything told is made from :class:`kc_tui.match.view.TableSnapshot` alone, so a table of this
machine, a replay and a remote seat are told alike, and nothing is told that the viewer may not
see. A teller remembers the last view it told, so :meth:`Teller.news` says only what changed
(the log's new lines, with the seat's cards left; a round's end and its scores; the match's end).

The log's lines are read back by their templates (:func:`kc_tui.match.log_lines.read`) and said
again in the language in use with the places' names (North, not N) and the cards in the teller's
card style. A remote seat's log is its last lines only, and a table's log drops its oldest lines
as it grows: the new lines are found where the log told last and the log now overlap.
"""

from __future__ import annotations

from collections.abc import Sequence

from kc_tui.engine import (
    END,
    PLACES,
    Card,
    Move,
    Rules,
    is_pile_move,
    is_play,
    pile_takes,
    play_card,
    rank_of,
    source,
    target,
)
from kc_tui.i18n import _, ngettext
from kc_tui.match import log_lines as words
from kc_tui.match.card_format import CardFormat, cards_text
from kc_tui.match.places import PLACE_NAMES
from kc_tui.match.view import RoundRow, SeatSnapshot, TableSnapshot
from kc_tui.plain.reading import Command, legal_order, read_card
from kc_tui.util.printable import is_you, name_shown

#: The place codes the log writes (N, NE, ...) by the engine's index.
PLACE_INDEX: dict[str, int] = {code: i for i, code in enumerate(PLACES)}
#: The most lines of the log remembered to find where the next view's log starts anew.
REMEMBERED = 1000
#: The most lines of the round so far told by the first view of a table joined or resumed.
FIRST_MOST = 12
#: The most pile cards named one by one; a longer pile is said by its bottom and top cards.
PILE_SHOWN = 3
#: The most finished rounds the scores list, the latest ones.
ROUNDS_SHOWN = 5

#: How many cards a line of the log gives its seat (a play -1, a draw +1), by template.
_CHANGE: dict[str, int] = {
    words.PUT_CORNER: -1,
    words.PUT_SIDE: -1,
    words.PLAYED: -1,
    words.DREW_CARD: 1,
    words.DREW_ONE: 1,
}


def place_name(place: int) -> str:
    """The place's name in the language in use: "North", "North-east"."""
    return _(PLACE_NAMES[place])


def _place_of(code: str) -> str:
    index = PLACE_INDEX.get(code)
    return code if index is None else place_name(index)


def _reformat(text: str, fmt: CardFormat) -> str:
    """Cards written by the log (``7♠``, ``7S``), space-separated, in the card style ``fmt``;
    a word that is no card is kept as it is."""
    out = []
    for word in text.split(" "):
        card = read_card(word)
        out.append(word if card is None else fmt(card))
    return " ".join(out)


def _change(template: str, fields: dict[str, str]) -> int:
    """The cards a line of ``template`` gave its seat (0: none, or it does not say)."""
    if template == words.DREW_MANY:
        try:
            return int(fields.get("count", "0")[:4])
        except ValueError:
            return 0
    return _CHANGE.get(template, 0)


def told_line(line: str, fmt: CardFormat) -> tuple[str, str | None, int]:
    """A line of the log said in the language in use, with places named and cards in ``fmt``;
    the name of the seat whose cards it changed (None: it changed none) and by how many."""
    found = words.read(line)
    if found is None:
        return line, None, 0
    template, fields = found
    change = _change(template, fields)
    who = fields.get("who") if change else None
    for key in ("place", "source"):
        if key in fields:
            fields[key] = _place_of(fields[key])
    for key in ("card", "top", "cards"):
        if key in fields:
            fields[key] = _reformat(fields[key], fmt)
    if fields.get("reason") in words.REASONS:
        fields["reason"] = _(fields["reason"])
    if fields.get("who") == words.YOU and template in words.YOU_LINES:
        del fields["who"]
        return _(words.YOU_LINES[template]).format(**fields), who, change
    return _(template).format(**fields), who, change


def cards_left(said: str, who: str, n: int) -> str:
    """``said`` (a line of the log) and the cards ``who`` holds after it."""
    if is_you(who):
        if n == 0:
            # Translators: a move told in the plain mode, then the cards left: "You played 7♠ on
            # 8♥ at North; you have no cards left".
            return _("{said}; you have no cards left").format(said=said)
        return ngettext("{said}; you have {n} card", "{said}; you have {n} cards", n).format(said=said, n=n)
    if n == 0:
        # Translators: a move told in the plain mode, then the cards left: "Ben played 7♠ on 8♥
        # at North; Ben has no cards left".
        return _("{said}; {who} has no cards left").format(said=said, who=who)
    # Translators: a move told in the plain mode, then the cards left: "Ben played 7♠ on 8♥ at
    # North; Ben has 4 cards".
    return ngettext("{said}; {who} has {n} card", "{said}; {who} has {n} cards", n).format(said=said, who=who, n=n)


def _ends(lines: Sequence[str]) -> int:
    """How many of ``lines`` say a turn was ended."""
    count = 0
    for line in lines:
        found = words.read(line)
        if found is not None and found[0] == words.ENDED:
            count += 1
    return count


def _new_part(old: Sequence[str], new: Sequence[str], ends: int | None = None) -> int:
    """Where the lines of ``new`` not yet told start, ``old`` being the lines told: after a run
    of ``new``'s first lines that ``old`` holds from some line on (the log grown, cut to its last
    lines, or a move taken back and another made); 0 when ``new`` starts with no line of ``old``
    (a log that starts over).

    A log that repeats itself (turns ended one after another) may fit ``old`` in more than one
    place: ``ends``, when known, is how many turns the new lines end, and picks the place that
    leaves that many; else the longest run is taken (the fewest lines told again)."""
    if not old or not new:
        return 0
    runs: list[tuple[int, int]] = []
    first = new[0]
    for at in range(len(old)):
        if old[at] != first:
            continue
        run = 1
        while at + run < len(old) and run < len(new) and old[at + run] == new[run]:
            run += 1
        runs.append((at, run))
    if not runs:
        return 0
    # A log grown or cut: the run reaches the last line told. Else a move was taken back.
    grown = [run for at, run in runs if at + run == len(old)]
    choices = sorted(set(grown or [run for _at, run in runs]), reverse=True)
    if ends is not None and len(choices) > 1:
        for run in choices:
            if _ends(new[run:]) == ends:
                return run
    return choices[0]


def _first_told(log: Sequence[str]) -> int:
    """Where a first view's news starts: at the round's deal, at most :data:`FIRST_MOST` lines back."""
    start = len(log)
    for i in range(len(log) - 1, -1, -1):
        found = words.read(log[i])
        if found is not None and found[0] == words.DEALT:
            start = i
            break
    return max(start, len(log) - FIRST_MOST)


def _deal_number(line: str) -> int | None:
    found = words.read(line)
    if found is None or found[0] != words.DEALT:
        return None
    try:
        return int(found[1]["number"][:6])
    except ValueError:
        return None


def _after_round(line: str, number: int) -> bool:
    """Whether ``line`` is the first the log writes after round ``number`` is scored: the next
    round's deal, or the match's end."""
    found = words.read(line)
    if found is None:
        return False
    return found[0] == words.MATCH_OVER or _deal_number(line) == number + 1


class Teller:
    """Tells one viewer's table: ``fmt`` writes a card (the player's card style); ``rules``, when
    known, say what an empty place takes (R10, R11)."""

    def __init__(self, fmt: CardFormat, *, rules: Rules | None = None) -> None:
        self.fmt = fmt
        self.rules = rules if rules is not None else Rules()
        self._log: tuple[str, ...] = ()
        self._told = False
        #: Every seat's cards as the last view told them, by name, and that view's round.
        self._cards: dict[str, int] = {}
        self._round = 0
        self._turns = 0
        #: The finished rounds told (their numbers).
        self._rounds: set[int] = set()
        self._over = False
        self._save_problem: str | None = None

    # ------------------------------------------------------------------ news
    def news(self, snap: TableSnapshot) -> list[str]:
        """What happened since the last view told (the first time: the round so far, from its
        deal, at most :data:`FIRST_MOST` lines)."""
        log = snap.log
        start = _new_part(self._log, log, self._ends_since(snap)) if self._told else _first_told(log)
        fresh = list(log[start:])
        said = self._said(fresh, snap)
        rows = [row for row in snap.results if row.number not in self._rounds]
        if not self._told:
            rows = []
            self._rounds = {row.number for row in snap.results}
        for row in rows:
            self._rounds.add(row.number)
            summary = self.round_end(row, snap)
            at = next((i for i, line in enumerate(fresh) if _after_round(line, row.number)), len(said))
            said[at:at] = summary
            fresh[at:at] = summary
        if snap.over and snap.end_text and not self._over:
            said.append(snap.end_text)
        self._over = snap.over
        if snap.save_problem != self._save_problem:
            if snap.save_problem:
                # Translators: the plain mode tells that the table's save cannot be written;
                # {problem} is why, in one line.
                said.append(_("The table is not saved: {problem}").format(problem=snap.save_problem))
            elif self._told:
                said.append(_("The table is saved again."))
            self._save_problem = snap.save_problem
        self._log = tuple(log[-REMEMBERED:])
        self._told = True
        self._cards = {seat.name: seat.cards for seat in snap.seats}
        self._round = snap.round_number
        self._turns = snap.turns_ended
        return said

    def _ends_since(self, snap: TableSnapshot) -> int | None:
        """How many turns were ended since the last view told, when the round is the same."""
        if snap.round_number != self._round or snap.turns_ended < self._turns:
            return None
        return snap.turns_ended - self._turns

    def _said(self, lines: Sequence[str], snap: TableSnapshot) -> list[str]:
        """``lines`` of the log said, each play and draw with its seat's cards left: worked back
        from the cards every seat holds now for the lines after the last deal, forward from the
        last view's for the lines of its round before a deal."""
        told = [told_line(line, self.fmt) for line in lines]
        left: list[int | None] = [None] * len(told)
        deals = [i for i, line in enumerate(lines) if _deal_number(line) is not None]
        now = {seat.name: seat.cards for seat in snap.seats if seat.playing}
        for i in range(len(told) - 1, (deals[-1] if deals else -1), -1):
            _text, who, change = told[i]
            if who is not None and who in now and now[who] >= 0:
                left[i] = now[who]
                now[who] -= change
        first = deals[0] if deals else len(told)
        if deals and self._told and self._cards and _deal_number(lines[first]) == self._round + 1:
            before = dict(self._cards)
            for i in range(first):
                _text, who, change = told[i]
                if who is not None and who in before:
                    before[who] += change
                    left[i] = before[who]
        out = []
        for (said, who, _n), n in zip(told, left, strict=True):
            out.append(said if who is None or n is None or n < 0 else cards_left(said, who, n))
        return out

    def round_end(self, row: RoundRow, snap: TableSnapshot) -> list[str]:
        """A finished round (the log has said who went out, or that it was blocked): every seat's
        points (or chips won and paid) that round and its total now."""
        # Translators: the plain mode, at a round's end, before every seat's score of the round.
        lines = [_("Scores of round {number}:").format(number=row.number)]
        for seat, n in zip(snap.seats, row.scores, strict=False):
            name = name_shown(seat.name)
            total = seat.score
            if snap.chips:
                if n > 0:
                    line = ngettext("{name}: won {n} chip, now {total}", "{name}: won {n} chips, now {total}", n)
                elif n < 0:
                    line = ngettext("{name}: paid {n} chip, now {total}", "{name}: paid {n} chips, now {total}", -n)
                else:
                    line = _("{name}: no chips won or paid, now {total}")
                lines.append(line.format(name=name, n=abs(n), total=total))
            else:
                line = ngettext(
                    "{name}: {n} penalty point, total {total}", "{name}: {n} penalty points, total {total}", n
                )
                lines.append(line.format(name=name, n=n, total=total))
        return lines

    # ------------------------------------------------------------------ the table
    def hand(self, snap: TableSnapshot) -> list[str]:
        """The viewer's hand, or that it has none to show; the card drawn last marked."""
        hand = snap.hand
        if hand is None:
            return [_("You hold no cards in this round.")]
        if not hand:
            return [_("Your hand is empty.")]
        n = len(hand)
        # Translators: the plain mode's hand: "Your hand: 7♠ 10♥ K♣ (3 cards)".
        line = ngettext("Your hand: {cards} ({n} card)", "Your hand: {cards} ({n} cards)", n).format(
            cards=cards_text(hand, self.fmt), n=n
        )
        if snap.drawn is not None and snap.drawn in hand:
            # Translators: the plain mode's hand, then the card drawn last: "...; you drew 10♥".
            line = _("{hand}; you drew {card}").format(hand=line, card=self.fmt(snap.drawn))
        return [line]

    def pile(self, place: int, pile: Sequence[Card]) -> str:
        """One place of the table in a sentence: its cards (a long pile by its bottom and top)
        and what it takes next (nothing on an ace, R12)."""
        name = place_name(place)
        if rank_of(pile[-1]) == 1:
            if len(pile) <= PILE_SHOWN:
                # Translators: a pile ending in an ace in the plain mode: "East: 3♥ 2♠ A♦, nothing goes on an ace".
                return _("{place}: {cards}, nothing goes on an ace").format(
                    place=name, cards=cards_text(pile, self.fmt)
                )
            return _("{place}: {n} cards from {bottom} to {top}, nothing goes on an ace").format(
                place=name, n=len(pile), bottom=self.fmt(pile[0]), top=self.fmt(pile[-1])
            )
        takes = pile_takes(place, list(pile), self.rules)
        if len(pile) <= PILE_SHOWN:
            # Translators: a pile in the plain mode: "North: 9♠ 8♥, next black 7".
            return _("{place}: {cards}, next {takes}").format(place=name, cards=cards_text(pile, self.fmt), takes=takes)
        # Translators: a long pile in the plain mode: "North: 6 cards from K♠ to 8♥, next black 7".
        return _("{place}: {n} cards from {bottom} to {top}, next {takes}").format(
            place=name, n=len(pile), bottom=self.fmt(pile[0]), top=self.fmt(pile[-1]), takes=takes
        )

    def table(self, snap: TableSnapshot) -> list[str]:
        """The piles, the empty places, the stock, the pot, every other seat's cards and score,
        and whose turn it is: a short line each."""
        lines = [self.pile(place, pile) for place, pile in enumerate(snap.piles) if pile]
        sides = [place_name(p) for p, pile in enumerate(snap.piles) if not pile and p < 4]
        corners = [place_name(p) for p, pile in enumerate(snap.piles) if not pile and p >= 4]
        if sides:
            # Translators: the plain mode: the empty sides and what they take: "Empty sides (any card): East, West".
            lines.append(
                _("Empty sides ({takes}): {places}").format(
                    takes=pile_takes(0, [], self.rules), places=", ".join(sides)
                )
            )
        if corners:
            lines.append(
                _("Empty corners ({takes}): {places}").format(
                    takes=pile_takes(4, [], self.rules), places=", ".join(corners)
                )
            )
        if snap.stock:
            lines.append(ngettext("Stock: {n} card", "Stock: {n} cards", snap.stock).format(n=snap.stock))
        else:
            lines.append(_("Stock: empty"))
        if snap.pot is not None:
            lines.append(ngettext("Pot: {n} chip", "Pot: {n} chips", snap.pot).format(n=snap.pot))
        lines += [self.seat(seat, snap) for seat in snap.seats if seat.seat != snap.viewer]
        lines.append(self.whose_turn(snap))
        return lines

    def seat(self, seat: SeatSnapshot, snap: TableSnapshot) -> str:
        """A seat in a line: its cards and score, and what marks it (the dealer, away, its hand
        when the viewer may see it)."""
        name = name_shown(seat.name)
        if not seat.playing:
            # Translators: a seat out of a chips match this round: "Ben: sits this round out, 0 chips".
            line = _("{name}: sits this round out, {score}").format(name=name, score=seat.score)
        else:
            line = ngettext("{name}: {n} card, {score}", "{name}: {n} cards, {score}", seat.cards).format(
                name=name, n=seat.cards, score=seat.score
            )
        if seat.dealer:
            line = _("{seat}, dealer").format(seat=line)
        if not seat.connected:
            line = _("{seat}, away").format(seat=line)
        if seat.stand_in:
            line = _("{seat}, an AI plays for them").format(seat=line)
        if seat.hand and seat.seat != snap.viewer:
            line = _("{seat}: holds {cards}").format(seat=line, cards=cards_text(seat.hand, self.fmt))
        return line

    def whose_turn(self, snap: TableSnapshot) -> str:
        """Whose turn it is, or that the round (or the match) is over."""
        if snap.over:
            return snap.end_text or _("The match is over.")
        if snap.round_over or snap.to_move is None:
            return _("The round is over.")
        if snap.my_turn:
            return _("Your turn.")
        name = next((seat.name for seat in snap.seats if seat.seat == snap.to_move), "?")
        # Translators: the plain mode: whose turn it is, "Turn: Ben".
        return _("Turn: {name}").format(name=name_shown(name))

    def move(self, m: Move, snap: TableSnapshot) -> str:
        """A legal move in words: "play 7♠ on 8♥ at North", "end the turn"."""
        if m == END:
            if snap.end_turn_costs:
                # Translators: ending the turn without playing a card costs a chip (R16).
                return _("end the turn (it costs you a chip)")
            return _("end the turn")
        dst = target(m)
        onto = snap.piles[dst] if 0 <= dst < len(snap.piles) else ()
        if is_play(m):
            card = self.fmt(play_card(m))
            if onto:
                return _("play {card} on {top} at {place}").format(
                    card=card, top=self.fmt(onto[-1]), place=place_name(dst)
                )
            if dst >= 4:
                return _("put {card} on the empty corner {place}").format(card=card, place=place_name(dst))
            return _("put {card} on the empty side {place}").format(card=card, place=place_name(dst))
        if is_pile_move(m):
            src = source(m)
            moving = snap.piles[src] if 0 <= src < len(snap.piles) else ()
            bottom = self.fmt(moving[0]) if moving else "?"
            if onto:
                # Translators: a pile move in the plain mode: "move the pile at West (from K♠) onto
                # 10♣ at East"; {bottom} is the moving pile's bottom card.
                return _("move the pile at {source} (from {bottom}) onto {top} at {place}").format(
                    source=place_name(src), bottom=bottom, top=self.fmt(onto[-1]), place=place_name(dst)
                )
            return _("move the pile at {source} (from {bottom}) to the empty corner {place}").format(
                source=place_name(src), bottom=bottom, place=place_name(dst)
            )
        return str(m)

    def moves(self, snap: TableSnapshot) -> list[str]:
        """The viewer's legal moves, numbered from 1 in the order of ``snap.legal``, ending the
        turn last."""
        if not snap.legal:
            return [_("You have no moves now.")]
        ordered = legal_order(snap)
        # Translators: a numbered move in the plain mode: "1. play 7♠ on 8♥ at North".
        return [_("{n}. {move}").format(n=n, move=self.move(m, snap)) for n, m in enumerate(ordered, 1)]

    def turn(self, snap: TableSnapshot) -> list[str]:
        """At the viewer's turn: the hand, the table and the numbered moves."""
        return [*self.hand(snap), *self.table(snap), *self.moves(snap)]

    def told(self, command: Command, snap: TableSnapshot) -> list[str] | None:
        """What ``command`` tells when it asks about the table (hand, table, moves, scores); None
        for a command that does something."""
        tell = {
            Command.HAND: self.hand,
            Command.TABLE: self.table,
            Command.MOVES: self.moves,
            Command.SCORES: self.scores,
        }.get(command)
        return None if tell is None else tell(snap)

    def scores(self, snap: TableSnapshot) -> list[str]:
        """The round's number, every seat's total, the pot, and the last finished rounds."""
        if snap.chips:
            lines = [_("Round {number}").format(number=snap.round_number)]
        else:
            # Translators: the plain mode's scores: "Round 3, target 50 pts".
            lines = [_("Round {number}, target {target} pts").format(number=snap.round_number, target=snap.target)]
        for seat in snap.seats:
            line = _("{name}: {score}").format(name=name_shown(seat.name), score=seat.score)
            if seat.winner:
                line = _("{seat}, winner").format(seat=line)
            lines.append(line)
        if snap.pot is not None:
            lines.append(ngettext("Pot: {n} chip", "Pot: {n} chips", snap.pot).format(n=snap.pot))
        names = [name_shown(seat.name) for seat in snap.seats]
        for row in snap.results[-ROUNDS_SHOWN:]:
            each = ", ".join(
                f"{name} {n:+d}" if snap.chips else f"{name} {n}" for name, n in zip(names, row.scores, strict=False)
            )
            # Translators: a finished round in the plain mode's scores: "Round 2: Ana 0, Ben 7".
            lines.append(_("Round {number}: {scores}").format(number=row.number, scores=each))
        return lines


__all__ = ["Teller", "cards_left", "place_name", "told_line"]
