"""What the catalog word tests share: a translation's width in cells as the screen draws it, the
texts of the footer's keys, and whether a translation uses the glossary's word for a term."""

from __future__ import annotations

import contextlib
import copy
import importlib
import pkgutil
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from babel.messages.catalog import Catalog, Message
from rich.cells import cell_len

ZWSP = "\u200b"

#: The widest value a placeholder takes in a fixed-width text (a count of cards has 2 digits,
#: a pot or a score 3); a name not listed takes :data:`WIDEST_OTHER`.
WIDEST: dict[str, str] = {
    "n": "99",
    "count": "99",
    "number": "99",
    "pot": "999",
    "total": "999",
    "target": "999",
}
WIDEST_OTHER = "99"


class _Widest(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return WIDEST_OTHER


def cells(text: str) -> int:
    """The cells ``text`` takes on screen, its placeholders filled with their widest values (a
    Thai word break takes none)."""
    with contextlib.suppress(ValueError, IndexError, AttributeError):
        text = text.format_map(_Widest(WIDEST))
    return cell_len(text.replace(ZWSP, ""))


def forms(message: Message) -> list[str]:
    """The translated texts of ``message`` (each plural form), empty ones left out."""
    strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
    return [s for s in strings if s]


def find(catalog: Catalog, msgid: str) -> Message | None:
    """The entry of ``msgid`` (a plural entry by its singular)."""
    message = catalog.get(msgid)
    if message is not None:
        return message
    return next((m for m in catalog if isinstance(m.id, tuple | list) and m.id[0] == msgid), None)


@dataclass(frozen=True)
class Budget:
    """Texts drawn into ``cells`` cells (``where``: the code that declares it)."""

    where: str
    cells: int
    msgids: Sequence[str]


def overruns(catalog: Catalog, budgets: Iterable[Budget]) -> list[str]:
    """Each translation wider than its budget, as a line: where, the msgid, its text and cells."""
    out = []
    for budget in budgets:
        for msgid in budget.msgids:
            message = find(catalog, msgid)
            for text in forms(message) if message is not None else ():
                if cells(text) > budget.cells:
                    out.append(f"{budget.where} ({budget.cells}): {msgid!r} -> {text!r} takes {cells(text)}")
    return out


def _modules(package: str) -> Iterator[str]:
    module = importlib.import_module(package)
    yield package
    for info in pkgutil.walk_packages(module.__path__, package + "."):
        yield info.name


def footer_descriptions(packages: Sequence[str] = ("kc_tui.ui",)) -> list[str]:
    """The descriptions of every key the footers show (a binding shown, with a description),
    as declared (English), sorted."""
    from textual.binding import Binding
    from textual.dom import DOMNode

    for package in packages:
        for name in _modules(package):
            importlib.import_module(name)
    found: set[str] = set()
    todo: list[type] = [DOMNode]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if not cls.__module__.startswith(tuple(packages)):
            continue
        for binding in vars(cls).get("BINDINGS", ()):
            if isinstance(binding, Binding) and binding.show and binding.description:
                found.add(binding.description)
    return sorted(found)


@dataclass(frozen=True)
class Term:
    """A game term: the English words that name it (a regular expression, matched as whole
    words, any case) and, for each language, the glossary's word in its forms (regular
    expressions, any case; Thai's are matched anywhere, the others' as the start of a word)."""

    name: str
    english: str
    words: dict[str, Sequence[str]] = field(default_factory=dict)

    def named_in(self, msgid: str) -> bool:
        return re.search(rf"(?<![\w-]){self.english}(?![\w-])", msgid, re.IGNORECASE) is not None

    def used_in(self, code: str, text: str) -> bool:
        text = unicodedata.normalize("NFC", text.replace(ZWSP, ""))
        start = "" if code == "th" else r"(?<!\w)"
        return any(re.search(start + word, text, re.IGNORECASE) for word in self.words[code])


#: What a msgid says that is not a term even when it has a term's word: the game's name, an
#: identifier in quotes or backticks (a file's field: 'stock'), a setting written key=value
#: (draw=end), a metavariable in capitals (MATCHES), a placeholder ({penalties}, %(option)s).
NOT_TERMS = re.compile(r"Kings Corners|'[\w/-]+'|`[^`]*`|\b\w+=\w+|\b[A-Z][A-Z_]+\b|\{[^{}]*\}|%\(\w+\)\w")


def glossary_misses(
    catalog: Catalog, code: str, terms: Iterable[Term], exceptions: dict[tuple[str, ...], str]
) -> list[str]:
    """Each translation that names a term's English without the glossary's word, as a line. An
    exception is ``(term name, msgid)`` for every language, ``(term name, msgid, code)`` for one,
    each with its reason."""
    out = []
    terms = list(terms)
    for message in catalog:
        if not message.id:
            continue
        ids = list(message.id) if isinstance(message.id, tuple | list) else [message.id]
        said = [NOT_TERMS.sub(" ", i) for i in ids]
        for term in terms:
            if not any(term.named_in(s) for s in said):
                continue
            if (term.name, ids[0]) in exceptions or (term.name, ids[0], code) in exceptions:
                continue
            for text in forms(message):
                if not term.used_in(code, text):
                    out.append(f"{term.name}: {ids[0]!r} -> {text!r}")
    return out


def with_text(catalog: Catalog, msgid: str, text: str) -> Catalog:
    """A copy of ``catalog`` whose ``msgid`` (a plural entry: its every form) says ``text``."""
    changed = copy.deepcopy(catalog)
    message = find(changed, msgid)
    assert message is not None, msgid
    message.string = tuple(text for _ in message.string) if isinstance(message.string, tuple | list) else text
    return changed
