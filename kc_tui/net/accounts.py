"""The people a server knows, in its SQLite file: each by public key (:mod:`kc_tui.net.identity`)
with a display name, a rating and the matches they finished.

A name is 1 to 24 printable characters once the spaces around it are taken off (the settings'
check of a name, :func:`kc_tui.config.name_problem`: no control characters, no newlines, no
format characters such as the bidi controls), kept as typed: brackets and markup are data. Two
people may not hold names that look alike: names are compared by their NFKC case fold, spaces
run together ("ANA", "ana" and the full-width "ａｎａ" are one name). A name held by another key
is refused with a free variant ("Ana2", "Ana3"...); a key keeps its name, or takes a free one.

Ratings are the Stats screen's model (:func:`kc_tui.records.rating.people_ratings`): pairwise
results from each finished match's totals, Bradley-Terry on the Elo scale with every AI kind
fixed at its rating in ``ai_ratings.json``. A finished match refits its people on all their
matches, every other person held at their rating (a step of the fit of everyone, whose cost
grows with the matches of those people only): a person who has played only AIs gets exactly
the rating Stats gives.

Every call is one transaction (a savepoint inside the caller's, if one is open); a database
that is locked, full or damaged gives :class:`AccountsError`, one plain line, and changes
nothing. Plain Python: no asyncio.
"""

from __future__ import annotations

import contextlib
import itertools
import sqlite3
import time
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kc_tui.config import name_problem
from kc_tui.i18n import _
from kc_tui.net.identity import is_public_key, new_server_id
from kc_tui.records.files import fault
from kc_tui.records.rating import DEFAULT_PRIOR_SD, Rating, ai_anchors, pairwise, people_ratings
from kc_tui.util.printable import PROBLEM_MAX, is_you, one_line

