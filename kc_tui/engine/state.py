"""One round of Kings Corners: the state, its legal moves (from :mod:`.legal`), and applying them.

The state is mutable (``apply`` changes it in place, like OpenSpiel's ``apply_action``);
``clone()`` is a cheap copy: hands are int masks, piles are tuples, the random generator
is one int and the history a shared linked list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from kc_tui.i18n import _

from . import rng as _rng
from .cards import ALL_CARDS, Card, card_str, cards_of, is_king, penalty_of, sort_for_hand
from .legal import PILE_FULL, Pile, empty_place_takes, explain_illegal, generate_moves
from .moves import END, MOVE_BASE, PLACES, Move, move_str
from .player_view import PlayerView, Standing
from .rules import MAX_PLAYERS, MIN_PLAYERS, Draw, LayoutKings, OutWithOpenSide, Rules

# The move rules live in .legal and the seat's view in .player_view (neither imports this module,
# so there is no import cycle); their names stay importable from here.
__all__ = [
    "PILE_FULL",
    "IllegalMove",
    "MoveChain",
    "Pile",
    "PlayerView",
    "Round",
    "RoundOver",
    "empty_place_takes",
    "explain_illegal",
    "generate_moves",
]

#: The moves of a round as a shared linked list: (seat, move, previous) or None.
MoveChain = tuple[int, Move, "MoveChain"] | None


class IllegalMove(ValueError):
    """A move the rules do not allow here; the state is unchanged."""


class RoundOver(IllegalMove):
    """No move can be made: the round has ended."""


class Round:
    """The full state of one round. Only the engine and trusted code hold one; players get views."""

    __slots__ = (
        "_closed",
        "_kos",
        "dealer",
        "drawn",
        "drew",
        "extra",
        "fines",
        "hands",
        "hist",
        "idle_turns",
        "last_drawn",
        "moved",
        "n",
        "over",
        "piles",
        "played_card",
        "player_meta",
        "rng",
        "rules",
        "seen",
        "standing",
        "stock",
        "to_move",
        "winner",
    )

    rules: Rules
    n: int
    hands: list[int]
    piles: list[Pile]
    stock: list[Card]  # top card LAST
    to_move: int
    dealer: int
    drawn: bool
    idle_turns: int
    moved: bool
    played_card: bool
    drew: bool
    rng: int
    over: bool
    winner: int | None
    hist: MoveChain
    last_drawn: list[int]
    fines: list[int]
    seen: int
    #: Keys of the position file that the engine does not use, kept as read (written back).
    extra: dict[str, Any]
    #: Per seat, the position file's player object without its hand (the name and any other keys).
    player_meta: list[dict[str, Any]]
    #: The match around the round, public to all (set by :class:`~kc_tui.engine.Match`).
    standing: Standing | None
    _kos: bool
    _closed: bool

    # ------------------------------------------------------------------ creation
    @classmethod
    def deal(cls, n_players: int, rules: Rules | None = None, seed: int = 0, dealer: int = 0) -> Round:
        """Shuffle with ``seed``, deal (R2), lay out (R3) and start the first turn (R5, R6)."""
        rules = rules or Rules()
        if not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
            raise ValueError(f"Kings Corners takes {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n_players} (R1)")
        if not 0 <= dealer < n_players:
            raise ValueError(f"dealer seat {dealer} is out of range for {n_players} players")
        if rules.hand_size * n_players + 4 > len(ALL_CARDS):
            raise ValueError("not enough cards for that many players and that hand size")
        r = cls._blank(n_players, rules)
        deck = list(ALL_CARDS)
        r.rng = _rng.shuffle(deck, _rng.state_of(seed))
        deck.reverse()  # deck[-1] is the top card; pop() deals from the top
        r.dealer = dealer
        hands = [0] * n_players
        for _deal in range(rules.hand_size):  # R2: one at a time, clockwise from the dealer's left
            for k in range(1, n_players + 1):
                hands[(dealer + k) % n_players] |= 1 << deck.pop()
        r.hands = hands
        piles: list[Pile] = [(), (), (), (), (), (), (), ()]
        for side in range(4):  # R3
            piles[side] = (deck.pop(),)
        if rules.layout_kings == LayoutKings.TO_CORNER:
            corner = 4
            changed = True
            while changed:
                changed = False
                for side in range(4):
                    while piles[side] and is_king(piles[side][0]) and corner < 8:
                        piles[corner] = piles[side]
                        corner += 1
                        piles[side] = (deck.pop(),) if deck else ()
                        changed = True
        r.piles = piles
        r.stock = deck
        r.seen = 0
        for p in piles:
            for c in p:
                r.seen |= 1 << c
        r.to_move = (dealer + 1) % n_players  # R5
        r._begin_turn()
        return r

    @classmethod
    def _blank(cls, n_players: int, rules: Rules) -> Round:
        r = cls.__new__(cls)
        r.rules = rules
        r.n = n_players
        r.hands = [0] * n_players
        r.piles = [(), (), (), (), (), (), (), ()]
        r.stock = []
        r.to_move = 0
        r.dealer = 0
        r.drawn = True
        r.idle_turns = 0
        r.moved = False
        r.played_card = False
        r.drew = False
        r.rng = _rng.seed_state(0)
        r.over = False
        r.winner = None
        r.hist = None
        r.last_drawn = [-1] * n_players
        r.fines = [0] * n_players
        r.seen = 0
        r.extra = {}
        r.player_meta = []
        r.standing = None
        r._kos = rules.kings_on_sides_allowed
        r._closed = rules.completed_piles_stay
        return r

    @classmethod
    def from_parts(
        cls,
        rules: Rules,
        hands: list[int],
        piles: list[Pile],
        stock_top_first: list[Card],
        to_move: int,
        *,
        drawn: bool = True,
        idle_turns: int = 0,
        seed: int = 0,
        dealer: int | None = None,
        moved: bool = False,
        played_card: bool = False,
        drew: bool = False,
    ) -> Round:
        """A position built from its parts (as a position file gives them).

        ``moved``, ``played_card`` and ``drew`` say what the turn in progress has already done.
        A turn that has moved or drawn is not idle, so it cannot complete a block (R14) before
        it ends: only a position at the start of a turn, after ``idle_turns`` idle turns with
        the stock empty, is a blocked round.
        """
        n = len(hands)
        r = cls._blank(n, rules)
        r.hands = list(hands)
        r.piles = [tuple(p) for p in piles]
        r.stock = list(reversed(stock_top_first))
        r.to_move = to_move
        r.dealer = (to_move - 1) % n if dealer is None else dealer
        r.drawn = drawn
        r.idle_turns = idle_turns
        r.rng = _rng.seed_state(seed)
        r.moved = moved
        r.played_card = played_card
        r.drew = drew
        for p in r.piles:
            for c in p:
                r.seen |= 1 << c
        if not (moved or drew) and r._check_block():
            return r  # a blocked round (R14) begins no turn: ``drawn`` stays as written
        if not drawn:
            r._begin_turn()
        return r

    def clone(self) -> Round:
        r = Round.__new__(Round)
        r.rules = self.rules
        r.n = self.n
        r.hands = self.hands[:]
        r.piles = self.piles[:]
        r.stock = self.stock[:]
        r.to_move = self.to_move
        r.dealer = self.dealer
        r.drawn = self.drawn
        r.idle_turns = self.idle_turns
        r.moved = self.moved
        r.played_card = self.played_card
        r.drew = self.drew
        r.rng = self.rng
        r.over = self.over
        r.winner = self.winner
        r.hist = self.hist
        r.last_drawn = self.last_drawn[:]
        r.fines = self.fines[:]
        r.seen = self.seen
        r.extra = self.extra
        r.player_meta = self.player_meta
        r.standing = self.standing
        r._kos = self._kos
        r._closed = self._closed
        return r

    # ------------------------------------------------------------------ queries
    def legal_moves(self) -> list[Move]:
        """Every legal move of the player to move, ``END`` last; empty once the round is over."""
        if self.over:
            return []
        return generate_moves(self.hands[self.to_move], self.piles, self._kos, self._closed)

    def is_legal(self, m: Move) -> bool:
        return not self.over and explain_illegal(self.hands[self.to_move], self.piles, self.rules, m) is None

    def why_illegal(self, m: Move, fmt: Callable[[Card], str] = card_str) -> str | None:
        if self.over:
            return _("the round is over")
        return explain_illegal(self.hands[self.to_move], self.piles, self.rules, m, fmt)

    def hand(self, seat: int) -> list[Card]:
        return sort_for_hand(cards_of(self.hands[seat]))

    def hand_sizes(self) -> list[int]:
        return [h.bit_count() for h in self.hands]

    def penalties(self) -> list[int]:
        """R15: each hand's penalty (10 a king, 1 any other card)."""
        return [penalty_of(h) for h in self.hands]

    @property
    def history(self) -> list[tuple[int, Move]]:
        """Every move made this round as (seat, move), oldest first."""
        out: list[tuple[int, Move]] = []
        node = self.hist
        while node is not None:
            out.append((node[0], node[1]))
            node = node[2]
        out.reverse()
        return out

    @property
    def blocked(self) -> bool:
        return self.over and self.winner is None

    def stock_top_first(self) -> list[Card]:
        return self.stock[::-1]

    def card_count(self) -> int:
        return sum(h.bit_count() for h in self.hands) + len(self.stock) + sum(len(p) for p in self.piles)

    def view(self, seat: int) -> PlayerView:
        """Exactly what ``seat`` may see (R4)."""
        if not 0 <= seat < self.n:
            raise ValueError(f"seat {seat} is out of range for {self.n} players")
        drawn = self.last_drawn[seat]
        return PlayerView(
            seat=seat,
            n_players=self.n,
            rules=self.rules,
            hand_mask=self.hands[seat],
            piles=tuple(self.piles),
            hand_sizes=tuple(h.bit_count() for h in self.hands),
            stock_size=len(self.stock),
            to_move=self.to_move,
            dealer=self.dealer,
            idle_turns=self.idle_turns,
            moved_this_turn=self.moved,
            played_card_this_turn=self.played_card,
            last_drawn=None if drawn < 0 else drawn,
            seen_mask=self.seen,
            history=tuple(self.history),
            over=self.over,
            winner=self.winner,
            standing=self.standing,
            fines=tuple(self.fines),
        )

    # ------------------------------------------------------------------ moves
    def apply(self, m: Move) -> None:
        """Make move ``m`` for the player to move. An illegal move raises and changes nothing."""
        if self.over:
            raise RoundOver("the round is over: no more moves")
        if m == END:
            self.hist = (self.to_move, m, self.hist)
            self._end_turn()
            return
        seat = self.to_move
        reason = explain_illegal(self.hands[seat], self.piles, self.rules, m)
        if reason is not None:
            if reason.startswith("not a move"):
                raise IllegalMove(reason)
            raise IllegalMove(f"{move_str(m)}: {reason}")
        self.hist = (seat, m, self.hist)
        self.moved = True
        piles = self.piles
        if m < MOVE_BASE:
            card, dst = m >> 3, m & 7
            self.hands[seat] ^= 1 << card
            piles[dst] = piles[dst] + (card,)
            self.seen |= 1 << card
            self.played_card = True
        else:
            src, dst = (m - MOVE_BASE) >> 3, m & 7
            piles[dst] = piles[dst] + piles[src]
            piles[src] = ()
        if len(piles[dst]) == PILE_FULL and not self._closed:
            self._complete(dst)
        if not self.hands[seat]:
            self._hand_emptied(seat)

    def apply_text(self, text: str) -> None:
        from .moves import parse_move

        self.apply(parse_move(text))

    def child(self, m: Move) -> Round:
        c = self.clone()
        c.apply(m)
        return c

    # ------------------------------------------------------------------ internals
    def _draw(self, seat: int) -> bool:
        if not self.stock:
            return False
        card = self.stock.pop()
        self.hands[seat] |= 1 << card
        self.last_drawn[seat] = card
        self.drew = True
        return True

    def _complete(self, place: int) -> None:
        """R12 to_stock: a finished K..A pile is shuffled into the stock; its place empties."""
        cards = list(self.piles[place])
        self.piles[place] = ()
        self.stock.extend(cards)
        self.rng = _rng.shuffle(self.stock, self.rng)

    def _hand_emptied(self, seat: int) -> None:
        """R13: going out ends the round, unless draw3 applies."""
        side_open = any(not self.piles[s] for s in range(4))
        if self.rules.out_with_open_side == OutWithOpenSide.DRAW3 and self.stock and side_open:
            for _draw in range(3):
                self._draw(seat)
            return
        self.over = True
        self.winner = seat

    def _end_turn(self) -> None:
        seat = self.to_move
        if self.rules.draw == Draw.END:
            self._draw(seat)  # R6 end: everyone draws one after playing (or not)
        if not self.played_card:
            self.fines[seat] += 1  # R16: a turn without a card played from hand
        if self.moved or self.drew:
            self.idle_turns = 0
        else:
            self.idle_turns += 1
        self.to_move = (seat + 1) % self.n
        self.moved = self.played_card = self.drew = False
        self.drawn = False
        if self._check_block():
            return
        self._begin_turn()

    def _check_block(self) -> bool:
        """R14: the stock is empty and a full circle of turns passed with no move."""
        if not self.stock and self.idle_turns >= self.n:
            self.over = True
            self.winner = None
            return True
        return False

    def _begin_turn(self) -> None:
        seat = self.to_move
        draw = self.rules.draw
        if draw == Draw.START:
            self._draw(seat)
        elif draw == Draw.WHEN_STUCK:
            while self.stock and len(generate_moves(self.hands[seat], self.piles, self._kos, self._closed)) == 1:
                self._draw(seat)
        self.drawn = True

    # ------------------------------------------------------------------ replay
    @classmethod
    def replay(cls, n_players: int, rules: Rules, seed: int, dealer: int, moves: Iterable[Move]) -> Round:
        """Deal with ``seed`` and play ``moves``: the same round, card for card."""
        r = cls.deal(n_players, rules, seed, dealer)
        for m in moves:
            r.apply(m)
        return r

    def __repr__(self) -> str:
        piles = " ".join(f"{PLACES[i]}:{'-'.join(card_str(c) for c in p)}" for i, p in enumerate(self.piles) if p)
        return f"<Round seat {self.to_move} to move, stock {len(self.stock)}, {piles}>"
