"""``kings-corners stats``: the results and rating from the game history, and its exports (JSON,
CSV with formulas neutralised) written atomically to a file of the user's."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from kc_tui.cli.common import MAX_LINE, PROG, show_path
from kc_tui.config.args import CliError
from kc_tui.i18n import _, ngettext
from kc_tui.util.printable import one_line, write_line

if TYPE_CHECKING:
    from kc_tui.records.store import History


def _check_history(path: Path) -> History:
    """The history at ``path`` opened for reading only (:meth:`History.open_read_only`): nothing
    is created, written, migrated or moved; :class:`CliError` (one line) when it cannot be read."""
    from kc_tui.records.rows import HistoryError
    from kc_tui.records.store import History

    try:
        return History.open_read_only(path)
    except HistoryError as exc:
        raise CliError(str(exc)) from None


def _ours(target: str, read: Path) -> str | None:
    """What of the files the command reads ``target`` is (the history ``read``, its -wal, -shm or
    -journal, through links too), or None when it is none of them."""
    names = {"": _("the history it reads"), "-wal": _("the history's -wal file"), "-shm": _("the history's -shm file")}
    names["-journal"] = _("the history's -journal file")
    target_real = os.path.realpath(target)
    for end, what in names.items():
        for candidate in {str(read) + end, os.path.realpath(read) + end}:
            try:
                if os.path.samefile(target, candidate):
                    return what
            except (OSError, ValueError):
                pass
            if target_real == os.path.realpath(candidate):
                return what
    return None


def _open_output(target: str) -> tuple[TextIO, str | None]:
    """Where the export goes: ``-`` standard output; a FIFO or a device written as it is; else a
    new temporary file beside ``target`` (its real path, through links), made the target by
    :func:`_write_export` once whole. The stream and the temporary file's path (None when
    writing in place); :class:`CliError` when it cannot be written."""
    if target == "-":
        return sys.stdout, None
    from kc_tui.records.files import reason

    shown = show_path(target)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except (OSError, ValueError) as exc:
        detail = reason(exc) if isinstance(exc, OSError) else _("not a usable file name")
        raise CliError(_("cannot write {path}: {reason}").format(path=shown, reason=detail)) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise CliError(_("{path}: is a directory").format(path=shown))
    try:
        if st is not None and not stat.S_ISREG(st.st_mode):  # /dev/stdout, a named pipe: in place
            return open(target, "w", encoding="utf-8", newline=""), None  # closed by _write_export
        real = os.path.realpath(target)
        folder = os.path.dirname(real) or "."
        if not os.path.isdir(folder):
            raise CliError(_("cannot write {path}: no such folder").format(path=shown))
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(real)}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise CliError(_("cannot write {path}: {reason}").format(path=shown, reason=reason(exc))) from None
    except ValueError:
        raise CliError(_("{path}: not a usable file name").format(path=shown)) from None
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~mask)
        return os.fdopen(fd, "w", encoding="utf-8", newline=""), tmp
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise


def _write_export(target: str, write: Callable[[TextIO], object]) -> None:
    """Write the export with ``write``: to a regular file atomically (a temporary file in the
    same folder, flushed to the disk, then renamed over the target; removed on any failure, so
    that a full disk never leaves half a file), to standard output or a FIFO as it goes."""
    from kc_tui.records.files import reason

    out, tmp = _open_output(target)
    try:
        write(out)
        out.flush()
        if tmp is not None:
            os.fsync(out.fileno())
            out.close()
            os.replace(tmp, os.path.realpath(target))
            tmp = None
    except BrokenPipeError:
        raise  # the reader stopped (``| head``): see cmd_stats
    except OSError as exc:
        raise CliError(_("cannot write {path}: {reason}").format(path=show_path(target), reason=reason(exc))) from None
    finally:
        if out is not sys.stdout:
            with contextlib.suppress(OSError):
                out.close()
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def cmd_stats(args: argparse.Namespace) -> int:
    """The player's statistics (the Stats screen's summary) as text; ``--json``/``--csv`` export
    the whole history instead. The history is only read (:meth:`History.open_read_only`); an
    export is never written over a file the command reads."""
    from kc_tui.records.rows import default_history_path

    path = Path(args.history) if args.history is not None else default_history_path()
    target = args.json if args.json is not None else args.csv
    if target is not None and target != "-":
        what = _ours(target, path)
        if what is not None:
            # Translators: {what} is which file the command reads (the history it reads, its -wal file).
            raise CliError(
                _("{path}: is {what}; the export is written to another file").format(path=show_path(target), what=what)
            )
    history: History | None = None
    if args.history is not None or os.path.lexists(path):
        history = _check_history(path)
    elif target is None:  # nothing played yet (and no file is made to say so)
        _print_report(None)
        return 0
    try:
        _stats_output(args, history)
    except BrokenPipeError:
        # The reader of standard output stopped early (``kings-corners stats --csv - | head``):
        # nothing went wrong here; later writes (and Python's own flush at exit) go nowhere.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    finally:
        if history is not None:
            history.close()
    return 0


def _stats_output(args: argparse.Namespace, history: History | None) -> None:
    """Print the summary, or export the history (``--json``/``--csv``; nothing recorded: none)."""
    if args.json is not None:
        data = history.export_json() if history is not None else []
        _write_export(args.json, lambda out: out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n"))
        # Translators: how many matches were written to the file (and below, rounds).
        _exported(args.json, ngettext("{n} matches", "{n} matches", len(data)).format(n=len(data)))
    elif args.csv is not None:
        rows = history.export_rows() if history is not None else []
        _write_export(args.csv, lambda out: _write_csv(out, rows))
        _exported(args.csv, ngettext("{n} rounds", "{n} rounds", len(rows)).format(n=len(rows)))
    else:
        _print_report(history, _person(args, history))


def _person(args: argparse.Namespace, history: History | None) -> str | None:
    """Whose statistics ``stats`` shows: ``--player NAME`` (a name no one played under is a
    :class:`CliError` naming who did), else the Settings name when that person played, else the
    one who played most; None when no one played."""
    from kc_tui.config.store import load_config
    from kc_tui.records.stats_shown import choose_person

    people = history.people() if history is not None else []
    wanted: str | None = args.player
    if wanted is not None:
        if wanted in people or not people:
            return wanted
        who = ", ".join(one_line(name, 40) for name in people[:10]) + (", ..." if len(people) > 10 else "")
        # Translators: {name} is the name asked for, {players} the names in the history, comma-separated.
        raise CliError(
            _("no matches of {name} in the history; its players: {players}").format(
                name=one_line(wanted, 40), players=who
            )
        )
    return choose_person(people, load_config(getattr(args, "config", None))[0].player_name)


#: What a spreadsheet reads as the start of a formula (OWASP's list for CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """``value`` safe in a spreadsheet: text starting with a formula character
    (:data:`FORMULA_START`) gets a single quote before it, as OWASP advises. Every text cell is
    treated so, numeric-looking text too (``"-2+3"`` becomes ``"'-2+3"``); numbers stay numbers
    (an int such as -1 is written ``-1``), and lists of numbers are JSON text starting ``[``."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def _write_csv(out: TextIO, rows: list[dict[str, object]]) -> None:
    import csv

    from kc_tui.records.export import EXPORT_COLUMNS

    writer = csv.DictWriter(out, fieldnames=list(EXPORT_COLUMNS), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: csv_cell(v) for k, v in row.items()} for row in rows)


