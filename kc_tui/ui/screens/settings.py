"""The settings screen: your name, the other seats (AIs or people), target and scoring, house
rules, pace and looks.

Every field checks itself as you type; a bad value turns the field red and the error line
says why. Nothing is saved while any field is bad. Saving writes the TOML file atomically
(:func:`kc_tui.config.store.save_config`) and dismisses the screen with the new :class:`Config`;
cancelling dismisses with ``None`` and undoes the theme preview (after asking, when a field was
changed: :class:`DiscardDialog`). A field that does not apply with the other settings (the target
score with chips scoring, the chips settings with points) is hidden, and not checked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, HorizontalGroup, Vertical, VerticalScroll
from textual.content import Content
from textual.events import Resize
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Header, Input, Label, OptionList, Select, Static, Switch

import ai
from kc_tui.config import (
    AUTO_HINT,
    CARD_STYLES,
    HUMAN,
    NAME_MAX,
    PACE_SECONDS,
    PACES,
    PLAIN,
    SERVER_MAX,
    THEMES,
    THINK_MS_RANGE,
    Config,
    ConfigError,
    Opponent,
    check_human_names,
    pace_name,
    seat_kind_title,
    server_problem,
)
from kc_tui.config.store import save_config
from kc_tui.engine import VARIANTS, RulesError, parse_card
from kc_tui.engine.rules import Scoring
from kc_tui.i18n import LANGUAGES, N_, _, ngettext
from kc_tui.ui.cards import CardLook
from kc_tui.ui.dialogs.modal import Modal
from kc_tui.ui.literal_text import plain
from kc_tui.ui.widgets.footer import Footer
from kc_tui.ui.widgets.name_input import NameInput
from kc_tui.ui.widgets.rule_fields import (
    HOUSE_RULES,
    MATCH_RULES,
    Check,
    default_opponent,
    name_check,
    name_for_kind,
    number_input,
    number_value,
    only_with,
    show_scoring,
    variant_rows,
)
from kc_tui.util.files import describe_os_error
from kc_tui.util.printable import is_you, name_shown

SAMPLE: tuple[str, ...] = ("KS", "QH", "TD", "JC", "AH")
#: What the field of a setting's value holds: the widgets compared to tell an edit.
FIELDS = "Input, Select, Switch"


def card_sample(style: str, four_colour: bool) -> Text:
    """A few cards drawn the way the table will draw them with this card style."""
    look = CardLook(style, four_colour)
    out = Text()
    for text in SAMPLE:
        out.append_text(look.chip(parse_card(text)))
        out.append(" ")
    return out


#: The card styles offered: how each shows cards (translated where shown), and its value.
CARD_STYLE_CHOICES: dict[str, str] = {N_("suit symbols (K♠ 10♡)"): "symbols", N_("plain ASCII (KS TH)"): "ascii"}


def pace_label(pace: str) -> str:
    """A pace as the settings offer it: its name and the seconds a move takes."""
    if pace == "instant":
        return _("instant (no pause)")
    # Translators: {pace} is the pace's name (slow, normal, fast).
    return _("{pace} ({seconds} s a move)").format(pace=pace_name(pace), seconds=f"{PACE_SECONDS[pace]:g}")


def language_choices() -> list[tuple[str, str]]:
    """The languages offered, each in its own name, after the choice to follow the system's."""
    return [(_("the system's language"), ""), *((name, code) for code, name in LANGUAGES.items())]


#: When a language chosen here is spoken.
LANGUAGE_NOTE = N_("takes effect the next time the game starts (kings-corners --lang CODE: for one run)")


#: What the server's address is for.
SERVER_NOTE = N_("the server Play online opens (kings-corners server prints it); empty: asked when you play online")


#: The cells of a row's label (settings.tcss: ``.label`` 21 wide with 2 of padding): a longer
#: one takes two lines.
LABEL_CELLS = 19


