"""The registry of AI kinds: each kind declared once on its class, listed weakest first, names
normalised in one place, and a new kind found from one new module of the ``ai`` package."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import ai
from ai import KindInfo, UnknownKind, ai_kinds, kind_info, kinds, make_player, normalize_kind, register
from ai.base import AIPlayer
from kc_tui.engine import Move, PlayerView, Round, Rules
from tests.ai.helpers import new_kind_module as add_kind_module

EXPECTED = ("random", "greedy", "king-aware", "lookahead", "expert")


def test_the_kinds_weakest_first_each_with_its_metadata() -> None:
    infos = kinds()
    assert tuple(k.name for k in infos) == EXPECTED == ai_kinds()
    strengths = [k.strength for k in infos]
    assert strengths == sorted(strengths) and len(set(strengths)) == len(strengths)
    for k in infos:
        assert isinstance(k, KindInfo)
        assert k.title and k.description and k.player_name
        assert "\n" not in k.description and len(k.description) <= 60
        assert k.offered  # every kind is offered in Settings, random included
        assert kind_info(k.name) == k
        assert make_player(k.name, 1).kind == k.name
    assert len({k.player_name for k in infos}) == len(infos)
    assert [k.name for k in infos if k.takes_think_time] == ["expert"]


def test_the_declared_wording() -> None:
    assert kind_info("greedy").description == "plays every card it can"
    assert kind_info("king-aware").title == "King-aware"
    assert kind_info("king-aware").player_name == "Kingsley"
    assert kind_info("expert").description == "searches; more time helps it at 2 players and in chips"
    assert kind_info("random").player_name == "Rando"


def test_a_kind_with_a_think_time_takes_think_ms() -> None:
    timed = [k.name for k in kinds() if k.takes_think_time]
    assert timed
    for name in timed:
        assert getattr(make_player(name, 0, think_ms=300), "think_ms", None) == 300.0


@pytest.mark.parametrize(
    ("text", "name"),
    [("greedy", "greedy"), ("  King_Aware ", "king-aware"), ("LOOKAHEAD", "lookahead"), ("king-aware", "king-aware")],
)
def test_names_are_normalised_in_one_place(text: str, name: str) -> None:
    assert normalize_kind(text) == name
    assert kind_info(text).name == name
    assert make_player(text, 2).kind == name


@pytest.mark.parametrize("text", ["genius", "", "  ", "king aware", "greedy2"])
def test_an_unknown_kind_is_a_value_error_naming_the_kinds(text: str) -> None:
    with pytest.raises(UnknownKind, match="unknown AI kind") as info:
        make_player(text, 1)
    assert isinstance(info.value, ValueError)
    assert all(k in str(info.value) for k in EXPECTED)
    with pytest.raises(ValueError, match="unknown AI kind"):
        kind_info(text)


def test_register_refuses_a_class_without_its_own_metadata() -> None:
    class NoDescription(AIPlayer):
        kind = "no-description"
        strength = 5

        def choose(self, view: PlayerView) -> Move:
            return view.legal_moves()[0]

    class BadName(NoDescription):
        kind = "Bad_Name"
        description = "x"
        strength = 5

    class InheritsAKind(NoDescription):  # kind, description and strength all its parent's
        pass

    for cls, words in ((NoDescription, "description"), (BadName, "lower case"), (InheritsAKind, "kind")):
        with pytest.raises(ValueError, match=words):
            register(cls)
    assert not {"no-description", "Bad_Name", "bad-name"} & set(ai.registry._REGISTRY)


def test_importing_ai_loads_no_searching_ai() -> None:
    """Start-up stays cheap: the kinds load on the first read of the registry."""
    import subprocess

    code = "import ai, sys; print(sorted(m for m in sys.modules if m.startswith('ai.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['ai.base', 'ai.players', 'ai.players.random_ai', 'ai.registry']"


@pytest.fixture
def new_kind_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A new module ``ai/lowest.py`` that defines one kind (not offered in Settings)."""
    with add_kind_module(tmp_path, monkeypatch, offered=False) as kind:
        yield kind


def test_a_new_kind_is_one_new_module(new_kind_module: str) -> None:
    info = kind_info(new_kind_module)
    assert info == KindInfo("lowest", "Lowest", "plays the lowest move", "Lowest", False, 15, False)
    assert ai_kinds() == ("random", "greedy", "lowest", "king-aware", "lookahead", "expert")
    player = make_player("Lowest", 4)
    r = Round.deal(2, Rules(), 5)
    view = r.view(r.to_move)
    assert player.choose(view) == min(view.legal_moves())


def test_the_registry_reads_the_classes_it_holds() -> None:
    """What the app shows comes from the class attributes only (the one declaration)."""
    from ai.players.expert import ExpertAI

    info = KindInfo.of(ExpertAI)
    assert (info.title, info.description, info.strength) == (ExpertAI.title, ExpertAI.description, ExpertAI.strength)
    assert "think_ms" in inspect.signature(ExpertAI.__init__).parameters
