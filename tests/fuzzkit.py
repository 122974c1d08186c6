"""Seeded mutators for fuzzing file readers: JSON-like documents and the bytes that encode them.

Nothing here knows about Kings Corners: give it any decoded document (a position, a save, a
settings table read from TOML) and a ``random.Random``; the same seed gives the same cases.

- :func:`mutate_doc` damages a document (wrong types, huge or non-finite numbers, deep
  nesting, markup and control characters in strings, removed and extra keys, ...);
- :func:`to_json_text` writes a document as JSON text, including what ``json.dumps`` cannot or
  will not write (``NaN``, integers over 4,300 digits, nesting deeper than the recursion limit);
- :func:`mutate_bytes` damages encoded bytes (truncation, byte flips, garbage);
- :func:`cases` yields ``n`` damaged encodings of one document.

The values that only exist in the text (huge integers, ``NaN``/``Infinity``) are carried in the
document as :class:`RawJSON` strings, which :func:`to_json_text` writes verbatim. A writer for
another format (TOML, say) can treat a :class:`RawJSON` as an ordinary string or skip it.
"""

from __future__ import annotations

import json
import math
import pathlib
import random
import shutil
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

#: Rich/Textual markup that must show as text, never be interpreted.
MARKUP = ("[/]", "[b]x[/b]", "[@click=app.quit]q[/]", "[link=http://x]y[/link]")
#: Characters that break lines or terminals: NUL, newline, an ANSI colour, CR, right-to-left override.
CONTROL = ("\x00", "\n", "\x1b[31m", "\r", "\u202e")
HOSTILE = MARKUP + CONTROL
#: The tokens JSON does not have but Python's json module reads and writes by default.
NON_FINITE = ("NaN", "Infinity", "-Infinity", "1e999", "-1e999")
#: How deep :func:`deep_value` nests (at least).
DEEP = 500

Path = tuple[Any, ...]


class RawJSON(str):
    """Text that :func:`to_json_text` writes as is (not as a JSON string), e.g. ``NaN`` or 5,000 digits."""


def copy_doc(doc: Any) -> Any:
    """A deep copy of a JSON-like document, made without recursion (any depth)."""
    if not isinstance(doc, dict | list):
        return doc
    root: Any = {} if isinstance(doc, dict) else []
    stack: list[tuple[Any, Any]] = [(doc, root)]
    while stack:
        src, dst = stack.pop()
        pairs = src.items() if isinstance(src, dict) else enumerate(src)
        for k, v in pairs:
            new: Any = v
            if isinstance(v, dict | list):
                new = {} if isinstance(v, dict) else []
                stack.append((v, new))
            if isinstance(dst, dict):
                dst[k] = new
            else:
                dst.append(new)
    return root


def huge_int_text(rng: random.Random) -> RawJSON:
    """An integer literal of 4,301 to 6,000 digits (over Python's int-string limit), maybe negative."""
    digits = str(rng.randrange(1, 10)) + "".join(rng.choice("0123456789") for _ in range(rng.randrange(4300, 6000)))
    return RawJSON(("-" if rng.random() < 0.3 else "") + digits)


def non_finite_text(rng: random.Random) -> RawJSON:
    """``NaN``, ``Infinity``, ``-Infinity`` or a float literal that overflows to infinity."""
    return RawJSON(rng.choice(NON_FINITE))


def deep_value(rng: random.Random, depth: int | None = None) -> Any:
    """Lists and objects nested ``depth`` deep (default :data:`DEEP` to twice that), built without recursion."""
    depth = depth if depth is not None else rng.randrange(DEEP, 2 * DEEP)
    value: Any = rng.choice([0, "x", None, []])
    for _ in range(depth):
        value = [value] if rng.random() < 0.7 else {"k": value}
    return value


def wrong_type(value: Any, rng: random.Random) -> Any:
    """A value of another JSON type than ``value`` (a bool is not a number, a number not a bool)."""
    choices: list[Any] = [None, True, False, 0, -1, 7, 2**63, 2**64, -(2**63) - 1, 1.5, -0.0, "", "x", "true", "7"]
    choices += [[], [1], {}, {"a": 1}]
    others = [c for c in choices if type(c) is not type(value)]
    return copy_doc(rng.choice(others))


