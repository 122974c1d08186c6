"""An unfinished hosted table is never replaced silently: ``host`` over it refuses in one line
naming ``--resume`` and ``--replace``; ``--replace`` keeps the old save aside under a name that
says so, and a finished or missing one is no obstacle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kc_tui.cli import main
from kc_tui.engine import Rules
from kc_tui.match.session import MatchSession
from kc_tui.net.host_files import hosted_save_path, seat_file_path
from tests.match.kit import people
from tests.net.serverkit import lines_until, start_host, stop

SEATS = ["--seats", "human:Ana,human:Ben,greedy", "--port", "0", "--stand-in", "0"]


def saved_table() -> bytes:
    """An unfinished hosted table in the data folder (its save and seats' file); the save's bytes."""
    path = hosted_save_path()
    session = MatchSession.hosted(people(2), Rules(target=5), 3, save_path=path)
    session.save()
    seat_file_path(path).write_text(json.dumps({"placeholder": True}))
    return path.read_bytes()


def test_host_over_an_unfinished_table_refuses_naming_resume_and_replace(
    isolated_dirs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = saved_table()
    assert main(["host", *SEATS]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--resume" in err and "--replace" in err
    assert "round 1, Ana, Ben" in err
    assert hosted_save_path().read_bytes() == before


def test_host_over_an_unreadable_table_refuses_too(isolated_dirs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hosted_save_path().parent.mkdir(parents=True, exist_ok=True)
    hosted_save_path().write_bytes(b"{not json")
    assert main(["host", *SEATS]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "cannot be read" in err and "--replace" in err
    assert hosted_save_path().read_bytes() == b"{not json"


def test_resume_and_replace_do_not_go_together(isolated_dirs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved_table()
    assert main(["host", "--resume", "--replace"]) == 2
    assert "--replace" in capsys.readouterr().err


async def test_replace_keeps_the_unfinished_table_aside_and_serves_the_new_one(isolated_dirs: Path) -> None:
    before = saved_table()
    host = start_host(*SEATS, "--replace")
    try:
        lines = await lines_until(host, "Kings Corners table at")
    finally:
        stop(host)
    aside = hosted_save_path().with_name("hosted.json.replaced")
    assert aside.read_bytes() == before
    assert seat_file_path(hosted_save_path()).with_name(seat_file_path(hosted_save_path()).name + ".replaced").exists()
    assert any("kept as hosted.json.replaced" in line for line in lines)
    assert hosted_save_path().read_bytes() != before  # the new table's save
