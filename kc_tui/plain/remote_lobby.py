"""A server's lobby in the plain mode: ``kings-corners online --plain [URL]``.

The lobby's connection is the app's (:class:`kc_tui.net.lobby_client.LobbyClient`: signed in with
the install's player key, connecting again by itself). Its open tables are told as numbered
lines (``list``), and typed commands act on them: ``quick`` (quick play at a table of the
settings' rules), ``join N``, ``watch N``, ``new`` (a table of the settings' seats), ``leave``
(the seat at a table not started), ``rematch`` / ``no`` at a match's end, ``help``, ``quit``.
Once the player's table starts, it is played as ``join --plain`` plays a table
(:class:`kc_tui.plain.remote.PlainTable`); at its end the lobby is back.

Everything from the network (names, reasons, links) is data, written printable by
:class:`kc_tui.plain.lines.Lines`.
"""

from __future__ import annotations

import asyncio

from kc_tui.config import Config, name_problem
from kc_tui.i18n import _, ngettext, pgettext
from kc_tui.net.client import AddressError, Link, RemoteSeat, Status
from kc_tui.net.listings import clock_text, free_seats, phase_text, rules_text, seats_text
from kc_tui.net.lobby_client import LobbyClient, Signer
from kc_tui.net.lobby_place import (
    LobbyPlace,
    lobby_client,
    new_table_request,
    player_key,
    quick_request,
    waiting_line,
    why_not_sent,
)
from kc_tui.net.lobby_schema import (
    NAME_TAKEN,
    OPEN,
    WATCH_ONLY,
    AcceptInvite,
    Challenge,
    JoinedMsg,
    JoinTable,
    LobbyErrorMsg,
    LobbyMsg,
    LobbyRefusedMsg,
    LobbyServerMessage,
    Rematch,
    RematchMsg,
    SignedIn,
    StartMsg,
    TableGoneMsg,
    TableListing,
    TableMsg,
    WatchingMsg,
    WatchTable,
)
from kc_tui.plain.lines import Lines
from kc_tui.plain.reading import fold
from kc_tui.plain.remote import Left, PlainTable, Typed, typing_hint
from kc_tui.util.printable import is_you

#: The lobby's commands (English; each is also understood in the language in use).
LIST, QUICK, JOIN, WATCH, NEW, LEAVE, REMATCH, NO, HELP, QUIT = (
    "list",
    "quick",
    "join",
    "watch",
    "new",
    "leave",
    "rematch",
    "no",
    "help",
    "quit",
)


def lobby_words() -> dict[str, str]:
    """The lobby's command words as typed in the language in use, by their English word."""
    # Translators: the words typed in the plain mode's lobby for its commands (lower case, one
    # word each, no spaces): list the tables, quick play, join a table, watch one, open a new
    # one, leave the seat taken, play the rematch offered, decline it; the English words are
    # understood too.
    return {
        LIST: pgettext("typed lobby command", "list"),
        QUICK: pgettext("typed lobby command", "quick"),
        JOIN: pgettext("typed lobby command", "join"),
        WATCH: pgettext("typed lobby command", "watch"),
        NEW: pgettext("typed lobby command", "new"),
        LEAVE: pgettext("typed lobby command", "leave"),
        REMATCH: pgettext("typed lobby command", "rematch"),
        NO: pgettext("typed lobby command", "no"),
        HELP: pgettext("typed command", "help"),
        QUIT: pgettext("typed command", "quit"),
    }


def command_words() -> dict[str, str]:
    """Every word a lobby command is typed as, folded (:func:`kc_tui.plain.reading.fold`): the
    English one and the one of the language in use."""
    out = {word: word for word in lobby_words()} | {"?": HELP, "q": QUIT, "exit": QUIT}
    out.update({fold(said): word for word, said in lobby_words().items()})
    return out


