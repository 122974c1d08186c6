"""The rules and the guide in the language in use when the package has them, else in English."""

from __future__ import annotations

from importlib import resources

import pytest

from kc_tui import i18n
from kc_tui.data import guide_markdown, rules_markdown
from kc_tui.i18n import LANGUAGES, SOURCE

ENGLISH_RULES = resources.files("kc_tui.data").joinpath("RULES.md").read_text(encoding="utf-8")
ENGLISH_GUIDE = resources.files("kc_tui.data").joinpath("GUIDE.md").read_text(encoding="utf-8")


def shipped(stem: str, code: str) -> str | None:
    path = resources.files("kc_tui.data").joinpath(f"{stem}.{code}.md")
    return path.read_text(encoding="utf-8") if path.is_file() else None


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_each_language_gets_its_own_text_or_english(code: str) -> None:
    for stem, read, english in (("RULES", rules_markdown, ENGLISH_RULES), ("GUIDE", guide_markdown, ENGLISH_GUIDE)):
        own = None if code == SOURCE else shipped(stem, code)
        assert read(code) == (own if own is not None else english)
        i18n.use(code)
        assert read() == read(code)  # the language in use by default
        i18n.use(SOURCE)


def test_an_unknown_code_is_english() -> None:
    assert rules_markdown("xx") == ENGLISH_RULES
    assert guide_markdown("../RULES") == ENGLISH_GUIDE