def _exported(target: str, what: str) -> None:
    if target != "-":
        # Translators: {what} is what was written (12 matches, 40 rounds), {path} the file.
        write_line(sys.stderr, _("{prog}: wrote {what} to {path}").format(prog=PROG, what=what, path=show_path(target)))


def _print_report(history: History | None, person: str | None = None) -> None:
    """The report of ``person``'s matches (None: of the one who played most)."""
    from kc_tui.records.stats_shown import finished, player_matches, rating_view, report_lines
    from kc_tui.records.summaries import Summary

    every = player_matches(history.matches()) if history is not None else []
    records = player_matches(every, person)
    summary = history.summary(person) if history is not None else Summary()
    done = sorted((m for m in every if finished(m)), key=lambda m: (m.finished_at, m.started_at, m.id))
    people = history.people() if history is not None else []
    several = len(people) > 1 and person is not None
    rating = rating_view(done, person=person, who=person if several and person is not None else "")
    lines = report_lines(summary, rating, {m.id: m for m in records}, len(records), person)
    if several:
        others = ", ".join(one_line(name, 40) for name in people if name != person)
        # Translators: {name} is the player shown, {others} the other names, comma-separated.
        lines.insert(
            0,
            _("Results of {name} (also played: {others}; --player NAME shows theirs)").format(
                name=person, others=others
            ),
        )
    for line in lines:
        write_line(sys.stdout, one_line(line, MAX_LINE))


__all__ = ["cmd_stats", "csv_cell"]
