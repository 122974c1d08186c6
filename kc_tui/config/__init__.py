"""The user's settings: opponents, target, house rules, pace and card style.

Stored as TOML in the user's config directory (platformdirs), written atomically. The file
is found from, in order: an explicit path (``--config FILE``), the environment variable
``KINGS_CORNERS_CONFIG``, the user's config directory. A corrupt or unreadable file never
stops the app: defaults are used and a warning says so. The file in the user's config directory
is the app's own: a bad one is kept beside as ``.bak``. A file named by the user is never moved
or written over unless it already holds settings (or nothing): a bad one is left as it is.

Also the file and folder helpers every writer uses: :func:`atomic_write`, :func:`ensure_data_dir`
and :func:`describe_os_error` (a failure in one plain line: "the disk is full", ...).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import platformdirs

import ai
from kc_tui.engine import VARIANTS, Rules, RulesError
from kc_tui.engine.rules import TARGET

APP_NAME = "kings-corners"
ENV_CONFIG = "KINGS_CORNERS_CONFIG"
ENV_DATA = "KINGS_CORNERS_DATA"

PACES: tuple[str, ...] = ("slow", "normal", "fast", "instant")
#: Seconds between AI moves shown on screen, per pace.
PACE_SECONDS: dict[str, float] = {"slow": 1.2, "normal": 0.6, "fast": 0.15, "instant": 0.0}
CARD_STYLES: tuple[str, ...] = ("symbols", "ascii")
THEMES: tuple[str, ...] = ("textual-dark", "textual-light", "nord", "gruvbox", "dracula", "tokyo-night")
#: The targets the settings and the app's command line accept (declared with the rule: ``TARGET``).
TARGET_RANGE: tuple[int, int] = TARGET.settings_range
THINK_MS_RANGE = (50, 10_000)
#: Long enough for a name like "[@click=app.quit]q[/]" (shown literally), short enough for the panels.
NAME_MAX = 24
#: The largest settings file read (bytes); a bigger one is treated as corrupt.
CONFIG_MAX_BYTES = 1 << 20
#: Longest value quoted in a message, and longest message.
QUOTE_MAX = 60
#: Longest reason quoted in a warning (the file's path and where it went are never cut).
PROBLEM_MAX = 300
THEME_MAX = 64
OPPONENT_KEYS: tuple[str, ...] = ("name", "kind", "think_ms")


#: A short label for every choice of every word-valued rule (read from the rules' declarations).
CHOICE_LABELS: dict[str, dict[str, str]] = {v.key: {c.value: c.label for c in v.choices} for v in VARIANTS if v.choices}
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


@dataclass(frozen=True, slots=True)
class Opponent:
    name: str = "Greedy"
    kind: str = "greedy"
    #: The expert's think time per move, in milliseconds (other kinds ignore it).
    think_ms: int = 1000

    def validate(self) -> None:
        _check_name(self.name, "an opponent's name")
        names = ai_kind_names()
        if self.kind not in names:
            raise ConfigError(f"unknown AI kind {quote(self.kind)}: choose one of {', '.join(names)}")
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
    theme: str = "textual-dark"

    @property
    def target(self) -> int:
        return self.rules.target

    def validate(self) -> None:
        """Raise :class:`ConfigError` naming the first bad setting."""
        _check_name(self.player_name, "your name")
        if not 1 <= len(self.opponents) <= 3:
            raise ConfigError(f"choose 1 to 3 opponents, not {len(self.opponents)}")
        for o in self.opponents:
            o.validate()
        if not isinstance(self.rules, Rules):
            raise ConfigError("rules must be a table of rule settings")
        lo, hi = TARGET_RANGE
        if not lo <= self.rules.target <= hi:
            raise ConfigError(f"target score must be a whole number from {lo} to {hi}, not {quote(self.rules.target)}")
        if not isinstance(self.pace, str) or self.pace not in PACES:
            raise ConfigError(f"unknown pace {quote(self.pace)}: choose one of {', '.join(PACES)}")
        if not isinstance(self.card_style, str) or self.card_style not in CARD_STYLES:
            raise ConfigError(f"unknown card style {quote(self.card_style)}: choose one of {', '.join(CARD_STYLES)}")
        if not isinstance(self.four_colour, bool):
            raise ConfigError(f"four_colour must be true or false, not {quote(self.four_colour)}")
        if not isinstance(self.record_demos, bool):
            raise ConfigError(f"record_demos must be true or false, not {quote(self.record_demos)}")
        if (
            not isinstance(self.theme, str)
            or not self.theme.strip()
            or len(self.theme) > THEME_MAX
            or not self.theme.isprintable()
        ):
            raise ConfigError(f"theme must be a theme name, not {quote(self.theme)}")

    def with_(self, **changes: Any) -> Config:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "player_name": self.player_name,
            "pace": self.pace,
            "card_style": self.card_style,
            "four_colour": self.four_colour,
            "record_demos": self.record_demos,
            "theme": self.theme,
            "rules": self.rules.to_dict(),
            "opponents": [{"name": o.name, "kind": o.kind, "think_ms": o.think_ms} for o in self.opponents],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Config:
        """Settings from a decoded TOML document; missing keys take defaults. Every value is
        checked for its exact type: :class:`ConfigError` (one line) names the first bad one."""
        if not isinstance(data, dict):
            raise ConfigError("the settings file must hold a table of settings")
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise ConfigError(f"unknown setting {quote(key)}")
        kwargs: dict[str, Any] = {k: v for k, v in data.items() if k not in ("rules", "opponents")}
        if "rules" in data:
            rules = data["rules"]
            if isinstance(rules, dict):
                for key, value in rules.items():
                    if not isinstance(value, str | int):  # bools are ints; tables, arrays, floats, dates are wrong
                        raise ConfigError(f"rule {quote(key)} must be a word, a whole number or true/false")
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
        raise ConfigError(f"opponents must be a list of tables, not {quote(ops)}")
    out: list[Opponent] = []
    for i, o in enumerate(ops):
        if not isinstance(o, dict):
            raise ConfigError(f"opponent {i + 1} must be a table with {', '.join(OPPONENT_KEYS)}, not {quote(o)}")
        for key in o:
            if key not in OPPONENT_KEYS:
                raise ConfigError(f"unknown opponent setting {quote(key)}: known are {', '.join(OPPONENT_KEYS)}")
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


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` as one plain line: every non-printable character (newlines, escapes, other
    control characters) written as its escape sequence; cut to ``limit`` characters if given."""
    if not text.isprintable():
        text = "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)
    return text if limit is None or len(text) <= limit else text[: limit - 3] + "..."


