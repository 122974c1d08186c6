"""The settings screen: opponents, your name, target and scoring, house rules, pace and looks.

Every field checks itself as you type; a bad value turns the field red and the error line
says why. Nothing is saved while any field is bad. Saving writes the TOML file atomically
(:func:`kc_tui.config.save_config`) and dismisses the screen with the new :class:`Config`;
cancelling dismisses with ``None`` and undoes the theme preview.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, HorizontalGroup, VerticalScroll
from textual.screen import Screen
from textual.validation import ValidationResult, Validator
from textual.widgets import Button, Footer, Header, Input, Label, Select, Static, Switch

from kc_tui.config import (
    AI_KIND_NAMES,
    CARD_STYLES,
    CHOICE_LABELS,
    DEFAULT_OPPONENT_NAMES,
    NAME_MAX,
    PACE_SECONDS,
    PACES,
    TARGET_RANGE,
    THEMES,
    THINK_MS_RANGE,
    Config,
    ConfigError,
    Opponent,
    int_problem,
    name_problem,
    save_config,
)
from kc_tui.engine import CHOICES, DESCRIPTIONS, Rules, RulesError, parse_card
from kc_tui.engine.rules import INT_RANGES
from kc_tui.session import KIND_NAMES, default_name
from kc_tui.ui.cards import CardLook
from kc_tui.ui.text import plain

#: The word-valued house rules, in the order of RULES.md (scoring has its own section).
HOUSE_RULES: tuple[str, ...] = ("layout_kings", "draw", "completed_piles", "kings_on_sides", "out_with_open_side")
RULE_TITLES: dict[str, str] = {
    "layout_kings": "Kings in the layout",
    "draw": "Drawing",
    "completed_piles": "Completed piles",
    "kings_on_sides": "Kings on sides",
    "out_with_open_side": "Going out",
    "scoring": "Scoring",
}
KIND_HELP: dict[str, str] = {
    "greedy": "greedy: plays every card it can",
    "lookahead": "lookahead: plans its whole turn",
    "king-aware": "king-aware: holds kings for corners",
    "expert": "expert: searches, stronger with more time",
}
PACE_LABELS: dict[str, str] = {p: f"{p} ({PACE_SECONDS[p]:g} s a move)" for p in PACES}
PACE_LABELS["instant"] = "instant (no pause)"
SAMPLE: tuple[str, ...] = ("KS", "QH", "TD", "JC", "AH")


class Check(Validator):
    """A validator from a function returning the problem as text, or None."""

    def __init__(self, problem: Callable[[str], str | None]) -> None:
        super().__init__()
        self.problem = problem

    def validate(self, value: str) -> ValidationResult:
        msg = self.problem(value)
        return self.success() if msg is None else self.failure(msg)


def name_check(what: str) -> Check:
    return Check(lambda v: name_problem(v.strip(), what))


def int_check(what: str, lo: int, hi: int) -> Check:
    return Check(lambda v: int_problem(v, what, lo, hi))


def number_input(value: str, id: str, what: str, bounds: tuple[int, int], max_length: int) -> Input:
    """A compact whole-number field that checks itself as you type (``what`` names it in errors)."""
    lo, hi = bounds
    return Input(
        value, id=id, max_length=max_length, validators=[int_check(what, lo, hi)], compact=True, classes="number"
    )


def card_sample(style: str, four_colour: bool) -> Text:
    """A few cards drawn the way the table will draw them with this card style."""
    look = CardLook(style, four_colour)
    out = Text()
    for text in SAMPLE:
        out.append_text(look.chip(parse_card(text)))
        out.append(" ")
    return out


class SettingsScreen(Screen[Config | None]):
    """Change and save the settings; dismisses with the saved :class:`Config`, or None."""

    CSS_PATH = "settings.tcss"
    TITLE = "Kings Corners"
    SUB_TITLE = "Settings"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "cancel", "Cancel"),
        Binding("f5", "defaults", "Defaults"),
    ]

    def __init__(self, config: Config, path: Path | None = None) -> None:
        super().__init__()
        self.config = config
        self.path = path
        self._theme_before: str | None = None
        self._problems: dict[str, str] = {}

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        cfg = self.config
        rules = cfg.rules
        yield Header(icon="♠")
        with VerticalScroll(id="settings-body"):
            yield Static("Players", classes="section")
            with HorizontalGroup(classes="row"):
                yield Label("Your name", classes="label")
                yield Input(
                    cfg.player_name,
                    id="player-name",
                    max_length=NAME_MAX,
                    validators=[name_check("your name")],
                    compact=True,
                    classes="name",
                )
            with HorizontalGroup(classes="row"):
                yield Label("Opponents", classes="label")
                yield Select(
                    [(f"{n} opponent{'s' if n > 1 else ''}", n) for n in (1, 2, 3)],
                    value=len(cfg.opponents),
                    allow_blank=False,
                    id="opponent-count",
                    compact=True,
                    classes="count",
                )
            lo, hi = THINK_MS_RANGE
            for i in range(3):
                opp = cfg.opponents[i] if i < len(cfg.opponents) else self._default_opponent(i)
                with HorizontalGroup(classes="row opponent", id=f"opponent-{i}"):
                    yield Label(plain(f"Opponent {i + 1}"), classes="label")
                    yield Input(
                        opp.name,
                        id=f"opp-name-{i}",
                        max_length=NAME_MAX,
                        validators=[name_check(f"opponent {i + 1}'s name")],
                        compact=True,
                        classes="name",
                    )
                    yield Select(
                        [(k, k) for k in AI_KIND_NAMES],
                        value=opp.kind if opp.kind in AI_KIND_NAMES else AI_KIND_NAMES[0],
                        allow_blank=False,
                        id=f"opp-kind-{i}",
                        compact=True,
                        classes="kind",
                    )
                    yield Label("think", classes="mini")
                    yield number_input(
                        str(opp.think_ms), f"opp-think-{i}", f"opponent {i + 1}'s think time (ms)", (lo, hi), 5
                    )
                    yield Label("ms", classes="unit")
            yield Static(
                plain(
                    " · ".join(KIND_HELP[k] for k in AI_KIND_NAMES)
                    + f". Think time ({lo}-{hi} ms): the expert's most per move."
                ),
                classes="help",
            )

            yield Static("Match", classes="section")
            tlo, thi = TARGET_RANGE
            with HorizontalGroup(classes="row"):
                yield Label("Target score", classes="label")
                yield number_input(str(rules.target), "target", "the target score", (tlo, thi), 4)
                yield Button("25", id="target-25", compact=True, classes="preset")
                yield Button("50", id="target-50", compact=True, classes="preset")
                yield Label(plain(f"any whole number {tlo}-{thi}"), classes="unit")
            with HorizontalGroup(classes="row"):
                yield Label(RULE_TITLES["scoring"], classes="label")
                yield self._choice_select("scoring", rules.scoring)
            yield Static(DESCRIPTIONS["scoring"], classes="desc")
            with HorizontalGroup(classes="row chips", id="chips-row"):
                yield Label("Starting chips", classes="label")
                clo, chi = INT_RANGES["chips_start"]
                yield number_input(str(rules.chips_start), "chips_start", "the starting stake", (clo, chi), 5)
                yield Label("rounds", classes="mini")
                rlo, rhi = INT_RANGES["chips_rounds"]
                yield number_input(str(rules.chips_rounds), "chips_rounds", "the number of chips rounds", (rlo, rhi), 4)
                yield Label("pay per card", classes="mini wide")
                yield Switch(rules.chips_per_card, id="chips_per_card")
            yield Static(
                "Chips (R16): " + DESCRIPTIONS["chips_start"] + "; " + DESCRIPTIONS["chips_rounds"].split(": ", 1)[1],
                classes="desc chips",
            )

            yield Static("House rules", classes="section")
            for key in HOUSE_RULES:
                with HorizontalGroup(classes="row"):
                    yield Label(RULE_TITLES[key], classes="label")
                    yield self._choice_select(key, getattr(rules, key))
                yield Static(DESCRIPTIONS[key], classes="desc")
            with HorizontalGroup(classes="row"):
                yield Label("Hand size", classes="label")
                hlo, hhi = INT_RANGES["hand_size"]
                yield number_input(str(rules.hand_size), "hand_size", "the hand size", (hlo, hhi), 2)
                yield Label(plain(f"{DESCRIPTIONS['hand_size']} ({hlo}-{hhi}, usually 7)"), classes="unit")

            yield Static("Pace and looks", classes="section")
            with HorizontalGroup(classes="row"):
                yield Label("AI pace", classes="label")
                yield Select(
                    [(PACE_LABELS[p], p) for p in PACES],
                    value=cfg.pace,
                    allow_blank=False,
                    id="pace",
                    compact=True,
                    classes="choice",
                )
            with HorizontalGroup(classes="row"):
                yield Label("Card style", classes="label")
                yield Select(
                    [("suit symbols (K♠ 10♥)", "symbols"), ("plain ASCII (KS TH)", "ascii")],
                    value=cfg.card_style if cfg.card_style in CARD_STYLES else "symbols",
                    allow_blank=False,
                    id="card_style",
                    compact=True,
                    classes="choice",
                )
            with HorizontalGroup(classes="row"):
                yield Label("Four colours", classes="label")
                yield Switch(cfg.four_colour, id="four_colour")
                yield Static(card_sample(cfg.card_style, cfg.four_colour), id="card-sample")
            with HorizontalGroup(classes="row"):
                yield Label("Theme", classes="label")
                themes = list(THEMES) if cfg.theme in THEMES else [*THEMES, cfg.theme]
                yield Select(
                    [(t, t) for t in themes],
                    value=cfg.theme,
                    allow_blank=False,
                    id="theme",
                    compact=True,
                    classes="choice",
                )
        yield Static("", id="error")
        with Horizontal(id="settings-buttons"):
            yield Button("Save", id="save", variant="primary")
            yield Button("Cancel", id="cancel")
            yield Button("Defaults", id="defaults")
        yield Footer()

    def _choice_select(self, key: str, value: str) -> Select[str]:
        default = getattr(Rules(), key)
        options = [(f"{c}: {CHOICE_LABELS[key][c]}{' (default)' if c == default else ''}", c) for c in CHOICES[key]]
        return Select(options, value=value, allow_blank=False, id=key, compact=True, classes="choice")

    @staticmethod
    def _default_opponent(i: int) -> Opponent:
        kinds = ("greedy", "king-aware", "lookahead")
        return Opponent(DEFAULT_OPPONENT_NAMES[i], kinds[i])

    def on_mount(self) -> None:
        self._theme_before = self.app.theme
        self._show_opponent_rows(len(self.config.opponents))
        self._show_chips(self.config.rules.scoring == "chips")
        self.query_one("#player-name", Input).focus()
        self._refresh_error()

    # ------------------------------------------------------------------ reactions
    def _show_opponent_rows(self, count: int) -> None:
        for i in range(3):
            self.query_one(f"#opponent-{i}").display = i < count

    def _show_chips(self, chips: bool) -> None:
        for w in self.query(".chips"):
            w.display = chips

    @on(Select.Changed, "#opponent-count")
    def _count_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, int):
            self._show_opponent_rows(event.value)
            self._refresh_error()

    @on(Select.Changed, ".kind")
    def _kind_changed(self, event: Select.Changed) -> None:
        """An opponent still called by its kind's default name takes the new kind's name."""
        wid = event.select.id or ""
        i = int(wid.rsplit("-", 1)[1])
        kind = event.value
        if not isinstance(kind, str):
            return
        name_input = self.query_one(f"#opp-name-{i}", Input)
        base = name_input.value.strip().rstrip("0123456789").strip()
        if base in KIND_NAMES.values() and not name_input.value.strip().startswith(KIND_NAMES.get(kind, "\0")):
            taken = [self.query_one("#player-name", Input).value.strip()]
            taken += [self.query_one(f"#opp-name-{j}", Input).value.strip() for j in range(3) if j != i]
            name_input.value = default_name(kind, taken)

    @on(Select.Changed, "#scoring")
    def _scoring_changed(self, event: Select.Changed) -> None:
        self._show_chips(event.value == "chips")
        self._refresh_error()

    @on(Select.Changed, "#card_style")
    @on(Switch.Changed, "#four_colour")
    def _looks_changed(self) -> None:
        style = self.query_one("#card_style", Select).value
        four = self.query_one("#four_colour", Switch).value
        self.query_one("#card-sample", Static).update(card_sample(str(style), four))

    @on(Select.Changed, "#theme")
    def _theme_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value in self.app.available_themes:
            self.app.theme = event.value  # a preview; Cancel puts the old theme back

    @on(Input.Changed)
    def _input_changed(self, event: Input.Changed) -> None:
        self._refresh_error()

    @on(Button.Pressed, ".preset")
    def _preset(self, event: Button.Pressed) -> None:
        target = self.query_one("#target", Input)
        target.value = str(event.button.label)
        target.focus()

    @on(Button.Pressed, "#save")
    def _save_pressed(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    @on(Button.Pressed, "#defaults")
    def _defaults_pressed(self) -> None:
        self.action_defaults()

    # ------------------------------------------------------------------ checking
    def problems(self) -> dict[str, str]:
        """Every bad field, by widget id, with what is wrong (only fields in use)."""
        out: dict[str, str] = {}
        count = self._count()
        chips = self.query_one("#scoring", Select).value == "chips"
        for inp in self.query(Input):
            wid = inp.id or ""
            if wid.startswith(("opp-name-", "opp-think-")) and int(wid.rsplit("-", 1)[1]) >= count:
                continue
            if wid in ("chips_start", "chips_rounds") and not chips:
                continue
            result = inp.validate(inp.value)
            if result is not None and not result.is_valid:
                out[wid] = result.failure_descriptions[0]
        names = [self.query_one("#player-name", Input).value.strip()]
        names += [self.query_one(f"#opp-name-{i}", Input).value.strip() for i in range(count)]
        seen: set[str] = set()
        for i, name in enumerate(names):
            if name and name.casefold() in seen:
                wid = "player-name" if i == 0 else f"opp-name-{i - 1}"
                out.setdefault(wid, f"two players cannot share the name {name!r}")
            seen.add(name.casefold())
        return out

    def _refresh_error(self) -> None:
        self._problems = self.problems()
        error = self.query_one("#error", Static)
        if self._problems:
            first = next(iter(self._problems.values()))
            more = len(self._problems) - 1
            extra = f"  (+{more} more)" if more else ""
            error.update(plain(f"✗ {first[0].upper()}{first[1:]}.{extra}"))
            error.add_class("bad")
        else:
            error.update("All settings are valid.  Ctrl+S saves them.")
            error.remove_class("bad")

    def _count(self) -> int:
        value = self.query_one("#opponent-count", Select).value
        return value if isinstance(value, int) else 1

    def _value(self, wid: str) -> Any:
        widget = self.query_one(f"#{wid}")
        if isinstance(widget, Input):
            return widget.value.strip()
        if isinstance(widget, Select | Switch):
            return widget.value
        raise TypeError(wid)  # pragma: no cover

    def build_config(self) -> Config:
        """The settings on screen as a :class:`Config`; :class:`ConfigError` when one is bad."""
        problems = self.problems()
        if problems:
            raise ConfigError(next(iter(problems.values())))
        count = self._count()
        opponents = tuple(
            Opponent(
                name=self._value(f"opp-name-{i}"),
                kind=self._value(f"opp-kind-{i}"),
                think_ms=int(self._value(f"opp-think-{i}")),
            )
            for i in range(count)
        )
        chips = self._value("scoring") == "chips"
        old = self.config.rules
        try:
            rules = old.with_(
                **{key: self._value(key) for key in HOUSE_RULES},
                scoring=self._value("scoring"),
                target=int(self._value("target")),
                hand_size=int(self._value("hand_size")),
                chips_start=int(self._value("chips_start")) if chips else old.chips_start,
                chips_rounds=int(self._value("chips_rounds")) if chips else old.chips_rounds,
                chips_per_card=bool(self._value("chips_per_card")),
            )
        except RulesError as exc:
            raise ConfigError(str(exc)) from None
        cfg = self.config.with_(
            player_name=self._value("player-name"),
            opponents=opponents,
            rules=rules,
            pace=self._value("pace"),
            card_style=self._value("card_style"),
            four_colour=bool(self._value("four_colour")),
            theme=self._value("theme"),
        )
        cfg.validate()
        return cfg

    # ------------------------------------------------------------------ actions
    def action_save(self) -> None:
        problems = self.problems()
        if problems:
            wid = next(iter(problems))
            self._refresh_error()
            self.app.bell()
            self.query_one(f"#{wid}").focus()
            return
        error = self.query_one("#error", Static)
        try:
            cfg = self.build_config()
            where = save_config(cfg, self.path)
        except ConfigError as exc:
            error.update(plain(f"✗ Not saved: {exc}."))
            error.add_class("bad")
            self.app.bell()
            return
        except OSError as exc:
            error.update(plain(f"✗ Could not save the settings: {exc.strerror or exc}."))
            error.add_class("bad")
            self.app.bell()
            return
        self.log.info(f"settings saved to {where}")
        self.dismiss(cfg)

    def action_cancel(self) -> None:
        if self._theme_before and self.app.theme != self._theme_before:
            self.app.theme = self._theme_before
        self.dismiss(None)

    def action_defaults(self) -> None:
        """Put every field back to its default (nothing is saved until Save)."""
        d = Config()
        self.query_one("#player-name", Input).value = d.player_name
        self.query_one("#opponent-count", Select).value = len(d.opponents)
        for i in range(3):
            opp = d.opponents[i] if i < len(d.opponents) else self._default_opponent(i)
            self.query_one(f"#opp-name-{i}", Input).value = opp.name
            self.query_one(f"#opp-kind-{i}", Select).value = opp.kind
            self.query_one(f"#opp-think-{i}", Input).value = str(opp.think_ms)
        r = d.rules
        for key in (*HOUSE_RULES, "scoring"):
            self.query_one(f"#{key}", Select).value = getattr(r, key)
        for key in ("target", "hand_size", "chips_start", "chips_rounds"):
            self.query_one(f"#{key}", Input).value = str(getattr(r, key))
        self.query_one("#chips_per_card", Switch).value = r.chips_per_card
        self.query_one("#pace", Select).value = d.pace
        self.query_one("#card_style", Select).value = d.card_style
        self.query_one("#four_colour", Switch).value = d.four_colour
        self.query_one("#theme", Select).value = d.theme
        self.notify("Defaults restored on screen; Save to keep them.", timeout=3)
