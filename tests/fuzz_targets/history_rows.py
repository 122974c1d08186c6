"""Fuzz target: the history's readers (``kc_tui.records``) over rows with any value in any column.

* ``cases(rng, n)``: ``n`` history files as bytes. Each is a valid small history made with the
  real API (``History.sync_match``: two to four seats, finished and unfinished matches, demos,
  points and chips rules, rounds with moves), some turned back into a version-1 file (as the
  first game wrote it), with values tampered in one or more columns of every table: wrong
  types, huge and non-finite numbers, extreme and malformed dates, JSON nested 100,000 deep,
  markup and control characters, 1 MB text, negative and huge ids, blobs of odd length, rules
  of the wrong type, kept results out of range, rows of any table deleted; a few with a
  damaged page as well.
* ``check(data, folder)``: the contract, None when it holds, else what broke. The file is read
  with ``History.open_read_only`` (a :class:`HistoryError` is allowed; any other exception is
  not, nor any change to the file or its folder) and with the app's ``History.open`` on a copy;
  on each, every reader runs (``matches(rounds=True)``, ``match(id)`` for every id,
  ``summary()``, ``people()`` and every person's ``summary(person)`` and matches,
  ``count_matches``, the JSON and CSV exports, ``open_match``) and, on the app's, a
  ``sync_match``. No reader may raise (``sync_match`` may raise only :class:`HistoryError`),
  take over :data:`SLOW` seconds, or give a problem line that is not one plain line.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import random
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

from kc_tui.cli.stats_command import _write_csv
from kc_tui.engine import Rules
from kc_tui.records.rows import HistoryError, MatchSync, RoundRecord, SeatInfo, new_uid
from kc_tui.records.schema import COLUMNS, SCHEMA_VERSION
from kc_tui.records.store import History
from tests.fuzzkit import cut

HISTORY_NAME = "history.sqlite3"
#: The longest a reader may take on one case (seconds).
SLOW = 2.0
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)

RULES = (
    Rules().to_dict(),
    Rules(target=25, draw="when_stuck").to_dict(),
    Rules(scoring="chips", chips_start=3, chips_rounds=4).to_dict(),
)
KINDS = ("greedy", "king-aware", "expert", "random")


# ---------------------------------------------------------------- valid histories
def _round(number: int, n: int, rng: random.Random) -> RoundRecord:
    seats = tuple(range(n))
    penalties = tuple(rng.randrange(0, 40) for _ in seats)
    return RoundRecord(
        number=number,
        dealer=(number - 1) % n,
        seats=seats,
        winner=rng.choice([*seats, None]),
        penalties=penalties,
        chips_delta=tuple(rng.randrange(-5, 6) for _ in seats),
        totals=tuple(p * number for p in penalties),
        moves=tuple(rng.randrange(0, 1025) for _ in range(rng.randrange(1, 30))),
        hints=rng.randrange(0, 3),
        undos=rng.randrange(0, 3),
        played_at=T0 + timedelta(minutes=number),
    )


def _valid_history(folder: Path, seed: int) -> bytes:
    """The bytes of a small valid history recorded with the real API."""
    rng = random.Random(seed)
    path = folder / f"base-{seed}.sqlite3"
    h, message = History.open(path)
    assert message is None, message
    for k in range(rng.randrange(2, 5)):
        n = rng.randrange(2, 5)
        human = k % 3 != 2
        seats = tuple(
            SeatInfo("You", "human") if human and i == 0 else SeatInfo(f"AI {i}", rng.choice(KINDS), 100 * i)
            for i in range(n)
        )
        rounds = tuple(_round(r, n, rng) for r in range(1, rng.randrange(1, 5)))
        over = rng.random() < 0.7
        h.sync_match(
            MatchSync(
                uid=new_uid(),
                seats=seats,
                rules=dict(rng.choice(RULES)),
                seed=rng.randrange(2**64),
                first_dealer=rng.randrange(n),
                demo=not human,
                started_at=T0 + timedelta(hours=k),
                rounds=rounds,
                totals=rounds[-1].totals if rounds else (0,) * n,
                winners=(rng.randrange(n),) if over else None,
                finished_at=T0 + timedelta(hours=k, minutes=30) if over else None,
            )
        )
    h.close()
    data = path.read_bytes()
    path.unlink()
    return data


def _as_version_1(data: bytes) -> bytes:
    """The same history as the first game's schema (version 1) had it."""
    con = _load(data)
    con.execute("DROP INDEX matches_uid")
    con.execute("DROP INDEX matches_newest")
    for table in sorted(set(COLUMNS[SCHEMA_VERSION]) - set(COLUMNS[1])):
        con.execute(f"DROP TABLE {table}")
    added = [(t, c) for t in sorted(COLUMNS[1]) for c in sorted(COLUMNS[SCHEMA_VERSION][t] - COLUMNS[1][t])]
    for table, column in added:
        con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    con.execute("PRAGMA user_version = 1")
    return _dump(con)


