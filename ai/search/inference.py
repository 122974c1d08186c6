"""What the public history of a round says about the cards each opponent does not hold.

A seat that ends its turn while a card fits a pile (or could start an empty place) and does not
play it probably does not hold that card: the planners play every card they can unless it is a
king or a queen they hoard, and at a table of three or four they hardly hoard those (the risk
of a king held is shared by more opponents, :func:`ai.search.planning.rank_ends`). Each such end
of a turn is a :class:`Pass`: the unseen cards the seat showed it did not hold, and how many of
them it may hold now all the same, because it drew that many cards since.

The view gives the piles only as they are now, so the piles at each past end of a turn are
rebuilt by undoing the history move by move (:func:`turn_end_positions`). A pile move is undone
by splitting the pile it made; every split the later-undone plays allow is followed, and a pass
whose position differs between the consistent splits keeps only the cards common to all of
them. A pile completed by a card played and shuffled into the stock is rebuilt as a chain of
ranks and colours (which of a colour's two suits is not known until the history names it; for
a pile completed by a pile move, both colours of its ace are followed).

:func:`deal_hands` then deals the unseen cards to the opponents so that no opponent holds more
of a pass's cards than it drew since, as long as the cards allow (otherwise the rest is dealt at
random): a hand consistent with everything the seat has shown.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from ai.search.planning import KQ_MASK, N_SIDES, PileTuple
from kc_tui.engine import END, KINGS_MASK, PlayerView
from kc_tui.engine.cards import NEED, is_red
from kc_tui.engine.moves import MOVE_BASE
from kc_tui.engine.rules import Draw, LayoutKings, OutWithOpenSide
from kc_tui.engine.state import PILE_FULL

#: The most pile splits followed while undoing a round's pile moves, and the most moves undone
#: over all of them (a few milliseconds); past either, the history before is not used.
SPLIT_LIMIT = 256
STEP_LIMIT = 6000
#: A card of every kind: the mask of all 52 cards.
ALL_MASK = (1 << 52) - 1
#: In a rebuilt pile, ``ANY + c`` stands for either card of the rank and colour of card ``c``: a
#: card of a pile that was completed and left the table (which of the two the history does not
#: say until it is played again, undone further back).
ANY = 64


def _kind(card: int) -> int:
    """The card a rebuilt pile's entry stands for (the representative of its rank and colour)."""
    return card & (ANY - 1)


def _undoes(top: int, card: int) -> bool:
    """Whether ``top`` (a rebuilt pile's top) can be the card ``card`` that was played there."""
    if top < ANY:
        return top == card
    c = _kind(top)
    return c >> 2 == card >> 2 and is_red(c) == is_red(card)


def _completed_below(ace: int) -> tuple[int, ...]:
    """The pile, king first, that the ``ace`` completed: twelve entries each standing for either
    card of its rank and colour (:data:`ANY`)."""
    chain: list[int] = []
    prev = ace
    for rank in range(2, 14):
        card = next(x for x in range((rank - 1) * 4, rank * 4) if NEED[x] >> prev & 1)
        chain.append(ANY + card)
        prev = card
    return tuple(reversed(chain))


@dataclass(frozen=True, slots=True)
class Pass:
    """One end of a turn by ``seat`` (at ``index`` in the history) that showed cards it did not
    hold: ``absent``, the cards unseen now that it could have played then; it may hold up to
    ``allowance`` of them now, having drawn that many cards since."""

    seat: int
    index: int
    absent: int
    allowance: int


def playable(piles: PileTuple, kings_on_sides: bool) -> int:
    """Every card some hand could play on ``piles``: onto a top, any card (kings only when
    ``kings_on_sides``) onto an empty side, a king onto an empty corner."""
    fit = 0
    side = corner = False
    for i, pile in enumerate(piles):
        if pile:
            fit |= NEED[_kind(pile[-1])]
        elif i < N_SIDES:
            side = True
        else:
            corner = True
    if side:
        fit |= ALL_MASK if kings_on_sides else ALL_MASK & ~KINGS_MASK
    if corner:
        fit |= KINGS_MASK
    return fit


def _is_layout(piles: list[tuple[int, ...]], layout_kings_to_corner: bool) -> bool:
    """Whether ``piles`` can be a round's layout (R3): a card on every side, at most a king on a
    corner (only when kings are moved there), filled from the first corner on."""
    for i, pile in enumerate(piles):
        if i < N_SIDES:
            if len(pile) != 1:
                return False
            if layout_kings_to_corner and _kind(pile[0]) >= 48:
                return False
        elif len(pile) > 1 or (pile and (not layout_kings_to_corner or _kind(pile[0]) < 48)):
            return False
    corners = [bool(p) for p in piles[N_SIDES:]]
    return corners == sorted(corners, reverse=True)


