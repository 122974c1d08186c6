"""Files shipped inside the package: the rules the game implements (RULES.md)."""

from __future__ import annotations

from importlib import resources


def rules_markdown() -> str:
    """The text of RULES.md as shipped with the package."""
    return resources.files(__name__).joinpath("RULES.md").read_text(encoding="utf-8")
