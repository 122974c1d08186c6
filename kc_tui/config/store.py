"""The settings file and the data folder: where they are (platformdirs, the environment), and
the settings read from and written to TOML.

The file is found from, in order: an explicit path (``--config FILE``), the environment variable
``KINGS_CORNERS_CONFIG``, the user's config directory. A corrupt or unreadable file never
stops the app: defaults are used and a warning says so. The file in the user's config directory
is the app's own: a bad one is kept beside as ``.bak``. A file named by the user is never moved
or written over unless it already holds settings (or nothing): a bad one is left as it is.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

from kc_tui.config import Config, ConfigError
from kc_tui.i18n import _
from kc_tui.util.files import (
    FileError,
    NotRegularFile,
    atomic_write,
    describe_os_error,
    ensure_folder,
    errno_of,
    link_to,
    move_aside,
    read_capped,
    tighten_folder,
)
from kc_tui.util.printable import PROBLEM_MAX, one_line

APP_NAME = "kings-corners"
ENV_CONFIG = "KINGS_CORNERS_CONFIG"
ENV_DATA = "KINGS_CORNERS_DATA"
#: The largest settings file read (bytes); a bigger one is treated as corrupt.
CONFIG_MAX_BYTES = 1 << 20


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
    return default_data_dir()


class DataDirError(FileError):
    """The data folder cannot be made or written into (:func:`ensure_data_dir`)."""


def default_data_dir() -> Path:
    """The data folder that is the app's own: the user's data dir (platformdirs)."""
    return Path(platformdirs.user_data_dir(APP_NAME))


def ensure_data_dir(folder: str | os.PathLike[str] | None = None) -> Path:
    """The data folder (``folder``, else :func:`data_dir`), made if missing (mode 0700: it holds
    every hand of a hosted table and its seats' tokens) and ready to be written into. The app's
    own folder (:func:`default_data_dir`) is made private when it is not, without a word (it is
    the app's); a folder named by $KINGS_CORNERS_DATA keeps the permissions its user gave it (the
    files made in it are private all the same). :class:`DataDirError` (an OSError) otherwise,
    its message one line such as "The data folder X is a file, not a folder", "The data folder X
    cannot be created: permission denied", "The data folder X is on a read-only file system", "The
    data folder X is a link to Y, which does not exist" or "The data folder X cannot be created: Y
    is a file, not a folder"."""
    target = data_dir() if folder is None else Path(folder)
    problem = ensure_folder(target)
    if problem is not None:
        shown = one_line(str(target))
        reason = f"the data folder {shown} {problem}"
        raise DataDirError(f"The data folder {shown} {problem}", reason, errno_of(problem), target)
    if os.path.abspath(target) == os.path.abspath(default_data_dir()):
        tighten_folder(target)
    return target


class NotASettingsFile(ConfigError):
    """A file named by the user (``--config FILE``, $KINGS_CORNERS_CONFIG) holds something else
    than settings we can read: it is never written over (:func:`save_config`)."""


def _parse_settings(raw: bytes | None) -> Config:
    """The settings in a file's bytes (None: too large); :class:`ConfigError` saying why not."""
    if raw is None:
        raise ConfigError(_("it is larger than {size} KiB").format(size=CONFIG_MAX_BYTES // 1024))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(_("it is not UTF-8 text")) from None
    import tomllib  # loaded when there is a settings file to read

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_("it is not valid TOML ({error})").format(error=exc)) from None
    except RecursionError:
        raise ConfigError(_("it is not usable TOML: it is nested too deeply")) from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise ConfigError(_("it is not usable TOML ({error})").format(error=exc)) from None
    return Config.from_dict(data)


def _read_settings(path: Path) -> Config:
    """The settings in the file ``path``: FileNotFoundError, :class:`NotRegularFile`, or
    :class:`ConfigError` saying why it cannot be used (unreadable, too large, not settings)."""
    try:
        raw = read_capped(path, CONFIG_MAX_BYTES)
    except (FileNotFoundError, NotRegularFile):
        raise
    except OSError as exc:
        raise ConfigError(_("it cannot be read: {error}").format(error=describe_os_error(exc))) from None
    try:
        return _parse_settings(raw)
    except ConfigError:
        raise
    except Exception as exc:  # a bug we did not foresee: the file still must not stop the app
        raise ConfigError(_("it could not be read ({error})").format(error=type(exc).__name__)) from None


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
            return Config(), _(
                "Settings file {file} is a link to {target}, which does not exist: it was left as it is"
                " and the defaults are used; settings changed now are not saved to it."
            ).format(file=shown, target=link_to(p))
        return Config(), None
    except NotRegularFile:
        if ours:
            return Config(), _(
                "Settings {file} is not a regular file; using defaults. It was left in place and is ignored."
            ).format(file=shown)
        return Config(), _(
            "Settings {file} is not a regular file; using defaults. It was left in place and is ignored."
            " Settings changed now are not saved to it."
        ).format(file=shown)
    except ConfigError as exc:
        problem = one_line(str(exc), PROBLEM_MAX)
    except Exception as exc:  # a bug we did not foresee: the file still must not stop the app
        problem = _("it could not be read ({error})").format(error=type(exc).__name__)
    # Translators: {problem} says why the settings file cannot be used, "it is not UTF-8 text".
    if not ours:
        return Config(), _(
            "Settings file {file} is not a settings file ({problem}): it was left as it is and the defaults"
            " are used; settings changed now are not saved to it."
        ).format(file=shown, problem=problem)
    kept = move_aside(p, ".bak")
    # Translators: {kept} is empty or a sentence after a space saying where the file was moved.
    return Config(), _("Settings file {file} is invalid ({problem}); using defaults.{kept}").format(
        file=shown, problem=problem, kept=kept
    )


def _refusal(path: Path) -> str | None:
    """Why the settings may not be written over the file named by the user at ``path`` (None when
    they may: it is missing, empty, or settings we can read)."""
    if os.path.islink(path) and not os.path.exists(path):
        return _("it is a link to {target}, which does not exist").format(target=link_to(path))
    try:
        _read_settings(path)
    except FileNotFoundError:
        return None
    except NotRegularFile:
        return _("it is not a regular file")
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
                _(
                    "{file} is not a settings file ({problem}), so it was left as it is"
                    " and the settings were not written to it"
                ).format(file=one_line(str(p)), problem=problem)
            )
    target = Path(os.path.realpath(p)) if os.path.islink(p) and os.path.isfile(p) else p
    import tomli_w  # loaded when settings are written

    atomic_write(target, tomli_w.dumps(cfg.to_dict()).encode("utf-8"))
    return p


def saved_language(path: str | os.PathLike[str] | None = None) -> str:
    """The ``language`` the settings file (:func:`config_path`) holds, read before anything else
    is (the command line's own texts are in that language): empty when none is saved, or the file
    is missing or cannot be read. Nothing else of the file is checked here, and nothing is moved:
    :func:`load_config` says what is wrong with a bad file when the settings are loaded."""
    try:
        raw = read_capped(config_path(path), CONFIG_MAX_BYTES)
        if raw is None:
            return ""
        import tomllib

        value = tomllib.loads(raw.decode("utf-8")).get("language", "")
    except Exception:  # any problem is told by load_config, when the settings are loaded
        return ""
    return value if isinstance(value, str) else ""
