"""Files shipped inside the package: the rules the game implements (RULES.md) and the
player's guide shown before them on the rules screen (GUIDE.md), each in the languages it has
been translated into (``RULES.<code>.md``, ``GUIDE.<code>.md``; English is the source)."""

from __future__ import annotations

from importlib import resources

from kc_tui.i18n import LANGUAGES, SOURCE, current


def _read(name: str) -> str:
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def has_translation(stem: str, code: str) -> bool:
    """Whether the package has ``<stem>.<code>.md``, ``stem`` in language ``code``."""
    return resources.files(__name__).joinpath(f"{stem}.{code}.md").is_file()


def _localized(stem: str, code: str | None) -> str:
    """``<stem>.<code>.md`` when the package has it, else the English ``<stem>.md``."""
    code = current() if code is None else code
    if code != SOURCE and code in LANGUAGES and has_translation(stem, code):
        return _read(f"{stem}.{code}.md")
    return _read(f"{stem}.md")


def rules_markdown(code: str | None = None) -> str:
    """The rules as shipped with the package, in language ``code`` (None: the one in use) when
    they are translated into it, else in English (RULES.md)."""
    return _localized("RULES", code)


def guide_markdown(code: str | None = None) -> str:
    """The player's guide as shipped with the package, in language ``code`` (None: the one in
    use) when it is translated into it, else in English (GUIDE.md)."""
    return _localized("GUIDE", code)
