"""The tournament's options: the command line, each AI kind's settings typed from its
constructor, every value checked before anything starts (:func:`parse_options`)."""

from __future__ import annotations

import argparse
import inspect
import math
import os
import tempfile
import typing
from dataclasses import dataclass
from functools import cache
from typing import Any

from ai import ai_kinds, kind_info, make_player, normalize_kind
from kc_tui.config import THINK_MS_RANGE
from kc_tui.config.args import CliError
from kc_tui.config.args import parse_seats as parse_table_seats
from kc_tui.engine import Rules, RulesError
from kc_tui.engine.rules import rules_help
from kc_tui.i18n import N_, _

EXIT_BAD_INPUT = 2
#: The exit status when the run finished but ``--json FILE`` could not be written at the end (the
#: JSON then goes to stdout instead, after the table, so the results are not lost).
EXIT_NOT_WRITTEN = 1
#: A round longer than this many turns is stopped and counted as a block (it never happens with
#: the shipped AIs under the default rules; it guards against two players passing forever).
DEFAULT_MAX_TURNS = 1000
#: The deals of a rounds tournament when neither ``--deals`` nor ``--matches`` is given.
DEFAULT_DEALS = 200

# Bounds of the options, both ends included.
DEALS_RANGE = (1, 1_000_000)
MATCHES_RANGE = (1, 100_000)
JOBS_RANGE = (1, 64)
SEED_RANGE = (0, 2**64 - 1)
MAX_TURNS_RANGE = (1, 100_000)
ITERATIONS_RANGE = (1, 100_000)
#: Any other number an AI setting takes (``--param``): not negative and at most this...
PARAM_MAX = 1_000_000
#: ...unless it has its own range here.
PARAM_RANGES: dict[str, tuple[int | float, int | float]] = {
    "think_ms": THINK_MS_RANGE,
    "iterations": ITERATIONS_RANGE,
    "candidates": (1, PARAM_MAX),
    "top": (1, PARAM_MAX),
    "node_limit": (1, PARAM_MAX),
    "sim_nodes": (1, PARAM_MAX),
    "tolerance": (0, 1),
}


class TournamentError(ValueError):
    """A bad option: reported as one line, exit status 2."""


def _span(r: tuple[int | float, int | float]) -> str:
    # Translators: a range of numbers, "1 to 100".
    return _("{low} to {high}").format(low=r[0], high=r[1])


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--seats",
        metavar=_("SEATS"),
        required=True,
        # Translators: {kinds} are the AI kinds, as typed; greedy,lookahead stays as it is.
        help=_("comma-separated AI kinds, 2 to 4, e.g. greedy,lookahead (kinds: {kinds})").format(
            kinds=", ".join(ai_kinds())
        ),
    )
    p.add_argument(
        "--deals",
        metavar=_("DEALS"),
        type=int,
        default=None,
        help=_(
            "number of deals, {span} (each played once per rotation, single rounds; "
            "default {default} unless --matches is given)"
        ).format(span=_span(DEALS_RANGE), default=DEFAULT_DEALS),
    )
    p.add_argument(
        "--matches",
        metavar=_("MATCHES"),
        type=int,
        default=None,
        # Translators: argparse shows "%%" as "%": keep it doubled.
        help=_(
            "play whole matches instead of single rounds: this many match seeds, {span}, each "
            "played to the end of the match (R15 points to the target, or R16 chips: see --rules) once per rotation "
            "of the seats with the same deals; reports matches won (a tied win shared, 1/k to each of k winners), "
            "the win rate with a 95%% interval clustered by match seed, mean final score, penalty (or chips) per "
            "round, and paired differences between the seats (not with --deals)"
        ).format(span=_span(MATCHES_RANGE)),
    )
    p.add_argument(
        "--seed",
        metavar=_("SEED"),
        type=int,
        default=0,
        help=_("seed of the tournament, {span} (same seed, same results; default 0)").format(span=_span(SEED_RANGE)),
    )
    p.add_argument(
        "--jobs",
        metavar=_("JOBS"),
        type=int,
        default=1,
        help=_("worker processes, {span} (results do not depend on it; default 1)").format(span=_span(JOBS_RANGE)),
    )
    p.add_argument(
        "--rules",
        nargs="*",
        default=[],
        metavar=_("KEY=VALUE"),
        help=_("rule variants, e.g. draw=end (as in RULES.md): {rules}").format(rules=rules_help()),
    )
    p.add_argument(
        "--json",
        metavar=_("FILE"),
        help=_(
            "also write the results as JSON to FILE ('-' for stdout); FILE's folder must exist and be writable "
            "before the run starts, FILE is replaced at the end in one step, and if it cannot be written then the "
            "JSON goes to stdout instead (exit status {status})"
        ).format(status=EXIT_NOT_WRITTEN),
    )
    p.add_argument(
        "--think-ms",
        metavar=_("THINK_MS"),
        type=float,
        default=None,
        help=_(
            "the time budget per turn in ms of the kinds that take a think time (the expert), "
            "{span} as in the app's settings (default 1000)"
        ).format(span=_span(THINK_MS_RANGE)),
    )
    p.add_argument(
        "--iterations",
        metavar=_("ITERATIONS"),
        type=int,
        default=None,
        help=_(
            "the kinds that take a think time (the expert) search this many deals a turn instead, "
            "{span} (deterministic)"
        ).format(span=_span(ITERATIONS_RANGE)),
    )
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar=_("KIND.KEY=VALUE"),
        help=_(
            "a strength setting of one AI kind, e.g. lookahead.samples=12 (repeatable); the value must have "
            "the type of the setting's default (whole number, number or true/false; 'none' where the default "
            "is none) and numbers must be finite and from 0 to {most} unless the setting has its own range "
            "(think_ms, iterations, counts from 1, tolerance 0 to 1)"
        ).format(most=PARAM_MAX),
    )
    p.add_argument(
        "--max-turns",
        metavar=_("MAX_TURNS"),
        type=int,
        default=DEFAULT_MAX_TURNS,
        help=_(
            "stop a round after this many turns, {span} (default {default}); with "
            "--matches the whole match is stopped and counted as capped"
        ).format(span=_span(MAX_TURNS_RANGE), default=DEFAULT_MAX_TURNS),
    )
    p.add_argument("--quiet", action="store_true", help=_("no progress bar"))


