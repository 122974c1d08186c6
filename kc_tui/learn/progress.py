"""How far the player got in the tutorial: the lesson and step to come back to, and each lesson's
state (learnt or skipped). A small JSON
file in the data folder (``tutorial.json``), written atomically and read strictly: a file that
cannot be used is set aside and the tutorial starts again, said in one line."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kc_tui.config.store import data_dir
from kc_tui.engine.position import PositionError, loads_strict
from kc_tui.engine.strict import is_int
from kc_tui.i18n import _
from kc_tui.learn.lessons import BY_ID, LESSONS
from kc_tui.util.files import atomic_write, describe_os_error, move_aside, read_capped
from kc_tui.util.printable import PROBLEM_MAX, one_line

FORMAT = "kings-corners/tutorial/1"
FILE_NAME = "tutorial.json"
#: The largest progress file read (bytes).
MAX_BYTES = 16 * 1024
#: A lesson's states besides "to do".
DONE = "done"
SKIPPED = "skipped"
KEYS = frozenset({"format", "lesson", "step", "lessons"})


class ProgressError(ValueError):
    """A progress file that cannot be used; the message says why."""


@dataclass(frozen=True, slots=True)
class Progress:
    """Where the tutorial stands. ``lesson`` is the lesson to come back to (empty: every lesson
    is behind the player), ``step`` its step."""

    lesson: str = LESSONS[0].id
    step: int = 0
    #: Each lesson learnt or skipped: its id, ``done`` or ``skipped``.
    states: dict[str, str] = field(default_factory=dict)

    def state(self, lesson: str) -> str:
        """``done``, ``skipped`` or empty (to do)."""
        return self.states.get(lesson, "")

    def at(self, lesson: str, step: int) -> Progress:
        return replace(self, lesson=lesson, step=step)

    def _after(self, lesson: str, states: dict[str, str]) -> Progress:
        """The progress once ``lesson`` is behind the player: the next lesson not learnt nor skipped."""
        ids = [each.id for each in LESSONS]
        later = ids[ids.index(lesson) + 1 :] + ids[: ids.index(lesson)]
        following = next((i for i in later if i not in states), "")
        nxt = following if self.lesson in ("", lesson) else self.lesson
        return replace(self, lesson=nxt, step=0 if nxt != self.lesson else self.step, states=states)

    def learnt(self, lesson: str) -> Progress:
        return self._after(lesson, {**self.states, lesson: DONE})

    def skipped(self, lesson: str) -> Progress:
        if self.state(lesson) == DONE:
            return self
        return self._after(lesson, {**self.states, lesson: SKIPPED})

    def reset(self) -> Progress:
        """Every lesson to do again, from the first."""
        return Progress()

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "lesson": self.lesson,
            "step": self.step,
            "lessons": dict(self.states),
        }

    @classmethod
    def from_dict(cls, data: Any) -> Progress:
        """Progress from a decoded file, every value checked: :class:`ProgressError` otherwise."""
        if not isinstance(data, dict):
            raise ProgressError(_("it is not a JSON object"))
        unknown = sorted(set(data) - KEYS)
        if unknown:
            raise ProgressError(_("{what} is not valid").format(what=repr(unknown[0])))
        if data.get("format") != FORMAT:
            raise ProgressError(_("{what} is not valid").format(what="'format'"))
        lesson = data.get("lesson", LESSONS[0].id)
        if not isinstance(lesson, str) or (lesson and lesson not in BY_ID):
            raise ProgressError(_("{what} is not valid").format(what="'lesson'"))
        step = data.get("step", 0)
        most = len(BY_ID[lesson].steps) if lesson else 0
        if not is_int(step) or not 0 <= step <= most:
            raise ProgressError(_("{what} is not valid").format(what="'step'"))
        states = data.get("lessons", {})
        if not isinstance(states, dict) or any(k not in BY_ID or v not in (DONE, SKIPPED) for k, v in states.items()):
            raise ProgressError(_("{what} is not valid").format(what="'lessons'"))
        return cls(lesson, step, dict(states))


def _not_usable() -> str:
    """What is said of a progress file that cannot be used (translated when it is said)."""
    # Translators: {kept} is empty or a sentence after a space saying where the file was moved.
    return _("The tutorial's progress is not usable ({problem}): it starts again.{kept}")


def progress_path() -> Path:
    """The progress file: ``tutorial.json`` in the data folder."""
    return data_dir() / FILE_NAME


def load_progress(path: Path | None = None) -> tuple[Progress, str | None]:
    """The progress, and one plain line when the file could not be used (the tutorial then
    starts again; the file is set aside). A missing file is a fresh start, without a word."""
    path = path or progress_path()
    try:
        raw = read_capped(path, MAX_BYTES)
        if raw is None:
            raise ProgressError(_("it is larger than {size} KiB").format(size=MAX_BYTES // 1024))
        return Progress.from_dict(loads_strict(raw)), None
    except FileNotFoundError:
        return Progress(), None
    except OSError as exc:
        return Progress(), _not_usable().format(problem=describe_os_error(exc), kept="")
    except (ProgressError, PositionError, ValueError) as exc:
        problem = one_line(str(exc), PROBLEM_MAX)
    return Progress(), _not_usable().format(problem=problem, kept=move_aside(path, ".bad"))


def save_progress(progress: Progress, path: Path | None = None) -> str | None:
    """Write the progress atomically; None, or one plain line saying why it could not be."""
    try:
        atomic_write(path or progress_path(), (json.dumps(progress.to_dict(), indent=2) + "\n").encode("utf-8"))
    except OSError as exc:
        return _("The tutorial's progress could not be saved ({problem}).").format(problem=describe_os_error(exc))
    return None


__all__ = ["DONE", "SKIPPED", "Progress", "ProgressError", "load_progress", "progress_path", "save_progress"]