def lobby_help() -> list[str]:
    """What may be typed in the lobby."""
    return [
        # Translators: the lobby's help in the plain mode; {list}, {quick}... are the typed words.
        _("{list}: the open tables, numbered. {quick}: quick play, AIs fill the empty seats after a wait.").format(
            **lobby_words()
        ),
        _("{join} N: sit at table N. {watch} N: watch table N. {new}: open a table of your settings' seats.").format(
            **lobby_words()
        ),
        _("{leave}: leave your seat at a table not started. {quit}: leave the lobby.").format(**lobby_words()),
    ]


def sorted_listings(listings: dict[str, TableListing]) -> list[TableListing]:
    """The tables in the order the lobby lists them: open ones with free seats first."""
    return sorted(listings.values(), key=lambda t: (t.phase != OPEN, free_seats(t) == 0, t.table))


def listing_line(number: int, listing: TableListing, fill_in: int | None = None) -> str:
    """A table of the list in one line: its number, rules, target, seats, what it is doing,
    its spectators and its clock."""
    # Translators: a table in the plain mode's lobby: "1. standard, target 50: Ana, free, greedy;
    # open; 0 watching; clock 60 s".
    line = _("{number}. {rules}, target {target}: {seats}; {phase}; {watchers} watching; clock {clock}")
    return line.format(
        number=number,
        rules=rules_text(listing),
        target=listing.target,
        seats=seats_text(listing),
        phase=phase_text(listing, fill_in),
        watchers=listing.spectators,
        clock=clock_text(listing),
    )