def _row(label: str | Content, *fields: Widget, classes: str = "row", id: str | None = None) -> HorizontalGroup:
    """One row of the form: its label, then its fields."""
    return HorizontalGroup(Label(label, classes="label"), *fields, classes=classes, id=id)


def _select(options: list[tuple[str, Any]], value: Any, wid: str, classes: str = "choice") -> Select[Any]:
    return Select(options, value=value, allow_blank=False, id=wid, compact=True, classes=classes)


def _name_input(value: str, wid: str, what: str) -> NameInput:
    return NameInput(value, id=wid, max_length=NAME_MAX, validators=[name_check(what)], compact=True, classes="name")


def _opponent_rows(cfg: Config) -> ComposeResult:
    """A row for each of the three opponents (those not playing are hidden), and the kinds' help.
    An opponent is an AI kind or another person at the keyboard (:data:`HUMAN`, listed last)."""
    lo, hi = THINK_MS_RANGE
    offered = [k for k in ai.kinds() if k.offered]
    names = (*(k.name for k in offered), HUMAN)
    for i in range(3):
        opp = cfg.opponents[i] if i < len(cfg.opponents) else default_opponent(i)
        yield _row(
            plain(_("Opponent {n}").format(n=i + 1)),
            _name_input(opp.name, f"opp-name-{i}", _("opponent {n}'s name").format(n=i + 1)),
            _select(
                [(seat_kind_title(k), k) for k in names],
                opp.kind if opp.kind in names else names[0],
                f"opp-kind-{i}",
                "kind",
            ),
            Label(_("think"), classes="mini think"),
            number_input(
                str(opp.think_ms),
                f"opp-think-{i}",
                _("Opponent {n}'s think time (ms)").format(n=i + 1),
                (lo, hi),
                5,
                "think",
            ),
            Label(_("ms"), classes="unit think", id=f"opp-think-{i}-unit"),
            classes="row opponent",
            id=f"opponent-{i}",
        )
        yield Static("", id=f"opp-name-{i}-note", classes="name-note")
    # Translators: put between AI kinds' names ("the greedy or the expert").
    timed = _(" or the ").join(k.shown for k in offered if k.takes_think_time)
    # Translators: {kinds} are AI kinds' names joined by " or the " ("greedy or the expert").
    think_help = _(" Think time ({lo}-{hi} ms): the {kinds}'s most per move.").format(lo=lo, hi=hi, kinds=timed)
    kinds = " · ".join(f"{k.shown}: {_(k.description)}" for k in offered) + "."
    yield Static(plain(kinds + (think_help if timed else "")), classes="help")


