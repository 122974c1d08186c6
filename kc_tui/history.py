"""Every game remembered: the history of finished rounds and matches in SQLite (issue 13).

Skeleton: the API contract's names and types; the bodies are being written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from kc_tui.config import data_dir

SCHEMA_VERSION = 2
ENV_HISTORY = "KINGS_CORNERS_HISTORY"
HISTORY_NAME = "history.sqlite3"


def default_history_path() -> Path:
    import os

    env = os.environ.get(ENV_HISTORY)
    return Path(env) if env else data_dir() / HISTORY_NAME


@dataclass(frozen=True)
class SeatInfo:
    name: str
    kind: str
    think_ms: int | None = None


@dataclass(frozen=True)
class RoundRecord:
    number: int
    dealer: int
    seats: tuple[int, ...]
    winner: int | None
    penalties: tuple[int, ...]
    chips_delta: tuple[int, ...]
    totals: tuple[int, ...]
    moves: tuple[int, ...]
    hints: int
    undos: int
    played_at: datetime


@dataclass(frozen=True)
class MatchRecord:
    id: int
    started_at: datetime
    finished_at: datetime | None
    demo: bool
    seats: tuple[SeatInfo, ...]
    rules: dict[str, Any]
    seed: int
    first_dealer: int
    winners: tuple[int, ...]
    totals: tuple[int, ...]
    rounds: tuple[RoundRecord, ...] = ()


class HistoryError(Exception):
    """The history could not be read or written; the message says why."""


class History:
    @classmethod
    def open(cls, path: Path | None = None) -> tuple[History, str | None]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def start_match(
        self,
        *,
        seats: Sequence[SeatInfo],
        rules: dict[str, Any],
        seed: int,
        first_dealer: int,
        demo: bool = False,
        started_at: datetime | None = None,
    ) -> int:
        raise NotImplementedError

    def record_round(self, match_id: int, record: RoundRecord) -> None:
        raise NotImplementedError

    def finish_match(
        self, match_id: int, *, winners: Sequence[int], totals: Sequence[int], finished_at: datetime | None = None
    ) -> None:
        raise NotImplementedError

    def matches(self, *, demos: bool = False, limit: int | None = None, offset: int = 0) -> list[MatchRecord]:
        raise NotImplementedError

    def match(self, match_id: int) -> MatchRecord | None:
        raise NotImplementedError

    def count_matches(self, *, demos: bool = False) -> int:
        raise NotImplementedError

    def export_rows(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def export_json(self) -> list[dict[str, Any]]:
        raise NotImplementedError


@dataclass(frozen=True)
class KindStats:
    """The player's results against one opponent kind at one table size."""

    opponent: str
    table_size: int
    matches: int = 0
    matches_won: int = 0
    rounds: int = 0
    rounds_won: int = 0
    mean_penalty: float = 0.0
    hints_per_round: float = 0.0


@dataclass(frozen=True)
class Summary:
    by_opponent: tuple[KindStats, ...] = ()
    best_match: int | None = None
    worst_match: int | None = None
    current_streak: int = 0
    longest_streak: int = 0
    points: tuple[tuple[int, datetime | None, int, bool], ...] = field(default=())


def summarize(matches: Sequence[MatchRecord], human: str = "human") -> Summary:
    raise NotImplementedError
