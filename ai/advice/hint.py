"""The hint: the match-aware lookahead planner, which never says "end your turn" while a card
can be shed at no risk, and the hint's reasons in words.

Holding cards is a judgment the planners make (a king kept from a corner, a card kept because
it would give the next player a place). For a player asking for help, ending the turn with a
card that could be shed for free is never the advice: a play is *free* when it opens nothing
for the cards the player cannot see, that is, no unseen card fits on the card played unless it
already fitted somewhere on the table (:func:`free_plays`). The hint is not a kind of opponent
(it is not registered): the app builds it for the human's seat, once a match.

A hint's plan holds for the turn (:meth:`HintAI.plan_for`): the whole turn is planned once
(:meth:`HintAI.turn_plan`) and kept, keyed on the position each of its steps is expected at, so
the next hint after its first step is its next step; a drawn card or another move plans again.
The match's save keeps the plan (:attr:`HintAI.kept_plan`, :meth:`HintAI.keep_plan`), so a turn
taken up again after a resume has the same plan.
The review (:mod:`ai.advice.review`) plans the turn's start the same way, with the hint's seed,
and never marks a turn played as the hint said.

A hint says why (:meth:`HintAI.advice`, :func:`describe_plan`, :func:`explain`): it names the
whole plan for the rest of the turn in the move log's words ("play 5♦ on 6♠ at N, then move
5♦ from N onto 6♣ at W") and gives a short reason drawn from the planner's own evaluation
(:func:`~ai.search.planning.rank_ends`, :func:`~ai.search.planning.open_mask`): what the plan sheds and the
penalty points leaving the hand, which playable cards it keeps and why (kings and queens held
while no opponent is close to going out and a king held risks little in the match, a king that
must wait for an open corner, a card that would give the next player a place for unseen
cards), and what it leaves open to the next player. The review of a round (:mod:`ai.advice.review`)
uses the same words. Cards are written by ``fmt``: pass ``kc_tui.match.card_format.card_formatter``'s
formatter for the player's card style (the AIs cannot import it: it is a layer above them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ai.players.lookahead import LookaheadAI
from ai.search.planning import (
    N_SIDES,
    HoldParams,
    PileTuple,
    PlanKey,
    Rulebits,
    distinct_moves,
    greedy_key,
    open_mask,
    opponents,
    sim_apply,
)
from ai.search.stakes import Stakes
from kc_tui.engine import END, KINGS_MASK, PLACES, QUEENS_MASK, Card, Move, PlayerView, card_symbol, penalty_of
from kc_tui.engine.cards import NEED, cards_of, sort_for_hand
from kc_tui.engine.moves import MOVE_BASE
from kc_tui.i18n import N_, _, ngettext

CardFormat = Callable[[Card], str]


def free_plays(view: PlayerView) -> list[Move]:
    """The plays from hand that open nothing new for the unseen cards, best first by greedy's
    priorities (a card that leaves the hand is a point less, a king ten)."""
    fit, _es, _ec = open_mask(view.piles)
    unseen = view.unseen_mask
    out = []
    for m in view.legal_moves():
        if m == END or m >= MOVE_BASE:
            continue
        card = m >> 3
        if NEED[card] & unseen & ~fit:
            continue
        out.append(m)
    out.sort(key=lambda m: -greedy_key(m, view.piles))
    return out


@dataclass(frozen=True, slots=True)
class Advice:
    """A hint with its reason: ``move`` is the next move (``END``: end the turn), ``plan`` the
    moves for the rest of the turn (``END`` excluded; empty when the advice is to end the turn),
    ``text`` the plan in words and ``reason`` why."""

    move: Move
    plan: tuple[Move, ...]
    text: str
    reason: str

    @property
    def line(self) -> str:
        """One line for the status bar: "Hint: play 7♥ on 8♣ at N. Sheds 7♥ (1 point)..."."""
        # Translators: {plan} is the hinted moves in words, {reason} why, in whole sentences.
        return _("Hint: {plan}. {reason}").format(plan=self.text, reason=self.reason)


class HintAI(LookaheadAI):
    """Lookahead's plan for the human's seat, with a free play rather than an early end, kept
    for the whole turn (:meth:`turn_plan`, :meth:`plan_for`)."""

    kind = "hint"
    title = N_("Hint")
    description = N_("suggests your next move")
    offered = False

    def __init__(self, seed: int = 0, **params: Any) -> None:
        super().__init__(seed, **params)
        #: The rest of the last planned turn at each position the plan passes through.
        self._turn: dict[PlanKey, tuple[Move, ...]] = {}
        #: The last planned turn: the position it was planned at, and its plan.
        self._kept: tuple[PlanKey, tuple[Move, ...]] | None = None

    def new_round(self) -> None:
        super().new_round()
        self._turn = {}
        self._kept = None

    @property
    def kept_plan(self) -> tuple[PlanKey, tuple[Move, ...]] | None:
        """The plan the hint holds (its last :meth:`turn_plan`): the position it was planned at
        (the number of moves of the round, the hand, the piles) and the plan from there; None
        before the round's first hint. A save keeps it, so that the hint gives the same plan
        after a resume (:meth:`keep_plan`)."""
        return self._kept

    def keep_plan(self, view: PlayerView, plan: Sequence[Move]) -> None:
        """Hold ``plan`` as the turn's plan made at ``view`` (as :meth:`plan_for` holds the plans
        it makes): the hints at ``view`` and at every position following it leads to give the rest
        of it."""
        closed = Rulebits(view).closed
        memo: dict[PlanKey, tuple[Move, ...]] = {}
        n, h, p = len(view.history), view.hand_mask, view.piles
        plan = tuple(plan)
        for i, m in enumerate(plan):
            memo[(n, h, p)] = plan[i:]
            h, p = sim_apply(h, p, m, closed)
            n += 1
        if h:
            memo[(n, h, p)] = ()
        self._turn = memo
        self._kept = ((len(view.history), view.hand_mask, view.piles), plan)

    def turn_plan(self, view: PlayerView) -> tuple[Move, ...]:
        """The hint's plan for the rest of the turn from ``view``, planned afresh (``END``
        excluded; empty: end the turn): lookahead's plan, then, while a free play is left where
        it ends (:func:`free_plays`), the best free play and lookahead's plan from there, up to
        going out. Deterministic for the seed and ``view``."""
        closed = Rulebits(view).closed
        plan: list[Move] = []
        at = view
        h, p = view.hand_mask, view.piles
        while True:
            legal = at.legal_moves()
            if len(legal) > 1:
                planned = self.plan_turn(at, legal)
                for m in planned if planned and planned[0] in legal else ():
                    plan.append(m)
                    h, p = sim_apply(h, p, m, closed)
                    if not h:
                        return tuple(plan)
                at = view_after(view, plan, h, p)
            # Each free play sheds a card: the loop ends.
            free = free_plays(at)
            if not free:
                break
            plan.append(free[0])
            h, p = sim_apply(h, p, free[0], closed)
            if not h:
                break
            at = view_after(view, plan, h, p)
        return tuple(plan)

    def plan_for(self, view: PlayerView) -> tuple[Move, ...]:
        """The rest of the turn's plan at ``view``: the plan made earlier this turn when ``view``
        is where following it leads (the same moves so far, hand and piles: no card drawn, no
        other move made), else a new :meth:`turn_plan`. Not thread-safe across calls: one call
        at a time per instance."""
        key: PlanKey = (len(view.history), view.hand_mask, view.piles)
        rest = self._turn.get(key)
        legal = view.legal_moves()
        if rest is not None and (not rest or rest[0] in legal):
            return rest
        plan = self.turn_plan(view)
        self.keep_plan(view, plan)
        return plan

    def choose(self, view: PlayerView) -> Move:
        plan = self.plan_for(view)
        return plan[0] if plan else END

    def advice(self, view: PlayerView, fmt: CardFormat = card_symbol) -> Advice:
        """The hint for ``view`` (the seat to move) with its plan for the rest of the turn and
        the reason. Within a turn the plan holds: after its first step was played, the next
        advice is its next step (:meth:`plan_for`); a drawn card or any other move plans again.
        Its move is the one :meth:`choose` gives. Safe in a worker thread (one call at a time
        per instance)."""
        plan = self.plan_for(view)
        return Advice(plan[0] if plan else END, plan, describe_plan(view, plan, fmt), explain(view, plan, fmt))


def view_after(view: PlayerView, moves: Sequence[Move], hand: int, piles: PileTuple) -> PlayerView:
    """``view`` after its seat played ``moves`` this turn, reaching ``hand`` and ``piles``: what
    the seat would see then (the moves in the history, its hand size, the cards played seen, a
    completed pile gone to the stock under R12 ``to_stock``)."""
    table = 0
    for pile in piles:
        for c in pile:
            table |= 1 << c
    played = view.hand_mask & ~hand
    to_stock = (view.table_mask | played) & ~table
    sizes = list(view.hand_sizes)
    sizes[view.seat] = hand.bit_count()
    return replace(
        view,
        hand_mask=hand,
        piles=piles,
        hand_sizes=tuple(sizes),
        stock_size=view.stock_size + to_stock.bit_count(),
        moved_this_turn=view.moved_this_turn or bool(moves),
        played_card_this_turn=view.played_card_this_turn or any(m < MOVE_BASE for m in moves),
        seen_mask=view.seen_mask | table | played,
        history=(*view.history, *((view.seat, m) for m in moves)),
    )


# ------------------------------------------------------------------ plans in words
def move_words(piles: Sequence[tuple[int, ...]], m: Move, fmt: CardFormat = card_symbol) -> str:
    """One move as advice, in the move log's words (:func:`kc_tui.match.narration.suggest_move`):
    "play 7♥ on 8♣ at N", "put K♠ on the empty corner NE", "move 6♥ 5♠ from N onto 7♣ at E"."""
    if m == END:
        return _("end your turn")
    dst = m & 7
    onto = piles[dst]
    place = PLACES[dst]
    if m < MOVE_BASE:
        card = fmt(m >> 3)
        if not onto:
            if dst >= N_SIDES:
                return _("put {card} on the empty corner {place}").format(card=card, place=place)
            return _("put {card} on the empty side {place}").format(card=card, place=place)
        return _("play {card} on {top} at {place}").format(card=card, top=fmt(onto[-1]), place=place)
    src = (m - MOVE_BASE) >> 3
    args = {"cards": " ".join(fmt(c) for c in piles[src]), "source": PLACES[src], "place": place}
    if not onto:
        if dst >= N_SIDES:
            return _("move {cards} from {source} to the empty corner {place}").format(**args)
        return _("move {cards} from {source} to the empty side {place}").format(**args)
    return _("move {cards} from {source} onto {top} at {place}").format(top=fmt(onto[-1]), **args)


def plan_states(view: PlayerView, plan: Sequence[Move]) -> list[tuple[int, PileTuple]]:
    """The hand and piles before each move of ``plan`` and after the last (one more entry than
    moves), played on the seat's own cards from ``view`` (R12 included)."""
    closed = Rulebits(view).closed
    h, p = view.hand_mask, tuple(view.piles)
    out = [(h, p)]
    for m in plan:
        if m == END:
            break
        h, p = sim_apply(h, p, m, closed)
        out.append((h, p))
    return out


