"""The rule variants of RULES.md, each declared once (:data:`VARIANTS`), and :class:`Rules`, a
setting of every variant.

A :class:`Variant` holds all there is to know of one setting: its key, the rule of RULES.md it
varies, a title and a one-line explanation for players, its choices with their labels (or its
range of whole numbers) and its default. The engine validates and parses rules from it; the
settings, the rules screen, the command line and the tournament read it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from types import MappingProxyType
from typing import Any, Final, Generic, TypeVar

from kc_tui.i18n import N_, _

MIN_PLAYERS = 2
MAX_PLAYERS = 4

V = TypeVar("V", str, int, bool)


class RulesError(ValueError):
    """A rule setting is unknown or has a value the rules do not allow."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One choice of a word-valued variant: the word (as in files and on the command line) and
    a short label for players (English, marked with ``N_``: shown through ``_``, as
    :meth:`Variant.label` gives it)."""

    value: str
    label: str


@dataclass(frozen=True, slots=True)
class Variant(Generic[V]):
    """One setting of :class:`Rules`, declared once."""

    #: The field of :class:`Rules` (and the key in files and ``--rules key=value``).
    key: str
    #: The rule of RULES.md it varies: ``R3``, ``R15/R16``.
    rule: str
    #: A title for players: ``Kings in the layout`` (English, marked with ``N_``: show it through ``_``).
    title: str
    #: One line for players, without the rule id (English, marked with ``N_``: show it through ``_``).
    explanation: str
    #: The value when none is given.
    default: V
    #: The choices of a word-valued variant, in the order they are offered.
    choices: tuple[Choice, ...] = ()
    #: The whole numbers a number-valued variant may take (inclusive), as the engine checks them.
    bounds: tuple[int, int] | None = None
    #: The part of ``bounds`` the settings offer (and the app's command line accepts), when
    #: narrower: a position file or a tournament may still use the whole of ``bounds``.
    offered: tuple[int, int] | None = None
    #: ``(key, value)`` when the setting only matters while another variant has that value.
    only_with: tuple[str, str] | None = None

    @property
    def type(self) -> type:
        """``str`` (a word from :attr:`choices`), ``int`` (in :attr:`bounds`) or ``bool``."""
        return type(self.default)

    @property
    def values(self) -> tuple[str, ...]:
        """The words a word-valued variant allows (empty for the others)."""
        return tuple(c.value for c in self.choices)

    @property
    def settings_range(self) -> tuple[int, int]:
        """The whole numbers the settings offer: :attr:`offered`, else :attr:`bounds`."""
        r = self.offered or self.bounds
        if r is None:
            raise TypeError(f"rule {self.key} is not a whole number")
        return r

    def label(self, value: str) -> str:
        """The label of the choice ``value`` in the language in use; KeyError for a word the
        variant does not allow."""
        for c in self.choices:
            if c.value == value:
                return _(c.label)
        raise KeyError(value)

    def check(self, value: Any) -> None:
        """Raise :class:`RulesError` unless ``value`` is allowed for the variant (exact type)."""
        name = self.key
        if self.choices:
            if value not in self.values:
                raise RulesError(
                    _("rule {rule} cannot be {value}: choose one of {choices}").format(
                        rule=name, value=repr(value), choices=", ".join(self.values)
                    )
                )
        elif self.bounds is not None:
            lo, hi = self.bounds
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise RulesError(
                    _("rule {rule} must be a whole number from {low} to {high}, not {value}").format(
                        rule=name, low=lo, high=hi, value=repr(value)
                    )
                )
        elif not isinstance(value, bool):
            raise RulesError(_("rule {rule} must be true or false, not {value}").format(rule=name, value=repr(value)))

    def parse(self, text: str) -> Any:
        """The typed value of the text ``text`` (from ``key=value``); the value is not checked."""
        if self.bounds is not None:
            try:
                return int(text)
            except ValueError:
                raise RulesError(
                    _("rule {rule} must be a whole number, not {value}").format(rule=self.key, value=repr(text))
                ) from None
        if self.type is bool:
            low = text.lower()
            if low in ("true", "yes", "1", "on"):
                return True
            if low in ("false", "no", "0", "off"):
                return False
            raise RulesError(
                _("rule {rule} must be true or false, not {value}").format(rule=self.key, value=repr(text))
            )
        return text

    def help(self, *, offered: bool = False) -> str:
        """``key`` with what it takes, for help texts: ``draw=start|end|when_stuck``,
        ``target=1..10000`` (``offered``: the numbers the settings offer, ``target=5..500``)."""
        if self.choices:
            return f"{self.key}={'|'.join(self.values)}"
        if self.bounds is not None:
            lo, hi = self.settings_range if offered else self.bounds
            return f"{self.key}={lo}..{hi}"
        return f"{self.key}=true|false"


# The words of the word-valued variants (use these, not bare strings, to compare a setting).
class LayoutKings:
    TO_CORNER: Final = "to_corner"
    STAY: Final = "stay"


class Draw:
    START: Final = "start"
    END: Final = "end"
    WHEN_STUCK: Final = "when_stuck"


class CompletedPiles:
    TO_STOCK: Final = "to_stock"
    STAY: Final = "stay"


class KingsOnSides:
    ALLOW: Final = "allow"
    FORBID: Final = "forbid"


class OutWithOpenSide:
    END: Final = "end"
    DRAW3: Final = "draw3"


class Scoring:
    POINTS: Final = "points"
    CHIPS: Final = "chips"


LAYOUT_KINGS: Final = Variant(
    "layout_kings",
    "R3",
    N_("Kings in the layout"),
    N_("a king turned up in the layout goes to a corner (to_corner) or stays on its side (stay)"),
    LayoutKings.TO_CORNER,
    choices=(
        Choice(LayoutKings.TO_CORNER, N_("a turned-up king goes to a corner")),
        Choice(LayoutKings.STAY, N_("kings stay where they fall")),
    ),
)
DRAW: Final = Variant(
    "draw",
    "R6",
    N_("Drawing"),
    N_("draw at the start of the turn, at its end, or only when stuck (when_stuck)"),
    Draw.START,
    choices=(
        Choice(Draw.START, N_("draw at the start of the turn")),
        Choice(Draw.END, N_("draw after playing")),
        Choice(Draw.WHEN_STUCK, N_("draw only when stuck")),
    ),
)
COMPLETED_PILES: Final = Variant(
    "completed_piles",
    "R12",
    N_("Completed piles"),
    N_("a finished K..A pile is shuffled into the stock (to_stock) or stays closed (stay)"),
    CompletedPiles.TO_STOCK,
    choices=(
        Choice(CompletedPiles.TO_STOCK, N_("shuffled back into the stock")),
        Choice(CompletedPiles.STAY, N_("stays on the table, closed")),
    ),
)
KINGS_ON_SIDES: Final = Variant(
    "kings_on_sides",
    "R11",
    N_("Kings on sides"),
    N_("a king may fill an empty side (allow) or only ever starts a corner (forbid)"),
    KingsOnSides.ALLOW,
    choices=(
        Choice(KingsOnSides.ALLOW, N_("a king may fill an empty side")),
        Choice(KingsOnSides.FORBID, N_("kings only ever start corners")),
    ),
)
OUT_WITH_OPEN_SIDE: Final = Variant(
    "out_with_open_side",
    "R13",
    N_("Going out"),
    N_("going out while a side is empty ends the round (end) or makes you draw 3 (draw3)"),
    OutWithOpenSide.END,
    choices=(
        Choice(OutWithOpenSide.END, N_("going out ends the round")),
        Choice(OutWithOpenSide.DRAW3, N_("draw 3 if a side is empty")),
    ),
)
SCORING: Final = Variant(
    "scoring",
    "R15/R16",
    N_("Scoring"),
    N_("penalty points to a target (points) or a chip pot (chips)"),
    Scoring.POINTS,
    choices=(
        Choice(Scoring.POINTS, N_("penalty points to a target")),
        Choice(Scoring.CHIPS, N_("chips into a pot")),
    ),
)
HAND_SIZE: Final = Variant("hand_size", "R2", N_("Hand size"), N_("cards dealt to each player"), 7, bounds=(1, 10))
#: A position file or a tournament may play to any target from 1; the settings offer 5 to 500.
TARGET: Final = Variant(
    "target",
    "R15",
    N_("Target score"),
    N_("the match ends when a total reaches this many points"),
    50,
    bounds=(1, 10_000),
    offered=(5, 500),
)
CHIPS_START: Final = Variant(
    "chips_start",
    "R16",
    N_("Starting chips"),
    N_("chips each player starts with"),
    50,
    bounds=(1, 10_000),
    only_with=(SCORING.key, Scoring.CHIPS),
)
CHIPS_PER_CARD: Final = Variant(
    "chips_per_card",
    "R16",
    N_("Pay per card"),
    N_("losers also pay 10 per king and 1 per card left"),
    False,
    only_with=(SCORING.key, Scoring.CHIPS),
)
CHIPS_ROUNDS: Final = Variant(
    "chips_rounds",
    "R16",
    N_("Chips rounds"),
    N_("the chips match ends after this many rounds"),
    10,
    bounds=(1, 1_000),
    only_with=(SCORING.key, Scoring.CHIPS),
)

#: Every variant, once, in the order the settings show them: the scoring of the match first,
#: then the house rules of play and the hand size.
VARIANTS: Final[tuple[Variant[Any], ...]] = (
    TARGET,
    SCORING,
    CHIPS_START,
    CHIPS_ROUNDS,
    CHIPS_PER_CARD,
    LAYOUT_KINGS,
    DRAW,
    COMPLETED_PILES,
    KINGS_ON_SIDES,
    OUT_WITH_OPEN_SIDE,
    HAND_SIZE,
)
_BY_KEY: Final[dict[str, Variant[Any]]] = {v.key: v for v in VARIANTS}


def variant(key: str) -> Variant[Any]:
    """The declaration of the setting ``key``; :class:`RulesError` for an unknown one."""
    try:
        return _BY_KEY[key]
    except KeyError:
        raise RulesError(
            _("unknown rule {rule}: known rules are {rules}").format(rule=repr(key), rules=", ".join(sorted(_BY_KEY)))
        ) from None


#: The choices of every setting that takes a word (read from :data:`VARIANTS`).
CHOICES: Final = MappingProxyType({v.key: v.values for v in VARIANTS if v.choices})
#: Whole-number settings and their allowed ranges (read from :data:`VARIANTS`).
INT_RANGES: Final = MappingProxyType({v.key: b for v in VARIANTS if (b := v.bounds) is not None})
_WORDS: Final = tuple(v for v in VARIANTS if v.choices)
_NUMBERS: Final = tuple(v for v in VARIANTS if v.bounds is not None)
_SWITCHES: Final = tuple(v for v in VARIANTS if v.type is bool)


@dataclass(frozen=True, slots=True)
class Rules:
    """A setting of every variant; the defaults are the declared ones."""

    layout_kings: str = LAYOUT_KINGS.default
    draw: str = DRAW.default
    completed_piles: str = COMPLETED_PILES.default
    kings_on_sides: str = KINGS_ON_SIDES.default
    out_with_open_side: str = OUT_WITH_OPEN_SIDE.default
    scoring: str = SCORING.default
    hand_size: int = HAND_SIZE.default
    target: int = TARGET.default
    chips_start: int = CHIPS_START.default
    chips_per_card: bool = CHIPS_PER_CARD.default
    chips_rounds: int = CHIPS_ROUNDS.default

    def __post_init__(self) -> None:
        # Words first, then numbers, then switches: the first bad one is named.
        for group in (_WORDS, _NUMBERS, _SWITCHES):
            for v in group:
                v.check(getattr(self, v.key))

    @property
    def kings_on_sides_allowed(self) -> bool:
        """Whether a king may fill an empty side (``kings_on_sides=allow``, R11); else a king
        only ever starts a corner."""
        return self.kings_on_sides == KingsOnSides.ALLOW

    @property
    def completed_piles_stay(self) -> bool:
        """Whether a completed pile stays on the table, closed (``completed_piles=stay``, R12);
        else it is shuffled back into the stock."""
        return self.completed_piles == CompletedPiles.STAY

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
            raise RulesError(_("'rules' must be an object of settings"))
        for key in data:
            variant(key)
        return cls(**data)

    @classmethod
    def from_pairs(cls, pairs: list[str]) -> Rules:
        """Rules from command-line ``key=value`` words."""
        data: dict[str, Any] = {}
        for pair in pairs:
            key, sep, text = pair.partition("=")
            key = key.strip()
            if not sep:
                raise RulesError(_("rule setting {setting} must look like key=value").format(setting=repr(pair)))
            data[key] = parse_value(key, text.strip())
        return cls.from_dict(data)


def parse_value(key: str, text: str) -> Any:
    """Turn a setting's text into its typed value (an unknown key's text is kept as it is)."""
    v = _BY_KEY.get(key)
    return text if v is None else v.parse(text)


def rules_help(*, offered: bool = False) -> str:
    """Every setting with what it takes, for ``--rules`` help texts (``offered``: the numbers the
    settings offer, for the commands that take what the settings take)."""
    return ", ".join(v.help(offered=offered) for v in VARIANTS)


if {f.name for f in fields(Rules)} != set(_BY_KEY):  # pragma: no cover - a declaration is missing
    raise RuntimeError("every field of Rules needs exactly one Variant in VARIANTS")
