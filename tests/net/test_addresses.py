"""A seat's address kept secret: ``host --addresses DIR`` writes one private file per person's
seat and prints no token; ``join --file FILE`` reads it, so the token is on no process's command
line (``/proc/*/cmdline``, what every user's ``ps`` reads) while the real app sits at a real
table; every file an attacker could hand to ``join --file`` is one line and exit 2; without
``--addresses`` the host warns that an address is a password."""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from pathlib import Path

import pytest

from kc_tui.cli import CliError, main
from kc_tui.net import schema as p
from kc_tui.net.addresses import ADDRESS_MAX, file_name, read_address
from kc_tui.net.client import table_address
from tests.net.clientkit import app_process
from tests.net.serverkit import join, lines_until, process_lines, start_host, stop

SEATS = ["--seats", "human:Ana,human:Ben,greedy", "--rules", "hand_size=4", "--target", "5", "--seed", "3"]
#: A URL of the shape the host prints, for the files made by hand.
URL = "ws://127.0.0.1:8765/seat/" + "A" * p.TOKEN_LENGTH


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    """The command's only output: one line on stderr, no traceback; that line."""
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("kings-corners: "), err
    assert "Traceback" not in err
    return err


def private_file(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    path.chmod(0o600)
    return path


def token_of(url: str) -> str:
    return url.rsplit("/seat/", 1)[1]


# ---------------------------------------------------------------------- host --addresses
@pytest.mark.parametrize(
    ("seat", "name", "expected"),
    [
        (0, "Ana", "seat-1-Ana.url"),
        (1, "[b]Ben[/b] ../../etc/passwd", "seat-2-b-Ben-b-etc-passwd.url"),
        (2, "Zoë Ångström", "seat-3-Zo-ngstr-m.url"),
        (3, "../..", "seat-4.url"),
        (0, "-rf *", "seat-1-rf.url"),
        (1, "x" * 40, "seat-2-" + "x" * 32 + ".url"),
    ],
)
def test_an_address_file_is_named_after_its_seat_with_only_safe_characters(seat: int, name: str, expected: str) -> None:
    assert file_name(seat, name) == expected


async def test_host_addresses_writes_private_files_that_join_file_reads_and_prints_no_token(
    isolated_dirs: Path,
) -> None:
    folder = isolated_dirs / "handover" / "table"  # missing: made, and the folder above it, 0700
    host = start_host(*SEATS, "--port", "0", "--stand-in", "0", "--addresses", str(folder))
    try:
        lines = await lines_until(host, "Watch: ")
        files = sorted(folder.iterdir())
        assert [f.name for f in files] == ["seat-1-Ana.url", "seat-2-Ben.url"]
        assert mode(folder) == 0o700 and mode(folder.parent) == 0o700
        assert all(mode(f) == 0o600 for f in files)
        urls = [read_address(str(f)) for f in files]
        assert all(f.read_text() == u + "\n" for f, u in zip(files, urls, strict=True))
        printed = "\n".join(lines)
        assert not any(token_of(u) in printed for u in urls), printed
        assert "Give each person their file" in printed and "kings-corners join --file seat-1-Ana.url" in printed
        ana, ben = await join(urls[0]), await join(urls[1])
        assert (ana.state.seat, ben.state.seat) == (0, 1)
        for c in (ana, ben):
            await c.close()
    finally:
        stop(host)
    for f in files:
        f.unlink()
    again = start_host("--resume", "--stand-in", "0", "--addresses", str(folder))
    try:
        await lines_until(again, "Watch: ")
        assert [read_address(str(f)) for f in sorted(folder.iterdir())] == urls, "the same seats, the same files"
    finally:
        stop(again)


async def test_host_resume_keeps_writing_the_files_of_the_folder_given_at_the_start_and_prints_no_token(
    isolated_dirs: Path,
) -> None:
    folder = isolated_dirs / "handover"
    host = start_host(*SEATS, "--port", "0", "--stand-in", "0", "--addresses", str(folder))
    try:
        await lines_until(host, "Watch: ")
        files = sorted(folder.iterdir())
        urls = [read_address(str(f)) for f in files]
    finally:
        stop(host)
    for f in files:
        f.unlink()
    again = start_host("--resume", "--stand-in", "0")  # --addresses not given again
    try:
        lines = await lines_until(again, "Watch: ")
    finally:
        stop(again)
    printed = "\n".join(lines)
    assert not any(token_of(u) in printed for u in urls), printed
    assert "Give each person their file" in printed and "password" not in printed
    assert [read_address(str(f)) for f in sorted(folder.iterdir())] == urls, "the same seats, the same files"


async def test_host_without_addresses_warns_that_an_address_is_a_password() -> None:
    host = start_host(*SEATS, "--port", "0")
    try:
        lines = await lines_until(host, "Watch: ")
    finally:
        stop(host)
    warning = next(i for i, line in enumerate(lines) if "password" in line)
    first_join = next(i for i, line in enumerate(lines) if ": kings-corners join ws://" in line)
    assert warning < first_join and "join --file" in lines[warning]


def folder_case(kind: str, tmp_path: Path) -> tuple[Path, str]:
    """A folder ``--addresses`` must refuse, and the words of the refusal."""
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    if kind == "link":
        (tmp_path / "link").symlink_to(real)
        return tmp_path / "link", "is a link"
    if kind == "file":
        (tmp_path / "file").write_text("x")
        return tmp_path / "file", "is not a folder"
    if kind == "others-write":
        real.chmod(0o777)
        return real, "can be written into by other users"
    if kind == "not-yours":
        os.chown(real, 65534, 65534)
        return real, "is not your folder"
    (tmp_path / "blocker").write_text("x")
    return tmp_path / "blocker" / "sub", "cannot be used"


@pytest.mark.parametrize("kind", ["link", "file", "others-write", "not-yours", "under-a-file"])
def test_a_folder_host_addresses_cannot_use_is_one_line_and_exit_2(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if kind == "not-yours" and os.geteuid() != 0:
        pytest.skip("giving a folder to another user needs root")
    folder, words = folder_case(kind, tmp_path)
    assert main(["host", *SEATS, "--port", "0", "--addresses", str(folder)]) == 2
    assert words in one_error_line(capsys)
    assert not (tmp_path / "data" / "hosted.json").exists(), "a table was served"


# ---------------------------------------------------------------------- join --file
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_while_join_file_sits_at_the_table_its_token_is_on_no_command_line(isolated_dirs: Path) -> None:
    folder = isolated_dirs / "addresses"
    host = start_host(*SEATS, "--port", "0", "--stand-in", "0", "--addresses", str(folder))
    env = os.environ | {"KINGS_CORNERS_DATA": str(isolated_dirs / "joiner")}
    try:
        await lines_until(host, "Watch: ")
        ana_file, ben_file = sorted(folder.iterdir())
        ana_token, ben_token = token_of(read_address(str(ana_file))), token_of(read_address(str(ben_file)))
        with app_process(["join", "--file", str(ana_file)], env) as joiner:
            await lines_until(host, "Ana connected")
            assert joiner.proc.poll() is None
            lines = process_lines()
            assert str(ana_file) in lines[joiner.proc.pid], "the scan reads the joining app's command line"
            assert [pid for pid, line in lines.items() if ana_token in line] == []
            # The scan finds a token that is on a command line: the URL form puts it there.
            with app_process(["join", read_address(str(ben_file))], env) as visible:
                await lines_until(host, "Ben connected")
                assert [pid for pid, line in process_lines().items() if ben_token in line] == [visible.proc.pid]
    finally:
        stop(host)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_join_file_dash_takes_the_address_pasted_at_the_terminal(isolated_dirs: Path) -> None:
    folder = isolated_dirs / "addresses"
    host = start_host(*SEATS, "--port", "0", "--stand-in", "0", "--addresses", str(folder))
    env = os.environ | {"KINGS_CORNERS_DATA": str(isolated_dirs / "joiner")}
    try:
        await lines_until(host, "Watch: ")
        url = read_address(str(sorted(folder.iterdir())[0]))
        with app_process(["join", "--file", "-"], env) as joiner:
            await joiner.shows(b"The seat's address (not shown as you paste it): ")
            os.write(joiner.terminal, url.encode() + b"\r")
            await lines_until(host, "Ana connected")
            assert joiner.proc.poll() is None
            assert token_of(url).encode() not in joiner.output, "the address was echoed"
            assert [pid for pid, line in process_lines().items() if token_of(url) in line] == []
    finally:
        stop(host)


def attack(kind: str, tmp_path: Path) -> tuple[str, str]:
    """A path handed to ``join --file`` that must be refused, and the words of the refusal."""
    f = tmp_path / "address.url"
    if kind == "missing":
        return str(f), "no such file"
    if kind == "folder":
        f.mkdir()
        return str(f), "is a directory"
    if kind == "fifo":
        os.mkfifo(f, 0o600)
        return str(f), "only regular files are read"
    if kind == "device":
        return "/dev/zero", "only regular files are read"
    if kind == "huge":
        private_file(f, URL.encode() + b"\n" * (1 << 20))
        return str(f), "is larger than 4 KiB"
    if kind == "just-over":
        private_file(f, (URL + "\n").encode().ljust(ADDRESS_MAX + 1, b" "))
        return str(f), "is larger than 4 KiB"
    if kind == "empty":
        private_file(f, b"")
        return str(f), "is empty"
    if kind == "blank":
        private_file(f, b" \n\n\t\n")
        return str(f), "is empty"
    if kind == "binary":
        private_file(f, bytes(range(256)) * 4)
        return str(f), "not plain text"
    if kind == "nul":
        private_file(f, URL.encode() + b"\0evil\n")
        return str(f), "control characters"
    if kind == "escape":
        private_file(f, b"ws://127.0.0.1:8765/seat/\x1b]0;pwned\x07abc\n")
        return str(f), "control characters"
    if kind == "two-lines":
        private_file(f, (URL + "\n" + URL + "\n").encode())
        return str(f), "holds 2 lines"
    if kind == "garbage":
        private_file(f, b"root:$6$secret-hash:19000:0:99999:7:::\n")
        return str(f), "does not hold a table's address"
    if kind == "other-scheme":
        private_file(f, b"http://127.0.0.1:8765/seat/abc\n")
        return str(f), "does not hold a table's address"
    if kind == "open-to-others":
        f.write_text(URL + "\n")
        f.chmod(0o644)
        return str(f), "chmod 600"
    if kind == "not-yours":
        private_file(f, (URL + "\n").encode())
        os.chown(f, 65534, 65534)
        return str(f), "is not your file"
    if kind == "link-to-not-yours":
        target = private_file(tmp_path / "shadow", b"root:$6$secret-hash:19000:0:99999:7:::\n")
        os.chown(target, 65534, 65534)
        f.symlink_to(target)
        return str(f), "is not your file"
    if kind == "broken-link":
        f.symlink_to(tmp_path / "nowhere")
        return str(f), "which does not exist"
    if kind == "under-a-file":
        f.write_text("x")
        return str(f / "address.url"), "is a file, not a folder"
    if kind == "nul-in-name":
        return "address\0.url", "not a usable file name"
    raise AssertionError(kind)


ATTACKS = [
    "missing",
    "folder",
    "fifo",
    "device",
    "huge",
    "just-over",
    "empty",
    "blank",
    "binary",
    "nul",
    "escape",
    "two-lines",
    "garbage",
    "other-scheme",
    "open-to-others",
    "not-yours",
    "link-to-not-yours",
    "broken-link",
    "under-a-file",
    "nul-in-name",
]


@pytest.mark.parametrize("kind", ATTACKS)
def test_a_file_join_file_cannot_use_is_one_line_exit_2_and_never_quoted(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if kind in ("not-yours", "link-to-not-yours") and os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    path, words = attack(kind, tmp_path)
    assert main(["join", "--file", path]) == 2
    err = one_error_line(capsys)
    assert words in err
    for secret in ("secret-hash", "pwned", "evil", "A" * 10):
        assert secret not in err, "the file's content was shown"


def test_join_file_takes_a_link_to_a_file_of_ones_own_and_a_trailing_newline(tmp_path: Path) -> None:
    real = private_file(tmp_path / "real.url", (URL + "\r\n").encode())
    (tmp_path / "link.url").symlink_to(real)
    assert read_address(str(tmp_path / "link.url")) == URL
    assert read_address(str(real), watch=True) == table_address(URL, watch=True)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["join"], "join needs the seat's address: --file FILE"),
        (["join", "--file", "x.url", URL], "not allowed with"),
        (["join", "--file", "-"], "--file - reads the address typed or pasted at the terminal"),
    ],
)
def test_join_without_one_address_is_one_line_and_exit_2(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with open(os.devnull) as nothing:  # no terminal: what a pipe or a service gives
        monkeypatch.setattr(sys, "stdin", nothing)
        assert main(argv) == 2
    assert words in one_error_line(capsys)


def test_join_help_says_the_file_keeps_the_address_out_of_the_process_list(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["join", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--file FILE" in text and "out of the process list" in text and "prefer --file" in text


async def test_an_address_file_is_read_without_waiting_on_a_fifo(tmp_path: Path) -> None:
    path, _ = attack("fifo", tmp_path)
    with pytest.raises(CliError, match="only regular files are read"):
        await asyncio.wait_for(asyncio.to_thread(read_address, path), 10)
