"""Who a player is without a password: an Ed25519 key pair kept in the data folder, and the
challenge a server signs a player in by.

Each install has one private key, ``player_key`` in its data folder (:func:`default_key_folder`),
made on first use with mode 0600 from the start (written into a new private file, flushed, then
linked into place: never a moment readable by anyone else, never half written). A key file that
cannot be trusted or read (damaged, empty, a folder, a link, readable by other users, owned by
another user) is refused with :class:`IdentityError`, one plain line saying what to do, and is
never written over: a player's identity is not lost to a fault.

A server knows a person by the public key (:attr:`PlayerKey.public_text`) and signs them in by
a challenge: it sends its id and a fresh nonce (:func:`new_nonce`), the client signs
:func:`challenge_bytes` of them (:meth:`PlayerKey.sign`) and the server checks the signature
(:func:`verify`, which never raises). Keys and signatures travel as URL-safe base64 without
padding; :func:`fingerprint` is a key's short form to show.

Plain Python (the ``cryptography`` package): no asyncio, no Textual.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import errno
import hashlib
import os
import secrets
import stat
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from kc_tui.config.store import data_dir
from kc_tui.i18n import _
from kc_tui.util.files import PRIVATE_FILE, describe_os_error, ensure_folder, kind_of, link_to
from kc_tui.util.printable import one_line

#: The private key's file in the data folder.
KEY_FILE = "player_key"
#: The most bytes a key file may hold (a PEM Ed25519 key is 119).
KEY_FILE_MAX = 4096
#: What every signed challenge starts with: a signature made for signing in is good for nothing else.
DOMAIN = b"kings-corners sign-in v1\n"
#: Sizes of a public key and of a signature, in bytes, and as URL-safe base64 without padding.
PUBLIC_BYTES = 32
SIGNATURE_BYTES = 64
PUBLIC_LENGTH = 43
SIGNATURE_LENGTH = 86
#: Random bytes in a nonce and in a server's id.
NONCE_BYTES = 24
SERVER_ID_BYTES = 16
#: The bytes of a key's hash a fingerprint shows (as hex in groups of four).
FINGERPRINT_BYTES = 8

#: How the key file is opened: never following a link, never waiting on a FIFO.
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class IdentityError(Exception):
    """The player key cannot be used or made: ``str(exc)`` is one plain line saying why and
    what to do."""


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64(text: object, size: int, length: int) -> bytes | None:
    """The ``size`` bytes URL-safe base64 text of ``length`` characters (no padding) stands for,
    or None when it is anything else (not text, another length, another alphabet, stray bits)."""
    if not isinstance(text, str) or len(text) != length or not text.isascii():
        return None
    try:
        raw = base64.b64decode(text + "=" * (-length % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) != size or _b64(raw) != text:  # the canonical form only: one text per key
        return None
    return raw


def default_key_folder() -> Path:
    """Where the player key lives: the app's data folder (``$KINGS_CORNERS_DATA``, else the
    user's data folder)."""
    return data_dir()


class PlayerKey:
    """This install's key pair: :attr:`public_text` (the public key, 32 bytes as URL-safe base64
    without padding: 43 characters), :meth:`sign`. Made by :meth:`load_or_create`, or
    :meth:`generate` in memory."""

    def __init__(self, private: Ed25519PrivateKey, path: Path | None = None) -> None:
        self._private = private
        #: The key file it was read from or written to (None: only in memory).
        self.path = path
        raw = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.public_text = _b64(raw)

    def __repr__(self) -> str:  # the private key never shows
        return f"PlayerKey({fingerprint(self.public_text)})"

    @classmethod
    def generate(cls) -> PlayerKey:
        """A new key pair kept only in memory."""
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def load_or_create(cls, folder: Path | None = None) -> PlayerKey:
        """The key in ``folder`` (None: :func:`default_key_folder`), made there if there is none
        (the folder too, mode 0700). :class:`IdentityError` when the file there cannot be used
        (it is left as it is) or a new one cannot be made (nothing is left behind)."""
        folder = default_key_folder() if folder is None else Path(folder)
        path = folder / KEY_FILE
        problem = ensure_folder(folder)
        if problem is not None:
            # Translators: {path} is a folder, {problem} what is wrong with it ("is a file, not a folder").
            raise IdentityError(
                _("The data folder {path} {problem}: the player key cannot be kept there.").format(
                    path=one_line(str(folder)), problem=problem
                )
            )
        for _attempt in range(3):
            try:
                return cls(_read_key(path), path)
            except FileNotFoundError:
                pass
            try:
                return cls(_create_key(path), path)
            except FileExistsError:  # another process made it meanwhile: read theirs
                continue
        raise IdentityError(_damaged(path, _("it keeps changing")))

    def sign(self, data: bytes) -> str:
        """The signature of ``data``: 64 bytes as URL-safe base64 without padding (86 characters)."""
        return _b64(self._private.sign(bytes(data)))


