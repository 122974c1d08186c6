"""The settings model: TOML round trip, where the file lives, bad files never crash; the app's
own file is kept aside when bad, a file named by the user is never moved or written over."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import NamedTuple

import pytest

from kc_tui.config import NAME_MAX, Config, ConfigError, Opponent, name_problem
from kc_tui.config.store import (
    NotASettingsFile,
    config_path,
    default_config_path,
    is_default_config_path,
    load_config,
    save_config,
)
from kc_tui.engine import Rules


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The app's own settings file (the default path) in a fresh folder; no $KINGS_CORNERS_CONFIG."""
    monkeypatch.delenv("KINGS_CORNERS_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert (tmp_path / "cfg") in config_path().parents and is_default_config_path(config_path())
    return tmp_path


def test_round_trip_keeps_every_setting() -> None:
    cfg = Config(
        player_name="Ada",
        opponents=(Opponent("A", "expert", 2500), Opponent("B", "lookahead"), Opponent("C", "greedy")),
        rules=Rules(target=25, draw="when_stuck", scoring="chips", chips_start=80, chips_per_card=True),
        pace="fast",
        card_style="ascii",
        four_colour=True,
        theme="nord",
    )
    where = save_config(cfg)
    assert where == config_path()
    assert load_config() == (cfg, None)


def test_missing_file_means_defaults_without_a_warning() -> None:
    assert load_config() == (Config(), None)


def test_explicit_path_beats_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KINGS_CORNERS_CONFIG", str(tmp_path / "env" / "settings.toml"))
    explicit = tmp_path / "elsewhere.toml"
    save_config(Config(player_name="Exp"), explicit)
    assert load_config(explicit)[0].player_name == "Exp"
    assert load_config()[0] == Config()
    assert config_path(explicit) == explicit


@pytest.mark.parametrize(
    "text",
    [
        "this is not toml = = =",
        'player_name = ""',
        "[rules]\ntarget = 9000",
        'pace = "ludicrous"',
        "colour = true",
        '[[opponents]]\nname = "X"\nkind = "nobody"',
    ],
)
def test_a_corrupt_file_gives_defaults_a_warning_and_a_backup(text: str) -> None:
    path = config_path()
    path.parent.mkdir(parents=True)
    path.write_text(text)
    cfg, warning = load_config()
    assert cfg == Config()
    assert warning is not None and "using defaults" in warning
    backup = path.with_name(path.name + ".bak")
    assert backup.read_text() == text
    assert not path.exists()


def test_binary_garbage_is_handled() -> None:
    path = config_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xff\xfe\x00garbage")
    cfg, warning = load_config()
    assert cfg == Config() and warning


def test_save_refuses_a_bad_config_and_writes_nothing() -> None:
    with pytest.raises(ConfigError, match="target"):
        save_config(Config(rules=Rules(target=501)))
    assert not config_path().exists()


def test_field_checks_name_the_problem() -> None:
    assert name_problem("", "your name") == "your name cannot be empty"
    assert name_problem("x" * (NAME_MAX + 1), "your name") is not None
    assert name_problem("Ada", "your name") is None


# ---------------------------------------------------------------- whatever the file holds
def _write(text: str | bytes) -> Path:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _assert_kept_aside(path: Path, original: bytes, warning: str | None) -> None:
    assert warning is not None and "using defaults" in warning
    assert warning.isprintable(), f"a warning must be one plain line: {warning!r}"
    assert not path.exists()
    assert path.with_name(path.name + ".bak").read_bytes() == original


@pytest.mark.parametrize(
    "text",
    [
        "a = " + "[" * 500 + "]" * 500,
        "a = " + "{b = " * 500 + "1" + "}" * 500,
        "player_name = 5",
        "opponents = [1]",
        "opponents = [[]]",
        '[[opponents]]\nname = "X"\nkind = "greedy"\nthink_ms = inf',
        '[[opponents]]\nname = "X"\nkind = "greedy"\nthink_ms = nan',
        '[[opponents]]\nname = "X"\nkind = "greedy"\nthink_ms = true',
        '[[opponents]]\nname = "X"\nkind = "greedy"\nthink_ms = 1000.0',
        '[[opponents]]\nname = "X"\nkind = "greedy"\ncolour = "red"',
        '[[opponents]]\nname = "X"\nkind = "greedy"\n"\\u001b[2J" = 1',
        "[rules]\ntarget = 1e999",
        "[rules]\ntarget = " + "9" * 5000,
        "[rules]\ntarget = 0x" + "f" * 5000,
        "pace = 0x" + "f" * 5000,
        'four_colour = "yes"',
        "four_colour = 1",
        "theme = 5",
        'theme = "a\\u0007b"',
        'pace = "\\u001b]0;pwned\\u0007"',
        "rules = 3",
        'player_name = "a\\nb"',
    ],
)
def test_any_bad_value_gives_one_plain_line_and_the_file_kept_aside(text: str) -> None:
    path = _write(text)
    original = path.read_bytes()
    cfg, warning = load_config()
    assert cfg == Config()
    _assert_kept_aside(path, original, warning)


def test_a_500_deep_toml_is_set_aside_as_nested_too_deeply() -> None:
    path = _write("x = " + "{a = " * 500 + "1" + "}" * 500)
    cfg, warning = load_config()
    assert cfg == Config() and warning is not None and "nested too deeply" in warning
    assert not path.exists()


@pytest.mark.parametrize("kind", ["[@click=app.quit]boom[/]", "[link=http://x]y[/link]", "bad\u001b[31mred"])
def test_a_kind_with_markup_or_escapes_is_quoted_plainly(kind: str) -> None:
    escaped = kind.replace("\u001b", "\\u001b")
    path = _write(f'[[opponents]]\nname = "X"\nkind = "{escaped}"')
    cfg, warning = load_config()
    assert cfg == Config()
    assert warning is not None and warning.isprintable()
    assert f"unknown AI kind {kind!r}" in warning
    assert not path.exists()


def test_markup_in_names_is_legal_data() -> None:
    _write('player_name = "[b]me[/b]"\n[[opponents]]\nname = "[red]X"\nkind = "greedy"')
    cfg, warning = load_config()
    assert warning is None
    assert cfg.player_name == "[b]me[/b]" and cfg.opponents[0].name == "[red]X"


def test_an_earlier_backup_is_never_overwritten() -> None:
    path = _write("pace = 1")
    backup = path.with_name(path.name + ".bak")
    backup.write_text("the first backup")
    cfg, warning = load_config()
    assert cfg == Config() and warning is not None
    assert backup.read_text() == "the first backup"
    second = path.with_name(path.name + ".bak.1")
    assert second.read_text() == "pace = 1"
    assert str(second) in warning
    _write("pace = 2")
    load_config()
    assert path.with_name(path.name + ".bak.2").read_text() == "pace = 2"


def test_a_file_over_one_mib_is_refused_and_kept_aside() -> None:
    body = b"# " + b"x" * (1 << 20) + b"\n"
    path = _write(body)
    cfg, warning = load_config()
    assert cfg == Config() and warning is not None and "larger than" in warning
    assert path.with_name(path.name + ".bak").read_bytes() == body


def test_a_file_of_exactly_the_cap_is_read() -> None:
    from kc_tui.config.store import CONFIG_MAX_BYTES

    head = b'pace = "fast"\n# '
    _write(head + b"x" * (CONFIG_MAX_BYTES - len(head) - 1) + b"\n")
    cfg, warning = load_config()
    assert warning is None and cfg.pace == "fast"


def test_a_directory_in_place_of_the_file_is_reported_and_left_alone() -> None:
    path = config_path()
    path.mkdir(parents=True)
    for _ in range(2):
        cfg, warning = load_config()
        assert cfg == Config() and warning is not None and "not a regular file" in warning
        assert path.is_dir()


def test_a_pipe_in_place_of_the_file_does_not_hang() -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    path = config_path()
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    cfg, warning = load_config()
    assert cfg == Config() and warning is not None and "not a regular file" in warning


def test_a_file_that_cannot_be_moved_aside_is_left_and_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(src: object, dst: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    path = _write("pace = 1")
    for _ in range(2):  # every later launch says it again, and never crashes
        cfg, warning = load_config()
        assert cfg == Config() and warning is not None
        assert "left in place and is ignored" in warning and "(permission denied)" in warning
        assert path.read_text() == "pace = 1"


@pytest.mark.parametrize("error", [IndexError, MemoryError, OverflowError, RecursionError, KeyError])
def test_an_unforeseen_error_is_reported_by_its_type_and_the_file_kept_aside(
    error: type[Exception], monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(data: object) -> Config:
        raise error("\u001b[2J surprise")

    monkeypatch.setattr(Config, "from_dict", staticmethod(boom))
    path = _write('pace = "fast"')
    original = path.read_bytes()
    cfg, warning = load_config()
    assert cfg == Config()
    _assert_kept_aside(path, original, warning)
    assert warning is not None and f"could not be read ({error.__name__})" in warning


def test_from_dict_checks_exact_types() -> None:
    with pytest.raises(ConfigError, match="must be text"):
        Config.from_dict({"player_name": 5})
    with pytest.raises(ConfigError, match="think time"):
        Config.from_dict({"opponents": [{"name": "A", "kind": "greedy", "think_ms": 1e3}]})
    with pytest.raises(ConfigError, match="four_colour"):
        Config.from_dict({"four_colour": 1})
    with pytest.raises(ConfigError, match="record_demos"):
        Config.from_dict({"record_demos": "no"})
    with pytest.raises(ConfigError, match="auto_hint"):
        Config.from_dict({"auto_hint": 1})
    assert Config.from_dict({"auto_hint": True}).auto_hint and not Config().auto_hint
    with pytest.raises(ConfigError, match="target"):
        Config.from_dict({"rules": {"target": True}})
    assert Config.from_dict({"opponents": [{"name": "A", "kind": "expert", "think_ms": 50}]}).opponents == (
        Opponent("A", "expert", 50),
    )


def test_an_unreadable_file_is_reported_and_kept_aside(monkeypatch: pytest.MonkeyPatch) -> None:
    import kc_tui.config.store as config_module

    def refuse(path: Path, cap: int) -> bytes:
        raise PermissionError(13, "Permission denied")

    path = _write('pace = "fast"')
    monkeypatch.setattr(config_module, "read_capped", refuse)
    cfg, warning = load_config()
    assert cfg == Config() and warning is not None and "cannot be read: permission denied" in warning
    assert not path.exists() and path.with_name(path.name + ".bak").read_text() == 'pace = "fast"'


def test_a_nested_rule_value_is_named_plainly() -> None:
    path = _write("[rules]\ntarget = " + "[" * 300 + "]" * 300)
    cfg, warning = load_config()
    assert cfg == Config() and warning is not None and "rule 'target' must be a word" in warning
    assert not path.exists()


# ---------------------------------------------------------------- a file named by the user is never ours
BASHRC = b'# ~/.bashrc\n[ -z "$PS1" ] && return\nexport PATH="$HOME/bin:$PATH"\nalias ll=\'ls -l\'\n'
JUNK = bytes(range(256)) * 4 + b"\x00\xff\xfe"


class Named(NamedTuple):
    """A file named by the user: its path, the argument to pass (None: read from the environment)
    and the SHA-256 of what it holds."""

    path: Path
    arg: str | None
    sha: str


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(params=[BASHRC, JUNK, b"pace = 1\n"], ids=["bashrc", "binary", "bad-value"])
def content(request: pytest.FixtureRequest) -> bytes:
    """What a named file that is not settings holds."""
    value: bytes = request.param
    return value


@pytest.fixture(params=["option", "env"])
def named(request: pytest.FixtureRequest, content: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Named:
    """A file named by the user (``--config FILE`` or $KINGS_CORNERS_CONFIG) holding ``content``."""
    home = tmp_path / "home"
    home.mkdir()
    path = home / ".bashrc"
    path.write_bytes(content)
    if request.param == "env":
        monkeypatch.setenv("KINGS_CORNERS_CONFIG", str(path))
        return Named(path, None, _sha(path))
    return Named(path, str(path), _sha(path))


def test_a_named_file_that_is_not_settings_is_left_as_it_is(named: Named) -> None:
    path, arg, before = named
    for _ in range(2):  # every launch says so again, and leaves it
        cfg, warning = load_config(arg)
        assert cfg == Config()
        assert warning is not None and warning.isprintable()
        assert warning.startswith(f"Settings file {path} is not a settings file (")
        assert warning.endswith(
            "): it was left as it is and the defaults are used; settings changed now are not saved to it."
        )
        assert _sha(path) == before
        assert sorted(p.name for p in path.parent.iterdir()) == [".bashrc"], "nothing was added beside it"


def test_saving_over_a_named_file_that_is_not_settings_is_refused(named: Named) -> None:
    path, arg, before = named
    load_config(arg)
    with pytest.raises(NotASettingsFile) as refused:
        save_config(Config(player_name="Ada"), arg)
    assert isinstance(refused.value, ConfigError)
    message = str(refused.value)
    assert message.isprintable()
    assert message.startswith(f"{path} is not a settings file (")
    assert message.endswith("so it was left as it is and the settings were not written to it")
    assert _sha(path) == before
    assert sorted(p.name for p in path.parent.iterdir()) == [".bashrc"]


@pytest.mark.parametrize(
    "content", [None, b"", b"\n  \n", b'pace = "fast"\n'], ids=["missing", "empty", "blank", "valid"]
)
def test_saving_over_a_named_file_is_allowed_when_missing_empty_or_settings(
    content: bytes | None, tmp_path: Path
) -> None:
    path = tmp_path / "mine.toml"
    if content is not None:
        path.write_bytes(content)
    assert save_config(Config(player_name="Ada"), path) == path
    assert load_config(path) == (Config(player_name="Ada"), None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.toml"]


def test_a_named_file_that_cannot_be_read_is_left_and_never_written_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kc_tui.config.store as config_module

    path = tmp_path / "mine.toml"
    path.write_bytes(b'pace = "fast"\n')

    def refuse(path: Path, cap: int) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(config_module, "read_capped", refuse)
    cfg, warning = load_config(path)
    assert cfg == Config() and warning is not None and "cannot be read: permission denied" in warning
    assert "left as it is" in warning
    with pytest.raises(NotASettingsFile, match="cannot be read: permission denied"):
        save_config(Config(), path)
    assert path.read_bytes() == b'pace = "fast"\n'


def test_a_named_broken_link_is_left_and_never_written_through(tmp_path: Path) -> None:
    link = tmp_path / "settings.toml"
    link.symlink_to(tmp_path / "gone" / "real.toml")
    cfg, warning = load_config(link)
    assert cfg == Config() and warning is not None and warning.isprintable()
    assert "is a link to" in warning and "which does not exist" in warning and "not saved to it" in warning
    with pytest.raises(NotASettingsFile, match="which does not exist"):
        save_config(Config(), link)
    assert link.is_symlink() and not (tmp_path / "gone").exists()


def test_a_named_folder_is_left_and_saving_to_it_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "settings.toml"
    folder.mkdir()
    cfg, warning = load_config(folder)
    assert cfg == Config() and warning is not None and "not a regular file" in warning and "not saved to it" in warning
    with pytest.raises(NotASettingsFile, match="not a regular file"):
        save_config(Config(), folder)
    assert folder.is_dir() and list(folder.iterdir()) == []


def test_a_link_to_a_settings_file_is_written_through_and_kept(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "kc.toml"
    real.parent.mkdir()
    real.write_text('pace = "fast"\n')
    link = tmp_path / "settings.toml"
    link.symlink_to(real)
    save_config(Config(pace="slow"), link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert load_config(real) == (Config(pace="slow"), None)


def test_the_default_path_named_explicitly_is_still_the_apps_own(tmp_path: Path) -> None:
    path = _write(BASHRC)
    assert path == default_config_path()
    cfg, warning = load_config(str(path))  # the app passes the resolved path on
    assert cfg == Config() and warning is not None and "moved aside" in warning
    assert path.with_name(path.name + ".bak").read_bytes() == BASHRC
    save_config(Config(pace="fast"), path)
    assert load_config(path) == (Config(pace="fast"), None)


def test_a_named_file_under_a_file_is_missing_and_saving_says_why(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    assert load_config(blocker / "settings.toml") == (Config(), None)
    with pytest.raises(OSError, match=f"the folder {blocker} is a file, not a folder"):
        save_config(Config(), blocker / "settings.toml")
    assert blocker.read_text() == "x"
