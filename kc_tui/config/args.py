"""What the ``kings-corners`` command and the app's launcher share: the error a bad command line
is reported with and the checks of the values they both take (AI kinds, the seats of a match,
the target score).

It imports neither :mod:`kc_tui.cli` nor :mod:`kc_tui.ui`, so both import it without a cycle.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ai import UnknownKind, ai_kinds, kind_info, normalize_kind
from kc_tui.config import HUMAN, SEATS_RANGE, ConfigError, check_human_names, name_problem
from kc_tui.engine.rules import TARGET
from kc_tui.i18n import _
from kc_tui.util.printable import one_line

#: The targets the app takes (``--target``): the settings' range, declared with the rule.
TARGET_RANGE: tuple[int, int] = TARGET.settings_range


class CliError(Exception):
    """A problem to report as one line on stderr with exit code 2."""


def is_kind(name: str) -> bool:
    """Whether ``name`` (normalised) is an AI kind; only its own module is imported to know (the
    registry's list of every kind imports them all)."""
    try:
        kind_info(name)
    except UnknownKind:
        return False
    return True


def parse_kinds(text: str, what: str, lo: int, hi: int) -> list[str]:
    """AI kinds from comma text, each normalised by :func:`ai.normalize_kind`; :class:`CliError`
    for a kind the AI registry does not have or for fewer than ``lo`` or more than ``hi``."""
    typed = [k.strip() for k in text.split(",") if k.strip()]
    kinds = [normalize_kind(k) for k in typed]
    for said, k in zip(typed, kinds, strict=True):
        if not is_kind(k):
            every = ", ".join(ai_kinds())
            raise CliError(_("unknown AI kind {kind}: choose from {kinds}").format(kind=repr(said), kinds=every))
    if not lo <= len(kinds) <= hi:
        # Translators: {what} is what is counted, "opponents" or "seats".
        raise CliError(
            _("choose {low} to {high} {what}, not {count}").format(low=lo, high=hi, what=what, count=len(kinds))
        )
    return kinds


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """One seat of ``--seats``: a person (``kind`` :data:`HUMAN`, with their name) or an AI kind
    (``name`` None: the launcher names it after its kind)."""

    kind: str
    name: str | None = None

    @property
    def is_human(self) -> bool:
        return self.kind == HUMAN


def parse_seats(text: str, player_name: str | None) -> list[SeatSpec]:
    """The seats of ``--seats`` in order around the table, from comma text: ``human:NAME``
    (a person), ``human`` (the person named ``player_name``, the settings' name) or an AI kind
    (normalised by :func:`ai.normalize_kind`). :class:`CliError` for an unknown kind, a name
    the settings would refuse or that holds markup (``[`` or ``]``), two people of one name,
    no person at all, or fewer or more seats than a match has. ``player_name`` None: a table
    of AIs only (``tournament --seats``), every seat an AI kind (:func:`parse_kinds`)."""
    if player_name is None:
        return [SeatSpec(kind) for kind in parse_kinds(text, "seats", *SEATS_RANGE)]
    specs: list[SeatSpec] = []
    known = ai_kinds()
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        head, colon, name = part.partition(":")
        if normalize_kind(head) == HUMAN:
            specs.append(SeatSpec(HUMAN, _person_name(name.strip() if colon else player_name)))
            continue
        kind = normalize_kind(part)
        if colon or kind not in known:
            raise CliError(
                _("unknown AI kind {kind}: choose human, human:NAME or one of {kinds}").format(
                    kind=repr(part), kinds=", ".join(known)
                )
            )
        specs.append(SeatSpec(kind))
    lo, hi = SEATS_RANGE
    if not lo <= len(specs) <= hi:
        raise CliError(_("choose {low} to {high} seats, not {count}").format(low=lo, high=hi, count=len(specs)))
    people = [s.name for s in specs if s.name is not None]
    if not people:
        raise CliError(_("--seats needs a human seat: an AI-only table is the demo ('demo --seats')"))
    try:
        check_human_names(people)
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    return specs


def typed_text(text: str, what: str) -> str:
    """``text`` from the command line as it was typed: bytes Python kept as surrogate escapes
    (its locale is not UTF-8, e.g. C without UTF-8 mode) are read as UTF-8; :class:`CliError`
    when they are not UTF-8. ``what`` names the argument in the message."""
    if not any("\udc80" <= ch <= "\udcff" for ch in text):
        return text
    raw = os.fsencode(text)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        shown = raw.decode("utf-8", "backslashreplace")
        # Translators: {what} is what was typed, "the name"; {text} the text as typed.
        raise CliError(
            _("{what} '{text}' is not UTF-8 text: type it in a UTF-8 terminal").format(
                what=what, text=one_line(shown, 60)
            )
        ) from None


def _person_name(name: str) -> str:
    """A person's name from the command line, checked as the settings check it; no markup."""
    name = typed_text(name, _("the name"))
    # Translators: the field a name problem is about, "{what} cannot be empty"; {name} is quoted.
    problem = name_problem(name, _("the name {name}").format(name=repr(name)) if name else _("a human seat's name"))
    if problem is not None:
        raise CliError(problem)
    if "[" in name or "]" in name:
        raise CliError(_("the name {name} cannot hold markup ('[' or ']')").format(name=repr(name)))
    return name


def seats_help() -> str:
    """The help of ``play --seats``."""
    lo, hi = SEATS_RANGE
    return _(
        "the seats around the table, {low} to {high}, comma-separated: human:NAME, human (your name from"
        " Settings) or an AI kind, e.g. human:Ana,human:Ben,expert (kinds: {kinds})"
    ).format(low=lo, high=hi, kinds=", ".join(ai_kinds()))


def check_target(target: int | None) -> None:
    """:class:`CliError` unless ``target`` is None or in the settings' range of targets."""
    lo, hi = TARGET_RANGE
    if target is not None and not lo <= target <= hi:
        raise CliError(
            _("target must be a whole number from {low} to {high}, not {value}").format(low=lo, high=hi, value=target)
        )


def target_help() -> str:
    """The help of ``--target``."""
    lo, hi = TARGET_RANGE
    return _("target score ({low} to {high})").format(low=lo, high=hi)


def kinds_help(example: str, lo: int, hi: int) -> str:
    """The help of an option that takes AI kinds (``--opponents``, ``--seats``)."""
    # Translators: {example} is AI kinds as typed, "greedy,expert".
    return _("comma-separated AI kinds, {low} to {high}, e.g. {example} (kinds: {kinds})").format(
        low=lo, high=hi, example=example, kinds=", ".join(ai_kinds())
    )


__all__ = [
    "CliError",
    "SeatSpec",
    "check_target",
    "kinds_help",
    "parse_kinds",
    "parse_seats",
    "seats_help",
    "target_help",
]
