"""One host to a data folder: while ``kings-corners host`` serves a table, a second ``host`` on
the same folder (``--replace`` or ``--resume``, a real second process) is refused in one line
naming the first one's process id, and the first table's files stay as they are, so it can be
served again once it is closed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kc_tui.net.host_files import hosted_save_path, seat_file_path
from kc_tui.util.printable import one_line
from tests.net.serverkit import WAIT, host_process
from tests.waiting import wait_until

#: Two people and no AI: nothing moves at the table until someone joins, so its save stays as it is.
SEATS = ["--seats", "human:Ana,human:Ben", "--stand-in", "0"]


def host_once(*args: str) -> subprocess.CompletedProcess[str]:
    """``kings-corners host ARGS --port 0`` to its end (a refused one ends at once)."""
    return subprocess.run(
        [sys.executable, "-m", "kc_tui", "host", *args, "--port", "0"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=WAIT * 2,
    )


def table_files() -> dict[str, bytes]:
    """The hosted table's files in the data folder (its save, its seats' file, any kept aside),
    by name, with their bytes."""
    save = hosted_save_path()
    names = (save.name, seat_file_path(save).name)
    return {p.name: p.read_bytes() for p in sorted(save.parent.iterdir()) if p.name.startswith(names)}


async def test_a_second_host_on_a_served_tables_folder_is_refused_and_the_table_kept(isolated_dirs: Path) -> None:
    first = host_process(*SEATS)
    try:
        await first.urls()
        save = hosted_save_path()
        assert save.exists() and seat_file_path(save).exists()
        before = table_files()
        assert set(before) == {save.name, seat_file_path(save).name}
        for args in ((*SEATS, "--replace"), ("--resume",)):
            second = host_once(*args)
            assert second.returncode == 2, second.stderr
            lines = second.stderr.strip().splitlines()
            assert len(lines) == 1, second.stderr
            assert f"process {first.pid}" in lines[0] and f"kill {first.pid}" in lines[0], lines[0]
            assert one_line(str(save.parent)) in lines[0]
            assert second.stdout == ""
            assert table_files() == before, args
        assert first.proc.poll() is None  # the first table is still served
    finally:
        out, _err = first.stop()
    assert "'host --resume' serves it again" in out
    again = host_process("--resume")
    try:
        urls = await again.urls()
        assert {"Ana", "Ben", "Watch"} <= set(urls)
    finally:
        again.stop()


async def test_a_host_killed_without_a_word_leaves_its_folder_to_the_next(isolated_dirs: Path) -> None:
    first = host_process(*SEATS)
    try:
        await first.urls()
    finally:
        first.proc.kill()
        first.proc.wait(WAIT)
    again = host_process("--resume")
    try:
        await wait_until(
            lambda: again.proc.poll() is not None or any("Watch: " in line for line in again.out),
            what="its join lines or its end",
        )
        assert again.proc.poll() is None, "".join(again.err)
    finally:
        again.stop()
