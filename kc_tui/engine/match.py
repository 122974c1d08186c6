"""A match: rounds one after another, the deal passing clockwise (R5), scored by penalty
points to a target (R15) or by chips (R16)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kc_tui.i18n import _

from . import rng as _rng
from .cards import KINGS_MASK, penalty_of
from .moves import END, Move
from .player_view import Standing
from .rules import MAX_PLAYERS, MIN_PLAYERS, Rules, Scoring
from .state import Round
from .strict import is_int as _is_int

#: A seed asked for (``--seed``) is an unsigned 64-bit number: its deals can be recomputed by
#: anyone who knows it.
SEED_MAX = 2**64 - 1
#: A match nobody asked a seed for is dealt from a secret of 128 random bits, held as
#: ``SECRET_MIN + bits`` (so it is told apart from any seed): its deals come from a keyed stream.
SECRET_BITS = 128
SECRET_MIN = 1 << SECRET_BITS
SECRET_MAX = (1 << (SECRET_BITS + 1)) - 1
MATCH_KEYS = frozenset({"n_players", "seed", "secret", "rules", "first_dealer", "rounds", "results"})
RESULT_KEYS = frozenset({"number", "dealer", "seats", "winner", "penalties", "chips_delta", "totals"})


class MatchRecordError(ValueError):
    """A match record (or a round result in it) is not valid; the message names the first problem."""


def _int(d: dict[str, Any], key: str, lo: int, hi: int) -> int:
    """``d[key]``: a real JSON integer (not a bool, float or text) from ``lo`` to ``hi``."""
    if key not in d:
        raise MatchRecordError(_("{key} is missing").format(key=repr(key)))
    x = d[key]
    if not _is_int(x) or not lo <= x <= hi:
        raise MatchRecordError(
            _("{key} must be a whole number from {low} to {high}, not {value}").format(
                key=repr(key), low=lo, high=hi, value=_short(x)
            )
        )
    assert isinstance(x, int)
    return x


def _ints(d: dict[str, Any], key: str, n: int, lo: int, hi: int) -> tuple[int, ...]:
    """``d[key]``: a list of exactly ``n`` real integers, each from ``lo`` to ``hi``."""
    if key not in d:
        raise MatchRecordError(_("{key} is missing").format(key=repr(key)))
    xs = d[key]
    if not isinstance(xs, list) or len(xs) != n or not all(_is_int(x) and lo <= x <= hi for x in xs):
        raise MatchRecordError(
            _("{key} must be a list of {count} whole numbers from {low} to {high}").format(
                key=repr(key), count=n, low=lo, high=hi
            )
        )
    return tuple(xs)


def _short(x: object) -> str:
    """A value named in a message: small numbers and true/false/null as such, anything else
    by its type only (a record's values may be anything)."""
    if x is None or isinstance(x, bool):
        return repr(x)
    if isinstance(x, int) and -(10**12) < x < 10**12:
        return str(x)
    # Translators: a value named by its type, "a str", "a float".
    return _("a {type}").format(type=type(x).__name__)


@dataclass(frozen=True, slots=True)
class RoundOutcome:
    """How one round ended, in match seats: what a round's record keeps of it."""

    number: int
    dealer: int
    seats: tuple[int, ...]
    winner: int | None
    #: R15 penalty of every match seat (0 for a seat that sat the round out).
    penalties: tuple[int, ...]
    #: Chips won or lost by every match seat this round (chips scoring only).
    chips_delta: tuple[int, ...]
    #: Every player's total after the round: points, or chips.
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RoundResult(RoundOutcome):
    """How one round ended, in match seats, with what the replay derives of it."""

    #: Cards left in every match seat's hand when the round ended (0 for a seat that sat out).
    #: Derived from the replay, so not part of the record (:meth:`to_dict`).
    cards_left: tuple[int, ...] = ()
    #: Kings among them (R15: 10 points each). Derived from the replay like ``cards_left``.
    kings_left: tuple[int, ...] = ()
    #: The cards themselves (a card mask per match seat, 0 for a seat that sat out): what was
    #: caught in every hand. Derived from the replay like ``cards_left``.
    hands_left: tuple[int, ...] = ()
    #: R16: the chips every match seat put in the pot at this round's deal (the ante). Derived.
    ante: tuple[int, ...] = ()
    #: R16: the turns every match seat ended without playing a card from hand. Derived.
    fines: tuple[int, ...] = ()
    #: R16: the pot when the round ended (antes, the pot carried from a block, fines, card
    #: chips): the winner took it, or it stays after a block. Derived (0 in a record).
    pot: int = 0

    @property
    def blocked(self) -> bool:
        return self.winner is None

    def penalty_parts(self, seat: int) -> tuple[int, int]:
        """R15 for match seat ``seat``: (kings left, other cards left); the penalty is
        ``KING_PENALTY`` a king plus 1 another card. (0, 0) when the result does not know the
        hands (one read from a record)."""
        if seat >= len(self.cards_left):
            return (0, 0)
        kings = self.kings_left[seat]
        return (kings, self.cards_left[seat] - kings)

    def chips_won(self, seat: int) -> int:
        """R16: the chips match seat ``seat`` took from the pot at the round's end."""
        return self.pot if seat == self.winner else 0

    def chips_paid(self, seat: int) -> int:
        """R16: the chips match seat ``seat`` put in the pot during the round, its ante aside:
        its fines (and, with ``chips_per_card``, its cards), what it could pay of them."""
        return self.chips_won(seat) - self.chips_delta[seat]

    def record_equals(self, other: RoundResult) -> bool:
        """The same result as far as a record says (the fields :meth:`to_dict` writes)."""
        return self.to_dict() == other.to_dict()

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "dealer": self.dealer,
            "seats": list(self.seats),
            "winner": self.winner,
            "penalties": list(self.penalties),
            "chips_delta": list(self.chips_delta),
            "totals": list(self.totals),
        }

    @classmethod
    def from_dict(cls, d: Any, n_players: int = MAX_PLAYERS) -> RoundResult:
        """A result from its record, every field checked for its exact JSON type and range
        (``n_players``: the match's number of seats); :class:`MatchRecordError` otherwise."""
        if not isinstance(d, dict):
            raise MatchRecordError(_("a round result must be an object"))
        for key in d:
            if key not in RESULT_KEYS:
                raise MatchRecordError(_("a round result has an unknown field"))
        if not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
            raise MatchRecordError(_("a match has {low} to {high} players").format(low=MIN_PLAYERS, high=MAX_PLAYERS))
        n, big = n_players, 10**9
        seats_data = d.get("seats")
        if (
            not isinstance(seats_data, list)
            or not 1 <= len(seats_data) <= n
            or not all(_is_int(x) and 0 <= x < n for x in seats_data)
            or len(set(seats_data)) != len(seats_data)
        ):
            raise MatchRecordError(
                _("'seats' of a round result must be a list of distinct seats from 0 to {high}").format(high=n - 1)
            )
        if "winner" not in d:
            raise MatchRecordError(_("'winner' is missing"))
        winner = d["winner"]
        if winner is not None and (not _is_int(winner) or winner not in seats_data):
            raise MatchRecordError(_("'winner' must be null or one of the round's seats"))
        return cls(
            number=_int(d, "number", 1, big),
            dealer=_int(d, "dealer", 0, n - 1),
            seats=tuple(seats_data),
            winner=winner,
            penalties=_ints(d, "penalties", n, 0, big),
            chips_delta=_ints(d, "chips_delta", n, -big, big),
            totals=_ints(d, "totals", n, -big, big),
        )