def describe_plan(
    view: PlayerView, plan: Sequence[Move], fmt: CardFormat = card_symbol, most: int | None = None
) -> str:
    """The plan in words, move by move: "play 5♦ on 6♠ at N, then move 5♦ from N onto 6♣ at W";
    "end your turn" for an empty plan. With ``most``, a longer plan names its first ``most``
    moves and counts the rest ("..., then 5 more moves")."""
    moves = [m for m in plan if m != END]
    if not moves:
        return _("end your turn")
    states = plan_states(view, moves)
    words = [move_words(p, m, fmt) for (_h, p), m in zip(states, moves, strict=False)]
    if most is not None and len(words) > most + 1:
        rest = len(words) - most
        words = [*words[:most], ngettext("{n} more move", "{n} more moves", rest).format(n=rest)]
    text = words[0]
    for word in words[1:]:
        # Translators: {plan} is the moves so far, {move} the next one, "play 5♦ on 6♠ at N".
        text = _("{plan}, then {move}").format(plan=text, move=word)
    return text


def cards_words(mask: int, fmt: CardFormat, most: int = 4) -> str:
    """Cards of ``mask`` in hand order, or their count when there are more than ``most``."""
    cards = sort_for_hand(cards_of(mask))
    if len(cards) > most:
        return ngettext("{n} card", "{n} cards", len(cards)).format(n=len(cards))
    return " ".join(fmt(c) for c in cards)


