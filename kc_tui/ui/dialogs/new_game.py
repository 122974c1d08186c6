"""The set-up of a new match: how many opponents, each one's AI kind, and the target score (or,
under chips scoring, the chips settings).

The kinds are the AI registry's (:func:`ai.kinds`, those offered for an opponent); the scoring,
target and chips fields are the settings screen's own rows (:func:`variant_rows`), with their
checks. Start saves the choices in the settings file (:func:`kc_tui.config.store.save_config`, as
Settings saves it) and dismisses with the new :class:`Config`, so the next New game opens with
the same choices; Esc dismisses with None and changes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, HorizontalGroup, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Select, Static, Switch

from kc_tui.config import HUMAN, Config, ConfigError, Opponent, seat_kind_names, seat_kind_shown, seat_kind_title
from kc_tui.config.store import save_config
from kc_tui.engine import RulesError
from kc_tui.engine.rules import SCORING, TARGET, Scoring
from kc_tui.i18n import N_, _, ngettext
from kc_tui.ui.dialogs.modal import Modal
from kc_tui.ui.literal_text import plain, visible
from kc_tui.ui.widgets.rule_fields import (
    MATCH_RULES,
    default_opponent,
    name_for_kind,
    only_with,
    show_scoring,
    variant_rows,
)
from kc_tui.util.files import describe_os_error

#: The most opponents a match seats (the settings' limit).
MAX_OPPONENTS = 3
KEYS_HELP = N_("Ctrl+S starts · Tab moves · Esc back to the menu")
MORE_HELP = N_("Names, think times and house rules: Settings in the menu.")


class NewGameDialog(Modal[Config | None]):
    """Choose the opponents and the target (or chips) of the next match; dismisses with the
    settings it saved (the match starts with them), or None."""

    DEFAULT_CSS = """
    NewGameDialog #new-game {
        width: 78; max-width: 100%; max-height: 100%; padding: 0 1;
    }
    NewGameDialog #new-game-title { text-style: bold; width: 1fr; content-align: center middle; }
    NewGameDialog #new-game-body { height: auto; max-height: 1fr; }
    NewGameDialog .row { height: 1; margin-top: 1; }
    NewGameDialog .row.opponent { margin-top: 0; }
    NewGameDialog .label { width: 18; text-style: bold; }
    NewGameDialog .row:focus-within { background: $accent 12%; }
    NewGameDialog .row:focus-within > .label { color: $accent; }
    NewGameDialog Select.count { width: 20; }
    NewGameDialog Select.kind { width: 16; }
    NewGameDialog Select.choice { width: 48; }
    NewGameDialog Select:focus > SelectCurrent { background: $accent 40%; color: $text; text-style: bold; }
    NewGameDialog .opp-name { width: 1fr; padding: 0 2; color: $text-muted; }
    NewGameDialog Input.number { width: 8; }
    NewGameDialog Input:focus { background: $accent 40%; color: $text; text-style: bold; }
    NewGameDialog Input.-invalid:focus { background: $error 50%; }
    NewGameDialog .mini { width: auto; padding: 0 1 0 2; color: $text-muted; }
    NewGameDialog .unit { width: auto; padding: 0 1; color: $text-muted; }
    NewGameDialog Button.preset { margin-left: 1; min-width: 4; }
    NewGameDialog Button.preset:focus { background: $accent; color: $text; text-style: bold; }
    NewGameDialog Switch { height: 1; border: none; padding: 0 1; width: 8; }
    NewGameDialog Switch:focus { background: $accent 60%; }
    NewGameDialog .desc { color: $text-muted; padding-left: 18; width: 1fr; }
    NewGameDialog .help { color: $text-muted; width: 1fr; }
    NewGameDialog #new-game-error { width: 1fr; margin-top: 1; color: $success; }
    NewGameDialog #new-game-error.bad { color: $text-error; text-style: bold; }
    NewGameDialog #new-game-buttons { height: auto; width: 1fr; align-horizontal: center; }
    NewGameDialog #new-game-buttons Button { margin: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", N_("Back to the menu")),
        Binding("ctrl+s", "start", N_("Start"), priority=True),
    ]

    def __init__(self, config: Config, path: Path | None = None) -> None:
        """``path``: the settings file the choices are saved to (None: the usual one)."""
        super().__init__()
        self.config = config
        self.path = path
        #: Every opponent the dialog can seat (the hidden ones too), their names as they will play.
        self.opponents: list[Opponent] = [
            config.opponents[i] if i < len(config.opponents) else default_opponent(i) for i in range(MAX_OPPONENTS)
        ]

    def compose(self) -> ComposeResult:
        kinds = seat_kind_names()
        ai_names = [k for k in kinds if k != HUMAN]
        with Vertical(id="new-game"):
            yield Static(_("New game"), id="new-game-title")
            with VerticalScroll(id="new-game-body", can_focus=False):
                with HorizontalGroup(classes="row"):
                    yield Label(_("Opponents"), classes="label")
                    yield Select(
                        [
                            (ngettext("{n} opponent", "{n} opponents", n).format(n=n), n)
                            for n in range(1, MAX_OPPONENTS + 1)
                        ],
                        value=len(self.config.opponents),
                        allow_blank=False,
                        id="opponent-count",
                        compact=True,
                        classes="count",
                    )
                for i, opp in enumerate(self.opponents):
                    with HorizontalGroup(classes="row opponent", id=f"opponent-{i}"):
                        yield Label(plain(_("Opponent {number}").format(number=i + 1)), classes="label")
                        yield Select(
                            [(seat_kind_title(k), k) for k in kinds],
                            value=opp.kind if opp.kind in kinds else kinds[0],
                            allow_blank=False,
                            id=f"opp-kind-{i}",
                            compact=True,
                            classes="kind",
                        )
                        yield Label(plain(opp.name), id=f"opp-name-{i}", classes="opp-name")
                # Translators: {kinds} are the AI kinds' names, {human} the kind of a seat for a person.
                kinds_help = _("AI kinds, weakest first: {kinds}; or {human}: another person.").format(
                    kinds=", ".join(seat_kind_shown(k) for k in ai_names), human=seat_kind_shown(HUMAN)
                )
                yield Static(plain(f"{kinds_help} {_(MORE_HELP)}"), classes="help")
                yield from variant_rows(MATCH_RULES, self.config.rules)
            yield Static("", id="new-game-error")
            yield Static(_(KEYS_HELP), classes="help")
            with Horizontal(id="new-game-buttons"):
                yield Button(_("Start"), id="start", variant="primary", compact=True)
                yield Button(_("Cancel"), id="cancel", compact=True)

    def on_mount(self) -> None:
        self._show_opponents(len(self.config.opponents))
        show_scoring(self, self.config.rules.scoring == Scoring.CHIPS)
        self._refresh_error()
        # The first choice has the focus: Enter there opens it, and never starts a match unseen.
        self.query_one("#opponent-count", Select).focus()

    # ------------------------------------------------------------------ reactions
    def _show_opponents(self, count: int) -> None:
        for i in range(MAX_OPPONENTS):
            self.query_one(f"#opponent-{i}").display = i < count

    @on(Select.Changed, "#opponent-count")
    def _count_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, int):
            self._show_opponents(event.value)

    @on(Select.Changed, ".kind")
    def _kind_changed(self, event: Select.Changed) -> None:
        """An opponent still called by a kind's default name takes the new kind's name."""
        i = int((event.select.id or "").rsplit("-", 1)[1])
        kind = event.value
        if not isinstance(kind, str) or kind == self.opponents[i].kind:
            return
        taken = [self.config.player_name] + [o.name for j, o in enumerate(self.opponents) if j != i]
        name = name_for_kind(self.opponents[i].name, kind, taken) or self.opponents[i].name
        self.opponents[i] = Opponent(name, kind, self.opponents[i].think_ms)
        self.query_one(f"#opp-name-{i}", Label).update(plain(name))

    @on(Select.Changed, f"#{SCORING.key}")
    def _scoring_changed(self, event: Select.Changed) -> None:
        show_scoring(self, event.value == Scoring.CHIPS)
        self._refresh_error()

    @on(Input.Changed)
    def _input_changed(self) -> None:
        self._refresh_error()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_start()

    @on(Button.Pressed, ".preset")
    def _preset(self, event: Button.Pressed) -> None:
        self.query_one(f"#{TARGET.key}", Input).value = str(event.button.label)

    @on(Button.Pressed, "#start")
    def _start_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_start()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_cancel()

    # ------------------------------------------------------------------ checking
    def _in_use(self, key: str) -> bool:
        """Whether the rule ``key`` matters with the scoring on screen (the target with points,
        the chips settings with chips)."""
        v = next((v for v in MATCH_RULES if v.key == key), None)
        only = None if v is None else only_with(v)
        return only is None or self.query_one(f"#{only[0]}", Select).value == only[1]

    def problems(self) -> dict[str, str]:
        """Every field in use that is bad, by widget id, with what is wrong (the fields' own checks)."""
        out: dict[str, str] = {}
        for inp in self.query(Input):
            result = inp.validate(inp.value)
            if inp.id and self._in_use(inp.id) and result is not None and not result.is_valid:
                out[inp.id] = result.failure_descriptions[0]
        return out

    def _refresh_error(self) -> None:
        problems = self.problems()
        error = self.query_one("#new-game-error", Static)
        error.set_class(bool(problems), "bad")
        if problems:
            first = next(iter(problems.values()))
            # Translators: {problem} is what is wrong with a field ("the target must be a number").
            error.update(plain(_("✗ {problem}.").format(problem=f"{first[0].upper()}{first[1:]}")))
        else:
            error.update(_("Your choices are kept for the next new game."))

    def build_config(self) -> Config:
        """The settings with the choices on screen; :class:`ConfigError` when one is bad."""
        problems = self.problems()
        if problems:
            raise ConfigError(next(iter(problems.values())))
        count = self.query_one("#opponent-count", Select).value
        count = count if isinstance(count, int) else len(self.config.opponents)
        changes: dict[str, Any] = {}
        for v in MATCH_RULES:
            widget = self.query_one(f"#{v.key}")
            if isinstance(widget, Input):
                if self._in_use(v.key):  # a field not in use (hidden) keeps the value saved
                    changes[v.key] = int(widget.value.strip())
            elif isinstance(widget, Select | Switch):
                changes[v.key] = widget.value
        try:
            rules = self.config.rules.with_(**changes)
        except RulesError as exc:
            raise ConfigError(str(exc)) from None
        cfg = self.config.with_(opponents=tuple(self.opponents[:count]), rules=rules)
        cfg.validate()
        return cfg

    # ------------------------------------------------------------------ actions
    def action_start(self) -> None:
        """Start with the choices on screen, saved for next time; a bad field keeps the dialog
        open and says why. When the settings file cannot be written, the match starts all the
        same and a message says the choices are not kept."""
        problems = self.problems()
        error = self.query_one("#new-game-error", Static)
        if problems:
            self._refresh_error()
            self.app.bell()
            self.query_one(f"#{next(iter(problems))}").focus()
            return
        try:
            cfg = self.build_config()
        except ConfigError as exc:
            error.update(plain(_("✗ {problem}.").format(problem=exc)))
            error.add_class("bad")
            self.app.bell()
            return
        try:
            save_config(cfg, self.path)
        except ConfigError as exc:
            self._not_kept(str(exc))
        except OSError as exc:
            self._not_kept(describe_os_error(exc))
        self.dismiss(cfg)

    def _not_kept(self, why: str) -> None:
        self.app.notify(
            # Translators: {why} is why the settings file could not be written.
            visible(_("Your choices are used for this match but not kept for the next: {why}.").format(why=why)),
            title=_("Settings"),
            severity="warning",
            timeout=12,
        )

    def action_cancel(self) -> None:
        self.dismiss(None)
