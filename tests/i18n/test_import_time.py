"""No text is translated at import: a module-level ``_("...")`` would be translated once, in the
language of the moment (English), and never again. A text declared at import is marked with
``N_`` and passed through ``_`` where it is shown."""

from __future__ import annotations

import ast

from .catalogkit import ROOT

#: The functions that translate (``N_`` only marks, so it is what import-time code uses).
TRANSLATING = {"_", "ngettext", "pgettext", "gettext"}


class ImportTime(ast.NodeVisitor):
    """The calls of a translating function among the code a module runs when it is imported:
    its body and class bodies, decorators, default values and annotations, not function bodies."""

    def __init__(self) -> None:
        self.found: list[int] = []

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if name in TRANSLATING and node.args and isinstance(node.args[0], ast.Constant | ast.JoinedStr):
            self.found.append(node.lineno)
        self.generic_visit(node)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for item in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
            if item is not None:
                self.visit(item)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._function(node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for item in [*node.args.defaults, *node.args.kw_defaults]:
            if item is not None:
                self.visit(item)


def import_time_translations(source: str) -> list[int]:
    visitor = ImportTime()
    visitor.visit(ast.parse(source))
    return visitor.found


def test_the_scan_finds_import_time_calls() -> None:
    source = """
A = _("at import")
B = N_("marked")
class C:
    LABEL = _("class body")
    def f(self, x=_("default")):
        return _("when drawn"), (lambda: _("later"))
@deco(_("decorator"))
def g():
    return ngettext("{n} card", "{n} cards", 2)
D = [lambda y=pgettext("ctx", "lambda default"): y]
"""
    assert import_time_translations(source) == [2, 5, 6, 8, 11]


def test_no_module_translates_a_text_at_import() -> None:
    found = []
    for package in ("kc_tui", "ai"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for line in import_time_translations(path.read_text(encoding="utf-8")):
                found.append(f"{path.relative_to(ROOT)}:{line}")
    assert not found, "translated at import (mark with N_, translate where shown): " + ", ".join(found)
