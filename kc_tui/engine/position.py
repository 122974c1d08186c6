"""The position file of POSITION_FORMAT.md: read (strictly validated) and written."""

from __future__ import annotations

import itertools
import json
from typing import Any

from .cards import ALL_CARDS, NEED, CardError, card_str, cards_of, is_king, parse_card
from .moves import PLACES
from .rules import MAX_PLAYERS, MIN_PLAYERS, Rules, RulesError
from .state import PILE_FULL, Pile, Round

FORMAT = "kings-corners/position/1"
KNOWN_KEYS = {"format", "rules", "players", "to_move", "drawn", "stock", "idle_turns", "piles", "turn"}
#: What has happened so far in the current turn; written (as the extra key "turn") only mid-turn,
#: so that a block (R14) and a chip fine (R16) are still counted right after reading it back.
TURN_KEYS = ("moved", "played_card", "drew")
OUTPUT_KEYS = {"round_over", "winner", "penalties"}


class PositionError(ValueError):
    """A position file is not valid; the message names the first problem."""


def _card(text: Any, where: str) -> int:
    try:
        return parse_card(text)
    except CardError as exc:
        raise PositionError(f"{where}: {exc}") from None


def parse_position(data: Any, seed: int = 0) -> Round:
    """A round from a decoded position document; raise :class:`PositionError` naming the first problem."""
    if not isinstance(data, dict):
        raise PositionError("a position must be a JSON object")
    fmt = data.get("format", FORMAT)
    if fmt != FORMAT:
        raise PositionError(f"unknown format {fmt!r}: expected {FORMAT!r}")
    try:
        rules = Rules.from_dict(data.get("rules", {}))
    except (RulesError, TypeError) as exc:
        raise PositionError(str(exc)) from None

    players = data.get("players")
    if not isinstance(players, list):
        raise PositionError("'players' must be a list of players")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise PositionError(f"a position needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)} (R1)")

    where_seen: dict[int, str] = {}

    def take(text: Any, where: str) -> int:
        card = _card(text, where)
        if card in where_seen:
            raise PositionError(f"duplicate card {card_str(card)}: in {where_seen[card]} and in {where}")
        where_seen[card] = where
        return card

    hands: list[int] = []
    names: list[str] = []
    for i, p in enumerate(players):
        if not isinstance(p, dict) or not isinstance(p.get("hand"), list):
            raise PositionError(f"player {i} must be an object with a 'hand' list")
        name = p.get("name", f"Player {i + 1}")
        names.append(str(name))
        mask = 0
        for text in p["hand"]:
            mask |= 1 << take(text, f"player {i}'s hand")
        hands.append(mask)

    stock_data = data.get("stock", [])
    if not isinstance(stock_data, list):
        raise PositionError("'stock' must be a list of cards, top card first")
    stock = [take(t, "the stock") for t in stock_data]

    piles_data = data.get("piles")
    if not isinstance(piles_data, dict):
        raise PositionError("'piles' must be an object with the places N E S W NE SE SW NW")
    for key in piles_data:
        if key not in PLACES:
            raise PositionError(f"unknown pile place {key!r}: places are {' '.join(PLACES)}")
    piles: list[Pile] = []
    for i, place in enumerate(PLACES):
        pile_data = piles_data.get(place, [])
        if not isinstance(pile_data, list):
            raise PositionError(f"pile {place} must be a list of cards, bottom card first")
        pile = tuple(take(t, f"pile {place}") for t in pile_data)
        if i >= 4 and pile and not is_king(pile[0]):
            raise PositionError(f"corner {place} must start with a king, not {card_str(pile[0])} (R10)")
        for below, above in itertools.pairwise(pile):
            if not (NEED[below] >> above) & 1:
                raise PositionError(
                    f"pile {place}: {card_str(above)} cannot lie on {card_str(below)} "
                    "(each card one rank lower and the other colour, R8)"
                )
        if len(pile) == PILE_FULL and rules.completed_piles == "to_stock":
            raise PositionError(f"pile {place} is complete (K to A) and should have gone to the stock (R12)")
        piles.append(pile)

    missing = [c for c in ALL_CARDS if c not in where_seen]
    if missing:
        shown = " ".join(card_str(c) for c in missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise PositionError(f"{len(missing)} card(s) missing from the position: {shown}")

    to_move = data.get("to_move", 0)
    if isinstance(to_move, bool) or not isinstance(to_move, int) or not 0 <= to_move < len(players):
        raise PositionError(f"'to_move' must be a seat from 0 to {len(players) - 1}, not {to_move!r}")
    drawn = data.get("drawn", True)
    if not isinstance(drawn, bool):
        raise PositionError(f"'drawn' must be true or false, not {drawn!r}")
    idle = data.get("idle_turns", 0)
    if isinstance(idle, bool) or not isinstance(idle, int) or idle < 0:
        raise PositionError(f"'idle_turns' must be a whole number 0 or more, not {idle!r}")

    turn = data.get("turn", {})
    if not isinstance(turn, dict) or any(k not in TURN_KEYS or not isinstance(v, bool) for k, v in turn.items()):
        raise PositionError(f"'turn' must be an object of true/false flags among {', '.join(TURN_KEYS)}")

    # A round that has ended (someone's hand is empty, R13, or the file says so) begins no turn: no draw.
    ended = bool(data.get("round_over", False)) or any(h == 0 for h in hands)
    r = Round.from_parts(rules, hands, piles, stock, to_move, drawn=drawn or ended, idle_turns=idle, seed=seed)
    if ended:
        r.drawn = drawn
    r.moved = r.moved or turn.get("moved", False)
    r.played_card = r.played_card or turn.get("played_card", False)
    r.drew = r.drew or turn.get("drew", False)
    if not data.get("round_over", False):
        # A position in play where someone has no cards already ended (R13).
        for seat, h in enumerate(hands):
            if h == 0 and not r.over:
                r.over = True
                r.winner = seat
    else:
        r.over = True
        winner = data.get("winner")
        r.winner = winner if isinstance(winner, int) and 0 <= winner < len(players) else None
    r.extra = {k: v for k, v in data.items() if k not in KNOWN_KEYS and k not in OUTPUT_KEYS}
    r.extra["_names"] = names
    return r


def load_position(text: str, seed: int = 0) -> Round:
    """A round from the text of a position file."""
    if not text.strip():
        raise PositionError("the file is empty: expected a JSON position")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PositionError(f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise PositionError("not a usable JSON position: it is nested too deeply") from None
    return parse_position(data, seed)


def position_dict(r: Round, names: list[str] | None = None) -> dict[str, Any]:
    """The position document of a round (canonical card text)."""
    names = names or r.extra.get("_names") or [f"Player {i + 1}" for i in range(r.n)]
    doc: dict[str, Any] = {
        "format": FORMAT,
        "rules": r.rules.to_dict(),
        "players": [{"name": names[i], "hand": [card_str(c) for c in cards_of(r.hands[i])]} for i in range(r.n)],
        "to_move": r.to_move,
        "drawn": r.drawn,
        "stock": [card_str(c) for c in r.stock_top_first()],
        "idle_turns": r.idle_turns,
        "piles": {place: [card_str(c) for c in r.piles[i]] for i, place in enumerate(PLACES)},
    }
    if not r.over and (r.moved or r.played_card or r.drew):
        doc["turn"] = {"moved": r.moved, "played_card": r.played_card, "drew": r.drew}
    for k, v in r.extra.items():
        if not k.startswith("_"):
            doc[k] = v
    if r.over:
        doc["round_over"] = True
        doc["winner"] = r.winner
        doc["penalties"] = r.penalties()
    return doc


def dump_position(r: Round, names: list[str] | None = None) -> str:
    """The position as JSON text, one line per player and per pile."""
    return format_json(position_dict(r, names)) + "\n"


def format_json(value: Any, indent: int = 0) -> str:
    """JSON with objects spread over lines and lists of plain values kept on one line."""
    pad = "  " * (indent + 1)
    if isinstance(value, dict) and value:
        flat = all(not isinstance(v, dict | list) for v in value.values())
        if flat and len(value) <= 12:
            return json.dumps(value)
        items = [f"{pad}{json.dumps(k)}: {format_json(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        items = [pad + format_json(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
    return json.dumps(value)