class _Undo:
    """The backward walk of :func:`turn_end_positions` (one per view)."""

    def __init__(self, view: PlayerView) -> None:
        self.history = view.history
        self.kos = view.rules.kings_on_sides_allowed
        self.to_stock = not view.rules.completed_piles_stay
        self.to_corner = view.rules.layout_kings == LayoutKings.TO_CORNER
        self.splits = 0
        self.steps = 0

    def walk(self, i: int, piles: list[tuple[int, ...]]) -> list[tuple[dict[int, PileTuple], bool]] | None:
        """Undo the history from index ``i`` down: the consistent ways, each as (the piles at
        each end of a turn met, whether the walk reached the deal), or None when no way is
        consistent."""
        ends: dict[int, PileTuple] = {}
        while i >= 0:
            self.steps += 1
            if self.steps > STEP_LIMIT:
                return [(ends, False)]
            _seat, m = self.history[i]
            if m == END:
                ends[i] = tuple(piles)
            elif m < MOVE_BASE:
                card, dst = m >> 3, m & 7
                pile = piles[dst]
                if pile and _undoes(pile[-1], card):
                    piles[dst] = pile[:-1]
                elif not pile and self.to_stock and card < 4:
                    piles[dst] = _completed_below(card)  # this ace completed the pile: it left
                else:
                    return None
            else:
                src, dst = (m - MOVE_BASE) >> 3, m & 7
                if piles[src]:
                    return None
                if piles[dst]:
                    made = [piles[dst]]
                elif self.to_stock:
                    # The move completed a pile, which left: its ace was of either colour.
                    made = [(*_completed_below(ace), ANY + ace) for ace in (0, 1)]
                else:
                    return None
                if self.splits >= SPLIT_LIMIT:
                    return [(ends, False)]
                out: list[tuple[dict[int, PileTuple], bool]] = []
                for pile in made:
                    # The moved pile is the end of the pile made; onto an empty corner, all of it.
                    cuts = range(len(pile)) if dst >= N_SIDES else range(1, len(pile))
                    for cut in cuts:
                        if cut == 0 and _kind(pile[0]) < 48:
                            continue
                        self.splits += 1
                        trial = list(piles)
                        trial[dst], trial[src] = pile[:cut], pile[cut:]
                        ways = self.walk(i - 1, trial)
                        for older, reached in ways or ():
                            out.append(({**older, **ends}, reached))
                return out or None
            i -= 1
        return [(ends, True)] if _is_layout(piles, self.to_corner) else None


def _ways(view: PlayerView) -> list[dict[int, PileTuple]]:
    """The piles at the ends of a turn, one dict per consistent way of undoing the history."""
    ways = _Undo(view).walk(len(view.history) - 1, list(view.piles))
    return [ends for ends, _reached in ways or ()]


def turn_end_positions(view: PlayerView) -> dict[int, int]:
    """The cards playable at each end of a turn in ``view``'s history (by its index) whose
    position the history gives (:func:`playable`; where pile moves leave it open, the cards
    playable in every consistent position). Ends the walk could not reach (past
    :data:`SPLIT_LIMIT` splits or :data:`STEP_LIMIT` moves undone) are missing."""
    ways = _ways(view)
    if not ways:
        return {}
    kos = view.rules.kings_on_sides_allowed
    common = set(ways[0])
    for ends in ways[1:]:
        common &= set(ends)
    out: dict[int, int] = {}
    for i in common:
        mask = ALL_MASK
        for ends in ways:
            mask &= playable(ends[i], kos)
        out[i] = mask
    return out


def turn_end_piles(view: PlayerView) -> dict[int, PileTuple]:
    """The piles at each end of a turn in ``view``'s history that every consistent way of undoing
    it agrees on, card for card."""
    ways = _ways(view)
    if not ways:
        return {}
    return {
        i: p
        for i, p in ways[0].items()
        if all(ends.get(i) == p for ends in ways[1:]) and all(c < ANY for pile in p for c in pile)
    }


def completions(view: PlayerView) -> int:
    """How many piles were completed and left the table this round (R12 ``to_stock``), from the
    card counts: the layout is 4 to 8 cards, so only one count fits."""
    if view.rules.completed_piles_stay:
        return 0
    plays = sum(1 for _s, m in view.history if m < MOVE_BASE)
    on_table = sum(len(p) for p in view.piles)
    for c in range(0, 5):
        layout = on_table + PILE_FULL * c - plays
        if 4 <= layout <= 8:
            return c
    return 0