# ---------------------------------------------------------------------- the key file
def _shown(path: Path) -> str:
    return one_line(str(path))


def _damaged(path: Path, why: str) -> str:
    # Translators: {path} is the key file, {why} what is wrong with it ("it is empty").
    return _(
        "The player key {path} is damaged ({why}): move it aside and a new key is made (servers will know you as a new"
        " player)."
    ).format(path=_shown(path), why=why)


def _unreadable(path: Path, exc: OSError) -> IdentityError:
    # Translators: {reason} is why, in plain words ("permission denied").
    return IdentityError(
        _("The player key {path} cannot be read: {reason}.").format(path=_shown(path), reason=describe_os_error(exc))
    )


def _check_status(path: Path, st: os.stat_result) -> None:
    """Refuse a key file that is not a regular file of this user's, private to them."""
    if stat.S_ISLNK(st.st_mode):
        # Translators: {target} is where the link points.
        raise IdentityError(
            _("The player key {path} is a link to {target}: put the key file itself in its place.").format(
                path=_shown(path), target=link_to(path)
            )
        )
    if not stat.S_ISREG(st.st_mode):
        # Translators: {kind} is what is there ("a directory").
        raise IdentityError(
            _("The player key {path} is {kind}, not a file: move it away and a new key is made.").format(
                path=_shown(path), kind=kind_of(st.st_mode)
            )
        )
    geteuid = getattr(os, "geteuid", None)
    if geteuid is not None and st.st_uid != geteuid():
        raise IdentityError(
            _(
                "The player key {path} belongs to another user: run the game as that user, or move the file away and a"
                " new key is made."
            ).format(path=_shown(path))
        )
    if os.name == "posix" and st.st_mode & 0o077:
        raise IdentityError(
            _("The player key {path} can be used by other users: make it yours alone with chmod 600 {path}.").format(
                path=_shown(path)
            )
        )


def _read_key(path: Path) -> Ed25519PrivateKey:
    """The private key in the file ``path``; FileNotFoundError when there is none,
    :class:`IdentityError` when it cannot be used."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise _unreadable(path, exc) from None
    _check_status(path, st)
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # it became a link since: refused as one
            with contextlib.suppress(OSError):
                _check_status(path, os.lstat(path))
        raise _unreadable(path, exc) from None
    try:
        st = os.fstat(fd)
        _check_status(path, st)  # the file opened, not the one looked at before
        data = b""
        while len(data) <= KEY_FILE_MAX:
            chunk = os.read(fd, KEY_FILE_MAX + 1 - len(data))
            if not chunk:
                break
            data += chunk
    except OSError as exc:
        raise _unreadable(path, exc) from None
    finally:
        os.close(fd)
    if not data.strip():
        raise IdentityError(_damaged(path, _("it is empty")))
    if len(data) > KEY_FILE_MAX:
        raise IdentityError(_damaged(path, _("it is larger than a key")))
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        key = None
    if not isinstance(key, Ed25519PrivateKey):
        raise IdentityError(_damaged(path, _("it is not a player key")))
    return key


def _create_key(path: Path) -> Ed25519PrivateKey:
    """A new private key written to ``path``, which must not exist: into a new file of mode 0600
    beside it, flushed, then linked to ``path`` (FileExistsError when another process made
    ``path`` meanwhile); :class:`IdentityError` when it cannot be written (nothing is left)."""
    key = Ed25519PrivateKey.generate()
    data = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd: int | None = None
    try:
        fd = os.open(tmp, _CREATE_FLAGS, PRIVATE_FILE)
        if hasattr(os, "fchmod"):  # exactly 0600, whatever the umask took away
            os.fchmod(fd, PRIVATE_FILE)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        os.close(fd)
        fd = None
        _link_new(tmp, path)
    except FileExistsError:
        raise
    except OSError as exc:
        # Translators: {reason} is why, in plain words ("the disk is full").
        raise IdentityError(
            _("The player key {path} cannot be made: {reason}.").format(
                path=_shown(path), reason=describe_os_error(exc)
            )
        ) from None
    finally:
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    _fsync_folder(path.parent)
    return key


def _link_new(tmp: Path, path: Path) -> None:
    """Give the file ``tmp`` the name ``path`` too, never over a file there (FileExistsError);
    where the file system has no hard links, renamed when nothing is there."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.EXDEV):
            raise
        if os.path.lexists(path):
            raise FileExistsError(errno.EEXIST, "File exists", str(path)) from None
        os.rename(tmp, path)


