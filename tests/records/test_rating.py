"""The rating model (kc_tui/records/rating.py) on constructed results with a known order, and the AI
ratings shipped with the package (kc_tui/data/ai_ratings.json, made by tools/ai_ratings.py)."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence

import pytest

import ai
import kc_tui.records.rating as rating
from kc_tui.i18n import use
from kc_tui.records.rating import (
    Rating,
    ai_anchors,
    describe,
    fit,
    pairwise,
    parse_ai_ratings,
    people_ratings,
    player_rating,
    read_ai_ratings,
    standing_words,
)
from tests.timingkit import TIMED, within


def simulate(true: dict[str, float], games: int, seed: int, draws: float = 0.0) -> list[tuple[str, str, float]]:
    """``games`` games between random pairs of ``true``'s names, scored with the model's expected
    score: a draw with probability ``draws · 2 · min(p, 1 - p)``, a win with ``p`` less half of it."""
    rng = random.Random(seed)
    names = sorted(true)
    out = []
    for _ in range(games):
        a, b = rng.sample(names, 2)
        p = 1.0 / (1.0 + 10 ** ((true[b] - true[a]) / 400))
        drawn = draws * 2 * min(p, 1 - p)
        u = rng.random()
        out.append((a, b, 1.0 if u < p - drawn / 2 else 0.5 if u < p + drawn / 2 else 0.0))
    return out


TRUE = {"a": 600.0, "b": 850.0, "c": 1000.0, "d": 1150.0, "e": 1400.0}


# ------------------------------------------------------------------------------ known order
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_known_order_is_recovered_within_a_few_sds(seed: int) -> None:
    games = simulate(TRUE, 4000, seed, draws=0.1)
    fitted = fit(games, {"c": 1000.0})
    assert sorted(TRUE, key=lambda n: fitted[n].value) == sorted(TRUE, key=lambda n: TRUE[n])
    for name, value in TRUE.items():
        r = fitted[name]
        assert r.name == name
        if name == "c":
            assert (r.value, r.sd) == (1000.0, 0.0)
        else:
            assert 0 < r.sd < 60
            assert abs(r.value - value) < 3.5 * r.sd, (name, r, value)


def test_the_uncertainty_shrinks_with_more_games() -> None:
    sds = []
    for games in (50, 200, 800, 3200):
        fitted = fit(simulate(TRUE, games, 7), {"c": 1000.0})
        sds.append([fitted[n].sd for n in "abde"])
    for fewer, more in itertools.pairwise(sds):
        assert all(m < f for f, m in zip(fewer, more, strict=True)), sds
    # Four times the games, about half the sd.
    assert all(0.35 < last / first < 0.65 for first, last in zip(sds[-2], sds[-1], strict=True))


def test_without_anchors_the_ratings_centre_on_the_prior_and_differences_hold() -> None:
    fitted = fit(simulate(TRUE, 4000, 5))
    mean = sum(r.value for r in fitted.values()) / len(fitted)
    assert abs(mean - rating.CENTER) < 20
    gap = fitted["e"].value - fitted["a"].value
    assert abs(gap - 800) < 3.5 * math.hypot(fitted["e"].sd, fitted["a"].sd)


def test_anchors_are_fixed_and_shift_the_scale() -> None:
    games = simulate(TRUE, 3000, 11)
    low = fit(games, {"a": 0.0, "e": 800.0})
    high = fit(games, {"a": 1000.0, "e": 1800.0})
    assert (low["a"].value, low["e"].value, low["a"].sd, low["e"].sd) == (0.0, 800.0, 0.0, 0.0)
    for n in "bcd":
        assert high[n].value - low[n].value == pytest.approx(1000.0, abs=1e-3)
        assert high[n].sd == pytest.approx(low[n].sd, rel=1e-6)
    # An anchor without games is reported as it is.
    assert fit(games, {"a": 600.0, "z": 1234.5})["z"] == Rating("z", 1234.5, 0.0)


def test_no_games_gives_the_prior_and_all_wins_stay_finite() -> None:
    assert fit([]) == {}
    only = fit([], {"greedy": 1000.0, "expert": 1400.0}, prior_sd=200.0)
    assert set(only) == {"greedy", "expert"}
    assert only["greedy"] == Rating("greedy", 1000.0, 0.0)
    wins = fit([("w", "l", 1.0)] * 500)
    assert all(math.isfinite(r.value) and math.isfinite(r.sd) for r in wins.values())
    assert wins["w"].value > wins["l"].value + 400
    more = fit([("w", "l", 1.0)] * 5000)
    assert more["w"].value > wins["w"].value  # more wins, higher, and still finite
    assert math.isfinite(more["w"].value)


def test_the_fit_is_deterministic_and_symmetric_in_how_a_game_is_written() -> None:
    games = simulate(TRUE, 500, 3, draws=0.2)
    flipped = [(b, a, 1.0 - s) for a, b, s in reversed(games)]
    one, two = fit(games, {"c": 1000.0}), fit(flipped, {"c": 1000.0})
    assert one == fit(games, {"c": 1000.0})
    for n in TRUE:
        assert one[n].value == pytest.approx(two[n].value, abs=1e-6)
        assert one[n].sd == pytest.approx(two[n].sd, rel=1e-6)


@pytest.mark.parametrize("timed", TIMED)
def test_many_names_fit_fast_and_the_two_solvers_agree(monkeypatch: pytest.MonkeyPatch, timed: bool) -> None:
    rng = random.Random(4)
    true = {f"n{i:03}": rng.gauss(1000, 250) for i in range(300)}
    games = simulate(true, 30_000, 9)
    with within(10, timed, "fitting 300 names"):  # about 1 s on the 2-core machine
        fitted = fit(games)
    err = [fitted[n].value - true[n] for n in true]
    mean = sum(err) / len(err)
    assert math.sqrt(sum((e - mean) ** 2 for e in err) / len(err)) < 60
    # The same games among 60 names: dense Newton (the default there) and coordinate sweeps.
    few = {n for n in sorted(true)[:60]}
    sub = [g for g in games if g[0] in few and g[1] in few]
    dense = fit(sub)
    monkeypatch.setattr(rating, "DENSE_MAX", 0)
    sweeps = fit(sub)
    for n in few:
        assert sweeps[n].value == pytest.approx(dense[n].value, abs=1e-4)
        assert 0 < sweeps[n].sd <= dense[n].sd + 1e-9  # the diagonal's sd: given the others


def test_a_draw_counts_half() -> None:
    drawn = fit([("x", "y", 0.5)] * 100, {"y": 1000.0})
    assert drawn["x"].value == pytest.approx(1000.0, abs=1e-6)
    split = fit([("x", "y", 1.0), ("x", "y", 0.0)] * 50, {"y": 1000.0})
    assert split["x"].value == pytest.approx(drawn["x"].value, abs=1e-6)


# ------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("games", "words"),
    [
        ([("a", "b", math.nan)], "finite"),
        ([("a", "b", math.inf)], "finite"),
        ([("a", "b", -0.5)], "from 0 to 1"),
        ([("a", "b", 1.5)], "from 0 to 1"),
        ([("a", "b", "1")], "a number"),
        ([("a", "b", True)], "a number"),
        ([("", "b", 1.0)], "non-empty name"),
        ([("a", "a", 1.0)], "against itself"),
        ([("a", "b")], "(name, name, score)"),
        ("abc", "sequence"),
    ],
)
def test_bad_games_are_refused(games: Sequence[tuple[str, str, float]], words: str) -> None:
    with pytest.raises(ValueError) as info:
        fit(games)
    assert words in str(info.value)


@pytest.mark.parametrize("prior_sd", [0.0, -1.0, math.nan, math.inf])
def test_a_bad_prior_is_refused(prior_sd: float) -> None:
    with pytest.raises(ValueError, match="prior_sd"):
        fit([("a", "b", 1.0)], prior_sd=prior_sd)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 1e9])
def test_a_bad_anchor_is_refused(value: float) -> None:
    with pytest.raises(ValueError, match="anchor 'b'"):
        fit([("a", "b", 1.0)], {"b": value})
    with pytest.raises(ValueError, match="anchor 'b'"):
        player_rating([("b", 1.0)], {"b": Rating("b", value, 10.0)})


# -------------------------------------------------------------------------------- pairwise
def test_pairwise_on_points_lower_is_better_with_a_tie() -> None:
    assert pairwise([12, 30, 12, 51], lower_is_better=True) == [
        (0, 1, 1.0),
        (0, 2, 0.5),
        (0, 3, 1.0),
        (1, 2, 0.0),
        (1, 3, 1.0),
        (2, 3, 1.0),
    ]


def test_pairwise_on_chips_higher_is_better_with_a_tie() -> None:
    assert pairwise([0, 25, 25], lower_is_better=False) == [(0, 1, 0.0), (0, 2, 0.0), (1, 2, 0.5)]
    assert pairwise([7.5, 3], lower_is_better=False) == [(0, 1, 1.0)]


@pytest.mark.parametrize("finish", [[], [10], [1, math.nan], [math.inf, 2], [1, "2"], "12"])
def test_pairwise_refuses_bad_totals(finish: Sequence[float]) -> None:
    with pytest.raises(ValueError):
        pairwise(finish, lower_is_better=True)


# ------------------------------------------------------------------------------ the player
ANCHORS = {
    "random": Rating("random", 640.0, 80.0),
    "greedy": Rating("greedy", 1000.0, 0.0),
    "lookahead": Rating("lookahead", 1180.0, 30.0),
    "expert": Rating("expert", 1290.0, 40.0),
}


def test_the_player_moves_up_after_a_win_and_down_after_a_loss() -> None:
    games = [("greedy", 1.0), ("lookahead", 0.0), ("expert", 0.5), ("lookahead", 1.0), ("greedy", 0.0)]
    before = player_rating(games, ANCHORS)
    won = player_rating([*games, ("lookahead", 1.0)], ANCHORS)
    lost = player_rating([*games, ("lookahead", 0.0)], ANCHORS)
    assert before.name == won.name == "player"
    assert won.value > before.value > lost.value
    assert won.sd < before.sd and lost.sd < before.sd


def test_the_player_without_games_has_the_prior_and_unknown_kinds_are_skipped() -> None:
    alone = player_rating([], ANCHORS)
    assert alone.value == pytest.approx(sum(a.value for a in ANCHORS.values()) / len(ANCHORS))
    assert alone.sd == pytest.approx(rating.DEFAULT_PRIOR_SD)
    assert player_rating([("no-such-kind", 1.0)] * 10, ANCHORS) == alone
    with pytest.raises(ValueError, match="finite"):
        player_rating([("no-such-kind", math.nan)], ANCHORS)
    with pytest.raises(ValueError, match="from 0 to 1"):
        player_rating([("greedy", -1.0)], ANCHORS)
    with pytest.raises(ValueError, match="opponent kind"):
        player_rating([("", 1.0)], ANCHORS)


def test_the_players_uncertainty_shrinks_with_games_and_counts_the_anchors() -> None:
    rng = random.Random(3)
    true = 1100.0
    games: list[tuple[str, float]] = []
    sds = []
    for _ in range(4):
        for _ in range(100):
            kind = rng.choice(sorted(ANCHORS))
            p = 1.0 / (1.0 + 10 ** ((ANCHORS[kind].value - true) / 400))
            games.append((kind, 1.0 if rng.random() < p else 0.0))
        sds.append(player_rating(games, ANCHORS).sd)
    assert sds == sorted(sds, reverse=True) and sds[-1] < 45
    final = player_rating(games, ANCHORS)
    assert abs(final.value - true) < 3 * final.sd
    exact = {k: Rating(k, a.value, 0.0) for k, a in ANCHORS.items()}
    sharp = player_rating(games, exact)
    assert sharp.value == pytest.approx(final.value)
    assert sharp.sd < final.sd  # the anchors' own sds add to the player's


# -------------------------------------------------------------------------------- the words
@pytest.mark.parametrize(
    ("value", "words"),
    [
        (1215.0, "between Lookahead (1180) and Expert (1290)"),
        (1290.6, "above Expert (1290)"),
        (1289.6, "level with Expert (1290)"),
        (5000.0, "above Expert (1290)"),
        (639.4, "below Random (640)"),
        (640.2, "level with Random (640)"),
        (641.0, "between Random (640) and Greedy (1000)"),
        (999.0, "between Random (640) and Greedy (1000)"),
    ],
)
def test_standing_words_at_the_edges(value: float, words: str) -> None:
    assert standing_words(Rating("player", value, 50.0), ANCHORS) == words


def test_standing_words_name_a_kind_in_the_language_and_as_typed() -> None:
    use("it")
    assert standing_words(Rating("player", 1215.0, 50.0), ANCHORS) == (
        "tra Lungimirante (lookahead, 1180) e Esperto (expert, 1290)"
    )


def test_describe_gives_the_rating_its_sd_and_its_place() -> None:
    assert describe(Rating("player", 1215.4, 59.6), ANCHORS) == "1215 ± 60: between Lookahead (1180) and Expert (1290)"
    assert standing_words(Rating("player", 1.0, 1.0), {}) == "no AI ratings to compare with"
    with pytest.raises(ValueError, match="finite"):
        standing_words(Rating("player", math.nan, 1.0), ANCHORS)
    with pytest.raises(ValueError, match="finite"):
        describe(Rating("player", 1000.0, math.inf), ANCHORS)


# -------------------------------------------------------------------- the shipped AI ratings
def test_the_shipped_ai_ratings_load_and_rate_every_offered_kind() -> None:
    anchors = ai_anchors()
    offered = [k.name for k in ai.kinds() if k.offered]
    assert set(offered) <= set(anchors)
    assert anchors["greedy"] == Rating("greedy", 1000.0, 0.0)
    for name, r in anchors.items():
        assert r.name == name and math.isfinite(r.value) and r.sd >= 0
        assert name == "greedy" or r.sd > 0
    # The weakest kind is rated lowest.
    assert min(anchors.values(), key=lambda r: r.value).name == "random"
    assert ai_anchors() == anchors and ai_anchors() is not anchors  # a fresh copy each time
    # The player rated against them gets a sentence naming two kinds or an end.
    words = describe(player_rating([("greedy", 1.0), ("lookahead", 0.5)], anchors), anchors)
    assert any(ai.kind_shown(k) in words for k in anchors)


@pytest.mark.parametrize(
    "doc",
    [
        [],
        {"scale": "glicko", "ratings": {"greedy": {"value": 1000, "sd": 0}}},
        {"scale": "elo", "ratings": {}},
        {"scale": "elo", "ratings": {"greedy": 1000}},
        {"scale": "elo", "ratings": {"greedy": {"value": None, "sd": 0}}},
        {"scale": "elo", "ratings": {"greedy": {"value": 1000, "sd": -1}}},
        {"scale": "elo", "ratings": {"greedy": {"value": 1000, "sd": math.nan}}},
    ],
)
def test_a_bad_ratings_file_is_refused_with_a_message(doc: object) -> None:
    with pytest.raises(ValueError, match=r"ai_ratings\.json"):
        parse_ai_ratings(doc)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"scale": "elo", "scale": "elo", "ratings": {"greedy": {"value": 1000, "sd": 0}}}', 'field "scale" is given'),
        ('{"scale": "elo", "ratings": {"greedy": {"value": 1000, "sd": NaN}}}', "NaN is not a number"),
        ('{"scale": "elo", "ratings": {"greedy": {"value": 1e999, "sd": 0}}}', "a number is too large"),
    ],
)
def test_a_ratings_file_that_is_not_strict_json_is_refused_in_one_line(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=r"ai_ratings\.json") as caught:
        read_ai_ratings(text)
    assert words in str(caught.value) and "\n" not in str(caught.value)


# ------------------------------------------------------------------------------ the people
def test_two_humans_who_played_each_other_move_apart_on_the_ais_scale() -> None:
    vs_ai = [("Ana", "greedy", 1.0), ("Ana", "lookahead", 0.0), ("Ben", "greedy", 0.5), ("Ben", "expert", 0.5)]
    before = people_ratings(vs_ai, [], ANCHORS)
    after = people_ratings(vs_ai, [("Ana", "Ben", 1.0), ("Ben", "Ana", 0.0)], ANCHORS)
    assert list(after) == ["Ana", "Ben"] and after["Ana"].name == "Ana"
    assert after["Ana"].value > before["Ana"].value
    assert after["Ben"].value < before["Ben"].value
    assert after["Ana"].sd < before["Ana"].sd and after["Ben"].sd < before["Ben"].sd
    # On the AIs' scale: each person is where a one-person fit of their AI games puts them, with
    # no game between them; the games between them move them by about the same amount.
    for person in ("Ana", "Ben"):
        alone = player_rating([(k, s) for p, k, s in vs_ai if p == person], ANCHORS)
        assert before[person].value == pytest.approx(alone.value, abs=1e-6)
        assert before[person].sd == pytest.approx(alone.sd, abs=1e-6)
    up, down = after["Ana"].value - before["Ana"].value, before["Ben"].value - after["Ben"].value
    assert up == pytest.approx(down, rel=0.5)


def test_a_person_held_at_the_fit_of_everyone_leaves_the_others_where_that_fit_puts_them() -> None:
    vs_ai = [("Ana", "greedy", 1.0), ("Ana", "expert", 0.0), ("Ben", "lookahead", 1.0), ("Cy", "random", 0.0)]
    between = [("Ana", "Ben", 1.0), ("Ben", "Cy", 0.5), ("Cy", "Ana", 0.0), ("Ben", "Ana", 1.0)]
    everyone = people_ratings(vs_ai, between, ANCHORS)
    for person in ("Ana", "Ben", "Cy"):
        held = {name: r for name, r in everyone.items() if name != person}
        alone = people_ratings(vs_ai, between, ANCHORS, held)
        assert list(alone) == [person]
        assert alone[person].value == pytest.approx(everyone[person].value, abs=1e-4)


def test_a_game_against_a_held_person_counts_as_one_against_an_anchor_of_that_rating() -> None:
    ben = Rating("Ben", 1150.0, 40.0)
    held = people_ratings([("Ana", "greedy", 1.0)], [("Ana", "Ben", 1.0), ("Ben", "Ana", 0.5)], ANCHORS, {"Ben": ben})
    mean = sum(a.value for a in ANCHORS.values()) / len(ANCHORS)
    values = {name: a.value for name, a in ANCHORS.items()}
    games = [("Ana", "greedy", 1.0), ("Ana", "ben", 1.0), ("Ana", "ben", 0.5)]
    as_anchor = fit(games, {**values, "ben": 1150.0}, center=mean)
    assert held["Ana"].value == pytest.approx(as_anchor["Ana"].value, abs=1e-6)
    assert held["Ana"].sd > as_anchor["Ana"].sd  # Ben's own uncertainty added
    # The prior's centre stays the AIs' mean (a held person is no anchor of it); a game between
    # two held people moves no one.
    out = people_ratings([("Dee", "no-such-kind", 1.0)], [("Ben", "Cy", 1.0)], ANCHORS, {"Ben": ben, "Cy": ben})
    assert list(out) == ["Dee"] and out["Dee"].value == pytest.approx(mean)


def test_people_who_only_played_each_other_stay_around_the_ais_mean() -> None:
    out = people_ratings([], [("Ana", "Ben", 1.0)] * 3, ANCHORS)
    mean = sum(a.value for a in ANCHORS.values()) / len(ANCHORS)
    assert out["Ana"].value > mean > out["Ben"].value
    assert out["Ana"].value - mean == pytest.approx(mean - out["Ben"].value)
    lone = people_ratings([("Cy", "no-such-kind", 1.0)], [], ANCHORS)["Cy"]
    assert lone.value == pytest.approx(mean) and lone.sd == rating.DEFAULT_PRIOR_SD
    with pytest.raises(ValueError, match="against itself"):
        people_ratings([], [("Ana", "Ana", 1.0)], ANCHORS)
    with pytest.raises(ValueError, match="from 0 to 1"):
        people_ratings([], [("Ana", "Ben", 2.0)], ANCHORS)