# ---------------------------------------------------------------------------------------- options
@dataclass(frozen=True)
class TournamentOptions:
    kinds: tuple[str, ...]
    names: tuple[str, ...]
    params: tuple[tuple[tuple[str, Any], ...], ...]
    #: The deals of rounds mode (0 in match mode).
    deals: int
    seed: int
    jobs: int
    rules: Rules
    max_turns: int
    #: The number of match seeds in match mode (``--matches``), None in rounds mode.
    matches: int | None = None

    @property
    def match_mode(self) -> bool:
        return self.matches is not None


def seat_names(kinds: list[str]) -> list[str]:
    """The kinds as given, a repeated kind getting ``#2``, ``#3``."""
    seen: dict[str, int] = {}
    names = []
    for k in kinds:
        seen[k] = seen.get(k, 0) + 1
        names.append(k if seen[k] == 1 else f"{k}#{seen[k]}")
    return names


@dataclass(frozen=True)
class Setting:
    """One keyword setting of an AI kind, as its constructor declares it."""

    name: str
    #: ``int``, ``float``, ``bool`` or ``str``: the type of the default (or of the annotation
    #: when the default is None).
    type: type
    #: Whether None is allowed (the default is None).
    optional: bool
    default: Any

    @property
    def range(self) -> tuple[int | float, int | float]:
        return PARAM_RANGES.get(self.name, (0, PARAM_MAX))


def _setting_type(default: Any, annotation: Any) -> type | None:
    if default is not None:
        t = type(default)
        return t if t in (int, float, bool, str) else None
    options = [a for a in typing.get_args(annotation) if a is not type(None)]
    if len(options) == 1 and options[0] in (int, float, bool, str):
        t0: type = options[0]
        return t0
    return None


@cache
def settings_of(kind: str) -> dict[str, Setting]:
    """The keyword settings of ``kind``'s constructor and of its base classes (the most derived
    class's default wins), e.g. ``lookahead`` -> ``node_limit``, ``top``, ``samples``, ..."""
    cls = type(make_player(kind, 0))
    out: dict[str, Setting] = {}
    for klass in reversed(cls.__mro__):
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        try:
            sig = inspect.signature(init, eval_str=True)
        except (NameError, TypeError, ValueError):
            sig = inspect.signature(init)
        for prm in sig.parameters.values():
            if prm.kind is not prm.KEYWORD_ONLY or prm.default is prm.empty:
                continue
            t = _setting_type(prm.default, prm.annotation)
            if t is not None:
                out[prm.name] = Setting(prm.name, t, prm.default is None, prm.default)
    return out


