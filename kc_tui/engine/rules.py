"""The rule variants of RULES.md, each a setting with its default."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

MIN_PLAYERS = 2
MAX_PLAYERS = 4


class RulesError(ValueError):
    """A rule setting is unknown or has a value the rules do not allow."""


#: The choices of every setting that takes a word.
CHOICES: dict[str, tuple[str, ...]] = {
    "layout_kings": ("to_corner", "stay"),
    "draw": ("start", "end", "when_stuck"),
    "completed_piles": ("to_stock", "stay"),
    "kings_on_sides": ("allow", "forbid"),
    "out_with_open_side": ("end", "draw3"),
    "scoring": ("points", "chips"),
}

#: Whole-number settings and their allowed ranges.
INT_RANGES: dict[str, tuple[int, int]] = {
    "hand_size": (1, 10),
    "target": (1, 10_000),
    "chips_start": (1, 10_000),
    "chips_rounds": (1, 1_000),
}

BOOL_SETTINGS: tuple[str, ...] = ("chips_per_card",)

#: One line per setting, for help screens and the settings dialog.
DESCRIPTIONS: dict[str, str] = {
    "layout_kings": "R3: a king turned up in the layout goes to a corner (to_corner) or stays on its side (stay)",
    "draw": "R6: draw at the start of the turn, at its end, or only when stuck (when_stuck)",
    "completed_piles": "R12: a finished K..A pile is shuffled into the stock (to_stock) or stays closed (stay)",
    "kings_on_sides": "R11: a king may fill an empty side (allow) or only ever starts a corner (forbid)",
    "out_with_open_side": "R13: going out while a side is empty ends the round (end) or makes you draw 3 (draw3)",
    "scoring": "R15/R16: penalty points to a target (points) or a chip pot (chips)",
    "hand_size": "R2: cards dealt to each player",
    "target": "R15: the match ends when a total reaches this many points",
    "chips_start": "R16: chips each player starts with",
    "chips_per_card": "R16: losers also pay 10 per king and 1 per card left",
    "chips_rounds": "R16: the chips match ends after this many rounds",
}


@dataclass(frozen=True, slots=True)
class Rules:
    layout_kings: str = "to_corner"
    draw: str = "start"
    completed_piles: str = "to_stock"
    kings_on_sides: str = "allow"
    out_with_open_side: str = "end"
    scoring: str = "points"
    hand_size: int = 7
    target: int = 50
    chips_start: int = 50
    chips_per_card: bool = False
    chips_rounds: int = 10

    def __post_init__(self) -> None:
        for name, choices in CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                raise RulesError(f"rule {name} cannot be {value!r}: choose one of {', '.join(choices)}")
        for name, (lo, hi) in INT_RANGES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise RulesError(f"rule {name} must be a whole number from {lo} to {hi}, not {value!r}")
        for name in BOOL_SETTINGS:
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"rule {name} must be true or false, not {getattr(self, name)!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def changed(self) -> dict[str, Any]:
        """Only the settings that differ from the defaults."""
        default = Rules()
        return {k: v for k, v in asdict(self).items() if getattr(default, k) != v}

    def with_(self, **changes: Any) -> Rules:
        return replace(self, **changes)

    @classmethod
    def from_dict(cls, data: Any) -> Rules:
        """Rules from a mapping of any subset of the settings; the rest take defaults."""
        if not isinstance(data, dict):
            raise RulesError("'rules' must be an object of settings")
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise RulesError(f"unknown rule {key!r}: known rules are {', '.join(sorted(known))}")
        return cls(**data)

    @classmethod
    def from_pairs(cls, pairs: list[str]) -> Rules:
        """Rules from command-line ``key=value`` words."""
        data: dict[str, Any] = {}
        for pair in pairs:
            key, sep, text = pair.partition("=")
            key = key.strip()
            if not sep:
                raise RulesError(f"rule setting {pair!r} must look like key=value")
            data[key] = parse_value(key, text.strip())
        return cls.from_dict(data)


def parse_value(key: str, text: str) -> Any:
    """Turn a setting's text into its typed value."""
    if key in INT_RANGES:
        try:
            return int(text)
        except ValueError:
            raise RulesError(f"rule {key} must be a whole number, not {text!r}") from None
    if key in BOOL_SETTINGS:
        low = text.lower()
        if low in ("true", "yes", "1", "on"):
            return True
        if low in ("false", "no", "0", "off"):
            return False
        raise RulesError(f"rule {key} must be true or false, not {text!r}")
    return text
