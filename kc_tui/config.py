"""The user's settings: opponents, target, house rules, pace and card style.

Stored as TOML in the user's config directory (platformdirs), written atomically. The file
is found from, in order: an explicit path (``--config FILE``), the environment variable
``KINGS_CORNERS_CONFIG``, the user's config directory. A corrupt or unreadable file never
stops the app: defaults are used, the bad file is kept beside as ``.bak`` and a warning says so.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import platformdirs
import tomli_w

from kc_tui.engine import Rules, RulesError

APP_NAME = "kings-corners"
ENV_CONFIG = "KINGS_CORNERS_CONFIG"
ENV_DATA = "KINGS_CORNERS_DATA"

AI_KIND_NAMES: tuple[str, ...] = ("greedy", "lookahead", "king-aware", "expert")
PACES: tuple[str, ...] = ("slow", "normal", "fast", "instant")
#: Seconds between AI moves shown on screen, per pace.
PACE_SECONDS: dict[str, float] = {"slow": 1.2, "normal": 0.6, "fast": 0.15, "instant": 0.0}
CARD_STYLES: tuple[str, ...] = ("symbols", "ascii")
THEMES: tuple[str, ...] = ("textual-dark", "textual-light", "nord", "gruvbox", "dracula", "tokyo-night")
TARGET_RANGE = (5, 500)
THINK_MS_RANGE = (50, 10_000)
NAME_MAX = 16


#: A short label for every choice of every word-valued rule (settings screen, rules screen).
CHOICE_LABELS: dict[str, dict[str, str]] = {
    "layout_kings": {"to_corner": "a turned-up king goes to a corner", "stay": "kings stay where they fall"},
    "draw": {
        "start": "draw at the start of the turn",
        "end": "draw after playing",
        "when_stuck": "draw only when stuck",
    },
    "completed_piles": {"to_stock": "shuffled back into the stock", "stay": "stays on the table, closed"},
    "kings_on_sides": {"allow": "a king may fill an empty side", "forbid": "kings only ever start corners"},
    "out_with_open_side": {"end": "going out ends the round", "draw3": "draw 3 if a side is empty"},
    "scoring": {"points": "penalty points to a target", "chips": "chips into a pot"},
}
#: Names offered for new opponents, in seat order.
DEFAULT_OPPONENT_NAMES: tuple[str, ...] = ("Greedy", "Kingsley", "Lena")
#: Suggested think times (ms) for the strength of an opponent, weakest first.
STRENGTHS: dict[str, int] = {"quick": 200, "normal": 1000, "strong": 3000}


class ConfigError(ValueError):
    """A setting has a value that is not allowed; the message says which and why."""


@dataclass(frozen=True, slots=True)
class Opponent:
    name: str = "Greedy"
    kind: str = "greedy"
    #: The expert's think time per move, in milliseconds (other kinds ignore it).
    think_ms: int = 1000

    def validate(self) -> None:
        _check_name(self.name, "an opponent's name")
        if self.kind not in AI_KIND_NAMES:
            raise ConfigError(f"unknown AI kind {self.kind!r}: choose one of {', '.join(AI_KIND_NAMES)}")
        lo, hi = THINK_MS_RANGE
        if isinstance(self.think_ms, bool) or not isinstance(self.think_ms, int) or not lo <= self.think_ms <= hi:
            raise ConfigError(f"think time must be a whole number of ms from {lo} to {hi}, not {self.think_ms!r}")


def _default_opponents() -> tuple[Opponent, ...]:
    return (Opponent("Greedy", "greedy"), Opponent("Kingsley", "king-aware"))


@dataclass(frozen=True, slots=True)
class Config:
    player_name: str = "You"
    opponents: tuple[Opponent, ...] = field(default_factory=_default_opponents)
    #: Every rule variant, including target, scoring and chips settings (RULES.md).
    rules: Rules = field(default_factory=Rules)
    pace: str = "normal"
    card_style: str = "symbols"
    four_colour: bool = False
    theme: str = "textual-dark"

    @property
    def target(self) -> int:
        return self.rules.target

    def validate(self) -> None:
        """Raise :class:`ConfigError` naming the first bad setting."""
        _check_name(self.player_name, "your name")
        if not 1 <= len(self.opponents) <= 3:
            raise ConfigError(f"choose 1 to 3 opponents, not {len(self.opponents)}")
        for o in self.opponents:
            o.validate()
        lo, hi = TARGET_RANGE
        if not lo <= self.rules.target <= hi:
            raise ConfigError(f"target score must be a whole number from {lo} to {hi}, not {self.rules.target}")
        if self.pace not in PACES:
            raise ConfigError(f"unknown pace {self.pace!r}: choose one of {', '.join(PACES)}")
        if self.card_style not in CARD_STYLES:
            raise ConfigError(f"unknown card style {self.card_style!r}: choose one of {', '.join(CARD_STYLES)}")
        if not isinstance(self.four_colour, bool):
            raise ConfigError("four_colour must be true or false")
        if not isinstance(self.theme, str) or not self.theme:
            raise ConfigError("theme must be a theme name")

    def with_(self, **changes: Any) -> Config:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "player_name": self.player_name,
            "pace": self.pace,
            "card_style": self.card_style,
            "four_colour": self.four_colour,
            "theme": self.theme,
            "rules": self.rules.to_dict(),
            "opponents": [{"name": o.name, "kind": o.kind, "think_ms": o.think_ms} for o in self.opponents],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Config:
        """Settings from a decoded TOML document; missing keys take defaults."""
        if not isinstance(data, dict):
            raise ConfigError("the settings file must hold a table of settings")
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise ConfigError(f"unknown setting {key!r}")
        kwargs: dict[str, Any] = {k: v for k, v in data.items() if k not in ("rules", "opponents")}
        try:
            if "rules" in data:
                kwargs["rules"] = Rules.from_dict(data["rules"])
            if "opponents" in data:
                ops = data["opponents"]
                if not isinstance(ops, list):
                    raise ConfigError("opponents must be a list of tables")
                kwargs["opponents"] = tuple(Opponent(**o) for o in ops)
            cfg = cls(**kwargs)
        except RulesError as exc:
            raise ConfigError(str(exc)) from None
        except TypeError as exc:
            raise ConfigError(f"a setting has the wrong shape ({exc})") from None
        cfg.validate()
        return cfg


def name_problem(name: Any, what: str) -> str | None:
    """Why ``name`` cannot be used (``what`` names the field), or None when it can."""
    try:
        _check_name(name, what)
    except ConfigError as exc:
        return str(exc)
    return None


def int_problem(text: str, what: str, lo: int, hi: int) -> str | None:
    """Why ``text`` is not a whole number from ``lo`` to ``hi``, or None when it is."""
    t = text.strip()
    if not t:
        return f"{what} cannot be empty: type a whole number from {lo} to {hi}"
    if not t.isdigit():
        return f"{what} must be a whole number from {lo} to {hi}, not {t!r}"
    if not lo <= int(t) <= hi:
        return f"{what} must be from {lo} to {hi}, not {int(t)}"
    return None


def _check_name(name: Any, what: str) -> None:
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{what} cannot be empty")
    if len(name) > NAME_MAX:
        raise ConfigError(f"{what} is too long: at most {NAME_MAX} characters")
    if any(not ch.isprintable() for ch in name):
        raise ConfigError(f"{what} must be printable text")


def config_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Where the settings live: ``explicit``, else $KINGS_CORNERS_CONFIG, else the user's config dir."""
    if explicit:
        return Path(explicit)
    env = os.environ.get(ENV_CONFIG)
    if env:
        return Path(env)
    return Path(platformdirs.user_config_dir(APP_NAME)) / "settings.toml"


