"""Who is at the keyboard of a table several people share: :class:`Seating`. A table of two or
more people keeps each hand for its owner: the hand of the person on turn opens only once that
person said they are at the keyboard (the app's handoff screen, the plain mode's handoff line),
again at every deal and when a match is resumed. With one person nothing of this applies: that
player's hand is always open, as at any table. Plain Python."""

from __future__ import annotations

from kc_tui.match.session import MatchSession


class Seating:
    """Who is at the keyboard of a match's table: the human seats, and the one that confirmed
    last (None: nobody since the deal, or since the table was opened)."""

    def __init__(self, session: MatchSession) -> None:
        self.session = session
        #: The human seat that confirmed being at the keyboard, or None.
        self.at_keyboard: int | None = None
        #: A handoff screen is up (or on its way): the next one waits for its answer.
        self.handing_off = False

    @property
    def hot_seat(self) -> bool:
        """Several humans share the keyboard."""
        return len(self.session.human_seats) > 1

    def new_deal(self) -> None:
        """A round was dealt: its first human confirms before any hand opens."""
        self.at_keyboard = None

    def needs_handoff(self) -> bool:
        """A human is on turn who has not confirmed being at the keyboard."""
        s = self.session
        return self.hot_seat and s.human_to_move and s.to_move != self.at_keyboard

    def open_seat(self) -> int | None:
        """The seat whose hand may be drawn now: the one human at a table of one, else the human
        on turn once confirmed (None on an AI's turn, between rounds and before the handoff)."""
        s = self.session
        if not self.hot_seat:
            return self.session.human_seats[0] if self.session.human_seats else None
        return s.to_move if s.human_to_move and s.to_move == self.at_keyboard else None

    def label_seat(self) -> int | None:
        """The seat the hand's row is labelled with: the one human, else the human on turn, else
        the human who was at the keyboard last (their hand closed), else the first human."""
        s = self.session
        if not self.hot_seat:
            return self.session.human_seats[0] if self.session.human_seats else None
        if s.human_to_move:
            return s.to_move
        return self.at_keyboard if self.at_keyboard is not None else self.session.human_seats[0]

    def may_act(self) -> bool:
        """The human on turn may act: it is a human's turn and their hand is open."""
        s = self.session
        return s.human_to_move and self.open_seat() == s.to_move


__all__ = ["Seating"]
