"""The user's settings: the seats, target, house rules, pace and card style, and their checks.

The first seat is the person who set the app up (``player_name``); every other seat is an
:class:`Opponent`: an AI kind, or another person at the same keyboard (kind :data:`HUMAN`).

The model and the checks of every value; the file they are kept in (TOML under platformdirs) is
:mod:`kc_tui.config.store`, the checks the command line shares with the launcher
:mod:`kc_tui.config.args`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import ai
from kc_tui.engine import VARIANTS, Rules, RulesError
from kc_tui.engine.rules import TARGET
from kc_tui.i18n import LANGUAGES, N_, _, pgettext
from kc_tui.util.printable import PROBLEM_MAX, is_you, one_line

#: The kind of a seat a person plays (every other seat's kind is an AI kind).
HUMAN = "human"
#: How many seats a match has, at least and at most (RULES.md: two to four players).
SEATS_RANGE: tuple[int, int] = (2, 4)
PACES: tuple[str, ...] = ("slow", "normal", "fast", "instant")
#: Seconds between AI moves shown on screen, per pace.
PACE_SECONDS: dict[str, float] = {"slow": 1.2, "normal": 0.6, "fast": 0.15, "instant": 0.0}


def pace_name(pace: str) -> str:
    """A pace's name in the language in use (an unknown pace as it is)."""
    names = {
        # Translators: a pace of the AI's moves on screen (the command line's --pace slow).
        "slow": pgettext("pace", "slow"),
        # Translators: a pace of the AI's moves on screen (the command line's --pace normal).
        "normal": pgettext("pace", "normal"),
        # Translators: a pace of the AI's moves on screen (the command line's --pace fast).
        "fast": pgettext("pace", "fast"),
        # Translators: a pace of the AI's moves on screen: no pause (the command line's --pace instant).
        "instant": pgettext("pace", "instant"),
    }
    return names.get(pace, pace)


CARD_STYLES: tuple[str, ...] = ("symbols", "ascii")
THEMES: tuple[str, ...] = (
    "textual-dark",
    "textual-light",
    "nord",
    "gruvbox",
    "dracula",
    "tokyo-night",
    "ansi-dark",
    "ansi-light",
)
#: The targets the settings and the app's command line accept (declared with the rule: ``TARGET``).
TARGET_RANGE: tuple[int, int] = TARGET.settings_range
THINK_MS_RANGE = (50, 10_000)
#: Long enough for a name like "[@click=app.quit]q[/]" (shown literally), short enough for the panels.
NAME_MAX = 24
#: Longest value quoted in a message, and longest message.
QUOTE_MAX = 60
THEME_MAX = 64
OPPONENT_KEYS: tuple[str, ...] = ("name", "kind", "think_ms")


#: A short label for every choice of every word-valued rule (read from the rules' declarations).
CHOICE_LABELS: dict[str, dict[str, str]] = {v.key: {c.value: c.label for c in v.choices} for v in VARIANTS if v.choices}
#: The setting ``auto_hint`` as the Settings screen shows it: its label and what it does.
AUTO_HINT: tuple[str, str] = (N_("Hints on"), N_("show a hint at the start of each of your turns"))
#: The setting ``plain`` as the Settings screen shows it: its label and what it does.
PLAIN: tuple[str, str] = (
    N_("Plain mode"),
    N_("the game as lines of text, for a screen reader or a braille display (from the next start)"),
)
#: Names offered for new opponents, in seat order.
DEFAULT_OPPONENT_NAMES: tuple[str, ...] = ("Greedy", "Kingsley", "Lena")
#: Suggested think times (ms) for the strength of an opponent, weakest first.
STRENGTHS: dict[str, int] = {"quick": 200, "normal": 1000, "strong": 3000}


class ConfigError(ValueError):
    """A setting has a value that is not allowed; the message says which and why."""


def ai_kind_names() -> tuple[str, ...]:
    """The AI kinds an opponent may be, weakest first: every kind of the AI registry
    (:func:`ai.kinds`) that is offered. Read afresh on each call (a kind may be added)."""
    return tuple(k.name for k in ai.kinds() if k.offered)


