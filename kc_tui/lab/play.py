"""The tournament's games: one deal in one rotation of the seats, or one match seed played to
its end in one rotation, each giving a record of every seat entry's results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ai import make_player
from ai.safe import SafePlayer
from kc_tui.engine import END, Match, Move, Round, penalty_of, round_seed
from kc_tui.engine.rules import Scoring
from kc_tui.lab.options import TournamentOptions
from kc_tui.match.autoplay import OnMove, play_out

#: A match not over after this many rounds is stopped and counted as capped (a guard against a
#: runaway match; a very high ``target`` could reach it).
MAX_MATCH_ROUNDS = 1000


# ---------------------------------------------------------------------------------------- playing
@dataclass(kw_only=True)
class PlayFigures:
    """A seat entry's turns, moves, think times and faults over one round or one match."""

    turns: int
    moves: int
    think_s: float
    max_think_s: float
    faults: int


@dataclass(kw_only=True)
class SeatRecord(PlayFigures):
    """One seat entry's results in one round."""

    won: bool
    penalty: int


@dataclass
class DealRecord:
    deal: int
    rotation: int
    winner: int | None  # index into the seats list, or None for a block
    capped: bool
    seats: list[SeatRecord] = field(default_factory=list)


def player_seed(seed: int, deal: int, rotation: int, entry: int) -> int:
    return round_seed(seed * 7919 + entry, deal * 5 + rotation + 1)


@dataclass
class TurnTally:
    """Turns, moves and think times of each seat (numbered as the caller numbers them)."""

    turns: list[int]
    moves: list[int]
    think: list[float]
    slowest: list[float]

    @classmethod
    def zero(cls, n: int) -> TurnTally:
        return cls([0] * n, [0] * n, [0.0] * n, [0.0] * n)

    def counter(self, r: Round, seat_of: Sequence[int]) -> OnMove:
        """What :func:`~kc_tui.match.autoplay.play_out` calls after each move of round ``r``:
        round seat ``i``'s move counted at ``seat_of[i]`` (a turn ends with ``END``, or with the
        move that takes the player out)."""

        def count(rs: int, mv: Move, dt: float) -> None:
            s = seat_of[rs]
            self.think[s] += dt
            self.slowest[s] = max(self.slowest[s], dt)
            if mv == END:
                self.turns[s] += 1
            else:
                self.moves[s] += 1
                if r.over:
                    self.turns[s] += 1  # the turn in which it went out

        return count

    def of(self, s: int) -> dict[str, Any]:
        """Seat ``s``'s figures, as the records name them."""
        return {
            "turns": self.turns[s],
            "moves": self.moves[s],
            "think_s": self.think[s],
            "max_think_s": self.slowest[s],
        }


def seat_players(cfg: TournamentOptions, game: int, rotation: int, entry_at: Sequence[int]) -> list[SafePlayer]:
    """A new AI behind :class:`SafePlayer` at every seat ``s``: seat entry ``entry_at[s]``'s kind
    and settings, seeded from the tournament's seed, the deal (or match) ``game``, the rotation
    and the entry."""
    return [
        SafePlayer(make_player(cfg.kinds[j], player_seed(cfg.seed, game, rotation, j), **dict(cfg.params[j])))
        for j in entry_at
    ]


def play_round(cfg: TournamentOptions, deal: int, rotation: int) -> DealRecord:
    """Deal ``deal`` with seat entry ``j`` at table seat ``(j + rotation) % n``."""
    n = len(cfg.kinds)
    r = Round.deal(n, cfg.rules, round_seed(cfg.seed, deal + 1), dealer=deal % n)
    entry_at = [(t - rotation) % n for t in range(n)]  # table seat -> seat entry
    players = seat_players(cfg, deal, rotation, entry_at)
    for p in players:
        p.new_round()
    tally = TurnTally.zero(n)
    capped = play_out(r, players, max_turns=cfg.max_turns, on_move=tally.counter(r, range(n)))
    winner = None if capped or r.winner is None else entry_at[r.winner]
    rec = DealRecord(deal=deal, rotation=rotation, winner=winner, capped=capped)
    seat_of = {entry_at[t]: t for t in range(n)}
    for j in range(n):
        t = seat_of[j]
        rec.seats.append(
            SeatRecord(
                won=winner == j,
                penalty=penalty_of(r.hands[t]),
                faults=players[t].faults,
                **tally.of(t),
            )
        )
    return rec


