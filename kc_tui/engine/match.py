"""A match: rounds one after another, the deal passing clockwise (R5), scored by penalty
points to a target (R15) or by chips (R16)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import rng as _rng
from .moves import Move
from .rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from .state import Round


@dataclass(frozen=True, slots=True)
class RoundResult:
    """How one round ended, in match seats."""

    number: int
    dealer: int
    seats: tuple[int, ...]
    winner: int | None
    #: R15 penalty of every match seat (0 for a seat that sat the round out).
    penalties: tuple[int, ...]
    #: Chips won or lost by every match seat this round (chips scoring only).
    chips_delta: tuple[int, ...]
    #: Every player's total after the round: points, or chips.
    totals: tuple[int, ...]

    @property
    def blocked(self) -> bool:
        return self.winner is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "dealer": self.dealer,
            "seats": list(self.seats),
            "winner": self.winner,
            "penalties": list(self.penalties),
            "chips_delta": list(self.chips_delta),
            "totals": list(self.totals),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RoundResult:
        return cls(
            number=int(d["number"]),
            dealer=int(d["dealer"]),
            seats=tuple(int(x) for x in d["seats"]),
            winner=None if d["winner"] is None else int(d["winner"]),
            penalties=tuple(int(x) for x in d["penalties"]),
            chips_delta=tuple(int(x) for x in d["chips_delta"]),
            totals=tuple(int(x) for x in d["totals"]),
        )


def round_seed(match_seed: int, number: int) -> int:
    """The seed of round ``number`` (1, 2, ...) of a match."""
    _, value = _rng.next_u64(_rng.seed_state(match_seed * 1_000_003 + number))
    return value & ((1 << 62) - 1)


class Match:
    """Rounds to the end of the match. ``round`` is the round being played."""

    def __init__(self, n_players: int, rules: Rules | None = None, seed: int = 0, *, first_dealer: int | None = None):
        if not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
            raise ValueError(f"Kings Corners takes {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n_players} (R1)")
        self.rules = rules or Rules()
        self.n = n_players
        self.seed = seed
        if first_dealer is None:
            _, first_dealer = _rng.below(n_players, _rng.seed_state(seed ^ 0x5EED))  # R5: random first dealer
        self.dealer = first_dealer
        self.points = [0] * n_players
        self.chips = [self.rules.chips_start] * n_players if self.chips_scoring else [0] * n_players
        self.pot = 0
        self.out = [False] * n_players
        self.first_dealer = first_dealer
        self.results: list[RoundResult] = []
        self.round_moves: list[list[Move]] = []
        self.over = False
        self.winners: list[int] = []
        self.seats: list[int] = []
        self.round: Round = self._start_round()

    @property
    def chips_scoring(self) -> bool:
        return self.rules.scoring == "chips"

    @property
    def number(self) -> int:
        """The number of the round being played (1, 2, ...)."""
        return len(self.results) + 1

    @property
    def totals(self) -> list[int]:
        return list(self.chips if self.chips_scoring else self.points)

    def _start_round(self) -> Round:
        self.seats = [s for s in range(self.n) if not self.out[s]]
        if self.chips_scoring:  # R16: everyone antes one chip
            for s in self.seats:
                paid = min(1, self.chips[s])
                self.chips[s] -= paid
                self.pot += paid
        dealer_index = self.seats.index(self.dealer)
        return Round.deal(len(self.seats), self.rules, round_seed(self.seed, self.number), dealer_index)

    def match_seat(self, round_seat: int) -> int:
        return self.seats[round_seat]

    def round_seat(self, match_seat: int) -> int | None:
        return self.seats.index(match_seat) if match_seat in self.seats else None

    def finish_round(self) -> RoundResult:
        """Score the finished round (R15/R16) and start the next one unless the match is over."""
        r = self.round
        if not r.over:
            raise ValueError("the round is not over yet")
        if self.over:
            raise ValueError("the match is over")
        penalties = [0] * self.n
        for i, s in enumerate(self.seats):
            penalties[s] = r.penalties()[i]
        winner = None if r.winner is None else self.seats[r.winner]
        before = list(self.chips)
        if self.chips_scoring:
            self._settle_chips(r, winner, penalties)
        else:
            for s in self.seats:
                self.points[s] += penalties[s]
        delta = tuple(self.chips[s] - before[s] for s in range(self.n)) if self.chips_scoring else (0,) * self.n
        result = RoundResult(
            number=self.number,
            dealer=self.dealer,
            seats=tuple(self.seats),
            winner=winner,
            penalties=tuple(penalties),
            chips_delta=delta,
            totals=tuple(self.totals),
        )
        self.results.append(result)
        self.round_moves.append(self.replay_moves())
        self._check_match_end()
        if not self.over:
            self.dealer = self._next_dealer()
            self.round = self._start_round()
        return result

    def _settle_chips(self, r: Round, winner: int | None, penalties: list[int]) -> None:
        for i, s in enumerate(self.seats):
            owed = r.fines[i]  # R16: one chip per turn ended without playing a card
            if self.rules.chips_per_card and s != winner:
                owed += penalties[s]
            paid = min(owed, self.chips[s])
            self.chips[s] -= paid
            self.pot += paid
        if winner is not None:  # after a block the pot stays for the next round
            self.chips[winner] += self.pot
            self.pot = 0
        for s in self.seats:
            if self.chips[s] <= 0:
                self.out[s] = True  # cannot pay: out of the match (project choice)

    def _check_match_end(self) -> None:
        if self.chips_scoring:
            holders = [s for s in range(self.n) if not self.out[s]]
            if len(holders) <= 1 or len(self.results) >= self.rules.chips_rounds:
                self.over = True
                best = max(self.chips)
                self.winners = [s for s in range(self.n) if self.chips[s] == best]
        elif any(t >= self.rules.target for t in self.points):
            self.over = True
            best = min(self.points)
            self.winners = [s for s in range(self.n) if self.points[s] == best]

    def _next_dealer(self) -> int:
        for k in range(1, self.n + 1):
            s = (self.dealer + k) % self.n
            if not self.out[s]:
                return s
        return self.dealer  # pragma: no cover - the match ends before no one is left

    # ------------------------------------------------------------------ saving
    def to_dict(self) -> dict[str, Any]:
        """The match as its seed and every round's moves: replaying them rebuilds it exactly."""
        return {
            "n_players": self.n,
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "first_dealer": self.first_dealer,
            "rounds": [list(ms) for ms in self.round_moves] + [self.replay_moves()],
            "results": [res.to_dict() for res in self.results],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Match:
        """Rebuild a match by replaying every round from the seed; raise ValueError when the
        record does not replay (a move is illegal, or a finished round does not end)."""
        try:
            rules = Rules.from_dict(d["rules"])
            m = cls(int(d["n_players"]), rules, int(d["seed"]), first_dealer=int(d["first_dealer"]))
            rounds = d["rounds"]
            if not isinstance(rounds, list) or not rounds:
                raise ValueError("no rounds recorded")
            for k, moves in enumerate(rounds):
                if m.over:
                    # A finished match's record repeats its last round as the "current" one (to_dict).
                    if k != len(rounds) - 1 or [int(x) for x in moves] != m.round_moves[-1]:
                        raise ValueError(f"round {k + 1} is recorded after the match ended")
                    break
                for mv in moves:
                    m.round.apply(int(mv))
                if k < len(rounds) - 1:
                    if not m.round.over:
                        raise ValueError(f"round {k + 1} does not end with its recorded moves")
                    m.finish_round()
        except (KeyError, TypeError) as exc:
            raise ValueError(f"the match record is incomplete ({exc})") from None
        return m

    def replay_moves(self) -> list[Move]:
        """The current round's moves so far."""
        return [m for _, m in self.round.history]
