"""The position commands: check, moves, apply, and how bad input is reported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kc_tui.cli import main
from tests.engine.helpers import draw3_position, position, valid_position

FULL_TO_2 = ["KS", "QH", "JC", "TD", "9S", "8H", "7C", "6D", "5S", "4H", "3C", "2D"]


def _write(tmp_path: Path, content: dict[str, Any] | str, name: str = "pos.json") -> str:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _bad_doc(kind: str) -> dict[str, Any] | str:
    doc = valid_position()
    if kind == "malformed JSON":
        return '{"players": [1, 2'
    if kind == "empty file":
        return ""
    if kind == "unknown card":
        doc["players"][1]["hand"].append("1Z")
    elif kind == "duplicate card":
        doc["stock"].append("7H")
    elif kind == "missing card":
        doc["stock"].remove("QC")
    elif kind == "wrong colour pile":
        doc["piles"]["E"] = ["8D", "7H"]
        doc["players"][0]["hand"].remove("7H")
    elif kind == "wrong rank pile":
        doc["piles"]["E"] = ["8D", "5C"]
        doc["players"][0]["hand"].remove("5C")
    elif kind == "corner without king":
        doc["piles"]["SE"] = ["QC"]
        doc["stock"].remove("QC")
    elif kind == "unknown rule value":
        doc["rules"] = {"draw": "never"}
    elif kind == "unknown rule key":
        doc["rules"] = {"wildcards": "on"}
    elif kind == "seat out of range":
        doc["to_move"] = 5
    return doc


BAD_FILES = {
    # kind: words the one-line message must contain
    "malformed JSON": ["JSON"],
    "empty file": ["empty"],
    "unknown card": ["1Z", "player 1"],
    "duplicate card": ["duplicate", "7H"],
    "missing card": ["missing", "QC"],
    "wrong colour pile": ["7H", "8D", "pile E"],
    "wrong rank pile": ["5C", "8D", "pile E"],
    "corner without king": ["corner SE", "QC"],
    "unknown rule value": ["draw", "never"],
    "unknown rule key": ["wildcards"],
    "seat out of range": ["to_move", "5"],
}


def _assert_one_line_error(code: int, out: str, err: str, words: list[str]) -> None:
    assert code == 2
    assert out == "", "nothing is printed as a result"
    assert err.endswith("\n") and err.count("\n") == 1, f"exactly one line on stderr: {err!r}"
    assert err.startswith("kings-corners: ")
    assert "Traceback" not in err
    for w in words:
        assert w in err, (w, err)


@pytest.mark.parametrize("kind", list(BAD_FILES))
@pytest.mark.parametrize("command", ["check", "moves", "apply"])
def test_bad_file_gives_one_line_exit_2_and_no_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, command: str
) -> None:
    path = _write(tmp_path, _bad_doc(kind))
    argv = [command, path] + (["end"] if command == "apply" else [])
    code, out, err = _run(capsys, *argv)
    _assert_one_line_error(code, out, err, BAD_FILES[kind])
    assert path in err, "the message names the file"


def test_missing_file_and_directory_and_binary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _assert_one_line_error(*_run(capsys, "check", str(tmp_path / "nope.json")), ["no such file"])
    _assert_one_line_error(*_run(capsys, "moves", str(tmp_path)), ["directory"])
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    _assert_one_line_error(*_run(capsys, "check", str(binary)), ["text"])


def test_deeply_nested_json_is_bad_input_not_a_crash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "[" * 50_000 + "]" * 50_000)
    _assert_one_line_error(*_run(capsys, "check", path), ["JSON"])


def test_illegal_move_is_refused_with_its_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, valid_position())
    code, out, err = _run(capsys, "apply", path, "play 7H E")  # red 7 on red 8
    _assert_one_line_error(code, out, err, ["illegal move 1", "play 7H E", "R8"])
    # a card that is not in the hand, and an illegal pile move
    _assert_one_line_error(*_run(capsys, "apply", path, "play QC E"), ["QC", "not in your hand"])
    _assert_one_line_error(*_run(capsys, "apply", path, "move E N"), ["move E N", "R9"])


def test_illegal_later_move_prints_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, valid_position())
    code, out, err = _run(capsys, "apply", path, "play 7H N", "end", "play 5C S")  # 5C is seat 0's
    _assert_one_line_error(code, out, err, ["illegal move 3", "5C"])


@pytest.mark.parametrize("text", ["fly 7H N", "play 7X N", "play 7H Q", "move N", "move N N", "", "end end"])
def test_unreadable_move_text(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> None:
    path = _write(tmp_path, valid_position())
    code, out, err = _run(capsys, "apply", path, text)
    _assert_one_line_error(code, out, err, ["cannot read move 1"])


def test_check_accepts_a_valid_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, valid_position())
    code, out, err = _run(capsys, "check", path)
    assert code == 0 and err == ""
    assert "valid" in out and "2 players" in out


def test_moves_are_sorted_as_text_with_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, valid_position())
    code, out, err = _run(capsys, "moves", path)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines == sorted(lines)
    assert "end" in lines
    # hand 5C 7H AS; N 9H-8S, E 8D, NE KD; S W SE SW NW empty
    expected = {"end", "play 7H N", "play 5C S", "play 5C W", "play 7H S", "play 7H W", "play AS S", "play AS W"}
    # no pile move: N's bottom 9H needs a black 10, E's 8D a black 9, and neither starts with a king
    assert set(lines) == expected
    code, out_json, _ = _run(capsys, "moves", path, "--json")
    assert code == 0 and json.loads(out_json) == lines


def test_moves_json_of_a_king_pile_and_corner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = position([["KC", "2H"], ["6C"]], {"N": ["KH", "QS"], "E": ["JD"], "S": ["5S"], "W": ["9D"]})
    path = _write(tmp_path, doc)
    _, out, _ = _run(capsys, "moves", path, "--json")
    moves = json.loads(out)
    assert moves == sorted(moves)
    corners = ["NE", "NW", "SE", "SW"]
    assert {f"move N {c}" for c in corners} <= set(moves)
    assert {f"play KC {c}" for c in corners} <= set(moves)
    assert "end" in moves


def test_apply_prints_the_new_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, valid_position())
    code, out, err = _run(capsys, "apply", path, "play 7H N", "end")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["piles"]["N"] == ["9H", "8S", "7H"]
    assert doc["to_move"] == 1
    assert "2H" in doc["players"][1]["hand"], "draw = start: seat 1 drew the top card"
    assert "round_over" not in doc


def test_apply_reports_the_end_of_a_round(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = position([["QH"], ["KD", "2C", "9H"], ["5S"]], {"N": ["KS"]})
    path = _write(tmp_path, doc)
    code, out, err = _run(capsys, "apply", path, "play QH N")
    assert code == 0 and err == ""
    res = json.loads(out)
    assert res["round_over"] is True
    assert res["winner"] == 0
    assert res["penalties"] == [0, 12, 1]
    # and no move can follow
    path2 = _write(tmp_path, out, "after.json")
    _assert_one_line_error(*_run(capsys, "apply", path2, "end"), ["over"])


def test_apply_reports_a_block_with_winner_null(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = position([["2C", "KD"], ["3C"]], {"N": ["9H"], "E": ["7C"], "S": ["7H"], "W": ["9S"]}, rest=1)
    path = _write(tmp_path, doc)
    code, out, _ = _run(capsys, "apply", path, "end", "end")
    assert code == 0
    res = json.loads(out)
    assert res["round_over"] is True and res["winner"] is None
    assert res["penalties"][0] == 11


def test_apply_seed_makes_the_completed_pile_shuffle_reproducible(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = position([["AS", "5H"], ["9C"]], {"N": FULL_TO_2, "E": ["7H"], "S": ["7S"]}, stock=["3H"], rest=1)
    path = _write(tmp_path, doc)
    stocks = []
    for seed in ("1", "1", "2", "3", "4"):
        code, out, _ = _run(capsys, "apply", path, "play AS N", "--seed", seed)
        assert code == 0
        res = json.loads(out)
        assert res["piles"]["N"] == []
        assert sorted(res["stock"]) == sorted([*FULL_TO_2, "AS", "3H"])
        stocks.append(res["stock"])
    assert stocks[0] == stocks[1], "same seed, same shuffle"
    assert len({tuple(s) for s in stocks[1:]}) > 1, "other seeds, other shuffles"


def test_apply_accepts_the_other_card_spellings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = position([["TH", "5C"], ["6C"]], {"N": ["JS"]})
    path = _write(tmp_path, doc)
    code, out, _ = _run(capsys, "apply", path, "PLAY 10h n")
    assert code == 0
    assert json.loads(out)["piles"]["N"] == ["JS", "TH"]


def _subprocess(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kc_tui", *argv], capture_output=True, text=True, timeout=60, check=False
    )


def test_real_process_bad_input(tmp_path: Path) -> None:
    path = _write(tmp_path, _bad_doc("duplicate card"))
    proc = _subprocess("moves", path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "duplicate" in proc.stderr and "Traceback" not in proc.stderr
    good = _write(tmp_path, valid_position(), "good.json")
    proc = _subprocess("apply", good, "play 7H E")
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1


def test_real_process_moves(tmp_path: Path) -> None:
    good = _write(tmp_path, valid_position())
    proc = _subprocess("moves", good, "--json")
    assert proc.returncode == 0 and proc.stderr == ""
    moves = json.loads(proc.stdout)
    assert moves == sorted(moves) and "end" in moves


def test_console_script_if_installed(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("kings-corners")
    if not script.exists():
        pytest.skip("the kings-corners console script is not installed next to this Python")
    path = _write(tmp_path, "")
    proc = subprocess.run([str(script), "check", path], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert "empty" in proc.stderr


# ------------------------------------------------------------------ input that used to crash (real processes)

EXAMPLE = Path(__file__).parents[2] / "examples" / "position.json"


def _run_bytes(*argv: str | bytes, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """The command in a real process, arguments as bytes where needed (non-UTF-8 file names)."""
    import os

    return subprocess.run(
        [sys.executable.encode(), b"-m", b"kc_tui", *(os.fsencode(a) for a in argv)],
        capture_output=True,
        timeout=60,
        check=False,
        env=env,
    )


def _one_line_exit_2(proc: subprocess.CompletedProcess[bytes], *words: bytes) -> bytes:
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == b""
    assert proc.stderr.endswith(b"\n") and proc.stderr.count(b"\n") == 1, proc.stderr
    assert proc.stderr.startswith(b"kings-corners: ") and b"Traceback" not in proc.stderr
    assert b"\r" not in proc.stderr
    for w in words:
        assert w in proc.stderr, (w, proc.stderr)
    return proc.stderr


def _with_extra(tmp_path: Path, raw_value: str, name: str = "pos.json") -> str:
    text = EXAMPLE.read_text(encoding="utf-8").rstrip()
    return _write(tmp_path, text[:-1] + ', "extra": ' + raw_value + "}\n", name)


def test_huge_integer_in_a_file_is_one_line_not_a_ValueError_traceback(tmp_path: Path) -> None:
    path = _with_extra(tmp_path, "9" * 5000)
    for argv in (["check", path], ["moves", path], ["apply", path, "end"]):
        _one_line_exit_2(_run_bytes(*argv), b"out of range")


@pytest.mark.parametrize("raw", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_number_in_a_file_is_refused_so_apply_never_writes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], raw: str
) -> None:
    path = _with_extra(tmp_path, raw)
    _assert_one_line_error(*_run(capsys, "apply", path, "end"), ["finite", path])


def test_apply_output_is_strict_json_and_keeps_every_extra_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _with_extra(tmp_path, '{"_private": [1.5, -0.0, null], "deep": ' + "[" * 40 + "]" * 40 + "}")
    code, out, err = _run(capsys, "apply", path, "end")
    assert code == 0 and err == ""
    doc = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} in the output"))
    assert doc["extra"]["_private"] == [1.5, -0.0, None]
    assert json.dumps(doc["extra"]["deep"]) == "[" * 40 + "]" * 40


def test_deep_nesting_in_an_extra_key_is_refused_with_the_limit_not_a_RecursionError(tmp_path: Path) -> None:
    path = _with_extra(tmp_path, "[" * 500 + "]" * 500)
    _one_line_exit_2(_run_bytes("apply", path, "end"), b"nested more than 64 deep")


def test_dev_zero_is_refused_at_once_not_read_for_ever(tmp_path: Path) -> None:
    import os

    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    _one_line_exit_2(_run_bytes("check", "/dev/zero"), b"/dev/zero", b"character device", b"regular file")


def test_fifo_is_refused_at_once_not_waited_on(tmp_path: Path) -> None:
    import os

    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    for argv in (["check", str(fifo)], ["moves", str(fifo)], ["apply", str(fifo), "end"]):
        _one_line_exit_2(_run_bytes(*argv), b"FIFO", b"regular file")  # the 60 s timeout would fail it


def test_file_over_the_size_cap_is_refused_and_one_at_the_cap_is_read(tmp_path: Path) -> None:
    from kc_tui.engine.position import MAX_BYTES

    data = EXAMPLE.read_bytes()
    at_cap = tmp_path / "at_cap.json"
    at_cap.write_bytes(data + b" " * (MAX_BYTES - len(data)))
    assert _run_bytes("check", str(at_cap)).returncode == 0
    over = tmp_path / "over.json"
    over.write_bytes(data + b" " * (MAX_BYTES + 1 - len(data)))
    _one_line_exit_2(_run_bytes("check", str(over)), b"1 MiB")


def test_non_utf8_file_name_is_shown_escaped_in_one_line(tmp_path: Path) -> None:
    import os

    folder = os.fsencode(tmp_path)
    bad = folder + b"/bad\xffname.json"
    try:
        with open(bad, "wb") as f:
            f.write(b"")
    except OSError:
        pytest.skip("this file system refuses non-UTF-8 names")
    for env in (None, {**os.environ, "PYTHONIOENCODING": "ascii", "LC_ALL": "C"}):
        err = _one_line_exit_2(_run_bytes("check", bad, env=env), b"bad\\xffname.json", b"empty")
        assert b"\xff" not in err
    # and a valid file under such a name: `check` prints the name on stdout, escaped
    with open(bad, "wb") as f:
        f.write(EXAMPLE.read_bytes())
    proc = _run_bytes("check", bad, env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert proc.returncode == 0 and proc.stderr == b""
    assert b"bad\\xffname.json: valid position" in proc.stdout and proc.stdout.count(b"\n") == 1


@pytest.mark.parametrize("name", ["new\nline.json", "cr\rret.json", "esc\x1b[31m.json", "rtl\u202eevil.json"])
def test_control_characters_in_a_file_name_stay_on_one_line(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    try:
        path.write_text("")
    except OSError:
        pytest.skip("this file system refuses the name")
    err = _one_line_exit_2(_run_bytes("check", str(path)), b"empty")
    assert b"\x1b" not in err and "\u202e".encode() not in err
    missing = _one_line_exit_2(_run_bytes("moves", str(tmp_path / ("no" + name))), b"no such file")
    assert b"\x1b" not in missing


def test_messages_are_escaped_in_process_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "apply", _write(tmp_path, valid_position()), "play\x1b[31m 7H\u202e N\n")
    _assert_one_line_error(code, out, err, ["cannot read move 1"])
    assert "\x1b" not in err and "\u202e" not in err
    code, out, err = _run(capsys, "check", str(tmp_path / "a\nb\x00c.json"))
    _assert_one_line_error(code, out, err, ["a\\nb\\x00c.json"])


# ------------------------------------------------------------------ argument errors: one line, exit 2


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["apply", "pos.json", "end", "--seed", "abc"], ["--seed", "0 to 18446744073709551615", "'abc'"]),
        (["apply", "pos.json", "end", "--seed", "-1"], ["--seed", "0 to 18446744073709551615", "'-1'"]),
        (["apply", "pos.json", "end", "--seed", "9" * 5000], ["--seed", "0 to 18446744073709551615", "..."]),
        (["apply", "pos.json", "end", "--seed", str(2**64)], ["--seed", "0 to 18446744073709551615"]),
        (["play", "--seed", "x"], ["--seed", "whole number"]),
        (["demo", "--seed", "1e3"], ["--seed", "whole number"]),
        (["check"], ["required", "file", "kings-corners check --help"]),
        (["apply", "pos.json"], ["required", "MOVE"]),
        (["frobnicate"], ["invalid choice", "'frobnicate'"]),
        (["moves", "a.json", "--jsn"], ["unrecognized arguments", "--jsn"]),
        (["--nope"], ["unrecognized arguments"]),
        (["check", "a.json", "b\nc"], ["unrecognized arguments", "b\\nc"]),
    ],
)
def test_argument_errors_are_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: list[str]
) -> None:
    code, out, err = _run(capsys, *argv)
    _assert_one_line_error(code, out, err, words)
    assert "usage:" not in err
    assert len(err) < 1100


def test_the_largest_seed_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, valid_position())
    code, out, _ = _run(capsys, "apply", path, "end", "--seed", str(2**64 - 1))
    assert code == 0 and json.loads(out)["to_move"] == 1


def test_real_process_argument_errors_and_help(tmp_path: Path) -> None:
    _one_line_exit_2(_run_bytes("apply", "--seed", "abc", "x.json", "end"), b"--seed")
    _one_line_exit_2(_run_bytes("check"), b"required")
    _one_line_exit_2(_run_bytes("nonsense"), b"invalid choice")
    _one_line_exit_2(_run_bytes("apply", "x.json", "end", "--seed", "1" + "0" * 5000), b"--seed")
    for argv in (["--help"], ["apply", "--help"], ["check", "-h"]):
        proc = _run_bytes(*argv)
        assert proc.returncode == 0 and proc.stderr == b""
        assert proc.stdout.startswith(b"usage: kings-corners") and proc.stdout.count(b"\n") > 3


# ------------------------------------------------------------------ strict types and kept keys through the commands


def test_round_over_as_a_string_is_refused_not_taken_as_true(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = valid_position()
    doc["round_over"] = "false"
    path = _write(tmp_path, doc)
    for argv in (["check", path], ["moves", path], ["apply", path, "end"]):
        _assert_one_line_error(*_run(capsys, *argv), ["'round_over' must be true or false", "'false'"])


def test_underscore_keys_are_kept_by_apply(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = valid_position()
    doc["_names"] = ["a user key", "not the names"]
    doc["_meta"] = {"from": "a bug report"}
    code, out, _ = _run(capsys, "apply", _write(tmp_path, doc), "end")
    res = json.loads(out)
    assert code == 0
    assert res["_names"] == ["a user key", "not the names"] and res["_meta"] == {"from": "a bug report"}
    assert [p["name"] for p in res["players"]] == ["P0", "P1"]


def test_R14_a_file_written_mid_turn_after_draw3_continues_like_one_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = _write(tmp_path, draw3_position(), "start.json")
    code, mid_text, _ = _run(capsys, "apply", start, "play 7H N")
    assert code == 0
    mid = json.loads(mid_text)
    assert mid["idle_turns"] == 2 and mid["stock"] == [] and mid["turn"]["moved"] is True
    assert "round_over" not in mid
    mid_path = _write(tmp_path, mid_text, "mid.json")
    code, out, _ = _run(capsys, "check", mid_path)
    assert code == 0 and "seat 0 to move" in out, "not blocked"
    _, moves_mid, _ = _run(capsys, "moves", mid_path)
    assert moves_mid.splitlines() and "end" in moves_mid.splitlines()
    _, two_steps, _ = _run(capsys, "apply", mid_path, "end")
    _, one_call, _ = _run(capsys, "apply", start, "play 7H N", "end")
    assert two_steps == one_call
    assert "round_over" not in json.loads(one_call) and json.loads(one_call)["idle_turns"] == 0