class DiscardDialog(Modal[bool]):
    """Leave the settings without saving the changes on screen? True: discard them."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", N_("Discard")),
        Binding("n,escape", "answer(False)", N_("Keep editing")),
    ]
    DEFAULT_CSS = """
    DiscardDialog > Vertical {
        width: 44; padding: 1 2;
    }
    DiscardDialog .question { text-style: bold; margin-bottom: 1; width: 1fr; }
    DiscardDialog Horizontal { height: auto; align-horizontal: center; }
    DiscardDialog Button { margin: 0 1; min-width: 12; }
    """
    QUESTION = N_("Discard your changes? y / n")

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(_(self.QUESTION), classes="question", id="question")
            with Horizontal():
                yield Button(_("Discard (y)"), variant="error", id="yes")
                yield Button(_("Keep (n)"), variant="primary", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class SettingsBody(VerticalScroll):
    """The settings' fields (scrolled by PgUp/PgDn from the control focused inside): when its
    size or its content's changes, the screen's footer checks again whether to show PgDn."""

    def on_resize(self, event: Resize) -> None:
        self.refresh_bindings()

    def page_down(self) -> None:
        """A page down that cuts no text in two: the first part not wholly in view (a row, a
        text) goes to the top, unless that is not a step on or it is taller than the view (then
        a whole page)."""
        top, height = round(self.scroll_y), self.scrollable_content_region.height
        cut = next((c.virtual_region for c in self.displayed_children if c.virtual_region.bottom > top + height), None)
        if cut is not None and top < cut.y and cut.height <= height:
            self.scroll_to(y=cut.y, animate=False)
        else:
            self.scroll_page_down(animate=False)


class SettingsScreen(Screen[Config | None]):
    """Change and save the settings; dismisses with the saved :class:`Config`, or None."""

    CSS_PATH = "settings.tcss"
    TITLE = "Kings Corners"
    SUB_TITLE = N_("Settings")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", N_("Save"), priority=True),
        Binding("escape", "cancel", N_("Cancel")),
        Binding("f5", "defaults", N_("Defaults")),
        # Shown in the footer while the fields do not all fit (a priority binding: the focused
        # field's own PgDn, which does nothing, would hide it); an open list keeps its own PgDn.
        Binding("pagedown", "more", N_("More"), key_display="PgDn", priority=True),
    ]

    def __init__(self, config: Config, path: Path | None = None) -> None:
        super().__init__()
        self.sub_title = _(self.SUB_TITLE)
        self.config = config
        self.path = path
        self._theme_before: str | None = None
        self._problems: dict[str, str] = {}
        #: The fields as the screen opened (see :meth:`edited`).
        self._opened: dict[str, object] = {}
        #: The name stored behind the text the name field shows: the default "You" is shown in
        #: the language in use and kept as "You" unless the player types another name.
        self._name_behind: dict[str, str] = {name_shown(config.player_name): config.player_name}

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        cfg = self.config
        yield Header(icon="♠")
        # Not a stop of its own for Tab (focus there would be invisible): the keys that scroll it
        # still reach it from the control focused inside, which it scrolls into view.
        with SettingsBody(id="settings-body", can_focus=False):
            yield Static(_("Players"), classes="section")
            yield _row(_("Your name"), _name_input(name_shown(cfg.player_name), "player-name", _("your name")))
            yield Static("", id="player-name-note", classes="name-note")
            yield Static("", id="player-name-stats", classes="name-stats")
            counts = [(ngettext("{n} opponent", "{n} opponents", n).format(n=n), n) for n in (1, 2, 3)]
            yield _row(_("Opponents"), _select(counts, len(cfg.opponents), "opponent-count", "count"))
            yield from _opponent_rows(cfg)
            yield Static(_("Match"), classes="section")
            yield from variant_rows(MATCH_RULES, cfg.rules)
            yield Static(_("House rules"), classes="section")
            yield from variant_rows(HOUSE_RULES, cfg.rules)
            yield Static(_("Pace and looks"), classes="section")
            themes = list(THEMES) if cfg.theme in THEMES else [*THEMES, cfg.theme]
            style = cfg.card_style if cfg.card_style in CARD_STYLES else "symbols"
            yield _row(_("AI pace"), _select([(pace_label(p), p) for p in PACES], cfg.pace, "pace"))
            styles = [(_(label), value) for label, value in CARD_STYLE_CHOICES.items()]
            yield _row(_("Card style"), _select(styles, style, "card_style"))
            sample = Static(card_sample(cfg.card_style, cfg.four_colour), id="card-sample")
            yield _row(_("Four colours"), Switch(cfg.four_colour, id="four_colour"), sample)
            yield _row(_("Theme"), _select([(t, t) for t in themes], cfg.theme, "theme"))
            yield _row(_("Record demos"), Switch(cfg.record_demos, id="record_demos"))
            yield Static(_("keep AI demos in the game history (marked as demos)"), classes="desc")
            yield _row(_(AUTO_HINT[0]), Switch(cfg.auto_hint, id="auto_hint"))
            yield Static(_(AUTO_HINT[1]), classes="desc")
            yield _row(_(PLAIN[0]), Switch(cfg.plain, id="plain"))
            yield Static(_(PLAIN[1]), classes="desc")
            yield _row(_("Language"), _select(language_choices(), cfg.language, "language"))
            yield Static(_(LANGUAGE_NOTE), classes="desc", id="language-note")
            yield Static(_("Online"), classes="section")
            server = Input(
                cfg.server,
                placeholder="ws://HOST:PORT",
                id="server",
                max_length=SERVER_MAX,
                validators=[Check(server_problem)],
                compact=True,
                classes="server",
            )
            yield _row(_("Server"), server)
            yield Static(_(SERVER_NOTE), classes="desc")
        yield Static("", id="error")
        with Horizontal(id="settings-buttons"):
            yield Button(_("Save"), id="save", variant="primary")
            yield Button(_("Cancel"), id="cancel")
            yield Button(_("Defaults"), id="defaults")
        yield Footer()

    def on_mount(self) -> None:
        self._theme_before = self.app.theme
        self._show_opponent_rows(len(self.config.opponents))
        for i in range(3):
            self._show_think(i)
        show_scoring(self, self.config.rules.scoring == Scoring.CHIPS)
        self.query_one("#player-name", Input).focus()
        self._refresh_error()
        self._opened = self._fields()

    # ------------------------------------------------------------------ reactions
    def _show_opponent_rows(self, count: int) -> None:
        for i in range(3):
            self.query_one(f"#opponent-{i}").display = i < count
            self._show_note(f"opp-name-{i}")

    def _show_note(self, field_id: str) -> None:
        """The line under name field ``field_id`` saying what its last edit cut (hidden when
        nothing was, or the field's row is hidden)."""
        field = self.query_one(f"#{field_id}", NameInput)
        note = self.query_one(f"#{field_id}-note", Static)
        note.update(plain(field.note))
        row = field.parent
        note.display = bool(field.note) and (row is None or bool(getattr(row, "display", True)))

    @on(NameInput.Noted)
    def _name_noted(self, event: NameInput.Noted) -> None:
        if event.field.id:
            self._show_note(event.field.id)

    def _takes_think_time(self, i: int) -> bool:
        """Whether opponent ``i``'s kind on screen takes a think time (a person's seat does not)."""
        kind = self.query_one(f"#opp-kind-{i}", Select).value
        if not isinstance(kind, str) or kind == HUMAN:
            return False
        try:
            return ai.kind_info(kind).takes_think_time
        except ai.UnknownKind:  # pragma: no cover - the list holds registered kinds only
            return False

    def _show_think(self, i: int) -> None:
        """The think time of opponent ``i`` is shown only for an AI kind that takes one."""
        shown = self._takes_think_time(i)
        for w in self.query(f"#opponent-{i} .think"):
            w.display = shown

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
        self._show_think(i)
        self._refresh_error()
        name_input = self.query_one(f"#opp-name-{i}", Input)
        taken = [self.query_one("#player-name", Input).value.strip()]
        taken += [self.query_one(f"#opp-name-{j}", Input).value.strip() for j in range(3) if j != i]
        renamed = name_for_kind(name_input.value, kind, taken)
        if renamed is not None:
            name_input.value = renamed

    @on(Select.Changed, "#scoring")
    def _scoring_changed(self, event: Select.Changed) -> None:
        show_scoring(self, event.value == Scoring.CHIPS)
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
        if event.input.id == "player-name":
            self._show_renamed()

    def _show_renamed(self) -> None:
        """The line under your name when it differs from the one saved: the statistics are kept
        by name, so those played under the saved name stay under it (Stats shows them with p)."""
        line = self.query_one("#player-name-stats", Static)
        old, new = self.config.player_name, self._player_name().strip()
        renamed = bool(new) and new != old
        if renamed:
            line.update(
                plain(
                    _(
                        "Statistics are kept by name: the matches you played as {name} stay under "
                        "{name}. In Stats, p shows them."
                    ).format(name=name_shown(old))
                )
            )
        line.display = renamed

    @on(Button.Pressed, ".preset")
    def _preset(self, event: Button.Pressed) -> None:
        # The focus stays on the button (Tab goes on to the next control): the field shows the value.
        self.query_one("#target", Input).value = str(event.button.label)

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
        for inp in self.query(Input):
            wid = inp.id or ""
            if wid.startswith(("opp-name-", "opp-think-")) and int(wid.rsplit("-", 1)[1]) >= count:
                continue
            if wid.startswith("opp-think-") and not self._takes_think_time(int(wid.rsplit("-", 1)[1])):
                continue
            if not self._in_use(wid):
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
                out.setdefault(wid, _("two players cannot share the name {name}").format(name=repr(name)))
            seen.add(name.casefold())
        people = [("player-name", names[0])]
        people += [(f"opp-name-{i}", names[i + 1]) for i in range(count) if self._value(f"opp-kind-{i}") == HUMAN]
        try:
            check_human_names([name for _wid, name in people])
        except ConfigError as exc:
            wid = next((w for w, name in people if is_you(name)), people[-1][0])
            out.setdefault(wid, str(exc))
        return out

    def _refresh_error(self) -> None:
        self._problems = self.problems()
        error = self.query_one("#error", Static)
        if self._problems:
            first = next(iter(self._problems.values()))
            more = len(self._problems) - 1
            extra = _("  (+{n} more)").format(n=more) if more else ""
            # Translators: {problem} is what is wrong with a setting; {more} is "  (+2 more)", or empty.
            error.update(plain(_("✗ {problem}.{more}").format(problem=f"{first[0].upper()}{first[1:]}", more=extra)))
            error.add_class("bad")
        else:
            error.update(_("All settings are valid.  Ctrl+S saves them."))
            error.remove_class("bad")

    def _in_use(self, key: str) -> bool:
        """Whether the rule ``key`` (any other id: True) matters with the other settings on screen."""
        v = next((v for v in VARIANTS if v.key == key), None)
        only = None if v is None else only_with(v)
        if only is None:
            return True
        other, value = only
        return bool(self.query_one(f"#{other}", Select).value == value)

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

    def _player_name(self) -> str:
        """The name to store: the one the field stands for when it shows a stored or default
        name in the language in use ("Wewe" for "You"), else what the player typed."""
        value = str(self._value("player-name"))
        return self._name_behind.get(value, value)

    def build_config(self) -> Config:
        """The settings on screen as a :class:`Config`; :class:`ConfigError` when one is bad."""
        problems = self.problems()
        if problems:
            raise ConfigError(next(iter(problems.values())))
        count = self._count()
        old_opponents = self.config.opponents
        opponents = tuple(
            Opponent(
                name=self._value(f"opp-name-{i}"),
                kind=self._value(f"opp-kind-{i}"),
                think_ms=self._think_ms(i, old_opponents[i] if i < len(old_opponents) else Opponent()),
            )
            for i in range(count)
        )
        old = self.config.rules
        changes: dict[str, Any] = {}
        for v in VARIANTS:
            value = self._value(v.key)
            if v.bounds is not None:
                # A number not in use (hidden, maybe not valid) keeps its old value.
                changes[v.key] = int(value) if self._in_use(v.key) else getattr(old, v.key)
            elif v.type is bool:
                changes[v.key] = bool(value)
            else:
                changes[v.key] = value
        try:
            rules = old.with_(**changes)
        except RulesError as exc:
            raise ConfigError(str(exc)) from None
        cfg = self.config.with_(
            player_name=self._player_name(),
            opponents=opponents,
            rules=rules,
            pace=self._value("pace"),
            card_style=self._value("card_style"),
            four_colour=bool(self._value("four_colour")),
            record_demos=bool(self._value("record_demos")),
            auto_hint=bool(self._value("auto_hint")),
            plain=bool(self._value("plain")),
            theme=self._value("theme"),
            language=self._value("language"),
            server=self._value("server"),
        )
        cfg.validate()
        return cfg

    def _think_ms(self, i: int, old: Opponent) -> int:
        """Opponent ``i``'s think time: the one on screen when it is a think time (always, for a
        kind that takes one: the screen checked it), else the old one. The field of a kind that
        ignores the think time is hidden and holds the saved value: it is kept as it was."""
        shown = number_value(self._value(f"opp-think-{i}"), *THINK_MS_RANGE)
        return old.think_ms if shown is None else shown

    def _fields(self) -> dict[str, object]:
        """The value of every field on screen (shown or hidden), by widget id."""
        return {w.id: w.value for w in self.query(FIELDS) if w.id and isinstance(w, Input | Select | Switch)}

    def edited(self) -> bool:
        """Whether any field differs from what it held when the screen opened."""
        return self._fields() != self._opened

    # ------------------------------------------------------------------ actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "more":
            return self.query_one(SettingsBody).max_scroll_y > 0
        return True

    def action_more(self) -> None:
        """Scroll the fields a page down (PgDn), unless an open list takes the key."""
        if isinstance(self.focused, OptionList):
            raise SkipAction()
        self.query_one(SettingsBody).page_down()

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
            error.update(plain(_("✗ Not saved: {problem}.").format(problem=exc)))
            error.add_class("bad")
            self.app.bell()
            return
        except OSError as exc:
            error.update(plain(_("✗ Could not save the settings: {problem}.").format(problem=describe_os_error(exc))))
            error.add_class("bad")
            self.app.bell()
            return
        self.log.info(f"settings saved to {where}")
        self.dismiss(cfg)

    def action_cancel(self) -> None:
        """Leave without saving: at once when nothing was changed, else once the player agrees."""
        if self.edited():
            self.app.push_screen(DiscardDialog(), self._discard_answered)
        else:
            self._leave()

    def _discard_answered(self, discard: bool | None) -> None:
        if discard:
            self._leave()

    def _leave(self) -> None:
        if self._theme_before and self.app.theme != self._theme_before:
            self.app.theme = self._theme_before
        self.dismiss(None)

    def action_defaults(self) -> None:
        """Put every field back to its default (nothing is saved until Save)."""
        d = Config()
        for field in self.query(NameInput):
            field.clear_note()
        self._name_behind[name_shown(d.player_name)] = d.player_name
        self.query_one("#player-name", Input).value = name_shown(d.player_name)
        self.query_one("#opponent-count", Select).value = len(d.opponents)
        for i in range(3):
            opp = d.opponents[i] if i < len(d.opponents) else default_opponent(i)
            self.query_one(f"#opp-name-{i}", Input).value = opp.name
            self.query_one(f"#opp-kind-{i}", Select).value = opp.kind
            self.query_one(f"#opp-think-{i}", Input).value = str(opp.think_ms)
        for v in VARIANTS:
            widget = self.query_one(f"#{v.key}")
            if isinstance(widget, Input):
                widget.value = str(getattr(d.rules, v.key))
            elif isinstance(widget, Select | Switch):
                widget.value = getattr(d.rules, v.key)
        self.query_one("#pace", Select).value = d.pace
        self.query_one("#card_style", Select).value = d.card_style
        self.query_one("#four_colour", Switch).value = d.four_colour
        self.query_one("#record_demos", Switch).value = d.record_demos
        self.query_one("#auto_hint", Switch).value = d.auto_hint
        self.query_one("#plain", Switch).value = d.plain
        self.query_one("#theme", Select).value = d.theme
        self.query_one("#language", Select).value = d.language
        self.query_one("#server", Input).value = d.server
        self.notify(_("Defaults restored on screen; Save to keep them."), timeout=3)
