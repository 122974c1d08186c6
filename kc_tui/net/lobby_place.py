"""A lobby front end's memory of its player's place at a server: the invite or quick play to ask
for once signed in, the seat held at a table not started yet, the seat's address at each table
started for the player, and the invite link of each table the player opened.

The app's lobby screen (:mod:`kc_tui.ui.remote.lobby`) and the plain mode's lobby
(:mod:`kc_tui.plain.remote_lobby`) each keep one and ask it what a message from the lobby means
for the player and which request a command makes; what they show of it is theirs. Plain Python.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kc_tui.config import HUMAN, Config
from kc_tui.i18n import _
from kc_tui.net.client import Link
from kc_tui.net.listings import free_seats
from kc_tui.net.lobby_client import LobbyClient, LobbyError, Signer, load_key, parse_invite
from kc_tui.net.lobby_schema import (
    ENDED,
    PLAYING,
    AcceptInvite,
    CreateTable,
    JoinedMsg,
    LeaveTable,
    QuickPlay,
    StartMsg,
    TableListing,
)


def player_key(key: Signer | None) -> tuple[Signer | None, str | None]:
    """The key to sign in with (``key``, else the install's) and why the install's cannot be
    used (None when it can): without a key the lobby is only watched."""
    if key is not None:
        return key, None
    try:
        return load_key(), None
    except LobbyError as exc:
        # Translators: {problem} is why the key file cannot be read or made.
        return None, _("Your player key cannot be used ({problem}): the lobby is only watched.").format(problem=exc)


def lobby_client(
    address: str,
    key: Signer | None,
    name: str,
    *,
    cafile: str | None,
    on_event: Callable[[Any], None],
    on_link: Callable[[Link], None],
    on_problem: Callable[[str], None],
) -> LobbyClient:
    """The lobby's client for a front end (trusting ``cafile``'s certificate when given);
    :class:`~kc_tui.net.client.AddressError` when ``address`` is not one."""
    ssl_context = None
    if cafile is not None:
        from kc_tui.net.client import trusting

        ssl_context = trusting(cafile)
    return LobbyClient(
        address, key, name, on_event=on_event, on_link=on_link, on_problem=on_problem, ssl_context=ssl_context
    )


def quick_request(config: Config, fill_after: int) -> QuickPlay:
    """Quick play at a table of the settings' rules and seats, AIs filling after ``fill_after`` s."""
    rules = config.rules
    return QuickPlay(len(config.opponents) + 1, rules.target, rules.to_dict(), fill_after)


def new_table_request(config: Config) -> CreateTable:
    """A new table of the settings' seats (the player's first), target and rules."""
    seats = (HUMAN, *(HUMAN if o.is_human else o.kind for o in config.opponents))
    return CreateTable(seats, config.rules.target, config.rules.to_dict())


def waiting_line(seated: JoinedMsg, listing: TableListing | None, fill_in: int | None) -> str:
    """How the player's table not started yet fills: its seats taken, and when AIs fill the rest."""
    if listing is None:
        return _("You have a seat at table {table}: waiting for players.").format(table=seated.table)
    taken = len(listing.seats) - free_seats(listing)
    # Translators: {taken} and {count} are numbers of seats.
    line = _("Waiting for players: {taken} of {count} seats taken.").format(taken=taken, count=len(listing.seats))
    if fill_in is not None:
        # Translators: {seconds} is a number of seconds.
        line += " " + _("AIs fill the empty seats in {seconds} s.").format(seconds=fill_in)
    return line


def why_not_sent(client: LobbyClient | None, message: object, not_signed_in: str) -> str | None:
    """Send a request to the lobby: None once sent, else why not (the server's line when its
    lobby is for watching only; ``not_signed_in`` when the player is not signed in yet)."""
    if client is not None and client.watch_only is not None:
        return client.watch_only
    if client is None or client.signed_in is None:
        return not_signed_in
    if client.send(message) is None:
        return _("The connection is down: nothing was sent.")
    return None


@dataclass
class LobbyPlace:
    """The player's place at a lobby (see the module's docstring). ``address``: the server's,
    an invite link's taken apart (its table's seat asked for once signed in)."""

    address: str
    #: The invite to accept once signed in (its table and secret).
    pending_invite: tuple[str, str] | None = None
    #: Quick play to ask for once signed in.
    pending_quick: bool = False
    #: The seat held at a table not started yet (None: none).
    seated: JoinedMsg | None = None
    #: The seat's address at each table started for the player.
    seat_urls: dict[str, str] = field(default_factory=dict)
    #: The invite link of each table the player opened (the server names a seat again after a
    #: sign-in without it).
    invites: dict[str, str] = field(default_factory=dict)

    @classmethod
    def at(cls, address: str, *, quick: bool = False) -> LobbyPlace:
        """The place for ``address`` (a server's, or an invite link), quick play asked or not."""
        invite = parse_invite(address)
        if invite is None:
            return cls(address, pending_quick=quick)
        return cls(invite[0], pending_invite=invite[1:], pending_quick=quick)

    def signed_in(self) -> AcceptInvite | bool:
        """Signed in: the seats are the server's to name again (a seat not named again is
        gone). What was asked for at the start: the invite to accept, True for quick play, else
        False; each asked for once."""
        self.seated = None
        if self.pending_invite is not None:
            table, secret = self.pending_invite
            self.pending_invite = None
            return AcceptInvite(table, secret)
        if self.pending_quick:
            self.pending_quick = False
            return True
        return False

    def joined(self, message: JoinedMsg) -> bool:
        """A seat at a table not started yet (an answer, or the server naming it again), its
        invite link kept; whether it is a table the player did not sit at already."""
        if message.invite is not None:
            self.invites[message.table] = message.invite
        elif message.table in self.invites:
            message = dataclasses.replace(message, invite=self.invites[message.table])
        fresh = self.seated is None or self.seated.table != message.table
        self.seated = message
        return fresh

    def started(self, message: StartMsg) -> bool:
        """The player's table starts: whether its seat is to be opened (False: the server names
        a seat again after a sign-in; the seat there connects again by itself)."""
        self.seated = None
        self.invites.pop(message.table, None)
        known = message.table in self.seat_urls
        self.seat_urls[message.table] = message.url
        return not known

    def gone(self, table: str) -> bool:
        """``table`` is gone from the lobby: whether it held the player's seat."""
        self.seat_urls.pop(table, None)
        if self.seated is not None and self.seated.table == table:
            self.seated = None
            return True
        return False

    def own_seat(self, listing: TableListing) -> str | None:
        """The seat's address at ``listing``'s table when the player plays there, else None."""
        url = self.seat_urls.get(listing.table)
        return url if url is not None and listing.phase == PLAYING else None

    @staticmethod
    def has_free_seat(listing: TableListing) -> bool:
        """Whether ``listing``'s table has a seat to join."""
        return free_seats(listing) > 0 and listing.phase != ENDED

    def leave(self) -> LeaveTable | None:
        """Leave the seat held at a table not started: the request that says so, None when none."""
        seated, self.seated = self.seated, None
        return None if seated is None else LeaveTable(seated.table)


__all__ = [
    "LobbyPlace",
    "lobby_client",
    "new_table_request",
    "player_key",
    "quick_request",
    "waiting_line",
    "why_not_sent",
]
