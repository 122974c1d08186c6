"""A match played to its end by AIs through the engine and recorded as the game records it: the
one builder of realistic history records for the history, replay and statistics tests and the
Stats benchmark; and the fixed AI ratings the statistics tests rate players against."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

import ai
from kc_tui.engine import Match, Rules
from kc_tui.match.autoplay import play_out
from kc_tui.records.rating import Rating
from kc_tui.records.rows import MatchRecord, RoundRecord, SeatInfo

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
#: Fixed AI ratings, so a player's rating and its plot do not move with the shipped file.
ANCHORS = {
    "random": Rating("random", 620.0, 30.0),
    "greedy": Rating("greedy", 1000.0, 0.0),
    "king-aware": Rating("king-aware", 1090.0, 25.0),
    "lookahead": Rating("lookahead", 1180.0, 25.0),
    "expert": Rating("expert", 1290.0, 30.0),
}


def _none(_number: int) -> int:
    return 0


def play_recorded(
    kinds: Sequence[str],
    seed: int,
    rules: Rules | None = None,
    *,
    human: int | None = 0,
    start: datetime = T0,
    minutes_per_round: int = 1,
    player_seed: int = 7,
    hints: Callable[[int], int] = _none,
    undos: Callable[[int], int] = _none,
    seat_name: Callable[[int, str], str] = lambda _i, kind: kind.title(),
    think_ms: int = 500,
    max_moves: int = 20_000,
) -> MatchRecord:
    """The match of AIs ``kinds`` from match seed ``seed`` (AI ``i`` seeded ``seed * player_seed
    + i``), every round recorded with its moves: seat ``human`` as the human (None: a demo), round
    ``n`` played at ``start + n * minutes_per_round`` minutes with ``hints(n)`` and ``undos(n)``.
    Its record as :meth:`History.match` gives it back (id 0). RuntimeError when it does not end."""
    rules = rules or Rules()
    m = Match(len(kinds), rules, seed)
    players = [ai.make_player(k, seed * player_seed + i) for i, k in enumerate(kinds)]
    rounds: list[RoundRecord] = []
    while not m.over:
        for p in players:
            p.new_round()
        r = m.round
        if play_out(r, [players[s] for s in m.seats], max_moves=max_moves):
            raise RuntimeError(f"match {seed} does not end")
        res = m.finish_round()
        rounds.append(
            RoundRecord.of_result(
                res,
                m.round_moves[-1],
                hints=hints(res.number),
                undos=undos(res.number),
                played_at=start + timedelta(minutes=minutes_per_round * res.number),
            )
        )
    seats = tuple(
        SeatInfo("You", "human", None) if i == human else SeatInfo(seat_name(i, k), k, think_ms)
        for i, k in enumerate(kinds)
    )
    return MatchRecord(
        id=0,
        started_at=start,
        finished_at=rounds[-1].played_at,
        demo=human is None,
        seats=seats,
        rules=rules.to_dict(),
        seed=seed,
        first_dealer=m.first_dealer,
        winners=tuple(m.winners),
        totals=tuple(m.totals),
        rounds=tuple(rounds),
    )
