"""Strict reading of JSON documents, for every reader of one (position files, saves, match
records, the history's rows, the network's messages): a number is a real int, an object's keys
are unique. Plain Python."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def is_int(x: object) -> bool:
    """Whether ``x`` is a whole number (a bool is not, though Python counts it as one)."""
    return isinstance(x, int) and not isinstance(x, bool)


def unique_keys(twice: Callable[[str], Exception]) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """A ``json.loads`` ``object_pairs_hook`` that refuses an object with a key given twice,
    raising what ``twice(key)`` makes (JSON would keep the last silently)."""

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise twice(key)
            out[key] = value
        return out

    return hook


__all__ = ["is_int", "unique_keys"]
