"""Widgets of the table, shared by the game screen and the demo screen.

* :class:`TableView` - the eight places and the stock (``show``, ``highlight``)
* :class:`PileView`, :class:`StockView` - one place, the stock
* :class:`HandView` - a hand of selectable cards (``show``; posts ``CardClicked``)
* :class:`OpponentPanel` - an opponent (``show``; ``reveal=True`` for open hands)
* :class:`Scoreboard` - penalties per round and totals (``show``)
* :class:`MoveLog` - the move log (``sync``)
"""

from .hand import HandRow, HandView, ShownCard
from .movelog import MoveLog
from .opponent import OpponentPanel
from .pile import PLACE_KEYS, PileView, StockView
from .scoreboard import Scoreboard
from .table import TableView

__all__ = [
    "PLACE_KEYS",
    "HandRow",
    "HandView",
    "MoveLog",
    "OpponentPanel",
    "PileView",
    "Scoreboard",
    "ShownCard",
    "StockView",
    "TableView",
]
