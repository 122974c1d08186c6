"""The player's place at a lobby, as both lobby front ends (the app's, the plain mode's) keep it."""

from __future__ import annotations

from kc_tui.net.lobby_place import LobbyPlace
from kc_tui.net.lobby_schema import AcceptInvite, JoinedMsg, LeaveTable, StartMsg

INVITE = "ws://127.0.0.1:9/i/tableA/s3cret"


def test_an_invite_link_is_asked_for_once_signed_in_and_only_once() -> None:
    place = LobbyPlace.at(INVITE)
    assert place.address == "ws://127.0.0.1:9/lobby"
    assert place.signed_in() == AcceptInvite("tableA", "s3cret")
    assert place.signed_in() is False


def test_quick_play_is_asked_for_once() -> None:
    place = LobbyPlace.at("ws://127.0.0.1:9", quick=True)
    assert place.signed_in() is True
    assert place.signed_in() is False


def test_a_seat_named_again_without_its_invite_keeps_the_invite() -> None:
    place = LobbyPlace.at("ws://127.0.0.1:9")
    assert place.joined(JoinedMsg(1, "t1", 0, invite="ws://x/invite/t1/k")) is True
    place.signed_in()  # the seats are the server's to name again
    assert place.seated is None
    assert place.joined(JoinedMsg(None, "t1", 0)) is True
    assert place.seated is not None and place.seated.invite == "ws://x/invite/t1/k"
    assert place.joined(JoinedMsg(None, "t1", 0)) is False


def test_a_start_opens_the_seat_once_and_a_gone_table_forgets_it() -> None:
    place = LobbyPlace.at("ws://127.0.0.1:9")
    place.joined(JoinedMsg(1, "t1", 2))
    assert place.started(StartMsg("t1", 2, "ws://x/t/t1/seat/2?token=a")) is True
    assert place.seated is None
    assert place.started(StartMsg("t1", 2, "ws://x/t/t1/seat/2?token=a")) is False
    assert place.seat_urls == {"t1": "ws://x/t/t1/seat/2?token=a"}
    assert place.gone("t1") is False  # not a seat at a table not started
    assert place.seat_urls == {}


def test_leaving_a_seat_not_started_says_which_table() -> None:
    place = LobbyPlace.at("ws://127.0.0.1:9")
    assert place.leave() is None
    place.joined(JoinedMsg(1, "t9", 1))
    assert place.gone("t9") is True and place.seated is None
    place.joined(JoinedMsg(2, "t9", 1))
    assert place.leave() == LeaveTable("t9")
    assert place.seated is None
