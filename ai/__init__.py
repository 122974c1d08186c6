"""AI opponents, each behind the one interface of :class:`ai.base.AIPlayer`.

``make_player(kind, seed, **params)`` builds one by its kind name; ``AI_KINDS`` lists the kinds.
"""

from __future__ import annotations

from typing import Any

from .base import AIPlayer
from .random_ai import RandomAI

_REGISTRY: dict[str, type[AIPlayer]] = {RandomAI.kind: RandomAI}


def register(cls: type[AIPlayer]) -> type[AIPlayer]:
    _REGISTRY[cls.kind] = cls
    return cls


def _load_all() -> None:
    """Import the AI modules so they register themselves (kept lazy and optional)."""
    import importlib

    for name in ("greedy", "king_aware", "lookahead", "expert"):
        try:
            importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise


def ai_kinds() -> tuple[str, ...]:
    """Every available kind, weakest first."""
    _load_all()
    order = ["random", "greedy", "king-aware", "lookahead", "expert"]
    return tuple(k for k in order if k in _REGISTRY) + tuple(k for k in _REGISTRY if k not in order)


def make_player(kind: str, seed: int = 0, **params: Any) -> AIPlayer:
    """An AI of ``kind`` (e.g. ``greedy``, ``king-aware``); ValueError for an unknown kind."""
    _load_all()
    cls = _REGISTRY.get(kind.strip().lower().replace("_", "-"))
    if cls is None:
        raise ValueError(f"unknown AI kind {kind!r}: choose one of {', '.join(ai_kinds())}")
    return cls(seed, **params)


__all__ = ["AIPlayer", "RandomAI", "ai_kinds", "make_player", "register"]
