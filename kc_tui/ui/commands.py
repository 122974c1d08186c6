"""The main menu's actions in Textual's command palette (Ctrl+P).

Each command runs an app action (``action_new_game``, ``action_resume``, ``action_demo``,
``action_online``, ``action_join``, ``action_stats``, ``action_settings``, ``action_rules``,
``action_quit``); a command whose action the app does not have, or which does not apply now
(Resume without a save; an action the app's ``check_action`` refuses, as Join a table in a
served tab without a list of tables), is not offered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

from kc_tui.i18n import N_, _

#: (title, action name, help text), in menu order (title and help translated where shown).
MENU_COMMANDS: tuple[tuple[str, str, str], ...] = (
    (N_("New game"), "new_game", N_("Start a new match against your AI opponents")),
    (N_("Resume"), "resume", N_("Carry on with the saved match")),
    (N_("Watch a demo"), "demo", N_("Watch AI players play each other, hands open")),
    (N_("Play online"), "online", N_("A server's lobby: open tables, quick play, invites: kings-corners server")),
    (N_("Join a table"), "join", N_("Sit at (or watch) a table hosted on another machine: kings-corners host")),
    (N_("Statistics"), "stats", N_("Your results, rating and past matches")),
    (N_("Settings"), "settings", N_("Opponents, target score, house rules, pace and looks")),
    (N_("Rules"), "rules", N_("Read the rules, with this table's variants marked")),
    (N_("Quit"), "quit", N_("Leave Kings Corners")),
)


class MenuCommands(Provider):
    """New game, Resume, Watch a demo, Play online, Join a table, Statistics, Settings, Rules and Quit."""

    def _commands(self) -> list[tuple[str, Callable[[], Any], str]]:
        app: Any = self.app
        out: list[tuple[str, Callable[[], Any], str]] = []
        for title, action, help_text in MENU_COMMANDS:
            method = getattr(app, f"action_{action}", None)
            if method is None:
                continue
            if action == "resume" and not self._can_resume():
                continue
            if not app.check_action(action, ()):
                continue
            out.append((_(title), self._runner(action), _(help_text)))
        return out

    def _can_resume(self) -> bool:
        can_resume = getattr(self.app, "can_resume", None)
        if callable(can_resume):
            return bool(can_resume())
        try:
            from kc_tui.match.saves import save_exists
        except ImportError:  # pragma: no cover - the session ships with the app
            return True
        return save_exists()

    def _runner(self, action: str) -> Callable[[], Any]:
        async def run() -> None:
            await self.app.run_action(action)

        return run

    async def discover(self) -> Hits:
        for title, command, help_text in self._commands():
            yield DiscoveryHit(title, command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, command, help_text in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), command, help=help_text)
