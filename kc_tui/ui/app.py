"""The Kings Corners app: the main menu, the table, and the screens around them."""

from __future__ import annotations

import gc
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual import events
from textual.app import App, SystemCommand
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.command import CommandPalette, Provider
from textual.driver import Driver
from textual.filter import Monochrome, NoColor
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.theme import ThemeProvider

from kc_tui.config import Config
from kc_tui.config.store import config_path as settings_path
from kc_tui.i18n import N_, _, ngettext
from kc_tui.match.data_folder import take_data_folder
from kc_tui.match.recorder import Recorder, RecorderStatus
from kc_tui.match.saves import SaveWriter, save_exists
from kc_tui.match.session import MatchSession, load_or_quarantine
from kc_tui.records import datalock
from kc_tui.ui import linebreak
from kc_tui.ui.literal_text import visible
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.table.cursor import ReaderCursor

if TYPE_CHECKING:
    from kc_tui.learn.progress import Progress
    from kc_tui.records.store import History


@dataclass(slots=True)
class StartOptions:
    """What the command line asked for (all optional)."""

    seed: int | None = None
    #: Demo seats (AI kinds) for ``mode == 'demo'``.
    seats: list[str] = field(default_factory=list)
    pace: str | None = None
    #: Notices to show once the app is up (e.g. a settings warning).
    warnings: list[str] = field(default_factory=list)
    #: The table's address for ``mode == 'join'`` (checked: :func:`kc_tui.net.client.table_address`).
    join: str | None = None
    #: Certificates a ``wss://`` table's server is trusted by besides the system's (``join --cafile``).
    join_cafile: str | None = None
    #: No settings file was there at the start: the menu offers Learn to play (:meth:`KingsCornersApp.offers_learning`).
    first_start: bool = False
    #: For ``mode == 'online'``: the server's address or an invite link (``kings-corners online``),
    #: the name to sign in with (None: the settings'), quick play at once, and its wait for AIs.
    online: str | None = None
    online_name: str | None = None
    online_quick: bool = False
    online_fill_after: int = 30


def _menu_commands() -> type[Provider] | None:
    try:
        from kc_tui.ui.commands import MenuCommands
    except ImportError:
        return None
    return MenuCommands


def _freeze_imports() -> None:
    """Move every object made so far (above all, the modules the app imported: their classes,
    functions and constants, which live as long as the process) out of the garbage collector's
    reach, once per process: its full collections then walk only what the app makes, and one
    does not stall the table's first frame (about 20-30 ms)."""
    global _imports_frozen
    if not _imports_frozen:
        gc.freeze()
        _imports_frozen = True


_imports_frozen = False


def _freeze_first_screen() -> None:
    """Once per process, as the first screen is drawn: what it made lives as long as the app (its
    widgets, the match) and goes out of the collector's reach too, so that its first collection
    does not walk all of it (about 10 ms; the cycles it would free there are a few thousand
    objects, made once)."""
    global _first_screen_frozen
    if not _first_screen_frozen:
        gc.freeze()
        _first_screen_frozen = True


_first_screen_frozen = False

#: Why a served tab offers no Join a table.
JOIN_OFF = N_("Joining a table is off on this server: its operator has allowed no table (serve --allow-join).")
#: How long a screen that reads the history waits for it to open at start-up (seconds).
HISTORY_OPEN_WAIT = 3.0
#: How long after the first screen is drawn the history opens (seconds), unless it is asked for
#: sooner: the player's first keys are not answered while SQLite checks the file.
HISTORY_OPEN_DELAY = 0.5
#: How long quitting waits for the last save to be written.
SAVE_CLOSE_WAIT = 5.0
#: How long quitting waits for the recorder to record what is waiting (the rest stays in the outbox).
RECORDER_CLOSE_WAIT = 1.0


class RecorderChanged(Message):
    """The recorder's status changed (posted from its thread)."""

    def __init__(self, status: RecorderStatus) -> None:
        super().__init__()
        self.status = status