_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def _typed(s: Setting, text: str) -> Any:
    """The value of ``text`` for setting ``s``; ValueError saying what is expected."""
    low = text.strip().lower()
    if s.optional and low in ("none", "null"):
        return None
    if s.type is bool:
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        # Translators: {text} is what was typed, quoted; true, false and none are typed as they are.
        said = _("must be true or false or none, not {text}") if s.optional else _("must be true or false, not {text}")
        raise ValueError(said.format(text=repr(text)))
    if s.type is str:
        return text
    lo, hi = s.range
    if s.type is int:
        try:
            value: int | float = int(text)
        except ValueError:
            if s.optional:
                said = _("must be a whole number from {low} to {high} or none, not {text}")
            else:
                said = _("must be a whole number from {low} to {high}, not {text}")
            raise ValueError(said.format(low=lo, high=hi, text=repr(text))) from None
    else:
        try:
            value = float(text)
        except ValueError:
            if s.optional:
                said = _("must be a number from {low} to {high} or none, not {text}")
            else:
                said = _("must be a number from {low} to {high}, not {text}")
            raise ValueError(said.format(low=lo, high=hi, text=repr(text))) from None
    _check_number(s, value)
    return value


def _check_number(s: Setting, value: int | float) -> None:
    lo, hi = s.range
    if not math.isfinite(value) or not lo <= value <= hi:
        if s.type is int:
            said = _("must be a whole number from {low} to {high}, not {value}")
        else:
            said = _("must be a finite number from {low} to {high}, not {value}")
        raise ValueError(said.format(low=lo, high=hi, value=repr(value)))


def _bounded(option: str, value: Any, r: tuple[int | float, int | float], word: str = N_("a whole number")) -> None:
    """A :class:`TournamentError` unless ``value`` is in ``r``; ``word`` (marked with ``N_``) says
    what the option takes."""
    lo, hi = r
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and lo <= value <= hi
    if not ok:
        # Translators: {option} is an option (--deals), {word} what it takes (a whole number), {value} what was given.
        raise TournamentError(
            _("{option} must be {word} from {low} to {high}, not {value}").format(
                option=option, word=_(word), low=lo, high=hi, value=repr(value)
            )
        )


def parse_seats(text: str) -> list[str]:
    """The AI kinds of ``--seats``, normalised (``King_Aware`` -> ``king-aware``), read as
    ``play --seats`` reads a table of AIs (:func:`kc_tui.config.args.parse_seats`)."""
    try:
        return [seat.kind for seat in parse_table_seats(str(text), None)]
    except CliError as exc:
        raise TournamentError(str(exc)) from None


