"""``kings-corners stats``: the summary as text, ``--json`` and ``--csv`` exports, and bad paths
(one line on stderr, exit 2, the file left as it was)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import sqlite3
import subprocess
import sys
import unicodedata
from datetime import timedelta
from pathlib import Path

import pytest

import ai
from kc_tui.cli import main
from kc_tui.i18n import _, use
from kc_tui.records.export import EXPORT_COLUMNS
from kc_tui.records.rows import ENV_HISTORY
from kc_tui.records.stats_shown import has_all_row, summary_rows, table_text
from kc_tui.records.store import History
from tests.ui.statskit import BOLD, T0, full_history, record_match


@pytest.fixture(autouse=True)
def isolated(fixed_world: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No $KINGS_CORNERS_HISTORY, the settings file beside the test's files, and the fixed world."""
    monkeypatch.setenv("KINGS_CORNERS_CONFIG", str(tmp_path / "settings.toml"))
    monkeypatch.delenv(ENV_HISTORY, raising=False)


@pytest.fixture
def history_file(tmp_path: Path) -> Path:
    path = tmp_path / "h.sqlite3"
    full_history(path).close()
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["stats", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_stats_prints_the_summary(capsys: pytest.CaptureFixture[str], history_file: Path) -> None:
    code, out, err = run(capsys, "--history", str(history_file))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "Kings Corners: 6 matches played (1 unfinished)"
    assert lines[1].startswith("Your rating ") and "±" in lines[1] and "Lookahead (1180)" in lines[1]
    at = next(i for i, line in enumerate(lines) if line.startswith("Opponent"))
    header = lines[at]
    assert lines[at - 1].split() == ["Penalty", "Hints"]
    assert header.split() == [
        "Opponent",
        "Players",
        "Matches",
        "Won",
        "Win",
        "%",
        "Rounds",
        "Won",
        "Win",
        "%",
        "/round",
        "/round",
    ]
    rows = {tuple(line.split()[:2]): line.split() for line in lines if line.split()[:1] in (["Greedy"], ["all"])}
    assert rows["Greedy", "2"][2:5] == ["2", "1", "50%"]  # 2 matches, 1 won
    assert rows["all", "–"][2:4] == ["5", "4"]
    assert "Winning streak now: 3 wins · longest: 3 wins" in lines
    assert any(line.startswith("Best match: #4 2026-03-04") for line in lines)
    assert any(line.startswith("Worst match: #2") and "lost, 56 · 0" in line for line in lines)


def test_stats_fit_80_columns(capsys: pytest.CaptureFixture[str], history_file: Path) -> None:
    code, out, _err = run(capsys, "--history", str(history_file))
    assert code == 0
    wide = [line for line in out.splitlines() if len(line) > 80]
    assert not wide, wide


def test_a_table_that_fits_keeps_its_headers_on_one_line() -> None:
    lines = table_text(["Opponent", "Hints/round"], [("greedy", "0.50")])
    assert lines == ["Opponent  Hints/round", "--------  -----------", "greedy           0.50"]


def test_stats_with_nothing_recorded(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys)
    assert code == 0 and err == ""
    assert "No matches recorded yet" in out and "Play a match to get a rating" in out
    assert not (tmp_path / "data" / "history.sqlite3").exists(), "reading makes no history file"
    path = tmp_path / "empty.sqlite3"
    History.open(path)[0].close()
    code, out, _ = run(capsys, "--history", str(path))
    assert code == 0 and "No matches recorded yet" in out


def test_stats_reads_the_default_history(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    full_history(tmp_path / "data" / "history.sqlite3").close()
    code, out, _ = run(capsys)
    assert code == 0 and out.startswith("Kings Corners: 6 matches played")


def test_json_export(capsys: pytest.CaptureFixture[str], history_file: Path, tmp_path: Path) -> None:
    code, out, err = run(capsys, "--history", str(history_file), "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert [m["id"] for m in data] == [1, 2, 3, 4, 5, 6]
    assert data[2]["seats"][2] == {"name": BOLD, "kind": "king-aware", "think_ms": 200}
    assert [r["penalties"] for r in data[2]["rounds"]] == [[0, 12, 9], [8, 17, 0], [0, 30, 14]]
    assert data[5]["finished_at"] is None
    target = tmp_path / "out.json"
    code, out, err = run(capsys, "--history", str(history_file), "--json", str(target))
    assert code == 0 and out == "" and "wrote 6 matches" in err
    assert json.loads(target.read_text(encoding="utf-8")) == data


def test_csv_export(capsys: pytest.CaptureFixture[str], history_file: Path, tmp_path: Path) -> None:
    target = tmp_path / "rounds.csv"
    code, out, err = run(capsys, "--history", str(history_file), "--csv", str(target))
    assert code == 0 and out == "" and "wrote 13 rounds" in err
    rows = list(csv.DictReader(io.StringIO(target.read_text(encoding="utf-8"))))
    assert len(rows) == 13 and list(rows[0]) == list(EXPORT_COLUMNS)
    assert [(r["match_id"], r["round"]) for r in rows[:3]] == [("1", "1"), ("1", "2"), ("1", "3")]
    assert json.loads(rows[5]["players"]) == ["You", "Greedy", BOLD]
    code, out, _ = run(capsys, "--history", str(history_file), "--csv", "-")
    assert code == 0 and out.splitlines()[0] == ",".join(EXPORT_COLUMNS) and len(out.splitlines()) == 14


def test_json_and_csv_together_are_refused(capsys: pytest.CaptureFixture[str], history_file: Path) -> None:
    code, out, err = run(capsys, "--history", str(history_file), "--json", "--csv", "x.csv")
    assert code == 2 and out == ""
    assert err.startswith("kings-corners: ") and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda p: p / "missing.sqlite3", "no such file"),
        (lambda p: p / "no-folder" / "h.sqlite3", "no such file"),
        (lambda p: p, "is a directory"),
        (lambda p: _write(p / "junk", b"not a database at all"), "not a Kings Corners history"),
        (lambda p: _other_db(p / "other.sqlite3"), "another program's database"),
    ],
)
def test_bad_history_paths(capsys: pytest.CaptureFixture[str], tmp_path: Path, make: object, words: str) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    before = path.read_bytes() if path.is_file() else None
    code, out, err = run(capsys, "--history", str(path))
    assert code == 2 and out == ""
    assert err.startswith("kings-corners: ") and words in err and len(err.splitlines()) == 1
    assert "Traceback" not in err
    if before is not None:  # never moved aside or changed by a command that only reads
        assert path.read_bytes() == before
    assert not list(tmp_path.glob("*.corrupt-*"))


