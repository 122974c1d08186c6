"""How a finished match moved its one player's rating, in one line: what the match's summary and
the plain mode say at a match's end. The rating is the Stats screen's, before and after the match;
the history is read here (off the UI's thread), and why there is no line is one too. Plain Python."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kc_tui.i18n import _
from kc_tui.match.recorder import session_record
from kc_tui.records.rows import MatchRecord
from kc_tui.util.printable import one_line

if TYPE_CHECKING:
    from kc_tui.match.recorder import Recorder
    from kc_tui.match.session import MatchSession
    from kc_tui.records.store import History


def played_record(s: MatchSession) -> MatchRecord:
    """The finished match ``s`` as the history records it (:func:`kc_tui.match.recorder.session_record`),
    without waiting for the history: what the Stats screen's rating reads of a match."""
    return session_record(s)


def earlier_matches(history: History, this: MatchRecord, match_id: int | None) -> list[MatchRecord]:
    """The player's finished matches in ``history`` as the Stats screen reads them, less the
    match ``this`` (id ``match_id`` once recorded; else known by its seed and start). Raises what
    the history raises when it cannot be read."""
    from kc_tui.records.bounded import safe_record
    from kc_tui.records.stats_shown import finished, player_matches

    records = player_matches([safe_record(m) for m in history.matches()])
    return [
        m
        for m in records
        if finished(m) and m.id != match_id and (m.seed, m.started_at) != (this.seed, this.started_at)
    ]


def rating_change(earlier: Sequence[MatchRecord], this: MatchRecord) -> str | None:
    """How the match ``this`` moved the player's rating, in one line: "Rating 1512 → 1527
    (+15)", or "Your first rating: 1527 ± 180" after the first rated match; the rating is the
    Stats screen's (:func:`kc_tui.records.stats_shown.rating_view`) before and after ``this``. Why
    there is none when the AI ratings cannot be read; None when the match counts for no rating
    (a demo, no rated AI kind at the table)."""
    from kc_tui.records.stats_shown import player_games, rating_view

    if not player_games(this):
        return None
    after = rating_view([*earlier, this])
    if after.value is None or after.sd is None:
        return after.problem or None
    before = rating_view(earlier)
    new = round(after.value)
    if before.value is None:
        # Translators: {rating} is the player's rating, {sd} how far off it may be.
        return _("Your first rating: {rating} ± {sd}").format(rating=new, sd=f"{after.sd:.0f}")
    old = round(before.value)
    # Translators: {old} and {new} are the ratings before and after the match, {change} the difference (+15).
    return _("Rating {old} → {new} ({change})").format(old=old, new=new, change=f"{new - old:+d}")


#: How long the match's end waits for the history to open before it says the rating is unknown.
RATING_HISTORY_WAIT = 3.0


def rating_line(this: MatchRecord, recorder: Recorder | None, uid: str) -> str | None:
    """The rating line for the finished match ``this`` (in a worker thread): the change, or
    why the rating cannot be worked out."""
    if recorder is None:
        return _("No rating change: this match is not recorded in the game history.")
    history = recorder.wait_open(RATING_HISTORY_WAIT)
    if history is None:
        return _("Your rating cannot be worked out: the game history is not available.")
    try:
        earlier = earlier_matches(history, this, recorder.match_id(uid))
        return rating_change(earlier, this)
    except Exception as exc:  # HistoryError, or a bug: the summary says so, the game goes on
        return one_line(_("Your rating cannot be worked out: {problem}").format(problem=exc or type(exc).__name__))


__all__ = ["RATING_HISTORY_WAIT", "earlier_matches", "played_record", "rating_change", "rating_line"]
