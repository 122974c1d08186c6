"""Whole-round inference: the piles at every past end of a turn rebuilt from the history, the
cards each opponent showed it did not hold (kept until its draws since allow them back), and
deals that respect them while staying consistent with the view."""

from __future__ import annotations

from collections.abc import Iterator

from ai import make_player
from ai.players.expert import ExpertAI
from ai.search.inference import (
    Pass,
    allowed_for,
    completions,
    deal_hands,
    last_turns,
    passes,
    playable,
    turn_end_positions,
)
from ai.search.planning import KQ_MASK
from kc_tui.engine import END, PlayerView, Round, Rules, determinize
from kc_tui.engine.moves import MOVE_BASE
from kc_tui.engine.rules import KingsOnSides

from .helpers import VARIANTS, midround_positions

STAY = Rules(completed_piles="stay")


class Played:
    """A round played by greedy players, with what the tests check against: the cards playable
    at each end of a turn, each seat's hand size then, and the piles completed so far."""

    def __init__(self, n: int, rules: Rules, seed: int, kind: str = "greedy") -> None:
        self.r = Round.deal(n, rules, seed, dealer=seed % n)
        self.players = [make_player(kind, seed + s) for s in range(n)]
        self.kos = rules.kings_on_sides == KingsOnSides.ALLOW
        self.playable: dict[int, int] = {}
        self.size_at: dict[int, int] = {}
        self.piles_at: dict[int, tuple[tuple[int, ...], ...]] = {}
        #: Each seat's hand at the start of its latest turn (after its draw).
        self.began_with: dict[int, int] = {}
        self.completed = 0

    def turn_starts(self, limit: int = 300) -> Iterator[PlayerView]:
        """The view of the player to move at the start of every turn, until the round ends."""
        r = self.r
        turns = 0
        while not r.over and turns < limit:
            v = r.view(r.to_move)
            if not v.moved_this_turn:
                self.began_with[r.to_move] = v.hand_mask
                yield v
            m = self.players[r.to_move].choose(v)
            if m == END:
                self.playable[len(r.history)] = playable(tuple(r.piles), self.kos)
                self.size_at[len(r.history)] = r.hands[r.to_move].bit_count()
                self.piles_at[len(r.history)] = tuple(r.piles)
                turns += 1
            before = [len(p) for p in r.piles]
            r.apply(m)
            if m != END and before[m & 7] and not r.piles[m & 7]:
                self.completed += 1

    def drawn_since(self, view: PlayerView, seat: int, index: int) -> int:
        """The cards ``seat`` really drew after its end of a turn at ``index``."""
        plays = sum(1 for s, m in view.history[index + 1 :] if s == seat and m < MOVE_BASE)
        return view.hand_sizes[seat] - self.size_at[index] + plays


def test_the_rebuilt_positions_are_the_real_ones() -> None:
    checked = rebuilt = total = 0
    for i, rules in enumerate(VARIANTS[::3]):
        for k in range(3):
            game = Played(2 + k, rules, 40 + 13 * i + k)
            for v in game.turn_starts():
                known = turn_end_positions(v)
                ends = [j for j, (_s, m) in enumerate(v.history) if m == END]
                if rules.completed_piles == "stay":
                    assert sorted(known) == ends  # nothing leaves the table: every end is rebuilt
                rebuilt += len(known)
                total += len(ends)
                for j, mask in known.items():
                    assert mask & ~game.playable[j] == 0  # never a card that was not playable
                    checked += mask == game.playable[j]
    assert checked > 500
    assert rebuilt >= 0.95 * total


def test_the_ends_before_a_completed_pile_are_rebuilt() -> None:
    """A pile completed and shuffled into the stock is rebuilt as ranks and colours, so the ends
    of a turn before it are still known (and still never claim a card that was not playable)."""
    before = 0
    for seed in range(40):
        game = Played(2 + seed % 3, Rules(), 900 + seed)
        for v in game.turn_starts():
            if not game.completed:
                continue
            known = turn_end_positions(v)
            first = next(j for j, (_s, m) in enumerate(v.history) if m == END)
            if first in known:
                assert known[first] & ~game.playable[first] == 0
                before += 1
    assert before > 20


def test_the_completed_piles_are_counted_from_the_cards() -> None:
    seen = 0
    for seed in range(40):
        game = Played(2 + seed % 3, Rules(), 900 + seed)
        for v in game.turn_starts():
            assert completions(v) == game.completed
            seen += game.completed > 0
        assert completions(game.r.view(0)) == game.completed
    assert seen > 0, "the test needs a completed pile"


def test_a_greedy_opponent_holds_no_more_of_a_pass_than_it_drew_since() -> None:
    """Greedy plays every card it can, so a pass is true of it; with nothing leaving the table the
    allowance is exactly the cards it drew since."""
    checked = 0
    for i, rules in enumerate((STAY, Rules(), *VARIANTS[::5])):
        for k in range(4):
            game = Played(2 + k % 3, rules, 300 + 11 * i + k)
            for v in game.turn_starts():
                for p in passes(v):
                    assert p.seat != v.seat
                    assert p.absent & ~v.unseen_mask == 0  # only cards it cannot see
                    assert (game.r.hands[p.seat] & p.absent).bit_count() <= p.allowance
                    if rules == STAY:
                        assert p.allowance == game.drawn_since(v, p.seat, p.index)
                    checked += 1
    assert checked > 300


