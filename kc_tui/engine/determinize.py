"""Guesses of the hidden cards consistent with what one seat may see (R4).

A :class:`PlayerView` (defined in :mod:`.player_view`) is a frozen snapshot built from plain
values: it holds no reference to the round it came from, so nothing reachable from it exposes a
hidden card. This module builds on the round (:mod:`.state`); the round does not import it.
"""

from __future__ import annotations

from collections.abc import Callable

from . import rng as _rng
from .cards import Card, cards_of
from .player_view import PlayerView
from .state import Round

__all__ = ["determinize"]


def determinize(view: PlayerView, seed: int, allowed: Callable[[int, Card], bool] | None = None) -> Round:
    """A full round consistent with ``view``: own hand and the table as seen, the unseen cards
    dealt at random to the other hands (their sizes as seen) and the stock (its size as seen).

    ``allowed(seat, card)``, when given, says which unseen cards an opponent may plausibly
    hold (e.g. not a card it could have played); such cards are dealt to it first, the others
    only when there are not enough.  The guess is a new round: it shares nothing with the real one.
    """
    pool = cards_of(view.unseen_mask)
    state = _rng.shuffle(pool, _rng.seed_state(seed))
    hands = [0] * view.n_players
    hands[view.seat] = view.hand_mask
    for s in range(view.n_players):
        if s == view.seat:
            continue
        need = view.hand_sizes[s]
        if allowed is None:
            take = pool[:need]
        else:
            likely = [c for c in pool if allowed(s, c)]
            take = likely[:need]
            if len(take) < need:
                rest = [c for c in pool if c not in take]
                take += rest[: need - len(take)]
        for c in take:
            hands[s] |= 1 << c
        taken = set(take)
        pool = [c for c in pool if c not in taken]
    if allowed is not None:
        state = _rng.shuffle(pool, state)
    if len(pool) != view.stock_size:  # pragma: no cover - a view is always self-consistent
        raise ValueError("the view's counts do not add up to 52 cards")
    r = Round.from_parts(view.rules, hands, list(view.piles), pool, view.to_move, seed=state, dealer=view.dealer)
    r.idle_turns = view.idle_turns
    r.moved = view.moved_this_turn
    r.played_card = view.played_card_this_turn
    r.seen = view.seen_mask
    r.over = view.over
    r.winner = view.winner
    r.standing = view.standing
    if len(view.fines) == view.n_players:
        r.fines = list(view.fines)
    return r
