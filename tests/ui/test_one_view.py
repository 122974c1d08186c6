"""Every screen draws from one view of the table: no module under kc_tui/ui reads a session's
match (``session.match``, ``s.match``, ``self.session.match``, ``driver.session.match``...) nor a
match's round (``m.round``, ``session.match.round``). What a screen shows comes from a
:class:`~kc_tui.match.view.TableSnapshot` or a named property of the table driver or the session.

The check reads the source (an AST walk): a session is a ``.session`` attribute, a name called
``session``, a parameter annotated ``MatchSession``, or a name bound to one of these; a match is
a session's ``.match``, a parameter annotated ``Match``, or a name bound to one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import kc_tui.ui

UI = Path(kc_tui.ui.__file__).parent
ROOT = UI.parent.parent


def _annotated(node: ast.arg | ast.AnnAssign, names: set[str]) -> bool:
    ann = node.annotation
    return ann is not None and any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(ann))


class _Scope:
    """The names a scope (a function, with what it nests, or a module's top level) binds to a
    session or a match."""

    def __init__(self, nodes: list[ast.AST]) -> None:
        self.sessions: set[str] = {"session"}
        self.matches: set[str] = set()
        args = [a for n in nodes if isinstance(n, ast.arguments) for a in (*n.posonlyargs, *n.args, *n.kwonlyargs)]
        self.sessions |= {a.arg for a in args if _annotated(a, {"MatchSession"})}
        self.matches |= {a.arg for a in args if _annotated(a, {"Match"})}
        pairs: list[tuple[ast.expr, ast.expr]] = []
        for n in nodes:
            if isinstance(n, ast.Assign):
                pairs += [pair for target in n.targets for pair in _pairs(target, n.value)]
            elif isinstance(n, ast.AnnAssign) and n.value is not None:
                pairs += _pairs(n.target, n.value)
            elif isinstance(n, ast.NamedExpr):
                pairs.append((n.target, n.value))
        grew = True
        while grew:  # a name bound to a name bound to a session is a session too
            before = (len(self.sessions), len(self.matches))
            for target, value in pairs:
                if isinstance(target, ast.Name):
                    if self.is_session(value):
                        self.sessions.add(target.id)
                    elif self.is_match(value):
                        self.matches.add(target.id)
            grew = (len(self.sessions), len(self.matches)) != before

    def is_session(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Attribute):
            return node.attr == "session"
        return isinstance(node, ast.Name) and node.id in self.sessions

    def is_match(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Attribute):
            return node.attr == "match" and self.is_session(node.value)
        return isinstance(node, ast.Name) and node.id in self.matches


def _pairs(target: ast.expr, value: ast.expr) -> list[tuple[ast.expr, ast.expr]]:
    """The (name, value) pairs an assignment makes, tuples unpacked element by element."""
    if isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List):
        if len(target.elts) == len(value.elts):
            return [pair for t, v in zip(target.elts, value.elts, strict=True) for pair in _pairs(t, v)]
        return []
    return [(target, value)]


def _scopes(tree: ast.Module) -> list[list[ast.AST]]:
    """Every function with what it nests, and the module's top level outside any function."""
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)]
    inside = {id(m) for f in functions for m in ast.walk(f)}
    top = [n for n in ast.walk(tree) if id(n) not in inside]
    return [top, *([*ast.walk(f)] for f in functions)]


def offenders(source: str, name: str) -> list[str]:
    """Every read of a session's match or of a match's round in ``source``, as "name:line: code"."""
    tree = ast.parse(source)
    lines = source.splitlines()
    found: set[tuple[int, str]] = set()
    for nodes in _scopes(tree):
        scope = _Scope(nodes)
        for n in nodes:
            if not isinstance(n, ast.Attribute) or not isinstance(n.ctx, ast.Load):
                continue
            if (n.attr == "match" and scope.is_session(n.value)) or (n.attr == "round" and scope.is_match(n.value)):
                found.add((n.lineno, lines[n.lineno - 1].strip()))
    return [f"{name}:{line}: {code}" for line, code in sorted(found)]


def test_no_ui_module_reads_a_sessions_match_or_a_matchs_round() -> None:
    found: list[str] = []
    for path in sorted(UI.rglob("*.py")):
        found += offenders(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert found == [], "a screen reads the match or its round, not the table's view:\n" + "\n".join(found)


def test_the_check_finds_every_way_a_session_or_its_match_is_reached() -> None:
    source = """
from kc_tui.match.session import MatchSession
from kc_tui.engine import Match

class Screen:
    def a(self):
        return self.session.match.rules

    def b(self):
        s = self.session
        return s.match.over

    def c(self, driver):
        return driver.session.match.number

    def d(self):
        s, m = self.session, self.session.match
        return m.round.over

    def e(self, saved: MatchSession) -> None:
        return saved.match.results

    def f(self, game: Match | None) -> None:
        return game.round

    def g(self):
        return lambda: self.driver.session.match.round.piles

def h(session):
    match = session.match
    r = match
    return r.round.hands
"""
    found = [line.split(":")[1] for line in offenders(source, "x.py")]
    assert found == ["7", "11", "14", "17", "18", "21", "24", "27", "30", "32"]


def test_the_check_leaves_other_matches_and_rounds_alone() -> None:
    source = """
import re

class Screen:
    def a(self, history, state, matcher):
        record = history.match(3)
        found = re.match("R", "R1")
        score = matcher.match("title")
        number = state.round
        match = Match(2, rules, 0)
        match.round = r
        return record, found, score, number, self.snapshot.round_number, self.driver.round_over
"""
    assert offenders(source, "x.py") == []