#: The longest display name, in characters (the lobby's ``MAX_NAME``).
MAX_NAME = 24
#: The version of the tables below, kept in ``accounts_meta``.
SCHEMA_VERSION = 1

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS accounts_meta (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS people (
        key TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        rating REAL NOT NULL,
        rating_sd REAL NOT NULL,
        games INTEGER NOT NULL DEFAULT 0,
        created REAL NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS rated_matches (
        id INTEGER PRIMARY KEY,
        finished REAL NOT NULL,
        lower_is_better INTEGER NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS rated_results (
        match INTEGER NOT NULL REFERENCES rated_matches(id),
        seat INTEGER NOT NULL,
        key TEXT REFERENCES people(key),
        kind TEXT,
        finish REAL NOT NULL,
        PRIMARY KEY (match, seat)
    )""",
    "CREATE INDEX IF NOT EXISTS rated_results_key ON rated_results(key) WHERE key IS NOT NULL",
)


class AccountsError(Exception):
    """The server's store of people cannot be read or written: ``str(exc)`` is one plain line."""


@dataclass(frozen=True, slots=True)
class Person:
    """A person the server knows: the public key, the display name, the rating (the Stats
    model's, on the AIs' scale) and its sd, the matches finished."""

    key: str
    name: str
    rating: float
    games: int
    sd: float = DEFAULT_PRIOR_SD


@dataclass(frozen=True, slots=True)
class NameTaken:
    """The name asked for is held by another key; ``suggestion`` is a free one like it."""

    name: str
    suggestion: str


# ---------------------------------------------------------------------- names
def clean_name(name: object) -> str:
    """``name`` with the spaces around it taken off, checked: 1 to :data:`MAX_NAME` printable
    characters, not "You" (what everyone is called before choosing a name). ValueError with
    a one-line reason otherwise."""
    if not isinstance(name, str):
        raise ValueError(name_problem(name, _("the name")))
    cleaned = name.strip()
    problem = name_problem(cleaned, _("the name"))
    if problem is not None:
        raise ValueError(problem)
    if is_you(cleaned) or is_you(unicodedata.normalize("NFKC", cleaned)):
        raise ValueError(
            _("the name {name} is everyone's name until they choose one: choose another").format(name=repr(cleaned))
        )
    return cleaned


def name_key(name: str) -> str:
    """What two names are compared by: the NFKC case fold, spaces run together."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


def _variants(name: str) -> Iterator[str]:
    """``name`` with 2, 3, ... after it, cut so that each has at most :data:`MAX_NAME` characters."""
    for n in itertools.count(2):
        suffix = str(n)
        yield name[: MAX_NAME - len(suffix)].rstrip() + suffix


# ---------------------------------------------------------------------- the store
class Accounts:
    """The people of the server whose SQLite connection is ``db`` (its own tables, made if
    missing). ``anchors``: the AI kinds' ratings (None: the shipped ``ai_ratings.json``)."""

    def __init__(self, db: sqlite3.Connection, *, anchors: Mapping[str, Rating] | None = None) -> None:
        self.db = db
        if anchors is None:
            try:
                anchors = ai_anchors()
            except (OSError, ValueError) as exc:
                raise AccountsError(
                    _("No rating: the AI players' ratings cannot be read ({error})").format(
                        error=one_line(str(exc), PROBLEM_MAX)
                    )
                ) from None
        self.anchors: dict[str, Rating] = dict(anchors)
        values = [a.value for a in self.anchors.values()]
        #: A new person's rating: the prior's centre, as Stats gives a person with no rated match.
        self.first_rating = Rating("", sum(values) / len(values) if values else 1000.0, DEFAULT_PRIOR_SD)
        with self._transaction() as db:
            for statement in _SCHEMA:
                db.execute(statement)
            row = db.execute("SELECT value FROM accounts_meta WHERE name = 'schema'").fetchone()
            if row is None:
                db.execute("INSERT INTO accounts_meta (name, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif row[0] != str(SCHEMA_VERSION):
                raise AccountsError(
                    _(
                        "The server's store of people is of another version ({version}): use the program that made it."
                    ).format(version=one_line(str(row[0]), 20))
                )

    # ------------------------------------------------------------------ transactions
    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One transaction (BEGIN IMMEDIATE, or a savepoint inside the caller's); every
        sqlite3 error rolls it back and becomes an :class:`AccountsError`."""
        db = self.db
        nested = db.in_transaction
        try:
            db.execute("SAVEPOINT accounts" if nested else "BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise _store_error(exc) from None
        try:
            yield db
            db.execute("RELEASE accounts" if nested else "COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                if nested:
                    db.execute("ROLLBACK TO accounts")
                    db.execute("RELEASE accounts")
                else:
                    db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise _store_error(exc) from None
            raise

    # ------------------------------------------------------------------ people
    def server_id(self) -> str:
        """The server's id (the challenge's ``server``): made once, kept across restarts."""
        with self._transaction() as db:
            row = db.execute("SELECT value FROM accounts_meta WHERE name = 'server'").fetchone()
            if row is not None:
                return str(row[0])
            made = new_server_id()
            db.execute("INSERT INTO accounts_meta (name, value) VALUES ('server', ?)", (made,))
            return made

    def person(self, key: str) -> Person | None:
        """The person of the public key ``key``, or None when the server does not know it."""
        with self._transaction() as db:
            return _person(db, key)

    def sign_in(self, key: str, name: object) -> Person | NameTaken:
        """Sign in the public key ``key`` under ``name``: a new key takes the name if it is free;
        a known key keeps its name or takes the new one if free (its own name in another case
        too). :class:`NameTaken` when another key holds the name (or one that looks alike).
        ValueError (one line) for a name that is not usable or a key that is not a public key."""
        cleaned = clean_name(name)
        if not is_public_key(key):
            raise ValueError(_("the key is not a player's public key"))
        wanted = name_key(cleaned)
        with self._transaction() as db:
            holder = db.execute("SELECT key FROM people WHERE name_key = ?", (wanted,)).fetchone()
            if holder is not None and holder[0] != key:
                return NameTaken(cleaned, self._free_variant(db, cleaned))
            if _person(db, key) is None:
                db.execute(
                    "INSERT INTO people (key, name, name_key, rating, rating_sd, games, created)"
                    " VALUES (?, ?, ?, ?, ?, 0, ?)",
                    (key, cleaned, wanted, self.first_rating.value, self.first_rating.sd, time.time()),
                )
            else:
                db.execute("UPDATE people SET name = ?, name_key = ? WHERE key = ?", (cleaned, wanted, key))
            signed = _person(db, key)
        assert signed is not None
        return signed

    @staticmethod
    def _free_variant(db: sqlite3.Connection, name: str) -> str:
        for candidate in _variants(name):
            if db.execute("SELECT 1 FROM people WHERE name_key = ?", (name_key(candidate),)).fetchone() is None:
                return candidate
        raise AssertionError("unreachable: the variants never end")  # pragma: no cover

    # ------------------------------------------------------------------ matches
    def record_match(
        self,
        keys_in_seat_order: Sequence[str | None],
        finish: Sequence[float],
        lower_is_better: bool,
        ai_kinds: Sequence[str | None],
    ) -> dict[str, Person]:
        """Keep a finished match: by seat, the person's key (None for an AI) or the AI's kind
        (None for a person), and the final totals (points: ``lower_is_better``; chips: the
        higher). Its people's ratings are fitted again on all their matches (the others held
        at theirs), and their count of matches grows by one. The people of the match after it,
        by key. ValueError (one line) for seats that do not match up, a key the server does
        not know, or a total that is not a finite number; nothing is kept then."""
        seats = len(keys_in_seat_order)
        if seats < 2 or len(finish) != seats or len(ai_kinds) != seats:
            raise ValueError("a match needs two seats or more, each with a key or an AI kind, and a total each")
        for key, kind in zip(keys_in_seat_order, ai_kinds, strict=True):
            if (key is None) == (kind is None):
                raise ValueError("each seat is a person (a key) or an AI (its kind), not both nor neither")
        pairwise(finish, lower_is_better)  # ValueError for a total that is not a finite number
        totals = [float(x) for x in finish]
        people = list(dict.fromkeys(k for k in keys_in_seat_order if k is not None))
        with self._transaction() as db:
            for key in people:
                if _person(db, key) is None:
                    raise ValueError(f"no person has the key {one_line(key, 50)!r}")
            match = db.execute(
                "INSERT INTO rated_matches (finished, lower_is_better) VALUES (?, ?)",
                (time.time(), int(bool(lower_is_better))),
            ).lastrowid
            db.executemany(
                "INSERT INTO rated_results (match, seat, key, kind, finish) VALUES (?, ?, ?, ?, ?)",
                [
                    (match, seat, key, kind, total)
                    for seat, (key, kind, total) in enumerate(zip(keys_in_seat_order, ai_kinds, totals, strict=True))
                ],
            )
            db.executemany("UPDATE people SET games = games + 1 WHERE key = ?", [(k,) for k in people])
            self._refit(db, people)
            out = {key: _person(db, key) for key in people}
        return {key: person for key, person in out.items() if person is not None}

    def _refit(self, db: sqlite3.Connection, people: Sequence[str]) -> None:
        """Fit ``people`` again on every match any of them finished, the others held."""
        if not people:
            return
        marks = ",".join("?" * len(people))
        rows = db.execute(
            "SELECT r.match, m.lower_is_better, r.key, r.kind, r.finish FROM rated_results AS r"
            " JOIN rated_matches AS m ON m.id = r.match"
            f" WHERE r.match IN (SELECT match FROM rated_results WHERE key IN ({marks}))"
            " ORDER BY r.match, r.seat",
            list(people),
        ).fetchall()
        free = set(people)
        vs_ai: list[tuple[str, str, float]] = []
        between: list[tuple[str, str, float]] = []
        for _match, group in itertools.groupby(rows, key=lambda row: row[0]):
            seats: list[Any] = list(group)
            for i, j, score in pairwise([row[4] for row in seats], bool(seats[0][1])):
                (a_key, a_kind), (b_key, b_kind) = seats[i][2:4], seats[j][2:4]
                if a_key is not None and b_key is not None:
                    if a_key != b_key and (a_key in free or b_key in free):
                        between.append((a_key, b_key, score))
                elif a_key in free and b_kind is not None:
                    vs_ai.append((a_key, b_kind, score))
                elif b_key in free and a_kind is not None:
                    vs_ai.append((b_key, a_kind, 1.0 - score))
        others = {k for a, b, _s in between for k in (a, b)} - free
        held: dict[str, Rating] = {}
        for key in sorted(others):
            row = db.execute("SELECT rating, rating_sd FROM people WHERE key = ?", (key,)).fetchone()
            if row is not None:
                held[key] = Rating(key, float(row[0]), float(row[1]))
        fitted = people_ratings(vs_ai, between, self.anchors, held)
        for key in people:
            got = fitted.get(key, self.first_rating)
            db.execute("UPDATE people SET rating = ?, rating_sd = ? WHERE key = ?", (got.value, got.sd, key))


def _person(db: sqlite3.Connection, key: str) -> Person | None:
    row = db.execute("SELECT key, name, rating, games, rating_sd FROM people WHERE key = ?", (key,)).fetchone()
    if row is None:
        return None
    return Person(str(row[0]), str(row[1]), float(row[2]), int(row[3]), float(row[4]))


def _store_error(exc: sqlite3.Error) -> AccountsError:
    """A database error as one plain line."""
    found = fault(exc)
    reason = _("the server's store is locked by another program") if found.kind == "locked" else found.words
    # Translators: {reason} is why, in plain words ("the disk is full").
    return AccountsError(_("The server's store of people cannot be used: {reason}").format(reason=reason))


__all__ = [
    "MAX_NAME",
    "Accounts",
    "AccountsError",
    "NameTaken",
    "Person",
    "clean_name",
    "name_key",
]
