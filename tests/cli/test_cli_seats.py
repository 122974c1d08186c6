"""``kings-corners play --seats``: people and AIs in any mix; a bad spec is one line, exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kc_tui.cli import build_parser, main
from kc_tui.config import HUMAN, Config, Opponent
from kc_tui.config.store import save_config


def _config(*argv: str) -> Config:
    """The settings the app would start ``play`` with for ``argv``."""
    from kc_tui.ui.launch import build_app

    app: Any = build_app("play", build_parser().parse_args(["play", *argv]))
    config: Config = app.config
    config.validate()
    return config


def test_two_people_and_an_ai_sit_in_the_order_given() -> None:
    cfg = _config("--seats", "human:Ana,human:Ben,expert")
    assert cfg.player_name == "Ana"
    assert cfg.opponents == (Opponent("Ben", HUMAN), Opponent("Ace", "expert"))
    assert cfg.human_names == ("Ana", "Ben")


def test_a_bare_human_is_the_settings_name_and_ais_are_named_by_kind() -> None:
    save_config(Config(player_name="Cleo"))
    cfg = _config("--seats", "greedy, human ,Greedy,human:Greedy")
    # The first person opens the list; the seats before them come last (the order around the
    # table is kept); an AI named like a person takes a number.
    assert cfg.player_name == "Cleo"
    assert [(o.name, o.kind) for o in cfg.opponents] == [
        ("Greedy 2", "greedy"),
        ("Greedy", HUMAN),
        ("Greedy 3", "greedy"),
    ]


def test_opponents_keep_working_for_one_person() -> None:
    save_config(Config(player_name="Cleo"))
    cfg = _config("--opponents", "greedy,expert")
    assert cfg.player_name == "Cleo" and [o.kind for o in cfg.opponents] == ["greedy", "expert"]
    assert cfg.human_names == ("Cleo",)


@pytest.mark.parametrize(
    ("seats", "words"),
    [
        ("human:Ana,genius", "unknown AI kind 'genius'"),
        ("human:Ana,greedy:Bob", "unknown AI kind 'greedy:Bob'"),
        ("human:Ana,human:ana", "cannot share the name 'ana'"),
        ("human,human", "cannot share the name 'You'"),
        ("human,human:Ben", "each needs a name: not 'You'"),
        ("greedy,expert", "needs a human seat"),
        ("human:Ana", "choose 2 to 4 seats, not 1"),
        ("human:A,human:B,human:C,greedy,greedy", "choose 2 to 4 seats, not 5"),
        ("human:[b]Ana[/b],greedy", "cannot hold markup"),
        ("human:[@click=app.quit]q,greedy", "cannot hold markup"),
        ("human:An\x1ba,greedy", "printable"),
        ("human:An\ta,greedy", "printable"),
        ("human:,greedy", "cannot be empty"),
        ("human:" + "x" * 30 + ",greedy", "too long"),
    ],
)
def test_a_bad_seat_spec_is_one_line_exit_2(capsys: pytest.CaptureFixture[str], seats: str, words: str) -> None:
    code = main(["play", "--seats", seats])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("kings-corners: ") and err.endswith("\n") and err.count("\n") == 1
    assert words in err and err[:-1].isprintable() and "Traceback" not in err


def _refusal(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main([*argv, "--quiet"] if argv[0] == "tournament" else list(argv)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    return err.split(": ", 1)[1].rstrip("\n")


@pytest.mark.parametrize(
    ("seats", "words"),
    [
        ("greedy", "choose 2 to 4 seats, not 1"),
        ("greedy,random,greedy,random,greedy", "choose 2 to 4 seats, not 5"),
        ("greedy,Gen\x1bius", "unknown AI kind 'Gen\\x1bius': choose "),
    ],
)
def test_play_and_tournament_read_seats_with_the_same_words(
    capsys: pytest.CaptureFixture[str], seats: str, words: str
) -> None:
    play = _refusal(capsys, "play", "--seats", seats)
    tournament = _refusal(capsys, "tournament", "--seats", seats)
    assert play.startswith(words) and tournament.startswith(words), (play, tournament)


def test_seats_and_opponents_together_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--seats", "human:Ana,greedy", "--opponents", "expert"]) == 2
    assert "give --seats or --opponents, not both" in capsys.readouterr().err


def test_a_real_process_reports_a_bad_spec_in_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "KINGS_CORNERS_CONFIG": str(tmp_path / "s.toml"), "KINGS_CORNERS_DATA": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "kc_tui", "play", "--seats", "human:Ana,human:Ana"],
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.count(b"\n") == 1 and b"cannot share the name 'Ana'" in proc.stderr


def test_the_help_names_the_seat_kinds(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["play", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert done.value.code == 0
    assert "human:Ana,human:Ben,expert" in text and "human:NAME" in text and "--opponents" in text
