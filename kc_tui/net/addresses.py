"""A seat's address kept out of sight: the files ``host --addresses DIR`` writes, one per
person's seat, and the file ``join --file FILE`` reads.

A seat's address (``ws://HOST:PORT/seat/<token>``) is the seat's password: whoever has it can
take the seat (the newer connection wins). On a command line it is in every user's process list
(``ps``, ``/proc/*/cmdline``); in a file that only its owner may read it is not. So the host
writes each address into its own file (mode 0600 from the start, in a folder of the host's own,
made 0700 when missing) and the person runs ``kings-corners join --file FILE``. The file is read
strictly: a regular file of the user's, that no one else may read or write, of one short line
that is a table's address; anything else is one line saying why (never what the file holds).
"""

from __future__ import annotations

import getpass
import os
import re
import stat
import sys
from collections.abc import Sequence
from pathlib import Path

from kc_tui.config.args import CliError
from kc_tui.i18n import N_, _, ngettext
from kc_tui.net.client import AddressError, table_address
from kc_tui.util.files import PRIVATE_FILE, FileError, atomic_write, describe_os_error, make_folder, read_user_file
from kc_tui.util.printable import one_line, show_path

#: The largest address file read (bytes): an address is about 90 characters.
ADDRESS_MAX = 4096
#: The ending of an address file's name.
SUFFIX = ".url"
#: The most characters of a seat's name kept in its file's name.
NAME_PART = 32
#: What ``join --file`` reads from the terminal instead of a file.
FROM_TERMINAL = "-"