def __getattr__(name: str) -> tuple[str, ...]:
    """``AI_KIND_NAMES``: :func:`ai_kind_names` (the registry is read when it is asked for)."""
    if name == "AI_KIND_NAMES":
        return ai_kind_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def seat_kind_names() -> tuple[str, ...]:
    """The kinds a seat may be: every offered AI kind (:func:`ai_kind_names`), then :data:`HUMAN`."""
    return (*ai_kind_names(), HUMAN)


def seat_kind_title(kind: str) -> str:
    """A seat's kind in a field too narrow for :func:`seat_kind_shown`: an AI kind's title
    (:func:`ai.kind_title`: "Lungimirante"), a person's seat in words ("persona")."""
    if kind != HUMAN:
        return ai.kind_title(kind)
    return pgettext("seat kind", "human")


def seat_kind_shown(kind: str) -> str:
    """A seat's kind as a player reads it: an AI kind's title with its name
    (:func:`ai.kind_shown`: "Lungimirante (lookahead)"), a person's seat likewise ("umano
    (human)"; "human" in English)."""
    if kind != HUMAN:
        return ai.kind_shown(kind)
    # Translators: the kind of a seat a person plays, as the settings and the new match offer it.
    title = pgettext("seat kind", "human")
    return title if title == HUMAN else _("{title} ({kind})").format(title=title, kind=HUMAN)


