"""AI opponents, each behind the one interface of :class:`ai.base.AIPlayer`, and the registry of
their kinds.

Each kind of AI is declared once, on its class: the class sets ``kind`` and what the app shows of
it (``title``, ``description``, ``player_name``, ``takes_think_time``, ``strength``, ``offered``;
see :class:`~ai.base.AIPlayer`) and is decorated with :func:`register`. The modules of this
package are found and imported the first time the registry is read, so adding a kind is one new
module in ``ai/``. The settings, config, session and command line read the registry:

* :func:`kinds`: every kind's :class:`KindInfo`, weakest first; :func:`kind_info` one of them;
* :func:`ai_kinds`: the kinds' names, weakest first;
* :func:`normalize_kind`: the one place a kind's name is normalised (``King_Aware`` -> ``king-aware``);
* :func:`make_player`: build an AI of a kind.

Importing :mod:`ai` imports no AI module but ``random`` (the fallback kind): the others load on
the first call of one of these.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Any, TypeVar

from .base import AIPlayer

#: Every registered kind's class, by kind name.
_REGISTRY: dict[str, type[AIPlayer]] = {}
#: Modules of the package that define no kind (the machinery): never imported to discover kinds.
_NOT_KINDS = frozenset({"base", "leaf", "planning", "safe", "tournament"})
_loaded = False

A = TypeVar("A", bound=type[AIPlayer])


class UnknownKind(ValueError):
    """No AI kind has this name."""


@dataclass(frozen=True, slots=True)
class KindInfo:
    """What the app shows of one AI kind, as its class declares it."""

    #: The name settings, saves and the command line use: ``king-aware``.
    name: str
    #: The name for display: ``King-aware``.
    title: str
    #: One line for menus and the settings screen.
    description: str
    #: A default name for a player of the kind: ``Kingsley``.
    player_name: str
    #: Whether :func:`make_player` takes ``think_ms`` (ms a move) for the kind.
    takes_think_time: bool
    #: Kinds are listed by this, weakest (lowest) first.
    strength: int
    #: Whether the settings screen offers the kind for an opponent.
    offered: bool

    @classmethod
    def of(cls, ai_class: type[AIPlayer]) -> KindInfo:
        """The info an AI class declares. The title and player name are the class's own (not a
        base kind's): when it sets none they are made from the kind."""
        own = vars(ai_class)
        title = own.get("title") or ai_class.kind.replace("-", " ").capitalize()
        return cls(
            name=ai_class.kind,
            title=title,
            description=ai_class.description,
            player_name=own.get("player_name") or title,
            takes_think_time=ai_class.takes_think_time,
            strength=ai_class.strength,
            offered=ai_class.offered,
        )


def normalize_kind(text: str) -> str:
    """A kind's name as the registry spells it: stripped, lower case, ``_`` as ``-``."""
    return text.strip().lower().replace("_", "-")


def register(cls: A) -> A:
    """Class decorator: make ``cls`` an AI kind (under ``cls.kind``). The class itself (not only a
    base kind) must set ``kind``, spelled as :func:`normalize_kind` gives it, a one-line
    ``description`` and its ``strength``; a kind registered again is replaced. ValueError otherwise."""
    own = vars(cls)
    missing = [attr for attr in ("kind", "description", "strength") if attr not in own]
    if missing:
        raise ValueError(f"{cls.__name__} must set its own {', '.join(missing)} to be an AI kind")
    if not cls.kind or normalize_kind(cls.kind) != cls.kind:
        raise ValueError(f"{cls.__name__}: kind {cls.kind!r} must be non-empty, lower case, words joined by '-'")
    if not cls.description.strip() or "\n" in cls.description:
        raise ValueError(f"{cls.__name__}: kind {cls.kind!r} needs a one-line description")
    _REGISTRY[cls.kind] = cls
    return cls


def _load_all() -> None:
    """Import, once, every module of the package that may define a kind, so the kinds register
    themselves (modules named ``_...`` and those in ``_NOT_KINDS`` are skipped)."""
    global _loaded
    if _loaded:
        return
    for module in pkgutil.iter_modules(__path__):
        if module.name.startswith("_") or module.name in _NOT_KINDS or module.ispkg:
            continue
        importlib.import_module(f"{__name__}.{module.name}")
    _loaded = True


def kinds() -> tuple[KindInfo, ...]:
    """Every registered kind, weakest first (then by name)."""
    _load_all()
    infos = (KindInfo.of(cls) for cls in _REGISTRY.values())
    return tuple(sorted(infos, key=lambda k: (k.strength, k.name)))


def ai_kinds() -> tuple[str, ...]:
    """Every registered kind's name, weakest first."""
    return tuple(k.name for k in kinds())


def _class_of(kind: str) -> type[AIPlayer]:
    _load_all()
    cls = _REGISTRY.get(normalize_kind(kind))
    if cls is None:
        raise UnknownKind(f"unknown AI kind {kind!r}: choose one of {', '.join(ai_kinds())}")
    return cls


def kind_info(kind: str) -> KindInfo:
    """The info of ``kind`` (any spelling :func:`normalize_kind` accepts); :class:`UnknownKind`
    (a ValueError) for an unknown kind."""
    return KindInfo.of(_class_of(kind))


def make_player(kind: str, seed: int = 0, **params: Any) -> AIPlayer:
    """An AI of ``kind`` (e.g. ``greedy``, ``King_Aware``) with ``seed`` and its keyword settings;
    :class:`UnknownKind` (a ValueError) for an unknown kind."""
    return _class_of(kind)(seed, **params)


# ``random`` is registered at once, before any discovery: the app falls back to it when a kind
# is not available, so it is there even while the discovery is stubbed out (tests).
from . import random_ai as _random_ai  # noqa: E402, F401

__all__ = [
    "AIPlayer",
    "KindInfo",
    "UnknownKind",
    "ai_kinds",
    "kind_info",
    "kinds",
    "make_player",
    "normalize_kind",
    "register",
]