def paths(doc: Any) -> list[Path]:
    """Every path in ``doc`` (keys and indexes from the top), the empty path (the top) first."""
    out: list[Path] = []
    stack: list[tuple[Path, Any]] = [((), doc)]
    while stack:
        path, value = stack.pop()
        out.append(path)
        if isinstance(value, dict):
            stack.extend(((*path, k), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend(((*path, i), v) for i, v in enumerate(value))
    out.sort(key=len)
    return out


def get_at(doc: Any, path: Path) -> Any:
    """The value at ``path``."""
    for key in path:
        doc = doc[key]
    return doc


def pick_place(doc: Any, rng: random.Random, stop: float) -> tuple[Path, Any]:
    """A random place in ``doc`` and its value: a walk down from the top that stops at each level
    below it with chance ``stop`` (so the few top-level fields are hit as often as the many
    entries of a long list)."""
    path: Path = ()
    node = doc
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node))) if isinstance(node, list) else []
        if not keys or (path and rng.random() < stop):
            return path, node
        key = rng.choice(keys)
        path, node = (*path, key), node[key]


def set_at(doc: Any, path: Path, value: Any) -> Any:
    """``doc`` with the value at ``path`` replaced (in place; the empty path returns ``value``)."""
    if not path:
        return value
    get_at(doc, path[:-1])[path[-1]] = value
    return doc


def _map_strings(doc: Any, fn: Callable[[str], str], keys: bool) -> Any:
    """``doc`` with ``fn`` applied to every string value (and key, when ``keys``), without recursion."""
    if isinstance(doc, str) and not isinstance(doc, RawJSON):
        return fn(doc)
    root: list[Any] = [doc]
    stack: list[Any] = [root]
    while stack:
        container = stack.pop()
        if isinstance(container, dict):
            items = list(container.items())
            container.clear()
            for k, v in items:
                container[fn(k) if keys and isinstance(k, str) else k] = v
            entries: list[Any] = list(container)
        else:
            entries = list(range(len(container)))
        for key in entries:
            v = container[key]
            if isinstance(v, str) and not isinstance(v, RawJSON):
                container[key] = fn(v)
            elif isinstance(v, dict | list):
                stack.append(v)
    return root[0]


def hostile_strings(doc: Any, rng: random.Random, keys: bool = False) -> Any:
    """``doc`` with markup or a control character (:data:`HOSTILE`) put into every string."""

    def spoil(s: str) -> str:
        at = rng.randrange(len(s) + 1)
        return s[:at] + rng.choice(HOSTILE) + s[at:]

    return _map_strings(doc, spoil, keys)


def _containers(doc: Any, kind: type) -> list[Path]:
    return [p for p in paths(doc) if isinstance(get_at(doc, p), kind) and get_at(doc, p)]


def _random_value(rng: random.Random) -> Any:
    """A value for a new key: plain, hostile text, or one of the values readers choke on."""
    roll = rng.random()
    if roll < 0.15:
        return non_finite_text(rng)
    if roll < 0.25:
        return huge_int_text(rng)
    if roll < 0.35:
        return deep_value(rng)
    if roll < 0.45:
        return deep_value(rng, rng.randrange(20, 80))
    return rng.choice(
        [None, True, 0, -3, 2**64 - 1, 0.25, "", "x" * rng.randrange(1, 50), [], {}, [1, "a"], {"a": [None]}, *HOSTILE]
    )


