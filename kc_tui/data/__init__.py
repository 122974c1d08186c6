"""Files shipped inside the package: the rules the game implements (RULES.md) and the
player's guide shown before them on the rules screen (GUIDE.md)."""

from __future__ import annotations

from importlib import resources


def _read(name: str) -> str:
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def rules_markdown() -> str:
    """The text of RULES.md as shipped with the package."""
    return _read("RULES.md")


def guide_markdown() -> str:
    """The text of GUIDE.md (the player's guide) as shipped with the package."""
    return _read("GUIDE.md")
