"""The hosted table's seat file is read strictly: a field given twice is refused in one line,
never read as the last of the two."""

from __future__ import annotations

from pathlib import Path

import pytest

from kc_tui.config.args import CliError
from kc_tui.net.host_files import SeatFile, read_seat_file, write_seat_file

SEATS = SeatFile(uid="u1", tokens={0: "t0", 1: "t1"}, port=8765, bind="127.0.0.1", tls=False)


def test_a_seat_file_is_read_back_as_written(tmp_path: Path) -> None:
    write_seat_file(tmp_path / "seats.json", SEATS)
    assert read_seat_file(tmp_path / "seats.json") == SEATS


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ((b'"uid": "u1"', b'"uid": "u1", "uid": "other"'), 'the field "uid" is given twice'),
        ((b'"port": 8765', b'"port": NaN'), "NaN is not a number"),
    ],
)
def test_a_seat_file_that_is_not_strict_json_is_refused_in_one_line(
    tmp_path: Path, change: tuple[bytes, bytes], words: str
) -> None:
    path = tmp_path / "seats.json"
    path.write_bytes(SEATS.to_bytes().replace(*change))
    with pytest.raises(CliError) as caught:
        read_seat_file(path)
    said = str(caught.value)
    assert "is not a usable seat file" in said and words in said and "\n" not in said
