"""Which language the game speaks: ``--lang CODE``, else the ``language`` setting, else the
environment (LANGUAGE, LC_ALL, LC_MESSAGES, LANG, in gettext's order), else English.

A browser tab (``kings-corners serve``) runs with the server's environment, not the browser's:
there the setting is what counts. A terminal whose encoding cannot hold the language's letters
(a non-UTF-8 locale such as ``LC_ALL=C``) gets English, and one English line saying why, rather
than a screen of ``?``; so does a catalog that cannot be read (truncated, empty, not a catalog),
the line naming its file. Plain Python.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from typing import TextIO

from kc_tui.i18n import ENGLISH_NAMES, LANGUAGES, SOURCE, problem, use

#: The environment variables that name the language, in the order gettext reads them.
ENV_VARIABLES: tuple[str, ...] = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

#: Letters each language's texts need (its own name and the letters it writes most): a terminal
#: that cannot encode them cannot show the language.
LETTERS: dict[str, str] = {
    "en": "English",
    "sw": "Kiswahili",
    "th": "ไทย กขคงจฉชซ่้๊๋ะาำิีึืุู",
    "vi": "Tiếng Việt ăâđêôơưạảấầẩẫậ",
    "it": "Italiano àèéìòù",
}


def code_of(name: str) -> str | None:
    """The game's language for one locale name (``th_TH.UTF-8``, ``it``, ``vi-VN``, ``sw_KE@x``):
    its code, ``en`` for ``C`` and ``POSIX``, None for a language the game does not speak."""
    base = name.strip().split("@", 1)[0].split(".", 1)[0]
    if base.upper() in ("C", "POSIX"):
        return SOURCE
    lang = base.replace("-", "_").split("_", 1)[0].lower()
    return lang if lang in LANGUAGES else None


def from_environment(environ: Mapping[str, str] | None = None) -> str | None:
    """The language the environment asks for, read as gettext reads it: the first of
    :data:`ENV_VARIABLES` that is set and not empty is used (LANGUAGE is a colon-separated list,
    the first known language in it wins; ``C`` and ``POSIX`` mean English). None when that
    variable names no language the game speaks, or none is set."""
    env = os.environ if environ is None else environ
    for variable in ENV_VARIABLES:
        value = env.get(variable, "")
        if value:
            for name in value.split(":"):
                code = code_of(name) if name else None
                if code is not None:
                    return code
            return None
    return None


def choose(flag: str | None = None, setting: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The language to speak: ``flag`` (``--lang``), else ``setting`` (the saved ``language``),
    else the environment's (:func:`from_environment`), else English. An unknown code is skipped."""
    for code in (flag, setting):
        if code and code in LANGUAGES:
            return code
    return from_environment(environ) or SOURCE


def can_write(code: str, encodings: Iterable[str | None]) -> bool:
    """Whether text in every one of ``encodings`` (None: not known, so any) holds the letters of
    language ``code``."""
    letters = LETTERS.get(code, "")
    for encoding in encodings:
        if not encoding:
            continue
        try:
            letters.encode(encoding)
        except (UnicodeEncodeError, LookupError):
            return False
    return True


def _stream_encodings() -> list[str | None]:
    return [getattr(s, "encoding", None) for s in (sys.__stdout__, sys.__stderr__) if s is not None]


def unshowable_note(code: str, encoding: str) -> str:
    """The English line said when the terminal cannot show language ``code``."""
    name = ENGLISH_NAMES.get(code, code)
    return f"The terminal's encoding ({encoding}) cannot show {name} letters: using English (UTF-8 shows {name})."


def start(
    flag: str | None = None,
    setting: str | None = None,
    environ: Mapping[str, str] | None = None,
    encodings: Iterable[str | None] | None = None,
) -> tuple[str, str | None]:
    """Choose the language (:func:`choose`) and speak it (:func:`kc_tui.i18n.use`). The code in
    use is returned with a note: None, or the English line saying that the terminal (the output
    streams' ``encodings``) cannot show the chosen language, or that its catalog cannot be read
    (:func:`kc_tui.i18n.problem`), which is then not used: English is."""
    code = choose(flag, setting, environ)
    found = list(_stream_encodings() if encodings is None else encodings)
    if code != SOURCE and not can_write(code, found):
        bad = next(e for e in found if e and not can_write(code, [e]))
        use(SOURCE)
        return SOURCE, unshowable_note(code, bad)
    return use(code), problem()


def write_note(note: str | None, stream: TextIO | None = None) -> None:
    """Print ``note`` (when there is one) on its own line on ``stream`` (standard error)."""
    if note:
        out = sys.stderr if stream is None else stream
        try:
            out.write(note + "\n")
            out.flush()
        except (OSError, ValueError):
            pass


__all__ = ["ENV_VARIABLES", "LETTERS", "can_write", "choose", "code_of", "from_environment", "start", "write_note"]
