"""The fields of the settings that the settings screen and the New game set-up share: whole-number
fields that check themselves as you type, and a row for every rule variant (its title, its field
and its explanation), read from the rules' declarations (:data:`kc_tui.engine.VARIANTS`).

A row that only applies with another setting's value carries that value as a class (the target
score's row ``points``, the chips settings' row ``chips``): the screen shows it only then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.dom import DOMNode
from textual.validation import ValidationResult, Validator
from textual.widgets import Button, Input, Label, Select, Static, Switch

import ai
from kc_tui.config import DEFAULT_OPPONENT_NAMES, HUMAN, Opponent, name_problem
from kc_tui.engine import VARIANTS, Rules, Variant
from kc_tui.engine.rules import SCORING, TARGET, Scoring
from kc_tui.i18n import _
from kc_tui.match.roster import HUMAN_NAME, default_name
from kc_tui.ui.literal_text import plain

#: The variants of the "Match" section (scoring), the others are house rules: both read from the
#: rules' declarations, in their order.
MATCH_RULES: tuple[Variant[Any], ...] = tuple(v for v in VARIANTS if v.rule.startswith(("R15", "R16")))
HOUSE_RULES: tuple[Variant[Any], ...] = tuple(v for v in VARIANTS if v not in MATCH_RULES)
#: The target score's presets.
TARGET_PRESETS: tuple[int, ...] = (25, 50)
#: The settings that only apply with another's value, beyond the rules' own ``only_with``: the
#: target score ends a points match only (a chips match ends after its rounds).
ONLY_WITH: dict[str, tuple[str, str]] = {TARGET.key: (SCORING.key, Scoring.POINTS)}


def only_with(v: Variant[Any]) -> tuple[str, str] | None:
    """``(key, value)`` when ``v`` only applies while variant ``key`` has that value, else None."""
    return v.only_with or ONLY_WITH.get(v.key)


class Check(Validator):
    """A validator from a function returning the problem as text, or None."""

    def __init__(self, problem: Callable[[str], str | None]) -> None:
        super().__init__()
        self.problem = problem

    def validate(self, value: str) -> ValidationResult:
        msg = self.problem(value)
        return self.success() if msg is None else self.failure(msg)


def name_check(what: str) -> Check:
    return Check(lambda v: name_problem(v.strip(), what))


def number_problem(text: str, what: str, lo: int, hi: int) -> str | None:
    """Why ``text`` is not a whole number from ``lo`` to ``hi`` (spaces around it allowed), or
    None when it is. Whatever is wrong (nothing typed, junk, a sign, a fraction, a number out of
    range), the message is the same: ``what`` and the numbers allowed; the text typed is never
    quoted. Only the digits 0-9 count (no control characters, no other digits), and a long one
    is refused before it is read as a number."""
    t = text.strip(" ")
    ok = t.isascii() and t.isdigit() and len(t.lstrip("0")) <= len(str(hi)) and lo <= int(t) <= hi
    # Translators: {what} names the field ("Hand size"); {lo} and {hi} are the numbers allowed.
    return None if ok else _("{what}: a whole number from {lo} to {hi}").format(what=what, lo=lo, hi=hi)


def number_value(text: str, lo: int, hi: int) -> int | None:
    """The whole number ``text`` holds when :func:`number_problem` accepts it, else None."""
    return int(text.strip(" ")) if number_problem(text, "", lo, hi) is None else None


def int_check(what: str, lo: int, hi: int) -> Check:
    return Check(lambda v: number_problem(v, what, lo, hi))


def number_input(value: str, id: str, what: str, bounds: tuple[int, int], max_length: int, classes: str = "") -> Input:
    """A compact whole-number field that checks itself as you type (``what`` names it in errors:
    "Hand size: a whole number from 1 to 10")."""
    lo, hi = bounds
    return Input(
        value,
        id=id,
        max_length=max_length,
        validators=[int_check(what, lo, hi)],
        compact=True,
        classes=f"number {classes}".strip(),
    )


def show_scoring(node: DOMNode, chips: bool) -> None:
    """Under ``node``: the chips settings (class ``chips``) with chips scoring, the target score
    (class ``points``) with points."""
    for w in node.query(".chips"):
        w.display = chips
    for w in node.query(".points"):
        w.display = not chips


def default_opponent(i: int) -> Opponent:
    """The opponent offered for seat ``i`` (0-2) when the settings have none there."""
    kinds = ("greedy", "king-aware", "lookahead")
    return Opponent(DEFAULT_OPPONENT_NAMES[i], kinds[i])


def name_for_kind(name: str, kind: str, taken: list[str]) -> str | None:
    """The name an opponent called ``name`` takes when its kind becomes ``kind`` (an AI kind or a
    person, :data:`HUMAN`): the new kind's default name (not one of ``taken``) while ``name`` is
    some kind's default name (with or without a number), else None (a name the player chose is
    kept)."""
    player_names = {k.name: k.player_name for k in ai.kinds()} | {HUMAN: HUMAN_NAME}
    base = name.strip().rstrip("0123456789").strip()
    if base in player_names.values() and not name.strip().startswith(player_names.get(kind, "\0")):
        return default_name(kind, taken)
    return None


def variant_rows(variants: tuple[Variant[Any], ...], rules: Rules) -> ComposeResult:
    """A row for each variant (its title, its field and its explanation); the variants that
    only matter with another's value share one row, shown only then."""
    grouped = [v for v in variants if v.only_with is not None]
    for v in variants:
        if v.only_with is not None:
            if v is grouped[0]:
                yield from grouped_row(tuple(grouped), rules)
            continue
        value = getattr(rules, v.key)
        only = only_with(v)  # the target score: its row is shown with points scoring only
        row_id = f"{v.key}-row" if only else None
        with HorizontalGroup(classes=f"row {only[1]}" if only else "row", id=row_id):
            yield Label(_(v.title), classes="label")
            if v.choices:
                yield choice_select(v, value)
            elif v.type is bool:  # pragma: no cover - every switch so far is a chips setting
                yield Switch(value, id=v.key)
            else:
                lo, hi = v.settings_range
                yield number_field(v, value)
                if v.key == TARGET.key:
                    for preset in TARGET_PRESETS:
                        yield Button(str(preset), id=f"target-{preset}", compact=True, classes="preset")
                    yield Label(plain(_("any whole number {lo}-{hi}").format(lo=lo, hi=hi)), classes="unit")
                else:
                    # Translators: the numbers a field allows ({lo}-{hi}) and its usual value.
                    usual = _("{lo}-{hi}, usually {default}").format(lo=lo, hi=hi, default=v.default)
                    yield Label(plain(usual), classes="unit")
        if v.choices:
            # Translators: {rule} is a rule's id ("R15"), {default} the choice's usual value.
            desc = _("{rule}: {explanation}; usually {default}")
            yield Static(
                plain(desc.format(rule=v.rule, explanation=_(v.explanation), default=v.default)), classes="desc"
            )
        elif v.key != TARGET.key:
            yield Static(plain(f"{v.rule}: {_(v.explanation)}"), classes="desc")


