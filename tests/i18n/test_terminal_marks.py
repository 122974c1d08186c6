"""Thai's break marks (U+200B, between two words of every Thai translation) on the command line:
the lines it prints carry none, neither as the mark nor as its escape ``\\u200b``, and its help
wraps Thai at them, measured in cells. A mark in what a player typed stays escaped: it is data,
and two names that differ by it are told apart."""

from __future__ import annotations

import pytest

from kc_tui.cli.common import MarkedHelpFormatter
from kc_tui.i18n import BREAK_MARK, _, break_marks, catalog, marks_kept, use
from kc_tui.records.stats_shown import NO_RATING
from kc_tui.util.printable import cells, one_line, wrap_cells

from .test_command_line import run

ESCAPED = "\\u200b"


def thai(message: str) -> str:
    """``message``'s Thai translation, its break marks kept (checked to have some)."""
    text = catalog("th").gettext(message)
    assert BREAK_MARK in text, text
    return text


def test_a_thai_command_line_error_prints_no_break_marks() -> None:
    out = run("--lang", "th", "play", "--seed", "abc")
    assert out.returncode == 2
    assert ESCAPED not in out.stderr and BREAK_MARK not in out.stderr, out.stderr
    seed = thai("the seed must be a whole number from 0 to {max} (2**64-1), not {shown}")
    assert seed.split("{max}")[0].replace(BREAK_MARK, "") in out.stderr, out.stderr


def test_thai_stats_lines_print_no_break_marks() -> None:
    out = run("--lang", "th", "stats")
    assert out.returncode == 0, out.stderr
    assert ESCAPED not in out.stdout and BREAK_MARK not in out.stdout, out.stdout
    assert thai(NO_RATING).replace(BREAK_MARK, "") in out.stdout.splitlines()


def test_a_break_mark_a_player_typed_stays_escaped() -> None:
    out = run("--lang", "th", "play", "--opponents", "gr\u200beedy")
    assert out.returncode == 2
    assert "'gr\\u200beedy'" in out.stderr, out.stderr
    with break_marks(False):
        assert one_line("Ana\u200bBob\n") == "Ana\\u200bBob\\n"


def test_a_screens_line_keeps_its_break_marks_and_escapes_the_rest() -> None:
    # A screen breaks Thai lines at the marks and draws nothing for them (a reason read from a
    # file and put in a translated sentence keeps them too); other controls are escaped.
    use("th")
    reason = _("it could not be read ({error})").format(error="KeyError")
    assert BREAK_MARK in reason and one_line(reason) == reason
    assert one_line("Ana\u200bBob\x1b[2J") == "Ana\u200bBob\\x1b[2J"


@pytest.mark.parametrize("args", [("--help",), ("play", "--help"), ("stats", "--help")])
def test_thai_help_has_no_marks_and_fits_its_width_in_cells(args: tuple[str, ...]) -> None:
    out = run("--lang", "th", *args, COLUMNS="60")
    assert out.returncode == 0, out.stderr
    assert BREAK_MARK not in out.stdout and ESCAPED not in out.stdout
    wide = [line for line in out.stdout.splitlines() if cells(line) > 58 and "  " in line.strip()]
    assert not wide, wide


def test_the_help_breaks_thai_lines_only_between_words() -> None:
    use("th")
    help_text = thai("the language to speak: {codes} (default: the setting, else the environment's)")
    words = [w for part in help_text.split() for w in part.split(BREAK_MARK)]
    formatter = MarkedHelpFormatter("kings-corners", width=40)
    lines = formatter._split_lines(help_text, 20)
    assert len(lines) > 1 and all(cells(line) <= 20 or " " not in line for line in lines), lines
    assert all(BREAK_MARK not in line for line in lines)
    # Each line is whole words: it ends where a word ends.
    joined = "".join(words)
    at = 0
    ends = set()
    for w in words:
        at += len(w)
        ends.add(at)
    at = 0
    for line in lines[:-1]:
        at += len(line.replace(" ", ""))
        assert at in ends, (line, lines)
    assert "".join(lines).replace(" ", "") == joined.replace(" ", "")


def test_wrap_cells_counts_thai_marks_as_no_cell() -> None:
    # ที่ takes one cell (its vowel and tone mark sit on its letter): four of them in four cells.
    word = "ที่" * 4
    assert wrap_cells(f"{word}{BREAK_MARK}{word}", 4) == [word, word]
    assert wrap_cells("a b  c", 3) == ["a b", "c"]
    assert wrap_cells("toolongword x", 4) == ["toolongword", "x"]


def test_translations_keep_their_marks_unless_told() -> None:
    use("th")
    marked = _(NO_RATING)
    assert BREAK_MARK in marked
    with break_marks(False):
        assert _(NO_RATING) == marked.replace(BREAK_MARK, "")
        with break_marks(True):
            assert _(NO_RATING) == marked
    assert _(NO_RATING) == marked


def test_an_app_the_command_line_runs_keeps_the_marks() -> None:
    from kc_tui.ui import launch

    kept: list[bool] = []

    class App:
        return_code = 0

        def get_driver_class(self) -> type:
            return object  # no terminal's: the test runs it without one

        def run(self, loop: object) -> None:
            kept.append(marks_kept())

    with break_marks(False):
        assert launch.run(App()) == 0
        assert not marks_kept()
    assert kept == [True]