def _points(n: int) -> str:
    return ngettext("{n} point", "{n} points", n).format(n=n)


def holding(view: PlayerView, hp: HoldParams | None = None, *, match_aware: bool = True) -> tuple[bool, str]:
    """Whether the planners hold kings and queens at ``view`` (as :func:`~ai.search.planning.rank_ends`
    decides) and, in words, why or why not (a clause: "It keeps K♠ back while {why}")."""
    hp = hp or HoldParams()
    sizes = [view.hand_sizes[s] for s in opponents(view)]
    smallest = min(sizes) if sizes else 0
    if smallest <= hp.release_hand:
        return False, _("an opponent is close to going out")
    if view.stock_size <= hp.release_stock:
        return False, _("the stock is empty")
    if match_aware:
        cost = Stakes.for_planner(view).king_cost(view.hand_mask.bit_count(), sizes)
        if cost >= hp.hold_risk / max(1, len(sizes)) ** 3:
            return False, _("a king held risks too much in the match")
    return True, _("no one is close to going out")


def explain(
    view: PlayerView,
    plan: Sequence[Move],
    fmt: CardFormat = card_symbol,
    hp: HoldParams | None = None,
    *,
    match_aware: bool = True,
) -> str:
    """Why ``plan`` (moves from ``view``, the seat to move) is played, in a few short sentences
    from the planner's evaluation: what it sheds, what it keeps and why, what it leaves open to
    the next player. See the module's description."""
    moves = [m for m in plan if m != END]
    hand0 = view.hand_mask
    h, piles = plan_states(view, moves)[-1]
    bits = Rulebits(view)
    shed = hand0 & ~h
    parts: list[str] = []
    if not h:
        if bits.draw3 and view.stock_size and any(not piles[s] for s in range(N_SIDES)):
            # Translators: {cards} is cards such as "7♥ 5♠" or a count, "5 cards".
            parts.append(
                _("It sheds every card ({cards}), then draws three: a side is open").format(
                    cards=cards_words(shed, fmt)
                )
            )
        else:
            return _("It goes out and wins the round: the others pay for the cards they hold.")
    elif shed:
        # Translators: {cards} is cards such as "7♥ 5♠" or a count; {points} their penalty, "8 points".
        parts.append(
            _("It sheds {cards} ({points})").format(cards=cards_words(shed, fmt), points=_points(penalty_of(shed)))
        )
    elif moves:
        parts.append(_("It sheds no card but moves piles"))
    else:
        parts.append(_("It plays nothing"))
    if h:
        parts += _kept_reasons(view, h, piles, bits, fmt, hp, match_aware=match_aware)
        parts.append(_left_open(view, h, piles, fmt))
    return ". ".join(parts) + "."


