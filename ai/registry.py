"""The registry of AI kinds (re-exported by :mod:`ai`, which documents it).

A module of its own so that the AI modules can import :func:`register` without importing the
package that imports them (no import cycle).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, TypeVar

from ai.base import AIPlayer
from kc_tui.i18n import _

#: Every registered kind's class, by kind name.
_REGISTRY: dict[str, type[AIPlayer]] = {}
#: The package whose modules declare the kinds.
_PACKAGE = "ai.players"
_loaded = False

A = TypeVar("A", bound=type[AIPlayer])


class UnknownKind(ValueError):
    """No AI kind has this name."""


@dataclass(frozen=True, slots=True)
class KindInfo:
    """What the app shows of one AI kind, as its class declares it. ``title`` and
    ``description`` are English, marked with ``N_`` where a kind declares them: pass them through
    ``kc_tui.i18n._`` where they are shown. ``player_name`` is data (a seat's name, kept in saves
    and the history): it is never translated."""

    #: The name settings, saves and the command line use: ``king-aware``.
    name: str
    #: The name for display: ``King-aware``.
    title: str
    #: One line for menus and the settings screen.
    description: str
    #: A default name for a player of the kind: ``Kingsley``.
    player_name: str
    #: Whether :func:`make_player` takes ``think_ms`` (ms a move) for the kind.
    takes_think_time: bool
    #: Kinds are listed by this, weakest (lowest) first.
    strength: int
    #: Whether the settings screen offers the kind for an opponent.
    offered: bool

    @classmethod
    def of(cls, ai_class: type[AIPlayer]) -> KindInfo:
        """The info an AI class declares. The title and player name are the class's own (not a
        base kind's): when it sets none they are made from the kind."""
        own = vars(ai_class)
        title = own.get("title") or ai_class.kind.replace("-", " ").capitalize()
        return cls(
            name=ai_class.kind,
            title=title,
            description=ai_class.description,
            player_name=own.get("player_name") or title,
            takes_think_time=ai_class.takes_think_time,
            strength=ai_class.strength,
            offered=ai_class.offered,
        )

    @property
    def title_shown(self) -> str:
        """The kind's title in the language in use ("Lungimirante"), where a field is too narrow
        for :attr:`shown` (a text beside it names the kind both ways)."""
        return _(self.title)

    @property
    def shown(self) -> str:
        """The kind as a player reads it: its title in the language in use, with the name the
        settings and the command line use beside it when they differ ("Lungimirante
        (lookahead)"; "Lookahead" in English)."""
        title = self.title_shown
        if title.replace("-", " ").casefold() == self.name.replace("-", " ").casefold():
            return title
        # Translators: an AI kind: {title} is its name in the language, {kind} the name the
        # settings file and the command line take (lookahead), which stays as it is.
        return _("{title} ({kind})").format(title=title, kind=self.name)


def kind_shown(kind: str) -> str:
    """``kind`` as a player reads it (:attr:`KindInfo.shown`); a name that is no AI kind (a
    person's seat, a kind of an older version in the history) as it is."""
    try:
        return KindInfo.of(_class_of(kind)).shown
    except UnknownKind:
        return kind


def kind_title(kind: str) -> str:
    """``kind``'s title in the language in use (:attr:`KindInfo.title_shown`); a name that is no
    AI kind as it is."""
    try:
        return KindInfo.of(_class_of(kind)).title_shown
    except UnknownKind:
        return kind


def normalize_kind(text: str) -> str:
    """A kind's name as the registry spells it: stripped, lower case, ``_`` as ``-``."""
    return text.strip().lower().replace("_", "-")


def register(cls: A) -> A:
    """Class decorator: make ``cls`` an AI kind (under ``cls.kind``). The class itself (not only a
    base kind) must set ``kind``, spelled as :func:`normalize_kind` gives it, a one-line
    ``description`` and its ``strength``; a kind registered again is replaced. ValueError otherwise."""
    own = vars(cls)
    missing = [attr for attr in ("kind", "description", "strength") if attr not in own]
    if missing:
        raise ValueError(f"{cls.__name__} must set its own {', '.join(missing)} to be an AI kind")
    if not cls.kind or normalize_kind(cls.kind) != cls.kind:
        raise ValueError(f"{cls.__name__}: kind {cls.kind!r} must be non-empty, lower case, words joined by '-'")
    if not cls.description.strip() or "\n" in cls.description:
        raise ValueError(f"{cls.__name__}: kind {cls.kind!r} needs a one-line description")
    _REGISTRY[cls.kind] = cls
    return cls


def _load_all() -> None:
    """Import, once, every module of the players' package, so the kinds register themselves
    (modules named ``_...`` and subpackages are skipped)."""
    global _loaded
    if _loaded:
        return
    import pkgutil  # only to list the package's modules

    package = importlib.import_module(_PACKAGE)
    for module in pkgutil.iter_modules(package.__path__):
        if module.name.startswith("_") or module.ispkg:
            continue
        importlib.import_module(f"{_PACKAGE}.{module.name}")
    _loaded = True


def _load_kind(name: str) -> type[AIPlayer] | None:
    """The class of kind ``name`` (normalised), importing only the module named after it
    (``king-aware``: ``ai.players.king_aware``) when the kind is not registered yet; None when that module
    does not register it (the kind is then looked for in every module)."""
    cls = _REGISTRY.get(name)
    module = name.replace("-", "_")
    if cls is not None or _loaded or not module.isidentifier():
        return cls
    try:
        importlib.import_module(f"{_PACKAGE}.{module}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{_PACKAGE}.{module}":
            raise  # the module is there but needs what is not
    return _REGISTRY.get(name)


def kinds() -> tuple[KindInfo, ...]:
    """Every registered kind, weakest first (then by name)."""
    _load_all()
    infos = (KindInfo.of(cls) for cls in _REGISTRY.values())
    return tuple(sorted(infos, key=lambda k: (k.strength, k.name)))


def ai_kinds() -> tuple[str, ...]:
    """Every registered kind's name, weakest first."""
    return tuple(k.name for k in kinds())


def _class_of(kind: str) -> type[AIPlayer]:
    name = normalize_kind(kind)
    cls = _load_kind(name)
    if cls is None:
        _load_all()
        cls = _REGISTRY.get(name)
    if cls is None:
        raise UnknownKind(f"unknown AI kind {kind!r}: choose one of {', '.join(ai_kinds())}")
    return cls


def kind_info(kind: str) -> KindInfo:
    """The info of ``kind`` (any spelling :func:`normalize_kind` accepts); :class:`UnknownKind`
    (a ValueError) for an unknown kind."""
    return KindInfo.of(_class_of(kind))


def make_player(kind: str, seed: int = 0, **params: Any) -> AIPlayer:
    """An AI of ``kind`` (e.g. ``greedy``, ``King_Aware``) with ``seed`` and its keyword settings;
    :class:`UnknownKind` (a ValueError) for an unknown kind."""
    return _class_of(kind)(seed, **params)