#: R15: the penalty of a king left in hand (any other card costs 1).
KING_PENALTY = 10


def penalty_breakdown(hand: int) -> tuple[int, int, int]:
    """R15 for a hand (a card mask): (cards left, kings among them, penalty points)."""
    return (hand.bit_count(), (hand & KINGS_MASK).bit_count(), penalty_of(hand))


def target_reached(points: Sequence[int], rules: Rules) -> bool:
    """R15: a points match ends after the round in which any total reaches or passes the target."""
    return any(t >= rules.target for t in points)


def chips_match_over(out: Sequence[bool], rounds_played: int, rules: Rules) -> bool:
    """R16: a chips match ends when at most one player still holds chips, or after
    ``chips_rounds`` rounds."""
    return sum(1 for o in out if not o) <= 1 or rounds_played >= rules.chips_rounds


@dataclass(frozen=True, slots=True)
class _Scores:
    """Every score of a match after a round, computed without changing the match."""

    penalties: tuple[int, ...]
    points: tuple[int, ...]
    chips: tuple[int, ...]
    pot: int
    out: tuple[bool, ...]
    #: The pot when the round ended, before the winner took it (R16).
    pot_end: int = 0


def is_secret(seed: int) -> bool:
    """Whether ``seed`` is a secret (a match dealt from secret entropy), not a seed asked for."""
    return SECRET_MIN <= seed <= SECRET_MAX


