"""The import structure: every module and package directly under kc_tui and ai is placed in the
layers contract (pyproject.toml; lint-imports checks the contracts themselves, cycles included),
and the plain-Python layers stay free of Textual.

Imports inside functions and under ``TYPE_CHECKING`` count: they are imports all the same.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("kc_tui", "ai")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, include_external_packages=True, cache_dir=None)


def _contracts() -> list[dict[str, Any]]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        doc = tomllib.load(f)
    contracts: list[dict[str, Any]] = doc["tool"]["importlinter"]["contracts"]
    return contracts


def _layer_modules() -> list[tuple[str, bool]]:
    """Every module named in the layers contract: (name, optional)."""
    (contract,) = [c for c in _contracts() if c["type"] == "layers"]
    out: list[tuple[str, bool]] = []
    for layer in contract["layers"]:
        for part in layer.replace("|", ":").split(":"):
            name = part.strip()
            optional = name.startswith("(") and name.endswith(")")
            out.append((name.strip("()"), optional))
    return out


def test_the_round_does_not_import_determinize(graph: grimp.ImportGraph) -> None:
    # engine.determinize builds on the round; the round builds PlayerView from player_view.
    assert graph.chain_exists(importer="kc_tui.engine.determinize", imported="kc_tui.engine.state")
    assert not graph.chain_exists(importer="kc_tui.engine.state", imported="kc_tui.engine.determinize")


def test_the_ui_launcher_does_not_import_the_command_line(graph: grimp.ImportGraph) -> None:
    assert graph.chain_exists(importer="kc_tui.cli", imported="kc_tui.ui.launch")
    assert not graph.chain_exists(importer="kc_tui.ui", imported="kc_tui.cli", as_packages=True)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_module_under_a_package_is_placed_in_a_layer(graph: grimp.ImportGraph, package: str) -> None:
    named = {name for name, _ in _layer_modules()}
    children = graph.find_children(package)
    assert {"kc_tui.engine", "kc_tui.ui", "ai.players", "ai.base"} & children  # the graph is the real one
    assert children - named == set(), "add these modules to the layers contract in pyproject.toml"


def test_the_required_layers_exist(graph: grimp.ImportGraph) -> None:
    for name, optional in _layer_modules():
        assert optional or name in graph.modules, f"{name} is in the layers contract but does not exist"


@pytest.mark.parametrize("external", ["textual", "rich"])
def test_everything_below_the_ui_is_free_of_textual(graph: grimp.ImportGraph, external: str) -> None:
    above = {"kc_tui.__main__", "kc_tui.cli", "kc_tui.screenshots", "kc_tui.ui", "kc_tui.web"}
    below_ui = [n for n, _ in _layer_modules() if n not in above]
    present = [n for n in below_ui if n in graph.modules]
    expected = {
        "kc_tui.match",
        "kc_tui.records",
        "kc_tui.lab",
        "kc_tui.config",
        "kc_tui.util",
        "ai.players",
        "kc_tui.engine",
    }
    assert expected <= set(present)
    for module in present:
        chain = graph.find_shortest_chain(importer=module, imported=external, as_packages=True)
        assert chain is None, f"{module} imports {external}: {' -> '.join(chain or ())}"


def _module_map() -> list[str]:
    """The lines of ARCHITECTURE.md's module map."""
    doc = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    return doc[doc.index("## The modules") : doc.index("## The rules that hold")].splitlines()


def _named_in_map(path: Path, lines: list[str]) -> bool:
    """A module is named by its path, or on its folder's line by its file name (a package's
    ``__init__.py`` by its folder's line)."""
    rel = path.relative_to(ROOT).as_posix()
    folder = path.parent.relative_to(ROOT).as_posix() + "/"
    if any(rel in line for line in lines):
        return True
    on_folder = [line for line in lines if line.startswith(folder)]
    return bool(on_folder) and (path.name == "__init__.py" or any(path.name in line for line in on_folder))


@pytest.mark.parametrize("package", PACKAGES)
def test_the_module_map_names_every_module(package: str) -> None:
    lines = _module_map()
    missing = [
        p.relative_to(ROOT).as_posix() for p in sorted((ROOT / package).rglob("*.py")) if not _named_in_map(p, lines)
    ]
    assert not missing, f"docs/ARCHITECTURE.md's module map leaves out {missing}"
