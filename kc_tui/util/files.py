"""Files read and written safely, and their faults told in plain words.

:func:`atomic_write` (a crash leaves the old file or the new one), :func:`read_capped` (a bounded
read of a regular file; :func:`read_user_file`, the same for a file a user named, its faults
told in one line), :func:`move_aside` (an unusable file set aside under a free name),
:func:`ensure_folder` and :func:`describe_os_error` (a failure in one plain line: "the disk is
full", ...). They know nothing of the app's files.

What they make is private from the start: a new folder has mode 0700 (:func:`make_folder`, as
the XDG base directory specification asks of the folders an app makes) and a new file 0600
(:func:`atomic_write`), whatever the process's umask. The modes are given when the folder or the
file is made, never set after, so there is no moment in which another user may open it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from kc_tui.i18n import N_, _, ngettext
from kc_tui.util.printable import PROBLEM_MAX, one_line, show_path

#: The mode of every folder the app makes, and of every file: its owner's only.
PRIVATE_FOLDER = 0o700
PRIVATE_FILE = 0o600


# ---------------------------------------------------------------------- faults in plain words
class FileError(OSError):
    """An OSError told in plain words: ``str(exc)`` is one line saying what failed and why,
    ``exc.strerror`` the why alone (as :func:`describe_os_error` gives it), ``exc.errno`` the
    system's error number (None when there is none) and ``exc.filename`` the path."""

    def __init__(
        self, message: str, reason: str, errno_: int | None = None, filename: str | os.PathLike[str] | None = None
    ) -> None:
        super().__init__(errno_, reason, None if filename is None else os.fspath(filename))
        self.message = message

    def __str__(self) -> str:
        return self.message


class Problem(str):
    """What is wrong with a folder, as words that follow its name (in the language in use), and
    the system's error number it stands for (``code``, None when there is none)."""

    code: int | None

    def __new__(cls, text: str, code: int | None) -> Problem:
        made = super().__new__(cls, text)
        made.code = code
        return made


#: The plain words for the errors that do not depend on which path failed (shown through ``_()``).
_REASONS: dict[int, str] = {
    errno.ENOSPC: N_("the disk is full"),
    errno.EDQUOT: N_("the disk quota is used up"),
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("permission denied"),
    errno.EROFS: N_("read-only file system"),
    errno.EIO: N_("an input/output error (the disk may be failing)"),
    errno.EFBIG: N_("the file is too large"),
    errno.EMFILE: N_("too many files are open"),
    errno.ENFILE: N_("too many files are open"),
    errno.ENAMETOOLONG: N_("the name is too long"),
    errno.ELOOP: N_("too many links in a row (a link may point back at itself)"),
    errno.EBUSY: N_("it is busy"),
    errno.ETXTBSY: N_("it is busy"),
    errno.ENOMEM: N_("out of memory"),
    errno.ENODEV: N_("there is no such device"),
    errno.ENXIO: N_("there is no such device"),
}


def describe_os_error(exc: OSError) -> str:
    """Why ``exc`` happened, as one short plain phrase without a full stop: "the disk is full",
    "permission denied", "read-only file system", "X is a file, not a folder", "X is a folder,
    not a file", "X does not exist"... (X is the path involved, made printable). A
    :class:`FileError` gives its ``strerror``. Never raises."""
    if isinstance(exc, FileError):
        return exc.strerror or str(exc)
    code = exc.errno
    if code in _REASONS:
        return _(_REASONS[code])
    names = [n for n in (exc.filename2, exc.filename) if isinstance(n, str | bytes | os.PathLike)]
    if code == errno.ENOTDIR:
        for name in names:
            blocker = _file_in_the_way(Path(os.fsdecode(name)))
            if blocker is not None:
                # Translators: {path} is a file's or folder's name.
                return _("{path} is a file, not a folder").format(path=one_line(str(blocker)))
        return _("a part of the path is a file, not a folder")
    if code == errno.EISDIR:
        for name in names:
            if os.path.isdir(name):
                return _("{path} is a folder, not a file").format(path=one_line(os.fsdecode(name)))
        return _("it is a folder, not a file")
    if code == errno.ENOENT:
        for name in names:
            path = Path(os.fsdecode(name))
            if os.path.islink(path):
                return _broken_link(path)
            missing = _first_missing(path)
            if missing is not None:
                return _("{path} does not exist").format(path=one_line(str(missing)))
        return _("it does not exist")
    if code == errno.EEXIST:
        for name in names:
            return _("{path} already exists").format(path=one_line(os.fsdecode(name)))
        return _("it already exists")
    text = exc.strerror or (str(exc.args[0]) if exc.args else "") or type(exc).__name__
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        text = text[0].lower() + text[1:]
    return one_line(text.rstrip("."), PROBLEM_MAX)


