"""The game's languages: stdlib gettext catalogs, English the source and the fallback.

Every text a player sees goes through :func:`_` (or :func:`ngettext` when it counts something)
at the moment it is drawn, so a language chosen later still applies. A text declared at import
(a binding's description, a variant's label) is marked with :func:`N_`, which returns it
unchanged for Babel to find, and passed through :func:`_` where it is shown.

The catalogs live beside this module: ``locale/<code>/LC_MESSAGES/kings_corners.po`` (the
source, made with Babel: ``tools/catalogs.py``) and its compiled ``.mo``. Numbers and dates are
written in the language's form by :func:`number` and :func:`date`; which language is spoken is
chosen by :mod:`kc_tui.i18n.choice`. Plain Python: no Textual, no Rich.
"""

from __future__ import annotations

import contextlib as _contextlib
import datetime as _datetime
import gettext as _gettext
from collections.abc import Iterator
from pathlib import Path

DOMAIN = "kings_corners"
LOCALE_DIR = Path(__file__).with_name("locale")
SOURCE = "en"

#: The languages the game speaks, by code, each named in its own words.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "sw": "Kiswahili",
    "th": "ไทย",
    "vi": "Tiếng Việt",
    "it": "Italiano",
}

#: Each language's name in English (for a line that must be English: the terminal cannot show it).
ENGLISH_NAMES: dict[str, str] = {"en": "English", "sw": "Swahili", "th": "Thai", "vi": "Vietnamese", "it": "Italian"}

#: The plural rule of each catalog, as its header says it (gettext's C expression). Set by hand:
#: Italian has two forms here (n != 1, the gettext convention), where CLDR gives three.
PLURAL_FORMS: dict[str, str] = {
    "en": "nplurals=2; plural=(n != 1);",
    "sw": "nplurals=2; plural=(n != 1);",
    "th": "nplurals=1; plural=0;",
    "vi": "nplurals=1; plural=0;",
    "it": "nplurals=2; plural=(n != 1);",
}

#: How each language writes a number: the decimal mark and the thousands separator (CLDR's
#: symbols; tests/i18n compares them with Babel's data).
NUMBER_MARKS: dict[str, tuple[str, str]] = {
    "en": (".", ","),
    "sw": (".", ","),
    "th": (".", ","),
    "vi": (",", "."),
    "it": (",", "."),
}

#: Each language's short date (CLDR's short date pattern: d, dd, M, MM, y, yy).
DATE_PATTERNS: dict[str, str] = {
    "en": "M/d/yy",
    "sw": "dd/MM/y",
    "th": "d/M/yy",
    "vi": "d/M/yy",
    "it": "dd/MM/yy",
}

#: The break mark the Thai catalog holds between two words (U+200B ZERO WIDTH SPACE).
BREAK_MARK = "\u200b"

_current: _gettext.NullTranslations = _gettext.NullTranslations()
_code: str = SOURCE
_problem: str | None = None
_marked: bool = True


def _shown(text: str) -> str:
    return text if _marked else text.replace(BREAK_MARK, "")


@_contextlib.contextmanager
def break_marks(keep: bool) -> Iterator[None]:
    """Within the block, translations keep their break marks (``keep``: a Textual screen breaks
    its lines there and draws nothing for them) or come without them (``not keep``: a line the
    command line prints, where a terminal would show nothing either but the mark would count as
    a character, or be escaped as one that is not printable). The setting before is restored."""
    global _marked
    before, _marked = _marked, keep
    try:
        yield
    finally:
        _marked = before


def marks_kept() -> bool:
    """Whether translations keep their break marks now (:func:`break_marks`)."""
    return _marked


def _(message: str) -> str:
    """``message`` in the current language (itself when it has no translation)."""
    return _shown(_current.gettext(message))


def N_(message: str) -> str:
    """Mark ``message`` for translation where it is declared; it is translated where shown."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a counted text for ``n`` in the current language (its plural rule)."""
    return _shown(_current.ngettext(singular, plural, n))


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, told apart from the same English in ``context``."""
    return _shown(_current.pgettext(context, message))


def current() -> str:
    """The code of the language in use."""
    return _code


class CatalogDamaged(Exception):
    """A language's catalog is there but cannot be read (truncated, empty, not a catalog,
    unreadable); its text is the English line that says so, naming the file."""


def catalog(code: str) -> _gettext.NullTranslations:
    """The translations of ``code`` (English's are empty); a missing catalog gives English.
    :class:`CatalogDamaged` when the catalog is there but cannot be read."""
    if code == SOURCE:
        return _gettext.NullTranslations()
    try:
        return _gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[code])
    except FileNotFoundError:
        return _gettext.NullTranslations()
    except Exception as exc:  # any fault of a damaged file's reading: struct.error, OSError, ValueError, ...
        path = _gettext.find(DOMAIN, localedir=LOCALE_DIR, languages=[code]) or str(LOCALE_DIR / code)
        raise CatalogDamaged(damaged_note(code, path, exc)) from None


def damaged_note(code: str, path: str, exc: BaseException) -> str:
    """The English line said when the catalog of ``code`` at ``path`` cannot be read (``exc``)."""
    name = ENGLISH_NAMES.get(code, code)
    reason = exc.strerror if isinstance(exc, OSError) and exc.errno and exc.strerror else "damaged"
    shown = "".join(c if c.isprintable() else "?" for c in path)
    return f"The {name} translations cannot be read ({reason}: {shown}): using English."


def use(code: str) -> str:
    """Speak ``code`` from now on (an unknown code is English); the code in use is returned.
    A catalog that cannot be read gives English (:func:`problem` says so)."""
    global _current, _code, _problem
    code = code if code in LANGUAGES else SOURCE
    try:
        _current = catalog(code)
        _problem = None
    except CatalogDamaged as exc:
        _current, code, _problem = _gettext.NullTranslations(), SOURCE, str(exc)
    _code = code
    return code


def problem() -> str | None:
    """The English line saying that the catalog :func:`use` was last asked for cannot be read
    (English is spoken instead), or None."""
    return _problem


def number(x: float, digits: int = 0, code: str | None = None) -> str:
    """``x`` with ``digits`` decimals, its thousands grouped, in the form of language ``code``
    (the one in use when None): 1,234.5 in English, 1.234,5 in Italian."""
    point, group = NUMBER_MARKS.get(code or _code, NUMBER_MARKS[SOURCE])
    text = f"{x:,.{max(digits, 0)}f}"
    return text.replace(",", "\0").replace(".", point).replace("\0", group)


def date(d: _datetime.date, code: str | None = None) -> str:
    """The day ``d`` in the short form of language ``code`` (the one in use when None): 3/7/26
    in English, 07/03/26 in Italian."""
    pattern = DATE_PATTERNS.get(code or _code, DATE_PATTERNS[SOURCE])
    fields = {
        "dd": f"{d.day:02d}",
        "d": str(d.day),
        "MM": f"{d.month:02d}",
        "M": str(d.month),
        "yy": f"{d.year % 100:02d}",
        "y": str(d.year),
    }
    out: list[str] = []
    i = 0
    while i < len(pattern):
        letter = pattern[i]
        j = i
        while j < len(pattern) and pattern[j] == letter:
            j += 1
        run = pattern[i:j]
        out.append(fields.get(run, run))
        i = j
    return "".join(out)
