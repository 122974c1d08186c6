"""A real ``kings-corners serve`` for the tests: a process of its own on a free loopback port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from kc_tui.web.folders import PREFIX


@dataclass
class Served:
    """A running ``kings-corners serve``: its page's address, its port and root, its process and
    every line it wrote (standard output and error together)."""

    url: str
    port: int
    root: Path
    process: subprocess.Popen[str]
    lines: list[str]


def tab_folders(root: Path) -> set[Path]:
    """The tabs' folders under serve's root."""
    return {p for p in root.iterdir() if p.name.startswith(PREFIX)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def serving(tmp_path: Path, *options: str) -> Iterator[Served]:
    """``kings-corners serve`` in a process of its own on a free port, its root under
    ``tmp_path``, once it says it is serving; stopped by SIGTERM at the end."""
    root = tmp_path / "root"
    port = free_port()
    env = {**os.environ, "KINGS_CORNERS_DATA": str(tmp_path / "serve-data")}
    command = [sys.executable, "-m", "kc_tui", "serve", "--port", str(port), "--root", str(root), *options]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True
    )
    assert process.stdout is not None
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("Serving"):
                ready.set()
        ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert ready.wait(20), "serve said nothing in 20 s"
    assert process.poll() is None, f"serve ended: {lines}"
    try:
        yield Served(f"http://127.0.0.1:{port}/", port, root, process, lines)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
        reader.join(5)