def _file_in_the_way(path: Path) -> Path | None:
    """The first folder on the way to ``path`` that exists but is not a folder (None if none)."""
    for ancestor in reversed((path, *path.parents)):
        if os.path.lexists(ancestor) and not os.path.isdir(ancestor):
            return ancestor
    return None


def _first_missing(path: Path) -> Path | None:
    """The first part of ``path`` that does not exist (None when all of it does)."""
    for ancestor in reversed((path, *path.parents)):
        if not os.path.lexists(ancestor):
            return ancestor
    return None


def link_to(path: Path) -> str:
    """Where the link ``path`` points, made printable."""
    try:
        return one_line(os.readlink(path))
    except OSError:
        return "?"


def _broken_link(path: Path) -> str:
    # Translators: {path} is a link's name, {target} where it points.
    return _("{path} is a link to {target}, which does not exist").format(
        path=one_line(str(path)), target=link_to(path)
    )


def _folder_problem(folder: Path, exc: OSError | None) -> Problem:
    """What is wrong with ``folder`` (made with ``mkdir``, which failed with ``exc``, or None when
    it exists but cannot be written into), as words that follow its name."""
    # Translators: the texts below follow a folder's name ("The data folder X is a file, ...").
    if os.path.lexists(folder) and not os.path.isdir(folder):
        if os.path.islink(folder):
            if not os.path.exists(folder):
                # Translators: {target} is where the link points.
                return Problem(
                    _("is a link to {target}, which does not exist").format(target=link_to(folder)), errno.ENOENT
                )
            return Problem(_("is a link to a file, not to a folder"), errno.ENOTDIR)
        return Problem(_("is a file, not a folder") if os.path.isfile(folder) else _("is not a folder"), errno.ENOTDIR)
    blocker = _file_in_the_way(folder)
    if blocker is not None:
        return Problem(
            _("cannot be created: {path} is a file, not a folder").format(path=one_line(str(blocker))), errno.ENOTDIR
        )
    code = exc.errno if exc is not None else None
    if code == errno.EROFS or (exc is None and _read_only(folder)):
        return Problem(_("is on a read-only file system"), errno.EROFS)
    if exc is None:
        return Problem(_("cannot be written into: permission denied"), errno.EACCES)
    if code in (errno.EACCES, errno.EPERM):
        return Problem(_("cannot be created: permission denied"), errno.EACCES)
    reason = describe_os_error(exc)
    # Translators: {reason} is why the system refused (describe_os_error's words).
    return Problem(_("cannot be created: {reason}").format(reason=reason), errno_of(reason, code))


