"""Numbers and dates a player reads are written in the language's form: the Stats screen's
dates and averages, the review's losses."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from kc_tui.i18n import use
from kc_tui.records import stats_shown
from kc_tui.records.rows import MatchRecord
from tests.match.kit import play_match


def ended_at(m: MatchRecord, when: datetime) -> MatchRecord:
    return replace(m, started_at=when - timedelta(minutes=20), finished_at=when)


def test_a_matchs_date_is_in_the_languages_short_form() -> None:
    m = ended_at(play_match(["greedy", "greedy"], 3), datetime(2026, 3, 7, 18, 5, tzinfo=UTC).astimezone())
    assert stats_shown.when(m) == "2026-03-07 18:05"
    use("it")
    assert stats_shown.when(m) == "07/03/26 18:05"
    use("vi")
    assert stats_shown.when(m) == "7/3/26 18:05"


def test_an_average_has_the_languages_decimal_mark() -> None:
    assert stats_shown._avg(2.5, 4) == "2.50"
    use("it")
    assert stats_shown._avg(2.5, 4) == "2,50"
    assert stats_shown._pct(1, 3) == "33%"
