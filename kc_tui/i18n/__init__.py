"""The game's languages: stdlib gettext catalogs, English the source and the fallback.

Every text a player sees goes through :func:`_` (or :func:`ngettext` when it counts something)
at the moment it is drawn, so a language chosen later still applies. A text declared at import
(a binding's description, a variant's label) is marked with :func:`N_`, which returns it
unchanged for Babel to find, and passed through :func:`_` where it is shown.

The catalogs live beside this module: ``locale/<code>/LC_MESSAGES/kings_corners.po`` (the
source, made with Babel) and its compiled ``.mo``. Plain Python: no Textual, no Rich.
"""

from __future__ import annotations

import gettext as _gettext
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

_current: _gettext.NullTranslations = _gettext.NullTranslations()
_code: str = SOURCE


def _(message: str) -> str:
    """``message`` in the current language (itself when it has no translation)."""
    return _current.gettext(message)


def N_(message: str) -> str:
    """Mark ``message`` for translation where it is declared; it is translated where shown."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a counted text for ``n`` in the current language (its plural rule)."""
    return _current.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, told apart from the same English in ``context``."""
    return _current.pgettext(context, message)


def current() -> str:
    """The code of the language in use."""
    return _code


def catalog(code: str) -> _gettext.NullTranslations:
    """The translations of ``code`` (English's are empty); a missing catalog gives English."""
    if code == SOURCE:
        return _gettext.NullTranslations()
    try:
        return _gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[code])
    except OSError:
        return _gettext.NullTranslations()


def use(code: str) -> str:
    """Speak ``code`` from now on (an unknown code is English); the code in use is returned."""
    global _current, _code
    code = code if code in LANGUAGES else SOURCE
    _current = catalog(code)
    _code = code
    return code
