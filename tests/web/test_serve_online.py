"""``serve --online URL``: every tab's app opens the lobby of that server, whose host and port
its tabs may connect to; a bad address is one line and exit 2."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import kc_tui.web.site
import kc_tui.web.tab
from kc_tui.cli import main
from kc_tui.net.allowlist import Endpoint
from kc_tui.web.site import tab_command
from kc_tui.web.tab import main as tab_main


def test_serve_online_opens_the_lobby_in_every_tab_and_allows_its_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served: dict[str, Any] = {}

    def fake_serve(root: Path, bind: str, port: int, say: Any, warn: Any, tables: Any, online: Any) -> None:
        served.update(tables=tables, online=online)

    monkeypatch.setattr(kc_tui.web.site, "serve", fake_serve)
    argv = ["serve", "--online", "ws://cards.example:8765", "--allow-join", "127.0.0.1:9000"]
    assert main([*argv, "--root", str(tmp_path / "root")]) == 0
    assert served["online"] == "ws://cards.example:8765/lobby"
    assert served["tables"] == (Endpoint("127.0.0.1", 9000), Endpoint("cards.example", 8765))
    command = tab_command(Path("/root"), served["tables"], served["online"])
    assert " -m kc_tui.web.tab /root --online ws://cards.example:8765/lobby 127.0.0.1:9000 " in command


def test_a_bad_online_address_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--online", "http://cards.example", "--root", str(tmp_path / "root")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kings-corners: --online: ") and err.count("\n") == 1, err
    assert not (tmp_path / "root").exists()


def test_the_tabs_launcher_starts_the_app_at_the_lobby(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ran: dict[str, Any] = {}

    def fake_run_tab(root: Path, command: Sequence[str], watch: bool, tables: Sequence[Endpoint]) -> int:
        ran.update(command=list(command), tables=tables)
        return 0

    monkeypatch.setattr(kc_tui.web.tab, "run_tab", fake_run_tab)
    assert tab_main([str(tmp_path / "root"), "--online", "ws://cards.example:8765/lobby", "cards.example:8765"]) == 0
    assert ran["command"] == [sys.executable, "-m", "kc_tui", "online", "ws://cards.example:8765/lobby"]
    assert ran["tables"] == (Endpoint("cards.example", 8765),)
    assert tab_main([str(tmp_path / "root")]) == 0
    assert ran["command"] == [sys.executable, "-m", "kc_tui"]