def parse_params(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Every AI kind's settings from ``--think-ms``, ``--iterations`` and ``--param``, typed and
    range-checked (only the settings given: the rest keep the AI's defaults)."""
    known = ai_kinds()
    per_kind: dict[str, dict[str, Any]] = {k: {} for k in known}
    # The searching kinds (those that take a think time, as declared in the registry).
    searchers = [k for k in known if kind_info(k).takes_think_time]
    if args.think_ms is not None:
        _bounded("--think-ms", args.think_ms, THINK_MS_RANGE, N_("a finite number of ms"))
        for k in searchers:
            per_kind[k]["think_ms"] = float(args.think_ms)
    if args.iterations is not None:
        _bounded("--iterations", args.iterations, ITERATIONS_RANGE)
        for k in searchers:
            per_kind[k]["iterations"] = args.iterations
    for item in args.param or []:
        lhs, sep, text = str(item).partition("=")
        kind_text, dot, key_text = lhs.strip().partition(".")
        kind = normalize_kind(kind_text)
        key = key_text.strip().lower().replace("-", "_")
        if not sep or not dot or not key or not kind:
            raise TournamentError(
                _("--param {item} must look like KIND.KEY=VALUE, e.g. lookahead.samples=12").format(item=repr(item))
            )
        if kind not in known:
            raise TournamentError(
                _("--param {item}: unknown AI kind {kind}: choose from {kinds}").format(
                    item=repr(item), kind=repr(kind_text.strip()), kinds=", ".join(known)
                )
            )
        settings = settings_of(kind)
        if key not in settings:
            if settings:
                has = _("its settings are {settings}").format(settings=", ".join(sorted(settings)))
            else:
                has = _("it has no settings")
            raise TournamentError(
                _("--param {item}: {kind} has no setting {key} ({has})").format(
                    item=repr(item), kind=kind, key=repr(key_text.strip()), has=has
                )
            )
        try:
            per_kind[kind][key] = _typed(settings[key], text.strip())
        except ValueError as exc:
            # Translators: {kind}.{key} is an AI's setting, {error} what its value must be ("must be ...").
            raise TournamentError(
                _("--param {item}: {kind}.{key} {error}").format(item=repr(item), kind=kind, key=key, error=exc)
            ) from None
    return per_kind


def parse_options(args: argparse.Namespace) -> TournamentOptions:
    """Every option checked, nothing started: a :class:`TournamentError` names the first bad one."""
    kinds = parse_seats(args.seats)
    deals, matches = getattr(args, "deals", None), getattr(args, "matches", None)
    if deals is not None and matches is not None:
        raise TournamentError(_("--deals and --matches are alternatives (single rounds or whole matches): give one"))
    if matches is not None:
        _bounded("--matches", matches, MATCHES_RANGE)
        deals = 0
    else:
        deals = DEFAULT_DEALS if deals is None else deals
        _bounded("--deals", deals, DEALS_RANGE)
    _bounded("--jobs", args.jobs, JOBS_RANGE)
    _bounded("--seed", args.seed, SEED_RANGE)
    _bounded("--max-turns", args.max_turns, MAX_TURNS_RANGE)
    try:
        rules = Rules.from_pairs([str(r) for r in args.rules or []])
    except (RulesError, TypeError, ValueError) as exc:
        raise TournamentError(_("--rules: {error}").format(error=exc)) from None
    per_kind = parse_params(args)
    # Build every AI that plays or was given settings once now: a setting its constructor refuses
    # is one clear line before the run, not an error every turn.
    for k in sorted(set(kinds) | {k for k, v in per_kind.items() if v}):
        try:
            probe = make_player(k, 0, **per_kind[k])
        except Exception as exc:  # any failure of a constructor is a bad setting
            raise TournamentError(
                _("bad setting for {kind}: {error}").format(kind=k, error=f"{type(exc).__name__}: {exc}")
            ) from None
        if probe.params:
            raise TournamentError(
                _("{kind} has no setting {settings}").format(kind=k, settings=", ".join(sorted(probe.params)))
            )
    return TournamentOptions(
        kinds=tuple(kinds),
        names=tuple(seat_names(kinds)),
        params=tuple(tuple(sorted(per_kind[k].items())) for k in kinds),
        deals=deals,
        seed=args.seed,
        jobs=args.jobs,
        rules=rules,
        max_turns=args.max_turns,
        matches=matches,
    )


def check_output(path: str | None) -> None:
    """That the results can be written to ``--json path`` at the end, checked before the run: its
    folder exists and takes a new file, and ``path`` is not a folder or a device ('-': stdout)."""
    if path is None or path == "-":
        return
    if not path.strip():
        raise TournamentError(_("--json needs a file name ('-' for stdout)"))
    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    if os.path.isdir(target):
        raise TournamentError(_("--json {path} is a folder, not a file").format(path=repr(path)))
    if os.path.exists(target) and not os.path.isfile(target):
        raise TournamentError(_("--json {path} is not a regular file (use '-' for stdout)").format(path=repr(path)))
    if not os.path.exists(folder):
        raise TournamentError(
            _("--json {path}: the folder {folder} does not exist").format(path=repr(path), folder=repr(folder))
        )
    if not os.path.isdir(folder):
        raise TournamentError(_("--json {path}: {folder} is not a folder").format(path=repr(path), folder=repr(folder)))
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder)
        os.close(fd)
        os.remove(probe)
    except OSError as exc:
        raise TournamentError(
            _("--json {path}: cannot write in {folder}: {reason}").format(
                path=repr(path), folder=repr(folder), reason=exc.strerror or exc
            )
        ) from None
