"""A match being played: the engine's :class:`Match`, who sits where, the move log in plain
words, undo of the human's moves in the current turn, and saving/resuming. Plain Python: no
Textual, so the game screen and the demo screen share it and tests drive it directly.

Seats are *match seats* (0 .. n-1, fixed for the whole match); the engine's round seats are
converted with ``Match.seats`` (they differ only when chips scoring knocks a player out).

Typical use by a screen::

    session = MatchSession.from_config(config, seed=3)        # human at seat 0, saved to disk
    demo = MatchSession.all_ai(["greedy", "expert"], rules)   # every seat an AI, never saved

    if session.ai_to_move:
        turn = session.prepare_ai_turn()      # main thread: a snapshot for the AI
        m = turn.think()                      # any thread: only computes
        session.apply_ai_turn(turn, m)        # main thread: False when stale (discarded)
    else:
        reason = session.play_human(m)        # None when played, else a one-line reason
    if session.round_over:
        result = session.finish_round()       # then session.match.over, session.winners ...
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ai import AIPlayer, ai_kinds, make_player
from kc_tui.config import (
    PROBLEM_MAX,
    Config,
    ConfigError,
    NotRegularFile,
    atomic_write,
    data_dir,
    move_aside,
    name_problem,
    one_line,
    quote,
    read_capped,
    think_ms_check,
)
from kc_tui.engine import (
    END,
    PLACES,
    Card,
    Match,
    Move,
    PlayerView,
    Round,
    RoundResult,
    Rules,
    card_str,
    card_symbol,
    is_pile_move,
    is_play,
    play_card,
    position_dict,
    source,
    target,
)
from kc_tui.engine.state import PILE_FULL

log = logging.getLogger(__name__)

SAVE_NAME = "current-match.json"
SAVE_FORMAT = "kings-corners/save/1"
HUMAN = "human"
#: The AI that gives hints to the human seat, and the fallbacks while it is not available.
HINT_KINDS: tuple[str, ...] = ("lookahead", "greedy", "random")
#: Friendly default names for AI kinds (used by the command line and the demo).
KIND_NAMES: dict[str, str] = {
    "random": "Rando",
    "greedy": "Greedy",
    "king-aware": "Kingsley",
    "lookahead": "Lookout",
    "expert": "Ace",
}
LOG_KEEP = 400
#: The largest save read (bytes); a bigger one is treated as corrupt.
SAVE_MAX_BYTES = 16 << 20
#: The longest line of the move log a save may hold.
LOG_LINE_MAX = 500
#: The keys a save has besides those of its position (POSITION_FORMAT.md).
SAVE_KEYS = frozenset({"save_format", "match", "seats", "log"})
SEAT_KEYS = frozenset({"name", "kind", "think_ms"})


class SaveError(Exception):
    """A saved match could not be read; the message says why."""


def default_save_path() -> Path:
    """Where the match in progress is saved: ``data_dir()/current-match.json``."""
    return data_dir() / SAVE_NAME


def card_formatter(style: str) -> Callable[[Card], str]:
    """``card_symbol`` ('10♥') for the 'symbols' style, ``card_str`` ('TH') for 'ascii'."""
    return card_str if style == "ascii" else card_symbol


def default_name(kind: str, taken: Sequence[str] = ()) -> str:
    """A name for an AI of ``kind`` that is not already in ``taken``."""
    base = KIND_NAMES.get(kind, kind.replace("-", " ").title())
    name, k = base, 2
    while name in taken:
        name, k = f"{base} {k}", k + 1
    return name


@dataclass(frozen=True, slots=True)
class Seat:
    """Who sits at a match seat: the human (``kind == 'human'``) or an AI kind."""

    name: str
    kind: str
    think_ms: int = 1000

    @property
    def is_human(self) -> bool:
        return self.kind == HUMAN


def build_ai(kind: str, seed: int, think_ms: int = 1000) -> AIPlayer:
    """An AI of ``kind``; falls back to 'random' (with a logged warning) while a kind is not
    available yet, so the game always runs."""
    params: dict[str, Any] = {"think_ms": think_ms} if kind == "expert" else {}
    try:
        return make_player(kind, seed, **params)
    except ValueError:
        log.warning("AI kind %r is not available (have %s); using 'random'", kind, ", ".join(ai_kinds()))
        return make_player("random", seed)


@dataclass(frozen=True, slots=True)
class AITurn:
    """A snapshot for one AI decision. ``think()`` may run in a worker thread: it touches
    only the AI object and a frozen view (never the round or any widget)."""

    seat: int
    player: AIPlayer
    view: PlayerView
    #: Identifies the state the decision was made for (see ``MatchSession.apply_ai_turn``).
    stamp: tuple[int, int, int]

    def think(self) -> Move:
        return self.player.choose(self.view)


class MatchSession:
    """One match: seats, the engine's Match, the log, undo and saving. See the module docs."""

    def __init__(
        self,
        match: Match,
        seats: Sequence[Seat],
        *,
        save_path: Path | None = None,
        card_style: str = "symbols",
        log_lines: Sequence[str] = (),
    ) -> None:
        if len(seats) != match.n:
            raise ValueError(f"{len(seats)} seats for a match of {match.n} players")
        self.match = match
        self.seats: tuple[Seat, ...] = tuple(seats)
        self.save_path = save_path
        self.fmt = card_formatter(card_style)
        self.log: list[str] = list(log_lines)
        #: Bumped on every change of the round object (new round, undo, load): stale AI
        #: decisions are detected with it.
        self.generation = 0
        self._ais: dict[int, AIPlayer] = {
            s: build_ai(seat.kind, match.seed * 31 + s + 1, seat.think_ms)
            for s, seat in enumerate(self.seats)
            if not seat.is_human
        }
        self._hinter: AIPlayer | None = None
        #: The round before each of the human's moves this turn and how many log lines the
        #: move wrote (for undo).
        self._undo: list[tuple[Round, int]] = []
        #: Log lines written so far (the log itself is trimmed now and then).
        self._written = 0

    # ------------------------------------------------------------------ creation
    @classmethod
    def from_config(
        cls,
        config: Config,
        seed: int | None = None,
        *,
        save_path: Path | bool | None = True,
    ) -> MatchSession:
        """A new match: the human (``config.player_name``) at seat 0 against ``config.opponents``.
        ``save_path=True`` saves to :func:`default_save_path`; ``None``/``False`` never saves."""
        seats = [Seat(config.player_name, HUMAN)] + [Seat(o.name, o.kind, o.think_ms) for o in config.opponents]
        if seed is None:
            seed = new_seed()
        match = Match(len(seats), config.rules, seed)
        path = default_save_path() if save_path is True else (save_path or None)
        s = cls(match, seats, save_path=path, card_style=config.card_style)
        s._round_started()
        s.save()
        return s

    @classmethod
    def all_ai(
        cls,
        kinds: Sequence[str],
        rules: Rules | None = None,
        seed: int | None = None,
        *,
        names: Sequence[str] | None = None,
        think_ms: int = 1000,
        card_style: str = "symbols",
    ) -> MatchSession:
        """A match where every seat is an AI (the demo). Never saved."""
        if names is None:
            taken: list[str] = []
            for k in kinds:
                taken.append(default_name(k, taken))
            names = taken
        seats = [Seat(n, k, think_ms) for n, k in zip(names, kinds, strict=True)]
        if seed is None:
            seed = new_seed()
        s = cls(Match(len(seats), rules or Rules(), seed), seats, card_style=card_style)
        s._round_started()
        return s

    # ------------------------------------------------------------------ queries
    @property
    def round(self) -> Round:
        return self.match.round

    @property
    def rules(self) -> Rules:
        return self.match.rules

    @property
    def n(self) -> int:
        return self.match.n

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    @property
    def human_seat(self) -> int | None:
        """The human's match seat, or None when every seat is an AI."""
        for i, s in enumerate(self.seats):
            if s.is_human:
                return i
        return None

    @property
    def all_ai_seats(self) -> bool:
        return self.human_seat is None

    @property
    def round_number(self) -> int:
        return self.match.number

    @property
    def round_over(self) -> bool:
        return self.round.over

    @property
    def match_over(self) -> bool:
        return self.match.over

    @property
    def to_move(self) -> int:
        """The match seat whose turn it is."""
        return self.match.match_seat(self.round.to_move)

    @property
    def human_to_move(self) -> bool:
        return not self.round.over and self.seats[self.to_move].is_human

    @property
    def ai_to_move(self) -> bool:
        return not self.round.over and not self.seats[self.to_move].is_human

    @property
    def totals(self) -> list[int]:
        return self.match.totals

    @property
    def results(self) -> list[RoundResult]:
        return self.match.results

    @property
    def winners(self) -> list[int]:
        return list(self.match.winners)

    def round_seat(self, seat: int) -> int | None:
        return self.match.round_seat(seat)

    def view(self, seat: int) -> PlayerView:
        """What match seat ``seat`` may see (R4). The UI draws the human's view only."""
        rs = self.round_seat(seat)
        if rs is None:
            raise ValueError(f"seat {seat} sits this round out")
        return self.round.view(rs)

    def hand(self, seat: int) -> list[Card]:
        """A seat's hand in display order (for the human, or open hands in the demo)."""
        rs = self.round_seat(seat)
        return [] if rs is None else self.round.hand(rs)

    def hand_size(self, seat: int) -> int:
        rs = self.round_seat(seat)
        return 0 if rs is None else self.round.hands[rs].bit_count()

    def legal_moves(self) -> list[Move]:
        return self.round.legal_moves()

    def why_illegal(self, m: Move) -> str | None:
        """A one-line reason naming the rule, or None when ``m`` is legal now."""
        return self.round.why_illegal(m, self.fmt)

    # ------------------------------------------------------------------ moves
    def play_human(self, m: Move) -> str | None:
        """Make the human's move ``m``. Returns None when it was played, else a one-line
        reason (the state is unchanged)."""
        if not self.human_to_move:
            return "the round is over" if self.round.over else "it is not your turn"
        reason = self.why_illegal(m)
        if reason is not None:
            return reason
        before, written = self.round.clone(), self._written
        self._apply(m)
        if m != END and not self.round.over:
            self._undo.append((before, self._written - written))
        return None

    @property
    def can_undo(self) -> bool:
        return bool(self._undo) and self.human_to_move

    def undo(self) -> bool:
        """Take back the human's last move of the current turn; False when there is none."""
        if not self.can_undo:
            return False
        before, lines = self._undo.pop()
        self.match.round = before
        if lines > 0:
            del self.log[-lines:]
        self.generation += 1
        self.save()
        return True

    def prepare_ai_turn(self) -> AITurn:
        """The snapshot for the AI to move (call on the main thread)."""
        if not self.ai_to_move:
            raise ValueError("it is not an AI's turn")
        seat = self.to_move
        return AITurn(seat, self._ais[seat], self.view(seat), self.stamp)

    def apply_ai_turn(self, turn: AITurn, m: Move) -> bool:
        """Apply an AI's decision; False (nothing changes) when the state moved on since the
        turn was prepared: a stale decision is discarded. An illegal AI move ends its turn."""
        if turn.stamp != self.stamp or not self.ai_to_move:
            return False
        if self.round.why_illegal(m) is not None:
            log.error("AI %s chose an illegal move %r; ending its turn", self.seats[turn.seat].kind, m)
            m = END
        self._apply(m)
        return True

    def step_ai(self) -> Move:
        """Let the AI to move choose and play one move, synchronously (tests, benchmarks)."""
        turn = self.prepare_ai_turn()
        m = turn.think()
        self.apply_ai_turn(turn, m)
        return m

    @property
    def stamp(self) -> tuple[int, int, int]:
        """(generation, round number, moves so far): changes whenever the position does."""
        return (self.generation, self.match.number, _hist_len(self.round))

    def hint(self) -> Move:
        """The lookahead AI's suggestion for the human (synchronous)."""
        return self.hint_turn().think()

    def hint_turn(self) -> AITurn:
        """A snapshot for computing a hint in a worker thread."""
        seat = self.human_seat
        if seat is None or not self.human_to_move:
            raise ValueError("a hint is for the human's turn")
        if self._hinter is None:
            for kind in HINT_KINDS:
                try:
                    self._hinter = make_player(kind, self.match.seed + 7)
                    break
                except ValueError:
                    continue
            assert self._hinter is not None
        return AITurn(seat, self._hinter, self.view(seat), self.stamp)

    def _apply(self, m: Move) -> None:
        for line in self._play(self.round, m):
            self._write(line)
        if m == END and not self.round.over:
            self._round_turn_changed()
        self.save()

    def _play(self, r: Round, m: Move) -> list[str]:
        """Make move ``m`` in ``r`` (a round of this match) and return the log lines it calls for."""
        seat = self.match.match_seat(r.to_move)
        before_sizes = [h.bit_count() for h in r.hands]
        if is_play(m):
            before_sizes[r.to_move] -= 1
        lines = [describe_move(r, m, self.names[seat], self.fmt)]
        r.apply(m)
        if is_play(m) or is_pile_move(m):
            dst = target(m)
            if not r.piles[dst] and r.rules.completed_piles == "to_stock":
                lines.append(f"The pile at {PLACES[dst]} ran from K to A and was shuffled into the stock (R12)")
        lines += self._draw_lines(r, before_sizes)
        if r.over:
            if r.winner is None:
                lines.append("No one can move and the stock is empty: the round is blocked (R14)")
            else:
                lines.append(f"{self.names[self.match.match_seat(r.winner)]} went out and won the round")
        return lines

    def _draw_lines(self, r: Round, expected_sizes: list[int]) -> list[str]:
        lines: list[str] = []
        for rs in range(r.n):
            gained = r.hands[rs].bit_count() - expected_sizes[rs]
            if gained <= 0:
                continue
            seat = self.match.match_seat(rs)
            who = self.names[seat]
            if self.seats[seat].is_human and gained == 1 and r.last_drawn[rs] >= 0:
                lines.append(f"{who} drew {self.fmt(r.last_drawn[rs])}")
            else:
                lines.append(f"{who} drew a card" if gained == 1 else f"{who} drew {gained} cards")
        return lines

    def _restore_undo(self) -> None:
        """Rebuild the undo of the human's moves made so far this turn (after a resume): the
        round is dealt again and replayed up to the start of the turn, then move by move."""
        self._undo.clear()
        if not self.human_to_move:
            return
        moves = self.match.replay_moves()
        start = len(moves)
        while start > 0 and moves[start - 1] != END:
            start -= 1
        if start == len(moves):
            return
        r = self.match.replay_round(start)
        for m in moves[start:]:
            before = r.clone()
            self._undo.append((before, len(self._play(r, m))))

    def _write(self, line: str) -> None:
        self._written += 1
        self.log.append(line)
        if len(self.log) > LOG_KEEP * 2:
            del self.log[:LOG_KEEP]

    def _round_turn_changed(self) -> None:
        self._undo.clear()

    def _round_started(self) -> None:
        self._undo.clear()
        self.generation += 1
        for ai in self._ais.values():
            ai.new_round()
        dealer = self.names[self.match.dealer]
        self._write(f"Round {self.match.number}: {dealer} dealt")
        r = self.round
        first = self.match.match_seat(r.to_move)
        if r.last_drawn[r.to_move] >= 0:
            who = self.names[first]
            if self.seats[first].is_human:
                self._write(f"{who} drew {self.fmt(r.last_drawn[r.to_move])}")
            else:
                self._write(f"{who} drew a card")

    # ------------------------------------------------------------------ rounds
    def finish_round(self) -> RoundResult:
        """Score the finished round and start the next (unless the match is over). The save is
        updated; a finished match's save is removed (there is nothing left to resume)."""
        result = self.match.finish_round()
        if self.match.over:
            names = " and ".join(self.names[s] for s in self.match.winners)
            self._write(f"The match is over: {names} won")
            self.generation += 1
            self.delete_save()
        else:
            self._round_started()
            self.save()
        return result

    # ------------------------------------------------------------------ saving
    def to_dict(self) -> dict[str, Any]:
        """The save: the position of the current round (POSITION_FORMAT.md) plus the match
        history under ``match`` and the seats (names and kinds) under ``seats``."""
        doc = position_dict(self.round, [self.names[s] for s in self.match.seats])
        doc["save_format"] = SAVE_FORMAT
        doc["match"] = self.match.to_dict()
        doc["seats"] = [{"name": s.name, "kind": s.kind, "think_ms": s.think_ms} for s in self.seats]
        doc["log"] = self.log[-LOG_KEEP:]
        return doc

    def save(self) -> None:
        """Write the save atomically (a no-op for sessions without a save path)."""
        if self.save_path is None or self.match.over:
            return
        data = json.dumps(self.to_dict(), ensure_ascii=False, indent=1, allow_nan=False).encode("utf-8")
        try:
            atomic_write(self.save_path, data)
        except OSError as exc:  # a full disk must not stop the game
            log.error("could not save the match to %s: %s", self.save_path, exc)

    def delete_save(self) -> None:
        if self.save_path is not None:
            try:
                self.save_path.unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:  # e.g. a read-only folder: the finished match must still end
                log.error("could not remove the save %s: %s", self.save_path, exc)

    @classmethod
    def from_dict(cls, doc: Any, *, save_path: Path | None = None, card_style: str = "symbols") -> MatchSession:
        """Rebuild a saved match exactly; :class:`SaveError` when the save is not usable. Every
        field is checked for its exact JSON type; the match is replayed from its seed and the
        replayed position must be exactly the saved one."""
        if not isinstance(doc, dict) or doc.get("save_format") != SAVE_FORMAT:
            raise SaveError("it is not a Kings Corners save")
        try:
            match = Match.from_dict(doc.get("match"))
        except ValueError as exc:  # MatchRecordError, RulesError, IllegalMove
            raise SaveError(f"the match record does not replay ({exc})") from None
        if match.over:
            raise SaveError("the saved match is already over")
        seats = _seats_from(doc.get("seats"), match.n)
        log_lines = _log_from(doc.get("log", []))
        s = cls(match, seats, save_path=save_path, card_style=card_style, log_lines=log_lines)
        for ai in s._ais.values():
            ai.new_round()
        # The replayed position must be exactly the saved one (same JSON types too).
        mine = position_dict(s.round, [s.names[x] for x in match.seats])
        for key in doc:
            if key not in mine and key not in SAVE_KEYS:
                raise SaveError(f"the saved position does not match its history ({quote(key)} differs)")
        for key, value in mine.items():
            if key not in doc or not _same(doc[key], value):
                raise SaveError(f"the saved position does not match its history ({key} differs)")
        s._restore_undo()
        return s

    @classmethod
    def load(cls, path: Path | None = None, *, card_style: str = "symbols") -> MatchSession | None:
        """The saved match at ``path`` (default: the save in the data dir), or None when there
        is none. :class:`SaveError` when it exists but is unusable (other exceptions are
        possible for failures nobody foresaw: :func:`load_or_quarantine` catches them all)."""
        path = path or default_save_path()
        try:
            raw = read_capped(path, SAVE_MAX_BYTES)
        except FileNotFoundError:
            return None
        except NotRegularFile:
            raise SaveError("it is not a regular file") from None
        except OSError as exc:
            raise SaveError(f"cannot read it ({exc.strerror or type(exc).__name__})") from None
        if raw is None:
            raise SaveError(f"it is larger than {SAVE_MAX_BYTES >> 20} MiB")
        return cls.from_dict(parse_save_json(raw), save_path=path, card_style=card_style)

    def summary(self) -> str:
        """One line about the match, e.g. for the resume dialog."""
        scores = ", ".join(f"{n} {t}" for n, t in zip(self.names, self.totals, strict=True))
        return f"Round {self.round_number} · {scores} · target {self.rules.target}"


