"""The table's eight places in words: their names as the screens and the plain mode say them.

Plain Python. A place is the engine's index (:data:`kc_tui.engine.PLACES`: N E S W, then the
corners NE SE SW NW); its name is marked for translation here and shown through ``_()``.
"""

from __future__ import annotations

from kc_tui.i18n import N_

#: The places' names, marked for translation (shown through ``_()``).
PLACE_NAMES: dict[int, str] = {
    0: N_("North"),
    1: N_("East"),
    2: N_("South"),
    3: N_("West"),
    4: N_("North-east"),
    5: N_("South-east"),
    6: N_("South-west"),
    7: N_("North-west"),
}

__all__ = ["PLACE_NAMES"]
