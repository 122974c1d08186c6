"""The packaged rules (:func:`kc_tui.data.rules_markdown`, in the language in use) as plain lines:
a heading, a paragraph or a list's item a line, without Markdown's marks (``#``, ``**``, ``*``,
backticks, links), so a screen reader reads the words and nothing else."""

from __future__ import annotations

import re

from kc_tui.data import rules_markdown

_HEADING = re.compile(r"^#{1,6}\s+")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_STRONG = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")


def unmarked(text: str) -> str:
    """``text`` without Markdown's inline marks: links as their words, no bold, emphasis or code marks."""
    text = _LINK.sub(r"\1", text)
    text = _STRONG.sub(lambda m: m.group(1) or m.group(2), text)
    text = _EMPHASIS.sub(r"\1", text)
    return text.replace("`", "")


def markdown_lines(markdown: str) -> list[str]:
    """``markdown``'s headings, paragraphs and list items, one a line (a paragraph's or an
    item's wrapped lines joined), a blank line before each heading; tables' rules dropped."""
    out: list[str] = []
    current: list[str] = []

    def close() -> None:
        if current:
            out.append(unmarked(" ".join(current)))
            current.clear()

    for raw in markdown.splitlines():
        line = raw.strip()
        if not line:
            close()
            continue
        if _HEADING.match(line):
            close()
            if out:
                out.append("")
            out.append(unmarked(_HEADING.sub("", line)))
            continue
        if line.startswith("|"):
            close()
            cells = [c.strip() for c in line.strip("|").split("|")]
            if all(set(c) <= set("-: ") for c in cells):
                continue
            out.append(unmarked(", ".join(c for c in cells if c)))
            continue
        if _ITEM.match(raw):
            close()
            current.append(_ITEM.sub("", raw).strip())
            continue
        current.append(line)
    close()
    return out


def rules_lines() -> list[str]:
    """The game's rules in the language in use, as plain lines."""
    return markdown_lines(rules_markdown())


__all__ = ["markdown_lines", "rules_lines", "unmarked"]
