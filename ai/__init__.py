"""AI opponents, each behind the one interface of :class:`ai.base.AIPlayer`, and the registry of
their kinds.

The kinds are in :mod:`ai.players`, what they search with in :mod:`ai.search`, the hint and the
review of a round in :mod:`ai.advice`; :class:`ai.safe.SafePlayer` keeps a failing AI's seat
playing.

Each kind of AI is declared once, on its class: the class sets ``kind`` and what the app shows of
it (``title``, ``description``, ``player_name``, ``takes_think_time``, ``strength``, ``offered``;
see :class:`~ai.base.AIPlayer`) and is decorated with :func:`register`. The modules of
:mod:`ai.players` are found and imported the first time the kinds are listed, so adding a kind is
one new module in ``ai/players/``; making a player of a kind, or reading one kind's info, imports
only the module named after the kind (``king-aware``: ``ai/players/king_aware.py``) when it
declares it. The settings, config, session and command line read the registry:

* :func:`kinds`: every kind's :class:`KindInfo`, weakest first; :func:`kind_info` one of them;
  :func:`kind_shown` a kind's name as a player reads it, :func:`kind_title` its title alone;
* :func:`ai_kinds`: the kinds' names, weakest first;
* :func:`normalize_kind`: the one place a kind's name is normalised (``King_Aware`` -> ``king-aware``);
* :func:`make_player`: build an AI of a kind.

Importing :mod:`ai` imports no AI module but ``random`` (the fallback kind): the others load when
one of these needs them.
"""

from __future__ import annotations

from ai.base import AIPlayer

# ``random`` is registered at once, before any discovery: the app falls back to it when a kind
# is not available, so it is there even while the discovery is stubbed out (tests).
from ai.players import random_ai as _random_ai  # noqa: F401
from ai.registry import (
    KindInfo,
    UnknownKind,
    ai_kinds,
    kind_info,
    kind_shown,
    kind_title,
    kinds,
    make_player,
    normalize_kind,
    register,
)

__all__ = [
    "AIPlayer",
    "KindInfo",
    "UnknownKind",
    "ai_kinds",
    "kind_info",
    "kind_shown",
    "kind_title",
    "kinds",
    "make_player",
    "normalize_kind",
    "register",
]
