"""The player key: made once with mode 0600 from the start, read back the same, a file that
cannot be trusted refused in one line and left as it was; signatures checked without ever
raising."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed448 import Ed448PrivateKey

from kc_tui.net.identity import (
    DOMAIN,
    KEY_FILE,
    IdentityError,
    PlayerKey,
    challenge_bytes,
    default_key_folder,
    fingerprint,
    is_public_key,
    new_nonce,
    verify,
)

URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _snapshot(path: Path) -> tuple[int, int, bytes | str | None]:
    """What is at ``path``: its mode, owner and bytes (a link: where it points; a folder: None)."""
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return st.st_mode, st.st_uid, os.readlink(path)
    if stat.S_ISDIR(st.st_mode):
        return st.st_mode, st.st_uid, None
    return st.st_mode, st.st_uid, path.read_bytes()


def _one_line(exc: pytest.ExceptionInfo[IdentityError]) -> str:
    said = str(exc.value)
    assert said and "\n" not in said and "Traceback" not in said
    return said


# ---------------------------------------------------------------------- made and read back
def test_a_new_key_is_private_from_the_start_whatever_the_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "data"
    created: list[tuple[str, int]] = []
    real_open = os.open

    def spy(path: Any, flags: int, mode: int = 0o777, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_CREAT:
            created.append((os.fspath(path), mode))
        return real_open(path, flags, mode, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    old_mask = os.umask(0)
    try:
        key = PlayerKey.load_or_create(folder)
    finally:
        os.umask(old_mask)
    path = folder / KEY_FILE
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert created and all(mode == 0o600 for _name, mode in created)  # no moment readable by others
    assert sorted(os.listdir(folder)) == [KEY_FILE]  # the temporary file is gone
    assert key.path == path
    assert is_public_key(key.public_text) and len(key.public_text) == 43


def test_a_key_is_read_back_the_same(tmp_path: Path) -> None:
    first = PlayerKey.load_or_create(tmp_path)
    again = PlayerKey.load_or_create(tmp_path)
    assert again.public_text == first.public_text
    data = challenge_bytes("server-1", new_nonce())
    assert verify(first.public_text, again.sign(data), data)


def test_the_default_folder_is_the_data_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KINGS_CORNERS_DATA", str(tmp_path / "elsewhere"))
    assert default_key_folder() == tmp_path / "elsewhere"
    key = PlayerKey.load_or_create()
    assert key.path == tmp_path / "elsewhere" / KEY_FILE and key.path.is_file()


def test_a_key_made_by_another_process_meanwhile_is_the_one_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_link = os.link
    theirs: list[PlayerKey] = []

    def racing_link(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        if not theirs:  # the other process links its key first
            monkeypatch.setattr(os, "link", real_link)
            theirs.append(PlayerKey.load_or_create(tmp_path))
        real_link(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "link", racing_link)
    mine = PlayerKey.load_or_create(tmp_path)
    assert theirs and mine.public_text == theirs[0].public_text
    assert sorted(os.listdir(tmp_path)) == [KEY_FILE]


def test_the_private_key_never_shows_in_its_repr(tmp_path: Path) -> None:
    key = PlayerKey.load_or_create(tmp_path)
    pem = (tmp_path / KEY_FILE).read_text()
    body = "".join(line for line in pem.splitlines() if not line.startswith("-----"))
    assert body[20:40] not in repr(key) and fingerprint(key.public_text) in repr(key)


# ---------------------------------------------------------------------- refused, left alone
def _corrupt(path: Path) -> None:
    path.write_bytes(b"-----BEGIN PRIVATE KEY-----\nnot base64 at all\n-----END PRIVATE KEY-----\n")
    path.chmod(0o600)


def _empty(path: Path) -> None:
    path.write_bytes(b"")
    path.chmod(0o600)


def _huge(path: Path) -> None:
    path.write_bytes(b"A" * 100_000)
    path.chmod(0o600)


def _other_kind_of_key(path: Path) -> None:
    pem = Ed448PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    path.write_bytes(pem)
    path.chmod(0o600)


def _directory(path: Path) -> None:
    path.mkdir()


def _link_elsewhere(path: Path) -> None:
    other = path.parent.parent / "elsewhere"
    PlayerKey.load_or_create(other)
    path.symlink_to(other / KEY_FILE)


def _dangling_link(path: Path) -> None:
    path.symlink_to(path.parent / "nothing-here")


def _group_readable(path: Path) -> None:
    PlayerKey.load_or_create(path.parent)
    path.chmod(0o640)


def _world_readable(path: Path) -> None:
    PlayerKey.load_or_create(path.parent)
    path.chmod(0o604)


def _another_users(path: Path) -> None:
    PlayerKey.load_or_create(path.parent)
    os.chown(path, 54321, 54321)


CASES = [
    pytest.param(_corrupt, "is damaged (it is not a player key): move it aside", id="corrupt"),
    pytest.param(_empty, "is damaged (it is empty): move it aside", id="empty"),
    pytest.param(_huge, "is damaged (it is larger than a key)", id="huge"),
    pytest.param(_other_kind_of_key, "is damaged (it is not a player key)", id="another-kind-of-key"),
    pytest.param(_directory, "is a directory, not a file: move it away", id="directory"),
    pytest.param(_link_elsewhere, "is a link to ", id="link-elsewhere"),
    pytest.param(_dangling_link, "is a link to ", id="link-to-nothing"),
    pytest.param(_group_readable, "can be used by other users: make it yours alone with chmod 600", id="group"),
    pytest.param(_world_readable, "can be used by other users: make it yours alone with chmod 600", id="world"),
    pytest.param(
        _another_users,
        "belongs to another user",
        id="another-users",
        marks=pytest.mark.skipif(not IS_ROOT, reason="giving a file to another user needs root"),
    ),
]


@pytest.mark.parametrize(("make", "words"), CASES)
def test_a_key_file_that_cannot_be_trusted_is_refused_and_left_as_it_was(
    tmp_path: Path, make: Callable[[Path], None], words: str
) -> None:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o700)
    path = folder / KEY_FILE
    make(path)
    before = _snapshot(path)
    listing = sorted(os.listdir(folder))
    for _attempt in range(2):  # asked again, it is still refused: never replaced by a new key
        with pytest.raises(IdentityError) as caught:
            PlayerKey.load_or_create(folder)
        said = _one_line(caught)
        assert words in said and str(path) in said, said
        assert _snapshot(path) == before
        assert sorted(os.listdir(folder)) == listing


def test_a_folder_that_is_a_file_is_refused_in_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("not a folder")
    with pytest.raises(IdentityError) as caught:
        PlayerKey.load_or_create(blocker)
    assert "is a file, not a folder" in _one_line(caught)
    assert blocker.read_text() == "not a folder"


# ---------------------------------------------------------------------- a full disk
def test_a_full_disk_refuses_in_one_line_and_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(fd: int, data: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(IdentityError) as caught:
        PlayerKey.load_or_create(tmp_path)
    assert "cannot be made: the disk is full" in _one_line(caught)
    assert os.listdir(tmp_path) == []


@contextlib.contextmanager
def _tiny_tmpfs(where: Path) -> Iterator[Path]:
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16k,mode=0700", "tmpfs", str(where)], capture_output=True, check=False
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


@pytest.mark.skipif(not IS_ROOT or shutil.which("mount") is None, reason="mounting a small file system needs root")
def test_a_real_full_disk_refuses_in_one_line_and_leaves_no_file(tmp_path: Path) -> None:
    with _tiny_tmpfs(tmp_path / "tiny") as disk:
        filler = disk / "filler"
        with contextlib.suppress(OSError), open(filler, "wb") as out:
            while True:
                out.write(b"\0" * 4096)
                out.flush()
        with pytest.raises(IdentityError) as caught:
            PlayerKey.load_or_create(disk)
        assert "cannot be made: the disk is full" in _one_line(caught)
        assert os.listdir(disk) == ["filler"]


# ---------------------------------------------------------------------- signatures
def test_a_signature_verifies_only_its_own_data_and_key() -> None:
    key, other = PlayerKey.generate(), PlayerKey.generate()
    data = challenge_bytes("server-1", "nonce-1")
    signature = key.sign(data)
    assert verify(key.public_text, signature, data)
    assert not verify(key.public_text, signature, data + b"!")
    assert not verify(key.public_text, signature, challenge_bytes("server-2", "nonce-1"))
    assert not verify(key.public_text, signature, challenge_bytes("server-1", "nonce-2"))
    assert not verify(other.public_text, signature, data)
    assert not verify(key.public_text, other.sign(data), data)
    flipped = signature[:10] + ("A" if signature[10] != "A" else "B") + signature[11:]
    assert not verify(key.public_text, flipped, data)


GARBAGE: list[object] = [
    None,
    0,
    3.5,
    True,
    b"bytes",
    ["list"],
    {"a": 1},
    "",
    "=",
    "a" * 43,
    "a" * 42,
    "a" * 44,
    "a" * 86,
    "é" * 43,
    "é" * 86,
    "\x00" * 43,
    "+" * 43,
    "/" * 86,
    "a" * 41 + "==",
    "x" * 10_000_000,
    "\ud800" * 43,
]


@pytest.mark.parametrize("junk", GARBAGE, ids=lambda j: f"{type(j).__name__}:{str(j)[:12]!r}")
def test_verify_is_false_for_garbage_and_never_raises(junk: object) -> None:
    key = PlayerKey.generate()
    data = challenge_bytes("s", "n")
    signature = key.sign(data)
    assert verify(junk, signature, data) is False
    assert verify(key.public_text, junk, data) is False
    assert verify(key.public_text, signature, junk) is False
    assert verify(junk, junk, junk) is False
    assert is_public_key(junk) is False or junk == key.public_text


def test_a_key_or_signature_with_stray_bits_is_refused() -> None:
    key = PlayerKey.generate()
    data = b"data"
    signature = key.sign(data)
    # The last character of 43 carries 2 bits of padding: another letter with the same 32 bytes
    # decoded, if the padding bits were ignored, must not pass (one text per key).
    last = URL_SAFE.index(key.public_text[-1])
    twin = key.public_text[:-1] + URL_SAFE[last ^ 1]
    assert not verify(twin, signature, data)
    assert not verify(key.public_text + "=", signature, data)
    assert not verify(key.public_text, signature + "==", data)


def test_the_challenge_is_domain_separated_and_unambiguous() -> None:
    assert challenge_bytes("srv", "abc").startswith(DOMAIN)
    assert challenge_bytes("a\nb", "c") != challenge_bytes("a", "b\nc")
    assert challenge_bytes("a\\nb", "c") != challenge_bytes("a\nb", "c")
    assert challenge_bytes("a", "b") != challenge_bytes("a", "b ")
    assert challenge_bytes("\ud800", "\udfff")  # text from a hostile server never raises


def test_nonces_are_fresh_url_safe_text() -> None:
    nonces = {new_nonce() for _ in range(100)}
    assert len(nonces) == 100
    assert all(
        len(n) >= 32 and set(n) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for n in nonces
    )


def test_a_fingerprint_is_short_stable_and_tells_keys_apart() -> None:
    key, other = PlayerKey.generate(), PlayerKey.generate()
    shown = fingerprint(key.public_text)
    assert shown == fingerprint(key.public_text) != fingerprint(other.public_text)
    assert len(shown) == 19 and shown.count("-") == 3
    with pytest.raises(ValueError):
        fingerprint("not a key")
