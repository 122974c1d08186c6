"""What went wrong, in the player's language: a saved match that fails in a way nobody foresaw,
a recorded move that is no move at all, a replay asked for a position its round does not have."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from kc_tui.engine import Round, Rules
from kc_tui.i18n import _, use
from kc_tui.match import replay
from kc_tui.match.replay import ReplayError, RoundReplay
from kc_tui.match.session import MatchSession, load_or_quarantine
from tests.i18n.layoutkit import LANGUAGES
from tests.match.kit import play_match


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_save_that_fails_unforeseen_is_told_in_the_language(
    code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(code)
    path = tmp_path / "current-match.json"
    path.write_text("{}")

    def fails(*_args: object, **_kwargs: object) -> None:
        raise KeyError("players")

    monkeypatch.setattr(MatchSession, "load", fails)
    session, message = load_or_quarantine(path)
    assert session is None and message is not None
    assert _("it could not be read ({error})").format(error="KeyError") in message, message
    assert "could not be read" not in message, message


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_number_that_is_no_move_is_told_in_the_language(code: str) -> None:
    use(code)
    reason = Round.deal(2, Rules(), 1, 0).why_illegal(999)
    assert reason == _("not a move: {move}").format(move="999") and "not a move" not in reason, reason

    def no_move(_mv: int) -> str:
        raise IndexError("list index out of range")

    stub = SimpleNamespace(over=False, why_illegal=no_move)
    with pytest.raises(ReplayError) as caught:
        replay._check_move(stub, 0, 1, 0)  # type: ignore[arg-type]
    told = str(caught.value)
    assert _("not a move") in told and "not a move" not in told and "index" not in told, told


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_position_out_of_the_round_is_told_in_the_language(code: str) -> None:
    record = play_match(["greedy", "greedy"], 11)
    use(code)
    r = RoundReplay.from_record(record, 1, 0)
    with pytest.raises(ValueError) as caught:
        r.seek(r.length + 1)
    told = str(caught.value)
    wanted = _("the round has positions 0 to {last}, not {position}").format(last=r.length, position=r.length + 1)
    assert told == wanted and "the round has" not in told, told
