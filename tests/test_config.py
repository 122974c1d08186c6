"""The settings model: TOML round trip, where the file lives, bad files never crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from kc_tui.config import (
    Config,
    ConfigError,
    Opponent,
    config_path,
    int_problem,
    load_config,
    name_problem,
    save_config,
)
from kc_tui.engine import Rules


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KINGS_CORNERS_CONFIG", str(tmp_path / "cfg" / "settings.toml"))
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


def test_explicit_path_beats_the_environment(tmp_path: Path) -> None:
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
    assert name_problem("x" * 17, "your name") is not None
    assert name_problem("Ada", "your name") is None
    assert int_problem("25", "target", 5, 500) is None
    assert int_problem("4", "target", 5, 500) == "target must be from 5 to 500, not 4"
    assert int_problem("abc", "target", 5, 500) is not None
    assert int_problem("", "target", 5, 500) is not None
