"""Numbers and dates in each language's form: the game's tables agree with Babel's CLDR data."""

from __future__ import annotations

import datetime

import pytest
from babel.dates import format_date, get_date_format
from babel.numbers import format_decimal, get_decimal_symbol, get_group_symbol

from kc_tui import i18n
from kc_tui.i18n import DATE_PATTERNS, LANGUAGES, NUMBER_MARKS, date, number

CODES = list(LANGUAGES)
NUMBERS = [0, 7, 42.25, 999, 1000, 1234.5, -1234.5, 1234567.891, -0.75, 10**9 + 0.1]
DAYS = [datetime.date(2026, 3, 7), datetime.date(1999, 12, 31), datetime.date(2031, 1, 1), datetime.date(2005, 10, 9)]


@pytest.mark.parametrize("code", CODES)
def test_the_number_marks_are_cldrs(code: str) -> None:
    assert NUMBER_MARKS[code] == (get_decimal_symbol(code), get_group_symbol(code))


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("digits", [0, 1, 2])
def test_numbers_are_written_as_babel_writes_them(code: str, digits: int) -> None:
    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    for x in NUMBERS:
        assert number(x, digits, code) == format_decimal(x, format=pattern, locale=code), (x, digits)


@pytest.mark.parametrize("code", CODES)
def test_the_short_date_is_cldrs(code: str) -> None:
    assert DATE_PATTERNS[code] == get_date_format("short", locale=code).pattern
    for day in DAYS:
        assert date(day, code) == format_date(day, "short", locale=code), day


def test_the_forms_follow_the_language_in_use() -> None:
    day = datetime.date(2026, 3, 7)
    assert (number(1234.5, 1), date(day)) == ("1,234.5", "3/7/26")
    i18n.use("it")
    assert (number(1234.5, 1), date(day)) == ("1.234,5", "07/03/26")
    i18n.use("vi")
    assert (number(1234.5, 1), date(day)) == ("1.234,5", "7/3/26")
    i18n.use("sw")
    assert (number(1234.5, 1), date(day)) == ("1,234.5", "07/03/2026")
    i18n.use("th")
    assert (number(1234.5, 1), date(day)) == ("1,234.5", "7/3/26")
    assert number(3) == "3" and number(2.5, 0, "en") == format_decimal(2.5, format="#,##0", locale="en")