def _read_only(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def make_folder(folder: Path) -> None:
    """Make ``folder`` and every missing folder above it, each with mode 0700 from the start (the
    umask can only take more away); a folder that exists is left as it is. OSError as
    :meth:`Path.mkdir` raises it (FileExistsError: a file is there)."""
    folder = Path(folder)
    try:
        folder.mkdir(mode=PRIVATE_FOLDER, exist_ok=True)
    except FileNotFoundError:
        if folder.parent == folder:
            raise
        make_folder(folder.parent)
        folder.mkdir(mode=PRIVATE_FOLDER, exist_ok=True)


def tighten_folder(folder: Path) -> bool:
    """Take every permission of the group and of others away from the folder ``folder`` (mode
    0700) when this user owns it and it gives them any; whether it was changed. Never raises: a
    folder that cannot be changed is left as it is."""
    try:
        st = os.stat(folder)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or not st.st_mode & 0o077:
            return False
        os.chmod(folder, stat.S_IMODE(st.st_mode) & ~0o077)
    except (OSError, AttributeError):  # AttributeError: no geteuid (Windows)
        return False
    return True


def shared_mode() -> int:
    """The mode a new file gets when no one asks for another: 0666 less the process's umask (for
    a file the user asked for, e.g. an export, to be like their other files)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:  # read without changing it
            for line in status:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return 0o666 & ~mask


def ensure_folder(folder: Path) -> Problem | None:
    """Make ``folder`` (and its parents, :func:`make_folder`: mode 0700) if it is missing. None
    when it is a folder that can be written into, else what is wrong, as words that follow its
    name (see :func:`_folder_problem`)."""
    try:
        make_folder(folder)
    except OSError as exc:
        return _folder_problem(folder, exc)
    if not os.path.isdir(folder):  # pragma: no cover - mkdir(exist_ok=True) raises for a non-folder
        return _folder_problem(folder, None)
    if _read_only(folder) or not os.access(folder, os.W_OK | os.X_OK):
        return _folder_problem(folder, None)
    return None


def errno_of(problem: str, code: int | None = None) -> int | None:
    """The system's error number a problem stands for: a :class:`Problem`'s own; else read from
    the English words (``code`` the error's own number, ENOTDIR and ENOENT kept in any language)."""
    if isinstance(problem, Problem):
        return problem.code
    if code in (errno.ENOTDIR, errno.ENOENT):
        return code
    if "read-only" in problem:
        return errno.EROFS
    if "permission denied" in problem:
        return errno.EACCES
    if "not a folder" in problem or "not to a folder" in problem:
        return errno.ENOTDIR
    if "does not exist" in problem:
        return errno.ENOENT
    return None


def kind_of(mode: int) -> str:
    """What a thing in the file system is when it is not a regular file (``mode`` its
    ``st_mode``), as words that follow "is": "a directory", "a FIFO (named pipe)", "a character
    device", "a block device", "a socket"; "not a regular file" for any other kind."""
    if stat.S_ISDIR(mode):
        return _("a directory")
    if stat.S_ISFIFO(mode):
        return _("a FIFO (named pipe)")
    if stat.S_ISCHR(mode):
        return _("a character device")
    if stat.S_ISBLK(mode):
        return _("a block device")
    if stat.S_ISSOCK(mode):
        return _("a socket")
    return _("not a regular file")


def size_words(size: int) -> str:
    """A number of bytes in plain words: "1 MiB", "64 KiB", "300 bytes" (the largest unit that
    divides it)."""
    if size and size % (1 << 20) == 0:
        return _("{n} MiB").format(n=size >> 20)
    if size and size % 1024 == 0:
        return _("{n} KiB").format(n=size >> 10)
    return ngettext("{n} byte", "{n} bytes", size).format(n=size)


class NotRegularFile(OSError):
    """The path exists but is a directory, a pipe, a device...: it is never read. ``mode`` is
    its ``st_mode`` (:func:`kind_of` words it)."""

    def __init__(self, path: str | os.PathLike[str], mode: int) -> None:
        super().__init__(_("{path} is not a regular file").format(path=path))
        self.mode = mode


#: How a user's file is opened: never waiting on a FIFO, never becoming the controlling terminal.
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def _open_regular(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """The open descriptor of the regular file ``path`` and its status. FileNotFoundError,
    NotADirectoryError (a part of the path is a file), :class:`NotRegularFile` (a pipe is never
    opened in a way that blocks; a socket, which cannot be opened, is one too), other OSError,
    ValueError (a NUL byte in the name)."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        raise
    except OSError:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            mode = stat.S_IFREG
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path, mode) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(path, st.st_mode)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _read_fd(fd: int, st: os.stat_result, cap: int) -> bytes | None:
    """The bytes of the open regular file ``fd`` (``st`` its status), None when it holds more
    than ``cap`` of them (at most ``cap + 1`` are read)."""
    if st.st_size > cap:
        return None
    chunks: list[bytes] = []
    left = cap + 1
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 16))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    data = b"".join(chunks)
    return None if len(data) > cap else data


def read_capped(path: Path, cap: int) -> bytes | None:
    """The bytes of the regular file ``path``, or None when it holds more than ``cap`` bytes
    (at most ``cap + 1`` bytes are read). FileNotFoundError when there is none (also when a
    part of its path is a file),
    :class:`NotRegularFile` when it is not a regular file (a pipe is never opened for reading
    in a way that blocks; a socket, which cannot be opened, is one too), other OSError when it
    cannot be read (:func:`describe_os_error` words it)."""
    try:
        fd, st = _open_regular(path)
    except NotADirectoryError:  # a part of the path is a file: there is no file here
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path)) from None
    try:
        return _read_fd(fd, st, cap)
    finally:
        os.close(fd)


def _path_fault(path: str | os.PathLike[str], shown: str, exc: OSError | ValueError) -> FileError:
    """The one-line fault of a user's file that could not be opened or looked at."""
    code = exc.errno if isinstance(exc, OSError) else None
    if isinstance(exc, ValueError):  # a NUL byte in the name
        message = _("{path}: not a usable file name").format(path=shown)
    elif isinstance(exc, FileNotFoundError) and os.path.islink(path):
        message = _("{path}: is a link to {target}, which does not exist").format(
            path=shown, target=link_to(Path(path))
        )
    elif isinstance(exc, FileNotFoundError):
        message = _("{path}: no such file").format(path=shown)
    elif isinstance(exc, NotRegularFile):
        return _not_regular(path, shown, exc.mode)
    else:
        message = _("{path}: cannot be read ({reason})").format(path=shown, reason=describe_os_error(exc))
    return FileError(message, message, code, os.fsdecode(path))


def _not_regular(path: str | os.PathLike[str], shown: str, mode: int) -> FileError:
    message = _("{path}: is {kind}; only regular files are read").format(path=shown, kind=kind_of(mode))
    code = errno.EISDIR if stat.S_ISDIR(mode) else None
    return FileError(message, message, code, os.fsdecode(path))


def stat_regular(path: str | os.PathLike[str]) -> os.stat_result:
    """The status of the regular file ``path`` a user named (a link followed), or a
    :class:`FileError` whose ``str`` is one line naming it (made printable) with the same words
    as :func:`read_user_file`'s."""
    shown = show_path(os.fsdecode(path))
    try:
        st = os.stat(path)
    except (OSError, ValueError) as exc:
        raise _path_fault(path, shown, exc) from None
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(path, shown, st.st_mode)
    return st


def read_user_file(
    path: str | os.PathLike[str], cap: int, *, check: Callable[[os.stat_result], None] | None = None
) -> bytes:
    """The bytes of the regular file ``path`` a user named, at most ``cap`` of them, or a
    :class:`FileError` whose ``str`` is one line naming it (made printable): no such file, a link
    to nothing, not a usable file name, a directory, a FIFO, a device... (a FIFO is never waited
    on), cannot be read (why, in :func:`describe_os_error`'s words), larger than ``cap``. Never
    reads more than ``cap + 1`` bytes. ``check`` sees the open file's status before a byte is
    read, and may raise to refuse it."""
    shown = show_path(os.fsdecode(path))
    try:
        fd, st = _open_regular(path)
    except (OSError, ValueError) as exc:
        raise _path_fault(path, shown, exc) from None
    try:
        if check is not None:
            check(st)
        try:
            data = _read_fd(fd, st, cap)
        except OSError as exc:
            raise _path_fault(path, shown, exc) from None
    finally:
        os.close(fd)
    if data is None:
        # Translators: {size} is a size in plain words ("1 MiB", "4 KiB").
        message = _("{path}: is larger than {size}, the most such a file may be").format(
            path=shown, size=size_words(cap)
        )
        raise FileError(message, message, errno.EFBIG, os.fsdecode(path))
    return data


def aside_path(path: Path, suffix: str) -> Path:
    """``path`` + ``suffix``, or + ``suffix.1``, ``suffix.2``... : a name not taken yet."""
    candidate = path.with_name(path.name + suffix)
    k = 1
    while os.path.lexists(candidate):
        candidate = path.with_name(f"{path.name}{suffix}.{k}")
        k += 1
    return candidate


def move_aside(path: Path, suffix: str) -> str:
    """Move an unusable file to a free name beside it (an earlier one is never overwritten);
    a sentence (starting with a space) saying where it went, or that it was left in place and
    why, in plain words ("the disk is full", "permission denied", ...)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode) and not os.path.islink(path):
            return " " + _("It is not a regular file, so it was left in place and is ignored.")
        aside = aside_path(path, suffix)
        os.replace(path, aside)
    except OSError as exc:
        reason = one_line(describe_os_error(exc), PROBLEM_MAX)
        return " " + _("It could not be moved aside ({reason}), so it was left in place and is ignored.").format(
            reason=reason
        )
    # Translators: {path} is the name the file was given.
    return " " + _("It was moved aside to {path}.").format(path=one_line(str(aside)))


def atomic_write(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` so that a crash leaves the old file or the new one, never half:
    into a new file beside it (``.<name>.<pid>.<random>.tmp``: mode 0600 from the start, or the
    old file's permissions when there is one), flushed to the disk, then renamed over ``path``;
    the folder is flushed after (where the system allows). The folder is made if missing (mode
    0700, :func:`make_folder`). On any failure the temporary file
    is removed, ``path`` is left as it was, and a :class:`FileError` (an OSError) is raised: one
    line, "Could not write X: the disk is full" ("permission denied", "read-only file system",
    "the folder Y is a file, not a folder", "X is a folder, not a file"...), its ``strerror``
    the reason alone. ``mode``: the new file's permissions from the start, whatever the old
    file's were (e.g. :func:`shared_mode` for a file the user asked for, to read like their
    others)."""
    path = Path(path)
    shown = one_line(str(path))
    folder = path.parent
    problem = ensure_folder(folder)
    if problem is not None:
        # Translators: {folder} is a folder's name, {problem} what is wrong with it ("is a file, not a folder").
        reason = _("the folder {folder} {problem}").format(folder=one_line(str(folder)), problem=problem)
        raise FileError(
            _("Could not write {path}: {reason}").format(path=shown, reason=reason), reason, problem.code, path
        )
    try:
        old_mode: int | None = os.lstat(path).st_mode
    except OSError:
        old_mode = None
    if old_mode is not None and stat.S_ISDIR(old_mode):
        reason = _("{path} is a folder, not a file").format(path=shown)
        raise FileError(
            _("Could not write {path}: {reason}").format(path=shown, reason=reason), reason, errno.EISDIR, path
        )
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd: int | None = None
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        fd = os.open(tmp, flags, PRIVATE_FILE if mode is None else mode)
        if mode is not None:
            os.fchmod(fd, mode)
        elif old_mode is not None and stat.S_ISREG(old_mode):
            with contextlib.suppress(OSError):
                os.fchmod(fd, stat.S_IMODE(old_mode))
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        os.close(fd)
        fd = None
        os.replace(tmp, path)
    except BaseException as exc:
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            reason = describe_os_error(exc)
            raise FileError(
                _("Could not write {path}: {reason}").format(path=shown, reason=reason), reason, exc.errno, path
            ) from exc
        raise
    _fsync_folder(folder)


class HandleReserve:
    """A few file handles held in reserve (opened on the null device) for the writes that must
    not fail for want of one: a server flooded with connections can run out of file handles, and
    its save then holds the table. :meth:`released` gives them back for the length of a write
    made at once (no other code of the process runs meanwhile), then takes them again."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._fds: list[int] = []
        self._fill()

    def _fill(self) -> None:
        while len(self._fds) < self.count:
            try:
                self._fds.append(os.open(os.devnull, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)))
            except OSError:
                return

    def _empty(self) -> None:
        while self._fds:
            with contextlib.suppress(OSError):
                os.close(self._fds.pop())

    @property
    def held(self) -> int:
        """How many handles are held now."""
        return len(self._fds)

    @contextlib.contextmanager
    def released(self) -> Iterator[None]:
        """The handles given back while the body runs, taken again after it."""
        self._empty()
        try:
            yield
        finally:
            self._fill()

    def close(self) -> None:
        """Give the handles back for good."""
        self.count = 0
        self._empty()


def _fsync_folder(folder: Path) -> None:
    """Flush a folder's entries to the disk (best effort: not every system opens folders)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


#: The first bytes of every SQLite file.
SQLITE_MAGIC = b"SQLite format 3\x00"


def new_private_file(path: Path) -> None:
    """An empty file of mode 0600 at ``path`` for SQLite to open (its -wal and -shm files take its
    mode); a file there already is left as it is."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, flags, PRIVATE_FILE))
