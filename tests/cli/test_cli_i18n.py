"""The command line's texts come from the game's catalog when the parser is built: its help,
its metavars that are words, and argparse's own texts (``usage:``, ``options``, its errors)."""

from __future__ import annotations

import gettext

import pytest

import kc_tui.i18n as i18n
from kc_tui.cli import build_parser
from kc_tui.cli.common import UsageError


class Marked(gettext.NullTranslations):
    """A catalog that puts every text it is asked for in angle brackets."""

    def gettext(self, message: str) -> str:
        return f"<{message}>"

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return f"<{msgid1 if n == 1 else msgid2}>"


@pytest.fixture
def marked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(i18n, "_current", Marked())


@pytest.mark.usefixtures("marked")
def test_the_help_is_in_the_language_in_use_when_the_parser_is_built(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("<usage: >kings-corners [-h] [--config <FILE>]")
    assert "<positional arguments>:" in out
    assert "<options>:" in out
    assert "<show this help message and exit>" in out
    assert "<watch AI players play each other>" in out


@pytest.mark.usefixtures("marked")
def test_argparse_s_errors_are_in_the_language_in_use() -> None:
    with pytest.raises(UsageError) as caught:
        build_parser().parse_args(["--no-such-option"])
    assert str(caught.value) == "<<unrecognized arguments: --no-such-option> (see 'kings-corners --help')>"


def test_in_english_the_help_is_argparse_s_own_words(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["check", "--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: kings-corners check [-h] file\n")
    assert "\npositional arguments:\n  file\n" in out
    assert "\noptions:\n  -h, --help  show this help message and exit\n" in out


@pytest.mark.parametrize("command", ["stats", "play"])
def test_the_usages_later_lines_stand_under_its_first_in_cells(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """Thai's "usage: " (วิธีใช้: ) has vowels and tone marks that take no cell: the usage's
    later lines start under the first option, counted in cells, not in characters."""
    from kc_tui.util.printable import cells

    i18n.use("th")
    parser = build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args([command, "--help"])
    lines = capsys.readouterr().out.splitlines()
    head = f"{i18n._('usage: ')}kings-corners {command} "
    assert lines[0].startswith(head) and cells(head) < len(head)
    assert lines[1].strip() and len(lines[1]) - len(lines[1].lstrip()) == cells(head), lines[:2]