def data_dir() -> Path:
    """Where saved games live: $KINGS_CORNERS_DATA, else the user's data dir."""
    env = os.environ.get(ENV_DATA)
    if env:
        return Path(env)
    return Path(platformdirs.user_data_dir(APP_NAME))


def load_config(path: str | os.PathLike[str] | None = None) -> tuple[Config, str | None]:
    """The settings and a warning (None when all is well). Never raises for a bad file:
    a corrupt one is moved aside to ``<name>.bak`` and the defaults are used."""
    p = config_path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        return Config(), None
    except OSError as exc:
        return Config(), f"Could not read settings {p} ({exc.strerror}); using defaults."
    try:
        data = tomllib.loads(raw.decode("utf-8"))
        return Config.from_dict(data), None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, ConfigError) as exc:
        backup = p.with_name(p.name + ".bak")
        try:
            os.replace(p, backup)
            kept = f" The file was kept as {backup}."
        except OSError:
            kept = ""
        return Config(), f"Settings file {p} is invalid ({exc}); using defaults.{kept}"


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a crash leaves the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def save_config(cfg: Config, path: str | os.PathLike[str] | None = None) -> Path:
    """Validate and write the settings; return where they went."""
    cfg.validate()
    p = config_path(path)
    atomic_write(p, tomli_w.dumps(cfg.to_dict()).encode("utf-8"))
    return p
