"""The import structure: no module of kc_tui or ai imports itself through others, every module
and package directly under kc_tui and ai is placed in the layers contract (pyproject.toml,
checked by lint-imports), and the plain-Python layers stay free of Textual.

Imports inside functions and under ``TYPE_CHECKING`` count: they are imports all the same.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("kc_tui", "ai")
#: Cycles known and owned by another change, each with why it is allowed for now. Remove an
#: entry once its cycle is gone (test_the_known_cycles_are_still_there says when).
KNOWN_CYCLES: dict[tuple[str, ...], str] = {}


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


def import_cycles(imports: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The import cycles of a graph (module -> modules it imports): each strongly connected
    component of more than one module, or a module importing itself, sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(root: str) -> None:  # Tarjan's algorithm, iterative (no recursion limit)
        work: list[tuple[str, list[str]]] = [(root, sorted(imports.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(imports.get(nxt, ()))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1 or node in imports.get(node, ()):
                    found.append(sorted(component))

    for module in sorted(imports):
        if module not in index:
            visit(module)
    return sorted(found)


def _ours(module: str) -> bool:
    return module.split(".")[0] in PACKAGES


def _project_imports(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    return {
        m: {i for i in graph.find_modules_directly_imported_by(m) if _ours(i)} for m in graph.modules if _ours(m)
    }


def test_the_cycle_finder_finds_cycles_and_nothing_else() -> None:
    imports = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}, "f": set()}
    assert import_cycles(imports) == [["a", "b", "c"], ["e"]]
    assert import_cycles({"x": {"y"}, "y": set()}) == []


def test_no_module_imports_itself_through_others(graph: grimp.ImportGraph) -> None:
    imports = _project_imports(graph)
    assert "kc_tui.engine.state" in imports and "ai.base" in imports  # the graph is the real one
    cycles = [c for c in import_cycles(imports) if tuple(c) not in KNOWN_CYCLES]
    assert cycles == []


def test_the_known_cycles_are_still_there(graph: grimp.ImportGraph) -> None:
    found = {tuple(c) for c in import_cycles(_project_imports(graph))}
    gone = [c for c in KNOWN_CYCLES if c not in found]
    assert gone == [], "these cycles are gone: remove them from KNOWN_CYCLES"


def test_the_round_does_not_import_the_view_module(graph: grimp.ImportGraph) -> None:
    # engine.view (determinize) builds on the round; the round builds PlayerView from player_view.
    assert graph.chain_exists(importer="kc_tui.engine.view", imported="kc_tui.engine.state")
    assert not graph.chain_exists(importer="kc_tui.engine.state", imported="kc_tui.engine.view")


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
    above = {"kc_tui.__main__", "kc_tui.cli", "kc_tui.screenshots", "kc_tui.ui"}
    below_ui = [n for n, _ in _layer_modules() if n not in above]
    present = [n for n in below_ui if n in graph.modules]
    expected = {
        "kc_tui.match", "kc_tui.records", "kc_tui.lab", "kc_tui.config", "kc_tui.util", "ai.players", "kc_tui.engine"
    }
    assert expected <= set(present)
    for module in present:
        chain = graph.find_shortest_chain(importer=module, imported=external, as_packages=True)
        assert chain is None, f"{module} imports {external}: {' -> '.join(chain or ())}"