def valid_seed(seed: object) -> bool:
    """Whether ``seed`` is a 64-bit seed or a secret (an int, never a bool)."""
    return _is_int(seed) and (0 <= seed <= SEED_MAX or is_secret(seed))  # type: ignore[operator, arg-type]


def secret_text(seed: int) -> str:
    """A secret as the save writes it: its 128 bits in 32 hex digits."""
    return f"{seed - SECRET_MIN:032x}"


def secret_from_text(text: object) -> int | None:
    """The secret a save's text names (32 lowercase hex digits), or None."""
    if not isinstance(text, str) or len(text) != SECRET_BITS // 4 or text.strip("0123456789abcdef"):
        return None
    return SECRET_MIN + int(text, 16)


def round_seed(match_seed: int, number: int) -> int:
    """The seed of round ``number`` (1, 2, ...) of a match. A secret's rounds are dealt from a
    keyed stream whose key is drawn from the secret one way: a round's deal tells nothing of
    another's."""
    if match_seed > SEED_MAX:
        return _rng.derive_wide(match_seed, f"round {number}")
    _state, value = _rng.next_u64(_rng.seed_state(match_seed * 1_000_003 + number))
    return value & ((1 << 62) - 1)


class Match:
    """Rounds to the end of the match. ``round`` is the round being played."""

    def __init__(self, n_players: int, rules: Rules | None = None, seed: int = 0, *, first_dealer: int | None = None):
        if not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
            raise ValueError(f"Kings Corners takes {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n_players} (R1)")
        self.rules = rules or Rules()
        self.n = n_players
        self.seed = seed
        if first_dealer is None:
            # R5: a random first dealer
            start = (
                _rng.seed_state(seed ^ 0x5EED) if seed <= SEED_MAX else _rng.state_of(_rng.derive_wide(seed, "dealer"))
            )
            _, first_dealer = _rng.below(n_players, start)
        self.dealer = first_dealer
        self.points = [0] * n_players
        self.chips = [self.rules.chips_start] * n_players if self.chips_scoring else [0] * n_players
        self.pot = 0
        self.out = [False] * n_players
        self.first_dealer = first_dealer
        self.results: list[RoundResult] = []
        self.round_moves: list[list[Move]] = []
        self.over = False
        self.winners: list[int] = []
        self.seats: list[int] = []
        #: R16: the chips every match seat put in the pot at the deal of the round being played.
        self.ante: tuple[int, ...] = (0,) * n_players
        self.round: Round = self._start_round()

    @property
    def chips_scoring(self) -> bool:
        return self.rules.scoring == Scoring.CHIPS

    @property
    def number(self) -> int:
        """The number of the round being played (1, 2, ...)."""
        return len(self.results) + 1

    @property
    def totals(self) -> list[int]:
        return list(self.chips if self.chips_scoring else self.points)

    def _start_round(self) -> Round:
        self.seats = [s for s in range(self.n) if not self.out[s]]
        ante = [0] * self.n
        if self.chips_scoring:  # R16: everyone antes one chip
            for s in self.seats:
                paid = min(1, self.chips[s])
                self.chips[s] -= paid
                self.pot += paid
                ante[s] = paid
        self.ante = tuple(ante)
        dealer_index = self.seats.index(self.dealer)
        r = Round.deal(len(self.seats), self.rules, round_seed(self.seed, self.number), dealer_index)
        r.standing = self.standing()
        return r

    def standing(self) -> Standing:
        """Where the match stands for the round being started or played, in its seats' order:
        public information every player has (the totals, the target or the pot)."""
        rules = self.rules
        return Standing(
            totals=tuple(self.totals[s] for s in self.seats),
            chips=self.chips_scoring,
            target=rules.target,
            pot=self.pot,
            rounds_played=len(self.results),
            rounds_left=max(0, rules.chips_rounds - len(self.results) - 1) if self.chips_scoring else None,
            chips_per_card=bool(rules.chips_per_card),
        )

    # ------------------------------------------------------------------ what a player sees
    def fines_paid(self) -> list[int]:
        """R16: the chips every match seat has paid so far this round for turns ended without
        playing a card from hand: its fines, as many as it holds chips for. Fines are counted
        into ``chips`` and ``pot`` when the round is scored; a player sees them leave the stack
        when the turn ends. All zero under points, between rounds and after the match."""
        paid = [0] * self.n
        if not self.chips_scoring or self.over:
            return paid
        for i, s in enumerate(self.seats):
            paid[s] = min(self.round.fines[i], self.chips[s])
        return paid

    def live_chips(self) -> list[int]:
        """Every player's total as shown during play: under chips scoring (R16) the stack with
        this round's ante and the fines of the turns already ended taken out; the points (R15)
        otherwise (the same as :attr:`totals`)."""
        paid = self.fines_paid()
        return [t - p for t, p in zip(self.totals, paid, strict=True)]

    def live_pot(self) -> int:
        """R16: the pot as shown during play: the antes, what a block left in it, and the
        fines already paid this round. 0 under points."""
        return self.pot + sum(self.fines_paid()) if self.chips_scoring else 0

    def ante_after(self, number: int) -> tuple[int, ...]:
        """R16: the chips every match seat anted at the deal that followed round ``number``
        (all 0 when there was none: the match ended, or under points)."""
        if number < len(self.results):
            return self.results[number].ante
        if number == len(self.results) and not self.over:
            return self.ante
        return (0,) * self.n

    def match_seat(self, round_seat: int) -> int:
        return self.seats[round_seat]

    def round_seat(self, match_seat: int) -> int | None:
        return self.seats.index(match_seat) if match_seat in self.seats else None

    def finish_round(self) -> RoundResult:
        """Score the finished round (R15/R16) and start the next one unless the match is over."""
        r = self.round
        if not r.over:
            raise ValueError("the round is not over yet")
        if self.over:
            raise ValueError("the match is over")
        scores = self._scores_after(r)
        winner = None if r.winner is None else self.seats[r.winner]
        before = list(self.chips)
        self.points = list(scores.points)
        self.chips = list(scores.chips)
        self.pot = scores.pot
        self.out = list(scores.out)
        delta = tuple(self.chips[s] - before[s] for s in range(self.n)) if self.chips_scoring else (0,) * self.n
        cards_left = [0] * self.n
        kings_left = [0] * self.n
        hands_left = [0] * self.n
        fines = [0] * self.n
        for i, s in enumerate(self.seats):
            cards_left[s], kings_left[s], _points = penalty_breakdown(r.hands[i])
            hands_left[s] = r.hands[i]
            fines[s] = r.fines[i]
        result = RoundResult(
            number=self.number,
            dealer=self.dealer,
            seats=tuple(self.seats),
            winner=winner,
            penalties=scores.penalties,
            chips_delta=delta,
            totals=tuple(self.totals),
            cards_left=tuple(cards_left),
            kings_left=tuple(kings_left),
            hands_left=tuple(hands_left),
            ante=self.ante,
            fines=tuple(fines),
            pot=scores.pot_end,
        )
        self.results.append(result)
        self.round_moves.append(self.replay_moves())
        self._check_match_end()
        if not self.over:
            self.dealer = self._next_dealer()
            self.round = self._start_round()
        return result

    def finishing_ends_match(self) -> bool:
        """Whether scoring the round being played, once it is over, ends the match (R15/R16);
        nothing is changed. False while the round goes on or after the match ended."""
        if not self.round.over or self.over:
            return False
        scores = self._scores_after(self.round)
        return self._ends(scores.points, scores.out, len(self.results) + 1)

    def _scores_after(self, r: Round) -> _Scores:
        """The scores once the finished round ``r`` is counted (R15/R16), the match unchanged."""
        penalties = [0] * self.n
        round_penalties = r.penalties()
        for i, s in enumerate(self.seats):
            penalties[s] = round_penalties[i]
        points = list(self.points)
        chips = list(self.chips)
        pot = self.pot
        out = list(self.out)
        if self.chips_scoring:
            winner = None if r.winner is None else self.seats[r.winner]
            for i, s in enumerate(self.seats):
                owed = r.fines[i]  # R16: one chip per turn ended without playing a card
                if self.rules.chips_per_card and s != winner:
                    owed += penalties[s]
                paid = min(owed, chips[s])
                chips[s] -= paid
                pot += paid
            pot_end = pot
            if winner is not None:  # after a block the pot stays for the next round
                chips[winner] += pot
                pot = 0
            for s in self.seats:
                if chips[s] <= 0:
                    out[s] = True  # cannot pay: out of the match (project choice)
        else:
            pot_end = 0
            for s in self.seats:
                points[s] += penalties[s]
        return _Scores(tuple(penalties), tuple(points), tuple(chips), pot, tuple(out), pot_end)

    def _ends(self, points: Sequence[int], out: Sequence[bool], rounds_played: int) -> bool:
        if self.chips_scoring:
            return chips_match_over(out, rounds_played, self.rules)
        return target_reached(points, self.rules)

    def _check_match_end(self) -> None:
        if not self._ends(self.points, self.out, len(self.results)):
            return
        self.over = True
        totals = self.totals
        best = max(totals) if self.chips_scoring else min(totals)
        self.winners = [s for s in range(self.n) if totals[s] == best]

    def _next_dealer(self) -> int:
        for k in range(1, self.n + 1):
            s = (self.dealer + k) % self.n
            if not self.out[s]:
                return s
        return self.dealer  # pragma: no cover - the match ends before no one is left

    # ------------------------------------------------------------------ saving
    def to_dict(self) -> dict[str, Any]:
        """The match as its seed and every round's moves: replaying them rebuilds it exactly."""
        return {
            "n_players": self.n,
            **({"secret": secret_text(self.seed)} if is_secret(self.seed) else {"seed": self.seed}),
            "rules": self.rules.to_dict(),
            "first_dealer": self.first_dealer,
            "rounds": [list(ms) for ms in self.round_moves] + [self.replay_moves()],
            "results": [res.to_dict() for res in self.results],
        }

    @classmethod
    def from_dict(cls, d: Any) -> Match:
        """Rebuild a match by replaying every round from the seed. Every field is checked for
        its exact JSON type (a bool is not a number, no text or float is turned into one);
        :class:`MatchRecordError` (a ValueError) when the record is not valid or does not
        replay (a move is illegal, a finished round does not end, the results differ)."""
        if not isinstance(d, dict):
            raise MatchRecordError(_("the match record must be an object"))
        for key in d:
            if key not in MATCH_KEYS:
                raise MatchRecordError(_("the match record has an unknown field"))
        n = _int(d, "n_players", MIN_PLAYERS, MAX_PLAYERS)
        if ("seed" in d) == ("secret" in d):
            raise MatchRecordError(_("the match record needs its 'seed' or its 'secret' (one of them)"))
        if "secret" in d:
            secret = secret_from_text(d["secret"])
            if secret is None:
                raise MatchRecordError(_("'secret' must be 32 hexadecimal digits (0-9, a-f)"))
            seed = secret
        else:
            seed = _int(d, "seed", 0, SEED_MAX)
        first_dealer = _int(d, "first_dealer", 0, n - 1)
        if "rules" not in d:
            raise MatchRecordError(_("'rules' is missing"))
        if isinstance(d["rules"], dict) and not all(isinstance(v, str | int) for v in d["rules"].values()):
            raise MatchRecordError(_("every rule must be a word, a whole number or true/false"))
        try:
            rules = Rules.from_dict(d["rules"])
        except (ValueError, TypeError) as exc:  # RulesError is a ValueError
            raise MatchRecordError(_("the rules are not valid ({error})").format(error=exc)) from None
        rounds = d.get("rounds")
        if not isinstance(rounds, list) or not rounds:
            raise MatchRecordError(_("no rounds recorded"))
        for k, moves in enumerate(rounds):
            if not isinstance(moves, list) or not all(_is_int(x) and 0 <= x <= END for x in moves):
                raise MatchRecordError(
                    _("round {number} must be a list of moves (whole numbers from 0 to {high})").format(
                        number=k + 1, high=END
                    )
                )
        results = d.get("results")
        if results is not None and not isinstance(results, list):
            raise MatchRecordError(_("'results' must be a list of round results"))
        try:
            m = cls(n, rules, seed, first_dealer=first_dealer)
        except ValueError as exc:  # e.g. too many cards for that many players and that hand size
            raise MatchRecordError(str(exc)) from None
        for k, moves in enumerate(rounds):
            if m.over:
                # A finished match's record repeats its last round as the "current" one (to_dict).
                if k != len(rounds) - 1 or moves != m.round_moves[-1]:
                    raise MatchRecordError(_("round {number} is recorded after the match ended").format(number=k + 1))
                break
            for i, mv in enumerate(moves):
                if m.round.over:
                    raise MatchRecordError(
                        _("round {number} goes on after it ended (move {move})").format(number=k + 1, move=i + 1)
                    )
                try:
                    m.round.apply(mv)
                except ValueError as exc:  # IllegalMove
                    raise MatchRecordError(
                        _("round {number}, move {move} is not legal ({error})").format(
                            number=k + 1, move=i + 1, error=exc
                        )
                    ) from None
            if k < len(rounds) - 1:
                if not m.round.over:
                    raise MatchRecordError(
                        _("round {number} does not end with its recorded moves").format(number=k + 1)
                    )
                m.finish_round()
        if results is not None:
            if len(results) != len(m.results):
                raise MatchRecordError(
                    _("{results} round results recorded for {rounds} rounds played").format(
                        results=len(results), rounds=len(m.results)
                    )
                )
            for k, (saved, replayed) in enumerate(zip(results, m.results, strict=True)):
                # A record holds no hands: compare what it records (cards_left and kings_left
                # come from the replay).
                if not RoundResult.from_dict(saved, n).record_equals(replayed):
                    raise MatchRecordError(
                        _("the result of round {number} differs from its replay").format(number=k + 1)
                    )
        return m

    def replay_round(self, n_moves: int) -> Round:
        """The current round dealt again with only its first ``n_moves`` moves made (e.g. to
        go back to the start of the turn being played)."""
        moves = self.replay_moves()
        if not 0 <= n_moves <= len(moves):
            raise ValueError(f"the round has {len(moves)} moves, not {n_moves}")
        r = Round.deal(len(self.seats), self.rules, round_seed(self.seed, self.number), self.seats.index(self.dealer))
        r.standing = self.round.standing
        for mv in moves[:n_moves]:
            r.apply(mv)
        return r

    def replay_moves(self) -> list[Move]:
        """The current round's moves so far."""
        return [m for _, m in self.round.history]