@dataclass(frozen=True, slots=True)
class Opponent:
    """A seat besides the first: an AI of ``kind``, or another person when ``kind`` is :data:`HUMAN`."""

    name: str = "Greedy"
    kind: str = "greedy"
    #: The expert's think time per move, in milliseconds (other kinds ignore it).
    think_ms: int = 1000

    @property
    def is_human(self) -> bool:
        return self.kind == HUMAN

    def validate(self) -> None:
        # Translators: the field a name problem is about, "{what} cannot be empty".
        _check_name(self.name, _("an opponent's name"))
        if self.kind not in seat_kind_names():
            kinds = ", ".join(ai_kind_names())
            raise ConfigError(
                _("unknown AI kind {kind}: choose one of {kinds} or {human}").format(
                    kind=quote(self.kind), kinds=kinds, human=HUMAN
                )
            )
        think_ms_check(self.think_ms)


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
    #: Whether AI demos are recorded in the game history (marked as demos).
    record_demos: bool = True
    #: Whether the game shows a hint at the start of each of the person's turns (:data:`AUTO_HINT`).
    auto_hint: bool = False
    #: Whether ``kings-corners`` (and play, demo, tutorial) starts the plain mode (:data:`PLAIN`).
    plain: bool = False
    theme: str = "textual-dark"
    #: The language's code (:data:`kc_tui.i18n.LANGUAGES`); empty: not chosen, the environment's.
    language: str = ""
    #: The server "Play online" opens (``ws://HOST:PORT`` or ``wss://HOST:PORT``); empty: none yet.
    server: str = ""

    @property
    def target(self) -> int:
        return self.rules.target

    @property
    def human_names(self) -> tuple[str, ...]:
        """The names of the people at the table, in seat order: ``player_name`` first."""
        return (self.player_name, *(o.name for o in self.opponents if o.is_human))

    def validate(self) -> None:
        """Raise :class:`ConfigError` naming the first bad setting."""
        # Translators: the field a name problem is about, "{what} cannot be empty".
        _check_name(self.player_name, _("your name"))
        lo, hi = SEATS_RANGE
        if not lo - 1 <= len(self.opponents) <= hi - 1:
            raise ConfigError(
                _("choose {low} to {high} opponents, not {count}").format(
                    low=lo - 1, high=hi - 1, count=len(self.opponents)
                )
            )
        for o in self.opponents:
            o.validate()
        check_human_names(self.human_names)
        if not isinstance(self.rules, Rules):
            raise ConfigError(_("rules must be a table of rule settings"))
        lo, hi = TARGET_RANGE
        if not lo <= self.rules.target <= hi:
            raise ConfigError(
                _("target score must be a whole number from {low} to {high}, not {value}").format(
                    low=lo, high=hi, value=quote(self.rules.target)
                )
            )
        if not isinstance(self.pace, str) or self.pace not in PACES:
            raise ConfigError(
                _("unknown pace {value}: choose one of {choices}").format(
                    value=quote(self.pace), choices=", ".join(PACES)
                )
            )
        if not isinstance(self.card_style, str) or self.card_style not in CARD_STYLES:
            raise ConfigError(
                _("unknown card style {value}: choose one of {choices}").format(
                    value=quote(self.card_style), choices=", ".join(CARD_STYLES)
                )
            )
        if not isinstance(self.four_colour, bool):
            raise ConfigError(_("four_colour must be true or false, not {value}").format(value=quote(self.four_colour)))
        if not isinstance(self.record_demos, bool):
            raise ConfigError(
                _("record_demos must be true or false, not {value}").format(value=quote(self.record_demos))
            )
        if not isinstance(self.auto_hint, bool):
            raise ConfigError(_("auto_hint must be true or false, not {value}").format(value=quote(self.auto_hint)))
        if not isinstance(self.plain, bool):
            raise ConfigError(_("plain must be true or false, not {value}").format(value=quote(self.plain)))
        if (
            not isinstance(self.theme, str)
            or not self.theme.strip()
            or len(self.theme) > THEME_MAX
            or not self.theme.isprintable()
        ):
            raise ConfigError(_("theme must be a theme name, not {value}").format(value=quote(self.theme)))
        if not isinstance(self.language, str) or (self.language and self.language not in LANGUAGES):
            raise ConfigError(
                _("unknown language {value}: choose one of {codes}").format(
                    value=quote(self.language), codes=", ".join(LANGUAGES)
                )
            )
        problem = server_problem(self.server)
        if problem is not None:
            raise ConfigError(problem)

    def with_(self, **changes: Any) -> Config:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "player_name": self.player_name,
            "pace": self.pace,
            "card_style": self.card_style,
            "four_colour": self.four_colour,
            "record_demos": self.record_demos,
            "auto_hint": self.auto_hint,
            "plain": self.plain,
            "theme": self.theme,
        }
        if self.language:  # not chosen: the file says nothing, and the environment decides
            out["language"] = self.language
        if self.server:
            out["server"] = self.server
        out["rules"] = self.rules.to_dict()
        out["opponents"] = [{"name": o.name, "kind": o.kind, "think_ms": o.think_ms} for o in self.opponents]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Config:
        """Settings from a decoded TOML document; missing keys take defaults. Every value is
        checked for its exact type: :class:`ConfigError` (one line) names the first bad one."""
        if not isinstance(data, dict):
            raise ConfigError(_("the settings file must hold a table of settings"))
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise ConfigError(_("unknown setting {key}").format(key=quote(key)))
        kwargs: dict[str, Any] = {k: v for k, v in data.items() if k not in ("rules", "opponents")}
        if "rules" in data:
            rules = data["rules"]
            if isinstance(rules, dict):
                for key, value in rules.items():
                    if not isinstance(value, str | int):  # bools are ints; tables, arrays, floats, dates are wrong
                        raise ConfigError(
                            _("rule {key} must be a word, a whole number or true/false").format(key=quote(key))
                        )
            try:
                kwargs["rules"] = Rules.from_dict(rules)
            except (RulesError, TypeError) as exc:
                raise ConfigError(one_line(str(exc), PROBLEM_MAX)) from None
        if "opponents" in data:
            kwargs["opponents"] = _opponents_from(data["opponents"])
        cfg = cls(**kwargs)
        cfg.validate()
        return cfg


