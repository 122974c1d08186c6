"""A file a user names is read one way: a position (``check``), a seat's address (``join
--file``) and a history (``stats``) say the same words for the same fault, and a FIFO is never
waited on."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from kc_tui.cli.positions import read_file
from kc_tui.config.args import CliError
from kc_tui.net.addresses import read_address
from kc_tui.records.opening import open_read_only
from kc_tui.records.rows import HistoryError
from kc_tui.util.files import FileError, kind_of, read_user_file, size_words


def _position(path: str) -> None:
    read_file(path)


def _address(path: str) -> None:
    read_address(path)


def _history(path: str) -> None:
    open_read_only(Path(path))


READERS: dict[str, Callable[[str], None]] = {"position": _position, "address": _address, "history": _history}


def _fault(kind: str, tmp_path: Path) -> str:
    f = tmp_path / "the file"
    if kind == "missing":
        return str(f)
    if kind == "directory":
        f.mkdir()
    elif kind == "fifo":
        os.mkfifo(f, 0o600)
    elif kind == "broken-link":
        f.symlink_to(tmp_path / "nowhere")
    elif kind == "under-a-file":
        f.write_text("x")
        return str(f / "inside")
    elif kind == "nul-in-name":
        return str(f) + "\0x"
    return str(f)


def _message(read: Callable[[str], None], path: str) -> str:
    with pytest.raises((CliError, HistoryError)) as caught:
        read(path)
    return str(caught.value)


@pytest.mark.parametrize("kind", ["missing", "directory", "fifo", "broken-link", "under-a-file", "nul-in-name"])
def test_every_reader_of_a_named_file_says_the_same_one_line_for_the_same_fault(kind: str, tmp_path: Path) -> None:
    if kind == "fifo" and not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    path = _fault(kind, tmp_path)
    said = {name: _message(read, path) for name, read in READERS.items()}
    assert len(set(said.values())) == 1, said
    line = said["position"]
    assert "\n" not in line and "\0" not in line and "the file" in line


def test_a_fifo_or_a_directory_is_named_for_what_it_is(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe", 0o600)
    (tmp_path / "dir").mkdir()
    with pytest.raises(FileError, match=r"is a FIFO \(named pipe\); only regular files are read"):
        read_user_file(tmp_path / "pipe", 10)
    with pytest.raises(FileError, match="is a directory; only regular files are read"):
        read_user_file(tmp_path / "dir", 10)
    assert kind_of(os.stat("/dev/null").st_mode) == "a character device"


def test_a_file_is_read_up_to_its_cap_and_refused_one_byte_over_with_the_cap_in_plain_words(tmp_path: Path) -> None:
    at_cap = tmp_path / "at"
    at_cap.write_bytes(b"x" * 4096)
    assert read_user_file(at_cap, 4096) == b"x" * 4096
    over = tmp_path / "over"
    over.write_bytes(b"x" * 4097)
    with pytest.raises(FileError, match="is larger than 4 KiB"):
        read_user_file(over, 4096)
    assert [size_words(n) for n in (1 << 20, 65536, 1, 300)] == ["1 MiB", "64 KiB", "1 byte", "300 bytes"]


def test_a_check_of_the_open_file_refuses_it_before_a_byte_is_read(tmp_path: Path) -> None:
    f = tmp_path / "f"
    f.write_bytes(b"secret")

    def refuse(st: os.stat_result) -> None:
        raise CliError("refused")

    with pytest.raises(CliError, match="refused"):
        read_user_file(f, 100, check=refuse)