class PlainLobby:
    """A server's lobby told in lines, and its tables played. ``address``: the server's or an
    invite link (its seat is taken once signed in); ``name``: the name asked for (the default
    "You" asks for one first); ``quick``: quick play at once."""

    def __init__(
        self,
        address: str,
        lines: Lines,
        typed: Typed,
        config: Config,
        *,
        name: str,
        quick: bool = False,
        fill_after: int = 30,
        key: Signer | None = None,
        cafile: str | None = None,
    ) -> None:
        self.lines = lines
        self.typed = typed
        self.config = config
        self.name = name
        self.fill_after = fill_after
        self.cafile = cafile
        self.place = LobbyPlace.at(address, quick=quick)
        self.address = self.place.address
        self.key = key
        self.client: LobbyClient | None = None
        #: The tables as last listed, by their number (1, 2, ...).
        self.numbered: list[str] = []
        #: The table to open (a start, or a watch).
        self._open: asyncio.Queue[str] = asyncio.Queue()
        self._waiting_told: tuple[str, int] | None = None
        self._at_table = False
        self._rematch: RematchMsg | None = None
        self._asking_name = False
        self._ended = asyncio.Event()
        self.exit_code = 0
        self.commands = command_words()

    @property
    def seated(self) -> JoinedMsg | None:
        """The seat held at a table not started yet (None: none)."""
        return self.place.seated

    def say(self, *lines: str) -> None:
        self.lines.say(*lines)

    # ------------------------------------------------------------------ the lobby's run
    async def run(self) -> int:
        """Sign in and take commands until ``quit``, the input's end, or a lobby that cannot be
        reached for good; the exit code."""
        if is_you(self.name):
            name = await self._ask_name(None)
            if name is None:
                return 0
            self.name = name
        self.key, problem = player_key(self.key)
        if problem is not None:
            self.say(problem)
        try:
            client = lobby_client(
                self.address,
                self.key,
                self.name,
                cafile=self.cafile,
                on_event=self._received,
                on_link=self._link_changed,
                on_problem=self.say,
            )
        except AddressError as exc:
            self.say(str(exc))
            return 1
        self.client = client
        self.say(_("Connecting to {server}…").format(server=client.url))
        runner = asyncio.ensure_future(client.run())
        ended = asyncio.ensure_future(self._ended.wait())
        try:
            while not self._ended.is_set():
                line_task = self.typed.next()
                opening = asyncio.ensure_future(self._open.get())
                await asyncio.wait({line_task, opening, ended}, return_when=asyncio.FIRST_COMPLETED)
                if opening.done():
                    if not await self._play_at(opening.result()):
                        break
                    continue
                opening.cancel()
                if line_task.done() and not self._typed(self.typed.take()):
                    break
        finally:
            ended.cancel()
            client.on_event = client.on_link = client.on_problem = None
            await client.close()
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
        return self.exit_code

    async def _ask_name(self, suggestion: str | None) -> str | None:
        """A name typed until one can be used; None at the input's end."""
        if suggestion:
            self.say(_("Type the name to play under (free: {name}):").format(name=suggestion))
        else:
            self.say(_("Type the name to play under:"))
        while True:
            line = await self.typed.get()
            if line is None:
                return None
            name = line.strip() or (suggestion or "")
            problem = name_problem(name, _("your name")) if name and not is_you(name) else None
            if name and not is_you(name) and problem is None:
                return name
            self.say(problem or _("Type the name to play under:"))

    async def _play_at(self, url: str) -> bool:
        """Play (or watch) the table of ``url`` until it is left; whether the lobby goes on."""
        client = self.client
        try:
            seat = RemoteSeat(url, ssl_context=client.ssl_context if client is not None else None)
        except AddressError as exc:
            self.say(str(exc))
            return True
        if client is not None:
            client.follow(False)
        self._at_table = True
        try:
            left = await PlainTable(seat, self.lines, self.typed, self.config).play()
        finally:
            self._at_table = False
        if left is Left.INPUT_ENDED:
            return False
        if client is not None:
            client.follow(True)
        # Translators: {list}, {quick}... are the words typed for the lobby's commands.
        back = _("Back in the lobby: {list}, {quick}, {join} N, {watch} N, {new}, {help}, {quit}.")
        self.say(back.format(**lobby_words()))
        if self._rematch is not None:
            self._offer(self._rematch)
        return True

    # ------------------------------------------------------------------ from the network
    def _received(self, message: LobbyServerMessage) -> None:
        if isinstance(message, LobbyMsg | TableMsg | TableGoneMsg):
            self._listing_changed(message)
        elif isinstance(message, Challenge) and self.key is None:
            self.say(_("Watching the lobby (not signed in)."))
        elif isinstance(message, SignedIn):
            self._signed_in(message)
        elif isinstance(message, JoinedMsg):
            self._joined(message)
        elif isinstance(message, StartMsg):
            self._started(message)
        elif isinstance(message, WatchingMsg):
            self._open.put_nowait(message.url)
        elif isinstance(message, RematchMsg):
            self._rematch_offered(message)
        elif isinstance(message, LobbyRefusedMsg):
            self._refused(message)
        elif isinstance(message, LobbyErrorMsg) and not self._at_table:
            self.say(message.message)

    def _listing_changed(self, message: LobbyMsg | TableMsg | TableGoneMsg) -> None:
        if isinstance(message, TableGoneMsg) and self.place.gone(message.table):
            # Translators: {reason} is the server's words for why the table is gone.
            self.say(_("Your table is gone: {reason}").format(reason=message.reason))
        self._tell_waiting()

    def _signed_in(self, message: SignedIn) -> None:
        first = self.client is not None and self.client.connections == 1 and self.seated is None
        asked = self.place.signed_in()
        games = ngettext("{games} match", "{games} matches", message.games).format(games=message.games)
        # Translators: {name} is the player's name on the server, {rating} a number, {games} "5 matches".
        self.say(
            _("Signed in as {name} · rating {rating} · {games}").format(
                name=message.name, rating=message.rating, games=games
            )
        )
        if isinstance(asked, AcceptInvite):
            self._ask(asked)
        elif asked:
            self._quick()
        elif first and not self._at_table:
            self._list()
            self.say(typing_hint())

    def _joined(self, message: JoinedMsg) -> None:
        if self.place.joined(message):
            self._waiting_told = None
            seated = self.place.seated
            if seated is not None and seated.invite is not None:
                # Translators: {link} is the table's invite link, to give to the people invited.
                self.say(_("Invite: {link}").format(link=seated.invite))
        self._tell_waiting()

    def _tell_waiting(self) -> None:
        """How many seats of the player's table are taken, once each time it changes."""
        seated, client = self.seated, self.client
        if seated is None or client is None or self._at_table:
            return
        listing = client.listings.get(seated.table)
        key = (seated.table, -1 if listing is None else len(listing.seats) - free_seats(listing))
        line = waiting_line(seated, listing, None if listing is None else listing.fill_in)
        if key != self._waiting_told:
            self._waiting_told = key
            self.say(line)

    def _started(self, message: StartMsg) -> None:
        self._rematch = None
        if not self.place.started(message):
            return  # named again after a sign-in: the seat open connects again by itself
        self.say(_("The table starts."))
        self._open.put_nowait(message.url)

    def _rematch_offered(self, offer: RematchMsg) -> None:
        if offer.declined:
            if self._rematch is not None:
                self.say(_("No rematch: a player left or said no."))
            self._rematch = None
            return
        self._rematch = offer
        if not self._at_table:
            self._offer(offer)

    def _offer(self, offer: RematchMsg) -> None:
        # Translators: {people} are the players offered a rematch, {accepted} those who said yes.
        # Translators: {rematch} and {no} are the words typed to accept and to decline.
        line = _("A rematch with {people} (yes so far: {accepted}): type {rematch} to play again, {no} to decline.")
        accepted = ", ".join(offer.accepted) or "-"
        self.say(line.format(people=", ".join(offer.people), accepted=accepted, **lobby_words()))

    def _refused(self, message: LobbyRefusedMsg) -> None:
        client = self.client
        if message.code == NAME_TAKEN and client is not None and client.name_refused is message:
            self._asking_name = True
            self.say(message.reason)
            # Translators: {name} is a free name the server suggests.
            self.say(_("Type the name to play under (free: {name}):").format(name=message.suggestion or "-"))
            return
        if message.code == WATCH_ONLY:
            self.say(message.reason)
            # Translators: {list} and {watch} are the words typed in the plain mode's lobby.
            self.say(_("{list} numbers the tables, {watch} N watches one.").format(**lobby_words()))
            self._list()
            return
        self.say(_("Refused: {reason}").format(reason=message.reason))

    def _link_changed(self, link: Link) -> None:
        if link.status is Status.RECONNECTING:
            # Translators: {reason} is why the lobby's connection dropped or could not be made.
            self.say(_("The lobby's connection is down ({reason}): connecting again…").format(reason=link.reason))
        elif link.status is Status.ENDED and link.code is not None:
            self.say(_("The lobby is closed to you: {reason}.").format(reason=link.reason))
            self.exit_code = 1
            self._ended.set()
        elif link.status is Status.CONNECTED and self.client is not None and self.client.connections > 1:
            self.say(_("The lobby is back."))

    # ------------------------------------------------------------------ what is typed
    def _typed(self, text: str | None) -> bool:
        """Act on a typed line; whether the lobby goes on."""
        if text is None:
            return False
        words = text.split()
        if self._asking_name and words:
            return self._renamed(text.strip())
        if not words:
            return True
        command = self.commands.get(fold(words[0]))
        rest = words[1:]
        if command == QUIT:
            return False
        if command == HELP:
            self.say(*lobby_help())
        elif command == LIST:
            self._list()
        elif command == QUICK:
            if self._free_to_sit():
                self._quick()
        elif command in (JOIN, WATCH):
            listing = self._numbered(rest)
            if listing is not None:
                self._join(listing) if command == JOIN else self._watch(listing)
        elif command == NEW:
            if self._free_to_sit():
                self._new()
        elif command == LEAVE:
            self._leave_seat()
        elif command in (REMATCH, NO):
            self._answer_rematch(command == REMATCH)
        else:
            # Translators: {word} is what was typed in the lobby.
            self.say(
                _("{word} is no command here: type {help} for the commands.").format(
                    word=words[0], help=lobby_words()[HELP]
                )
            )
        return True

    def _renamed(self, name: str) -> bool:
        problem = name_problem(name, _("your name"))
        if problem is not None or is_you(name):
            self.say(problem or _("Type the name to play under:"))
            return True
        self._asking_name = False
        self.name = name
        if self.client is not None:
            self.client.sign_in(name)
        return True

    def _ask(self, message: object) -> bool:
        """Send a request; False (said) when it cannot be sent now."""
        problem = why_not_sent(self.client, message, _("Not signed in yet: wait for the lobby."))
        if problem is not None:
            self.say(problem)
            return False
        return True

    def _free_to_sit(self) -> bool:
        if self.seated is not None:
            self.say(_("You have a seat at a table already: {leave} leaves it.").format(**lobby_words()))
            return False
        return True

    def _list(self) -> None:
        client = self.client
        if client is None:
            return
        listings = sorted_listings(client.listings)
        self.numbered = [t.table for t in listings]
        if not listings:
            self.say(_("No open tables yet: {new} opens one, {quick} finds players for you.").format(**lobby_words()))
            return
        self.say(*(listing_line(i, t, t.fill_in) for i, t in enumerate(listings, start=1)))

    def _numbered(self, rest: list[str]) -> TableListing | None:
        """The table of the number typed after join or watch, as the list last numbered them."""
        client = self.client
        if not self.numbered:
            self.say(_("No tables listed yet: type {list}.").format(**lobby_words()))
            return None
        if len(rest) != 1 or not rest[0].isdigit() or not 1 <= int(rest[0]) <= len(self.numbered):
            # Translators: {count} is how many tables the list numbered.
            self.say(_("Type the table's number from the list: 1 to {count}.").format(count=len(self.numbered)))
            return None
        table = self.numbered[int(rest[0]) - 1]
        listing = client.listings.get(table) if client is not None else None
        if listing is None:
            self.say(_("That table is gone: type {list}.").format(**lobby_words()))
        return listing

    def _quick(self) -> None:
        if self._ask(quick_request(self.config, self.fill_after)):
            self.say(_("Looking for a table…"))

    def _new(self) -> None:
        if self._ask(new_table_request(self.config)):
            self.say(_("Opening a table…"))

    def _join(self, listing: TableListing) -> None:
        url = self.place.own_seat(listing)
        if url is not None:
            self._open.put_nowait(url)  # back to one's own seat
            return
        if not self._free_to_sit():
            return
        if not self.place.has_free_seat(listing):
            self.say(_("No free seat at this table: {watch} N watches it.").format(**lobby_words()))
            return
        self._ask(JoinTable(listing.table))

    def _watch(self, listing: TableListing) -> None:
        client = self.client
        if client is None or client.send(WatchTable(listing.table)) is None:
            self.say(_("The connection is down: nothing was sent."))

    def _leave_seat(self) -> None:
        leaving = self.place.leave()
        if leaving is None:
            self.say(_("You have no seat to leave."))
            return
        if self.client is not None:
            self.client.send(leaving)
        self.say(_("You left the table."))

    def _answer_rematch(self, accept: bool) -> None:
        offer = self._rematch
        if offer is None:
            self.say(_("No rematch is offered."))
            return
        if self.client is not None:
            self.client.send(Rematch(offer.table, accept))
        if not accept:
            self._rematch = None
            self.say(_("No rematch."))
        else:
            self.say(_("Waiting for the others' answers…"))


async def online(
    address: str,
    lines: Lines,
    config: Config,
    *,
    name: str | None = None,
    quick: bool = False,
    fill_after: int = 30,
    cafile: str | None = None,
) -> int:
    """The lobby of the server at ``address`` (or an invite link's) until it is left; the exit code."""
    typed = Typed(lines)
    typed.start()
    try:
        lobby = PlainLobby(
            address,
            lines,
            typed,
            config,
            name=name or config.player_name,
            quick=quick,
            fill_after=fill_after,
            cafile=cafile,
        )
        return await lobby.run()
    finally:
        typed.cancel()


__all__ = ["PlainLobby", "command_words", "listing_line", "lobby_help", "online", "sorted_listings"]
