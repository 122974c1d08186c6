"""Real PostgreSQL and Redis servers for the tests, each on a private port in a private folder.

PostgreSQL is Debian's (``/usr/lib/postgresql/*/bin``): its ``initdb`` refuses to run as root,
so as root the server is made and run as the ``postgres`` user. Redis is Debian's
``redis-server``, with no persistence (``--save '' --appendonly no``). ``.ci/run`` starts one of
each for the whole run and names them in ``KC_TEST_POSTGRES`` and ``KC_TEST_REDIS``; a test that
stops, kills or restarts a server starts its own with these classes.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
from pathlib import Path

from tests.waiting import wait_for

#: Seconds a server is given to start or stop (a loaded machine is slow, not broken).
SERVER_WAIT = 60


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pg_bin() -> Path | None:
    """The folder of Debian's PostgreSQL programs (the newest), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def redis_bin() -> str | None:
    return shutil.which("redis-server")


def _as_postgres(argv: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *argv]
    return argv


class PgServer:
    """A PostgreSQL server of its own: :meth:`start` (made at the first), :meth:`stop`, :meth:`kill`."""

    def __init__(self, port: int | None = None) -> None:
        bin_dir = pg_bin()
        if bin_dir is None:
            raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
        self.bin = bin_dir
        self.port = port or free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="kc-pg-"))
        self.data = self.folder / "data"
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        self.made = False

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *argv: str) -> None:
        subprocess.run(
            _as_postgres([str(self.bin / argv[0]), *argv[1:]]),
            check=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=SERVER_WAIT,
        )

    def start(self) -> None:
        if not self.made:
            self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
            self.made = True
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "start")

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def kill(self) -> None:
        """The postmaster killed (``kill -9``): its children end as they find it gone."""
        pid_file = self.data / "postmaster.pid"
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pid_file.read_text().split()[0]), signal.SIGKILL)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


class RedisServer:
    """A Redis server of its own, with no persistence: :meth:`start`, :meth:`stop` (killed)."""

    def __init__(self, port: int | None = None) -> None:
        program = redis_bin()
        if program is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.program = program
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        argv = [self.program, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_for(self._answers, timeout=SERVER_WAIT, what="redis-server to answer")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(SERVER_WAIT)
            self.process = None
