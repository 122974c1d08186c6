"""The hosted table's files in the data folder: its save (``hosted.json``, apart from the solo
save) and its seat file beside it (the seat tokens, the port and the address, written atomically
with mode 0600: the tokens are secrets), read strictly; an unfinished table found there, and
both kept aside when a new table replaces it (``host --replace``)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from kc_tui.config.args import CliError
from kc_tui.config.store import data_dir
from kc_tui.engine.strict import loads as strict_json
from kc_tui.i18n import _
from kc_tui.match.session import MatchSession
from kc_tui.util.files import aside_path, atomic_write, describe_os_error, read_capped
from kc_tui.util.printable import one_line

HOSTED_SAVE = "hosted.json"
SEAT_FILE = "hosted-seats.json"
SEAT_FORMAT = "kings-corners/hosted-seats/1"


def hosted_save_path() -> Path:
    """Where the hosted match is saved: ``data_dir()/hosted.json`` (never the solo save)."""
    return data_dir() / HOSTED_SAVE


def seat_file_path(save: Path) -> Path:
    return save.with_name(SEAT_FILE)


# ---------------------------------------------------------------------- the seat file
@dataclass(frozen=True, slots=True)
class SeatFile:
    """What the hosted match's seat file keeps: the match it belongs to (its uid), the tokens
    by match seat, the port, the address, whether it was served over TLS, and the folder the
    seats' addresses are written into (``--addresses``; None: they are printed)."""

    uid: str
    tokens: dict[int, str]
    port: int
    bind: str
    tls: bool
    addresses: str | None = None

    def to_bytes(self) -> bytes:
        doc: dict[str, object] = {
            "format": SEAT_FORMAT,
            "uid": self.uid,
            "port": self.port,
            "bind": self.bind,
            "tls": self.tls,
            "tokens": {str(seat): token for seat, token in sorted(self.tokens.items())},
        }
        if self.addresses is not None:
            doc["addresses"] = self.addresses
        return (json.dumps(doc, indent=1) + "\n").encode("utf-8")


def write_seat_file(path: Path, seats: SeatFile) -> None:
    """Write the seat file atomically, readable by its owner only (mode 0600); FileError (one
    line) when it cannot be written."""
    atomic_write(path, seats.to_bytes(), mode=0o600)


def read_seat_file(path: Path) -> SeatFile:
    """The seat file at ``path``; :class:`CliError` (one line) when it is missing or unusable."""
    shown = one_line(str(path))
    try:
        raw = read_capped(path, 64 * 1024)
    except FileNotFoundError:
        raise CliError(
            _("the hosted table's seat file {path} is missing: start a new table instead").format(path=shown)
        ) from None
    except OSError as exc:
        raise CliError(_("cannot read {path}: {reason}").format(path=shown, reason=describe_os_error(exc))) from None
    if raw is None:
        raise CliError(_("{path} is too large to be a seat file").format(path=shown))
    try:
        doc = strict_json(raw)
        if not isinstance(doc, dict) or doc.get("format") != SEAT_FORMAT:
            raise ValueError(_("not a seat file"))
        uid, port, bind, tls, tokens = doc["uid"], doc["port"], doc["bind"], doc["tls"], doc["tokens"]
        if not (isinstance(uid, str) and type(port) is int and 0 < port < 65536 and isinstance(bind, str)):
            raise ValueError(_("a field of the wrong type"))
        if not isinstance(tls, bool) or not isinstance(tokens, dict):
            raise ValueError(_("a field of the wrong type"))
        seats = {int(k): v for k, v in tokens.items() if isinstance(v, str) and k.isdigit()}
        if len(seats) != len(tokens):
            raise ValueError(_("a token of the wrong type"))
        addresses = doc.get("addresses")
        if addresses is not None and not (isinstance(addresses, str) and addresses):
            raise ValueError(_("a field of the wrong type"))
    except (ValueError, KeyError, UnicodeDecodeError) as exc:
        # Translators: {reason} is what is wrong with the file.
        raise CliError(
            _("{path} is not a usable seat file ({reason})").format(path=shown, reason=one_line(str(exc), 80))
        ) from None
    return SeatFile(uid, seats, port, bind, tls, addresses)


def unfinished_table(save: Path) -> str | None:
    """What the hosted save at ``save`` holds when it is a match not yet over (or cannot be read,
    so it may be one), in words; None when there is none, or its match is over."""
    if not save.exists() and not save.is_symlink():
        return None
    try:
        session = MatchSession.load(save, shared_log=True)
    except Exception as exc:  # unreadable: it may still be someone's table, so it is not replaced silently
        return _("{file} cannot be read: {reason}").format(file=save.name, reason=one_line(str(exc), 80))
    if session is None or session.match.over:
        return None
    # Translators: {number} is the round's number, {names} the players, comma-separated.
    return _("round {number}, {names}").format(number=session.match.number, names=", ".join(session.names))


def keep_aside(save: Path) -> list[str]:
    """Move the hosted save at ``save`` and its seats' file to names that say they were replaced;
    a line for each. :class:`CliError` when one cannot be moved (nothing is then written over it)."""
    lines: list[str] = []
    for path in (save, seat_file_path(save)):
        if os.path.lexists(path):
            aside = aside_path(path, ".replaced")
            try:
                os.replace(path, aside)
            except OSError as exc:
                raise CliError(
                    _("cannot keep {file} aside: {reason}").format(file=path.name, reason=describe_os_error(exc))
                ) from None
            lines.append(
                _("The unfinished hosted table's {file} is kept as {aside}.").format(file=path.name, aside=aside.name)
            )
    return lines


__all__ = [
    "HOSTED_SAVE",
    "SEAT_FILE",
    "SeatFile",
    "hosted_save_path",
    "keep_aside",
    "read_seat_file",
    "seat_file_path",
    "unfinished_table",
    "write_seat_file",
]
