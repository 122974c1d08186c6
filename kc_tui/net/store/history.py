"""A table's history in the store of the tables (:mod:`.tablestore`): the row each save is
written as, and the save at each seq by replay.

A row is a **snapshot** (a match's whole save, compact: :func:`~kc_tui.match.saves.save_bytes`)
or a **move**: one step of a turn as a small JSON object, replayed through the session's own
methods (no rule is played here):

- ``{"play": "play 7H N"}``: the move of the person on turn (:meth:`MatchSession.play_human`: the
  person's, or an AI's standing in for them), in the engine's notation;
- ``{"ai": "end", "fault": "..."}``: an AI's move (:meth:`MatchSession.apply_ai_turn`; ``fault``:
  the reason its fault line gives, when it failed);
- ``{"undo": true}``: the last move of the person on turn taken back (:meth:`MatchSession.undo`);

each with ``"hint": [moves, ["play 7H N", ...]]`` when the save keeps a hint's plan
(:meth:`MatchSession.hint_kept`), and ``"digest"``: the sha256 of the compact save after it
(base64), which every replay checks.

A save is written as a move row only when it is one such step from the row written just before
it (the session says so: :attr:`MatchSession.last_change`, and that row was written); anything
else is a snapshot: a round's first position, the match's last, a seat's new name, a save written
again after one that failed (:func:`row_of`).

A replay writes the log's lines again; the log is kept in English whatever the language in use
(:mod:`kc_tui.match.log_lines`), so a history replays the same in a process of any language. The
workers of one cluster run one version: a history written by another may not replay (its digests
differ; :func:`apply`).

Plain Python (no Redis, no PostgreSQL): tests and tools read a history with :func:`saves`.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from kc_tui.engine import Match, MoveError, move_str, parse_move
from kc_tui.engine.strict import loads
from kc_tui.match.saves import save_bytes
from kc_tui.match.session import MatchSession
from kc_tui.net.store.tablestore import MOVE, SNAPSHOT, Written

#: The keys naming a move row's step, one of them in every row.
STEPS = ("play", "ai", "undo")


class HistoryError(Exception):
    """A history that does not replay: a move row that is damaged, one the session refuses, or a
    position that differs from its digest. One plain line naming the row's seq, never a card."""


def digest(save: bytes) -> str:
    """The digest a move row keeps of the save after it: its sha256, in base64."""
    return base64.b64encode(hashlib.sha256(save).digest()).decode("ascii")


def row_of(session: MatchSession, save: bytes, follows: bool) -> tuple[bytes, bool]:
    """The row that writes ``save``, the save ``session`` just made (its sink is given it): the
    move row and False when it is one step of a turn (:attr:`MatchSession.last_change`) and
    ``follows`` (the row written last is the save before it); else ``save`` itself and True (a
    snapshot)."""
    change = session.last_change
    if change is None or not follows:
        return save, True
    entry: dict[str, Any] = {}
    if change.kind == "undo":
        entry["undo"] = True
    else:
        entry[change.kind] = move_str(change.move)
        if change.fault is not None:
            entry["fault"] = change.fault
    hint = session.hint_kept()
    if hint is not None:
        entry["hint"] = [hint[0], [move_str(m) for m in hint[1]]]
    entry["digest"] = digest(save)
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode(), False


def start(snapshot: bytes) -> MatchSession:
    """The session of a snapshot, as a worker serves it (a shared log).
    :class:`~kc_tui.match.saves.SaveError` or ValueError when it is not a usable save."""
    return MatchSession.from_dict(loads(snapshot), shared_log=True)


def over(save: bytes) -> bool:
    """Whether ``save`` is a match's last position (the match over: no session is made of it)."""
    try:
        return Match.from_dict(loads(save)["match"]).over
    except (ValueError, TypeError, KeyError):
        return False


def _damaged(seq: int) -> HistoryError:
    return HistoryError(f"the move row of seq {seq} is damaged")


def _entry(row: Written) -> dict[str, Any]:
    """A move row's entry, its fields checked; :class:`HistoryError` when it is damaged."""
    try:
        entry = loads(row.data)
    except ValueError:
        raise _damaged(row.seq) from None
    if not isinstance(entry, dict) or sum(key in entry for key in STEPS) != 1:
        raise _damaged(row.seq)
    if not isinstance(entry.get("digest"), str) or set(entry) - {*STEPS, "fault", "hint", "digest"}:
        raise _damaged(row.seq)
    if "undo" in entry and entry["undo"] is not True:
        raise _damaged(row.seq)
    if not isinstance(entry.get("fault", ""), str) or ("fault" in entry and "ai" not in entry):
        raise _damaged(row.seq)
    return entry


