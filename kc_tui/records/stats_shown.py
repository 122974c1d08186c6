"""What the Stats screen and ``kings-corners stats`` show, worked out from the history (plain
Python: no Textual, so the command line imports it without starting the UI).

The statistics are of one person at a time: "the player" is the human seat of that person's name
(``person`` None: the first human seat); demos (all AI) are left out. A match's standing is read
from its final totals: under points (R15) the lowest total is best, under chips (R16) the biggest
stack; the ratings are fitted on every human seat's result against every other seat of every
finished match (:func:`kc_tui.records.rating.pairwise`), AIs and humans alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime

from kc_tui.config import HUMAN, seat_kind_title
from kc_tui.i18n import N_, SOURCE, _, current, date, ngettext, number, pgettext
from kc_tui.records.bounded import LINE_MAX, clamp, rule_int, short_text
from kc_tui.records.rating import C, Rating, expected
from kc_tui.records.rows import MatchRecord
from kc_tui.records.summaries import GroupStats, Summary
from kc_tui.util.printable import cells, is_you

#: The most points the rating-over-time line is worked out at (evenly spread, the last match always).
RATING_POINTS = 120
#: Shown (through ``_()``) when no match is rated yet.
NO_RATING = N_("Play a match to get a rating")
DASH = "–"

#: The summary table's columns (the screen and the command line show the same; through ``_()``).
SUMMARY_HEADERS: tuple[str, ...] = (
    N_("Opponent"),
    N_("Players"),
    N_("Matches"),
    # Translators: a column: how many matches (then, again, rounds) were won.
    N_("Won"),
    N_("Win %"),
    N_("Rounds"),
    N_("Won"),
    N_("Win %"),
    N_("Penalty/round"),
    N_("Hints/round"),
)


def choose_person(people: Sequence[str], wanted: str | None) -> str | None:
    """Whose statistics to show: ``wanted`` (the Settings name) when that person played, else
    the one who played most (``people`` most matches first); None when no one played."""
    if wanted is not None and wanted in people:
        return wanted
    return people[0] if people else None


def is_chips(m: MatchRecord) -> bool:
    return str(m.rules.get("scoring", "points")) == "chips"


def finished(m: MatchRecord) -> bool:
    return m.finished_at is not None and bool(m.winners)


def _seat_scores(m: MatchRecord) -> list[tuple[int, int, float]]:
    """``(i, j, score of i against j)`` for every pair of seats of a finished match (none else)."""
    if m.demo or not finished(m) or len(m.totals) != len(m.seats) or len(m.seats) < 2:
        return []
    from kc_tui.records.rating import pairwise

    return pairwise([float(t) for t in m.totals], not is_chips(m))


def player_games(m: MatchRecord, person: str | None = None) -> list[tuple[str, float]]:
    """The player's results in a finished match: (AI kind, score 1 / 0.5 / 0) against each AI seat."""
    me = m.seat_of(person)
    if me is None:
        return []
    out: dict[int, float] = {}
    for i, j, score in _seat_scores(m):
        other, mine = (j, score) if i == me else (i, 1.0 - score) if j == me else (-1, 0.0)
        if other >= 0 and other not in out and m.seats[other].kind != HUMAN:
            out[other] = mine
    return [(m.seats[k].kind, s) for k, s in sorted(out.items())]


def people_games(m: MatchRecord) -> tuple[list[tuple[str, str, float]], list[tuple[str, str, float]]]:
    """The games a finished match gives the people's ratings: (person, AI kind, score) for every
    human seat against every AI seat, and (person, person, score) for every pair of human seats."""
    vs_ai: list[tuple[str, str, float]] = []
    between: list[tuple[str, str, float]] = []
    for i, j, score in _seat_scores(m):
        a, b = m.seats[i], m.seats[j]
        if a.is_human and b.is_human:
            if a.name != b.name:
                between.append((a.name, b.name, score))
        elif a.is_human:
            vs_ai.append((a.name, b.kind, score))
        elif b.is_human:
            vs_ai.append((b.name, a.kind, 1.0 - score))
    return vs_ai, between


