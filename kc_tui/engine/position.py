"""The position file of docs/POSITION_FORMAT.md: read (strictly validated) and written.

Reading never raises anything but :class:`PositionError`, whatever the text holds: the text is
capped (:data:`MAX_BYTES`), numbers must be finite and in range (:data:`INT_MIN`..:data:`INT_MAX`),
nesting is capped (:data:`MAX_DEPTH`), object keys are unique, and every known key has its
exact JSON type (a bool is not a number, a number is not a bool). Writing always gives strict
JSON (no ``NaN``/``Infinity``), ASCII only.
"""

from __future__ import annotations

import itertools
import json
import math
import reprlib
from typing import Any

from kc_tui.i18n import _, ngettext

from .cards import ALL_CARDS, NEED, CardError, card_str, cards_of, is_king, parse_card
from .moves import PLACES
from .rules import MAX_PLAYERS, MIN_PLAYERS, Draw, Rules, RulesError
from .state import PILE_FULL, Pile, Round
from .strict import is_int as _is_int
from .strict import unique_keys

FORMAT = "kings-corners/position/1"
KNOWN_KEYS = {"format", "rules", "players", "to_move", "drawn", "stock", "idle_turns", "piles", "turn"}
#: What has happened so far in the current turn; written (as the key "turn") only mid-turn,
#: so that a block (R14) and a chip fine (R16) are still counted right after reading it back.
TURN_KEYS = ("moved", "played_card", "drew")
#: Written only once the round is over; checked against the position when read.
OUTPUT_KEYS = {"round_over", "winner", "penalties"}
PLAYER_KEYS = ("name", "hand")

#: The most a position file may hold, in bytes of UTF-8 text (1 MiB).
MAX_BYTES = 1 << 20
#: The deepest nesting of objects and lists (the document itself is depth 1).
MAX_DEPTH = 64
#: Every integer anywhere in a position (extra keys included) lies in this range (64 bits).
INT_MIN = -(1 << 63)
INT_MAX = (1 << 64) - 1
_INT_DIGITS = len(str(INT_MAX))
#: How much of a bad value a message shows.
_SHOW = reprlib.Repr()
_SHOW.maxstring = 40
_SHOW.maxother = 40
_SHOW.maxlist = _SHOW.maxdict = _SHOW.maxtuple = 4
_SHOW.maxlevel = 2
MAX_MESSAGE = 300


class PositionError(ValueError):
    """A position file is not valid; the message (one line) names the first problem."""


def show(value: Any) -> str:
    """A short one-line ``repr`` of a value for a message (control characters escaped)."""
    return _SHOW.repr(value)


def _clip(message: str) -> str:
    """A message kept to one line of at most :data:`MAX_MESSAGE` characters."""
    one = " ".join(message.splitlines())
    return one if len(one) <= MAX_MESSAGE else one[: MAX_MESSAGE - 3] + "..."


# ------------------------------------------------------------------ strict JSON


def _reject_constant(name: str) -> Any:
    raise PositionError(_("the number {name} is not allowed: numbers must be finite").format(name=name))


def _read_int(text: str) -> int:
    if len(text.lstrip("-")) > _INT_DIGITS:
        raise PositionError(
            _("the number {number} is out of range: integers lie from {low} to {high}").format(
                number=show(text), low=INT_MIN, high=INT_MAX
            )
        )
    value = int(text)
    if not INT_MIN <= value <= INT_MAX:
        raise PositionError(
            _("the number {number} is out of range: integers lie from {low} to {high}").format(
                number=value, low=INT_MIN, high=INT_MAX
            )
        )
    return value


def _read_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise PositionError(_("the number {number} is out of range: numbers must be finite").format(number=show(text)))
    return value


_unique_keys = unique_keys(
    lambda key: PositionError(_("the key {key} appears twice in one object").format(key=show(key)))
)


