"""The wire form of a message is its declaration: for any position of any match and any viewer,
the ``state`` the server sends decodes back into exactly that viewer's view; and a field added to
a declaration travels, both ways, with no other edit."""

from __future__ import annotations

import dataclasses
import json
import random
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kc_tui.match.roster import Seat
from kc_tui.match.session import MatchSession
from kc_tui.match.table import TableDriver
from kc_tui.match.view import SeatSnapshot, TableSnapshot
from kc_tui.net import schema
from kc_tui.net.protocol import parse_server, write
from kc_tui.net.views import served_view, states
from kc_tui.net.wire import object_decoder, to_wire
from tests.match.kit import fair_rules

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw: st.DrawFn) -> TableDriver:
    """A hosted match of 2 to 4 people under any rules, played some random legal moves on
    (rounds finished as they end)."""
    n = draw(st.integers(2, 4))
    session = MatchSession.hosted(
        [Seat(f"P{i}", "human") for i in range(n)], draw(fair_rules()), draw(st.integers(0, 2**32))
    )
    driver = TableDriver(session)
    rng = random.Random(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(0, 150))):
        if session.match.over:
            break
        if session.match.round.over:
            driver.finish_round()
            continue
        assert driver.play(rng.choice(session.match.round.legal_moves())) is None
    return driver


@FAST
@given(tables(), st.data())
def test_every_viewers_state_decodes_back_into_its_view(driver: TableDriver, data: st.DataObject) -> None:
    n = driver.session.match.n
    viewer = data.draw(st.sampled_from([None, *range(n)]), label="viewer")
    connected = data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="connected")
    stand_in = data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="stand_in")
    stamp = data.draw(st.integers(0, schema.MAX_STAMP), label="stamp")
    text = states(driver, [viewer], stamp=stamp, connected=connected, stand_in=stand_in)[viewer]
    snap = driver.snapshot(viewer)
    view = served_view(snap, connected=connected, stand_in=stand_in)
    assert view.log == snap.log[-schema.LOG_LINES :]
    assert [(s.connected, s.stand_in) for s in view.seats] == list(zip(connected, stand_in, strict=True))
    for strict in (True, False):
        sent = parse_server(text, strict=strict)
        assert sent == schema.StateMsg(stamp, view)
        assert isinstance(sent, schema.StateMsg) and sent.view == view
    # The review is a capability of a table played on this machine, never of a remote seat's.
    assert snap.review and not view.review


@dataclass(frozen=True, slots=True)
class MoodySeat(SeatSnapshot):
    mood: str = "calm"


@dataclass(frozen=True, slots=True)
class MoodyView(TableSnapshot):
    """A view declared with one field more than the table's own, and seats with one more too."""

    weather: int | None = None
    moods: tuple[MoodySeat, ...] = ()


@dataclass(frozen=True)
class MoodyState(schema.StateMsg):
    view: MoodyView


def _moody(view: TableSnapshot) -> MoodyView:
    seats = tuple(
        MoodySeat(**{f.name: getattr(s, f.name) for f in dataclasses.fields(s)}, mood="stormy") for s in view.seats
    )
    fields = {f.name: getattr(view, f.name) for f in dataclasses.fields(view)}
    return MoodyView(**fields, weather=7, moods=seats)


@FAST
@given(tables())
def test_a_field_added_to_a_declaration_is_on_the_wire_with_no_other_edit(driver: TableDriver) -> None:
    n = driver.session.match.n
    view = _moody(served_view(driver.snapshot(0), connected=[True] * n, stand_in=[False] * n))
    text = write(MoodyState(5, view))
    sent = json.loads(text)
    assert sent["type"] == "state"
    assert sent["view"]["weather"] == 7 and [s["mood"] for s in sent["view"]["moods"]] == ["stormy"] * n
    assert sent["view"] == to_wire(MoodyState(5, view))["view"]
    assert object_decoder(MoodyState, True, None, frozenset({"v", "type"}))(sent, "it") == MoodyState(5, view)
    # The table's own reader: a client skips the fields it does not know, the strict reader
    # (what the tests hold the server to) names them.
    older = parse_server(text)
    table_view = TableSnapshot(**{f.name: getattr(view, f.name) for f in dataclasses.fields(TableSnapshot)})
    assert isinstance(older, schema.StateMsg) and older.view == table_view
    try:
        parse_server(text, strict=True)
    except schema.ProtocolError as exc:
        assert "no field 'weather'" in exc.message
    else:
        raise AssertionError("the strict reader took a field the state does not declare")


def test_a_message_made_with_one_more_field_carries_it_both_ways() -> None:
    Noted = dataclasses.make_dataclass(
        "Noted", [("note", str, dataclasses.field(default=""))], bases=(schema.RefusedMsg,), frozen=True
    )
    message = Noted(3, "no", note="one more field")
    text = write(message)
    assert json.loads(text) == {
        "v": schema.PROTOCOL_VERSION,
        "type": "refused",
        "id": 3,
        "reason": "no",
        "note": "one more field",
    }
    assert object_decoder(Noted, True, None, frozenset({"v", "type"}))(json.loads(text), "it") == message
    assert parse_server(text) == schema.RefusedMsg(3, "no")
