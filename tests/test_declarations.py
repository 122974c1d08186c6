"""Every rule variant and every AI kind is declared once, and the settings, the rules screen, the
command line and the tournament all read those declarations."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import Input, Label, Select, Static, Switch

import ai
from kc_tui import config
from kc_tui.cli import build_parser
from kc_tui.cli import main as cli_main
from kc_tui.config import Config, ConfigError, Opponent
from kc_tui.config import args as cli_args
from kc_tui.engine import VARIANTS, Rules, RulesError, variant
from kc_tui.engine.rules import CHOICES, INT_RANGES, TARGET
from kc_tui.ui.screens.rules import VARIANT_ORDER, settings_table
from kc_tui.ui.screens.settings import SettingsScreen
from tests.ai.helpers import new_kind_module as add_kind_module
from tests.ui.gamekit import SettingsHost

SIZE = (100, 40)


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never the user's real settings or saves."""
    monkeypatch.setenv("KINGS_CORNERS_CONFIG", str(tmp_path / "config" / "settings.toml"))
    monkeypatch.setenv("KINGS_CORNERS_DATA", str(tmp_path / "data"))


# ---------------------------------------------------------------------------- rule variants
def test_every_rules_field_has_exactly_one_declaration() -> None:
    keys = [v.key for v in VARIANTS]
    assert len(keys) == len(set(keys))
    assert set(keys) == {f.name for f in fields(Rules)}
    default = Rules()
    for v in VARIANTS:
        assert variant(v.key) is v
        assert getattr(default, v.key) == v.default and type(getattr(default, v.key)) is v.type
        assert re.fullmatch(r"R\d+(/R\d+)?", v.rule), v.rule
        assert v.title and v.explanation and "\n" not in v.explanation
        assert not re.match(r"R\d+", v.explanation), "the rule id is its own field, never in the explanation"
        if v.type is str:
            assert v.choices and v.bounds is None and v.default in v.values
            assert all(c.label for c in v.choices) and len(set(v.values)) == len(v.values)
        elif v.type is int:
            assert v.bounds is not None and not v.choices
            lo, hi = v.bounds
            slo, shi = v.settings_range
            assert lo <= slo <= v.default <= shi <= hi
        else:
            assert v.type is bool and not v.choices and v.bounds is None
    # The engine's tables are read from the declarations.
    assert dict(CHOICES) == {v.key: v.values for v in VARIANTS if v.choices}
    assert dict(INT_RANGES) == {v.key: v.bounds for v in VARIANTS if v.bounds}
    assert {v.key: {c.value: c.label for c in v.choices} for v in VARIANTS if v.choices} == config.CHOICE_LABELS
    with pytest.raises(RulesError, match="unknown rule 'nope'"):
        variant("nope")


def _pair_cases() -> Iterator[tuple[str, bool]]:
    """``key=value`` words with whether the declaration allows them."""
    for v in VARIANTS:
        if v.choices:
            yield from ((f"{v.key}={c}", True) for c in v.values)
            yield from ((f"{v.key}={bad}", False) for bad in ("bogus", v.values[0].upper(), ""))
        elif v.bounds is not None:
            lo, hi = v.bounds
            yield from ((f"{v.key}={n}", True) for n in (lo, hi, v.default))
            yield from ((f"{v.key}={n}", False) for n in (lo - 1, hi + 1, "x"))
        else:
            yield from ((f"{v.key}={t}", True) for t in ("true", "false", "yes", "off"))
            yield (f"{v.key}=maybe", False)


@pytest.mark.parametrize(("pair", "ok"), list(_pair_cases()))
def test_rules_key_value_accepts_exactly_the_declared_choices_and_ranges(pair: str, ok: bool) -> None:
    if ok:
        rules = Rules.from_pairs([pair])
        key, _, text = pair.partition("=")
        assert rules.to_dict()[key] == variant(key).parse(text)
    else:
        with pytest.raises(RulesError):
            Rules.from_pairs([pair])