def _kept_reasons(
    view: PlayerView,
    h: int,
    piles: PileTuple,
    bits: Rulebits,
    fmt: CardFormat,
    hp: HoldParams | None,
    *,
    match_aware: bool,
) -> list[str]:
    """Why the cards still in hand at the end of the plan stay there (the playable ones, and
    kings waiting for a corner)."""
    out: list[str] = []
    fit, _es, ec = open_mask(piles)
    unseen = view.unseen_mask
    playable = 0
    opens: dict[Card, int] = {}
    for m in distinct_moves(h, piles, bits.kos, bits.closed):
        if m >= MOVE_BASE:
            continue
        c = m >> 3
        playable |= 1 << c
        # What the card would give the others: unseen cards fitting on it that fit nowhere now.
        # (Played on a pile it also covers that pile's top; what fitted there fits no more.)
        _h2, p2 = sim_apply(h, piles, m, bits.closed)
        fit2, _es2, _ec2 = open_mask(p2)
        opens[c] = NEED[c] & unseen & ~fit & fit2
    waiting_kings = h & KINGS_MASK & ~playable
    if waiting_kings and not ec:
        # Translators: {cards} is kings such as "K♠ K♥".
        out.append(_("{cards} must wait: no corner is open").format(cards=cards_words(waiting_kings, fmt)))
    held, why = holding(view, hp, match_aware=match_aware)
    kq = h & playable & (KINGS_MASK | QUEENS_MASK)
    if kq and held:
        kings = kq & KINGS_MASK
        queens = kq & QUEENS_MASK
        if kings:
            # Translators: {cards} is kings such as "K♠"; {why} a clause, "no one is close to going out".
            out.append(
                _("It keeps {cards} back while {why}: a king played opens a corner for the others' queens").format(
                    cards=cards_words(kings, fmt), why=why
                )
            )
        if queens:
            # Translators: {cards} is queens such as "Q♠"; {why} a clause, "no one is close to going out".
            out.append(
                _("It keeps {cards} back while {why}: a queen played gives the others a place").format(
                    cards=cards_words(queens, fmt), why=why
                )
            )
    rest = h & playable & ~(kq if held else 0)
    # Cards that would give the same cards a place are named together.
    giving: dict[int, int] = {}
    for c, o in opens.items():
        if (rest >> c) & 1 and o:
            giving[o] = giving.get(o, 0) | 1 << c
    for o, kept in sorted(giving.items(), key=lambda t: -t[1].bit_count())[:2]:
        # Translators: {cards} is the cards kept, counted by n; {others} the cards they would give a place.
        out.append(
            ngettext(
                "It keeps {cards}: played, it would give the next player a place for {others}",
                "It keeps {cards}: played, each would give the next player a place for {others}",
                kept.bit_count(),
            ).format(cards=cards_words(kept, fmt), others=cards_words(o, fmt, 2))
        )
    other = rest & ~sum(giving.values())
    if other:
        # Translators: {cards} is the cards kept, counted by n.
        out.append(
            ngettext(
                "It keeps {cards} for later: the planner scores playing it worse",
                "It keeps {cards} for later: the planner scores playing them worse",
                other.bit_count(),
            ).format(cards=cards_words(other, fmt))
        )
    return out


def _left_open(view: PlayerView, h: int, piles: PileTuple, fmt: CardFormat) -> str:
    """What the end of the plan leaves open to the next player."""
    fit, es, ec = open_mask(piles)
    unseen = view.unseen_mask
    places = (fit & unseen).bit_count()
    bits: list[str] = []
    if places:
        bits.append(ngettext("a place for {n} unseen card", "a place for {n} unseen cards", places).format(n=places))
    if es:
        bits.append(ngettext("an empty side", "{n} empty sides", es).format(n=es))
    if ec and unseen & KINGS_MASK:
        bits.append(ngettext("an empty corner for a king", "{n} empty corners for kings", ec).format(n=ec))
    if not bits:
        return _("It leaves the next player no place to play")
    things = bits[0]
    for thing in bits[1:]:
        # Translators: what is left open to the next player, "an empty side and 2 empty corners for kings".
        things = _("{things} and {thing}").format(things=things, thing=thing)
    # Translators: {things} is what is left open, "a place for 3 unseen cards and an empty side".
    return _("It leaves the next player {things}").format(things=things)