@dataclass(frozen=True)
class RatingView:
    """The player's rating now and over time (one point per sampled match, oldest first)."""

    value: float | None = None
    sd: float | None = None
    words: str = ""
    #: (number of rated matches played so far, rating after it)
    series: tuple[tuple[int, float], ...] = ()
    #: (AI kind, its rating), lowest first (the plot's reference lines)
    anchors: tuple[tuple[str, float], ...] = ()
    #: Why there is no rating although matches were played (the AI ratings cannot be read).
    problem: str = ""
    #: Whose rating it is when several people played ("": the one player's, "Your rating").
    who: str = ""

    @property
    def line(self) -> str:
        if self.value is None or self.sd is None:
            return self.problem or _(NO_RATING)
        value, sd = f"{self.value:.0f}", f"{self.sd:.0f}"
        if self.who and not is_you(self.who):
            # Translators: {name} is a player, {value} ± {sd} the rating, {words} where it stands.
            line = _("{name}'s rating {value} ± {sd}: {words}")
            return line.format(name=short_text(self.who), value=value, sd=sd, words=self.words)
        # Translators: {value} ± {sd} is the rating, {words} where it stands among the AI players.
        return _("Your rating {value} ± {sd}: {words}").format(value=value, sd=sd, words=self.words)


def rating_view(
    oldest_first: Sequence[MatchRecord], points: int = RATING_POINTS, person: str | None = None, *, who: str = ""
) -> RatingView:
    """``person``'s rating after the last match (None: the first human seat's; every person is
    rated together, :func:`kc_tui.records.rating.people_ratings`), and the curve of it after up
    to ``points`` of the person's matches spread over the history. Only games against rated AI
    kinds and between people count. ``who``: the name the line gives (:attr:`RatingView.who`)."""
    from kc_tui.records.rating import ai_anchors

    try:
        anchors = ai_anchors()
    except (OSError, ValueError) as exc:
        return RatingView(problem=_("No rating: the AI players' ratings cannot be read ({error})").format(error=exc))
    if any(people_games(m)[1] for m in oldest_first):
        return _rating_among_people(oldest_first, points, person, anchors, who)
    per_match = [[g for g in player_games(m, person) if g[0] in anchors] for m in oldest_first]
    per_match = [g for g in per_match if g]
    if not per_match:
        return RatingView(who=who)
    from kc_tui.records.rating import player_rating, standing_words

    last = player_rating([g for games in per_match for g in games], anchors)
    ladder = sorted(((k, r.value) for k, r in anchors.items()), key=_second)
    series = curve(per_match, dict(ladder), points)
    return RatingView(last.value, last.sd, standing_words(last, anchors), tuple(series), tuple(ladder), who=who)