def grouped_row(variants: tuple[Variant[Any], ...], rules: Rules) -> ComposeResult:
    """One row for the variants that only matter with another's value (the chips settings)."""
    _key, value = variants[0].only_with or ("", "")
    cls = value  # the chips settings: class "chips", row "chips-row"
    with HorizontalGroup(classes=f"row {cls}", id=f"{cls}-row"):
        for n, v in enumerate(variants):
            if n == 0:
                yield Label(_(v.title), classes="label")
            else:
                yield Label(_(v.title).lower(), classes="mini wide" if v.type is bool else "mini")
            if v.type is bool:
                yield Switch(getattr(rules, v.key), id=v.key)
            else:
                yield number_field(v, getattr(rules, v.key))
    rule = variants[0].rule
    # The scoring these settings belong to, by its name ("Chips"): a msgid of the summaries too.
    setting = _(value.capitalize()) if value else value
    explanations = "; ".join(_(v.explanation) for v in variants)
    # Translators: {setting} is a way of scoring ("Chips"), {rule} its rule id, then what its settings do.
    desc = _("{setting} ({rule}): {explanations}").format(setting=setting, rule=rule, explanations=explanations)
    yield Static(plain(desc), classes=f"desc {cls}")


def number_field(v: Variant[Any], value: int) -> Input:
    """The field of the whole-number variant ``v`` (its id the variant's key)."""
    lo, hi = v.settings_range
    # One digit more than the largest value offered when narrower than the engine's range,
    # so a value over it is typed and refused with a message.
    width = len(str(hi)) + (1 if v.offered else 0)
    return number_input(str(value), v.key, _(v.title), (lo, hi), width)


def choice_select(v: Variant[str], value: str) -> Select[str]:
    """The list of the word-valued variant ``v``'s choices (its id the variant's key)."""
    # The default is named on the line under the field (a longer choice would be cut at 80 columns).
    options = [(f"{c.value}: {_(c.label)}", c.value) for c in v.choices]
    return Select(options, value=value, allow_blank=False, id=v.key, compact=True, classes="choice")