def think_ms_check(value: Any) -> None:
    """Raise :class:`ConfigError` unless ``value`` is a whole number in THINK_MS_RANGE (not a bool)."""
    lo, hi = THINK_MS_RANGE
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConfigError(f"think time must be a whole number of ms from {lo} to {hi}, not {quote(value)}")


def name_problem(name: Any, what: str) -> str | None:
    """Why ``name`` cannot be used (``what`` names the field), or None when it can."""
    try:
        _check_name(name, what)
    except ConfigError as exc:
        return str(exc)
    return None


def _check_name(name: Any, what: str) -> None:
    if not isinstance(name, str):
        raise ConfigError(f"{what} must be text, not {quote(name)}")
    if not name.strip():
        raise ConfigError(f"{what} cannot be empty")
    if len(name) > NAME_MAX:
        raise ConfigError(f"{what} is too long: at most {NAME_MAX} characters")
    if any(not ch.isprintable() for ch in name):
        raise ConfigError(f"{what} must be printable text")


def default_config_path() -> Path:
    """The settings file that is the app's own: ``settings.toml`` in the user's config directory."""
    return Path(platformdirs.user_config_dir(APP_NAME)) / "settings.toml"


def config_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Where the settings live: ``explicit``, else $KINGS_CORNERS_CONFIG, else the user's config dir."""
    if explicit:
        return Path(explicit)
    env = os.environ.get(ENV_CONFIG)
    if env:
        return Path(env)
    return default_config_path()


