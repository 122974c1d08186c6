"""A typed line read as a move or a command: :func:`read_input`.

A move is typed by its number in the list of moves (:meth:`kc_tui.plain.telling.Teller.moves`)
or as it is said: ``7h north``, ``play 7h n``, ``10♥ NE``, ``move east to north``, ``move e n``,
``end``; a command by its word (:class:`Command`). Every line that is neither is refused in one
line that says why; a move that is not legal is refused with the rule that forbids it, as the
table refuses it (:func:`kc_tui.engine.explain_illegal`).

Words are read whatever their case and accents; the places and the command words may be typed
in English or in the language in use. The single letters are places (``e`` is East) and never a
command, but for ``q`` (quit) and ``?`` (help), which no move can mean.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum

from kc_tui.engine import (
    END,
    PLACES,
    Card,
    Move,
    Rules,
    card_str,
    card_symbol,
    explain_illegal,
    is_play,
    make_card,
    mask_of,
    move,
    play,
    play_card,
    target,
)
from kc_tui.i18n import _, pgettext
from kc_tui.match.card_format import CardFormat
from kc_tui.match.places import PLACE_NAMES
from kc_tui.match.view import TableSnapshot
from kc_tui.util.printable import cells, one_line


class Command(StrEnum):
    """What may be typed besides a move."""

    HAND = "hand"
    TABLE = "table"
    MOVES = "moves"
    SCORES = "scores"
    HINT = "hint"
    UNDO = "undo"
    RULES = "rules"
    HELP = "help"
    QUIT = "quit"


@dataclass(frozen=True, slots=True)
class Play:
    """A legal move of the viewer's."""

    move: Move


@dataclass(frozen=True, slots=True)
class Refused:
    """A line that is not a legal move nor a command, and why, in one line."""

    line: str


#: The most cells of a typed word a refusal quotes.
QUOTED = 16
#: The widest a refusal is made when it can be (a terminal of 80 columns).
WIDTH = 80
#: The most digits read as a move's number.
NUMBER_DIGITS = 6

#: The ranks as typed: A 2..10 (or T) J Q K.
_RANKS: dict[str, int] = {"a": 1, "t": 10, "j": 11, "q": 12, "k": 13} | {str(r): r for r in range(2, 11)}
#: The suits as typed (clubs 0, diamonds 1, hearts 2, spades 3): letters, solid and outline symbols.
_SUITS: dict[str, int] = {
    "c": 0,
    "d": 1,
    "h": 2,
    "s": 3,
    "♣": 0,
    "♧": 0,
    "♦": 1,
    "♢": 1,
    "♥": 2,
    "♡": 2,
    "♠": 3,
    "♤": 3,
}
#: English words a move may hold that say nothing: "move e to n", "play 7h on the north pile".
_FILLERS = frozenset({"to", "onto", "on", "at", "the", "pile", "from", "into", "in", "of", "corner", "side", "empty"})
#: The English place names (besides the codes N, NE, ...).
_ENGLISH_PLACES = {
    "north": 0,
    "east": 1,
    "south": 2,
    "west": 3,
    "north-east": 4,
    "south-east": 5,
    "south-west": 6,
    "north-west": 7,
}
_SEPARATORS = re.compile(r"[\s,;:.!?()\[\]{}\"'`|/\\]+")
_ARROWS = re.compile(r"->|=>|→|⇒|>")
#: What a typed word may hold that is not seen and says nothing: variation selectors (``♥️``)
#: and the Thai catalog's break mark.
_UNSEEN = "\ufe0e\ufe0f\u200b"


def _typed_commands() -> dict[Command, str]:
    """The command words in the language in use."""
    # Translators: the words typed in the plain mode for its commands (lower case, short: a word
    # or two); the English words are understood too.
    return {
        Command.HAND: pgettext("typed command", "hand"),
        Command.TABLE: pgettext("typed command", "table"),
        Command.MOVES: pgettext("typed command", "moves"),
        Command.SCORES: pgettext("typed command", "scores"),
        Command.HINT: pgettext("typed command", "hint"),
        Command.UNDO: pgettext("typed command", "undo"),
        Command.RULES: pgettext("typed command", "rules"),
        Command.HELP: pgettext("typed command", "help"),
        Command.QUIT: pgettext("typed command", "quit"),
    }


