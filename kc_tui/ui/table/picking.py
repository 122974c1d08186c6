"""Picking a card or a pile and playing it, by keys and clicks: what the game screen and a remote
seat's screen share.

:class:`HandPicking` holds what is picked (``selected_card``, ``source_pile``) and the keys'
actions (``←`` ``→`` and ``1``-``9`` pick a card, a pile's key plays the picked card there or
picks the pile up, ``t`` ends the turn, asking again when something is picked or when ending
costs something, Esc lets go). A card keeps its number key for the whole turn
(:meth:`HandPicking.card_keys`): playing a card never renumbers the others.
What may be picked and where it may go is read from the table's view the screen drew last
(``view``: the viewer's hand and legal moves). The screen says whose turn it is and how a move is
made: :meth:`_my_turn_or_say`, :meth:`submit_move`, :meth:`why_not_pick_up`,
:meth:`end_turn_now`, and draws with ``refresh_view`` and ``_prompt``.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

from textual.binding import Binding, BindingType

from kc_tui.engine import PLACES, Card, Move, is_pile_move, is_play, move, play, play_card, source, target
from kc_tui.i18n import N_, _
from kc_tui.match.view import TableSnapshot
from kc_tui.ui.cards import CardLook
from kc_tui.ui.table.draw import Picked, card_targets, pile_targets
from kc_tui.ui.widgets import HandView
from kc_tui.ui.widgets.hand import KEYS
from kc_tui.ui.widgets.pile import PLACE_KEYS

if TYPE_CHECKING:
    from rich.text import Text
    from textual.screen import Screen

    _Base = Screen[None]
else:
    _Base = object


#: The keys that pick and play, first in a table screen's bindings (its own keys follow, then
#: :data:`TABLE_KEYS`).
PICKING_KEYS: list[BindingType] = [
    Binding("left", "card(-1)", N_("Card"), key_display="1-9"),
    Binding("right", "card(1)", N_("Card"), show=False),
    *[Binding(k, f"pick({i})", show=False) for i, k in enumerate(KEYS)],
    Binding("w", "pile(0)", N_("Pile"), key_display="qweadzxc"),
    *[Binding(k, f"pile({p})", show=False) for p, k in PLACE_KEYS.items() if p != 0],
    Binding("t", "end_turn", N_("End turn")),
]
#: The keys a table screen's bindings end with: letting go of what is picked, the rules, the
#: keys page, the menu and quitting.
TABLE_KEYS: list[BindingType] = [
    Binding("escape", "clear", N_("Clear"), show=False),
    Binding("r,f1", "rules", N_("Rules")),
    Binding("question_mark", "help", N_("Keys"), key_display="?"),
    Binding("m", "menu", N_("Menu")),
    Binding("ctrl+q", "quit", N_("Quit"), priority=True),
]


class HandPicking(_Base):
    """The picking keys of a table's screen (mixed in before the screen's base class)."""

    look: CardLook
    #: The table's view as drawn last (None: nothing drawn yet).
    view: TableSnapshot | None = None
    selected_card: Card | None = None
    source_pile: int | None = None
    #: The move of the hint shown (drawn on the table until something is picked).
    hint_move: Move | None = None
    #: ``t`` was pressed once with something picked (a second ``t`` ends the turn anyway).
    _end_asked: bool = False
    #: The number key of each card this turn (an index into :data:`KEYS`), and the turn.
    _card_keys: dict[Card, int] | None = None
    _keys_turn: Hashable | None = None
    #: The card each key picks, as the hand shows them now.
    _keyed: dict[int, Card] | None = None

    # ------------------------------------------------------------------ the screen's part
    def _my_turn_or_say(self) -> bool:
        """Whether this screen's person may act now; if not, say why."""
        raise NotImplementedError

    def picking_hand(self) -> list[Card]:
        """The hand of the person who picks, in the order it is drawn."""
        return list(self.view.hand or ()) if self.view is not None else []

    def submit_move(self, m: Move) -> None:
        """Make (or ask for) the move ``m``."""
        raise NotImplementedError

    def why_not_pick_up(self, place: int) -> str | None:
        """Why the pile at ``place`` cannot be picked up now, or None."""
        raise NotImplementedError

    def end_turn_now(self) -> None:
        """End the turn (nothing is picked any more)."""
        raise NotImplementedError

    def places_for_card(self, card: Card) -> set[int]:
        """The places the picking person may play ``card`` on now."""
        return card_targets(self.view.legal, card) if self.view is not None else set()

    def end_turn_cost(self) -> str | None:
        """What ending the turn now costs, said before the ``t`` that ends it (None: nothing):
        R16, under chips scoring a turn ended without a card played from the hand costs a chip
        (while the player has one)."""
        if self.view is None or not self.view.end_turn_costs:
            return None
        return _("Ending your turn now costs a chip (R16: no card played from your hand yet)")

    def number_afresh(self) -> None:
        """Number the hand afresh, in its order, at its next drawing (a position laid out anew)."""
        self._card_keys = None

    def card_keys(self, hand: list[Card], turn: Hashable | None, start: list[Card] | None = None) -> list[int | None]:
        """The number key of each card of ``hand`` (an index into :data:`KEYS`; None: no key).
        Through one ``turn`` (a value that changes when the next turn begins; None: not the
        picking person's turn) a card keeps its key: the keys of the cards played are not given
        again, and a card that comes into the hand takes the first free key. A new turn numbers
        the hand afresh, in its order: the order of ``start``, the hand as the turn began, when
        it is given (so a card has the same key on a screen opened mid-turn, after a resume)."""
        if turn is None or turn != self._keys_turn or self._card_keys is None:
            first = hand if start is None or turn is None else start
            self._card_keys = {card: i for i, card in enumerate(first[: len(KEYS)])}
            self._keys_turn = turn
        keyed = self._card_keys
        free = iter([i for i in range(len(KEYS)) if i not in set(keyed.values())])
        for card in hand:
            if card not in keyed and (key := next(free, None)) is not None:
                keyed[card] = key
        keys = [keyed.get(card) for card in hand]
        self._keyed = {key: card for card, key in zip(hand, keys, strict=True) if key is not None}
        return keys

    def places_for_pile(self, place: int) -> set[int]:
        """The places the pile at ``place`` may move onto now."""
        return pile_targets(self.view.legal, place) if self.view is not None else set()

    if TYPE_CHECKING:  # the screen's own drawing (never shadowed here)

        def refresh_view(self) -> None: ...

        def _prompt(self) -> None: ...

        def say(self, text: str | Text, kind: str = "info") -> None: ...

    def _targets(self) -> set[int]:
        """Where what is picked may go (highlighted on the table)."""
        if self.selected_card is not None:
            return self.places_for_card(self.selected_card)
        if self.source_pile is not None:
            return self.places_for_pile(self.source_pile)
        return set()

    def lit_places(self) -> set[int]:
        """The places lit as a hint's are: where the hint on show plays."""
        hint = self.hint_move
        return {target(hint)} if hint is not None and (is_play(hint) or is_pile_move(hint)) else set()

    def picked(self) -> Picked:
        """What is picked, where it may go, and the places lit (:meth:`lit_places`)."""
        return Picked(self.selected_card, self.source_pile, frozenset(self._targets()), frozenset(self.lit_places()))

    def pick_hint(self, m: Move) -> str | None:
        """Show the hint ``m`` picked: its card or the pile it moves, drawn on the table. The key
        that plays it, or None (the hint ends the turn)."""
        self.hint_move = m
        if is_play(m):
            self.selected_card, self.source_pile = play_card(m), None
        elif is_pile_move(m):
            self.selected_card, self.source_pile = None, source(m)
        else:
            self.selected_card = self.source_pile = None
        self.refresh_view()
        return PLACE_KEYS[target(m)] if is_play(m) or is_pile_move(m) else None

    # ------------------------------------------------------------------ the keys
    def action_card(self, delta: int) -> None:
        if not self._my_turn_or_say():
            return
        hand = self.picking_hand()
        if not hand:
            return
        if self.selected_card in hand:
            i = (hand.index(self.selected_card) + delta) % len(hand)
        else:
            i = 0 if delta > 0 else len(hand) - 1
        self._select_card(hand[i])

    def action_pick(self, index: int) -> None:
        if not self._my_turn_or_say():
            return
        hand = self.picking_hand()
        keyed = self._keyed if self._keyed is not None else dict(enumerate(hand))
        card = keyed.get(index)
        if card is None or card not in hand:
            self.say(_("No card of your hand has the key {key} now.").format(key=KEYS[index]), "error")
            return
        self._select_card(None if card == self.selected_card else card)

    def _select_card(self, card: Card | None) -> None:
        self._end_asked = False
        self.selected_card = card
        self.source_pile = None
        self.hint_move = None
        self.refresh_view()
        self._prompt()
        if card is not None:
            self.query_one(HandView).scroll_to_card(card)

    def card_clicked(self, card: Card) -> None:
        """A card of the hand was clicked: pick it, or let it go."""
        if self._my_turn_or_say():
            self._select_card(None if card == self.selected_card else card)

    def action_pile(self, place: int) -> None:
        if not self._my_turn_or_say():
            return
        self._end_asked = False
        if self.selected_card is not None:
            self.submit_move(play(self.selected_card, place))
        elif self.source_pile is not None:
            if place == self.source_pile:
                self.action_clear()
            else:
                self.submit_move(move(self.source_pile, place))
        elif (why := self.why_not_pick_up(place)) is not None:
            self.say(why, "info")
        else:
            self.source_pile = place
            self.hint_move = None
            self.refresh_view()
            self._prompt()

    def action_end_turn(self) -> None:
        if not self._my_turn_or_say():
            return
        picked = self.selected_card is not None or self.source_pile is not None
        cost = None if picked else self.end_turn_cost()
        if cost is not None and not self._end_asked:
            self._end_asked = True
            # Translators: {cost} is what ending the turn now costs (a sentence without its full stop).
            self.say(_("{cost}: press t again to end your turn.").format(cost=cost), "hint")
            return
        if picked and not self._end_asked:
            # A card (or pile) is picked and not played: ending now is likely a slip of the key.
            self._end_asked = True
            if self.selected_card is not None:
                # Translators: {card} is a card ("10♥").
                slip = _(
                    "{card} is picked but not played. Press t again to end your turn anyway, "
                    "or pick where it goes (Esc cancels)."
                ).format(card=self.look.label(self.selected_card))
            else:
                # Translators: {pile} is a pile's place on the table ("NW", "E").
                slip = _(
                    "the pile {pile} is picked but not played. Press t again to end your turn anyway, "
                    "or pick where it goes (Esc cancels)."
                ).format(pile=PLACES[self.source_pile or 0])
            self.say(slip, "hint")
            return
        self._end_asked = False
        self.selected_card = self.source_pile = None
        self.end_turn_now()

    def action_clear(self) -> None:
        self._end_asked = False
        self.selected_card = self.source_pile = self.hint_move = None
        self.refresh_view()
        self._prompt()


__all__ = ["HandPicking"]