def is_default_config_path(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is the app's own settings file (:func:`default_config_path`), which the
    app may move aside and replace. Any other file was named by the user (``--config FILE`` or
    $KINGS_CORNERS_CONFIG) and is never moved, and replaced only by a save over a file that is
    missing or already valid settings (:func:`save_config`)."""
    return os.path.abspath(path) == os.path.abspath(default_config_path())


def data_dir() -> Path:
    """Where saved games live: $KINGS_CORNERS_DATA, else the user's data dir. Only computes the
    path (nothing is created): :func:`ensure_data_dir` makes the folder."""
    env = os.environ.get(ENV_DATA)
    if env:
        return Path(env)
    return Path(platformdirs.user_data_dir(APP_NAME))


# ---------------------------------------------------------------------- faults in plain words
class FileError(OSError):
    """An OSError told in plain words: ``str(exc)`` is one line saying what failed and why,
    ``exc.strerror`` the why alone (as :func:`describe_os_error` gives it), ``exc.errno`` the
    system's error number (None when there is none) and ``exc.filename`` the path."""

    def __init__(
        self, message: str, reason: str, errno_: int | None = None, filename: str | os.PathLike[str] | None = None
    ) -> None:
        super().__init__(errno_, reason, None if filename is None else os.fspath(filename))
        self.message = message

    def __str__(self) -> str:
        return self.message


class DataDirError(FileError):
    """The data folder cannot be made or written into (:func:`ensure_data_dir`)."""


#: The plain words for the errors that do not depend on which path failed.
_REASONS: dict[int, str] = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "read-only file system",
    errno.EIO: "an input/output error (the disk may be failing)",
    errno.EFBIG: "the file is too large",
    errno.EMFILE: "too many files are open",
    errno.ENFILE: "too many files are open",
    errno.ENAMETOOLONG: "the name is too long",
    errno.ELOOP: "too many links in a row (a link may point back at itself)",
    errno.EBUSY: "it is busy",
    errno.ETXTBSY: "it is busy",
    errno.ENOMEM: "out of memory",
    errno.ENODEV: "there is no such device",
    errno.ENXIO: "there is no such device",
}


def describe_os_error(exc: OSError) -> str:
    """Why ``exc`` happened, as one short plain phrase without a full stop: "the disk is full",
    "permission denied", "read-only file system", "X is a file, not a folder", "X is a folder,
    not a file", "X does not exist"... (X is the path involved, made printable). A
    :class:`FileError` gives its ``strerror``. Never raises."""
    if isinstance(exc, FileError):
        return exc.strerror or str(exc)
    code = exc.errno
    if code in _REASONS:
        return _REASONS[code]
    names = [n for n in (exc.filename2, exc.filename) if isinstance(n, str | bytes | os.PathLike)]
    if code == errno.ENOTDIR:
        for name in names:
            blocker = _file_in_the_way(Path(os.fsdecode(name)))
            if blocker is not None:
                return f"{one_line(str(blocker))} is a file, not a folder"
        return "a part of the path is a file, not a folder"
    if code == errno.EISDIR:
        for name in names:
            if os.path.isdir(name):
                return f"{one_line(os.fsdecode(name))} is a folder, not a file"
        return "it is a folder, not a file"
    if code == errno.ENOENT:
        for name in names:
            path = Path(os.fsdecode(name))
            if os.path.islink(path):
                return _broken_link(path)
            missing = _first_missing(path)
            if missing is not None:
                return f"{one_line(str(missing))} does not exist"
        return "it does not exist"
    if code == errno.EEXIST:
        for name in names:
            return f"{one_line(os.fsdecode(name))} already exists"
        return "it already exists"
    text = exc.strerror or (str(exc.args[0]) if exc.args else "") or type(exc).__name__
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        text = text[0].lower() + text[1:]
    return one_line(text.rstrip("."), PROBLEM_MAX)