@cache
def _bases() -> tuple[tuple[bytes, bytes], ...]:
    """A few valid histories, each as (current, version 1) bytes (made once)."""
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"kc-fuzz-history-bases-{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        out = []
        for seed in range(6):
            data = _valid_history(folder, seed)
            out.append((data, _as_version_1(data)))
        return tuple(out)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _load(data: bytes) -> sqlite3.Connection:
    con = sqlite3.connect(":memory:", isolation_level=None)
    buf = bytearray(data)
    buf[18:20] = b"\x01\x01"  # in memory: no WAL
    con.deserialize(bytes(buf))
    return con


def _dump(con: sqlite3.Connection) -> bytes:
    con.execute("VACUUM")
    buf = bytearray(con.serialize())
    con.close()
    buf[18:20] = b"\x02\x02"  # as the game leaves it: WAL
    return bytes(buf)


# ---------------------------------------------------------------- tampered values
def _deep(rng: random.Random) -> str:
    depth = rng.choice([100, 3000, 100_000])
    return rng.choice(["[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth])


def _value(rng: random.Random) -> Callable[[], Any]:
    """A maker of one hostile value."""
    options: list[Callable[[], Any]] = [
        lambda: None,
        lambda: rng.randrange(-10, 10),
        lambda: rng.choice([2**63 - 1, -(2**63), 9 * 10**18, 10**10, -(10**10)]),
        lambda: rng.choice([1e308, -1e308, float("inf"), float("-inf"), 0.5, -0.0, float("nan")]),
        lambda: rng.choice(["", "x", "0", "-1", "[]", "{}", "null", "true", "[1,", "[1,2,3,4,5,6,7,8,9]"]),
        lambda: rng.choice(
            [
                "0001-01-01T00:00:00+05:00",
                "9999-12-31T23:00:00-05:00",
                "9999-12-31T23:59:59.999999+00:00",
                "1969-12-31T23:59:59+00:00",
                "2025-13-45T99:99:99",
                "2025-03-01",
                "2025-03-01T12:00:00",
            ]
        ),
        lambda: _deep(rng),
        lambda: rng.choice(
            ["[b]x[/b]", "[@click=app.quit]q[/]", "\x1b[31mred", "\u202eevil", "a\x00b", "\r\n", "\x1f"]
        ),
        lambda: "x" * rng.choice([25, 1000, 10_000, 1_000_000]),
        lambda: rng.choice([b"", b"\x01", b"\x01\x02\x03", rng.randbytes(64), b"\xff\xfe" * 10, b"\x00\x04" * 100]),
        lambda: rng.choice(
            [
                '{"scoring":"chips","chips_start":"x"}',
                '{"target":-5}',
                '{"hand_size":1.5}',
                '{"jokers":[1]}',
                '{"draw":"sometimes"}',
                '{"target":30,"new_rule":"yes"}',
            ]
        ),
        lambda: rng.choice(['["a","b"]', "[0,0,0,0,0,0,0,0,0]", "[-1]", "[99]", "[1,1]", "[0]", "[1000000000000]"]),
    ]
    return rng.choice(options)


#: The primary keys of the tables without a rowid (the others' rows are found by rowid).
KEYS = {"seats": ("match_id", "position"), "player_results": ("match_id", "seat")}
#: Columns whose values are ids: set to odd ids half the time.
ID_COLUMNS = ("id", "match_id", "number", "position", "seat")


def _tamper(con: sqlite3.Connection, rng: random.Random, v1: bool) -> None:
    """Set hostile values in one or more columns of every table (the schema's: version 1's or the
    current one's); sometimes delete rows."""
    for table, column_set in sorted(COLUMNS[1 if v1 else SCHEMA_VERSION].items()):
        columns = sorted(column_set)
        key = KEYS.get(table, ("rowid",))
        rows = [tuple(r) for r in con.execute(f"SELECT {', '.join(key)} FROM {table}")]
        where = " AND ".join(f"{k} = ?" for k in key)
        for _ in range(rng.randrange(1, 4)):
            column = rng.choice(columns)
            value = _value(rng)()
            if not rows:
                continue
            params = rng.choice(rows)
            if column in ID_COLUMNS and rng.random() < 0.5:
                value = rng.choice([-1, 0, 2**62, -(2**63), 10**9 + 7])
            try:
                con.execute(f"UPDATE {table} SET {column} = ? WHERE {where}", (value, *params))
            except sqlite3.Error:  # a key taken, or a type the column refuses
                continue
        if rng.random() < 0.15 and rows:
            con.execute(f"DELETE FROM {table} WHERE {where}", rng.choice(rows))


def cases(rng: random.Random, n: int) -> Iterator[bytes]:
    """``n`` tampered histories (about one in ten left valid)."""
    bases = _bases()
    for _ in range(n):
        current, v1 = rng.choice(bases)
        old = rng.random() < 0.3
        con = _load(v1 if old else current)
        if rng.random() > 0.1:
            _tamper(con, rng, old)
        data = _dump(con)
        if rng.random() < 0.05:  # a damaged page too (the header, and so the file's id, kept)
            at = rng.randrange(100, len(data))
            data = data[:at] + rng.randbytes(rng.choice([16, 512, 4096])) + data[at + 4096 :]
        yield data


# ---------------------------------------------------------------- the contract
def _ids(data: bytes) -> list[int]:
    """The match ids in ``data`` (none when it cannot be read)."""
    try:
        con = _load(data)
    except (sqlite3.Error, ValueError):
        return []
    try:
        return [int(r[0]) for r in con.execute("SELECT id FROM matches")]
    except (sqlite3.Error, ValueError):  # a damaged page: SQLite's message may not be UTF-8
        return []
    finally:
        con.close()


def _readers(h: History, ids: list[int]) -> list[tuple[str, Callable[[], object]]]:
    def csv_export() -> object:
        out = io.StringIO()
        _write_csv(out, h.export_rows())
        return out.getvalue()

    steps: list[tuple[str, Callable[[], object]]] = [
        ("matches(rounds=True)", lambda: h.matches(rounds=True)),
        ("matches(demos=True, rounds=True)", lambda: h.matches(demos=True, rounds=True)),
        ("matches(limit, offset)", lambda: h.matches(limit=2, offset=1)),
        ("summary()", h.summary),
        ("people() and their summary(person)", lambda: [h.summary(p) for p in h.people()]),
        ("matches(person=...)", lambda: [h.matches(person=p, limit=2) for p in h.people()]),
        ("count_matches()", lambda: (h.count_matches(), h.count_matches(demos=True))),
        ("export_json()", lambda: json.dumps(h.export_json(), allow_nan=False, ensure_ascii=False)),
        ("the CSV export", csv_export),
        (
            "open_match",
            lambda: h.open_match(seats=[SeatInfo("You", "human")], rules=Rules().to_dict(), seed=1, rounds_played=0),
        ),
    ]
    steps += [(f"match({i})", lambda i=i: h.match(i)) for i in ids]  # type: ignore[misc]
    return steps


def _run(h: History, ids: list[int], which: str) -> str | None:
    for name, step in _readers(h, ids):
        start = time.perf_counter()
        try:
            step()
        except Exception as exc:
            return f"{which}: {name} raised {type(exc).__name__}: {cut(exc)}"
        took = time.perf_counter() - start
        if took > SLOW:
            return f"{which}: {name} took {took:.1f} s"
    bad = [p for p in h.problems if not p.isprintable()]
    if bad:
        return f"{which}: a problem line is not one plain line: {bad[0]!r}"
    return None


def _state(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def check(data: bytes, folder: Path) -> str | None:
    """None when the readers keep the contract on the history ``data``, else what broke."""
    logger = logging.getLogger("kc_tui.records")
    level = logger.level
    logger.setLevel(logging.CRITICAL)  # every case has problems to log: keep the run's output short
    try:
        return _check(data, folder)
    finally:
        logger.setLevel(level)


def _check(data: bytes, folder: Path) -> str | None:
    ro_folder = folder / "read-only"
    app_folder = folder / "app"
    for f in (ro_folder, app_folder):
        shutil.rmtree(f, ignore_errors=True)
        f.mkdir(parents=True)
    try:
        ids = _ids(data)
        path = ro_folder / HISTORY_NAME
        path.write_bytes(data)
        before = _state(ro_folder)
        try:
            ro = History.open_read_only(path)
        except HistoryError as exc:
            if not str(exc).isprintable():
                return f"open_read_only: the error is not one plain line: {str(exc)!r}"
        except Exception as exc:
            return f"open_read_only raised {type(exc).__name__}: {cut(exc)}"
        else:
            try:
                problem = _run(ro, ids, "read-only")
                if problem is None and ro.sync_match(_sync()) != 0:
                    problem = "read-only: sync_match recorded a match"
            except HistoryError:
                problem = None
            except Exception as exc:
                problem = f"read-only: sync_match raised {type(exc).__name__}: {cut(exc)}"
            finally:
                ro.close()
            if problem is not None:
                return problem
        if _state(ro_folder) != before:
            return "the read-only open changed the file or its folder"
        copy = app_folder / HISTORY_NAME
        copy.write_bytes(data)
        start = time.perf_counter()
        try:
            h, message = History.open(copy)
        except Exception as exc:
            return f"History.open raised {type(exc).__name__}: {cut(exc)}"
        if time.perf_counter() - start > SLOW:
            return f"History.open took {time.perf_counter() - start:.1f} s"
        try:
            if message is not None and not message.isprintable():
                return f"History.open: the message is not one plain line: {message!r}"
            problem = _run(h, ids, "app")
            if problem is not None:
                return problem
            try:
                h.sync_match(_sync())
            except HistoryError:
                pass
            except Exception as exc:
                return f"app: sync_match raised {type(exc).__name__}: {cut(exc)}"
            return _run(h, ids, "app after sync_match")
        finally:
            h.close()
    finally:
        shutil.rmtree(ro_folder, ignore_errors=True)
        shutil.rmtree(app_folder, ignore_errors=True)


def _sync() -> MatchSync:
    r = RoundRecord(1, 0, (0, 1), 0, (0, 5), (0, 0), (0, 5), (1, 2, 1024), 0, 0, T0)
    return MatchSync(
        uid=new_uid(),
        seats=(SeatInfo("You", "human"), SeatInfo("AI 1", "greedy", 100)),
        rules=Rules().to_dict(),
        seed=1,
        first_dealer=0,
        demo=False,
        started_at=T0,
        rounds=(r,),
        totals=(0, 5),
    )
