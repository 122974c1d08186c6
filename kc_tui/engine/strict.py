"""Strict reading of JSON documents, for every reader of one (position files, saves, match
records, the history's rows, the network's messages): a number is a real int, an object's keys
are unique. Plain Python."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from kc_tui.i18n import _


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


class JSONError(ValueError):
    """A document that is not plain JSON; ``str(exc)`` says why in one plain line."""


def _no_constant(name: str) -> Any:
    raise JSONError(_("it is not usable JSON: {name} is not a number JSON allows").format(name=name))


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONError(_("it is not usable JSON: a number is too large"))
    return value


# Translators: {key} is a field of a file given twice.
_unique = unique_keys(lambda key: JSONError(_("the field {key} is given twice").format(key=json.dumps(key[:40]))))


def loads(text: str | bytes) -> Any:
    """The JSON document ``text`` (bytes: UTF-8), read strictly: an object's keys are unique, a
    number is finite (no NaN, no Infinity, none too large or too long), nesting stops short of
    the interpreter's limit. :class:`JSONError` (one plain line) for anything else."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise JSONError(_("it is not UTF-8 text")) from None
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite_float, object_pairs_hook=_unique)
    except JSONError:
        raise
    except json.JSONDecodeError as exc:
        raise JSONError(
            _("it is not valid JSON ({error} at line {line}, column {column})").format(
                error=exc.msg, line=exc.lineno, column=exc.colno
            )
        ) from None
    except RecursionError:
        raise JSONError(_("it is not usable JSON: it is nested too deeply")) from None
    except ValueError:  # int(): more than 4,300 digits
        raise JSONError(_("it is not usable JSON: a number is too long")) from None


__all__ = ["JSONError", "is_int", "loads", "unique_keys"]