def play_deals(cfg: TournamentOptions, deals: Sequence[int]) -> list[DealRecord]:
    """Every rotation of every deal in ``deals`` (run in a worker process)."""
    out = []
    for d in deals:
        for rot in range(len(cfg.kinds)):
            out.append(play_round(cfg, d, rot))
    return out


@dataclass(kw_only=True)
class MatchSeatRecord(PlayFigures):
    """One seat entry's results in one play of a match (one match seed in one rotation)."""

    #: The match seat the entry sat at: ``(entry + rotation) % n``.
    match_seat: int
    #: Its total when the match ended: penalty points (R15), or chips (R16).
    final: int
    #: Its R15 penalties summed over the rounds it played (in chips mode too).
    penalty: int
    #: Chips mode: its final chips less ``chips_start`` (0 in points mode).
    chips_won: int
    rounds_won: int


@dataclass
class MatchPlayRecord:
    """One match seed played to the end in one rotation of the seats."""

    match: int
    rotation: int
    #: The rounds played to their end (a capped match's stopped round is not counted).
    rounds: int
    #: Stopped: a round ran past ``--max-turns`` turns, or the match past :data:`MAX_MATCH_ROUNDS`.
    capped: bool
    #: The seat entries tied for the win (empty when capped).
    winners: list[int]
    seats: list[MatchSeatRecord] = field(default_factory=list)


def match_seed(seed: int, match: int) -> int:
    """The seed of match number ``match`` (0, 1, ...): from ``--seed`` and ``match`` only."""
    return round_seed(seed, match + 1)


def play_match(cfg: TournamentOptions, match: int, rotation: int) -> MatchPlayRecord:
    """Match ``match`` to its end with seat entry ``j`` at match seat ``(j + rotation) % n``."""
    n = len(cfg.kinds)
    m = Match(n, cfg.rules, match_seed(cfg.seed, match))
    entry_at = [(s - rotation) % n for s in range(n)]  # match seat -> seat entry
    seat_of = [(j + rotation) % n for j in range(n)]  # seat entry -> match seat
    players = seat_players(cfg, match, rotation, entry_at)
    tally = TurnTally.zero(n)  # per match seat
    capped = False
    while not m.over:
        if len(m.results) >= MAX_MATCH_ROUNDS:
            capped = True
            break
        for s in m.seats:
            players[s].new_round()
        r = m.round
        capped = play_out(r, [players[s] for s in m.seats], max_turns=cfg.max_turns, on_move=tally.counter(r, m.seats))
        if capped:
            break
        m.finish_round()
    totals = m.totals
    chips = cfg.rules.scoring == Scoring.CHIPS
    rec = MatchPlayRecord(
        match=match,
        rotation=rotation,
        rounds=len(m.results),
        capped=capped,
        winners=[] if capped else sorted(entry_at[s] for s in m.winners),
    )
    for j in range(n):
        s = seat_of[j]
        rec.seats.append(
            MatchSeatRecord(
                match_seat=s,
                final=totals[s],
                penalty=sum(res.penalties[s] for res in m.results),
                chips_won=totals[s] - cfg.rules.chips_start if chips else 0,
                rounds_won=sum(1 for res in m.results if res.winner == s),
                faults=players[s].faults,
                **tally.of(s),
            )
        )
    return rec


def play_matches(cfg: TournamentOptions, matches: Sequence[int]) -> list[MatchPlayRecord]:
    """Every rotation of every match seed in ``matches`` (run in a worker process)."""
    return [play_match(cfg, k, rot) for k in matches for rot in range(len(cfg.kinds))]
