"""``kings-corners --lang CODE`` end to end: the language is set up before the parser's texts are
built; the saved setting and the environment choose when there is no flag; a terminal that cannot
show the language's letters gets English and one English line saying so."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kc_tui import i18n
from kc_tui.cli import speak
from kc_tui.config import Config
from kc_tui.config.store import save_config

from .catalogkit import ROOT, write_catalog

POSITION = str(ROOT / "examples" / "position.json")
#: What LC_ALL=C gives Python when it is told not to make its streams UTF-8 all the same.
C_LOCALE = {"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}
LANG_HELP = "the language to speak: {codes} (default: the setting, else the environment's)"


def run(*args: str, code: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m kc_tui ARGS`` (or the Python ``code`` given ARGS) in the test's environment with ``env``."""
    full = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "LANGUAGE")} | env
    argv = [sys.executable, "-m", "kc_tui", *args] if code is None else [sys.executable, "-c", code, *args]
    return subprocess.run(
        argv, env=full, capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=60
    )


def test_the_parsers_texts_are_in_the_language_of_the_flag(tmp_path: Path) -> None:
    italian = "la lingua da parlare: {codes} (predefinita: l'impostazione, altrimenti quella dell'ambiente)"
    write_catalog(tmp_path / "locale", "it", {LANG_HELP: italian})
    code = (
        "import sys; from pathlib import Path; import kc_tui.i18n as i18n; "
        f"i18n.LOCALE_DIR = Path({str(tmp_path / 'locale')!r}); "
        "from kc_tui.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    out = run("--lang", "it", "--help", code=code, COLUMNS="400")
    assert out.returncode == 0, out.stderr
    assert "la lingua da parlare: en, sw, th, vi, it" in out.stdout
    english = run("--lang", "en", "--help", code=code, COLUMNS="400")
    assert "the language to speak: en, sw, th, vi, it" in english.stdout


def test_an_unknown_language_is_a_usage_error() -> None:
    out = run("--lang", "xx", "check", POSITION)
    assert out.returncode == 2
    assert "argument --lang: invalid choice: 'xx'" in out.stderr


def test_a_command_runs_the_same_in_any_language() -> None:
    english = run("check", POSITION)
    assert english.returncode == 0, english.stderr
    for code in ("sw", "th", "vi", "it"):
        out = run("--lang", code, "check", POSITION)
        assert (out.returncode, out.stderr) == (0, ""), code
    assert run("--lang=th", "check", POSITION, LANG="C.UTF-8").stderr == ""


def test_a_non_utf8_terminal_gets_english_and_one_english_line() -> None:
    english = run("check", POSITION, **C_LOCALE)
    for args, env in ((("--lang", "th"), {}), ((), {"LANGUAGE": "vi"}), ((), {"LANGUAGE": "it"})):
        out = run(*args, "check", POSITION, **C_LOCALE, **env)
        assert out.returncode == 0, out.stderr
        lines = out.stderr.splitlines()
        assert len(lines) == 1 and "cannot show" in lines[0] and "using English" in lines[0], out.stderr
        lines[0].encode("ascii")
        assert out.stdout == english.stdout
    kiswahili = run("--lang", "sw", "check", POSITION, **C_LOCALE)
    assert kiswahili.stderr == ""  # its letters are ASCII


def test_the_setting_chooses_when_there_is_no_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGUAGE", "th")
    assert speak([]) == "th"
    save_config(Config(language="it"))
    assert speak([]) == "it" and i18n.current() == "it"
    assert speak(["--lang", "vi", "check", POSITION]) == "vi"
    assert speak(["--lang=sw"]) == "sw"
    other = tmp_path / "other.toml"
    save_config(Config(language="vi"), other)
    assert speak(["--config", str(other)]) == "vi"
    assert speak(["play", "--config", str(other)]) == "vi"
    assert speak(["--", "--lang", "sw"]) == "it"  # after "--": not an option


def test_the_choice_is_passed_to_the_apps_started_from_this_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """``kings-corners --lang it serve``: every browser tab's app (started with this environment) speaks Italian."""
    monkeypatch.setenv("LANGUAGE", "th")
    assert speak(["--lang", "it", "serve"]) == "it"
    assert os.environ["LANGUAGE"] == "it"
    tab = run("check", POSITION, code=None, LANGUAGE=os.environ["LANGUAGE"], **C_LOCALE)
    assert "Italian" in tab.stderr  # the tab's app chose Italian (and its ASCII streams cannot show it)
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "th_TH.UTF-8")
    assert speak([]) == "th" and "LANGUAGE" not in os.environ  # the environment's own choice: left as it is


def test_the_setting_counts_in_a_subprocess_too(tmp_path: Path) -> None:
    settings = tmp_path / "s.toml"
    save_config(Config(language="th"), settings)
    out = run("--config", str(settings), "check", POSITION, **C_LOCALE)
    assert "Thai" in out.stderr and out.returncode == 0