def test_bad_export_targets(capsys: pytest.CaptureFixture[str], history_file: Path, tmp_path: Path) -> None:
    for argv, words in (
        (["--csv", str(tmp_path / "nowhere" / "x.csv")], "no such folder"),
        (["--json", str(tmp_path)], "is a directory"),
    ):
        code, out, err = run(capsys, "--history", str(history_file), *argv)
        assert code == 2 and out == "" and words in err and len(err.splitlines()) == 1, err


def test_a_reader_that_stops_early_is_no_error(tmp_path: Path) -> None:
    """``kings-corners stats --json | head``: the export stops quietly, exit 0, no traceback."""
    history, _ = History.open(tmp_path / "big.sqlite3")
    for k in range(150):
        record_match(history, [("Greedy", "greedy")], [(0, [0, 9]), (1, [4, 0])], start=T0 + timedelta(hours=k))
    history.close()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kc_tui", "stats", "--history", str(tmp_path / "big.sqlite3"), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == b"[\n"
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0
    assert err == ""


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _other_db(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes (x TEXT)")
    con.commit()
    con.close()
    return path


# ---------------------------------------------------------------------- a command that only reads
def _state(folder: Path) -> dict[str, str]:
    """Every file in ``folder`` (not below) by name, with the sha256 of its bytes."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def _damage_a_page(path: Path) -> None:
    """Overwrite one page in the middle of the file (the header, and so the file's id, kept)."""
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 4 * page
    middle = (len(data) // page // 2) * page
    data[middle : middle + page] = b"\xa5" * page
    path.write_bytes(bytes(data))


def test_a_damaged_history_is_said_and_left_byte_for_byte(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "backup.sqlite3"
    history, _ = History.open(path)
    for k in range(200):
        record_match(history, [("Greedy", "greedy")], [(0, [0, 9]), (1, [4, 0])], start=T0 + timedelta(hours=k))
    history.close()
    _damage_a_page(path)
    before = _state(tmp_path)
    for argv in ([], ["--json"], ["--csv", str(tmp_path / "out.csv")]):
        code, out, err = run(capsys, "--history", str(path), *argv)
        assert code == 2 and out == "", err
        assert err.startswith(f"kings-corners: {path}: the history is damaged") and len(err.splitlines()) == 1
        assert "Traceback" not in err
        assert _state(tmp_path) == before


def test_a_history_variable_naming_a_text_file_leaves_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, not a history\n")
    monkeypatch.setenv(ENV_HISTORY, str(notes))
    before = _state(tmp_path)
    code, out, err = run(capsys)
    assert code == 2 and out == ""
    assert err == f"kings-corners: {notes}: not a Kings Corners history (not an SQLite database)\n"
    assert _state(tmp_path) == before


def test_stats_read_an_earlier_version_without_changing_it(
    capsys: pytest.CaptureFixture[str], history_file: Path, tmp_path: Path
) -> None:
    con = sqlite3.connect(history_file, isolation_level=None)
    con.execute("DROP TABLE player_results")
    con.execute("DROP INDEX matches_uid")
    con.execute("ALTER TABLE matches DROP COLUMN uid")
    con.execute("ALTER TABLE rounds DROP COLUMN seat_hints")
    con.execute("ALTER TABLE rounds DROP COLUMN seat_undos")
    con.execute("PRAGMA user_version = 2")
    con.close()
    before = _state(tmp_path)
    code, out, err = run(capsys, "--history", str(history_file))
    assert code == 0 and err == ""
    assert out.splitlines()[0] == "Kings Corners: 6 matches played (1 unfinished)"
    assert _state(tmp_path) == before


def test_stats_of_a_clean_history_leave_its_folder_as_it_was(
    capsys: pytest.CaptureFixture[str], history_file: Path, tmp_path: Path
) -> None:
    before = _state(tmp_path)
    code, _, _ = run(capsys, "--history", str(history_file), "--json")
    assert code == 0
    assert _state(tmp_path) == before  # no -wal or -shm made beside it


def test_an_export_with_nothing_recorded_is_empty(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "--json")
    assert code == 0 and json.loads(out) == []
    assert not (tmp_path / "data").exists()


# ---------------------------------------------------------------------- export targets
@pytest.mark.parametrize(
    "target",
    [
        lambda h: h,
        lambda h: h.with_name(h.name + "-wal"),
        lambda h: h.with_name(h.name + "-shm"),
        lambda h: h.with_name(h.name + "-journal"),
        lambda h: _link(h.with_name("link.csv"), h),
        lambda h: h.parent / "." / h.name,
    ],
    ids=["the history", "its -wal", "its -shm", "its -journal", "a link to it", "another spelling"],
)
@pytest.mark.parametrize("flag", ["--csv", "--json"])
def test_an_export_is_never_written_over_the_history(
    capsys: pytest.CaptureFixture[str], history_file: Path, tmp_path: Path, target: object, flag: str
) -> None:
    out_path = target(history_file)  # type: ignore[operator]
    before = _state(tmp_path)
    code, out, err = run(capsys, "--history", str(history_file), flag, str(out_path))
    assert code == 2 and out == ""
    assert "the export is written to another file" in err and len(err.splitlines()) == 1
    assert _state(tmp_path) == before


def _link(link: Path, to: Path) -> Path:
    link.symlink_to(to)
    return link


def test_an_export_replaces_the_old_one_whole(
    capsys: pytest.CaptureFixture[str], history_file: Path, tmp_path: Path
) -> None:
    target = tmp_path / "out.json"
    target.write_text("old")
    target.chmod(0o640)
    code, _, err = run(capsys, "--history", str(history_file), "--json", str(target))
    assert code == 0 and "wrote 6 matches" in err
    assert len(json.loads(target.read_text())) == 6
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary file left


FORMULAS = ['=HYPERLINK("//x.io","y")', "+cmd|' /C calc'!A0", "@SUM(1)", "-2+3", "\tTab", "\rReturn"]


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "h.sqlite3"
    history, _ = History.open(path)
    for k, name in enumerate(FORMULAS[:4]):
        record_match(history, [(name, "greedy")], [(1, [9, 0])], start=T0 + timedelta(hours=k))
    history.close()
    code, out, _ = run(capsys, "--history", str(path), "--csv", "-")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    names = sorted(r["winner_name"] for r in rows)
    assert names == sorted("'" + f for f in FORMULAS[:4])  # read back by the csv module, quote first
    for row in rows:
        for column, cell in row.items():
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (column, cell)
    chips = [json.loads(r["chips_delta"]) for r in rows]
    assert all(isinstance(c, list) for c in chips)  # lists of numbers stay JSON lists
    assert [int(r["round"]) for r in rows] == [1, 1, 1, 1]


def test_csv_cell_prefixes_text_and_keeps_numbers() -> None:
    from kc_tui.cli.stats_command import csv_cell

    assert csv_cell("-1") == "'-1"  # text that looks like a number is text: neutralised too
    assert csv_cell(-1) == -1
    assert csv_cell("[-1,2]") == "[-1,2]"
    assert csv_cell("\tx") == "'\tx" and csv_cell("\rx") == "'\rx"
    assert csv_cell("Ann") == "Ann" and csv_cell("") == ""


def _family(path: Path) -> None:
    """Ana and Ben at one table with a greedy AI (Ana wins twice), and Ben once alone."""
    history, _ = History.open(path)
    for k in range(2):
        record_match(
            history, [("Ben", "human"), ("Greedy", "greedy")], [(0, [0, 20, 30])], me="Ana", start=T0 + timedelta(k)
        )
    record_match(history, [("Greedy", "greedy")], [(0, [0, 20])], me="Ben", start=T0 + timedelta(3))
    history.close()


def test_stats_of_the_player_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    _family(path)
    code, out, err = run(capsys, "--history", str(path), "--player", "Ana")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "Results of Ana (also played: Ben; --player NAME shows theirs)"
    assert lines[1] == "Kings Corners: 2 matches played"
    assert lines[2].startswith("Ana's rating ")
    assert any(line.startswith("human ") and " 2    2 " in line for line in lines), lines
    code, out, _ = run(capsys, "--history", str(path), "--player", "Ben")
    assert code == 0 and "Kings Corners: 3 matches played" in out and "Ben's rating" in out
    ana, ben = (
        float(run(capsys, "--history", str(path), "--player", p)[1].split("rating ")[1].split()[0])
        for p in ("Ana", "Ben")
    )
    assert ana > ben  # Ana beat Ben twice


def test_stats_default_to_the_settings_name_else_who_played_most(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "h.sqlite3"
    _family(path)
    _, out, _ = run(capsys, "--history", str(path))
    assert out.startswith("Results of Ben ")  # "You" (the Settings name) never played: Ben played most
    (tmp_path / "settings.toml").write_text('player_name = "Ana"\n')
    _, out, _ = run(capsys, "--history", str(path))
    assert out.startswith("Results of Ana ")


def test_stats_of_someone_who_never_played(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    _family(path)
    code, out, err = run(capsys, "--history", str(path), "--player", "[b]Zed[/b]")
    assert code == 2 and out == ""
    assert err.strip().endswith("no matches of [b]Zed[/b] in the history; its players: Ben, Ana")


def cells_of(line: str) -> str:
    """``line`` as a terminal lays it out: one character a cell, a Thai vowel or tone mark above
    or below its letter in its letter's cell."""
    out = ""
    for ch in line:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        out += ch * (2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1)
    return out


@pytest.mark.parametrize("code", ["th", "vi", "it", "sw"])
def test_the_summary_table_is_aligned_in_cells(
    capsys: pytest.CaptureFixture[str], history_file: Path, code: str
) -> None:
    """In Thai the vowels and tone marks above and below a letter take no cell: the columns are
    padded by cells, so each column's texts end (the first: start) where its rule of dashes does."""
    assert main(["--lang", code, "stats", "--history", str(history_file)]) == 0
    lines = capsys.readouterr().out.splitlines()
    rule = next(i for i, line in enumerate(lines) if set(line) == {"-", " "})
    table = [cells_of(line) for line in lines[rule - 1 : rule + 7]]
    spans = [(m.start(), m.end()) for m in re.finditer("-+", table[1])]
    assert len(spans) == 10 and len(table) == 8
    for line in table[:1] + table[2:]:
        assert len(line) == spans[-1][1], line
        first, *others = spans
        assert line[first[0]] != " ", line
        for start, end in others:
            assert line[end - 1] != " " and line[start - 1] == " ", (line, start, end)


@pytest.mark.parametrize("code", ["sw", "th", "vi", "it"])
def test_the_summary_rows_are_in_the_language_for_the_screen_too(history_file: Path, code: str) -> None:
    """The rows the stats screen draws: every match together ("all") and the opponents' kinds
    in the language in use, as the command line prints them."""
    history = History.open(history_file)[0]
    try:
        use(code)
        rows = summary_rows(history.summary(None))
        assert has_all_row(rows) and rows[-1][0] == _("all") != "all"
        assert {row[0] for row in rows[:-1]} == {ai.kind_title(k) for k in ("greedy", "king-aware", "lookahead")}
    finally:
        history.close()
