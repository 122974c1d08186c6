"""HandleReserve: file handles kept for a write that must not fail for want of one."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def test_a_write_at_the_file_limit_succeeds_with_the_reserve_and_fails_without(tmp_path: os.PathLike[str]) -> None:
    """A process whose every file handle is taken cannot write a file; with a reserve taken
    before, the write made inside ``released()`` succeeds, and the handles are held again after."""
    script = textwrap.dedent(
        f"""
        import os, resource
        from pathlib import Path
        from kc_tui.util.files import FileError, HandleReserve, atomic_write
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
        reserve = HandleReserve(3)
        taken = []
        while True:
            try:
                taken.append(os.open(os.devnull, os.O_RDONLY))
            except OSError:
                break
        folder = Path({str(tmp_path)!r})
        try:
            atomic_write(folder / "without", b"x")
            print("without: written")
        except FileError:
            print("without: refused")
        with reserve.released():
            atomic_write(folder / "with", b"x")
        print("with: written", reserve.held)
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["without: refused", "with: written 3"], out