class SaveChanged(Message):
    """A save was written, or failed (posted from the save writer's thread)."""


class KingsCornersApp(ReaderCursor, App[int]):
    """``mode``: 'menu' (the main menu), 'play' (a match at once), 'demo' (the AI demo) or
    'tutorial' (Learn to play, where the player left it).

    The window that holds the data folder's lock saves the match and records the history (in the
    recorder's thread: the UI never waits on SQLite); another window on the same folder only
    looks (``look_only`` says why)."""

    TITLE = "Kings Corners"
    COMMANDS = App.COMMANDS | {p for p in (_menu_commands(),) if p is not None}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", N_("Quit"), show=False, priority=True),
    ]

    def __init__(
        self,
        config: Config,
        config_path: Path | None = None,
        mode: str = "menu",
        options: StartOptions | None = None,
    ) -> None:
        _freeze_imports()
        super().__init__()
        linebreak.install(self)  # Thai breaks between its words, never inside a letter
        self.config = config
        self.config_path = config_path
        self.mode = mode
        self.options = options or StartOptions()
        self._seed = self.options.seed
        #: Records every finished round and match (started on mount; None in a window that only looks).
        self.recorder: Recorder | None = None
        #: Writes the match's save after every move, off the UI thread (None in a window that only looks).
        self.saver: SaveWriter | None = None
        #: Why this window only looks (another window holds the data folder), or None.
        self.look_only: str | None = None
        self._lock: datalock.DataLock | None = None
        self._read_history: History | None = None
        self._history_set = False
        self._history_problem: str | None = None
        #: The recorder's problem last told (so that each is said once).
        self._told_problem: str | None = None
        #: Whether the garbage collector waits for the first screen to be drawn (see get_default_screen).
        self._collector_held = False
        #: Whether a saved match was there when the app started.
        self._saved_at_start = False
        #: Whether the data folder's lock was asked for (a joined table does without it).
        self._folder_taken = False

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast is plain text: messages quote names, kinds and paths, which are data
        (``markup`` is ignored; the title is literal in Textual already)."""
        super().notify(
            visible(message, newlines=True), title=visible(title), severity=severity, timeout=timeout, markup=False
        )

    @property
    def history(self) -> History | None:
        """The game history for reading (waiting briefly while it opens at start-up); None when off."""
        if self._history_set or self.recorder is None:
            return self._read_history
        return self.recorder.wait_open(HISTORY_OPEN_WAIT)

    @history.setter
    def history(self, value: History | None) -> None:
        self._read_history, self._history_set = value, True

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's own commands (as Textual 8 has them, in the player's language), less its
        Quit: the menu's Quit (which asks during a game and says the match is saved) is the one
        Quit in the palette."""
        yield SystemCommand(_("Theme"), _("Change the current theme"), self.action_change_theme)
        if screen.query("HelpPanel"):
            yield SystemCommand(_("Keys"), _("Hide the keys and widget help panel"), self.action_hide_help_panel)
        else:
            yield SystemCommand(
                _("Keys"),
                _("Show help for the focused widget and a summary of available keys"),
                self.action_show_help_panel,
            )
        if screen.maximized is not None:
            yield SystemCommand(
                _("Minimize"), _("Minimize the widget and restore to normal size"), screen.action_minimize
            )
        elif screen.focused is not None and screen.focused.allow_maximize:
            yield SystemCommand(_("Maximize"), _("Maximize the focused widget"), screen.action_maximize)
        yield SystemCommand(
            _("Screenshot"),
            _("Save an SVG 'screenshot' of the current screen"),
            lambda: self.set_timer(0.1, self.deliver_screenshot),
        )

    def action_command_palette(self) -> None:
        """Textual's command palette, its prompt in the player's language."""
        if self.use_command_palette and not CommandPalette.is_open(cast("App[object]", self)):
            from kc_tui.ui.textual_translated import Palette

            self.push_screen(Palette(id="--command-palette", placeholder=_("Search for commands…")))

    def search_themes(self) -> None:
        """Textual's list of themes to choose from, its prompt in the player's language."""
        from kc_tui.ui.textual_translated import Palette

        self.push_screen(Palette(providers=[ThemeProvider], placeholder=_("Search for themes…")))

    def action_show_help_panel(self) -> None:
        """Textual's Keys panel, its words in the player's language (:mod:`kc_tui.ui.textual_translated`)."""
        if not self.screen.query("HelpPanel"):
            # Loaded when asked for: Textual's help panel brings its Markdown (markdown-it).
            from kc_tui.ui.textual_translated import KeysPanel

            self.screen.mount(KeysPanel())

    def on_delivery_complete(self, event: events.DeliveryComplete) -> None:
        """The screenshot's toast in the player's language, in place of Textual's."""
        if event.name == "screenshot":
            from kc_tui.ui.textual_translated import SCREENSHOT, SCREENSHOT_SAVED, SCREENSHOT_SAVED_TO

            event.prevent_default()
            saved = (
                _(SCREENSHOT_SAVED) if event.path is None else _(SCREENSHOT_SAVED_TO).format(path=repr(str(event.path)))
            )
            self.notify(saved, title=_(SCREENSHOT))

    def on_delivery_failed(self, event: events.DeliveryFailed) -> None:
        if event.name == "screenshot":
            from kc_tui.ui.textual_translated import SCREENSHOT, SCREENSHOT_FAILED

            event.prevent_default()
            self.notify(_(SCREENSHOT_FAILED), title=_(SCREENSHOT), severity="error")

    def action_help_quit(self) -> None:
        """Ctrl+C does not quit: a toast says which key does, in the player's language."""
        from kc_tui.ui.textual_translated import QUIT_HINT, QUIT_QUESTION

        for key, active in self.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                self.notify(_(QUIT_HINT).format(key=key), title=_(QUIT_QUESTION))
                return

    # ------------------------------------------------------------------ the terminal
    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this platform, or the one ``TEXTUAL_DRIVER`` names; in place of
        Textual's for a terminal on Linux and macOS and textual-serve's for a browser tab, ours
        (:mod:`kc_tui.ui.terminal`, :mod:`kc_tui.ui.tab_driver`): the app ends when its terminal,
        or its tab, is gone. Each is imported only when it is the one."""
        driver = super().get_driver_class()
        name = f"{driver.__module__}:{driver.__name__}"
        if name == "textual.drivers.linux_driver:LinuxDriver":
            from kc_tui.ui.terminal import TerminalDriver

            return TerminalDriver
        if name == "textual.drivers.web_driver:WebDriver":
            try:
                from kc_tui.ui.tab_driver import WebTabDriver
            except ImportError:  # pragma: no cover - Windows (no termios)
                return driver
            return WebTabDriver
        return driver

    def hurry_output(self) -> None:
        """The app is about to end (a signal came): its output to the terminal waits a moment
        at most from now, so a terminal that takes nothing cannot hold it (safe in a signal
        handler)."""
        hurry = getattr(self._driver, "hurry", None)
        if callable(hurry):
            hurry()

    # ------------------------------------------------------------------ start
    def get_default_screen(self) -> Screen[Any]:
        """The first screen, at the bottom of the stack: the menu, or the table of a match the
        command line starts at once (its menu is made when the player leaves it). Nothing lies
        below it, so nothing below is laid out and drawn again with it."""
        # No collection while the first screen is made and drawn (tens of thousands of short-lived
        # objects, 15-30 ms of collections): the collector runs again once it is on screen. The
        # history opens a moment later (HISTORY_OPEN_DELAY: its thread would take the interpreter).
        self._collector_held = gc.isenabled()
        gc.disable()
        self.call_after_refresh(self._first_screen_drawn)
        self._apply_theme()
        screen: Screen[Any]
        if self.mode == "join" and self.options.join is not None:
            # A joined table keeps nothing in the data folder: its lock is taken only if the
            # player leaves the table for the menu (pop_screen).
            from kc_tui.ui.remote.screen import remote_screen

            screen = remote_screen(self.options.join, self.config, cafile=self.options.join_cafile)
        elif self.mode == "online" and self.options.online is not None:
            screen = self._lobby_screen(self.options.online)
        else:
            self._take_data_folder(held=True)
            self._saved_at_start = self.look_only is None and save_exists()
            if self.mode == "play" and self.look_only is None and not self._saved_at_start:
                screen = self._game_screen(self._new_session())
            else:
                screen = MenuScreen()
        # What push_screen does for a screen and Textual's first screen misses: its CSS files
        # read, and a result callback, which switch_screen pops when it replaces the screen on
        # top (leaving a first table makes the menu in its place).
        self._read_first_screen_css(screen)
        screen._push_result_callback(self, None)
        return screen

    def _take_data_folder(self, *, held: bool = False) -> None:
        """Take the data folder's lock: this window saves and records (the recorder opens the
        history once released, at once unless ``held``), or it only looks (``look_only`` says
        why, and the history is read as it is)."""
        self._folder_taken = True
        folder = take_data_folder()
        self._lock, self.look_only = folder.lock, folder.look_only
        if folder.recorder is not None and folder.saver is not None:
            self.recorder = folder.recorder
            self.recorder.listen(lambda status: self.post_message(RecorderChanged(status)))
            self.recorder.start(held=held)
            self.saver = folder.saver
            self.saver.listen(lambda _problem: self.post_message(SaveChanged()))
        else:
            self.run_worker(self._open_to_read, thread=True, exit_on_error=False)

    def _read_first_screen_css(self, screen: Screen[Any]) -> None:
        """The first screen's CSS files, added to the stylesheet's sources. Nothing is parsed yet
        when it is made: the first styling parses every source once (push_screen's way parses
        them all at once, then once again at that first styling)."""
        if screen.CSS:  # not parsed as a file is: the way push_screen adds it
            self._load_screen_css(screen)
            return
        if self.css_monitor is not None:
            self.css_monitor.add_paths(screen.css_path)
        for path in screen.css_path:
            if not self.stylesheet.has_source(str(path), ""):
                self.stylesheet.read(path)

    def on_mount(self) -> None:
        problem: str | None = None
        saved: MatchSession | None = None
        if self._saved_at_start:  # a match saved before this start (not the one it started)
            saved, problem = load_or_quarantine(card_style=self.config.card_style)
        # Toasts go on the screen shown when they are posted, into its toast rack, which is
        # there once the first screen has been drawn.
        self.screen.call_after_refresh(self._announce_warnings, problem)
        if saved is not None:
            self._record_saved(saved)
        if self.look_only is not None:
            return
        if self.mode == "play" and saved is not None:
            self._offer_resume(saved)
        elif self.mode == "demo":
            self.action_demo(direct=True)
        elif self.mode == "tutorial":
            self.open_tutorial()

    def _announce_warnings(self, saved_problem: str | None) -> None:
        for w in self.options.warnings:
            self.notify(w, title=_("Settings"), severity="warning", timeout=12)
        if self.look_only and self.mode == "play":
            # Translators: {why} says which window holds the data folder and what this one can do.
            not_started = _("The match you asked for was not started: {why}").format(why=self.look_only)
            self.notify(not_started, title=_("Another window"), severity="warning", timeout=20)
        elif self.look_only:
            self.notify(self.look_only, title=_("Another window"), severity="warning", timeout=20)
        taken_over = self._lock.taken_over if self._lock is not None else None
        if taken_over:
            self.notify(taken_over, title=_("Data folder"), timeout=12)
        if saved_problem:
            self.notify(saved_problem, title=_("Saved match"), severity="error", timeout=15)

    def _open_to_read(self) -> None:
        """A window that only looks reads the history as it is (never writing it)."""
        try:
            from kc_tui.records.rows import default_history_path
            from kc_tui.records.store import History

            self._read_history = History.open_read_only(default_history_path())
        except Exception as exc:  # HistoryError, or a bug: this window shows no history then
            self._read_history = None
            self.call_from_thread(
                self.notify,
                _("The game history cannot be shown: {problem}").format(problem=exc),
                title=_("Game history"),
                severity="warning",
            )

    def _record_saved(self, saved: MatchSession) -> None:
        """Record the rounds of a saved match the history may not have yet (the game was ended
        before it could record them): recording is idempotent, so nothing is recorded twice."""
        if self.recorder is not None and saved.rounds_played:
            self.recorder.submit_session(saved)

    def on_save_changed(self, _event: SaveChanged) -> None:
        game = self.game
        if game is not None:
            game.tell_save()

    def on_recorder_changed(self, event: RecorderChanged) -> None:
        """Say once what the history could not record and why, and when all of it is recorded."""
        status, recorder = event.status, self.recorder
        if recorder is None:
            return
        if status.opened and not self._history_problem and recorder.open_message:
            self._history_problem = recorder.open_message
            self.notify(recorder.open_message, title=_("Game history"), severity="warning", timeout=15)
        if status.problem is not None and status.problem != self._told_problem:
            self._told_problem = status.problem
            if status.on_disk:
                # Translators: {problem} is why the history cannot record (an error's text).
                told = ngettext(
                    "The game history cannot record yet ({problem}): {n} finished round waits, kept on disk,"
                    " and will be recorded when it can while the game is open. The game goes on.",
                    "The game history cannot record yet ({problem}): {n} finished rounds wait, kept on disk,"
                    " and will be recorded when it can while the game is open. The game goes on.",
                    status.waiting,
                )
            else:
                # Translators: {problem} is why the history cannot record (an error's text).
                told = ngettext(
                    "The game history cannot record yet ({problem}): {n} finished round waits, not kept on"
                    " disk either, but will be recorded when it can while the game is open. The game goes on.",
                    "The game history cannot record yet ({problem}): {n} finished rounds wait, not kept on"
                    " disk either, but will be recorded when it can while the game is open. The game goes on.",
                    status.waiting,
                )
            self.notify(
                visible(told.format(problem=status.problem, n=status.waiting)),
                title=_("Game history"),
                severity="warning",
                timeout=15,
            )
        elif status.problem is None and self._told_problem is not None and status.waiting == 0:
            self._told_problem = None
            self.notify(_("The game history has recorded every round that was waiting."), title=_("Game history"))

    def watch_theme(self, _theme: str) -> None:
        """Without colour (``NO_COLOR``), Textual's filter as the theme asks: no colour at all
        under a theme of the terminal's own colours (``ansi-dark``: its default ink and paper),
        shades of grey under a theme of colours of its own. (Textual chooses once, at start,
        before the settings' theme applies.)"""
        if not self.no_color:
            return
        wanted = NoColor if self.native_ansi_color else Monochrome
        self._filters[:] = [
            wanted() if isinstance(f, (NoColor, Monochrome)) and type(f) is not wanted else f for f in self._filters
        ]

    def _apply_theme(self) -> None:
        try:
            self.theme = self.config.theme
        except Exception:  # an unknown theme must not stop the app
            self.log.warning(f"unknown theme {self.config.theme!r}")

    def _offer_resume(self, saved: MatchSession) -> None:
        from kc_tui.ui.dialogs.confirm import ResumeDialog

        def done(resume: bool | None) -> None:
            if resume:
                self.show_game(saved)
            else:
                self.start_game()

        self.push_screen(ResumeDialog(saved.summary()), done)

    def can_resume(self) -> bool:
        """Whether a saved match exists (the command palette offers Resume only then)."""
        return self.look_only is None and save_exists()

    def can_join(self) -> bool:
        """Whether this app may join a table: anywhere, but a served tab's only with a list of
        tables from its operator (``serve --allow-join``); the menu, its ``j`` key and the command
        palette offer Join a table only then."""
        from kc_tui.net.allowlist import served_tables

        tables = served_tables()
        return tables is None or bool(tables)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("join", "online"):
            return self.can_join()
        return True

    def saved_summary(self) -> str | None:
        """One line about the saved match (for the menu), or None."""
        try:
            s = MatchSession.load(card_style=self.config.card_style)
        except Exception:
            return _("cannot be read")
        return s.summary() if s is not None else None

    # ------------------------------------------------------------------ games
    def start_game(self, seed: int | None = None) -> GameScreen:
        """A new match with the current settings (the first one may use --seed)."""
        return self.show_game(self._new_session(seed))

    def _new_session(self, seed: int | None = None) -> MatchSession:
        if seed is None:
            seed, self._seed = self._seed, None
        return MatchSession.from_config(self.config, seed, writer=self.saver)

    def _game_screen(self, session: MatchSession) -> GameScreen:
        if session.save_path is not None and session.writer is None:
            session.writer = self.saver
        return GameScreen(session, self.config, self.recorder)

    def show_game(self, session: MatchSession) -> GameScreen:
        """The table of ``session`` on top of the menu (in place of a table shown)."""
        while isinstance(self.screen, GameScreen) or (
            len(self.screen_stack) > 1 and not isinstance(self.screen, MenuScreen)
        ):
            self.pop_screen()
        screen = self._game_screen(session)
        self.push_screen(screen)
        return screen

    def pop_screen(self) -> AwaitComplete:
        """Leave the screen on top. The menu is below every other screen: when the app started a
        match at once (no menu was made for the table's first frame), leaving that match's
        screen makes the menu in its place."""
        if len(self.screen_stack) <= 1 and not isinstance(self.screen, MenuScreen):
            if not self._folder_taken:  # a joined table left: the menu saves and records
                self._take_data_folder()
            return self.switch_screen(MenuScreen())
        return super().pop_screen()

    @property
    def game(self) -> GameScreen | None:
        for s in reversed(self.screen_stack):
            if isinstance(s, GameScreen):
                return s
        return None

    # ------------------------------------------------------------------ actions (menu and command palette)
    def action_new_game(self, setup: bool = True, hints: bool = False) -> None:
        """A new match, after its set-up (``setup`` False: at once, with the current settings;
        ``hints``: the set-up turns Hints on); when one is saved (in play, or from an earlier
        session), ask first: the new match would replace it."""
        if self._only_looking():
            return

        def start() -> None:
            if setup:
                self._set_up_game(hints)
            else:
                self.start_game()

        if not save_exists():
            start()
            return
        from kc_tui.ui.dialogs.confirm import ResumeDialog

        game = self.game

        def done(choice: bool | None) -> None:
            if choice is False:
                start()
            elif choice is True and game is None:
                self.action_resume()
            elif choice is True and game is not None and self.screen is not game:
                self.show_game(game.session)

        self.push_screen(ResumeDialog(self.saved_summary() or _("cannot be read"), replacing=True), done)

    def _set_up_game(self, hints: bool = False) -> None:
        """The new match's set-up (opponents, target or chips; ``hints``: with Hints on); it
        starts once chosen, with the choices saved in the settings for next time."""
        from kc_tui.ui.dialogs.new_game import NewGameDialog

        def chosen(cfg: Config | None) -> None:
            if cfg is not None:
                self.config = cfg
                self.start_game()

        config = self.config.with_(auto_hint=True) if hints else self.config
        self.push_screen(NewGameDialog(config, self.config_path), chosen)

    def _only_looking(self) -> bool:
        """Say so when this window only looks (another holds the data folder)."""
        if self.look_only is not None:
            self.notify(self.look_only, title=_("Another window"), severity="warning", timeout=12)
        return self.look_only is not None

    def action_resume(self) -> None:
        if self._only_looking():
            return
        saved, problem = load_or_quarantine(card_style=self.config.card_style)
        if problem:
            self.notify(problem, title=_("Saved match"), severity="error", timeout=15)
        if saved is None:
            if not problem:
                self.notify(_("There is no saved match to resume."))
            if isinstance(self.screen, MenuScreen):
                self.screen.refresh_menu()
            return
        self.show_game(saved)

    def action_demo(self, direct: bool = False) -> None:
        try:
            from kc_tui.ui.screens.demo import DemoScreen
        except ImportError:
            self.notify(_("The demo is not available yet."), severity="warning")
            return
        if direct or self.options.seats:
            seats = self.options.seats or [o.kind for o in self.config.opponents] + ["greedy"]
            pace = self.options.pace or self.config.pace
            self.push_screen(DemoScreen(seats, self.options.seed, pace, self.config, self.demo_recorder))
            return
        try:
            from kc_tui.ui.dialogs.demo_setup import DemoSetupDialog
        except ImportError:
            self.notify(_("The demo is not available yet."), severity="warning")
            return

        def chosen(seats: list[str] | None) -> None:
            if seats:
                self.push_screen(DemoScreen(seats, None, self.config.pace, self.config, self.demo_recorder))

        self.push_screen(DemoSetupDialog(self.config), chosen)

    @property
    def demo_recorder(self) -> Recorder | None:
        """What records demos: the recorder, unless the settings turn that off."""
        return self.recorder if self.config.record_demos else None

    def action_join(self) -> None:
        """Join a table hosted on another machine: its address asked for, then its remote seat
        (every address checked: :func:`kc_tui.net.client.table_address`)."""
        if not self.can_join():
            self.notify(_(JOIN_OFF), severity="warning")
            return
        from kc_tui.ui.remote.dialogs import JoinDialog
        from kc_tui.ui.remote.screen import remote_screen
        from kc_tui.ui.remote.table import RemoteTable

        def chosen(url: str | None) -> None:
            if url is None:
                return
            while isinstance(self.screen, RemoteTable):  # one table at a time: the new one replaces it
                self.pop_screen()
            self.push_screen(remote_screen(url, self.config))

        self.push_screen(JoinDialog(), chosen)

    def _lobby_screen(self, address: str) -> Screen[Any]:
        from kc_tui.ui.remote.lobby import LobbyScreen

        options = self.options
        return LobbyScreen(
            address,
            self.config,
            name=options.online_name,
            quick=options.online_quick,
            fill_after=options.online_fill_after,
            cafile=options.join_cafile,
        )

    def action_online(self) -> None:
        """Play online: the lobby of the server in the settings, else of the one asked for
        (kept in the settings)."""
        if not self.can_join():
            self.notify(_(JOIN_OFF), severity="warning")
            return
        if self.config.server:
            self.push_screen(self._lobby_screen(self.config.server))
            return
        from kc_tui.net.lobby_client import parse_invite
        from kc_tui.ui.dialogs.online import ServerDialog

        def chosen(address: object) -> None:
            if not isinstance(address, str):
                return
            if parse_invite(address) is None:
                self._keep_server(address)
            self.push_screen(self._lobby_screen(address))

        self.push_screen(ServerDialog(), chosen)

    def _keep_server(self, address: str) -> None:
        """The server's address kept in the settings ("Play online" opens it next time)."""
        from kc_tui.config import ConfigError
        from kc_tui.config.store import save_config

        config = self.config.with_(server=address.strip())
        try:
            save_config(config, self.config_path)
        except (ConfigError, OSError) as exc:
            self.notify(
                _("The server's address is not kept in the settings: {problem}").format(problem=exc), severity="warning"
            )
            return
        self.config = config

    # ------------------------------------------------------------------ learn to play
    def _tutorial_progress(self) -> Progress:
        """The tutorial's progress; a file that cannot be used is said in one line (it starts again)."""
        from kc_tui.learn.progress import load_progress

        progress, problem = load_progress()
        if problem is not None:
            self.notify(problem, title=_("Learn to play"), severity="warning", timeout=12)
        return progress

    def open_tutorial(self, lesson: str | None = None) -> None:
        """The tutorial's lesson ``lesson`` (None: where the player left it) over the menu; once
        every lesson is behind the player, the list of lessons, which says so and offers a game."""
        from kc_tui.ui.screens.tutorial import open_lesson

        progress = self._tutorial_progress()
        if lesson is None and not progress.lesson:
            self._choose_lesson(progress)
            return
        self.push_screen(open_lesson(lesson, self.config, progress))

    def action_learn(self) -> None:
        """Learn to play: the lessons and their state; the one chosen opens at the table."""
        self._choose_lesson(self._tutorial_progress())

    def _choose_lesson(self, progress: Progress) -> None:
        from kc_tui.ui.dialogs.lessons import GAME, LessonsDialog

        def chosen(lesson: str | None) -> None:
            if lesson == GAME:
                self.hand_over()
            elif lesson is not None:
                self.open_tutorial(lesson)

        self.push_screen(LessonsDialog(progress), chosen)

    def offers_learning(self) -> bool:
        """Whether the menu offers Learn to play with a line of its own: at a first start (no
        settings file then), until the player starts the tutorial or keeps settings."""
        if not self.options.first_start or self.look_only is not None:
            return False
        from kc_tui.learn.progress import progress_path  # the lessons load with it: at a first start only

        if progress_path().exists():
            return False
        return not settings_path(self.config_path).exists()

    def hand_over(self) -> None:
        """The tutorial's end: a real match's set-up, with a hint at the start of each turn."""
        self.action_new_game(hints=True)

    def action_stats(self) -> None:
        from kc_tui.ui.screens.stats import StatsScreen

        self.push_screen(StatsScreen(self.history))

    def _first_screen_drawn(self) -> None:
        self._release_collector()
        if self.recorder is not None:
            self.recorder.release(after=HISTORY_OPEN_DELAY)

    def _release_collector(self) -> None:
        if self._collector_held:
            self._collector_held = False
            _freeze_first_screen()
            gc.enable()

    def on_unmount(self) -> None:
        """Finish writing the save, record what waits (briefly; the rest stays in the outbox for next
        time), then let go."""
        self._release_collector()
        if self.saver is not None:
            self.saver.close(SAVE_CLOSE_WAIT)
        if self.recorder is not None:
            self.recorder.close(RECORDER_CLOSE_WAIT)
        if self._read_history is not None:
            self._read_history.close()
        if self._lock is not None:
            self._lock.release()

    def action_settings(self) -> None:
        try:
            from kc_tui.ui.screens.settings import SettingsScreen
        except ImportError:
            self.notify(_("The settings screen is not available yet."), severity="warning")
            return

        def done(cfg: Config | None) -> None:
            if cfg is not None:
                self.config = cfg
                self._apply_theme()
                self.notify(_("Settings saved: they apply from the next game."))

        self.push_screen(SettingsScreen(self.config, self.config_path), done)

    def action_rules(self) -> None:
        try:
            from kc_tui.ui.screens.rules import RulesScreen
        except ImportError:
            self.notify(_("The rules screen is not available yet."), severity="warning")
            return
        game = self.game
        self.push_screen(RulesScreen(game.driver.rules if game else self.config.rules))

    async def action_quit(self) -> None:
        """Quit; while a match's table is up (whatever is on top of it, its summaries too) the
        game asks first and says whether the match is saved; a table another machine hosts asks
        too."""
        from kc_tui.ui.dialogs.confirm import QuitDialog

        if isinstance(self.screen, QuitDialog):
            self.exit(0)
            return
        game = self.game
        if game is not None:
            game.action_quit()
            return
        remote = next((s for s in reversed(self.screen_stack) if getattr(s, "ASKS_BEFORE_QUIT", False)), None)
        if remote is not None:
            remote.action_quit()
            return
        self.exit(0)
