"""Which language is spoken: ``--lang`` beats the setting, which beats the environment (read in
gettext's order), which beats English; a terminal that cannot show the language gets English."""

from __future__ import annotations

import pytest

from kc_tui import i18n
from kc_tui.config import Config, ConfigError
from kc_tui.config.store import config_path, load_config, save_config, saved_language
from kc_tui.i18n import LANGUAGES, SOURCE
from kc_tui.i18n.choice import can_write, choose, code_of, from_environment, start


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("th_TH.UTF-8", "th"),
        ("it_IT.utf8", "it"),
        ("vi_VN", "vi"),
        ("sw_KE.UTF-8@euro", "sw"),
        ("vi-VN", "vi"),
        ("IT", "it"),
        ("en_GB.UTF-8", "en"),
        ("C", "en"),
        ("POSIX", "en"),
        ("C.UTF-8", "en"),
        ("de_DE.UTF-8", None),
        ("", None),
    ],
)
def test_a_locale_name_gives_its_language(name: str, code: str | None) -> None:
    assert code_of(name) == code


def test_the_environment_is_read_in_gettexts_order() -> None:
    assert from_environment({"LANGUAGE": "vi", "LC_ALL": "it_IT.UTF-8", "LC_MESSAGES": "sw", "LANG": "th"}) == "vi"
    assert from_environment({"LC_ALL": "it_IT.UTF-8", "LC_MESSAGES": "sw_TZ", "LANG": "th_TH"}) == "it"
    assert from_environment({"LC_MESSAGES": "sw_TZ.UTF-8", "LANG": "th_TH.UTF-8"}) == "sw"
    assert from_environment({"LANG": "th_TH.UTF-8"}) == "th"
    assert from_environment({"LANGUAGE": "", "LANG": "th_TH.UTF-8"}) == "th"  # an empty variable is not set
    assert from_environment({}) is None


def test_language_is_a_list_whose_first_known_language_wins() -> None:
    assert from_environment({"LANGUAGE": "de:fr_FR:it:vi", "LANG": "th_TH.UTF-8"}) == "it"
    assert from_environment({"LANGUAGE": "de::th"}) == "th"
    assert from_environment({"LANGUAGE": "C:th"}) == "en"


def test_a_language_the_game_does_not_speak_is_not_looked_for_further() -> None:
    # gettext reads the first variable set: LANG is not asked when LC_ALL names German.
    assert from_environment({"LC_ALL": "de_DE.UTF-8", "LANG": "th_TH.UTF-8"}) is None
    assert choose(environ={"LC_ALL": "de_DE.UTF-8", "LANG": "th_TH.UTF-8"}) == SOURCE


def test_the_flag_beats_the_setting_beats_the_environment_beats_english() -> None:
    env = {"LANG": "th_TH.UTF-8"}
    assert choose("it", "vi", env) == "it"
    assert choose(None, "vi", env) == "vi"
    assert choose(None, "", env) == "th"
    assert choose(None, None, {}) == "en"
    assert choose("xx", "yy", env) == "th"  # unknown codes are passed over


def test_start_speaks_the_chosen_language() -> None:
    assert start("it", encodings=["utf-8"]) == ("it", None)
    assert i18n.current() == "it"
    assert start("en", encodings=["utf-8"]) == ("en", None)
    assert i18n.current() == "en"


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != SOURCE])
def test_every_language_can_be_written_in_utf8(code: str) -> None:
    assert can_write(code, ["utf-8", "UTF-8", None])


def test_what_each_encoding_can_show() -> None:
    assert not can_write("th", ["ascii"]) and not can_write("th", ["latin-1"])
    assert not can_write("vi", ["latin-1"]) and not can_write("it", ["ascii"])
    assert can_write("it", ["latin-1"]) and can_write("sw", ["ascii"]) and can_write("en", ["ascii"])
    assert can_write("th", ["cp874"])  # Thai's own code page
    assert not can_write("th", ["utf-8", "ascii"])  # every stream must show it


def test_a_terminal_that_cannot_show_the_language_gets_english_and_a_line_in_english() -> None:
    code, note = start("th", encodings=["utf-8", "ascii"])
    assert code == "en" and i18n.current() == "en"
    assert note is not None
    note.encode("ascii")
    assert "ascii" in note and "Thai" in note and "English" in note
    assert start("sw", encodings=["ascii"]) == ("sw", None)  # Kiswahili's letters are ASCII


def test_the_setting_is_saved_and_read_back(isolated_dirs: object) -> None:
    assert saved_language() == ""  # no settings file
    save_config(Config(language="vi"))
    assert saved_language() == "vi"
    assert load_config()[0].language == "vi"
    save_config(Config())
    assert saved_language() == ""
    assert "language" not in config_path().read_text(encoding="utf-8")  # not chosen: not written


def test_a_bad_settings_file_gives_no_language_and_is_left_for_load_config() -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"language = [\n")
    assert saved_language() == ""
    assert path.exists()  # not moved aside: load_config says what is wrong with it
    path.write_text("language = 3\n", encoding="utf-8")
    assert saved_language() == ""


def test_an_unknown_language_is_refused_by_the_settings() -> None:
    with pytest.raises(ConfigError, match="unknown language 'de'"):
        Config(language="de").validate()
    with pytest.raises(ConfigError, match="unknown language"):
        Config.from_dict({"language": 3})
    assert Config.from_dict({"language": "th"}).language == "th"


@pytest.mark.parametrize(
    "value",
    [
        '"[bold]x[/]"',
        '"../../etc/passwd"',
        '"th\\u0000"',
        '"TH"',
        '["it"]',
        "{ code = 'it' }",
        "1e999",
        '"' + "x" * 5000 + '"',
    ],
)
def test_a_hostile_saved_language_is_no_choice(value: str) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"language = {value}\n", encoding="utf-8")
    assert choose(None, saved_language()) == SOURCE


@pytest.mark.parametrize(
    "environ",
    [
        {"LANGUAGE": "[red]x[/]"},
        {"LANG": "../../th"},
        {"LANGUAGE": ":::::"},
        {"LC_ALL": "\x1b[2Jth"},
        {"LANG": "x" * 10_000},
    ],
)
def test_a_hostile_environment_is_english(environ: dict[str, str]) -> None:
    assert from_environment(environ) is None
    assert choose(None, None, environ) == SOURCE
