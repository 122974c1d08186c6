"""Who sits at the table: the seats (people or AI kinds, in any mix) and the AI players behind them.

Reads the AI registry (:func:`ai.kind_info`) for default names and for whether a kind takes a
think time, so a new AI kind needs nothing here. Every AI seat plays through
:class:`ai.safe.SafePlayer`, as in the tournament: a faulty AI (raises, overruns twice its
budget, returns an illegal move) is replaced by greedy for the rest of its turn. Plain Python.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ai import AIPlayer, ai_kinds, kind_info, make_player
from ai.safe import SafePlayer
from kc_tui.config import HUMAN, Config, Opponent
from kc_tui.config.args import SeatSpec
from kc_tui.engine import is_secret
from kc_tui.engine.rng import derive

log = logging.getLogger(__name__)

#: The AI that gives hints to the person on turn, and the fallbacks while it is not available.
HINT_KINDS: tuple[str, ...] = ("lookahead", "greedy", "random")
#: The kind an AI seat falls back to while its own kind is not available.
FALLBACK_KIND = "random"
#: The name a person's seat is offered before they type their own ("Player 2", ...).
HUMAN_NAME = "Player"


@dataclass(frozen=True, slots=True)
class Seat:
    """Who sits at a match seat: a person (``kind == 'human'``) or an AI kind."""

    name: str
    kind: str
    think_ms: int = 1000

    @property
    def is_human(self) -> bool:
        return self.kind == HUMAN


class _KindNames(Mapping[str, str]):
    """Every AI kind's default player name, read from the registry when asked."""

    def __getitem__(self, kind: str) -> str:
        try:
            return kind_info(kind).player_name
        except ValueError:
            raise KeyError(kind) from None

    def __iter__(self) -> Iterator[str]:
        return iter(ai_kinds())

    def __len__(self) -> int:
        return len(ai_kinds())


#: Friendly default names for AI kinds (``KIND_NAMES['king-aware'] == 'Kingsley'``), from the registry.
KIND_NAMES: Mapping[str, str] = _KindNames()


def known_kinds() -> tuple[str, ...]:
    """Every seat kind a save may hold: a person's and every AI kind."""
    return (HUMAN, *ai_kinds())


def default_name(kind: str, taken: Sequence[str] = ()) -> str:
    """A name for a seat of ``kind`` that is not already in ``taken``: its kind's player name
    ("Kingsley"), then "Kingsley 2", ...; a person's seat: "Player", "Player 2", ..."""
    base = HUMAN_NAME if kind == HUMAN else KIND_NAMES.get(kind) or kind.replace("-", " ").title()
    name, k = base, 2
    while name in taken:
        name, k = f"{base} {k}", k + 1
    return name


def default_names(kinds: Sequence[str]) -> list[str]:
    """A distinct default name for each of ``kinds``."""
    taken: list[str] = []
    for k in kinds:
        taken.append(default_name(k, taken))
    return taken


def config_for_seats(config: Config, specs: Sequence[SeatSpec], think_ms: int = 1000) -> Config:
    """``config`` with the seats of ``specs`` (checked by :func:`kc_tui.config.args.parse_seats`):
    the first person is ``player_name``, the seats after them follow in order around the table
    and those before them come last (the order around the table is kept); each AI is named after
    its kind, with a number when the name is taken."""
    first = next(i for i, spec in enumerate(specs) if spec.is_human)
    ordered = [*specs[first:], *specs[:first]]
    taken = [spec.name for spec in ordered if spec.name is not None]
    opponents: list[Opponent] = []
    for spec in ordered[1:]:
        name = spec.name
        if name is None:
            name = default_name(spec.kind, taken)
            taken.append(name)
        opponents.append(Opponent(name, spec.kind, think_ms))
    return config.with_(player_name=ordered[0].name, opponents=tuple(opponents))


def build_ai(kind: str, seed: int, think_ms: int = 1000) -> AIPlayer:
    """An AI of ``kind`` (given ``think_ms`` when the kind takes a think time); falls back to
    'random' (with a logged warning) while a kind is not available, so the game always runs."""
    try:
        params: dict[str, Any] = {"think_ms": think_ms} if kind_info(kind).takes_think_time else {}
        return make_player(kind, seed, **params)
    except ValueError:
        log.warning("AI kind %r is not available (have %s); using %r", kind, ", ".join(ai_kinds()), FALLBACK_KIND)
        return make_player(FALLBACK_KIND, seed)


def seat_seed(match_seed: int, seat: int) -> int:
    """The seed of the AI at ``seat`` in a match dealt with ``match_seed`` (of a secret: drawn
    from it one way, so an AI's choices tell nothing of the deal)."""
    if is_secret(match_seed):
        return derive(match_seed, f"seat {seat}")
    return match_seed * 31 + seat + 1


def hint_seed(match_seed: int) -> int:
    """The seed of the hint's AI in a match dealt with ``match_seed``."""
    return derive(match_seed, "hint") if is_secret(match_seed) else match_seed + 7


def build_players(seats: Sequence[Seat], match_seed: int) -> dict[int, AIPlayer]:
    """The AI player of every AI seat (by seat), each behind :class:`SafePlayer`."""
    return {
        s: SafePlayer(build_ai(seat.kind, seat_seed(match_seed, s), seat.think_ms))
        for s, seat in enumerate(seats)
        if not seat.is_human
    }


def build_hinter(match_seed: int) -> AIPlayer:
    """The AI that suggests the moves of the person on turn: the match-aware lookahead planner that never
    ends a turn while a card can be shed at no risk (:class:`ai.advice.hint.HintAI`), or else the first
    available of :data:`HINT_KINDS`."""
    try:
        from ai.advice.hint import HintAI
    except ImportError:  # pragma: no cover - the hint ships with the package
        pass
    else:
        return HintAI(hint_seed(match_seed))
    for kind in HINT_KINDS:
        try:
            return make_player(kind, hint_seed(match_seed))
        except ValueError:
            continue
    return make_player(FALLBACK_KIND, hint_seed(match_seed))


__all__ = [
    "HINT_KINDS",
    "HUMAN_NAME",
    "KIND_NAMES",
    "Seat",
    "build_ai",
    "build_hinter",
    "build_players",
    "config_for_seats",
    "default_name",
    "default_names",
    "known_kinds",
    "seat_seed",
]
