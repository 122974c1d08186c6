"""The package as it is shipped: its version on the command line, ``python -m kc_tui``, and a wheel
built for real that holds the licence and the data files the app reads."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import kc_tui
import kc_tui.__main__
from kc_tui import cli

ROOT = Path(__file__).resolve().parent.parent
DIST = "kings-corners"
#: The package data the app reads at run time (pyproject.toml's package-data).
DATA_PATTERNS = ("*.md", "*.json", "*.tcss", "*.pot", "*.po", "*.mo", "*.html")
#: What a wheel build must not leave in the tree it is built from.
BUILD_LEFTOVERS = ("build", "dist", "*.egg-info")


def _run(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False, cwd=cwd)


# ------------------------------------------------------------------ the version


def test_the_installed_version_is_the_packages_own() -> None:
    assert importlib.metadata.version(DIST) == kc_tui.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", kc_tui.__version__)


def test_version_flag_prints_the_name_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.build_parser().parse_args(["--version"])
    assert exit_info.value.code == 0
    out, err = capsys.readouterr()
    assert out == f"kings-corners {importlib.metadata.version(DIST)}\n"
    assert err == ""


def test_the_version_falls_back_to_the_package_when_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def not_installed(name: str) -> str:
        asked.append(name)
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    monkeypatch.setattr(kc_tui, "__version__", "9.8.7")
    assert cli.version() == "9.8.7"
    assert asked == [DIST]


def test_python_dash_m_kc_tui_prints_the_version() -> None:
    proc = _run(sys.executable, "-m", "kc_tui", "--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"kings-corners {importlib.metadata.version(DIST)}\n"
    assert proc.stderr == ""


def test_python_dash_m_kc_tui_is_the_console_scripts_entry_point() -> None:
    (script,) = [e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == DIST]
    assert script.value == "kc_tui.cli:main"
    assert vars(kc_tui.__main__)["main"] is script.load() is cli.main
    # The same command, its errors too: one line on stderr, exit 2.
    proc = _run(sys.executable, "-m", "kc_tui", "check")
    assert proc.returncode == 2
    assert proc.stdout == "" and proc.stderr.startswith("kings-corners: ") and proc.stderr.count("\n") == 1


def test_the_console_script_prints_the_version() -> None:
    script = Path(sys.executable).with_name(DIST)
    if not script.exists():
        pytest.skip("the kings-corners console script is not installed next to this Python")
    proc = _run(str(script), "--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"kings-corners {importlib.metadata.version(DIST)}\n"


# ------------------------------------------------------------------ the licence


def test_the_repository_has_the_mit_licence() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 Kings Corners contributors" in text
    assert "Permission is hereby granted, free of charge" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS"' in text
    with (ROOT / "pyproject.toml").open("rb") as f:
        project = tomllib.load(f)["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]


# ------------------------------------------------------------------ the wheel


def _source_files() -> list[str]:
    """The files of the source tree a build reads: git's (tracked and new, not ignored), else all
    but the usual leftovers."""
    if shutil.which("git") and (ROOT / ".git").exists():
        proc = _run("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT)
        if proc.returncode == 0:
            return [p for p in proc.stdout.split("\0") if p and (ROOT / p).is_file()]
    skip = {".git", ".venv", "venv", "build", "dist", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
    return [
        str(p.relative_to(ROOT))
        for p in ROOT.rglob("*")
        if p.is_file() and not skip.intersection(p.relative_to(ROOT).parts) and ".egg-info" not in str(p)
    ]


def _tree_state() -> tuple[str, dict[str, int]]:
    """What a build could change in the source tree: git's status (ignored files too) and the
    build leftovers there with their times."""
    status = ""
    if shutil.which("git") and (ROOT / ".git").exists():
        status = _run("git", "status", "--porcelain", "--ignored", cwd=ROOT).stdout
    found = {str(p.name): p.stat().st_mtime_ns for pattern in BUILD_LEFTOVERS for p in ROOT.glob(pattern)}
    return status, found


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[zipfile.ZipFile]:
    """A wheel built with pip from a copy of the source tree (the build writes build/ and
    *.egg-info beside the sources), without build isolation: this environment's setuptools, no
    download."""
    setuptools = importlib.metadata.version("setuptools")
    assert int(setuptools.split(".")[0]) >= 77, (
        f"setuptools {setuptools} cannot build the licence files (PEP 639): pip install -e '.[test]' again"
    )
    work = tmp_path_factory.mktemp("wheel")
    src, out = work / "src", work / "out"
    for name in _source_files():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    before = _tree_state()
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_NO_INPUT": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _tree_state() == before, "building the wheel changed the source tree"
    (built,) = out.glob("kings_corners-*.whl")
    with zipfile.ZipFile(built) as zf:
        yield zf


def _dist_info(zf: zipfile.ZipFile) -> str:
    (info,) = {n.split("/", 1)[0] for n in zf.namelist() if n.split("/", 1)[0].endswith(".dist-info")}
    return info


def test_the_wheel_holds_the_licence(wheel: zipfile.ZipFile) -> None:
    info = _dist_info(wheel)
    names = [n for n in wheel.namelist() if n in (f"{info}/licenses/LICENSE", f"{info}/LICENSE")]
    assert names, f"no LICENSE in {info}: {sorted(wheel.namelist())}"
    assert wheel.read(names[0]).decode("utf-8") == (ROOT / "LICENSE").read_text(encoding="utf-8")
    metadata = wheel.read(f"{info}/METADATA").decode("utf-8").split("\n\n", 1)[0].splitlines()
    assert "License-Expression: MIT" in metadata
    assert "License-File: LICENSE" in metadata
    assert f"Version: {kc_tui.__version__}" in metadata


def test_the_wheel_holds_the_package_data(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    data = sorted(
        str(p.relative_to(ROOT)) for pattern in DATA_PATTERNS for p in (ROOT / "kc_tui").rglob(pattern) if p.is_file()
    )
    assert {"kc_tui/data/RULES.md", "kc_tui/data/GUIDE.md", "kc_tui/data/ai_ratings.json"} <= set(data)
    assert any(name.endswith(".tcss") for name in data)
    assert "kc_tui/i18n/kings_corners.pot" in data  # and each language's catalog, when there is one
    assert {"kc_tui/web/templates/app.html", "kc_tui/web/templates/plain.html"} <= set(data)  # serve's pages
    missing = [name for name in data if name not in names]
    assert missing == []


def test_the_wheel_holds_the_code_and_the_command(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    assert {"kc_tui/__init__.py", "kc_tui/__main__.py", "kc_tui/cli/__init__.py", "ai/__init__.py"} <= names
    sources = {p.relative_to(ROOT).as_posix() for package in ("kc_tui", "ai") for p in (ROOT / package).rglob("*.py")}
    assert {"kc_tui/match/session.py", "kc_tui/lab/tournament.py", "ai/players/expert.py"} <= sources
    assert sorted(sources - names) == sorted(s for s in sources if s.startswith("kc_tui/screenshots/"))
    assert not any(name.startswith("tests/") for name in names)
    entry_points = wheel.read(f"{_dist_info(wheel)}/entry_points.txt").decode("utf-8")
    assert re.search(r"^kings-corners = kc_tui\.cli:main$", entry_points, re.MULTILINE)


def test_the_wheel_holds_the_game_and_not_the_screenshot_maker(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    assert "kc_tui/ui/app.py" in names and "kc_tui/data/RULES.md" in names
    made = [n for n in names if n.startswith("kc_tui/screenshots")]
    assert not made, "the screenshot maker is a tool of the source tree"
