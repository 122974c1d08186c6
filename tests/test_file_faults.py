"""Files and folders that fail for real: a full disk, a read-only file system, a file where a
folder should be. Writes leave the old file or the new one and nothing else; every failure is
told in one plain line; the settings screen says when the settings were not saved."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import Static

from kc_tui.config import Config
from kc_tui.config.store import DataDirError, config_path, data_dir, ensure_data_dir, load_config, save_config
from kc_tui.ui.screens.settings import SettingsScreen
from kc_tui.util.files import FileError, atomic_write, describe_os_error, move_aside, read_capped
from tests.faultkit import fill, small_disk
from tests.ui.conftest import wait_for
from tests.ui.gamekit import SettingsHost as Host

SIZE = (100, 40)
#: A save of about 100 KB: more than a full disk has left.
BIG = json.dumps({"log": ["x" * 99 for _ in range(1000)]}).encode()


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KINGS_CORNERS_CONFIG", raising=False)
    monkeypatch.delenv("KINGS_CORNERS_HISTORY", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("KINGS_CORNERS_DATA", str(tmp_path / "data"))


@contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """The file system mounted on ``folder`` (a :func:`small_disk`) made read-only for the block."""
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True, timeout=10)
    try:
        yield folder
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(folder)], check=True, timeout=10)


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def one_plain_line(text: str) -> bool:
    return bool(text) and text.isprintable()


# ---------------------------------------------------------------------- describe_os_error
@pytest.mark.parametrize(
    ("code", "words"),
    [
        (errno.ENOSPC, "the disk is full"),
        (errno.EACCES, "permission denied"),
        (errno.EPERM, "permission denied"),
        (errno.EROFS, "read-only file system"),
        (errno.EIO, "an input/output error (the disk may be failing)"),
    ],
)
def test_describe_os_error_says_it_in_plain_words(code: int, words: str) -> None:
    assert describe_os_error(OSError(code, os.strerror(code), "/x/y")) == words


def test_describe_os_error_names_the_file_in_the_way_and_the_folder(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    exc = OSError(errno.ENOTDIR, "Not a directory", str(blocker / "a" / "b.json"))
    assert describe_os_error(exc) == f"{blocker} is a file, not a folder"
    exc = OSError(errno.EISDIR, "Is a directory", str(tmp_path))
    assert describe_os_error(exc) == f"{tmp_path} is a folder, not a file"
    exc = OSError(errno.ENOENT, "No such file or directory", str(tmp_path / "gone" / "x"))
    assert describe_os_error(exc) == f"{tmp_path / 'gone'} does not exist"


def test_describe_os_error_of_anything_else_is_one_plain_line() -> None:
    assert describe_os_error(OSError(errno.ECONNRESET, "Connection reset by peer")) == "connection reset by peer"
    assert describe_os_error(OSError("bad\nthing")) == "bad\\nthing"
    assert describe_os_error(FileError("Could not write x: the disk is full", "the disk is full")) == "the disk is full"


# ---------------------------------------------------------------------- the data folder
def test_data_dir_only_computes_the_path(tmp_path: Path) -> None:
    assert data_dir() == tmp_path / "data"
    assert not (tmp_path / "data").exists()


def test_ensure_data_dir_makes_the_folder(tmp_path: Path) -> None:
    assert ensure_data_dir() == tmp_path / "data"
    assert (tmp_path / "data").is_dir()
    assert ensure_data_dir() == tmp_path / "data"  # again: already there


def test_a_data_folder_that_is_a_file_is_said_so(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("not a folder")
    with pytest.raises(DataDirError) as raised:
        ensure_data_dir()
    assert isinstance(raised.value, OSError)
    assert str(raised.value) == f"The data folder {tmp_path / 'data'} is a file, not a folder"
    assert raised.value.errno == errno.ENOTDIR
    assert (tmp_path / "data").read_text() == "not a folder"


def test_a_data_folder_that_is_a_broken_link_is_said_so(tmp_path: Path) -> None:
    (tmp_path / "data").symlink_to(tmp_path / "gone")
    with pytest.raises(DataDirError) as raised:
        ensure_data_dir()
    assert (
        str(raised.value)
        == f"The data folder {tmp_path / 'data'} is a link to {tmp_path / 'gone'}, which does not exist"
    )
    assert not (tmp_path / "gone").exists()


def test_a_data_folder_under_a_file_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "file").write_text("x")
    monkeypatch.setenv("KINGS_CORNERS_DATA", str(tmp_path / "file" / "data"))
    with pytest.raises(DataDirError) as raised:
        ensure_data_dir()
    assert str(raised.value) == (
        f"The data folder {tmp_path / 'file' / 'data'} cannot be created: {tmp_path / 'file'} is a file, not a folder"
    )


def test_a_data_folder_that_may_not_be_created_says_permission_denied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self: Path, mode: int = 0o777, parents: bool = False, exist_ok: bool = False) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(DataDirError) as raised:
        ensure_data_dir()
    assert str(raised.value) == f"The data folder {tmp_path / 'data'} cannot be created: permission denied"
    assert raised.value.errno == errno.EACCES


def test_a_data_folder_on_a_read_only_disk_is_said_so() -> None:
    with small_disk() as disk:
        (disk / "there").mkdir()
        with read_only(disk):
            for folder in (disk / "new", disk / "there"):
                with pytest.raises(DataDirError) as raised:
                    ensure_data_dir(folder)
                assert str(raised.value) == f"The data folder {folder} is on a read-only file system"
                assert raised.value.errno == errno.EROFS


# ---------------------------------------------------------------------- atomic_write
@contextmanager
def full_disk_with_a_save() -> Iterator[Path]:
    """A save file on a small disk, the disk then filled; on leaving, the save and the filler
    are all there is and the save holds what it held."""
    with small_disk() as disk:
        target = disk / "current-match.json"
        target.write_bytes(b'{"old": true}')
        fill(disk)
        yield target
        assert target.read_bytes() == b'{"old": true}'
        assert names(disk) == ["current-match.json", "filler"]


def test_a_full_disk_leaves_the_old_file_and_no_temporary_file() -> None:
    with full_disk_with_a_save() as target:
        with pytest.raises(OSError) as raised:
            atomic_write(target, BIG)
        assert str(raised.value) == f"Could not write {target}: the disk is full"
        assert raised.value.strerror == "the disk is full" and raised.value.errno == errno.ENOSPC


def test_a_save_on_a_full_disk_leaves_no_temporary_file() -> None:
    from kc_tui.match.saves import write_save

    with full_disk_with_a_save() as target:
        write_save(target, {"log": ["x" * 99 for _ in range(1000)]})  # logged, never raised


def test_a_read_only_file_system_is_said_so_and_nothing_changes() -> None:
    with small_disk() as disk:
        target = disk / "settings.toml"
        target.write_bytes(b"old")
        with read_only(disk):
            with pytest.raises(OSError) as raised:
                atomic_write(target, b"new")
            assert "read-only" in str(raised.value) and one_plain_line(str(raised.value))
            assert raised.value.errno == errno.EROFS
        assert target.read_bytes() == b"old"
        assert names(disk) == ["settings.toml"]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root ignores a folder's permissions")
def test_a_folder_without_write_permission_says_permission_denied(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "f").write_bytes(b"old")
    folder.chmod(0o500)
    try:
        with pytest.raises(OSError, match="permission denied"):
            atomic_write(folder / "f", b"new")
    finally:
        folder.chmod(0o700)
    assert names(folder) == ["f"]


def test_a_folder_in_place_of_the_target_is_said_so(tmp_path: Path) -> None:
    target = tmp_path / "current-match.json"
    target.mkdir()
    (target / "inside").write_text("kept")
    with pytest.raises(OSError) as raised:
        atomic_write(target, b"{}")
    assert str(raised.value) == f"Could not write {target}: {target} is a folder, not a file"
    assert (target / "inside").read_text() == "kept"
    assert names(tmp_path) == ["current-match.json"]


def test_a_file_in_place_of_the_folder_is_said_so(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("a file")
    with pytest.raises(OSError) as raised:
        atomic_write(tmp_path / "data" / "current-match.json", b"{}")
    assert str(raised.value) == (
        f"Could not write {tmp_path / 'data' / 'current-match.json'}: the folder {tmp_path / 'data'} is a file,"
        " not a folder"
    )
    assert (tmp_path / "data").read_text() == "a file"


def _replace_fails(monkeypatch: pytest.MonkeyPatch, code: int, text: str) -> None:
    """Every :func:`os.replace` fails with ``code`` and ``text``."""

    def fail(src: object, dst: object) -> None:
        raise OSError(code, text)

    monkeypatch.setattr(os, "replace", fail)


def test_a_failed_rename_removes_the_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "f.json"
    target.write_bytes(b"old")
    _replace_fails(monkeypatch, errno.EIO, "Input/output error")
    with pytest.raises(OSError, match="input/output error"):
        atomic_write(target, b"new")
    assert names(tmp_path) == ["f.json"] and target.read_bytes() == b"old"


def test_an_interrupted_write_removes_the_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(tmp_path / "f.json", b"new")
    assert names(tmp_path) == []


def test_the_file_is_flushed_before_the_rename_and_the_folder_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append("fsync folder" if os.path.isdir(f"/proc/self/fd/{fd}") else "fsync file")
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        events.append("replace")
        real_replace(src, dst)

    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("needs /proc to tell a folder's descriptor from a file's")
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    atomic_write(tmp_path / "f.json", b"new")
    assert events == ["fsync file", "replace", "fsync folder"]
    assert (tmp_path / "f.json").read_bytes() == b"new"


def test_the_old_files_permissions_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "settings.toml"
    target.write_bytes(b"old")
    target.chmod(0o600)
    atomic_write(target, b"new")
    assert target.read_bytes() == b"new" and (target.stat().st_mode & 0o777) == 0o600


# ---------------------------------------------------------------------- reading and moving aside
def test_a_socket_in_place_of_the_settings_is_left_alone(tmp_path: Path) -> None:
    path = config_path()
    path.parent.mkdir(parents=True)
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(path))
        cfg, warning = load_config()
        assert cfg == Config() and warning is not None and "not a regular file" in warning
        assert path.is_socket() and names(path.parent) == ["settings.toml"]
    finally:
        sock.close()


def test_read_capped_says_a_socket_is_not_a_regular_file(tmp_path: Path) -> None:
    from kc_tui.util.files import NotRegularFile

    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(tmp_path / "s"))
        with pytest.raises(NotRegularFile):
            read_capped(tmp_path / "s", 100)
    finally:
        sock.close()


def test_a_bad_settings_file_on_a_read_only_disk_is_left_and_said_so(monkeypatch: pytest.MonkeyPatch) -> None:
    with small_disk() as disk:
        monkeypatch.setenv("XDG_CONFIG_HOME", str(disk))
        path = config_path()
        path.parent.mkdir()
        path.write_bytes(b"pace = 1\n")
        with read_only(disk):
            cfg, warning = load_config()
        assert cfg == Config() and warning is not None and warning.isprintable()
        assert "could not be moved aside (read-only file system), so it was left in place" in warning
        assert path.read_bytes() == b"pace = 1\n" and names(path.parent) == ["settings.toml"]


def test_moving_aside_on_a_full_disk_says_the_disk_is_full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"bad")
    _replace_fails(monkeypatch, errno.ENOSPC, "No space left on device")
    assert (
        move_aside(path, ".bak")
        == " It could not be moved aside (the disk is full), so it was left in place and is ignored."
    )
    assert names(tmp_path) == ["f"]


def test_moving_aside_passes_every_name_that_exists(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"bad")
    (tmp_path / "f.bak").mkdir()
    (tmp_path / "f.bak.1").symlink_to(tmp_path / "nowhere")
    (tmp_path / "f.bak.2").write_bytes(b"earlier")
    assert move_aside(path, ".bak") == f" It was moved aside to {tmp_path / 'f.bak.3'}."
    assert (tmp_path / "f.bak.3").read_bytes() == b"bad" and (tmp_path / "f.bak.2").read_bytes() == b"earlier"
    assert (tmp_path / "f.bak").is_dir() and (tmp_path / "f.bak.1").is_symlink()


# ---------------------------------------------------------------------- the settings screen


def error_text(app: App[None]) -> str:
    return str(app.screen.query_one("#error", Static).render())


async def _save_on_screen(path: Path) -> tuple[str, list[Config | None]]:
    app = Host(Config(), path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen), "a failed save must keep the screen open"
        return error_text(app), app.results


async def test_the_settings_screen_says_not_saved_on_a_full_disk() -> None:
    with small_disk() as disk:
        path = disk / "settings.toml"
        path.write_bytes(b'pace = "fast"\n')
        filler = fill(disk)
        (disk / "pad").write_bytes(b"")  # the settings are bigger than the last free byte
        text, results = await _save_on_screen(path)
        assert text == "✗ Could not save the settings: the disk is full."
        assert results == [], "dismissed only on success: the app's 'Settings saved' toast is not shown"
        assert path.read_bytes() == b'pace = "fast"\n'
        assert names(disk) == ["filler", "pad", "settings.toml"]
        filler.unlink()


async def test_the_settings_screen_says_not_saved_on_a_read_only_disk() -> None:
    with small_disk() as disk:
        path = disk / "settings.toml"
        path.write_bytes(b'pace = "fast"\n')
        with read_only(disk):
            text, results = await _save_on_screen(path)
        assert text == f"✗ Could not save the settings: the folder {disk} is on a read-only file system."
        assert results == [] and path.read_bytes() == b'pace = "fast"\n'


async def test_the_settings_screen_refuses_to_write_over_a_named_file_that_is_not_settings(tmp_path: Path) -> None:
    path = tmp_path / ".bashrc"
    path.write_bytes(b"export PATH=$HOME/bin:$PATH\nalias ll='ls -l'\n")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    text, results = await _save_on_screen(path)
    assert text.startswith(f"✗ Not saved: {path} is not a settings file (")
    assert text.endswith("so it was left as it is and the settings were not written to it.")
    assert results == []
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before and names(tmp_path) == [".bashrc"]


async def test_the_app_started_on_a_bashrc_leaves_it_and_never_says_saved(tmp_path: Path) -> None:
    from kc_tui.cli import build_parser
    from kc_tui.ui.launch import build_app
    from kc_tui.ui.screens.menu import MenuScreen

    home = tmp_path / "home"
    home.mkdir()
    bashrc = home / ".bashrc"
    bashrc.write_bytes(b'[ -z "$PS1" ] && return\nexport EDITOR=vi\n')
    before = hashlib.sha256(bashrc.read_bytes()).hexdigest()
    args = build_parser().parse_args(["--config", str(bashrc)])
    app: Any = build_app(args.command or "menu", args)
    async with app.run_test(size=(110, 36)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        await wait_for(pilot, lambda: any("left as it is" in n.message for n in app._notifications))
        warnings = [n.message for n in app._notifications]
        assert any("left as it is" in w and "not saved to it" in w for w in warnings), warnings
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen), what="the settings")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "Not saved" in error_text(app), what="the settings' error")
        assert isinstance(app.screen, SettingsScreen)
        assert "Not saved" in error_text(app)
        assert not any("Settings saved" in n.message for n in app._notifications)
    assert hashlib.sha256(bashrc.read_bytes()).hexdigest() == before
    assert names(home) == [".bashrc"]


def test_saving_settings_on_a_full_disk_keeps_the_old_ones() -> None:
    with small_disk() as disk:
        path = disk / "settings.toml"
        save_config(Config(pace="fast"), path)
        fill(disk)
        (disk / "pad").write_bytes(b"")
        with pytest.raises(OSError, match="the disk is full"):
            save_config(Config(pace="slow", player_name="A" * 20), path)
        assert load_config(path) == (Config(pace="fast"), None)
        assert names(disk) == ["filler", "pad", "settings.toml"]