def _opponents_from(ops: Any) -> tuple[Opponent, ...]:
    if not isinstance(ops, list):
        raise ConfigError(_("opponents must be a list of tables, not {value}").format(value=quote(ops)))
    out: list[Opponent] = []
    for i, o in enumerate(ops):
        if not isinstance(o, dict):
            raise ConfigError(
                _("opponent {number} must be a table with {keys}, not {value}").format(
                    number=i + 1, keys=", ".join(OPPONENT_KEYS), value=quote(o)
                )
            )
        for key in o:
            if key not in OPPONENT_KEYS:
                raise ConfigError(
                    _("unknown opponent setting {key}: known are {keys}").format(
                        key=quote(key), keys=", ".join(OPPONENT_KEYS)
                    )
                )
        out.append(Opponent(**o))
    return tuple(out)


def quote(value: Any, limit: int = QUOTE_MAX) -> str:
    """``value`` quoted for a one-line message: ``repr`` (control characters escaped), cut to
    ``limit`` characters. Never raises (an int too long for text is described instead)."""
    try:
        text = repr(value)
    except Exception:  # e.g. ValueError for an int of more than 4,300 digits
        text = f"<{type(value).__name__} too long to show>"
    text = one_line(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def think_ms_check(value: Any) -> None:
    """Raise :class:`ConfigError` unless ``value`` is a whole number in THINK_MS_RANGE (not a bool)."""
    lo, hi = THINK_MS_RANGE
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConfigError(
            _("think time must be a whole number of ms from {low} to {high}, not {value}").format(
                low=lo, high=hi, value=quote(value)
            )
        )


def check_distinct_names(names: Sequence[str]) -> None:
    """Raise :class:`ConfigError` when two people would share a name (case aside): each person's
    name tells their turns, hands and results apart."""
    seen: set[str] = set()
    for name in names:
        key = name.strip().casefold()
        if key in seen:
            raise ConfigError(_("two people at the table cannot share the name {name}").format(name=quote(name)))
        seen.add(key)


def check_human_names(names: Sequence[str]) -> None:
    """:func:`check_distinct_names`, and no one of several people called "You" (a table of
    several people calls no one "you")."""
    check_distinct_names(names)
    for name in names:
        if is_you(name) and len(names) > 1:
            raise ConfigError(
                _("with several people at the table, each needs a name: not {name}").format(name=quote(name))
            )


#: The longest server address kept in the settings.
SERVER_MAX = 200


def server_problem(value: Any) -> str | None:
    """Why ``value`` cannot be the server's address (``ws://HOST:PORT`` or ``wss://HOST:PORT``,
    optionally ending in ``/lobby``; empty: no server), or None when it can."""
    if not isinstance(value, str):
        return _("the server's address must be text, not {value}").format(value=quote(value))
    text = value.strip()
    if not text:
        return None
    import urllib.parse  # loaded when an address is checked

    shown = quote(text)
    if len(text) > SERVER_MAX or not text.isprintable() or any(ch.isspace() for ch in text):
        return _("the server's address {value} is not an address: write ws://HOST:PORT").format(value=shown)
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        return _("the server's address {value} is not an address: write ws://HOST:PORT").format(value=shown)
    if parts.scheme not in ("ws", "wss"):
        return _("the server's address {value} must start with ws:// or wss://").format(value=shown)
    if not parts.hostname or "@" in parts.netloc:
        return _("the server's address {value} names no host: write ws://HOST:PORT").format(value=shown)
    if parts.path.rstrip("/") not in ("", "/lobby") or parts.query or parts.fragment:
        return _("the server's address {value} is only ws://HOST:PORT, with no path").format(value=shown)
    return None


def name_problem(name: Any, what: str) -> str | None:
    """Why ``name`` cannot be used (``what`` names the field), or None when it can."""
    try:
        _check_name(name, what)
    except ConfigError as exc:
        return str(exc)
    return None


def _check_name(name: Any, what: str) -> None:
    if not isinstance(name, str):
        raise ConfigError(_("{what} must be text, not {value}").format(what=what, value=quote(name)))
    if not name.strip():
        raise ConfigError(_("{what} cannot be empty").format(what=what))
    if len(name) > NAME_MAX:
        raise ConfigError(_("{what} is too long: at most {most} characters").format(what=what, most=NAME_MAX))
    if any(not ch.isprintable() for ch in name):
        raise ConfigError(_("{what} must be printable text").format(what=what))