def mutate_once(doc: Any, rng: random.Random) -> Any:
    """One random mutation of ``doc`` (changed in place where possible; use the result)."""
    kind = rng.randrange(12)
    all_paths = paths(doc)
    path = rng.choice(all_paths)
    if kind == 0:  # a wrong type at a random path
        return set_at(doc, path, wrong_type(get_at(doc, path), rng))
    if kind == 1:  # an integer over 4,300 digits
        return set_at(doc, path, huge_int_text(rng))
    if kind == 2:  # NaN, Infinity, -Infinity, 1e999
        return set_at(doc, path, non_finite_text(rng) if rng.random() < 0.8 else rng.choice([math.nan, math.inf]))
    if kind == 3:  # deep nesting
        return set_at(doc, path, deep_value(rng))
    if kind == 4:  # markup and control characters in every string
        return hostile_strings(doc, rng)
    if kind == 5:  # ... and in the keys too
        return hostile_strings(doc, rng, keys=True)
    if kind == 6:  # a removed key
        objects = _containers(doc, dict)
        if objects:
            obj = get_at(doc, rng.choice(objects))
            del obj[rng.choice(list(obj))]
        return doc
    if kind == 7:  # an extra key (maybe starting with "_", maybe hostile)
        objects = [p for p in paths(doc) if isinstance(get_at(doc, p), dict)]
        if objects:  # the top object half the time: that is where readers keep unknown keys
            obj = get_at(doc, objects[0] if rng.random() < 0.5 else rng.choice(objects))
            name = rng.choice(["extra", "_extra", "_names", "x" * 200, "", *HOSTILE])
            obj[name] = _random_value(rng)
        return doc
    if kind == 8:  # a list item removed or duplicated
        lists = _containers(doc, list)
        if lists:
            items = get_at(doc, rng.choice(lists))
            i = rng.randrange(len(items))
            if rng.random() < 0.5:
                del items[i]
            else:
                items.insert(rng.randrange(len(items) + 1), copy_doc(items[i]))
        return doc
    if kind == 9:  # two values swapped (same shape, wrong place)
        a, b = rng.choice(all_paths), rng.choice(all_paths)
        if a and b and a[: len(b)] != b and b[: len(a)] != a:
            va, vb = get_at(doc, a), get_at(doc, b)
            set_at(doc, a, vb)
            set_at(doc, b, va)
        return doc
    if kind == 10:  # a number nudged (off by one, negative, boundary)
        nums = [p for p in all_paths if type(get_at(doc, p)) in (int, float)]
        if nums:
            p = rng.choice(nums)
            v = get_at(doc, p)
            set_at(doc, p, rng.choice([v + 1, v - 1, -v - 1, 2**63, -(2**63), 2**64, 0]))
        return doc
    # a random value anywhere
    return set_at(doc, path, _random_value(rng))


def mutate_doc(doc: Any, rng: random.Random, mutations: int | None = None) -> Any:
    """A damaged deep copy of ``doc``: 1 to 3 (mostly 1; or ``mutations``) random :func:`mutate_once` steps.

    The result may hold :class:`RawJSON` values (huge integers, ``NaN``...) and Python floats
    ``nan``/``inf``; write it with :func:`to_json_text`.
    """
    out = copy_doc(doc)
    for _ in range(mutations if mutations is not None else rng.choice((1, 1, 1, 2, 3))):
        out = mutate_once(out, rng)
    return out


def float_text(value: float, nan: str, inf: str) -> str:
    """``value`` as text: its ``repr`` when finite, else ``nan``, ``inf`` or ``-`` and ``inf``."""
    if math.isnan(value):
        return nan
    if math.isinf(value):
        return inf if value > 0 else f"-{inf}"
    return repr(value)


def _scalar_text(value: Any, ensure_ascii: bool) -> str:
    if isinstance(value, RawJSON):
        return str(value)
    if isinstance(value, float):
        return float_text(value, "NaN", "Infinity")
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return int.__repr__(value)
    return json.dumps(str(value), ensure_ascii=ensure_ascii)


def to_json_text(doc: Any, rng: random.Random | None = None) -> str:
    """``doc`` as JSON text, written without recursion (any depth) and with :class:`RawJSON`
    values verbatim, so the text can hold ``NaN``, ``Infinity`` and integers of any length.

    With ``rng``, the layout (compact, spaced or one item a line) and ``ensure_ascii`` are
    chosen at random; without it the text is compact and ASCII.
    """
    sep = rng.choice([",", ", ", ",\n  "]) if rng else ","
    colon = rng.choice([":", ": "]) if rng else ":"
    ensure_ascii = rng.random() < 0.5 if rng else True
    return nested_text(doc, lambda v: _scalar_text(v, ensure_ascii), sep=sep, colon=colon, ensure_ascii=ensure_ascii)


