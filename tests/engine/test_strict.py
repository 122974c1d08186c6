"""Strict JSON (kc_tui/engine/strict.py): what plain JSON readers let through is refused, each
time in one plain line."""

from __future__ import annotations

import pytest

from kc_tui.engine.strict import JSONError, loads


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"a": 1, "a": 2}', 'the field "a" is given twice'),
        ('[{"x": {"k": 1, "k": 1}}]', 'the field "k" is given twice'),
        ('{"a": NaN}', "NaN is not a number JSON allows"),
        ("[Infinity]", "Infinity is not a number JSON allows"),
        ("[-Infinity]", "-Infinity is not a number JSON allows"),
        ("[1e400]", "a number is too large"),
        ("[" + "9" * 5000 + "]", "a number is too long"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"a": 1', "it is not valid JSON (Expecting"),
        (b'{"a": "\xff"}', "it is not UTF-8 text"),
    ],
)
def test_what_is_not_plain_json_is_refused_in_one_line(text: str | bytes, words: str) -> None:
    with pytest.raises(JSONError) as caught:
        loads(text)
    said = str(caught.value)
    assert words in said and "\n" not in said


def test_a_key_given_twice_is_shown_escaped_and_cut_short() -> None:
    with pytest.raises(JSONError) as caught:
        loads('{"\\u001b[31m' + "k" * 100 + '": 1, "\\u001b[31m' + "k" * 100 + '": 2}')
    said = str(caught.value)
    assert "\x1b" not in said and len(said) < 80


def test_plain_json_is_read_as_json_reads_it() -> None:
    assert loads(b'{"a": [1, 2.5, "x", null, true], "b": {}}') == {"a": [1, 2.5, "x", None, True], "b": {}}