def load_or_quarantine(
    path: Path | None = None, *, card_style: str = "symbols"
) -> tuple[MatchSession | None, str | None]:
    """The saved match (or None when there is none) and a message (one plain line) when the
    save cannot be used. Never raises for a bad file: whatever goes wrong while reading,
    validating or replaying it (a :class:`SaveError`, or any other exception nobody foresaw),
    the file is moved aside to ``<name>.corrupt-<time>`` (never over an earlier one) and the
    message says why and where it went, or that it was left in place and is ignored."""
    path = path or default_save_path()
    try:
        return MatchSession.load(path, card_style=card_style), None
    except SaveError as exc:
        problem = str(exc)
    except Exception as exc:  # a bug we did not foresee: a bad file still must not stop the app
        log.debug("the save %s could not be read", path, exc_info=True)
        problem = f"it could not be read ({type(exc).__name__})"
    kept = move_aside(path, f".corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
    return None, f"The saved match could not be resumed: {one_line(problem, PROBLEM_MAX)}.{kept}"


def parse_save_json(raw: bytes) -> Any:
    """The JSON document of a save's bytes; :class:`SaveError` for anything that is not plain
    JSON (bad UTF-8, NaN/Infinity, numbers too long or too large, nesting too deep)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SaveError("it is not UTF-8 text") from None
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise SaveError(f"it is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise SaveError("it is not usable JSON: it is nested too deeply") from None
    except ValueError:  # int(): more than 4,300 digits
        raise SaveError("it is not usable JSON: a number is too long") from None


def _no_constant(name: str) -> Any:
    raise SaveError(f"it is not usable JSON: {name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise SaveError("it is not usable JSON: a number is too large")
    return value


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON, types included (``true`` is not ``1``, ``1.0`` is not ``1``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def known_kinds() -> tuple[str, ...]:
    """Every seat kind a save may hold: the human and every AI kind."""
    return (HUMAN, *ai_kinds())


def _seats_from(data: Any, n: int) -> list[Seat]:
    """The seats of a save: exactly ``n``, names as the settings allow, known kinds, think
    times in range, at most one human."""
    if not isinstance(data, list) or len(data) != n:
        raise SaveError(f"the save must list exactly {n} seats")
    seats: list[Seat] = []
    kinds = known_kinds()
    for i, d in enumerate(data):
        what = f"seat {i + 1}"
        if not isinstance(d, dict) or "name" not in d or "kind" not in d:
            raise SaveError(f"{what} must be an object with a name and a kind")
        for key in d:
            if key not in SEAT_KEYS:
                raise SaveError(f"{what} has an unknown field {quote(key)}")
        problem = name_problem(d["name"], f"the name of {what}")
        if problem is not None:
            raise SaveError(problem)
        kind = d["kind"]
        if not isinstance(kind, str) or kind not in kinds:
            raise SaveError(f"{what} has an unknown kind {quote(kind)}")
        think_ms = d.get("think_ms", 1000)
        try:
            think_ms_check(think_ms)
        except ConfigError as exc:
            raise SaveError(f"{what}: {exc}") from None
        seats.append(Seat(d["name"], kind, think_ms))
    if sum(seat.is_human for seat in seats) > 1:
        raise SaveError("the save has more than one human seat")
    return seats


def _log_from(data: Any) -> list[str]:
    """The move log of a save: at most LOG_KEEP lines of printable text."""
    if not isinstance(data, list) or len(data) > LOG_KEEP:
        raise SaveError(f"the log must be a list of at most {LOG_KEEP} lines")
    for line in data:
        if not isinstance(line, str) or len(line) > LOG_LINE_MAX or not line.isprintable():
            raise SaveError("the log must hold lines of printable text")
    return list(data)


def save_exists(path: Path | None = None) -> bool:
    return (path or default_save_path()).is_file()


def new_seed() -> int:
    return int.from_bytes(os.urandom(4), "big")


def _hist_len(r: Round) -> int:
    n, node = 0, r.hist
    while node is not None:
        n, node = n + 1, node[2]
    return n


def _cards(cards: Sequence[Card], fmt: Callable[[Card], str]) -> str:
    return " ".join(fmt(c) for c in cards)


def describe_move(r: Round, m: Move, who: str, fmt: Callable[[Card], str] = card_symbol) -> str:
    """The move ``m`` about to be made in ``r``, in plain words (call it *before* applying):
    "Greedy moved 6♥ 5♠ 4♦ from N onto 7♣ at E"."""
    return f"{who} {_phrase(r, m, fmt, past=True)}"


def suggest_move(r: Round, m: Move, fmt: Callable[[Card], str] = card_symbol) -> str:
    """The move ``m`` as advice: "play 7♥ on 8♣ at N", "end your turn"."""
    return _phrase(r, m, fmt, past=False)


def _phrase(r: Round, m: Move, fmt: Callable[[Card], str], *, past: bool) -> str:
    if m == END:
        return "ended the turn" if past else "end your turn"
    dst = target(m)
    onto = r.piles[dst]
    place = PLACES[dst]
    kind = "corner" if dst >= 4 else "side"
    if is_play(m):
        c = play_card(m)
        if not onto:
            return f"put {fmt(c)} on the empty {kind} {place}"
        return f"{'played' if past else 'play'} {fmt(c)} on {fmt(onto[-1])} at {place}"
    src = source(m)
    verb = "moved" if past else "move"
    moving = r.piles[src]
    if not onto:
        return f"{verb} {_cards(moving, fmt)} from {PLACES[src]} to the empty {kind} {place}"
    return f"{verb} {_cards(moving, fmt)} from {PLACES[src]} onto {fmt(onto[-1])} at {place}"


__all__ = [
    "HUMAN",
    "PILE_FULL",
    "AITurn",
    "MatchSession",
    "SaveError",
    "Seat",
    "build_ai",
    "card_formatter",
    "default_name",
    "default_save_path",
    "describe_move",
    "load_or_quarantine",
    "save_exists",
    "suggest_move",
]