# ---------------------------------------------------------------------- the host's files
def file_name(seat: int, name: str) -> str:
    """The name of the address file of match seat ``seat`` (0-based) named ``name``:
    ``seat-1-Ana.url``. Only ASCII letters, digits, ``_`` and ``-`` of the name are kept
    (every other run of characters is one ``-``), so the name is safe on any file system and in
    a shell; the seat's number keeps two seats of the same name apart."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[:NAME_PART].strip("-")
    return f"seat-{seat + 1}" + (f"-{safe}" if safe else "") + SUFFIX


def ready_folder(text: str) -> Path:
    """The folder ``--addresses DIR`` names, made (mode 0700, and every missing folder above it)
    when it is missing. :class:`CliError` (one line) for a link, something that is not a folder,
    a folder of another user, or one that others may write into (they could swap a file)."""
    shown = one_line(text, 200)
    if not text.strip():
        raise CliError(_("--addresses needs a folder to write the seats' addresses into"))
    path = Path(text)
    try:
        if os.path.islink(path):
            raise CliError(_("--addresses {path} is a link: name the folder itself").format(path=shown))
        if not os.path.lexists(path):
            make_folder(path)
        st = os.lstat(path)
    except CliError:
        raise
    except (OSError, ValueError) as exc:
        why = describe_os_error(exc) if isinstance(exc, OSError) else _("not a usable folder name")
        raise CliError(_("--addresses {path} cannot be used: {reason}").format(path=shown, reason=why)) from None
    if not stat.S_ISDIR(st.st_mode):
        raise CliError(_("--addresses {path} is not a folder").format(path=shown))
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        raise CliError(
            _("--addresses {path} is not your folder: the addresses go into a folder of your own").format(path=shown)
        )
    if st.st_mode & 0o022:
        raise CliError(
            # Translators: {mode} is the folder's permissions in octal (0777).
            _(
                "--addresses {path} can be written into by other users (mode {mode}):"
                " they could swap an address; use a folder of your own (mode 0700)"
            ).format(path=shown, mode=f"{stat.S_IMODE(st.st_mode):04o}")
        )
    if not os.access(path, os.W_OK | os.X_OK):
        raise CliError(_("--addresses {path} cannot be written into: permission denied").format(path=shown))
    return path


def write_addresses(folder: Path, names: Sequence[str], urls: dict[int, str]) -> list[tuple[str, Path]]:
    """Write every person's seat's address (``urls`` by match seat) into its own file in
    ``folder`` (:func:`file_name`; mode 0600 from the start, atomically: a file there already is
    replaced, never written through). Each person's name and file; OSError (a FileError, one
    line) when a file cannot be written."""
    written: list[tuple[str, Path]] = []
    for seat, url in sorted(urls.items()):
        path = folder / file_name(seat, names[seat])
        atomic_write(path, (url + "\n").encode("ascii"), mode=PRIVATE_FILE)
        written.append((names[seat], path))
    return written


def handing_lines(folder: Path, files: list[tuple[str, Path]]) -> list[str]:
    """What the host reads after the files are written: where they are and how to hand them over."""
    first = files[0][1].name if files else _("FILE")
    lines = [
        _("The seats' addresses are in {folder}, one file per person, readable by you only.").format(
            folder=one_line(str(folder), 200)
        ),
        # Translators: {file} is the first seat's file; the command stays as it is.
        _(
            "Give each person their file, and only them (whoever has it can take the seat);"
            " they run: kings-corners join --file {file}"
        ).format(file=first),
    ]
    # Translators: a person's name and the file holding their seat's address.
    line = _("{name}: {path}")
    lines += [line.format(name=name, path=one_line(str(path), 300)) for name, path in files]
    return lines


#: What the host reads when the addresses are printed (no --addresses).
SECRET_WARNING = N_(
    "Each seat's address below is a password for that seat: whoever has it can take the seat."
    " Send it to its person only; they keep it out of the process list with"
    " kings-corners join --file FILE (host --addresses DIR writes the files)."
)


# ---------------------------------------------------------------------- the person's file
def read_address(path: str, *, watch: bool = False) -> str:
    """The table's address in the file ``path`` (``-``: typed or pasted at the terminal, not
    shown), checked (:func:`~kc_tui.net.client.table_address`). :class:`CliError` (one line,
    naming the file, never quoting it) for a file that is missing, not a regular file, not the
    user's, open to other users, unreadable, empty, too large, or not one line that is an
    address."""
    if path == FROM_TERMINAL:
        return _checked(_from_terminal(), _("the address typed"), watch)
    shown = show_path(path)
    try:
        data = read_user_file(path, ADDRESS_MAX, check=lambda st: _own(st, shown))
    except FileError as exc:
        raise CliError(str(exc)) from None
    if not data.strip():
        raise CliError(_("{path}: is empty; it should hold the seat's address the host gave you").format(path=shown))
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise CliError(_("{path}: is not an address file (it is not plain text)").format(path=shown)) from None
    return _checked(text, shown, watch)


def _own(st: os.stat_result, shown: str) -> None:
    """:class:`CliError` unless the open file (``st`` its status) is this user's and no one
    else may read or write it: the address in it is a password for a seat."""
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        raise CliError(
            _("{path}: is not your file; a seat's address is read from a file of your own").format(path=shown)
        )
    if st.st_mode & 0o077:
        raise CliError(
            _(
                "{path}: other users may open it (mode {mode}) and the address in it"
                " is a password for your seat: make it yours alone (chmod 600 {path}) and join again"
            ).format(path=shown, mode=f"{stat.S_IMODE(st.st_mode):04o}")
        )


def _from_terminal() -> str:
    """The address pasted at the terminal (not echoed); :class:`CliError` without a terminal."""
    try:
        terminal = sys.stdin is not None and sys.stdin.isatty()
    except (OSError, ValueError):  # closed
        terminal = False
    if not terminal:
        raise CliError(
            _(
                "--file - reads the address typed or pasted at the terminal (the app needs the terminal"
                " too): give the file instead"
            )
        )
    try:
        text = getpass.getpass(_("The seat's address (not shown as you paste it): "), stream=sys.stderr)
    except (EOFError, OSError):
        raise CliError(_("no address was typed")) from None
    if len(text) > ADDRESS_MAX:
        raise CliError(_("the address typed is too long ({most} characters at most)").format(most=ADDRESS_MAX))
    return text


def _checked(text: str, shown: str, watch: bool) -> str:
    """``text`` (what a file or the terminal held) as a table's address: one line, no control
    characters, an address :func:`table_address` takes. The error never quotes it."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise CliError(
            _("{path}: holds no address; it should hold the seat's address the host gave you").format(path=shown)
        )
    if len(lines) > 1:
        raise CliError(
            ngettext(
                "{path}: holds {n} line; an address file holds one line, the seat's address",
                "{path}: holds {n} lines; an address file holds one line, the seat's address",
                len(lines),
            ).format(path=shown, n=len(lines))
        )
    line = lines[0]
    if any(not ch.isprintable() or ch.isspace() for ch in line):
        raise CliError(
            _("{path}: is not an address file (its line holds control characters or spaces)").format(path=shown)
        )
    try:
        return table_address(line, watch=watch)
    except AddressError:
        raise CliError(
            _("{path}: does not hold a table's address (a line ws://HOST:PORT/seat/... as the host wrote it)").format(
                path=shown
            )
        ) from None


__all__ = [
    "ADDRESS_MAX",
    "FROM_TERMINAL",
    "SECRET_WARNING",
    "file_name",
    "handing_lines",
    "read_address",
    "ready_folder",
    "write_addresses",
]
