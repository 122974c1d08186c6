"""``kings-corners host`` in a C locale: a name typed on the command line or kept in the settings
is read as typed, and every line the host prints is written, the characters its output cannot
encode as escapes (``Zo\\xeb``), never dropped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.net.serverkit import host_process, join

#: A C locale as Python runs in it by default (its UTF-8 mode), and without that mode (an ASCII
#: locale: Python decodes the arguments as ASCII, keeping other bytes as surrogate escapes).
LOCALES = {
    "C": {"LC_ALL": "C", "LANG": "C"},
    "C-ascii": {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"},
}
SHOWN = {"C": "Zoë", "C-ascii": "Zo\\xeb"}


async def seat_named_in_output(env: dict[str, str], *seats: str, shown: str) -> None:
    """Host ``seats`` in ``env``: the person's join line shows their name as ``shown``, its
    address seats them as Zoë, and the host says so in a line of its own."""
    host = host_process("--seats", ",".join(seats), "--stand-in", "0", env=env)
    try:
        await host.urls()
        line = next((line for line in host.out if line.startswith(f"{shown}: ") and "/seat/" in line), None)
        assert line is not None, host.out
        url = line.rstrip("\n").rsplit(" ", 1)[1]
        client = await join(url)
        assert client.messages[0].name == "Zoë"  # type: ignore[union-attr]
        await client.close()
    finally:
        out, err = host.stop()
    assert f"{shown} connected" in out and "Traceback" not in out + err, out + err


@pytest.mark.parametrize("locale", list(LOCALES))
async def test_a_name_on_the_command_line_is_read_and_shown_in_a_c_locale(locale: str) -> None:
    await seat_named_in_output(LOCALES[locale], "human:Zoë", "greedy", shown=SHOWN[locale])


@pytest.mark.parametrize("locale", list(LOCALES))
async def test_the_settings_name_keeps_its_join_line_in_a_c_locale(locale: str, isolated_dirs: Path) -> None:
    settings = isolated_dirs / "config" / "settings.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('player_name = "Zoë"\n', encoding="utf-8")
    await seat_named_in_output(LOCALES[locale], "human", "greedy", shown=SHOWN[locale])


@pytest.mark.parametrize("locale", list(LOCALES))
def test_a_name_that_is_not_utf8_is_one_line_and_exit_2(locale: str) -> None:
    seats = os.fsdecode(b"human:Zo\xeb,greedy")  # a Latin-1 byte: no UTF-8 text
    done = subprocess.run(
        [sys.executable, "-m", "kc_tui", "host", "--port", "0", "--seats", seats],
        capture_output=True,
        text=True,
        env=os.environ | LOCALES[locale],
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "kings-corners: the name 'Zo\\xeb' is not UTF-8 text: type it in a UTF-8 terminal\n"
