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
    """Base class of the AI opponents. Subclasses set ``kind`` and implement ``choose``."""

    kind: ClassVar[str] = ""
    #: One line for menus and the settings screen.
    description: ClassVar[str] = ""

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