def test_a_pass_is_forgotten_only_when_the_seat_drew_as_many_of_its_cards() -> None:
    dropped = 0
    for seed in range(30):
        game = Played(3, STAY, 70 + seed)
        me = seed % 3
        before: dict[tuple[int, int], Pass] = {}
        for v in game.turn_starts():
            if v.seat != me:
                continue
            now = {(p.seat, p.index): p for p in passes(v)}
            for key, old in before.items():
                if key in now:
                    assert now[key].allowance >= old.allowance
                    assert now[key].absent & ~old.absent == 0
                else:
                    left = (old.absent & v.unseen_mask).bit_count()
                    assert game.drawn_since(v, key[0], key[1]) >= left
                    dropped += 1
            before = now
    assert dropped > 0, "the test needs a pass forgotten"


def test_kings_and_queens_count_at_three_and_four_seats_only() -> None:
    kq = {2: 0, 3: 0, 4: 0}
    for k in range(24):
        n = 2 + k % 3
        game = Played(n, Rules(), 600 + k)
        for v in game.turn_starts():
            for p in passes(v):
                kq[n] += bool(p.absent & KQ_MASK)
            if n == 2:
                assert all(p.absent & KQ_MASK == 0 for p in passes(v))
                forced = passes(v, kings_and_queens=True)
                kq[2] += any(p.absent & KQ_MASK for p in forced)
    assert kq[3] > 0 and kq[4] > 0
    assert kq[2] > 0  # only when asked for


def test_the_deals_keep_the_view_and_every_pass_the_cards_allow() -> None:
    for i, (r, seat) in enumerate(midround_positions(30, seed=21)):
        v = r.view(seat)
        first = (seat + 1) % v.n_players
        spare = v.unseen_mask.bit_count() - v.hand_sizes[first]
        cards = [c for c in range(52) if v.unseen_mask >> c & 1][: max(0, spare)]
        absent = sum(1 << c for c in cards)
        kept = deal_hands(v, [Pass(first, 0, absent, 0)], i)
        assert kept[first] & absent == 0  # the first opponent is dealt first: always kept
        hands = deal_hands(v, [Pass(first, 0, absent, 0), *passes(v)], i)
        assert hands[seat] == v.hand_mask
        total = 0
        for s in range(v.n_players):
            assert hands[s].bit_count() == v.hand_sizes[s]
            if s != seat:
                assert hands[s] & ~v.unseen_mask == 0
                assert total & hands[s] == 0
                total |= hands[s]
        d = determinize(v, i, allowed_for(hands))
        assert d.hands == hands
        assert len(d.stock) == v.stock_size and tuple(d.piles) == v.piles
        assert {c for c in d.stock} == {c for c in range(52) if (v.unseen_mask & ~total) >> c & 1}


def test_the_expert_with_round_inference_is_deterministic_and_legal() -> None:
    for i in range(6):
        game = Played(3 + i % 2, Rules(), 800 + i, kind="king-aware")
        views = list(game.turn_starts(limit=8 + i))
        v = views[-1]
        a = make_player("expert", i, iterations=4, round_infer=True)
        b = make_player("expert", i, iterations=4, round_infer=True)
        assert isinstance(a, ExpertAI) and isinstance(b, ExpertAI)
        plan = a.plan_turn(v, v.legal_moves())
        assert plan == b.plan_turn(v, v.legal_moves())
        assert a.choose(v) in v.legal_moves()


def test_the_opponents_last_turns_are_the_real_ones() -> None:
    checked = 0
    for k in range(12):
        game = Played(2 + k % 3, Rules(), 1200 + k)
        for v in game.turn_starts():
            turns = last_turns(v)
            assert len({t.seat for t in turns}) == len(turns)
            for t in turns:
                assert t.seat != v.seat
                e = max(j for j, (s, m) in enumerate(v.history) if s == t.seat and m == END)
                a = max(j for j, (_s, m) in enumerate(v.history[:e]) if m == END)
                assert (t.before, t.after) == (game.piles_at[a], game.piles_at[e])
                # Its hand now and what it played then: the hand it decided on.
                assert game.r.hands[t.seat] | t.played == game.began_with[t.seat]
                checked += 1
    assert checked > 100
    assert last_turns(Played(3, Rules(draw="end"), 5).r.view(0)) == []


def test_deals_like_the_real_hands_weigh_more_than_random_ones() -> None:
    """King-aware opponents play the turns the expert's simulated planner would on their real
    hands far more often than on hands dealt at random."""
    real = guessed = 0.0
    for k in range(10):
        game = Played(4, Rules(), 1400 + k, kind="king-aware")
        expert = ExpertAI(k, weigh_turns=True)
        for v in game.turn_starts(limit=40):
            expert.prepare_deals(v)
            w = expert.turn_weight(game.r, v)
            assert 0.0 < w <= 1.0
            real += w
            guessed += sum(expert.turn_weight(determinize(v, 9 + j), v) for j in range(2)) / 2
    assert real > 1.5 * guessed


def test_the_expert_weighing_turns_is_deterministic_and_legal() -> None:
    for i in range(4):
        game = Played(4, Rules(), 1500 + i, kind="king-aware")
        v = list(game.turn_starts(limit=10 + i))[-1]
        a, b = (ExpertAI(i, iterations=4, round_infer=True, weigh_turns=True) for _ in range(2))
        assert a.plan_turn(v, v.legal_moves()) == b.plan_turn(v, v.legal_moves())
        assert a.choose(v) in v.legal_moves()


def test_without_round_kq_the_expert_counts_no_king_or_queen() -> None:
    seen = 0
    for k in range(6):
        game = Played(4, Rules(), 1600 + k)
        for v in game.turn_starts():
            expert = ExpertAI(k, round_infer=True, round_kq=False)
            expert.prepare_deals(v)
            assert expert._passes is not None
            assert all(p.absent & KQ_MASK == 0 for p in expert._passes)
            seen += any(p.absent & KQ_MASK for p in passes(v))
    assert seen > 0, "the test needs a pass with a king or queen"