def _rating_among_people(
    oldest_first: Sequence[MatchRecord], points: int, person: str | None, anchors: Mapping[str, Rating], who: str
) -> RatingView:
    """:func:`rating_view` when people played each other: every person fitted together after
    each sampled match of ``person``'s (a fit over every game so far each time)."""
    from kc_tui.records.rating import people_ratings, standing_words

    vs_ai: list[tuple[str, str, float]] = []
    between: list[tuple[str, str, float]] = []
    upto: list[tuple[int, int]] = []  # after each of the person's rated matches: the games so far
    name: str | None = person
    for m in oldest_first:
        mine, theirs = people_games(m)
        mine = [g for g in mine if g[1] in anchors]
        vs_ai += mine
        between += theirs
        seat = m.seat_of(person)
        if seat is None:
            continue
        name = name if name is not None else m.seats[seat].name
        if any(g[0] == name for g in mine) or any(name in g[:2] for g in theirs):
            upto.append((len(vs_ai), len(between)))
    if name is None or not upto:
        return RatingView(who=who)
    step = max(1, -(-len(upto) // points))
    marks = sorted({*range(step, len(upto) + 1, step), len(upto)})
    series = [
        (k, people_ratings(vs_ai[: upto[k - 1][0]], between[: upto[k - 1][1]], anchors)[name].value) for k in marks
    ]
    last = people_ratings(vs_ai, between, anchors)[name]
    ladder = sorted(((k, r.value) for k, r in anchors.items()), key=_second)
    return RatingView(last.value, last.sd, standing_words(last, anchors), tuple(series), tuple(ladder), who=who)


#: AI kinds rated closer than this share of the plot's rating range are drawn as one line: a
#: terminal plot would draw them on the same row, one over the other.
SAME_ROW = 1 / 30
#: The legend width of the rating plot: every kind's name joined ("greedy/king-aware/...").
REFERENCE_WIDTH = 48


def reference_lines(
    anchors: Sequence[tuple[str, float]], lo: float, hi: float, *, rows: int | None = None
) -> list[tuple[str, float]]:
    """The flat lines the rating plot reads the player's rating against: the AI kinds rated from
    ``lo`` to ``hi`` (``anchors`` lowest first), those within a row of the plot's ``rows``
    (default: :data:`SAME_ROW` of the range) of the previous one joined into one line
    ("greedy/king-aware", at their mean rating): two lines in one row would be drawn one over
    the other."""
    gap = (hi - lo) / rows if rows else (hi - lo) * SAME_ROW
    groups: list[list[tuple[str, float]]] = []
    for kind, value in anchors:
        if not lo <= value <= hi:
            continue
        if groups and value - groups[-1][-1][1] < gap:
            groups[-1].append((kind, value))
        else:
            groups.append([(kind, value)])
    return [("/".join(seat_kind_title(k) for k, _value in g), sum(v for _kind, v in g) / len(g)) for g in groups]


def curve(
    per_match: Sequence[Sequence[tuple[str, float]]], anchors: Mapping[str, float], points: int = RATING_POINTS
) -> list[tuple[int, float]]:
    """The player's rating after match ``k`` (``k`` = 1 .. n, at most ``points`` of them evenly
    spread, the last always), ``per_match`` holding each match's games (kind, score).

    The model is :func:`kc_tui.records.rating.player_rating`'s (Bradley–Terry on the Elo scale, the kinds
    fixed at their anchors, a normal prior around the anchors' mean): with one free rating the
    games only count through how many were played against each kind and the score made, so each
    point is a few Newton steps on those sums instead of a fit over every game so far (10,000
    matches: 120 fits over 20,000 games would take seconds)."""
    from kc_tui.records.rating import DEFAULT_PRIOR_SD

    n = len(per_match)
    if not n or not anchors:
        return []
    step = max(1, -(-n // points))
    marks = sorted({*range(step, n + 1, step), n})
    center = sum(anchors.values()) / len(anchors)
    precision = 1.0 / (DEFAULT_PRIOR_SD * DEFAULT_PRIOR_SD)
    sums: dict[str, list[float]] = {}
    out: list[tuple[int, float]] = []
    r = center
    done = 0
    for k in marks:
        for games in per_match[done:k]:
            for kind, score in games:
                acc = sums.setdefault(kind, [0.0, 0.0])
                acc[0] += 1.0
                acc[1] += score
        done = k
        r = _mode(sums, anchors, center, precision, r)
        out.append((k, r))
    return out


def _mode(
    sums: Mapping[str, list[float]], anchors: Mapping[str, float], center: float, precision: float, r: float
) -> float:
    """The rating of most posterior weight given (games, score) against each anchored kind."""
    for _step in range(200):
        g = -precision * (r - center)
        h = precision
        for kind, (n, s) in sums.items():
            p = expected(r - anchors[kind])
            g += C * (s - n * p)
            h += C * C * n * p * (1.0 - p)
        step = max(-400.0, min(400.0, g / h))
        r += step
        if abs(step) < 1e-7:
            break
    return r


def _second(item: tuple[str, float]) -> float:
    return item[1]


# ---------------------------------------------------------------------------- one match in words
def when(m: MatchRecord) -> str:
    """The local date and time a match ended (or began, when it did not end)."""
    t: datetime = m.finished_at or m.started_at
    with suppress(ValueError, OverflowError, OSError):
        t = t.astimezone()
    if current() == SOURCE:
        return t.strftime("%Y-%m-%d %H:%M")
    return f"{date(t.date())} {t:%H:%M}"


def opponents(m: MatchRecord, person: str | None = None) -> str:
    """The other seats than the player's: "Greedy (greedy), Kingsley (king-aware)"."""
    me = m.seat_of(person)
    # Translators: a seat: the player's name, then its kind (an AI's kind, as typed, or human).
    seat = _("{name} ({kind})")
    others = (
        seat.format(name=short_text(s.name), kind=short_text(seat_kind_title(s.kind)))
        for i, s in enumerate(m.seats[:16])
        if i != me
    )
    return short_text(", ".join(others), 4 * LINE_MAX)


#: The results of a match from a player's seat, as :func:`result` gives them.
RESULTS = ("won", "shared", "lost", "unfinished")


def result_word(key: str) -> str:
    """One of :data:`RESULTS` as the list of matches says it, in the language in use."""
    # Translators: a match's result in the list of matches.
    words = {
        "won": pgettext("a match's result", "won"),
        "shared": pgettext("a match's result", "shared"),
        "lost": pgettext("a match's result", "lost"),
        "unfinished": pgettext("a match's result", "unfinished"),
    }
    return words.get(key, key)


def result_words(m: MatchRecord, person: str | None = None) -> str:
    """:func:`result` in the language in use (a demo: "won by" and who)."""
    if finished(m) and m.seat_of(person) is None:
        names = ", ".join(short_text(m.seats[w].name) for w in m.winners[:16] if 0 <= w < len(m.seats))
        # Translators: {names} are the winners of a match among AI players.
        return short_text(_("won by {names}").format(names=names), LINE_MAX)
    return result_word(result(m, person))


def result(m: MatchRecord, person: str | None = None) -> str:
    """Won, lost, shared or unfinished, from the player's seat (a demo: who won): a key of
    :data:`RESULTS` (a demo's "won by" and who is English; :func:`result_words` translates)."""
    if not finished(m):
        return "unfinished"
    me = m.seat_of(person)
    if me is None:
        names = ", ".join(short_text(m.seats[w].name) for w in m.winners[:16] if 0 <= w < len(m.seats))
        return short_text("won by " + names, LINE_MAX)
    if me in m.winners:
        return "won" if len(m.winners) == 1 else "shared"
    return "lost"


def totals_text(m: MatchRecord) -> str:
    """The final totals in seat order, "12 · 55 · 43" (chips: the stacks)."""
    return short_text(" · ".join(str(clamp(t)) for t in m.totals[:16]), LINE_MAX) if m.totals else DASH


def scoring_text(m: MatchRecord) -> str:
    if is_chips(m):
        # Translators: the scoring of a match: chips, so many chips for each player at the start.
        return _("chips, {chips} each").format(chips=rule_int(m.rules, "chips_start"))
    # Translators: the scoring of a match: points, up to the target.
    return _("points, target {target}").format(target=rule_int(m.rules, "target"))


def match_line(m: MatchRecord, person: str | None = None) -> str:
    """One line about a match: "#12 2026-11-30 18:02 vs Greedy (greedy): won, 12 · 55"."""
    # Translators: #{id} is the match's number, {when} its date, {result} won/lost..., {totals} the scores.
    return _("#{id} {when} vs {opponents}: {result}, {totals}").format(
        id=m.id,
        when=when(m),
        opponents=opponents(m, person) or DASH,
        result=result_words(m, person),
        totals=totals_text(m),
    )


def score_series(m: MatchRecord) -> list[tuple[str, list[int]]]:
    """Each seat's total after every round of ``m`` (chips: the stacks), for the score plot;
    the start is round 0 (0 points, or the starting stacks)."""
    start = rule_int(m.rules, "chips_start") if is_chips(m) else 0
    out: list[tuple[str, list[int]]] = []
    for seat, info in enumerate(m.seats[:16]):
        line = [start]
        for r in m.rounds:
            line.append(clamp(r.totals[seat]) if seat < len(r.totals) else line[-1])
        out.append((short_text(info.name), line))
    return out


# ---------------------------------------------------------------------------- the summary
def _pct(part: int, whole: int) -> str:
    return f"{number(100 * part / whole)}%" if whole else DASH


def _avg(value: float, whole: int) -> str:
    return number(value, 2) if whole else DASH


def kind_row(k: GroupStats) -> tuple[str, ...]:
    return (
        short_text(seat_kind_title(k.opponent)),
        str(k.table_size),
        str(k.matches),
        str(k.matches_won),
        _pct(k.matches_won, k.matches),
        str(k.rounds),
        str(k.rounds_won),
        _pct(k.rounds_won, k.rounds),
        _avg(k.mean_penalty, k.rounds),
        _avg(k.hints_per_round, k.rounds),
    )


def summary_rows(summary: Summary) -> list[tuple[str, ...]]:
    """The table's rows: one per opponent kind and table size, then every match together
    (when there is more than one group: :func:`has_all_row`), in the language in use."""
    rows = [kind_row(k) for k in summary.groups]
    if len(rows) > 1:
        # Translators: the summary table's last row: every match together.
        rows.append((_("all"), DASH, *kind_row(summary.overall)[2:]))
    return rows


def has_all_row(rows: Sequence[Sequence[str]]) -> bool:
    """Whether the last of :func:`summary_rows`'s rows is every match together."""
    return len(rows) > 1


def streak_text(summary: Summary) -> str:
    def wins(n: int) -> str:
        return ngettext("{n} win", "{n} wins", n).format(n=n)

    # Translators: no winning streak now.
    now = wins(summary.current_streak) if summary.current_streak else _("none")
    # Translators: {now} and {longest} are counts of wins (3 wins, none).
    return _("Winning streak now: {now} · longest: {longest}").format(now=now, longest=wins(summary.longest_streak))


def best_worst(
    summary: Summary, lookup: Callable[[int], MatchRecord | None], person: str | None = None
) -> list[tuple[str, str]]:
    """("Best match", its line) and ("Worst match", its line), for those the summary names (the
    labels in the language in use)."""
    out: list[tuple[str, str]] = []
    for label, point in ((N_("Best match"), summary.best), (N_("Worst match"), summary.worst)):
        if point is None or (label == "Worst match" and summary.best == point):
            continue
        mid = point.match_id
        m = lookup(mid)
        out.append((_(label), match_line(m, person) if m is not None else f"#{mid}"))
    return out


def player_matches(matches: Sequence[MatchRecord], person: str | None = None) -> list[MatchRecord]:
    """The matches the player played (no demos): ``person``'s (None: any human's)."""
    return [m for m in matches if not m.demo and m.seat_of(person) is not None]


#: The columns a text table fits in (a terminal's width).
TEXT_WIDTH = 80


def table_text(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int = TEXT_WIDTH) -> list[str]:
    """A plain text table: the first column left, the others right aligned, padded by the cells
    each text takes on a terminal (a Thai vowel above its letter takes none). A table wider than
    ``width`` takes its headers on two lines, each header broken before its last "/" or at its
    last space ("Penalty" over "/round"), the widest first, while that narrows it; then its
    columns one space apart."""
    heads: list[tuple[str, str]] = [("", h) for h in headers]

    def widths_of(heads: Sequence[tuple[str, str]]) -> list[int]:
        return [max(cells(top), cells(low), *(cells(r[i]) for r in rows)) for i, (top, low) in enumerate(heads)]

    def total(widths: Sequence[int], gap: int) -> int:
        return sum(widths) + gap * (len(widths) - 1)

    for i in sorted(range(len(headers)), key=lambda i: -cells(headers[i])):
        if total(widths_of(heads), 2) <= width:
            break
        h = headers[i]
        cut = h.rfind("/") if "/" in h[1:] else h.rfind(" ") + 1
        if cut > 0:
            heads[i] = (h[:cut].rstrip(), h[cut:])
    widths = widths_of(heads)
    gap = " " * (2 if total(widths, 2) <= width else 1)

    def pad(text: str, width: int, left: bool) -> str:
        room = " " * (width - cells(text))
        return text + room if left else room + text

    def line(texts: Sequence[str]) -> str:
        return gap.join(pad(c, w, i == 0) for i, (c, w) in enumerate(zip(texts, widths, strict=True))).rstrip()

    tops = [top for top, _low in heads]
    head = [line(tops)] if any(tops) else []
    return [*head, line([low for _top, low in heads]), gap.join("-" * w for w in widths), *(line(r) for r in rows)]


def report_lines(
    summary: Summary,
    rating: RatingView,
    matches: Mapping[int, MatchRecord],
    n_matches: int,
    person: str | None = None,
) -> list[str]:
    """The summary as text lines (``kings-corners stats``), of ``person``'s matches."""
    if not n_matches:
        return [_("No matches recorded yet: play a match and it is remembered here."), _(NO_RATING)]
    rounds = summary.overall.rounds
    if summary.unfinished:
        # Translators: {n} matches played, {unfinished} of them left before their end.
        played = ngettext(
            "Kings Corners: {n} match played ({unfinished} unfinished)",
            "Kings Corners: {n} matches played ({unfinished} unfinished)",
            n_matches,
        )
    else:
        played = ngettext("Kings Corners: {n} match played", "Kings Corners: {n} matches played", n_matches)
    lines = [played.format(n=n_matches, unfinished=summary.unfinished), rating.line, ""]
    lines += table_text([_(h) for h in SUMMARY_HEADERS], summary_rows(summary))
    lines += ["", streak_text(summary)]
    # Translators: a label (Best match) and its match's line.
    lines += [
        _("{label}: {text}").format(label=label, text=text) for label, text in best_worst(summary, matches.get, person)
    ]
    if not rounds:
        lines.append(_("No finished round yet."))
    return lines


__all__ = [
    "NO_RATING",
    "RESULTS",
    "SUMMARY_HEADERS",
    "RatingView",
    "best_worst",
    "choose_person",
    "has_all_row",
    "is_chips",
    "match_line",
    "opponents",
    "people_games",
    "player_games",
    "player_matches",
    "rating_view",
    "report_lines",
    "result",
    "result_words",
    "score_series",
    "scoring_text",
    "streak_text",
    "summary_rows",
    "totals_text",
    "when",
]
