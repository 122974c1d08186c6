"""The one interface every AI opponent implements.

An AI is handed a :class:`~kc_tui.engine.PlayerView` (what its seat may see, R4) and never
the full round, and returns one move at a time (``END`` included), so the app can show AI
moves one by one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from kc_tui.engine import Move, PlayerView


class AIPlayer(ABC):
    """Base class of the AI opponents. Subclasses implement ``choose``; a kind of AI offered by
    :func:`ai.make_player` also declares what the app shows of it (see :class:`ai.KindInfo`) and
    is decorated with :func:`ai.register`."""

    #: The kind's name, as the settings, saves and command line write it (lower case, ``-``).
    kind: ClassVar[str] = ""
    #: The kind's name for display ("King-aware"); empty: made from ``kind``.
    title: ClassVar[str] = ""
    #: One line for menus and the settings screen ("plays every card it can").
    description: ClassVar[str] = ""
    #: A default name for a player of this kind ("Kingsley"); empty: the title.
    player_name: ClassVar[str] = ""
    #: Whether the kind takes a think time: its constructor then accepts ``think_ms`` (ms a move).
    takes_think_time: ClassVar[bool] = False
    #: How strong the kind is: kinds are listed weakest (lowest) first.
    strength: ClassVar[int] = 0
    #: Whether the settings screen offers the kind for an opponent.
    offered: ClassVar[bool] = True

    def __init__(self, seed: int = 0, **params: Any) -> None:
        self.seed = seed
        self.params = params

    @abstractmethod
    def choose(self, view: PlayerView) -> Move:
        """The next move for ``view.seat``; it is that seat's turn and the round is not over."""

    def new_round(self) -> None:  # noqa: B027 - optional hook
        """Called when a new round starts (forget per-round memory)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} kind={self.kind!r} seed={self.seed}>"
