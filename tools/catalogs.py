"""Make and check the game's translation catalogs with Babel and gettext's msgfmt:
``python tools/catalogs.py extract|update|compile|check|all``.

- ``extract``: every marked text of ``kc_tui`` and ``ai`` (``_``, ``N_``, ``ngettext:1,2``,
  ``pgettext:1c,2``; the ``# Translators:`` comments above them) into the template
  ``kc_tui/i18n/kings_corners.pot`` (``babel.cfg`` says which files).
- ``update``: each language's ``kc_tui/i18n/locale/<code>/LC_MESSAGES/kings_corners.po`` brought
  up to the template (made when missing), its Plural-Forms header set as the game declares it
  (:data:`kc_tui.i18n.PLURAL_FORMS`: Italian two forms, Thai and Vietnamese one); the Thai
  translations get a U+200B break mark between each two words (``tools/thai_breaks.py``, with
  PyThaiNLP's segmenter: when it is not installed the marks are left as they are, and said so).
- ``compile``: the ``.mo`` beside each ``.po`` (fuzzy entries left out); the ``.mo`` files are
  committed and shipped in the wheel.
- ``check``: ``msgfmt --check`` on each ``.po`` (its warnings too), its text NFC, its
  Plural-Forms as declared, its ``.mo`` what ``compile`` makes of it now, no Thai translation
  with a run of Thai wider than :data:`MAX_UNBROKEN` cells without a break mark, and none with
  a mark inside one of the words ``tools/thai_breaks.py`` keeps whole (``WHOLE_WORDS``).
  Exit 1 when any is not.
- ``all``: extract, update, compile, check.

A development script of the repository (Babel is in the ``test`` extra, not a dependency of the
game); run it from the repository's root, where ``babel.cfg`` is. ``--root DIR`` works on another
tree (the tests make catalogs in a temporary one).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib.util
import io
import shutil
import subprocess
import sys
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType

from babel.messages.catalog import Catalog
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from kc_tui import __version__
from kc_tui.i18n import DOMAIN, LANGUAGES, PLURAL_FORMS, SOURCE

ROOT = Path(__file__).resolve().parent.parent
#: Where the catalogs are, under the root.
I18N = Path("kc_tui") / "i18n"
KEYWORDS: tuple[str, ...] = ("_", "N_", "ngettext:1,2", "pgettext:1c,2")
COMMENT_TAG = "Translators:"
#: The languages translated into (English is the source).
TARGETS: tuple[str, ...] = tuple(code for code in LANGUAGES if code != SOURCE)
#: The languages whose translations hold a U+200B break mark between words (written without
#: spaces between them, a terminal cannot tell where their lines may break).
BREAK_MARKED: tuple[str, ...] = ("th",)
#: The widest run of Thai, in cells (its letters; the vowels and tone marks above and below them
#: take none), that may go without a break mark. The longest single words of the catalog, which
#: PyThaiNLP's dictionary holds as one word, are the compass points: ตะวันออกเฉียงเหนือ
#: (north-east) takes 15.
MAX_UNBROKEN = 15
#: The catalogs' Last-Translator (Babel's placeholder before it: msgfmt warns of that).
TRANSLATOR = "Kings Corners translators"
DEFAULT_TRANSLATOR = "FULL NAME <EMAIL@ADDRESS>"


def _load_thai_breaks() -> ModuleType:
    """``tools/thai_breaks.py`` as a module (this script runs from any folder)."""
    spec = importlib.util.spec_from_file_location("thai_breaks", Path(__file__).with_name("thai_breaks.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


thai_breaks = _load_thai_breaks()
#: A word segmenter: a run of Thai in its words (``tools/thai_breaks.py``).
Segmenter = Callable[[str], Sequence[str]]


def template_path(root: Path = ROOT) -> Path:
    return root / I18N / f"{DOMAIN}.pot"


def po_path(code: str, root: Path = ROOT) -> Path:
    return root / I18N / "locale" / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def shipped(root: Path = ROOT) -> list[str]:
    """The languages that have a catalog (a ``.po``) under ``root``."""
    return [code for code in TARGETS if po_path(code, root).is_file()]


def read_catalog(path: Path, code: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=code)


def extract(root: Path = ROOT) -> Path:
    """Write the template from the marked texts; its path is returned."""
    out = template_path(root)
    out.parent.mkdir(parents=True, exist_ok=True)
    argv = ["pybabel", "-q", "extract", "-F", "babel.cfg", "-o", str(out), "--no-default-keywords"]
    for keyword in KEYWORDS:
        argv += ["-k", keyword]
    argv += ["-c", COMMENT_TAG, "--sort-by-file", "--project", "Kings Corners", "--version", __version__]
    argv += ["--copyright-holder", "Kings Corners", "."]
    with contextlib.chdir(root):
        CommandLineInterface().run(argv)  # type: ignore[no-untyped-call]
    return out


def set_plural_forms(catalog: Catalog, code: str) -> None:
    """Give ``catalog`` the Plural-Forms the game declares for ``code`` (not Babel's CLDR rule)."""
    catalog.mime_headers = [("Plural-Forms", PLURAL_FORMS[code])]


def translations(catalog: Catalog) -> dict[object, object]:
    """Every translation of ``catalog`` (its fuzzy flag too), by message."""
    return {(m.id, m.context): (m.string, "fuzzy" in m.flags) for m in catalog if m.id}


def set_revision(catalog: Catalog, *, changed: bool, now: datetime.datetime | None = None) -> None:
    """Give ``catalog`` the translators' name (:data:`TRANSLATOR`, in place of Babel's
    placeholder) and, when its translations ``changed`` or it has none yet, the revision date
    ``now`` (the present minute, UTC): msgfmt warns of a header left as Babel makes it. An update
    that changes no translation keeps the date, so updating twice changes nothing."""
    if catalog.last_translator in ("", DEFAULT_TRANSLATOR):
        catalog.last_translator = TRANSLATOR
    if changed or not isinstance(catalog.revision_date, datetime.datetime):
        moment = now or datetime.datetime.now(datetime.UTC)
        catalog.revision_date = moment.replace(second=0, microsecond=0)


def thai_segmenter() -> Segmenter | None:
    """PyThaiNLP's word segmenter (``tools/thai_breaks.py``), None when it is not installed."""
    try:
        segment: Segmenter = thai_breaks.pythainlp_words()
    except ImportError:
        return None
    return segment


def mark_breaks(catalog: Catalog, segment: Segmenter) -> int:
    """Put a break mark between each two words of every translation in ``catalog`` (marks already
    there are taken out first: marking again changes nothing); how many messages changed."""
    changed = 0
    for message in catalog:
        if not message.id or not message.string:
            continue
        now = message.string if isinstance(message.string, str) else tuple(message.string)
        if isinstance(now, str):
            marked: str | tuple[str, ...] = thai_breaks.mark(now, segment)
        else:
            marked = tuple(thai_breaks.mark(form, segment) if form else form for form in now)
        if marked != now:
            message.string = marked
            changed += 1
    return changed


def unbroken_runs(text: str) -> list[str]:
    """The runs of Thai in ``text`` wider than :data:`MAX_UNBROKEN` cells without a break mark."""
    return [run for run in thai_breaks.THAI_RUN.findall(text) if cells(run) > MAX_UNBROKEN]


def cells(run: str) -> int:
    """How many terminal cells a run of Thai takes: its combining vowels and tone marks take none."""
    return sum(1 for c in run if not unicodedata.category(c).startswith("M"))


def update(root: Path = ROOT, codes: Sequence[str] = TARGETS, segment: Segmenter | None = None) -> list[Path]:
    """Bring each language's ``.po`` up to the template (a new one when missing); their paths. The
    translations of :data:`BREAK_MARKED` languages get their break marks from ``segment``
    (None: PyThaiNLP's, when it is installed; else they are left as they are)."""
    template = read_catalog(template_path(root))
    if segment is None and any(code in BREAK_MARKED for code in codes):
        segment = thai_segmenter()
    done: list[Path] = []
    for code in codes:
        path = po_path(code, root)
        if path.is_file():
            catalog = read_catalog(path, code)
        else:
            catalog = Catalog(locale=code, domain=DOMAIN, project="Kings Corners", version=__version__, fuzzy=False)
            catalog.language_team = f"{LANGUAGES[code]} <{code}@li.org>"
        before = translations(catalog)
        catalog.update(template, update_header_comment=True)
        set_plural_forms(catalog, code)
        if code in BREAK_MARKED and segment is not None:
            mark_breaks(catalog, segment)
        set_revision(catalog, changed=translations(catalog) != before)
        path.parent.mkdir(parents=True, exist_ok=True)
        buffer = io.BytesIO()
        write_po(buffer, catalog, sort_by_file=True)
        path.write_bytes(buffer.getvalue())
        done.append(path)
    return done


def mo_bytes(po: Path, code: str) -> bytes:
    """What ``compile`` writes for ``po`` (its fuzzy entries left out)."""
    buffer = io.BytesIO()
    write_mo(buffer, read_catalog(po, code), use_fuzzy=False)
    return buffer.getvalue()


def compile_catalogs(root: Path = ROOT) -> list[Path]:
    """Write the ``.mo`` beside each language's ``.po``; their paths."""
    done: list[Path] = []
    for code in shipped(root):
        po = po_path(code, root)
        mo = po.with_suffix(".mo")
        mo.write_bytes(mo_bytes(po, code))
        done.append(mo)
    return done


def msgfmt_problems(po: Path) -> list[str]:
    """What ``msgfmt --check`` (the format of each message, the header, the domain) says is
    wrong with ``po``, its warnings too (nothing: [])."""
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        return ["msgfmt is not installed (Debian: apt-get install gettext)"]
    argv = [msgfmt, "--check", "-o", "/dev/null", str(po)]
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    said = [line for line in result.stderr.splitlines() if line.strip()]
    if result.returncode == 0:
        return said
    return said or [f"msgfmt exit {result.returncode}"]


def problems(root: Path = ROOT) -> Iterator[str]:
    """Every problem of the catalogs under ``root``, one line each (``check``)."""
    for code in shipped(root):
        po = po_path(code, root)
        shown = po.relative_to(root)
        for line in msgfmt_problems(po):
            yield f"{shown}: {line}"
        text = po.read_text(encoding="utf-8")
        if unicodedata.normalize("NFC", text) != text:
            yield f"{shown}: not NFC (python tools/catalogs.py update writes it again; or normalize it)"
        catalog = read_catalog(po, code)
        forms = catalog.plural_forms
        if forms != PLURAL_FORMS[code]:
            yield f"{shown}: Plural-Forms is {forms!r}, not {PLURAL_FORMS[code]!r}"
        if code in BREAK_MARKED:
            yield from (f"{shown}: {line}" for line in unmarked(catalog))
        mo = po.with_suffix(".mo")
        if not mo.is_file():
            yield f"{mo.relative_to(root)}: missing (python tools/catalogs.py compile)"
        elif mo.read_bytes() != mo_bytes(po, code):
            yield f"{mo.relative_to(root)}: older than its .po (python tools/catalogs.py compile)"


def unmarked(catalog: Catalog) -> Iterator[str]:
    """A line for each translation of ``catalog`` that holds a run of Thai too wide to go without
    a break mark (:func:`unbroken_runs`), or a mark inside a word kept whole."""
    for message in catalog:
        if not message.id:
            continue
        forms = message.string if isinstance(message.string, tuple | list) else (message.string,)
        runs = [run for form in forms if form for run in unbroken_runs(form)]
        msgid = message.id[0] if isinstance(message.id, tuple | list) else message.id
        for form in forms:
            for inside in thai_breaks.marks_inside(form) if form else ():
                yield (
                    f"{msgid!r}: a break mark inside the word {thai_breaks.unmark(inside)!r}: "
                    "python tools/catalogs.py update puts them again (pip install pythainlp)"
                )
        if runs:
            yield (
                f"{msgid!r}: {runs[0]!r} ({cells(runs[0])} cells) has no break mark: "
                "python tools/catalogs.py update puts them (pip install pythainlp), or put U+200B between its words"
            )


def check(root: Path = ROOT) -> int:
    found = list(problems(root))
    for line in found:
        print(line, file=sys.stderr)
    if not found:
        print(f"catalogs: {', '.join(shipped(root)) or 'none yet'}: all well")
    return 1 if found else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/catalogs.py", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["extract", "update", "compile", "check", "all"])
    parser.add_argument("--root", type=Path, default=ROOT, help="the tree to work on (default: this repository)")
    args = parser.parse_args(argv)
    root: Path = args.root
    if args.command in ("extract", "all"):
        print(f"template: {extract(root).relative_to(root)}")
    if args.command in ("update", "all"):
        segment = thai_segmenter()
        for path in update(root, segment=segment):
            print(f"updated: {path.relative_to(root)}")
        if segment is None and any(code in BREAK_MARKED for code in shipped(root)):
            print(
                f"break marks: not put into {', '.join(BREAK_MARKED)} (PyThaiNLP is not installed: "
                "pip install pythainlp); check finds a translation without them"
            )
    if args.command in ("compile", "all"):
        for path in compile_catalogs(root):
            print(f"compiled: {path.relative_to(root)}")
    if args.command in ("check", "all"):
        return check(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
