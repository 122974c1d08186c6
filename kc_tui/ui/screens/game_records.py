"""The table's match in the game history: its rounds to replay and review, and the player's
rating change once it is over. Each tells the player, in a toast, why it cannot be done."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kc_tui.i18n import _
from kc_tui.ui.literal_text import visible

if TYPE_CHECKING:
    from textual.app import App

    from kc_tui.match.table import TableDriver


def show_rounds(app: App[Any], driver: TableDriver) -> None:
    """The recorded match's rounds, each one to replay and review (at a table of several people:
    from the seat of the person chosen, :func:`open_replay`)."""
    from kc_tui.ui.dialogs.match_detail import MatchDetail
    from kc_tui.ui.screens.replay import open_replay

    match_id = recorded_match(app, driver, driver.session.rounds_played)
    history = driver.history
    record = history.match(match_id) if history is not None and match_id is not None else None
    if record is None:
        if match_id is not None:
            app.notify(_("This match is not in the game history, so its rounds cannot be replayed."))
        return
    app.push_screen(MatchDetail(record, lambda number: open_replay(app, record.id, number)))


def replay_round(app: App[Any], driver: TableDriver, number: int) -> None:
    """Round ``number`` of the match replayed once the history has it: from the one human's seat,
    or from the seat of the person chosen when several people play (:func:`open_replay`)."""
    from kc_tui.ui.screens.replay import open_replay

    match_id = recorded_match(app, driver, number)
    if match_id is not None:
        open_replay(app, match_id, number)


def recorded_match(app: App[Any], driver: TableDriver, rounds: int) -> int | None:
    """The match's id in the history once its first ``rounds`` rounds are there (waiting a
    moment for the recorder); else None, and the player is told why."""
    recorder = driver.recorder
    if recorder is None:
        app.notify(_("This match is not recorded in the game history, so its rounds cannot be replayed."))
        return None
    uid = driver.session.record.uid
    if not recorder.recorded(uid, rounds):
        recorder.flush(0.5)
    match_id = recorder.match_id(uid)
    if match_id is None or not recorder.recorded(uid, rounds):
        why = recorder.status.problem or _("it is still being recorded")
        app.notify(
            # Translators: {why} is why the round is not recorded yet (an error's text).
            visible(
                _("Round {round} is not in the game history yet ({why}); it will be recorded when it can.").format(
                    round=rounds, why=why
                )
            ),
            title=_("Replay"),
            severity="warning",
        )
        return None
    return match_id


__all__ = ["recorded_match", "replay_round", "show_rounds"]