def _fsync_folder(folder: Path) -> None:
    """Flush the folder's entries to the disk (where the system opens folders)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# ---------------------------------------------------------------------- the challenge
def new_nonce() -> str:
    """A fresh challenge nonce: random URL-safe base64 text."""
    return secrets.token_urlsafe(NONCE_BYTES)


def new_server_id() -> str:
    """A new server's id (a server keeps one for good: :meth:`Accounts.server_id
    <kc_tui.net.accounts.Accounts.server_id>`): random URL-safe base64 text."""
    return secrets.token_urlsafe(SERVER_ID_BYTES)


def challenge_bytes(server: str, nonce: str) -> bytes:
    """What a player signs to sign in to the server ``server`` with its nonce ``nonce``:
    :data:`DOMAIN`, the server's id (its backslashes and newlines escaped), a newline, the
    nonce. Two different pairs never give the same bytes."""
    escaped = server.replace("\\", "\\\\").replace("\n", "\\n")
    return DOMAIN + escaped.encode("utf-8", "surrogatepass") + b"\n" + nonce.encode("utf-8", "surrogatepass")


def verify(public_text: object, signature_text: object, data: object) -> bool:
    """Whether ``signature_text`` is the signature of ``data`` (bytes) by the key
    ``public_text`` (both URL-safe base64 without padding). False for anything else (another
    key, other data, text of the wrong length or alphabet, not text at all); never raises."""
    public = _unb64(public_text, PUBLIC_BYTES, PUBLIC_LENGTH)
    signature = _unb64(signature_text, SIGNATURE_BYTES, SIGNATURE_LENGTH)
    if public is None or signature is None or not isinstance(data, bytes | bytearray | memoryview):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, bytes(data))
    except (InvalidSignature, ValueError, TypeError, UnsupportedAlgorithm):
        return False
    return True


def is_public_key(text: object) -> bool:
    """Whether ``text`` is a public key as :attr:`PlayerKey.public_text` writes one."""
    public = _unb64(text, PUBLIC_BYTES, PUBLIC_LENGTH)
    if public is None:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public)
    except (ValueError, UnsupportedAlgorithm):
        return False
    return True


def fingerprint(public_text: str) -> str:
    """A public key's short form to show: the first bytes of its SHA-256 as hex in groups of
    four ("3f2a-91bc-07de-55aa"). ValueError when ``public_text`` is not a public key."""
    raw = _unb64(public_text, PUBLIC_BYTES, PUBLIC_LENGTH)
    if raw is None:
        raise ValueError("not a player's public key")
    digest = hashlib.sha256(raw).hexdigest()[: FINGERPRINT_BYTES * 2]
    return "-".join(digest[k : k + 4] for k in range(0, len(digest), 4))


__all__ = [
    "DOMAIN",
    "KEY_FILE",
    "IdentityError",
    "PlayerKey",
    "challenge_bytes",
    "default_key_folder",
    "fingerprint",
    "is_public_key",
    "new_nonce",
    "new_server_id",
    "verify",
]