def check_json_value(value: Any, what: str | None = None) -> None:
    """Raise :class:`PositionError` unless ``value`` is plain JSON within the limits.

    Plain JSON: dicts with string keys, lists, strings, bools, None, integers from
    :data:`INT_MIN` to :data:`INT_MAX` and finite floats, nested at most :data:`MAX_DEPTH`
    deep. Iterative, so any depth is refused without recursion.
    """
    what = _("the document") if what is None else what
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict | list):
            if depth > MAX_DEPTH:
                raise PositionError(_("{what} is nested more than {most} deep").format(what=what, most=MAX_DEPTH))
            if isinstance(v, dict):
                for k in v:
                    if not isinstance(k, str):
                        raise PositionError(
                            _("{what} has a key that is not text: {key}").format(what=what, key=show(k))
                        )
                stack.extend((x, depth + 1) for x in v.values())
            else:
                stack.extend((x, depth + 1) for x in v)
        elif isinstance(v, bool) or v is None or isinstance(v, str):
            continue
        elif isinstance(v, int):
            if not INT_MIN <= v <= INT_MAX:
                raise PositionError(
                    _("{what} holds a number out of range: integers lie from {low} to {high}").format(
                        what=what, low=INT_MIN, high=INT_MAX
                    )
                )
        elif isinstance(v, float):
            if not math.isfinite(v):
                raise PositionError(
                    _("{what} holds the number {number}: numbers must be finite").format(what=what, number=repr(v))
                )
        else:
            raise PositionError(_("{what} holds {value}, which is not a JSON value").format(what=what, value=show(v)))


def loads_strict(text: str | bytes) -> Any:
    """Decode one JSON document within the limits; :class:`PositionError` for anything else.

    ``bytes`` must be UTF-8. At most :data:`MAX_BYTES` bytes; no ``NaN``/``Infinity``; integers
    from :data:`INT_MIN` to :data:`INT_MAX`; keys unique within an object; nesting at most
    :data:`MAX_DEPTH` deep.
    """
    if isinstance(text, bytes | bytearray):
        if len(text) > MAX_BYTES:
            raise PositionError(
                _("the file is larger than {size} bytes (1 MiB), the most a position may be").format(size=MAX_BYTES)
            )
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise PositionError(
                _("not UTF-8 text (bad byte at offset {offset}): expected a JSON position").format(offset=exc.start)
            ) from None
    elif len(text) > MAX_BYTES // 4 and len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise PositionError(
            _("the text is larger than {size} bytes (1 MiB), the most a position may be").format(size=MAX_BYTES)
        )
    if not text.strip():
        raise PositionError(_("the file is empty: expected a JSON position"))
    try:
        data = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_int=_read_int,
            parse_float=_read_float,
            object_pairs_hook=_unique_keys,
        )
    except PositionError as exc:
        raise PositionError(_("not usable JSON: {error}").format(error=exc)) from None
    except json.JSONDecodeError as exc:
        raise PositionError(
            _("not valid JSON: {error} at line {line}, column {column}").format(
                error=exc.msg, line=exc.lineno, column=exc.colno
            )
        ) from None
    except RecursionError:
        raise PositionError(_("not usable JSON: it is nested more than {most} deep").format(most=MAX_DEPTH)) from None
    except ValueError as exc:  # pragma: no cover - every decoding error is one of the above
        raise PositionError(_clip(_("not valid JSON: {error}").format(error=exc))) from None
    check_json_value(data)
    return data


# ------------------------------------------------------------------ reading


def _card(text: Any, where: str) -> int:
    try:
        return parse_card(text)
    except CardError as exc:
        raise PositionError(_clip(_("{where}: {problem}").format(where=where, problem=exc))) from None