@pytest.mark.parametrize(("pair", "code"), [("draw=when_stuck", 0), ("target=1", 0), ("target=10001", 2)])
def test_the_tournaments_rules_option_reads_the_declaration(
    pair: str, code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["tournament", "--seats", "greedy,random", "--deals", "1", "--jobs", "1", "--quiet", "--rules", pair]
    assert cli_main(argv) == code
    if code:
        assert "from 1 to 10000" in capsys.readouterr().err


def test_the_tournament_help_names_every_variant() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub = commands.choices["tournament"]
    sub.format_help()  # the tournament's options are made when first needed
    rules_action = next(a for a in sub._actions if "--rules" in a.option_strings)
    for v in VARIANTS:
        assert v.help() in (rules_action.help or "")


def test_the_target_range_is_declared_once() -> None:
    assert TARGET.bounds == INT_RANGES["target"] == (1, 10_000), "position files and tournaments may use any"
    assert config.TARGET_RANGE == cli_args.TARGET_RANGE == TARGET.settings_range == (5, 500)
    lo, hi = TARGET.settings_range
    Config(rules=Rules(target=lo)).validate()
    Config(rules=Rules(target=hi)).validate()
    for bad in (lo - 1, hi + 1):
        Rules(target=bad)  # the engine takes it...
        with pytest.raises(ConfigError, match=f"from {lo} to {hi}"):
            Config(rules=Rules(target=bad)).validate()  # ...the settings do not
    assert f"({lo} to {hi})" in cli_args.target_help()


def test_the_rules_screen_lists_every_declared_variant_with_its_title() -> None:
    table = settings_table(Rules())
    listed = {v.key for v in VARIANT_ORDER}
    assert listed == {v.key for v in VARIANTS if v.choices and v.key != "scoring"}
    numbers = [int(v.rule[1:]) for v in VARIANT_ORDER]
    assert numbers == sorted(numbers), "in the order of RULES.md"
    for v in VARIANT_ORDER:
        assert f"**{v.title}** ({v.rule}): {v.label(v.default)}" in table
    assert f"**{variant('hand_size').title}** ({variant('hand_size').rule})" in table
    changed = settings_table(Rules(draw="when_stuck", kings_on_sides="forbid"))
    assert "draw only when stuck *(house rule)*" in changed


def _error(app: App[None]) -> str:
    return str(app.screen.query_one("#error", Static).render())


async def test_the_settings_screen_has_one_field_per_declared_variant() -> None:
    app = SettingsHost(Config())
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        labels = {str(w.render()).strip() for w in screen.query(Label)}
        for v in VARIANTS:
            found = list(screen.query(f"#{v.key}"))
            assert len(found) == 1, v.key
            widget = found[0]
            assert v.title in labels or v.title.lower() in labels, v.title
            if v.choices:
                assert isinstance(widget, Select)
                options = [value for _, value in widget._options]
                assert options == list(v.values)
                assert widget.value == v.default
            elif v.type is bool:
                assert isinstance(widget, Switch) and widget.value is v.default
            else:
                assert isinstance(widget, Input) and widget.value == str(v.default)
        # The scoring settings that only matter under chips are shown only then.
        chips_only = [v for v in VARIANTS if v.only_with == ("scoring", "chips")]
        assert {v.key for v in chips_only} == {"chips_start", "chips_rounds", "chips_per_card"}
        assert not screen.query_one("#chips-row").display
        screen.query_one("#scoring", Select).value = "chips"
        await pilot.pause()
        assert screen.query_one("#chips-row").display
        # Every number field takes exactly its declared (settings) range.
        for v in VARIANTS:
            if v.bounds is None:
                continue
            lo, hi = v.settings_range
            # The field on screen and checked: the target score with points, the others with chips.
            screen.query_one("#scoring", Select).value = "points" if v.key == "target" else "chips"
            await pilot.pause()
            inp = screen.query_one(f"#{v.key}", Input)
            for text, ok in ((str(lo), True), (str(hi), True), (str(lo - 1), False), (str(hi + 1), False)):
                inp.value = text
                await pilot.pause()
                assert ("valid" in _error(app) and "✗" not in _error(app)) == ok, (v.key, text, _error(app))
                if not ok:
                    assert f"from {lo} to {hi}" in _error(app)
            inp.value = str(v.default)
            await pilot.pause()


async def test_the_think_time_is_shown_only_for_kinds_that_take_one() -> None:
    app = SettingsHost(Config())
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        timed = {k.name for k in ai.kinds() if k.takes_think_time}
        assert timed == {"expert"}
        for kind in ai.ai_kinds():
            screen.query_one("#opp-kind-0", Select).value = kind
            await pilot.pause()
            assert screen.query_one("#opp-think-0", Input).display == (kind in timed), kind
        # A bad think time counts only while it is in use.
        screen.query_one("#opp-kind-0", Select).value = "expert"
        await pilot.pause()
        screen.query_one("#opp-think-0", Input).value = "5"
        await pilot.pause()
        assert "think time" in _error(app)
        screen.query_one("#opp-kind-0", Select).value = "greedy"
        await pilot.pause()
        assert "valid" in _error(app) and "✗" not in _error(app)
        assert isinstance(screen, SettingsScreen)
        assert screen.build_config().opponents[0] == Opponent("Greedy", "greedy", 1000)
        help_text = " ".join(str(w.render()) for w in screen.query(".help"))
        for k in ai.kinds():
            assert f"{k.shown}: {k.description}" in help_text


# ---------------------------------------------------------------------------- AI kinds
@pytest.fixture
def new_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """One new module ``ai/lowest.py`` declaring one offered kind."""
    with add_kind_module(tmp_path / "ai_extra", monkeypatch, offered=True, player_name="Lowell") as kind:
        yield kind


async def test_a_new_kind_in_one_module_is_offered_in_settings(new_kind: str) -> None:
    assert new_kind in config.ai_kind_names() and new_kind in config.AI_KIND_NAMES
    Opponent("Lowell", new_kind).validate()
    app = SettingsHost(Config())
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        select = screen.query_one("#opp-kind-1", Select)
        assert new_kind in [value for _, value in select._options]
        select.value = new_kind
        await pilot.pause()
        assert screen.query_one("#opp-name-1", Input).value == "Lowell", "the kind's declared player name"
        assert not screen.query_one("#opp-think-1", Input).display
        help_text = " ".join(str(w.render()) for w in screen.query(".help"))
        assert "Lowest: plays the lowest move" in help_text
        assert isinstance(screen, SettingsScreen)
        assert [o.kind for o in screen.build_config().opponents] == ["greedy", new_kind]


def test_a_new_kind_is_accepted_by_play_opponents(new_kind: str) -> None:
    from kc_tui.ui.launch import build_app

    args = build_parser().parse_args(["play", "--opponents", "Lowest,greedy", "--seed", "3"])
    app: Any = build_app("play", args)
    assert [o.kind for o in app.config.opponents] == [new_kind, "greedy"]
    app.config.validate()


def test_a_new_kind_plays_in_a_tournament(new_kind: str, tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    argv = ["tournament", "--seats", f"{new_kind},greedy", "--deals", "1", "--jobs", "1", "--quiet"]
    assert cli_main([*argv, "--json", str(out)]) == 0
    summary = json.loads(out.read_text())
    assert new_kind in json.dumps(summary["seats"])


def test_kind_names_are_normalised_by_the_registry_only() -> None:
    assert cli_args.parse_kinds(" King_Aware ,GREEDY", "opponents", 1, 3) == ["king-aware", "greedy"]
    with pytest.raises(cli_args.CliError, match="unknown AI kind 'genius'"):
        cli_args.parse_kinds("genius", "opponents", 1, 3)
    from kc_tui.lab.options import parse_seats

    assert parse_seats("King_Aware,random") == ["king-aware", "random"]


def test_launch_does_not_import_the_cli() -> None:
    import grimp

    graph = grimp.build_graph("kc_tui", "ai")
    assert not graph.chain_exists(importer="kc_tui.ui.launch", imported="kc_tui.cli")
    assert not graph.find_modules_that_directly_import("kc_tui.cli") & {"kc_tui.ui.launch", "kc_tui.config.args"}


def test_the_host_help_gives_the_targets_the_host_takes() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub = commands.choices["host"]
    rules_help = next(a for a in sub._actions if "--rules" in a.option_strings).help or ""
    target_help = next(a for a in sub._actions if "--target" in a.option_strings).help or ""
    lo, hi = TARGET.settings_range
    assert f"target={lo}..{hi}," in rules_help and f"({lo} to {hi})" in target_help
    for v in VARIANTS:
        assert v.help(offered=True) in rules_help
