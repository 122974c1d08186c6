"""The languages end to end, in a real terminal (an 80x24 tmux pane, tests/tmuxkit.py): the game
started as a player starts it, in a home of its own, read from the screen as drawn.

``kings-corners --lang th play`` speaks Thai on its table and answers a key in Thai; the
Settings screen's Language, saved, is spoken the next time the game starts and ``--lang`` beats
it for a run; the environment's locale chooses when neither does; a terminal that cannot show
Thai gets English and one English line. (The same choices made in-process, and a command's
output, are in test_choice.py and test_command_line.py.)"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from kc_tui import i18n
from kc_tui.config.store import default_config_path
from kc_tui.i18n.choice import unshowable_note
from tests.tmuxkit import (
    in_language,
    in_tmux,
    lines_matching,
    needs_tmux,
    no_traceback,
    on_one_line,
    quit_cleanly,
    terminal_env,
)

pytestmark = needs_tmux

UTF8 = {"LANG": "C.UTF-8"}
#: A terminal whose encoding is ASCII: LC_ALL=C, Python told not to make its streams UTF-8 anyway.
C_LOCALE = {"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_a_thai_match_in_a_real_terminal(tmp_path: Path, home: Path) -> None:
    th = in_language("th")
    args = ["--lang", "th", "play", "--seed", "3", "--opponents", "greedy"]
    with in_tmux(args, terminal_env(home, **UTF8), tmp_path) as pane:
        footer = f"h {th('Hint')}"
        screen = pane.wait_for(lambda s: footer in s and th("your turn") in s)
        assert f"^q {th('Quit')}" in screen.splitlines()[-1]  # the footer: the last line
        assert "Hint" not in screen and "Quit" not in screen
        hand = lines_matching(r"┌1──┐┌2──┐", screen)
        assert len(hand) == 1 and f" {th('You')} " in hand[0], screen  # the player called You, in Thai
        faces = lines_matching(r"│(10|[2-9JQKA])[♠♡♢♣] *│", screen)
        assert re.findall(r"│(?:10|[2-9JQKA])[♠♡♢♣] *│", faces[-1]), screen  # the hand's cards, face up

        # h: a hint, in Thai ("Hint (press 3 to play it): ..."), the key that plays it in it.
        head = th("Hint ({keys}): ").partition("{keys}")[0]
        before, _, after = th("press {key} to play it").partition("{key}")
        said = re.compile(re.escape(head + before) + r"\S+" + re.escape(after))
        pane.keys("h")
        screen = pane.wait_for(said.search)
        assert "Hint (" not in screen

        # Ctrl+Q asks first (the match is saved), y quits.
        pane.keys("C-q")
        pane.wait_for(th("Quit Kings Corners?"))
        pane.keys("y")
        assert pane.ended() == 0
        no_traceback(pane.screen(history=True))


def test_the_language_chosen_in_settings_is_spoken_the_next_time(tmp_path: Path, home: Path) -> None:
    it = in_language("it")
    env = terminal_env(home, **UTF8)
    settings = Path(env["XDG_CONFIG_HOME"]) / default_config_path().relative_to(default_config_path().parents[1])
    assert not settings.exists()
    with in_tmux([], env, tmp_path) as pane:
        pane.wait_for("Settings  (s)")
        pane.keys("s")
        pane.wait_for("Your name")
        # From the first field (the player's name) back past Defaults, Cancel, Save and the server: Language,
        # scrolled into view.
        pane.keys("BTab", "BTab", "BTab", "BTab", "BTab")
        pane.wait_for(lambda s: on_one_line(s, "Language", "the system's language"))
        pane.keys("Enter")
        pane.wait_for(lambda s: "Kiswahili" in s and "Italiano" in s)  # the list is open
        choices = ["the system's language", *i18n.LANGUAGES.values()]
        pane.keys(*["Down"] * choices.index("Italiano"), "Enter")
        pane.wait_for(lambda s: "Kiswahili" not in s and on_one_line(s, "Language", "Italiano"))  # chosen, closed
        pane.keys("C-s")
        pane.wait_for("New game  (n)")  # saved, back on the menu: still English until the next start
        no_traceback(quit_cleanly(pane))
    assert tomllib.loads(settings.read_text(encoding="utf-8"))["language"] == "it"

    with in_tmux([], env, tmp_path) as pane:
        screen = pane.wait_for(it("New game  (n)"))
        assert it("Settings  (s)") in screen and "New game" not in screen
        no_traceback(quit_cleanly(pane))

    with in_tmux(["--lang", "en"], env, tmp_path) as pane:  # the flag beats the setting for one run
        screen = pane.wait_for("New game  (n)")
        assert it("New game  (n)") not in screen
        quit_cleanly(pane)
    assert tomllib.loads(settings.read_text(encoding="utf-8"))["language"] == "it"  # the flag saved nothing


def test_the_environments_language_with_no_setting(tmp_path: Path, home: Path) -> None:
    vi = in_language("vi")
    with in_tmux([], terminal_env(home, LANG="vi_VN.UTF-8"), tmp_path) as pane:
        screen = pane.wait_for(vi("New game  (n)"))
        assert vi("Statistics  (t)") in screen and "New game" not in screen
        no_traceback(quit_cleanly(pane))


def test_a_terminal_that_cannot_show_thai_runs_in_english_and_says_so_once(tmp_path: Path, home: Path) -> None:
    th = in_language("th")
    with in_tmux(["--lang", "th"], terminal_env(home, **C_LOCALE), tmp_path) as pane:
        screen = pane.wait_for("New game  (n)")
        assert th("New game  (n)") not in screen
        after = quit_cleanly(pane)
    said = [line for line in after.splitlines() if "cannot show" in line]
    assert said == [unshowable_note("th", "ascii")], after  # "The terminal's encoding (ascii) cannot show Thai..."
    no_traceback(after)
