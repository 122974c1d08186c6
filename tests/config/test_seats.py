"""The seats in the settings: people and AIs in any mix, two to four seats, each person's name
their own; the settings file of one person against AIs reads as it always did."""

from __future__ import annotations

from pathlib import Path

import pytest

from kc_tui.config import HUMAN, Config, ConfigError, Opponent
from kc_tui.config.store import config_path, load_config, save_config


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("KINGS_CORNERS_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    return tmp_path


def _write(text: str) -> Path:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_file_of_one_person_against_ais_reads_as_before() -> None:
    _write('player_name = "Ada"\n[[opponents]]\nname = "Greedy"\nkind = "greedy"\n')
    cfg, warning = load_config()
    assert warning is None
    assert cfg.player_name == "Ada" and cfg.opponents == (Opponent("Greedy", "greedy"),)
    assert cfg.human_names == ("Ada",)


def test_an_opponent_of_kind_human_is_another_person_and_round_trips() -> None:
    _write(
        'player_name = "Ana"\n[[opponents]]\nname = "Ben"\nkind = "human"\n'
        '[[opponents]]\nname = "Ace"\nkind = "expert"\n'
    )
    cfg, warning = load_config()
    assert warning is None
    assert cfg.opponents[0] == Opponent("Ben", HUMAN) and cfg.opponents[0].is_human
    assert not cfg.opponents[1].is_human
    assert cfg.human_names == ("Ana", "Ben")
    save_config(cfg)
    assert load_config() == (cfg, None)


def test_four_people_and_no_ai_is_a_game() -> None:
    cfg = Config("Ana", tuple(Opponent(n, HUMAN) for n in ("Ben", "Cy", "Di")))
    cfg.validate()
    assert cfg.human_names == ("Ana", "Ben", "Cy", "Di")


@pytest.mark.parametrize(
    ("player", "names", "shared"),
    [("Ana", ["Ana"], "'Ana'"), ("Ana", ["ben", "Ben"], "'Ben'"), ("Ana", ["ANA "], "'ANA '")],
)
def test_two_people_with_one_name_are_refused_clearly(player: str, names: list[str], shared: str) -> None:
    cfg = Config(player, tuple(Opponent(n, HUMAN) for n in names))
    with pytest.raises(ConfigError, match=f"two people at the table cannot share the name {shared}"):
        cfg.validate()


def test_an_ai_may_share_a_name_with_another_ai_as_before() -> None:
    Config("Ana", (Opponent("Greedy", "greedy"), Opponent("Greedy", "greedy"))).validate()


@pytest.mark.parametrize("count", [0, 4])
def test_two_to_four_seats(count: int) -> None:
    cfg = Config("Ana", tuple(Opponent(f"P{i}", HUMAN) for i in range(count)))
    with pytest.raises(ConfigError, match=f"choose 1 to 3 opponents, not {count}"):
        cfg.validate()


def test_a_bad_name_of_a_person_keeps_the_file_aside_with_one_line() -> None:
    path = _write('player_name = "Ana"\n[[opponents]]\nname = "Ana"\nkind = "human"\n')
    cfg, warning = load_config()
    assert cfg == Config() and warning is not None and warning.isprintable()
    assert "cannot share the name 'Ana'" in warning
    assert not path.exists()


def test_an_unknown_kind_names_the_kinds_and_a_person() -> None:
    with pytest.raises(ConfigError, match=r"unknown AI kind 'genius': choose one of .*greedy.* or human"):
        Opponent("X", "genius").validate()


def test_several_people_each_need_a_name_of_their_own_not_you() -> None:
    Config("You", (Opponent("Greedy", "greedy"),)).validate()  # one person is "you" as ever
    with pytest.raises(ConfigError, match="each needs a name: not 'You'"):
        Config("You", (Opponent("Ben", HUMAN),)).validate()
    with pytest.raises(ConfigError, match="each needs a name: not 'you '"):
        Config("Ana", (Opponent("you ", HUMAN),)).validate()