def _file_in_the_way(path: Path) -> Path | None:
    """The first folder on the way to ``path`` that exists but is not a folder (None if none)."""
    for ancestor in reversed((path, *path.parents)):
        if os.path.lexists(ancestor) and not os.path.isdir(ancestor):
            return ancestor
    return None


def _first_missing(path: Path) -> Path | None:
    """The first part of ``path`` that does not exist (None when all of it does)."""
    for ancestor in reversed((path, *path.parents)):
        if not os.path.lexists(ancestor):
            return ancestor
    return None


def _link_to(path: Path) -> str:
    """Where the link ``path`` points, made printable."""
    try:
        return one_line(os.readlink(path))
    except OSError:
        return "?"


def _broken_link(path: Path) -> str:
    return f"{one_line(str(path))} is a link to {_link_to(path)}, which does not exist"


def _folder_problem(folder: Path, exc: OSError | None) -> str:
    """What is wrong with ``folder`` (made with ``mkdir``, which failed with ``exc``, or None when
    it exists but cannot be written into), as words that follow its name."""
    if os.path.lexists(folder) and not os.path.isdir(folder):
        if os.path.islink(folder):
            if not os.path.exists(folder):
                return f"is a link to {_link_to(folder)}, which does not exist"
            return "is a link to a file, not to a folder"
        return "is a file, not a folder" if os.path.isfile(folder) else "is not a folder"
    blocker = _file_in_the_way(folder)
    if blocker is not None:
        return f"cannot be created: {one_line(str(blocker))} is a file, not a folder"
    code = exc.errno if exc is not None else None
    if code == errno.EROFS or (exc is None and _read_only(folder)):
        return "is on a read-only file system"
    if code in (errno.EACCES, errno.EPERM) or exc is None:
        return ("cannot be created: " if exc is not None else "cannot be written into: ") + "permission denied"
    return f"cannot be created: {describe_os_error(exc)}"