def _move(value: object, seq: int) -> int:
    if not isinstance(value, str):
        raise _damaged(seq)
    try:
        return parse_move(value)
    except MoveError:
        raise _damaged(seq) from None


def _hint(value: object, seq: int) -> tuple[int, tuple[int, ...]] | None:
    if value is None:
        return None
    if not (isinstance(value, list) and len(value) == 2 and type(value[0]) is int and isinstance(value[1], list)):
        raise _damaged(seq)
    return value[0], tuple(_move(m, seq) for m in value[1])


def apply(session: MatchSession, row: Written) -> bytes:
    """Make the step of the move row ``row`` in ``session`` (through its own methods); the save
    after it (compact), checked against the row's digest. :class:`HistoryError` (nothing of the
    row named but its seq) when the row is damaged, the session refuses the step, or the save
    differs from the one written."""
    entry = _step(session, row)
    save = save_bytes(session.to_dict(), compact=True)
    if digest(save) != entry["digest"]:
        raise HistoryError(f"the position replayed at seq {row.seq} differs from the one written")
    return save


def _step(session: MatchSession, row: Written) -> dict[str, Any]:
    """Make the step of the move row ``row`` in ``session``; its entry. :class:`HistoryError`
    when the row is damaged or the session refuses the step."""
    entry = _entry(row)
    seq = row.seq
    if "undo" in entry:
        done = session.undo()
    elif "play" in entry:
        done = session.human_to_move and session.play_human(_move(entry["play"], seq)) is None
    else:
        m = _move(entry["ai"], seq)
        done = session.ai_to_move and session.apply_ai_turn(session.prepare_ai_turn(), m, fault=entry.get("fault"))
    if not done:
        raise HistoryError(f"the move of seq {seq} is refused by its position")
    hint = _hint(entry.get("hint"), seq)
    if session.hint_kept() != hint:
        session.keep_hint(hint)
    return entry


class Replay:
    """A table's history replayed row by row (:meth:`feed`): :attr:`session` is the match at the
    last row fed. A snapshot row starts it again from its save (None after the match's last
    position: no move row may follow it)."""

    def __init__(self, snapshot: bytes | None = None) -> None:
        self.session: MatchSession | None = None if snapshot is None else start(snapshot)

    def feed(self, row: Written) -> bytes:
        """The save at ``row``'s seq. :class:`HistoryError` when it does not replay (a move row
        with no snapshot before it too); a snapshot that is not a usable save:
        :class:`~kc_tui.match.saves.SaveError` or ValueError."""
        if row.kind == SNAPSHOT:
            self.session = None if over(row.data) else start(row.data)
            return row.data
        if row.kind != MOVE or self.session is None:
            raise HistoryError(f"the row of seq {row.seq} follows no snapshot")
        return apply(self.session, row)


def rebuild(snapshot: bytes, entries: Sequence[Written]) -> MatchSession:
    """The match at the last of ``entries`` (the rows after ``snapshot``, a claimed table's:
    :class:`~.tablestore.Claimed`): each step made, and the save after the last checked against
    its digest (the save holds the position, the match and the log's last lines, so a step that
    went another way shows there; a claim makes the whole save once, not once a row). :class:`HistoryError`
    when one does not replay, :class:`~kc_tui.match.saves.SaveError` or ValueError when
    ``snapshot`` is not a usable save."""
    replay = Replay(snapshot)
    for at, row in enumerate(entries):
        if at < len(entries) - 1 and row.kind == MOVE and replay.session is not None:
            _step(replay.session, row)
        else:
            replay.feed(row)
    if replay.session is None:
        raise HistoryError(f"the history of {len(entries)} rows after its snapshot ends with the match over")
    return replay.session


def saves(history: Iterable[Written]) -> dict[int, bytes]:
    """The save at every seq of a table's history (:meth:`~.tablestore.TableStore.history`, from
    its row 0), by replay; :class:`HistoryError` when a move row does not replay,
    :class:`~kc_tui.match.saves.SaveError` or ValueError when a snapshot is not a usable save."""
    replay = Replay()
    return {row.seq: replay.feed(row) for row in history}


__all__ = ["STEPS", "HistoryError", "Replay", "apply", "digest", "over", "rebuild", "row_of", "saves", "start"]
