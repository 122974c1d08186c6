"""``kings-corners host`` as a real process: killed with SIGKILL and served again with
``--resume`` (same position, same tokens, the clients reconnect), SIGTERM, the warning off
loopback, and every bad argument as one line with exit code 2."""

from __future__ import annotations

import asyncio
import shutil
import signal
import ssl
import stat
import subprocess
from pathlib import Path

import pytest

from kc_tui.cli import main
from kc_tui.net import schema as p
from kc_tui.net.host_files import HOSTED_SAVE, SEAT_FILE
from kc_tui.net.protocol import parse_server, write
from tests.net.serverkit import join, join_lines, newer, read_line, settled_turn, start_host, stop

SEATS = ["--seats", "human:Ana,human:Ben,greedy", "--rules", "hand_size=4", "--target", "5", "--seed", "3"]


async def test_a_killed_host_resumes_the_same_position_with_the_same_tokens(isolated_dirs: Path) -> None:
    host = start_host(*SEATS, "--port", "0", "--stand-in", "0")
    try:
        urls = await join_lines(host)
        ana, ben = await join(urls["Ana"]), await join(urls["Ben"])
        moved = 0
        while moved < 3:
            mover = await settled_turn(ana, ben)
            plays = [m for m in mover.state.legal if m != "end"]
            await mover.move(plays[0] if plays else "end")
            await newer(mover)
            moved += 1
        mover = await settled_turn(ana, ben)
        seen = {c.state.seat: c.state for c in (ana, ben)}
        host.send_signal(signal.SIGKILL)
        host.wait(10)
        for c in (ana, ben):
            assert c.reader is not None
            await asyncio.wait_for(c.reader, 10)
    finally:
        stop(host)
    seat_file = isolated_dirs / "data" / SEAT_FILE
    assert (isolated_dirs / "data" / HOSTED_SAVE).is_file()
    assert stat.S_IMODE(seat_file.stat().st_mode) == 0o600

    again = start_host("--resume", "--stand-in", "0")
    try:
        assert await join_lines(again) == urls
        ana, ben = await join(urls["Ana"]), await join(urls["Ben"])
        for c in (ana, ben):
            old, new = seen[c.state.seat], c.state
            assert (new.round, new.piles, new.hand, new.stock, new.legal, new.log) == (
                old.round,
                old.piles,
                old.hand,
                old.stock,
                old.legal,
                old.log,
            )
            assert new.stamp > old.stamp
        mover = await settled_turn(ana, ben)
        before = mover.state.stamp
        await mover.move(mover.state.legal[0])
        await mover.expect(p.StateMsg, where=lambda m: m.stamp > before)
        for c in (ana, ben):
            assert c.leaks == []
            await c.close()
        assert again.stdin is not None
        again.stdin.write("ai Nobody\nquit\n")
        again.stdin.flush()
        out, err = again.communicate(timeout=20)
        assert again.returncode == 0, err
        assert "no seat is named 'Nobody'" in out and "The table is closed." in out
        assert "Traceback" not in out + err
        assert all(token.split("/seat/")[1] not in out for name, token in urls.items() if name != "Watch")
    finally:
        stop(again)


async def test_off_loopback_the_host_warns_and_sigterm_stops_it_cleanly() -> None:
    host = start_host("--seats", "human:Ana,greedy", "--bind", "0.0.0.0", "--port", "0")
    try:
        warning = await read_line(host, "stderr")
        assert warning.startswith("warning: listening on 0.0.0.0: anyone who can reach this address can join")
        assert "SSH tunnel" in warning and "--cert/--key" in warning
        await join_lines(host)
        host.send_signal(signal.SIGTERM)
        out, err = host.communicate(timeout=20)
        assert host.returncode == 0
        assert "The table is closed." in out and err == ""
    finally:
        stop(host)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ([], "host needs --seats"),
        (["--seats", "human:Ana,blob"], "unknown AI kind 'blob'"),
        (["--seats", "human:Ana"], "choose 2 to 4 seats"),
        (["--seats", "greedy,expert"], "needs a human seat"),
        (["--seats", "human:Ana,greedy", "--port", "70000"], "--port must be a whole number from 0 to 65535"),
        (["--seats", "human:Ana,greedy", "--port", "-1"], "--port must be a whole number"),
        (["--seats", "human:Ana,greedy", "--stand-in", "nan"], "--stand-in must be a number of seconds"),
        (["--seats", "human:Ana,greedy", "--turn-seconds", "-1"], "--turn-seconds must be a number of seconds"),
        (["--seats", "human:Ana,greedy", "--turn-seconds", "3601"], "from 0 (no clock) to 3600, not '3601'"),
        (["--seats", "human:Ana,greedy", "--target", "1"], "target must be a whole number from 5"),
        (["--seats", "human:Ana,greedy", "--rules", "draw=sometimes"], "--rules:"),
        (["--seats", "human:Ana,greedy", "--rules", "colour=blue"], "--rules:"),
        (["--seats", "human:Ana,greedy", "--cert", "c.pem"], "--cert and --key go together"),
        (["--seats", "human:Ana,greedy", "--cert", "c.pem", "--key", "k.pem"], "cannot use --cert/--key"),
        (["--seats", "human:Ana,greedy", "--bind", "a b"], "--bind must be an address"),
        (["--seats", "human:Ana,greedy", "--seed", "x"], "the seed must be a whole number"),
        (["--resume", "--seats", "human:Ana,greedy"], "--resume serves the saved table as it was: drop --seats"),
        (["--resume"], "the hosted table's seat file"),
        (["--nope"], "unrecognized arguments"),
    ],
)
def test_a_bad_host_argument_is_one_line_and_exit_2(
    args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["host", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("kings-corners: ") and says in err, err


@pytest.mark.skipif(shutil.which("openssl") is None, reason="makes its certificate with openssl")
async def test_with_a_certificate_the_table_is_served_over_tls(tmp_path: Path) -> None:
    from websockets.asyncio.client import connect

    from kc_tui.net.host_options import tls_context
    from kc_tui.net.hosting import base_url
    from tests.net.serverkit import running

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    make = "req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=127.0.0.1"
    subprocess.run(
        ["openssl", *make.split(), "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    context = tls_context(str(cert), str(key))
    async with running(ssl=context) as (server, _):
        assert server.port is not None
        url = base_url("127.0.0.1", server.port, True)
        assert url.startswith("wss://")
        trust = ssl.create_default_context(cafile=str(cert))
        async with connect(url + "/watch", ssl=trust) as ws:
            await ws.send(write(p.Hello("tls test")))
            assert isinstance(parse_server(await ws.recv()), p.WelcomeMsg)
        with pytest.raises(ssl.SSLCertVerificationError):
            await connect(url + "/watch", ssl=ssl.create_default_context())


def test_a_port_in_use_is_one_line_and_an_earlier_hosted_save_stays(
    isolated_dirs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    earlier = isolated_dirs / "data" / HOSTED_SAVE
    earlier.parent.mkdir(parents=True, exist_ok=True)
    earlier.write_text("the earlier table", encoding="utf-8")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["host", "--seats", "human:Ana,greedy", "--port", str(port), "--replace"]) == 2
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and f"cannot listen on 127.0.0.1:{port}" in err
    assert earlier.read_text(encoding="utf-8") == "the earlier table"
    assert not (isolated_dirs / "data" / SEAT_FILE).exists()
