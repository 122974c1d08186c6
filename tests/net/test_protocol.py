"""The protocol's messages: the strict reading of a client's message, the server's messages built
from a seat's view only, and the strict reading of a server's message."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kc_tui.engine import END, card_str, move_str, parse_card, parse_move
from kc_tui.match.saves import RoundNote
from kc_tui.match.table import TableDriver
from kc_tui.net import schema as p
from kc_tui.net.protocol import parse_client, parse_server, write
from kc_tui.net.views import replay_frames, replay_page, state
from tests.match.kit import cards_in_text
from tests.net.serverkit import session_for


def msg(**fields: Any) -> str:
    return json.dumps({"v": p.PROTOCOL_VERSION, **fields})


@pytest.mark.parametrize(
    "message",
    [
        p.Hello("kings-corners 1.4.0"),
        p.MoveRequest(parse_move("play 7H N"), 17, 3),
        p.MoveRequest(END, 0),
        p.UndoRequest(5, 0),
        p.HintRequest(5, p.MAX_ID),
        p.Ping(None),
        p.ReplayRequest(2, 5, 9),
    ],
)
def test_the_clients_messages_read_back(message: p.ClientMessage) -> None:
    text = write(message)
    assert parse_client(text) == message
    if isinstance(message, p.MoveRequest):
        assert json.loads(text)["move"] == move_str(message.move)


@pytest.mark.parametrize(
    ("text", "code", "says"),
    [
        ("", p.MALFORMED, "not valid JSON"),
        ("{", p.MALFORMED, "not valid JSON"),
        ("[]", p.MALFORMED, "a JSON object"),
        ('"hello"', p.MALFORMED, "a JSON object"),
        (msg(type="ping", x=float("nan")).replace("NaN", "NaN"), p.MALFORMED, "NaN"),
        ('{"v": 3, "type": "ping", "id": Infinity}', p.MALFORMED, "Infinity"),
        ('{"v": 3, "type": "ping", "id": -Infinity}', p.MALFORMED, "Infinity"),
        ('{"v": 3, "type": "ping", "type": "ping"}', p.MALFORMED, "twice"),
        (msg(type="ping", id=1.0), p.MALFORMED, "id"),
        (msg(type="ping", id=True), p.MALFORMED, "id"),
        (msg(type="ping", id=p.MAX_ID + 1), p.MALFORMED, "id"),
        (msg(type="replay", round=0, start=0), p.MALFORMED, "the number of a finished round"),
        (msg(type="replay", round=1, start=-1), p.MALFORMED, "the first position wanted"),
        (msg(type="undo", stamp=p.MAX_STAMP + 1), p.MALFORMED, "stamp"),
        (msg(type="ping", id="1"), p.MALFORMED, "id"),
        (msg(type="move", move="end", stamp=1.5), p.MALFORMED, "stamp"),
        (msg(type="move", move="end", stamp=False), p.MALFORMED, "stamp"),
        (msg(type="move", move="end", stamp=-1), p.MALFORMED, "stamp"),
        (msg(type="move", move="end"), p.MALFORMED, "needs the field 'stamp'"),
        (msg(type="move", move=7, stamp=1), p.MALFORMED, "'move' is text"),
        (msg(type="move", move="play 7H", stamp=1), p.MALFORMED, "cannot read 'move'"),
        (msg(type="move", move="end", stamp=1, colour="red"), p.MALFORMED, "no field 'colour'"),
        (msg(type="hello", client=["x"]), p.MALFORMED, "text"),
        (msg(type="hello", client="x" * (p.MAX_STRING + 1)), p.MALFORMED, "longer than 256"),
        (msg(type="shout"), p.MALFORMED, "unknown message type 'shout'"),
        (json.dumps({"type": "ping"}), p.MALFORMED, '"v": 3'),
        (json.dumps({"v": "2", "type": "ping"}), p.MALFORMED, '"v": 3'),
        (json.dumps({"v": 1, "type": "ping"}), p.UPGRADE, "version 3"),
        ('{"v": 3, "type": "ping", "x": ' + "[" * 8 + "]" * 8 + "}", p.MALFORMED, "nested"),
        ('{"v": 3, "type": "ping", "x": "' + "[" * 20 + '"}', p.MALFORMED, "no field 'x'"),
        ("[" * 100_000 + "]" * 100_000, p.TOO_LARGE, "over 65536 bytes"),
        ("[" * 30_000 + "]" * 30_000, p.MALFORMED, "nested"),
        (msg(type="hello", client="é" * 40_000), p.TOO_LARGE, "over"),
    ],
)
def test_a_bad_client_message_is_one_line_with_its_code(text: str, code: str, says: str) -> None:
    with pytest.raises(p.ProtocolError) as info:
        parse_client(text)
    assert info.value.code == code
    assert says in info.value.message
    assert "\n" not in info.value.message and len(info.value.message) < 300


def test_a_binary_message_is_malformed_and_a_bad_requests_id_is_kept() -> None:
    with pytest.raises(p.ProtocolError) as info:
        parse_client(b'{"v": 3, "type": "ping"}')
    assert info.value.code == p.MALFORMED and "binary" in info.value.message
    with pytest.raises(p.ProtocolError) as info:
        parse_client(msg(type="move", move="jump", stamp=1, id=12))
    assert info.value.id == 12


def test_a_seats_state_holds_its_own_hand_only_and_a_spectators_none() -> None:
    session = session_for()
    driver = TableDriver(session)
    n = session.match.n
    for viewer in [*range(n), None]:
        text = state(driver, viewer, stamp=9, connected=[True] * n, stand_in=[False] * n)
        sent = parse_server(text, strict=True)
        assert isinstance(sent, p.StateMsg)
        assert sent.view.viewer == viewer and sent.stamp == 9
        assert len(text.encode()) < p.MAX_MESSAGE
        public = {c for pile in sent.view.piles for c in pile}
        if viewer is None:
            assert sent.view.hand is None and sent.view.drawn is None and sent.view.legal == ()
            assert not sent.view.can_undo
            visible = public
        else:
            assert sent.view.hand == tuple(session.hand(viewer))
            visible = public | set(session.hand(viewer))
        assert [s.hand is None for s in sent.view.seats] == [s != viewer for s in range(n)]
        others = {c for s in range(n) if s != viewer for c in session.hand(s)}
        assert not {card_str(c) for c in others} & set(json.dumps(json.loads(text)).split('"'))
        view = json.loads(text)["view"]
        for key in ("piles", "drawn", "legal"):
            view.pop(key)
        for seat in view["seats"]:
            seat.pop("hand")
        assert cards_in_text(json.dumps(view, ensure_ascii=False)) <= visible
        on_turn = viewer == session.to_move and session.human_to_move
        assert bool(sent.view.legal) == on_turn
        assert [s.name for s in sent.view.seats] == session.names


def test_the_state_of_the_seat_on_turn_lists_the_engines_legal_moves() -> None:
    session = session_for()
    driver = TableDriver(session)
    while not session.human_to_move:
        driver.decide(driver.ai_job().run())
    seat = session.to_move
    n = session.match.n
    sent = parse_server(state(driver, seat, stamp=1, connected=[True] * n, stand_in=[False] * n))
    assert isinstance(sent, p.StateMsg)
    assert sorted(sent.view.legal) == sorted(session.match.round.legal_moves())


@pytest.mark.parametrize(
    "message",
    [
        p.WelcomeMsg(
            0, "Ana", "kings-corners 1", {"target": 5}, (p.SeatInfo("Ana", "human"), p.SeatInfo("Greedy", "greedy"))
        ),
        p.WelcomeMsg(None, "Spectator", "kings-corners 1", {}, ()),
        p.RefusedMsg(3, "8♣ does not fit on 9♣ at N"),
        p.HintMsg(None, "end", "Hint: end your turn."),
        p.RoundMsg(2, None, ("Round 2 was blocked",), ((3, 1), (0, 0))),
        p.ErrorMsg(p.BAD_TOKEN, "no seat"),
        p.ErrorMsg(p.NOT_YOUR_TURN, "not your turn", 5),
        p.PongMsg(None),
        p.ClockMsg(1, 25, False),
        p.ClockMsg(0, 3, True),
    ],
)
def test_the_servers_messages_read_back_into_their_dataclasses(message: p.ServerMessage) -> None:
    text = write(message)
    assert parse_server(text, strict=True) == message
    assert json.loads(text)["type"] == next(k for k, cls in p.SERVER_MESSAGES.items() if cls is type(message))


def test_a_rounds_cards_read_back_and_a_round_without_them_shows_none() -> None:
    ben = (parse_card("7H"), parse_card("KS"))
    text = write(p.RoundMsg(1, "Ana", ("Round 1: Ana went out",), ((0, 0), (2, 1)), ((), ben)))
    message = parse_server(text, strict=True)
    assert isinstance(message, p.RoundMsg) and message.cards == ((), ben)
    older = json.loads(text)
    del older["cards"]
    message = parse_server(json.dumps(older), strict=True)
    assert isinstance(message, p.RoundMsg) and message.cards == () and message.hands == ((0, 0), (2, 1))
    for bad, says in (([["7H"]], "1 hands, not 2"), ([[], ["ZZ"]], "not a card"), ([[], "7H"], "not a list")):
        with pytest.raises(p.ProtocolError, match=says):
            parse_server(json.dumps({**older, "cards": bad}))


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"stamp": "1"}, "'stamp' is not an integer"),
        ({"stamp": True}, "'stamp' is not an integer"),
        ({"stamp": 1.0}, "'stamp' is not an integer"),
        ({"view": []}, "'view' is not an object"),
        ({"view": {"piles": [[]] * 7}}, "7 places"),
        ({"view": {"piles": [["ZZ"]] + [[]] * 7}}, "not a card"),
        ({"view": {"stock": None}}, "'view.stock' is not an integer"),
        ({"view": {"over": 1}}, "'view.over' is not true or false"),
        ({"view": {"legal": ["jump"]}}, "cannot read 'view.legal'"),
        ({"view": {"seats": [{"name": "Ana"}]}}, "needs the field 'seat'"),
        ({"view": {"spy": 1}}, "'view' has no field 'spy'"),
        ({"spy": 1}, "no field 'spy'"),
        ({"v": 4}, "version 3"),
    ],
)
def test_a_bad_server_state_is_refused_by_the_client_side_reader(change: dict[str, Any], says: str) -> None:
    session = session_for()
    n = session.match.n
    data = json.loads(state(TableDriver(session), 0, stamp=1, connected=[True] * n, stand_in=[False] * n))
    view = change.pop("view", None)
    if isinstance(view, dict):
        data["view"].update(view)
    elif view is not None:
        data["view"] = view
    data.update(change)
    with pytest.raises(p.ProtocolError) as info:
        parse_server(json.dumps(data), strict=True)
    assert says in info.value.message


def test_the_client_side_reader_skips_a_field_it_does_not_know() -> None:
    session = session_for()
    n = session.match.n
    text = state(TableDriver(session), 0, stamp=1, connected=[True] * n, stand_in=[False] * n)
    data = json.loads(text)
    data["spy"] = {"added": "by a newer server"}
    data["view"]["seats"][0]["mood"] = "calm"
    newer = json.dumps(data)
    assert parse_server(newer) == parse_server(text)
    with pytest.raises(p.ProtocolError) as info:
        parse_server(newer, strict=True)
    assert "no field 'spy'" in info.value.message
    error = json.loads(write(p.ErrorMsg(p.SLOW_DOWN, "too many messages")))
    assert parse_server(json.dumps(error | {"retry_after": 2})) == p.ErrorMsg(p.SLOW_DOWN, "too many messages")


def test_every_error_code_of_the_protocol_doc_is_known() -> None:
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    table = doc.split("## Error codes")[1].split("##")[0]
    codes = [line.split("`")[1] for line in table.splitlines() if line.startswith("| `")]
    assert tuple(codes) == p.ERROR_CODES


def _frames(session: Any) -> list[str]:
    """The replay frames of a round of ``session`` played by its first legal moves, seen by seat 0."""
    from kc_tui.match.recorder import match_record
    from kc_tui.match.replay import RoundReplay

    match = session.match
    while not match.round.over:
        match.round.apply(match.round.legal_moves()[0])
    match.finish_round()
    session.record.rounds.append(RoundNote())
    replay = RoundReplay.from_record(match_record(match, session.seats, session.record), 1, 0)
    return replay_frames(replay)


def test_each_message_is_sent_with_its_declared_fields() -> None:
    assert p.CLIENT_FIELDS["move"] == {"move", "stamp", "id"}
    session = session_for()
    n = session.match.n
    driver = TableDriver(session)
    for viewer in (None, 0):
        sent = json.loads(state(driver, viewer, stamp=1, connected=[True] * n, stand_in=[False] * n))
        assert set(sent) - {"v", "type"} == p.SERVER_FIELDS["state"] == {"stamp", "view"}
    page = replay_page(_frames(session), 0, id=1, number=1, seat=0, dealer=0, winner=None)
    assert set(json.loads(page)) - {"v", "type"} == p.SERVER_FIELDS["replay"]
    assert type(parse_server(page, strict=True)) is p.ReplayMsg


def _served_state() -> str:
    driver = TableDriver(session_for(seed=3))
    return state(
        driver, 0, stamp=1, connected=[True] * driver.session.match.n, stand_in=[False] * driver.session.match.n
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("to_move", -5),
        ("to_move", 7),
        ("viewer", 99),
        ("round_winner", 5),
        ("stock", 10**30),
        ("stock", -1),
        ("log", ["x"] * 51),
        ("results", [{"number": 1, "winner": 9, "scores": [1, 2, 3]}]),
        ("results", [{"number": 1, "winner": None, "scores": [1]}]),
    ],
)
def test_a_state_whose_view_does_not_fit_its_table_is_refused_in_one_line(field: str, value: object) -> None:
    doc = json.loads(_served_state())
    doc["view"][field] = value
    for strict in (True, False):
        with pytest.raises(p.ProtocolError) as caught:
            parse_server(json.dumps(doc), strict=strict)
        assert caught.value.code == p.MALFORMED and "\n" not in str(caught.value)


def test_a_served_state_is_read_back() -> None:
    assert isinstance(parse_server(_served_state(), strict=True), p.StateMsg)


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"type": "create", "seats": ["human", "greedy"], "target": -5, "rules": {}}, "the target is a whole number"),
        ({"type": "create", "seats": ["human", "greedy"], "target": 1e308, "rules": {}}, "target"),
        ({"type": "quick", "players": 4, "target": 5, "rules": {}, "fill_after": -1}, "the wait is whole seconds"),
        ({"type": "quick", "players": 9, "target": 5, "rules": {}}, "2 to 4 seats"),
        ({"type": "join", "table": "x" * 300}, "longer than 256 characters"),
        ({"type": "follow", "on": "yes"}, "'on' is not true or false"),
        ({"type": "sign-in", "key": 7, "name": "Ana", "signature": ""}, "key"),
        (
            {
                "type": "create",
                "seats": ["human"],
                "target": 5,
                "rules": {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": 1}}}}}}}},
            },
            "nested",
        ),
        ({"type": "watch", "table": "abc", "spy": True}, "no field 'spy'"),
        ({"type": "teleport"}, "unknown message type"),
    ],
)
def test_a_bad_lobby_message_is_one_malformed_line(fields: dict[str, Any], says: str) -> None:
    from kc_tui.net.protocol import parse_lobby_client

    with pytest.raises(p.ProtocolError) as refused:
        parse_lobby_client(json.dumps({"v": p.PROTOCOL_VERSION, "id": 4, **fields}))
    assert refused.value.code in (p.MALFORMED,) and says in refused.value.message, refused.value.message
    # The request's id is kept, but for a message too deep to read at all.
    assert "\n" not in refused.value.message and refused.value.id == (None if says == "nested" else 4)
