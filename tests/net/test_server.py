"""The table server with real clients on loopback: a whole match, and no card a seat may not see."""

from __future__ import annotations

import asyncio
import random

from kc_tui.engine import cards_of
from kc_tui.net import schema as p
from kc_tui.net.protocol import write
from tests.net.serverkit import TWO_ROUNDS, on_turn, play_on, position, seated, session_for


async def test_a_whole_match_of_two_remote_people_and_an_ai_shows_no_hidden_card() -> None:
    async with seated("Ana", "Ben", None, session=session_for(rules=TWO_ROUNDS)) as (server, _, (ana, ben, spectator)):
        welcome = next(m for m in ana.messages if isinstance(m, p.WelcomeMsg))
        assert (welcome.seat, welcome.name) == (0, "Ana")
        assert [s.kind for s in welcome.seats] == ["human", "human", "greedy"]

        def over() -> bool:
            return server.session.match.over

        made = await asyncio.gather(play_on(ana, random.Random(1), over), play_on(ben, random.Random(2), over))
        for c in (ana, ben, spectator):
            await c.expect(p.StateMsg, where=lambda m: m.over)
        assert min(made) > 0
        rounds = [m for m in spectator.messages if isinstance(m, p.RoundMsg)]
        assert [r.number for r in rounds] == list(range(1, len(server.session.match.results) + 1))
        # Every round's end shows every hand's cards left, as the engine scored them.
        for c in (ana, ben, spectator):
            shown = [m.cards for m in c.messages if isinstance(m, p.RoundMsg)]
            scored = [tuple(frozenset(cards_of(mask)) for mask in r.hands_left) for r in server.session.match.results]
            assert [tuple(frozenset(hand) for hand in cards) for cards in shown] == scored
        assert any(hand for r in rounds for hand in r.cards), "no round ended with a card in a hand"
        last = spectator.state
        assert last.over and last.winners and last.end_text
        assert "You" not in last.end_text.split()
        for c in (ana, ben, spectator):
            assert c.leaks == []
            await c.close()
        assert len(ana.states()) > 5 and spectator.state.hand is None


async def test_a_hint_and_an_undo_answer_the_seat_on_turn() -> None:

    async with seated("Ana", "Ben", stand_in=0) as (server, _, (ana, ben)):
        mover = await on_turn(server, ana, ben)
        st = mover.state
        await mover.send(write(p.HintRequest(st.stamp, 21)))
        hint = await mover.expect(p.HintMsg)
        assert hint.id == 21 and hint.move in st.legal and hint.text
        plays = [m for m in st.legal if m != "end"]
        assert plays  # with this seed the seat on turn can play a card
        before = position(server)
        await mover.move(plays[0])
        moved = await mover.expect(p.StateMsg, where=lambda m: m.stamp > st.stamp)
        assert moved.can_undo and position(server) != before
        await mover.send(write(p.UndoRequest(moved.stamp, 22)))
        undone = await mover.expect(p.StateMsg, where=lambda m: m.stamp > moved.stamp)
        assert (undone.hand, undone.piles, undone.legal) == (st.hand, st.piles, st.legal)
        assert position(server)[1:] == before[1:]
        for c in (ana, ben):
            assert c.leaks == []
            await c.close()