def _read_only(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def _ensure_folder(folder: Path) -> str | None:
    """Make ``folder`` (and its parents) if it is missing. None when it is a folder that can be
    written into, else what is wrong, as words that follow its name (see :func:`_folder_problem`)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return _folder_problem(folder, exc)
    if not os.path.isdir(folder):  # pragma: no cover - mkdir(exist_ok=True) raises for a non-folder
        return _folder_problem(folder, None)
    if _read_only(folder) or not os.access(folder, os.W_OK | os.X_OK):
        return _folder_problem(folder, None)
    return None


def ensure_data_dir(folder: str | os.PathLike[str] | None = None) -> Path:
    """The data folder (``folder``, else :func:`data_dir`), made if missing and ready to be written
    into. :class:`DataDirError` (an OSError) otherwise, its message one line such as "The data
    folder X is a file, not a folder", "The data folder X cannot be created: permission denied",
    "The data folder X is on a read-only file system", "The data folder X is a link to Y, which
    does not exist" or "The data folder X cannot be created: Y is a file, not a folder"."""
    target = data_dir() if folder is None else Path(folder)
    problem = _ensure_folder(target)
    if problem is not None:
        shown = one_line(str(target))
        reason = f"the data folder {shown} {problem}"
        raise DataDirError(f"The data folder {shown} {problem}", reason, _errno_of(problem), target)
    return target


def _errno_of(problem: str) -> int | None:
    if "read-only" in problem:
        return errno.EROFS
    if "permission denied" in problem:
        return errno.EACCES
    if "not a folder" in problem or "not to a folder" in problem:
        return errno.ENOTDIR
    if "does not exist" in problem:
        return errno.ENOENT
    return None


# ---------------------------------------------------------------------- the settings file
class NotRegularFile(OSError):
    """The path exists but is a directory, a pipe, a device...: it is never read."""


class NotASettingsFile(ConfigError):
    """A file named by the user (``--config FILE``, $KINGS_CORNERS_CONFIG) holds something else
    than settings we can read: it is never written over (:func:`save_config`)."""


def _parse_settings(raw: bytes | None) -> Config:
    """The settings in a file's bytes (None: too large); :class:`ConfigError` saying why not."""
    if raw is None:
        raise ConfigError(f"it is larger than {CONFIG_MAX_BYTES // 1024} KiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError("it is not UTF-8 text") from None
    import tomllib  # loaded when there is a settings file to read

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"it is not valid TOML ({exc})") from None
    except RecursionError:
        raise ConfigError("it is not usable TOML: it is nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise ConfigError(f"it is not usable TOML ({exc})") from None
    return Config.from_dict(data)


def _read_settings(path: Path) -> Config:
    """The settings in the file ``path``: FileNotFoundError, :class:`NotRegularFile`, or
    :class:`ConfigError` saying why it cannot be used (unreadable, too large, not settings)."""
    try:
        raw = read_capped(path, CONFIG_MAX_BYTES)
    except (FileNotFoundError, NotRegularFile):
        raise
    except OSError as exc:
        raise ConfigError(f"it cannot be read: {describe_os_error(exc)}") from None
    try:
        return _parse_settings(raw)
    except ConfigError:
        raise
    except Exception as exc:  # a bug we did not foresee: the file still must not stop the app
        raise ConfigError(f"it could not be read ({type(exc).__name__})") from None


def load_config(path: str | os.PathLike[str] | None = None) -> tuple[Config, str | None]:
    """The settings and a warning (None when all is well). Never raises for a bad file:
    whatever goes wrong while reading it, the defaults are used and the warning (one plain
    line) says why. The app's own file (:func:`is_default_config_path`) is moved aside to
    ``<name>.bak`` (``.bak.1``, ``.bak.2``, ... when a backup is there already) and the warning
    says where it went; a file named by the user is left exactly as it is, and the warning says
    that settings changed now are not saved to it (:func:`save_config` refuses to)."""
    p = config_path(path)
    shown = one_line(str(p))
    ours = is_default_config_path(p)
    try:
        return _read_settings(p), None
    except FileNotFoundError:
        if not ours and os.path.islink(p):
            return Config(), (
                f"Settings file {shown} is a link to {_link_to(p)}, which does not exist: it was left as it is"
                " and the defaults are used; settings changed now are not saved to it."
            )
        return Config(), None
    except NotRegularFile:
        left = "It was left in place and is ignored." + ("" if ours else " Settings changed now are not saved to it.")
        return Config(), f"Settings {shown} is not a regular file; using defaults. {left}"
    except ConfigError as exc:
        problem = one_line(str(exc), PROBLEM_MAX)
    except Exception as exc:  # a bug we did not foresee: the file still must not stop the app
        problem = f"it could not be read ({type(exc).__name__})"
    if not ours:
        return Config(), (
            f"Settings file {shown} is not a settings file ({problem}): it was left as it is and the defaults"
            " are used; settings changed now are not saved to it."
        )
    kept = move_aside(p, ".bak")
    return Config(), f"Settings file {shown} is invalid ({problem}); using defaults.{kept}"


def read_capped(path: Path, cap: int) -> bytes | None:
    """The bytes of the regular file ``path``, or None when it holds more than ``cap`` bytes
    (at most ``cap + 1`` bytes are read). FileNotFoundError when there is none (also when a
    part of its path is a file),
    :class:`NotRegularFile` when it is not a regular file (a pipe is never opened for reading
    in a way that blocks; a socket, which cannot be opened, is one too), other OSError when it
    cannot be read (:func:`describe_os_error` words it)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise
    except NotADirectoryError:  # a part of the path is a file: there is no file here
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path)) from None
    except OSError:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            mode = stat.S_IFREG
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{path} is not a regular file") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(f"{path} is not a regular file")
        chunks: list[bytes] = []
        left = cap + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    return None if len(data) > cap else data


def aside_path(path: Path, suffix: str) -> Path:
    """``path`` + ``suffix``, or + ``suffix.1``, ``suffix.2``... : a name not taken yet."""
    candidate = path.with_name(path.name + suffix)
    k = 1
    while os.path.lexists(candidate):
        candidate = path.with_name(f"{path.name}{suffix}.{k}")
        k += 1
    return candidate


def move_aside(path: Path, suffix: str) -> str:
    """Move an unusable file to a free name beside it (an earlier one is never overwritten);
    a sentence (starting with a space) saying where it went, or that it was left in place and
    why, in plain words ("the disk is full", "permission denied", ...)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode) and not os.path.islink(path):
            return " It is not a regular file, so it was left in place and is ignored."
        aside = aside_path(path, suffix)
        os.replace(path, aside)
    except OSError as exc:
        reason = one_line(describe_os_error(exc), PROBLEM_MAX)
        return f" It could not be moved aside ({reason}), so it was left in place and is ignored."
    return f" It was moved aside to {one_line(str(aside))}."


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a crash leaves the old file or the new one, never half:
    into a new file beside it (``.<name>.<pid>.<random>.tmp``, which keeps the old file's
    permissions), flushed to the disk, then renamed over ``path``; the folder is flushed after
    (where the system allows). The folder is made if missing. On any failure the temporary file
    is removed, ``path`` is left as it was, and a :class:`FileError` (an OSError) is raised: one
    line, "Could not write X: the disk is full" ("permission denied", "read-only file system",
    "the folder Y is a file, not a folder", "X is a folder, not a file"...), its ``strerror``
    the reason alone."""
    path = Path(path)
    shown = one_line(str(path))
    folder = path.parent
    problem = _ensure_folder(folder)
    if problem is not None:
        reason = f"the folder {one_line(str(folder))} {problem}"
        raise FileError(f"Could not write {shown}: {reason}", reason, _errno_of(problem), path)
    try:
        old_mode: int | None = os.lstat(path).st_mode
    except OSError:
        old_mode = None
    if old_mode is not None and stat.S_ISDIR(old_mode):
        reason = f"{shown} is a folder, not a file"
        raise FileError(f"Could not write {shown}: {reason}", reason, errno.EISDIR, path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd: int | None = None
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        if old_mode is not None and stat.S_ISREG(old_mode):
            with contextlib.suppress(OSError):
                os.fchmod(fd, stat.S_IMODE(old_mode))
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        os.close(fd)
        fd = None
        os.replace(tmp, path)
    except BaseException as exc:
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            reason = describe_os_error(exc)
            raise FileError(f"Could not write {shown}: {reason}", reason, exc.errno, path) from exc
        raise
    _fsync_folder(folder)


def _fsync_folder(folder: Path) -> None:
    """Flush a folder's entries to the disk (best effort: not every system opens folders)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _refusal(path: Path) -> str | None:
    """Why the settings may not be written over the file named by the user at ``path`` (None when
    they may: it is missing, empty, or settings we can read)."""
    if os.path.islink(path) and not os.path.exists(path):
        return f"it is a link to {_link_to(path)}, which does not exist"
    try:
        _read_settings(path)
    except FileNotFoundError:
        return None
    except NotRegularFile:
        return "it is not a regular file"
    except ConfigError as exc:
        return one_line(str(exc), PROBLEM_MAX)
    return None


def save_config(cfg: Config, path: str | os.PathLike[str] | None = None) -> Path:
    """Validate and write the settings (:func:`atomic_write`); return where they went.

    A file named by the user (not :func:`is_default_config_path`) is written over only when it is
    missing, empty or already settings we can read: else :class:`NotASettingsFile` (a
    :class:`ConfigError`) says why, and the file is left as it is. A link to a settings file is
    written through (the file it points to is replaced, the link is kept). OSError (a
    :class:`FileError`, one plain line) when the file cannot be written."""
    cfg.validate()
    p = config_path(path)
    if not is_default_config_path(p):
        problem = _refusal(p)
        if problem is not None:
            raise NotASettingsFile(
                f"{one_line(str(p))} is not a settings file ({problem}), so it was left as it is"
                " and the settings were not written to it"
            )
    target = Path(os.path.realpath(p)) if os.path.islink(p) and os.path.isfile(p) else p
    import tomli_w  # loaded when settings are written

    atomic_write(target, tomli_w.dumps(cfg.to_dict()).encode("utf-8"))
    return p
