"""What the ``kings-corners`` command and the app's launcher share: the error a bad command line
is reported with and the checks of the values they both take (AI kinds, the target score).

It imports neither :mod:`kc_tui.cli` nor :mod:`kc_tui.ui`, so both import it without a cycle.
"""

from __future__ import annotations

from ai import ai_kinds, normalize_kind
from kc_tui.engine.rules import TARGET

#: The targets the app takes (``--target``): the settings' range, declared with the rule.
TARGET_RANGE: tuple[int, int] = TARGET.settings_range


class CliError(Exception):
    """A problem to report as one line on stderr with exit code 2."""


def parse_kinds(text: str, what: str, lo: int, hi: int) -> list[str]:
    """AI kinds from comma text, each normalised by :func:`ai.normalize_kind`; :class:`CliError`
    for a kind the AI registry does not have or for fewer than ``lo`` or more than ``hi``."""
    kinds = [normalize_kind(k) for k in text.split(",") if k.strip()]
    known = ai_kinds()
    for k in kinds:
        if k not in known:
            raise CliError(f"unknown AI kind {k!r}: choose from {', '.join(sorted(known))}")
    if not lo <= len(kinds) <= hi:
        raise CliError(f"choose {lo} to {hi} {what}, not {len(kinds)}")
    return kinds


def check_target(target: int | None) -> None:
    """:class:`CliError` unless ``target`` is None or in the settings' range of targets."""
    lo, hi = TARGET_RANGE
    if target is not None and not lo <= target <= hi:
        raise CliError(f"target must be a whole number from {lo} to {hi}, not {target}")


def target_help() -> str:
    """The help of ``--target``."""
    lo, hi = TARGET_RANGE
    return f"target score ({lo} to {hi})"


def kinds_help(example: str, lo: int, hi: int) -> str:
    """The help of an option that takes AI kinds (``--opponents``, ``--seats``)."""
    return f"comma-separated AI kinds, {lo} to {hi}, e.g. {example} (kinds: {', '.join(ai_kinds())})"


__all__ = ["CliError", "check_target", "kinds_help", "parse_kinds", "target_help"]
