"""A language's catalog that is there but cannot be read (an empty ``.mo``, one cut short, one
that is not a catalog) gives English and one English line naming the file, on stderr and in the
log; the command runs as it does in English. A missing catalog is English without a word."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kc_tui import i18n
from kc_tui.config.logs import LOG_NAME

from .catalogkit import write_catalog
from .test_command_line import LANG_HELP, POSITION, run

#: What the damaged catalogs hold, each made from a whole one (its bytes given).
DAMAGES: dict[str, Callable[[bytes], bytes]] = {
    "empty": lambda whole: b"",
    "cut in its header": lambda whole: whole[:10],
    "cut in its table": lambda whole: whole[: len(whole) // 2],
    "not a catalog": lambda whole: b"this is not a catalog at all, just some text\n" * 4,
}
ITALIAN = "la lingua da parlare"


def damaged_catalog(locale_dir: Path, damage: str) -> Path:
    """An Italian catalog under ``locale_dir`` made unreadable by ``damage``; its path."""
    path = write_catalog(locale_dir, "it", {LANG_HELP: ITALIAN})
    path.write_bytes(DAMAGES[damage](path.read_bytes()))
    return path


@pytest.fixture
def locale_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "locale"
    monkeypatch.setattr(i18n, "LOCALE_DIR", folder)
    yield folder
    i18n.use(i18n.SOURCE)


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_catalog_gives_english_and_a_line_naming_it(damage: str, locale_dir: Path) -> None:
    path = damaged_catalog(locale_dir, damage)
    assert i18n.use("it") == "en"
    assert i18n.current() == "en"
    assert i18n._(LANG_HELP) == LANG_HELP
    assert i18n.number(1234.5, 1) == "1,234.5"
    note = i18n.problem()
    assert note is not None and str(path) in note and "Italian" in note and "using English" in note
    assert len(note.splitlines()) == 1
    assert i18n.use("en") == "en" and i18n.problem() is None


def test_a_whole_catalog_is_spoken_and_a_missing_one_is_english_without_a_word(locale_dir: Path) -> None:
    write_catalog(locale_dir, "it", {LANG_HELP: ITALIAN})
    assert i18n.use("it") == "it" and i18n._(LANG_HELP) == ITALIAN and i18n.problem() is None
    assert i18n.use("vi") == "vi" and i18n._(LANG_HELP) == LANG_HELP and i18n.problem() is None


@pytest.mark.parametrize("damage", ["empty", "cut in its table"])
def test_the_command_runs_in_english_with_one_line_naming_the_damaged_file(damage: str, tmp_path: Path) -> None:
    path = damaged_catalog(tmp_path / "locale", damage)
    code = (
        "import sys; from pathlib import Path; import kc_tui.i18n as i18n; "
        f"i18n.LOCALE_DIR = Path({str(tmp_path / 'locale')!r}); "
        "from kc_tui.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    data = tmp_path / "data"
    env = {"KINGS_CORNERS_DATA": str(data), "KINGS_CORNERS_CONFIG": str(tmp_path / "settings.toml")}
    english = run("check", POSITION, code=code, **env)
    assert english.returncode == 0, english.stderr
    out = run("--lang", "it", "check", POSITION, code=code, **env)
    assert out.returncode == 0, out.stderr
    assert out.stdout == english.stdout
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "using English" in lines[0], out.stderr
    assert "Traceback" not in out.stderr
    log = data / LOG_NAME
    assert log.exists() and str(path) in log.read_text(encoding="utf-8")
    helped = run("--lang", "it", "--help", code=code, COLUMNS="400", **env)
    assert helped.returncode == 0 and "the language to speak: en, sw, th, vi, it" in helped.stdout


def test_the_catalogs_shipped_are_whole() -> None:
    for code in i18n.LANGUAGES:
        i18n.use(code)
        assert (i18n.current(), i18n.problem()) == (code, None)
    i18n.use(i18n.SOURCE)