def _typed_verbs() -> tuple[str, str, str, str]:
    """The words "play", "move", "end" and "to" as typed in the language in use."""
    # Translators: words typed in the plain mode: "play 7h n", "move e n", "end", "move e to n"
    # (lower case, one word each, no spaces); the English words are understood too.
    return (
        pgettext("typed move", "play"),
        pgettext("typed move", "move"),
        pgettext("typed move", "end"),
        pgettext("typed move", "to"),
    )


def fold(text: str) -> str:
    """``text`` as it is compared: case folded, accents and variation selectors dropped."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    kept = "".join(ch for ch in decomposed if not unicodedata.combining(ch) and ch not in _UNSEEN)
    return kept.replace("đ", "d").replace("ø", "o").replace("ł", "l").replace("ı", "i")


def _words(text: str) -> list[str]:
    return [w for w in _SEPARATORS.split(_ARROWS.sub(" to ", fold(text))) if w]


def read_card(word: str) -> Card | None:
    """The card ``word`` names ("7h", "TH", "10♥", "10♡", "k♠"), or None."""
    w = fold(word.strip())
    if len(w) < 2 or len(w) > 3:
        return None
    rank, suit = _RANKS.get(w[:-1]), _SUITS.get(w[-1])
    if rank is None or suit is None:
        return None
    return make_card(rank, suit)


def _place_phrases() -> dict[tuple[str, ...], int]:
    """Every way a place may be typed, as its words: the codes, the English names and the names
    in the language in use, with or without their hyphen (a phrase two places share is dropped)."""
    found: dict[tuple[str, ...], set[int]] = {}

    def add(text: str, place: int) -> None:
        folded = fold(text).strip()
        forms = {folded, folded.replace("-", ""), folded.replace("-", " ")}
        for form in forms:
            key = tuple(form.split())
            if key:
                found.setdefault(key, set()).add(place)

    for place, code in enumerate(PLACES):
        add(code, place)
    for name, place in _ENGLISH_PLACES.items():
        add(name, place)
    for place, name in PLACE_NAMES.items():
        add(_(name), place)
    return {key: next(iter(places)) for key, places in found.items() if len(places) == 1}


def _segments(words: Sequence[str], phrases: dict[tuple[str, ...], int], at: int = 0) -> Iterator[list[int]]:
    """Every way ``words[at:]`` reads as a row of places."""
    if at == len(words):
        yield []
        return
    for size in (1, 2, 3):
        key = tuple(words[at : at + size])
        if len(key) == size and key in phrases:
            for rest in _segments(words, phrases, at + size):
                yield [phrases[key], *rest]


def _places(words: Sequence[str], phrases: dict[tuple[str, ...], int], count: int) -> list[int] | None:
    """``words`` read as ``count`` places, or None."""
    for places in _segments(words, phrases):
        if len(places) == count:
            return places
    return None


def legal_order(snap: TableSnapshot) -> list[Move]:
    """The viewer's legal moves as the list of moves numbers them: in the order of
    ``snap.legal``, ending the turn last."""
    return [m for m in snap.legal if m != END] + [m for m in snap.legal if m == END]


def quoted(word: str) -> str:
    """A typed word as a refusal quotes it: printable, cut to :data:`QUOTED` cells ("..." ending
    a word cut)."""
    text = one_line(word)
    if cells(text) <= QUOTED:
        return text
    while text and cells(text) > QUOTED - 3:
        text = text[:-1]
    return text + "..."


def typed_card(card: Card) -> str:
    """A card as it may be typed: ``7h``."""
    return card_str(card).lower()


def _not_now(snap: TableSnapshot) -> Refused | None:
    """Why the viewer has no move to make now, or None when it is on turn."""
    if snap.viewer is None:
        return Refused(_("You are watching: you have no moves."))
    if snap.over or snap.round_over or snap.to_move is None:
        return Refused(_("the round is over"))
    if not snap.my_turn or not snap.legal:
        return Refused(_("it is not your turn"))
    return None


def _checked(m: Move, snap: TableSnapshot, rules: Rules, fmt: CardFormat) -> Play | Refused:
    """``m`` played when it is legal, else refused with the rule it breaks."""
    if m in snap.legal:
        return Play(m)
    hand = snap.hand or ()
    reason = explain_illegal(mask_of(hand), snap.piles, rules, m, fmt)
    return Refused(reason or _("That move is not allowed now."))


def _card_alone(card: Card, snap: TableSnapshot, rules: Rules, fmt: CardFormat) -> Play | Refused:
    """A card typed without a place: played where it alone may go."""
    if card not in (snap.hand or ()):
        return _checked(play(card, 0), snap, rules, fmt)
    places = sorted({target(m) for m in snap.legal if is_play(m) and play_card(m) == card})
    if len(places) == 1:
        return Play(play(card, places[0]))
    if not places:
        return Refused(_("{card} cannot be played anywhere now.").format(card=fmt(card)))
    example = f"{typed_card(card)} {PLACES[places[0]].lower()}"
    line = ""
    for names in (", ".join(_(PLACE_NAMES[p]) for p in places), " ".join(PLACES[p] for p in places)):
        # Translators: a card typed without a place in the plain mode, that may go on several
        # places: "7♠ may go on North, East: type one too, such as 7s n".
        line = _("{card} may go on {places}: type one too, such as {example}").format(
            card=fmt(card), places=names, example=example
        )
        if cells(line) <= WIDTH:
            break
    return Refused(line)


def _onto_card(card: Card, top: Card, snap: TableSnapshot, rules: Rules, fmt: CardFormat) -> Play | Refused:
    """A card typed onto another ("7h on 8c"): played on the pile that top card ends."""
    for place, pile in enumerate(snap.piles):
        if pile and pile[-1] == top:
            return _checked(play(card, place), snap, rules, fmt)
    return Refused(_("{card} is not on top of any pile.").format(card=fmt(top)))


def _unknown(words: Sequence[str], phrases: dict[tuple[str, ...], int], known: frozenset[str]) -> Refused:
    """The first word of ``words`` that is no place, card or known word, refused."""
    for word in words:
        if (word,) not in phrases and read_card(word) is None and word not in known and not word.isdecimal():
            # Translators: a word typed in the plain mode that means nothing; {word} is that word.
            return Refused(_("Unknown word: {word} (type help for the moves and commands)").format(word=quoted(word)))
    return Refused(_("Type a card and a place (7h n), two places (move e n), end, or a move's number."))


def read_input(
    text: str, snap: TableSnapshot, rules: Rules, *, fmt: CardFormat = card_symbol
) -> Play | Command | Refused:
    """``text`` read against the viewer's view ``snap`` (its hand, piles and legal moves), played
    by ``rules``; ``fmt`` writes the cards a refusal names."""
    if not isinstance(text, str):
        return Refused(_("Nothing typed: type a move's number, a move such as 7h n, or help."))
    stripped = fold(text).strip()
    if stripped in ("?", "q"):
        return Command.HELP if stripped == "?" else Command.QUIT
    words = _words(text)
    if not words:
        return Refused(_("Nothing typed: type a move's number, a move such as 7h n, or help."))
    commands: dict[tuple[str, ...], Command] = {(command.value,): command for command in Command}
    commands |= {tuple(_words(word)): command for command, word in _typed_commands().items()}
    commands[("exit",)] = Command.QUIT
    if tuple(words) in commands:
        return commands[tuple(words)]
    play_word, move_word, end_word, to_word = (fold(w) for w in _typed_verbs())
    plays = {"play", "put", play_word}
    moves = {"move", move_word}
    ends = {"end", end_word}
    fillers = _FILLERS | {to_word}
    phrases = _place_phrases()
    known = frozenset(plays | moves | ends | fillers | {"turn", "my"} | {w for key in commands for w in key})
    if len(words) == 1 and words[0].isdecimal():
        return _numbered(words[0], snap)
    if words[0] in ends and all(w in fillers | {"turn", "my", "the"} for w in words[1:]):
        return _not_now(snap) or _checked(END, snap, rules, fmt)
    verb = words[0] if words[0] in plays | moves else None
    rest = [w for w in (words[1:] if verb else words) if w not in fillers]
    if not rest:
        return _unknown(words, phrases, frozenset())
    card = read_card(rest[0])
    if card is not None and verb not in moves:
        after = rest[1:]
        if not after:
            return _not_now(snap) or _card_alone(card, snap, rules, fmt)
        if len(after) == 1 and read_card(after[0]) is not None and (after[0],) not in phrases:
            top = read_card(after[0])
            assert top is not None
            return _not_now(snap) or _onto_card(card, top, snap, rules, fmt)
        places = _places(after, phrases, 1)
        if places is None:
            return _unknown(after, phrases, known)
        return _not_now(snap) or _checked(play(card, places[0]), snap, rules, fmt)
    if verb in plays:
        return _unknown(rest, phrases, known)
    places = _places(rest, phrases, 2)
    if places is None:
        one = _places(rest, phrases, 1)
        if one is not None:
            # Translators: a place typed alone in the plain mode ("e" is East, not the end of the turn).
            return Refused(
                _("{place} alone is not a move: type 7h n, move e n, or end").format(place=_(PLACE_NAMES[one[0]]))
            )
        return _unknown(rest, phrases, known)
    return _not_now(snap) or _checked(move(places[0], places[1]), snap, rules, fmt)


def _numbered(digits: str, snap: TableSnapshot) -> Play | Refused:
    """A move typed by its number in the list of moves."""
    order = legal_order(snap)
    if not order:
        return _not_now(snap) or Refused(_("it is not your turn"))
    try:
        n = int(digits) if len(digits) <= NUMBER_DIGITS else 0
    except ValueError:
        n = 0
    if not 1 <= n <= len(order):
        # Translators: a number typed in the plain mode that is no move's: "There is no move 12: the moves are 1 to 9."
        return Refused(_("There is no move {n}: the moves are 1 to {last}.").format(n=quoted(digits), last=len(order)))
    return Play(order[n - 1])


def help_lines() -> list[str]:
    """What may be typed, in short lines."""
    words = _typed_commands()
    play_word, move_word, end_word, _to = _typed_verbs()
    lines = [
        _("Type a move's number from the list of moves, or the move itself:"),
        # Translators: the plain mode's help; {play} is the typed word for "play".
        _("7h n, {play} 7h north, 10♡ ne: a card from your hand onto a place").format(play=play_word),
        _("7h: the card onto the one place that takes it"),
        # Translators: the plain mode's help; {move} is the typed word for "move".
        _("{move} e n, e to n: the pile at East onto North").format(move=move_word),
        _("{end}: end the turn").format(end=end_word),
        _("Places: n e s w (the sides), ne se sw nw (the corners), or their names."),
        _("Cards: A 2 ... 10 (or T) J Q K and c d h s (or ♣ ♢ ♡ ♠): 10h, th, 10♡."),
        _("{hand}, {table}, {moves}, {scores}: your hand, the table, your moves, the scores").format(
            hand=words[Command.HAND],
            table=words[Command.TABLE],
            moves=words[Command.MOVES],
            scores=words[Command.SCORES],
        ),
        _("{hint}: a move to make; {undo}: take back your last move; {rules}: the rules").format(
            hint=words[Command.HINT], undo=words[Command.UNDO], rules=words[Command.RULES]
        ),
        _("{help} or ?: this help; {quit} or q: leave the table").format(
            help=words[Command.HELP], quit=words[Command.QUIT]
        ),
    ]
    english = [command.value for command in Command]
    if any(words[command] != command.value for command in Command):
        lines.append(_("The English words work too: {words}.").format(words=" ".join(english)))
    return lines


__all__ = ["Command", "Play", "Refused", "fold", "help_lines", "legal_order", "read_card", "read_input", "typed_card"]