def parse_position(data: Any, seed: int = 0) -> Round:
    """A round from a decoded position document; raise :class:`PositionError` naming the first problem."""
    if not isinstance(data, dict):
        raise PositionError(_("a position must be a JSON object"))
    check_json_value(data)
    fmt = data.get("format", FORMAT)
    if fmt != FORMAT or not isinstance(fmt, str):
        raise PositionError(
            _("unknown format {format}: expected {expected}").format(format=show(fmt), expected=repr(FORMAT))
        )
    try:
        rules = Rules.from_dict(data.get("rules", {}))
    except (RulesError, TypeError) as exc:
        raise PositionError(_clip(str(exc))) from None

    players = data.get("players")
    if not isinstance(players, list):
        raise PositionError(_("'players' must be a list of players"))
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise PositionError(
            _("a position needs {low} to {high} players, not {count} (R1)").format(
                low=MIN_PLAYERS, high=MAX_PLAYERS, count=len(players)
            )
        )

    where_seen: dict[int, str] = {}

    def take(text: Any, where: str) -> int:
        card = _card(text, where)
        if card in where_seen:
            raise PositionError(
                _("duplicate card {card}: in {first} and in {second}").format(
                    card=card_str(card), first=where_seen[card], second=where
                )
            )
        where_seen[card] = where
        return card

    hands: list[int] = []
    meta: list[dict[str, Any]] = []
    for i, p in enumerate(players):
        if not isinstance(p, dict) or not isinstance(p.get("hand"), list):
            raise PositionError(_("player {player} must be an object with a 'hand' list").format(player=i))
        if "name" in p and not isinstance(p["name"], str):
            raise PositionError(
                _("player {player}'s 'name' must be text, not {value}").format(player=i, value=show(p["name"]))
            )
        mask = 0
        for text in p["hand"]:
            mask |= 1 << take(text, _("player {player}'s hand").format(player=i))
        hands.append(mask)
        meta.append({k: v for k, v in p.items() if k != "hand"})

    stock_data = data.get("stock", [])
    if not isinstance(stock_data, list):
        raise PositionError(_("'stock' must be a list of cards, top card first"))
    stock = [take(t, _("the stock")) for t in stock_data]

    piles_data = data.get("piles")
    if not isinstance(piles_data, dict):
        raise PositionError(_("'piles' must be an object with the places N E S W NE SE SW NW"))
    for key in piles_data:
        if key not in PLACES:
            raise PositionError(
                _("unknown pile place {place}: places are {places}").format(place=show(key), places=" ".join(PLACES))
            )
    piles: list[Pile] = []
    for i, place in enumerate(PLACES):
        pile_data = piles_data.get(place, [])
        if not isinstance(pile_data, list):
            raise PositionError(_("pile {place} must be a list of cards, bottom card first").format(place=place))
        pile = tuple(take(t, _("pile {place}").format(place=place)) for t in pile_data)
        if i >= 4 and pile and not is_king(pile[0]):
            raise PositionError(
                _("corner {place} must start with a king, not {card} (R10)").format(place=place, card=card_str(pile[0]))
            )
        for below, above in itertools.pairwise(pile):
            if not (NEED[below] >> above) & 1:
                raise PositionError(
                    _(
                        "pile {place}: {card} cannot lie on {below} (each card one rank lower and the other colour, R8)"
                    ).format(place=place, card=card_str(above), below=card_str(below))
                )
        if len(pile) == PILE_FULL and not rules.completed_piles_stay:
            raise PositionError(
                _("pile {place} is complete (K to A) and should have gone to the stock (R12)").format(place=place)
            )
        piles.append(pile)

    missing = [c for c in ALL_CARDS if c not in where_seen]
    if missing:
        shown = " ".join(card_str(c) for c in missing[:5]) + (" ..." if len(missing) > 5 else "")
        # Translators: {cards} is the first missing cards, "2C 3D ...".
        raise PositionError(
            ngettext(
                "{n} card(s) missing from the position: {cards}",
                "{n} card(s) missing from the position: {cards}",
                len(missing),
            ).format(n=len(missing), cards=shown)
        )

    to_move = data.get("to_move", 0)
    if not _is_int(to_move) or not 0 <= to_move < len(players):
        raise PositionError(
            _("'to_move' must be a seat from 0 to {high}, not {value}").format(
                high=len(players) - 1, value=show(to_move)
            )
        )
    drawn = data.get("drawn", True)
    if not isinstance(drawn, bool):
        raise PositionError(_("'drawn' must be true or false, not {value}").format(value=show(drawn)))
    idle = data.get("idle_turns", 0)
    if not _is_int(idle) or idle < 0:
        raise PositionError(_("'idle_turns' must be a whole number 0 or more, not {value}").format(value=show(idle)))

    turn = data.get("turn", {})
    if not isinstance(turn, dict) or any(k not in TURN_KEYS or not isinstance(v, bool) for k, v in turn.items()):
        raise PositionError(
            _("'turn' must be an object of true/false flags among {keys}").format(keys=", ".join(TURN_KEYS))
        )
    moved, played_card, drew = (bool(turn.get(k, False)) for k in TURN_KEYS)
    if played_card and not moved:
        raise PositionError(_("'turn': a turn that played a card has moved ('moved' must be true)"))

    # The output keys: checked for type, and against the position.
    out_seats = [seat for seat, h in enumerate(hands) if h == 0]
    if len(out_seats) > 1:
        raise PositionError(
            _(
                "players {first} and {second} both have empty hands: the round ended when the first went out (R13)"
            ).format(first=out_seats[0], second=out_seats[1])
        )
    round_over = data.get("round_over", False)
    if not isinstance(round_over, bool):
        raise PositionError(_("'round_over' must be true or false, not {value}").format(value=show(round_over)))
    if "round_over" in data and not round_over and out_seats:
        raise PositionError(
            _("'round_over' is false, but player {player}'s hand is empty: the round ended (R13)").format(
                player=out_seats[0]
            )
        )
    ended = round_over or bool(out_seats)
    winner = out_seats[0] if out_seats else None
    for key in ("winner", "penalties"):
        if key in data and not round_over:
            raise PositionError(
                _('{key} belongs only to a finished round (with "round_over": true)').format(key=repr(key))
            )
    if "winner" in data:
        said = data["winner"]
        if said is not None and not (_is_int(said) and 0 <= said < len(players)):
            raise PositionError(
                _("'winner' must be a seat from 0 to {high} or null, not {value}").format(
                    high=len(players) - 1, value=show(said)
                )
            )
        if said != winner:
            if winner is not None:
                why = _("'winner' is {value}, but player {player}'s hand is empty (R13)")
            else:
                why = _("'winner' is {value}, but no hand is empty (a block, R14)")
            raise PositionError(why.format(value=show(said), player=winner))
    if not ended and not drawn and (moved or drew) and rules.draw != Draw.END:
        raise PositionError(
            _("'turn' says the turn has begun, so its start-of-turn draw is made: 'drawn' must be true")
        )

    # A round that has ended makes no draw and begins no turn.
    r = Round.from_parts(
        rules,
        hands,
        piles,
        stock,
        to_move,
        drawn=drawn or ended,
        idle_turns=idle,
        seed=seed,
        moved=moved and not ended,
        played_card=played_card and not ended,
        drew=drew and not ended,
    )
    if ended:
        r.drawn = drawn
        r.over = True
        r.winner = winner
    if "penalties" in data:
        said = data["penalties"]
        if not isinstance(said, list) or len(said) != len(players) or not all(_is_int(x) for x in said):
            raise PositionError(
                _("'penalties' must be a list of {count} whole numbers, not {value}").format(
                    count=len(players), value=show(said)
                )
            )
        if said != r.penalties():
            raise PositionError(
                _("'penalties' is {value}, but the hands left score {penalties} (R15)").format(
                    value=show(said), penalties=r.penalties()
                )
            )
    r.extra = {k: v for k, v in data.items() if k not in KNOWN_KEYS and k not in OUTPUT_KEYS}
    r.player_meta = meta
    return r


