"""Fuzz target: the settings reader (``kc_tui.config.store.load_config``).

* ``cases(rng, n)``: ``n`` settings files as bytes, from valid settings documents (written by
  ``tomli_w`` as the app writes them, or as inline tables), mutated generically
  (``tests.fuzzkit``) and in ways that know TOML: ``inf``/``nan``/``1e999`` floats, 5,000-digit
  decimal and hex ints, dates, inline tables and arrays nested hundreds deep, markup and
  control characters (escaped and raw) in strings, wrong types for every setting, unknown keys.
  Some cases are left valid, so the usable path is checked too.
* ``check(data, tmpdir)``: the contract, None when it holds, else what broke. The bytes are
  written to a settings file and ``load_config`` is called, twice: once on a file named by the
  user (``--config FILE``) and once on the app's own file (the default path, pointed into a
  fresh folder). It must not raise. Either there is no warning, the returned Config validates,
  the file is in place and the Config survives ``save_config``/``load_config`` unchanged (saved
  over the named file itself); or the defaults come with a one-line printable warning and:
  the named file is left byte for byte as it was, nothing is added beside it, and
  ``save_config`` over it refuses (``NotASettingsFile``) and writes nothing; the app's own file
  is gone from its path and kept aside beside it with its bytes unchanged.
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple
from unittest.mock import patch

import tomli_w

from kc_tui.config import AI_KIND_NAMES, CARD_STYLES, PACES, THEMES, Config, Opponent
from kc_tui.config.store import ENV_CONFIG, NotASettingsFile, default_config_path, load_config, save_config
from kc_tui.engine import Rules
from tests import fuzzkit
from tests.fuzzkit import cut, in_fresh_folder, kept_aside_problem, nested_text, pick_place

SETTINGS_NAME = "settings.toml"


def valid_settings(seed: int = 0) -> list[dict[str, Any]]:
    """Valid settings documents (as ``Config.to_dict`` gives them), varied."""
    rng = random.Random(seed)
    docs = [Config().to_dict(), {}, {"pace": "fast"}, {"rules": {"target": 25}}]
    names = ["Ada", "[b]Me[/b]", "Zoë ♥", "a" * 16, "[@click=app.quit]q"]
    for k in range(12):
        ops = tuple(
            Opponent(rng.choice(names), rng.choice(AI_KIND_NAMES), rng.randrange(50, 10_001))
            for _ in range(rng.randrange(1, 4))
        )
        rules = Rules(
            target=rng.randrange(5, 501),
            draw=rng.choice(["start", "end", "when_stuck"]),
            scoring=rng.choice(["points", "chips"]),
            chips_per_card=rng.random() < 0.5,
        )
        cfg = Config(
            player_name=names[k % len(names)],
            opponents=ops,
            rules=rules,
            pace=rng.choice(PACES),
            card_style=rng.choice(CARD_STYLES),
            four_colour=rng.random() < 0.5,
            theme=rng.choice(THEMES),
        )
        docs.append(cfg.to_dict())
    return docs


# ---------------------------------------------------------------- TOML text, including what tomli_w will not write
_RAW_TOML = {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}


def _toml_scalar(v: Any) -> str:
    if isinstance(v, fuzzkit.RawJSON):  # huge ints and 1e999 are TOML too; NaN/Infinity are spelt nan/inf
        return _RAW_TOML.get(str(v), str(v))
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return int.__repr__(v) if abs(v) < 10**4000 else hex(v)
    if isinstance(v, float):
        return fuzzkit.float_text(v, "nan", "inf")
    if v is None:  # TOML has no null: an empty string stands in
        return '""'
    return json.dumps(str(v), ensure_ascii=False)


def toml_value(v: Any) -> str:
    """``v`` as a TOML value (inline tables and arrays, any depth, written without recursion);
    floats may be inf/nan and :class:`tests.fuzzkit.RawJSON` values are written as TOML."""
    return nested_text(v, _toml_scalar, sep=", ", colon=" = ", ensure_ascii=False)


def toml_text(doc: dict[str, Any]) -> str:
    """The document as ``key = value`` lines (every table inline)."""
    return "".join(f"{json.dumps(str(k), ensure_ascii=False)} = {toml_value(v)}\n" for k, v in doc.items())


RAW_VALUES: tuple[str, ...] = (
    "inf",
    "-inf",
    "+inf",
    "nan",
    "-nan",
    "1e999",
    "-1e999",
    "9" * 5000,
    "-" + "9" * 5000,
    "0x" + "f" * 5000,
    "0o" + "7" * 5000,
    "0b" + "1" * 5000,
    str(2**64),
    "1979-05-27T07:32:00Z",
    "1979-05-27",
    "07:32:00",
    "true",
    "false",
    "0",
    "-1",
    "1.5",
    '""',
    '" "',
    '"\\u001b[31mred"',
    '"\\u0000"',
    '"\\u202e"',
    '"a\\nb"',
    '"[@click=app.quit]boom[/]"',
    '"[link=http://x]y[/link]"',
    '"[/]"',
    "'''multi\nline'''",
    "[]",
    "[1]",
    "[[]]",
    '[{name = "X", kind = "greedy"}]',
    "{}",
    "[" * 500 + "]" * 500,
    "[" * 300 + "]" * 300,
    "{a = " * 500 + "1" + "}" * 500,
    "{a = " * 200 + "1" + "}" * 200,
    json.dumps("x" * 5000),
)


def _weird_value(rng: random.Random, like: Any) -> str:
    options = list(RAW_VALUES)
    if isinstance(like, str):
        options += [json.dumps(like + "\u001b"), json.dumps(like.upper()), json.dumps(like * 2), json.dumps(like[1:])]
    elif isinstance(like, int) and not isinstance(like, bool):
        options += [str(like + d) for d in (-1000, -1, 1, 1000)] + [f"{like}.0", f'"{like}"']
    return rng.choice(options)


_MARK = "\u2063FUZZ\u2063"


def _with_raw_value(doc: dict[str, Any], rng: random.Random) -> str:
    """TOML text of ``doc`` with one value (or a new key) replaced by a raw TOML value."""
    doc = copy.deepcopy(doc)
    if not doc or rng.random() < 0.15:
        key = rng.choice(["player_name", "pace", "theme", "four_colour", "opponents", "rules", "colour", "\u001b"])
        doc[key] = _MARK
        like: Any = None
    else:
        path, like = pick_place(doc, rng, 0.35)
        node: Any = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = _MARK
    return toml_text(doc).replace(json.dumps(_MARK, ensure_ascii=False), _weird_value(rng, like), 1)


def _raw_control(text: str, rng: random.Random) -> str:
    """Raw control characters (not escaped) somewhere in the text."""
    i = rng.randrange(len(text) + 1)
    return text[:i] + rng.choice(["\u001b", "\u0000", "\r", "\u007f", "\u2028", "\ufeff", "\t"]) + text[i:]


def _generic(text: str, doc: dict[str, Any], rng: random.Random) -> bytes:
    """A generic mutation from tests.fuzzkit: of the document (written as TOML), of the bytes, or both."""
    roll = rng.random()
    if roll < 0.6:
        data = toml_text(_as_table(fuzzkit.mutate_doc(doc, rng))).encode("utf-8", "surrogatepass")
        return fuzzkit.mutate_bytes(data, rng) if roll < 0.15 else data
    return fuzzkit.mutate_bytes(text.encode("utf-8"), rng)


def _as_table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {"value": value}


def cases(rng: random.Random, n: int) -> Iterator[bytes]:
    """``n`` settings files (bytes) to try; about one in ten is left valid."""
    docs = valid_settings()
    for _ in range(n):
        doc = rng.choice(docs)
        text = tomli_w.dumps(doc) if rng.random() < 0.6 else toml_text(doc)
        kind = rng.random()
        if kind < 0.1:
            yield text.encode("utf-8")
        elif kind < 0.55:
            yield _with_raw_value(doc, rng).encode("utf-8", "surrogatepass")
        elif kind < 0.65:
            yield _raw_control(text, rng).encode("utf-8", "surrogatepass")
        else:
            yield _generic(text, doc, rng)


# ---------------------------------------------------------------- the contract
def check(data: bytes, tmpdir: Path) -> str | None:
    """None when loading ``data`` as the settings keeps the contract (module docs), else what broke."""
    named = in_fresh_folder(tmpdir, lambda folder: _check_named(data, folder))
    if named is not None:
        return f"a file named by the user: {named}"
    ours = in_fresh_folder(tmpdir, lambda folder: _check_ours(data, folder))
    return None if ours is None else f"the app's own file: {ours}"


@contextmanager
def default_settings_in(folder: Path) -> Iterator[Path | None]:
    """The app's own settings file moved into ``folder`` for the block ($XDG_CONFIG_HOME, which
    platformdirs reads on Linux; $KINGS_CORNERS_CONFIG unset); None where that does not move it."""
    with patch.dict(os.environ, {"XDG_CONFIG_HOME": str(folder)}):
        os.environ.pop(ENV_CONFIG, None)
        path = default_config_path()
        yield path if folder in path.parents else None


def _usable_problem(cfg: Config, path: Path, data: bytes, folder: Path) -> str | None:
    if not path.is_file() or path.read_bytes() != data:
        return "usable settings were moved or changed by loading them"
    step = "validate"
    try:
        cfg.validate()
        step = "save_config"
        save_config(cfg, path)
        step = "load_config of the saved file"
        back, problem = load_config(path)
    except Exception as exc:
        return f"usable settings failed at {step}: {type(exc).__name__}: {cut(exc)}"
    if problem is not None or back != cfg:
        return f"usable settings do not survive save_config/load_config ({problem!r})"
    others = sorted(p.name for p in folder.iterdir() if p != path)
    if others:
        return f"saving left other files beside the settings: {others}"
    return None


def _loaded(path: Path | None) -> tuple[Config, str | None] | str:
    try:
        cfg, warning = load_config(path)
    except Exception as exc:
        return f"load_config raised {type(exc).__name__}: {cut(exc)}"
    if not isinstance(cfg, Config):
        return f"load_config gave {type(cfg).__name__}, not a Config"
    if warning is not None and cfg != Config():
        return "bad settings did not give the defaults"
    return cfg, warning


class _Done(NamedTuple):
    """The end of a check, with its problem (None: none)."""

    problem: str | None


def _written_and_loaded(data: bytes, path: Path, arg: Path | None, folder: Path) -> str | _Done:
    """Writes ``data`` to ``path`` and loads the settings from ``arg`` (None: the app's own file):
    the warning, or the end of the check when loading failed or the file was used."""
    path.write_bytes(data)
    got = _loaded(arg)
    if isinstance(got, str):
        return _Done(got)
    cfg, warning = got
    if warning is None:
        return _Done(_usable_problem(cfg, path, data, folder))
    return warning


def _check_named(data: bytes, folder: Path) -> str | None:
    path = folder / SETTINGS_NAME
    warning = _written_and_loaded(data, path, path, folder)
    if isinstance(warning, _Done):
        return warning.problem
    if not isinstance(warning, str) or not warning.isprintable():
        return f"the warning is not one plain line: {warning!r}"
    if "left as it is" not in warning:
        return f"the warning does not say the file was left as it is: {warning!r}"
    try:
        save_config(Config(), path)
    except NotASettingsFile:
        pass
    except Exception as exc:
        return f"saving over a refused named file raised {type(exc).__name__}: {cut(exc)}"
    else:
        return "saving over a refused named file wrote over it"
    if not path.is_file() or path.read_bytes() != data:
        return "a refused named file was changed"
    others = sorted(p.name for p in folder.iterdir() if p != path)
    if others:
        return f"files were added beside a refused named file: {others}"
    return None


def _check_ours(data: bytes, folder: Path) -> str | None:
    with default_settings_in(folder) as path:
        if path is None:
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        warning = _written_and_loaded(data, path, None, path.parent)
        if isinstance(warning, _Done):
            return warning.problem
        return kept_aside_problem(data, path, warning)