def nested_text(
    doc: Any, scalar: Callable[[Any], str], *, sep: str = ",", colon: str = ":", ensure_ascii: bool = True
) -> str:
    """``doc`` written without recursion (any depth): a dict as ``{"key"<colon>value<sep>...}``,
    a list or tuple as ``[value<sep>...]``, every other value as ``scalar(value)``; keys quoted
    as JSON strings."""
    out: list[str] = []
    stack: list[tuple[bool, Any]] = [(False, doc)]  # (is raw text, value)
    while stack:
        raw, value = stack.pop()
        if raw:
            out.append(value)
        elif isinstance(value, dict):
            parts: list[tuple[bool, Any]] = [(True, "{")]
            for i, (k, v) in enumerate(value.items()):
                parts.append((True, (sep if i else "") + json.dumps(str(k), ensure_ascii=ensure_ascii) + colon))
                parts.append((False, v))
            parts.append((True, "}"))
            stack.extend(reversed(parts))
        elif isinstance(value, list | tuple):
            parts = [(True, "[")]
            for i, v in enumerate(value):
                if i:
                    parts.append((True, sep))
                parts.append((False, v))
            parts.append((True, "]"))
            stack.extend(reversed(parts))
        else:
            out.append(scalar(value))
    return "".join(out)


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """Damaged bytes: truncated at a random point, a few bytes flipped, a span replaced by
    random garbage (or all of it garbage), invalid UTF-8 or a BOM inserted, or a span repeated."""
    kind = rng.randrange(6)
    if kind == 0 or not data:  # truncation
        return data[: rng.randrange(len(data) + 1)] if data else data
    if kind == 1:  # byte flips
        b = bytearray(data)
        for _ in range(rng.randrange(1, 9)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        return bytes(b)
    if kind == 2:  # a span of garbage
        i = rng.randrange(len(data))
        j = min(len(data), i + rng.randrange(1, 64))
        return data[:i] + rng.randbytes(rng.randrange(1, 64)) + data[j:]
    if kind == 3:  # all garbage
        return rng.randbytes(rng.randrange(0, 256))
    if kind == 4:  # invalid UTF-8, a BOM, a NUL
        i = rng.randrange(len(data) + 1)
        return data[:i] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\x00"]) + data[i:]
    i = rng.randrange(len(data))  # a span repeated
    j = min(len(data), i + rng.randrange(1, 200))
    return data[:j] + data[i:j] + data[j:]


def cases(doc: Any, rng: random.Random, n: int) -> Iterator[bytes]:
    """``n`` damaged UTF-8 encodings of ``doc``: mostly :func:`mutate_doc` written by
    :func:`to_json_text`, some then damaged by :func:`mutate_bytes`, some only byte-damaged,
    and now and then the document itself (valid input must stay valid)."""
    for _ in range(n):
        roll = rng.random()
        if roll < 0.05:
            yield to_json_text(doc, rng).encode("utf-8")
        elif roll < 0.25:
            yield mutate_bytes(to_json_text(doc, rng).encode("utf-8"), rng)
        else:
            text = to_json_text(mutate_doc(doc, rng), rng).encode("utf-8", "surrogatepass")
            yield mutate_bytes(text, rng) if roll > 0.85 else text


# ---------------------------------------------------------------- checking a loader's contract
def in_fresh_folder(tmpdir: pathlib.Path | str, check: Callable[[pathlib.Path], str | None]) -> str | None:
    """Run ``check`` in a new folder under ``tmpdir``, removed afterwards (whatever happens)."""
    folder = pathlib.Path(tempfile.mkdtemp(dir=tmpdir))
    try:
        return check(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def kept_aside_problem(data: bytes, path: pathlib.Path, message: Any) -> str | None:
    """What breaks the contract for a file its loader refused (None when all is kept): the
    message is one plain line naming where the file went, the file is gone from ``path`` and
    is the only other file in its folder, holding the original bytes."""
    if not isinstance(message, str) or not message:
        return f"a refused file gave no message ({message!r})"
    if not message.isprintable():
        return f"the message is not one plain line: {message!r}"
    if path.exists():
        return "a refused file was left at its path"
    aside = [p for p in path.parent.iterdir() if p.name != path.name]
    if len(aside) != 1:
        return f"expected one file kept aside, found {sorted(p.name for p in aside)}"
    if aside[0].read_bytes() != data:
        return "the file kept aside does not hold the original bytes"
    if aside[0].name not in message:
        return f"the message does not say where the file went: {message!r}"
    return None


def cut(exc: BaseException) -> str:
    """An exception's text, short and quoted (its ``str`` may itself fail)."""
    try:
        text = str(exc)
    except Exception:
        text = "?"
    return repr(text[:200])