def load_position(text: str | bytes, seed: int = 0) -> Round:
    """A round from the text (or UTF-8 bytes) of a position file, within the limits of :func:`loads_strict`."""
    return parse_position(loads_strict(text), seed)


# ------------------------------------------------------------------ writing


def position_dict(r: Round, names: list[str] | None = None) -> dict[str, Any]:
    """The position document of a round (canonical card text); ``names`` override the players' names."""
    players: list[dict[str, Any]] = []
    for i in range(r.n):
        info = r.player_meta[i] if i < len(r.player_meta) else {}
        name = names[i] if names else info.get("name", f"Player {i + 1}")
        player: dict[str, Any] = {"name": name, "hand": [card_str(c) for c in cards_of(r.hands[i])]}
        player.update((k, v) for k, v in info.items() if k not in PLAYER_KEYS)
        players.append(player)
    doc: dict[str, Any] = {
        "format": FORMAT,
        "rules": r.rules.to_dict(),
        "players": players,
        "to_move": r.to_move,
        "drawn": r.drawn,
        "stock": [card_str(c) for c in r.stock_top_first()],
        "idle_turns": r.idle_turns,
        "piles": {place: [card_str(c) for c in r.piles[i]] for i, place in enumerate(PLACES)},
    }
    if not r.over and (r.moved or r.played_card or r.drew):
        doc["turn"] = {"moved": r.moved, "played_card": r.played_card, "drew": r.drew}
    for k, v in r.extra.items():
        if k not in KNOWN_KEYS and k not in OUTPUT_KEYS:
            doc[k] = v
    if r.over:
        doc["round_over"] = True
        doc["winner"] = r.winner
        doc["penalties"] = r.penalties()
    return doc


def dump_position(r: Round, names: list[str] | None = None) -> str:
    """The position as strict JSON text (ASCII, no NaN), one line per player and per pile."""
    return format_json(position_dict(r, names)) + "\n"


#: Below this depth :func:`format_json` writes compactly (no recursion of its own).
_SPREAD_DEPTH = 4


def format_json(value: Any, indent: int = 0) -> str:
    """Strict JSON with objects spread over lines and lists of plain values kept on one line.

    Only the top :data:`_SPREAD_DEPTH` levels are spread out; anything deeper is written
    compactly by :func:`json.dumps`. Raises ``ValueError`` for non-finite floats.
    """
    pad = "  " * (indent + 1)
    if indent >= _SPREAD_DEPTH:
        return json.dumps(value, allow_nan=False)
    if isinstance(value, dict) and value:
        flat = all(not isinstance(v, dict | list) for v in value.values())
        if flat and len(value) <= 12:
            return json.dumps(value, allow_nan=False)
        items = [f"{pad}{json.dumps(k)}: {format_json(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        items = [pad + format_json(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
    return json.dumps(value, allow_nan=False)
