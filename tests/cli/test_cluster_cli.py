"""The cluster's commands (``store init``, ``worker``, ``gateway``): what they say, and how a bad
address or a server that cannot be reached is told (one line, exit 2, never a traceback)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kc_tui.cli import main
from kc_tui.net.cluster.opening import open_store
from kc_tui.net.server_store import matches
from kc_tui.net.store.tablestore import PLAYING, SCHEMA_VERSION
from tests.cluster.servicekit import free_port


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(code: int, out: str, err: str, *words: str) -> None:
    assert code == 2, (code, out, err)
    assert "Traceback" not in out + err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("kings-corners: ")
    for word in words:
        assert word in lines[0], (word, lines[0])


def test_store_init_makes_an_sqlite_store_and_a_second_run_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "stores" / "tables.sqlite3"
    for _ in range(2):
        code, out, err = _run(capsys, "store", "init", "--store", f"sqlite://{path}")
        assert (code, err) == (0, "")
        assert out.strip().endswith("is ready")
        with sqlite3.connect(path) as db:
            assert db.execute("SELECT value FROM kc_meta WHERE key = 'schema'").fetchone() == (str(SCHEMA_VERSION),)
            assert db.execute("SELECT count(*) FROM kc_tables").fetchone() == (0,)
    code, out, err = _run(capsys, "store", "init", "--store", str(path))  # a plain path is an SQLite file's
    assert (code, err) == (0, "")


def test_store_table_stores_a_new_table_and_prints_each_persons_join_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tables.sqlite3"
    assert _run(capsys, "store", "init", "--store", str(path))[0] == 0
    argv = ["store", "table", "--store", str(path), "--seats", "human:Ana,greedy,human:Ben"]
    code, out, err = _run(capsys, *argv, "--target", "50", "--turn-seconds", "30", "--gateway", "ws://gw.example:80/")
    assert (code, err) == (0, "")
    ana, ben, watch = out.splitlines()
    table = ana.split("/t/")[1].split("/")[0]
    assert ana.startswith(f"Ana: kings-corners join ws://gw.example:80/t/{table}/seat/")
    assert ben.startswith(f"Ben: kings-corners join ws://gw.example:80/t/{table}/seat/")
    assert watch == f"Watch: kings-corners join --watch ws://gw.example:80/t/{table}/watch"
    store = open_store(str(path))
    try:
        row = store.row(table)
        assert row is not None and (row.owner, row.epoch, row.seq, row.phase) == (None, 0, 0, PLAYING)
        assert row.record["turn_seconds"] == 30
        hashes = store.token_hashes(table)
        tokens = {0: ana.rsplit("/", 1)[1], 2: ben.rsplit("/", 1)[1]}
        assert sorted(hashes) == [0, 2]
        assert all(matches(token, hashes[seat]) for seat, token in tokens.items())
        assert not matches(tokens[0], hashes[2])
    finally:
        store.close()


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--seats", "human:Ana"], ["2 to 4 seats"]),
        (["--seats", "human:[b]Ana[/b],greedy"], ["markup"]),
        (["--seats", "human:Ana,greedy", "--gateway", "http://gw.example"], ["--gateway"]),
        (["--seats", "human:Ana,greedy", "--gateway", "ws://gw\x07.example:80"], ["--gateway"]),
        (["--seats", "human:Ana\x1b[31m,greedy"], ["printable"]),
        (["--seats", "human:" + "A" * 5000 + ",greedy"], ["name"]),
        (["--seats", "human:Ana,greedy", "--target", "99999999999999999999"], ["target"]),
        (["--seats", "human:Ana,greedy", "--target", "1e309"], ["--target"]),
        (["--seats", "human:Ana,greedy", "--turn-seconds", "nan"], ["--turn-seconds"]),
        (["--seats", "human:Ana,greedy", "--rules", "draw=sometimes"], ["--rules"]),
    ],
    ids=[
        "one seat",
        "markup in a name",
        "not a ws address",
        "a control character in the address",
        "an escape in a name",
        "a huge name",
        "a huge target",
        "a target that is no whole number",
        "not a number",
        "a rule that is not",
    ],
)
def test_store_table_refuses_a_bad_option_in_one_line_and_stores_nothing(
    extra: list[str], words: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tables.sqlite3"
    assert _run(capsys, "store", "init", "--store", str(path))[0] == 0
    _one_line_error(*_run(capsys, "store", "table", "--store", str(path), *extra), *words)
    store = open_store(str(path))
    try:
        assert store.rows() == []
    finally:
        store.close()


@pytest.mark.parametrize(
    "url",
    ["mysql://someone@somewhere/db", "", "redis://127.0.0.1:6379/0"],
    ids=["another database", "empty", "a redis address"],
)
def test_store_init_refuses_an_address_that_is_no_stores(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    _one_line_error(*_run(capsys, "store", "init", "--store", url), "store")


def test_store_init_tells_a_file_that_is_no_store_and_leaves_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("my notes\n", encoding="utf-8")
    _one_line_error(*_run(capsys, "store", "init", "--store", str(other)))
    assert other.read_text(encoding="utf-8") == "my notes\n"


def test_store_init_on_a_postgresql_not_reached_says_so_without_its_password(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"postgresql://kc:secret-word@127.0.0.1:{free_port()}/kc"
    code, out, err = _run(capsys, "store", "init", "--store", url)
    _one_line_error(code, out, err)
    assert "secret-word" not in err


def test_a_worker_with_redis_not_reached_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "tables.sqlite3")
    assert _run(capsys, "store", "init", "--store", store)[0] == 0
    redis = f"redis://:secret-word@127.0.0.1:{free_port()}/0"
    code, out, err = _run(capsys, "worker", "--store", store, "--redis", redis)
    _one_line_error(code, out, err, "Redis")
    assert "secret-word" not in err


@pytest.mark.parametrize(
    ("option", "value", "word"),
    [
        ("--redis", "http://127.0.0.1:6379", "Redis"),
        ("--store", "mysql://someone@somewhere/db", "store"),
        ("--id", "two words", "--id"),
        ("--port", "70000", "--port"),
        ("--bind", "a b", "--bind"),
        ("--bind", "127.0.0.1\x07", "--bind"),
        ("--advertise", "[x]", "--advertise"),
        ("--advertise", "worker\x1b[2J", "--advertise"),
        ("--id", "w" * 5000, "--id"),
    ],
)
def test_a_worker_refuses_a_bad_option_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, word: str
) -> None:
    store = str(tmp_path / "tables.sqlite3")
    assert _run(capsys, "store", "init", "--store", store)[0] == 0
    given = {"--store": store, "--redis": f"redis://127.0.0.1:{free_port()}/0", option: value}
    argv = [part for pair in given.items() for part in pair]
    _one_line_error(*_run(capsys, "worker", *argv), word)


def test_a_worker_on_a_store_never_made_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "never.sqlite3")
    _one_line_error(*_run(capsys, "worker", "--store", store, "--redis", f"redis://127.0.0.1:{free_port()}/0"))


def test_a_gateway_refuses_a_bad_port_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    _one_line_error(*_run(capsys, "gateway", "--redis", "redis://127.0.0.1:6379/0", "--port", "x"), "--port")


@pytest.mark.parametrize("redis", ["http://127.0.0.1:6379", "redis://:secret-word@127.0.0.1:{port}/0"])
def test_a_gateway_with_a_bad_or_unreached_redis_says_so_in_one_line(
    redis: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "gateway", "--redis", redis.format(port=free_port()), "--port", "0")
    assert code == 2
    assert "Traceback" not in out + err
    assert len((out + err).splitlines()) == 1, out + err
    assert "Redis" in out + err and "secret-word" not in out + err