def passes(view: PlayerView, kings_and_queens: bool | None = None) -> list[Pass]:
    """Every end of a turn by an opponent in ``view``'s history that showed unseen cards it did
    not hold, oldest first. Kings and queens count only with ``kings_and_queens`` (by default at
    a table of three or four, where the planners rarely hoard them)."""
    if view.over or not view.history:
        return []
    n = view.n_players
    kq = n >= 3 if kings_and_queens is None else kings_and_queens
    unseen = view.unseen_mask if kq else view.unseen_mask & ~KQ_MASK
    positions = turn_end_positions(view)
    hand_size = view.rules.hand_size
    plays = [0] * n
    for seat, m in view.history:
        if m < MOVE_BASE:
            plays[seat] += 1
    # Every card a seat holds now or played came from the deal or a draw.
    drawn = [max(0, view.hand_sizes[s] + plays[s] - hand_size) for s in range(n)]
    draw = view.rules.draw
    # With the stock never refilled, a seat drawing one a turn drew on its first turns only.
    prefix = (
        draw in (Draw.START, Draw.END)
        and view.rules.out_with_open_side == OutWithOpenSide.END
        and completions(view) == 0
    )
    ends_by = [0] * n  # ends of a turn by each seat so far
    turns_of: list[list[int]] = [[] for _ in range(n)]  # each seat's ends of a turn, by index
    for i, (seat, m) in enumerate(view.history):
        if m == END:
            ends_by[seat] += 1
            turns_of[seat].append(i)
    out: list[Pass] = []
    for s in range(n):
        if s == view.seat:
            continue
        total = len(turns_of[s])
        for j, i in enumerate(turns_of[s], start=1):
            fit = positions.get(i)
            if fit is None:
                continue
            absent = fit & unseen
            if not absent:
                continue
            later = total - j  # turns of s begun after this one ended
            if draw == Draw.END:
                later += 1  # the draw at the end of this very turn
            if draw == Draw.WHEN_STUCK:
                allowance = drawn[s]
            elif prefix:
                first = j if draw == Draw.START else j - 1  # draws made up to this end
                allowance = max(0, drawn[s] - first)
            else:
                allowance = min(later, drawn[s])
            if allowance >= absent.bit_count():
                continue
            out.append(Pass(s, i, absent, allowance))
    return out


def deal_hands(view: PlayerView, evidence: list[Pass], seed: int) -> list[int]:
    """The opponents' hands for one deal: the unseen cards shuffled with ``seed``, each opponent
    (in turn order) taking the first cards that keep every one of its passes within its
    allowance, and, when those run out, the first cards left. ``view``'s own hand at its seat."""
    n = view.n_players
    pool = [c for c in range(52) if view.unseen_mask >> c & 1]
    random.Random(seed).shuffle(pool)
    hands = [0] * n
    hands[view.seat] = view.hand_mask
    by_seat: list[list[Pass]] = [[] for _ in range(n)]
    for p in evidence:
        by_seat[p.seat].append(p)
    for k in range(1, n):
        s = (view.seat + k) % n
        need = view.hand_sizes[s]
        mine = by_seat[s]
        left = [p.allowance for p in mine]
        take: list[int] = []
        rest: list[int] = []
        for c in pool:
            if len(take) == need:
                rest.append(c)
                continue
            hit = [q for q, p in enumerate(mine) if p.absent >> c & 1]
            if all(left[q] > 0 for q in hit):
                for q in hit:
                    left[q] -= 1
                take.append(c)
            else:
                rest.append(c)
        if len(take) < need:
            extra = rest[: need - len(take)]
            take += extra
            rest = rest[len(extra) :]
        for c in take:
            hands[s] |= 1 << c
        pool = rest
    return hands


def allowed_for(hands: list[int]) -> Callable[[int, int], bool]:
    """The ``allowed`` filter of :func:`~kc_tui.engine.determinize` that deals exactly
    ``hands`` (every opponent's hand has the size the view gives)."""
    return lambda seat, card: bool(hands[seat] >> card & 1)


@dataclass(frozen=True, slots=True)
class LastTurn:
    """An opponent's most recent turn, as the history gives it: the piles it began with
    (``before``) and left (``after``), and the cards it played (``played``)."""

    seat: int
    before: PileTuple
    after: PileTuple
    played: int


def last_turns(view: PlayerView) -> list[LastTurn]:
    """Every opponent's most recent whole turn whose piles the history gives, when the hand it
    decided on is its hand now plus the cards it played then: with a draw at the start of the
    turn only (``draw=start``, nothing drawn on going out), at the start of our turn."""
    rules = view.rules
    if view.over or view.moved_this_turn or rules.draw != Draw.START:
        return []
    if rules.out_with_open_side != OutWithOpenSide.END:
        return []
    piles = turn_end_piles(view)
    history = view.history
    ends = [i for i, (_s, m) in enumerate(history) if m == END]
    out: list[LastTurn] = []
    done = {view.seat}
    for k in range(len(ends) - 1, 0, -1):
        e, a = ends[k], ends[k - 1]
        seat = history[e][0]
        if seat in done:
            continue
        done.add(seat)
        if e in piles and a in piles:
            played = 0
            for _s, m in history[a + 1 : e]:
                if m < MOVE_BASE:
                    played |= 1 << (m >> 3)
            out.append(LastTurn(seat, piles[a], piles[e], played))
        if len(done) == view.n_players:
            break
    return out
