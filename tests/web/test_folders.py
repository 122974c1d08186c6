"""Each browser tab's private folder under serve's root: made 0700, one per tab, named for the app
in its environment, removed when the tab's app ends, never a path outside the root; a folder of
a killed tab swept, a live tab's kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kc_tui.config.store import ENV_CONFIG, ENV_DATA
from kc_tui.records.rows import ENV_HISTORY
from kc_tui.web.folders import (
    LOCK_NAME,
    PREFIX,
    SWEEP_AGE,
    RootError,
    is_tab_folder,
    new_tab_folder,
    ready_root,
    remove_tab_folder,
    sweep,
    tab_environment,
)
from kc_tui.web.tab import main as tab_main
from kc_tui.web.tab import run_tab

#: A stand-in app: writes the variables that name its folders, and whether they exist, to a file.
SHOW_ENV = (
    "import json, os, sys\n"
    "names = ['KINGS_CORNERS_CONFIG', 'KINGS_CORNERS_DATA', 'KINGS_CORNERS_HISTORY']\n"
    "env = {n: os.environ.get(n) for n in names}\n"
    "env['data_is_dir'] = os.path.isdir(env['KINGS_CORNERS_DATA'])\n"
    "open(sys.argv[1], 'w').write(json.dumps(env))\n"
    "sys.exit(int(sys.argv[2]))\n"
)


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def age(path: Path, seconds: float) -> None:
    """Make ``path`` look ``seconds`` old."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_the_root_is_made_private_and_its_real_path_used(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert ready_root(tmp_path / "link" / "root") == (tmp_path / "real" / "root").resolve()
    assert mode(tmp_path / "real" / "root") == 0o700


@pytest.mark.parametrize(
    ("under", "said"), [("", "is a file, not a folder"), ("root", "cannot be made: a part of its path is a file")]
)
def test_a_root_that_is_no_folder_is_refused_in_one_line(tmp_path: Path, under: str, said: str) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(RootError) as caught:
        ready_root(tmp_path / "file" / under if under else tmp_path / "file")
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_two_tabs_get_two_private_folders_and_the_environment_names_only_their_own(tmp_path: Path) -> None:
    root = ready_root(tmp_path / "root")
    first, second = new_tab_folder(root), new_tab_folder(root)
    try:
        assert first.path != second.path
        for tab in (first, second):
            assert tab.path.parent == root and tab.path.name.startswith(PREFIX)
            assert mode(tab.path) == 0o700 and mode(tab.path / "data") == 0o700
            env = tab_environment(tab.path)
            assert set(env) == {ENV_CONFIG, ENV_DATA, ENV_HISTORY}
            assert all(Path(value).is_relative_to(tab.path) for value in env.values())
        assert not set(tab_environment(first.path).values()) & set(tab_environment(second.path).values())
    finally:
        first.release()
        second.release()


def test_a_tabs_app_runs_with_its_folder_named_and_the_folder_goes_when_it_ends(tmp_path: Path) -> None:
    root = ready_root(tmp_path / "root")
    report = tmp_path / "env.json"
    code = run_tab(root, [sys.executable, "-c", SHOW_ENV, str(report), "3"])
    assert code == 3  # the app's exit code is the tab's
    env = json.loads(report.read_text())
    folder = Path(env[ENV_DATA]).parent
    assert folder.parent == root and folder.name.startswith(PREFIX)
    assert env[ENV_CONFIG] == str(folder / "settings.toml") and env["data_is_dir"]
    assert env[ENV_HISTORY] == str(folder / "data" / "history.sqlite3")
    assert not folder.exists() and list(root.iterdir()) == []


def test_an_app_that_cannot_start_is_one_line_and_leaves_no_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_root(tmp_path / "root")
    assert run_tab(root, [str(tmp_path / "no-such-program")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("kings-corners serve: cannot start the app") and err.count("\n") == 1
    assert list(root.iterdir()) == []


def test_the_launcher_refuses_a_bad_root_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    assert tab_main([str(tmp_path / "file")]) == 2
    err = capsys.readouterr().err
    assert "is a file, not a folder" in err and err.count("\n") == 1


def test_nothing_outside_the_root_is_ever_removed(tmp_path: Path) -> None:
    root = ready_root(tmp_path / "root")
    outside = tmp_path / f"{PREFIX}outside"
    outside.mkdir()
    (outside / "keep").write_text("keep")
    other_root = ready_root(tmp_path / "other")
    theirs = new_tab_folder(other_root)
    (root / f"{PREFIX}link").symlink_to(outside, target_is_directory=True)
    (root / "not-a-tab").mkdir()
    try:
        for path in (
            outside,
            theirs.path,
            root / f"{PREFIX}link",
            root / "not-a-tab",
            root,
            root / f"{PREFIX}x" / "..",
            root / ".." / outside.name,
        ):
            assert not is_tab_folder(root, path), path
            assert not remove_tab_folder(root, path), path
        assert (outside / "keep").read_text() == "keep" and theirs.path.is_dir()
        assert (root / f"{PREFIX}link").is_symlink() and (root / "not-a-tab").is_dir()
    finally:
        theirs.release()


def test_removing_a_tab_folder_does_not_follow_a_link_inside_it(tmp_path: Path) -> None:
    root = ready_root(tmp_path / "root")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("keep")
    tab = new_tab_folder(root)
    (tab.path / "data" / "escape").symlink_to(outside, target_is_directory=True)
    tab.release()
    assert remove_tab_folder(root, tab.path)
    assert not tab.path.exists() and (outside / "keep").read_text() == "keep"


HOLD = (
    "import sys, time\n"
    "from pathlib import Path\n"
    "from kc_tui.web.folders import new_tab_folder\n"
    "tab = new_tab_folder(Path(sys.argv[1]))\n"
    "print(tab.path, flush=True)\n"
    "time.sleep(60)\n"
)


def test_sweep_removes_the_folder_of_a_killed_tab_and_keeps_a_live_one(tmp_path: Path) -> None:
    root = ready_root(tmp_path / "root")
    live = subprocess.Popen([sys.executable, "-c", HOLD, str(root)], stdout=subprocess.PIPE, text=True)
    killed = subprocess.Popen([sys.executable, "-c", HOLD, str(root)], stdout=subprocess.PIPE, text=True)
    try:
        assert live.stdout is not None and killed.stdout is not None
        live_folder, killed_folder = Path(live.stdout.readline().strip()), Path(killed.stdout.readline().strip())
        young = new_tab_folder(root)
        young.release()  # dead, but too young to be swept: its tab may be taking its lock
        other = root / f"{PREFIX}not-ours"
        other.mkdir()  # named like a tab's folder, but without a tab's lock file: not a tab's
        age(other, 2 * SWEEP_AGE)
        killed.send_signal(signal.SIGKILL)
        killed.wait(10)
        for folder in (live_folder, killed_folder):
            age(folder, 2 * SWEEP_AGE)
        assert sweep(root) == 1
        assert not killed_folder.exists()
        assert live_folder.is_dir() and (live_folder / LOCK_NAME).exists() and young.path.is_dir()
        assert other.is_dir()
    finally:
        live.kill()
        live.wait(10)
        killed.kill()
        killed.wait(10)
