"""Every network message's wire form, derived from its dataclass declaration: a message is a JSON
object of its dataclass's fields (less those marked :data:`LOCAL`), each written and read by its
type hint. One function writes any message (:func:`to_wire`), one reads any (:func:`reader`);
adding a field to a declaration is the whole change that puts it on the wire.

The type hints it knows: ``int``, ``bool``, ``str``, ``None``, unions of them, ``tuple[X, ...]``
and ``tuple[X, Y]`` (JSON lists), ``dict[str, Any]`` and ``Any`` (JSON as it is), a nested
dataclass (a JSON object), and the engine's :data:`~kc_tui.engine.Card` and
:data:`~kc_tui.engine.Move` (ints marked ``"card"`` and ``"move"``), written in their notation
("7H", "play 7H N"). ``Annotated[int, Range(low, high)]`` bounds an integer, and
``Annotated[X, Says("...")]`` is the one line a bad value of that field gets.

Reading is strict (the server reading a client: a field it does not know is refused, every string
at most ``longest`` characters) or tolerant (the client reading a server: a field it does not know
is skipped, a newer server's addition). Either way a missing field with a default takes it, types
are exact (no bool for an int, no float), and a value the dataclass's ``__post_init__`` refuses
(ValueError) is refused. Every failure is a :class:`WireError` of one plain line. Plain Python.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

from kc_tui.engine import CardError, MoveError, card_str, move_str, parse_card, parse_move

#: A dataclass field that is worked out by its reader, not sent (``field(metadata=LOCAL)``).
LOCAL: dict[str, Any] = {"wire": False}
#: The marks of the engine's card and move ints (``Annotated[int, "card"]``).
CARD = "card"
MOVE = "move"


@dataclass(frozen=True, slots=True)
class Range:
    """An integer field's bounds, both included."""

    low: int
    high: int


@dataclass(frozen=True, slots=True)
class Says:
    """The one line a bad value of the field it marks gets (instead of the generic one)."""

    text: str


class WireError(ValueError):
    """A value that does not fit its declaration: ``message`` is one plain line."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


Encode = Callable[[Any], Any]
Decode = Callable[[Any, str], Any]


def _same(value: Any) -> Any:
    return value


def _is_dataclass_type(hint: Any) -> bool:
    return isinstance(hint, type) and dataclasses.is_dataclass(hint)


_FIELDS: dict[type[Any], tuple[tuple[str, Any, bool], ...]] = {}
_ENCODERS: dict[Any, Encode] = {}
_DECODERS: dict[tuple[Any, ...], Decode] = {}


def wire_fields(cls: type[Any]) -> tuple[tuple[str, Any, bool], ...]:
    """The fields ``cls`` takes on the wire: each one's name, type hint and whether it has a default."""
    known = _FIELDS.get(cls)
    if known is None:
        known = _FIELDS[cls] = _wire_fields(cls)
    return known


def _wire_fields(cls: type[Any]) -> tuple[tuple[str, Any, bool], ...]:
    hints = get_type_hints(cls, include_extras=True)
    return tuple(
        (
            f.name,
            hints[f.name],
            f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING,
        )
        for f in dataclasses.fields(cls)
        if f.metadata.get("wire", True)
    )


def _parts(hint: Any) -> tuple[Any, tuple[Any, ...]]:
    """``hint`` without its ``Annotated`` marks, and the marks."""
    marks: tuple[Any, ...] = ()
    while get_origin(hint) is Annotated:
        args = get_args(hint)
        hint, marks = args[0], marks + tuple(args[1:])
    return hint, marks


def _union_args(hint: Any) -> tuple[Any, ...] | None:
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        return get_args(hint)
    return None


# ---------------------------------------------------------------------- writing
def encoder(hint: Any) -> Encode:
    """The function that writes a value of type ``hint`` as JSON data."""
    code = _ENCODERS.get(hint)
    if code is None:
        code = _ENCODERS[hint] = _encoder(hint)
    return code


def _encoder(hint: Any) -> Encode:
    inner, marks = _parts(hint)
    if CARD in marks:
        return card_str
    if MOVE in marks:
        return move_str
    if _is_dataclass_type(inner):
        return _object_encoder(inner)
    arms = _union_args(inner)
    if arms is not None:
        coders = [(arm, encoder(arm)) for arm in arms if arm is not type(None)]
        if all(code is _same for _arm, code in coders):
            return _same
        if len(coders) == 1:
            only = coders[0][1]
            return lambda v: None if v is None else only(v)
        return lambda v: None if v is None else _pick(coders, v)(v)
    origin = get_origin(inner)
    if origin is tuple:
        args = get_args(inner)
        if len(args) == 2 and args[1] is Ellipsis:
            item = encoder(args[0])
            if item is _same:
                return list
            return lambda v: [item(x) for x in v]
        items = [encoder(a) for a in args]
        return lambda v: [code(x) for code, x in zip(items, v, strict=True)]
    return _same


def _pick(coders: list[tuple[Any, Encode]], value: Any) -> Encode:
    for arm, code in coders:
        if isinstance(value, get_origin(_parts(arm)[0]) or _parts(arm)[0]):
            return code
    return _same


def _object_encoder(cls: type[Any]) -> Encode:
    """The writer of a ``cls``: made as one function of its fields (as :mod:`dataclasses` makes
    ``__init__``), each value written by its type's encoder, a plain one read as it is."""
    coders: dict[str, Encode] = {}
    parts: list[str] = []
    for name, hint, _default in wire_fields(cls):
        code = encoder(hint)
        if code is _same:
            parts.append(f"{name!r}: v.{name}")
        else:
            coders[f"_{name}"] = code
            parts.append(f"{name!r}: _{name}(v.{name})")
    source = f"def encode(v):\n    return {{{', '.join(parts)}}}\n"
    space: dict[str, Any] = dict(coders)
    exec(source, space)  # the source holds nothing but the dataclass's own field names
    made: Encode = space["encode"]
    return made


def to_wire(value: Any) -> dict[str, Any]:
    """A dataclass ``value`` as a JSON object of its wire fields."""
    out: dict[str, Any] = encoder(type(value))(value)
    return out


# ---------------------------------------------------------------------- reading
def _fail(marks: tuple[Any, ...], line: str) -> WireError:
    says = next((m.text for m in marks if isinstance(m, Says)), None)
    return WireError(says or line)


def decoder(hint: Any, strict: bool, longest: int | None) -> Decode:
    """The function that reads JSON data as a value of type ``hint`` (its second argument the
    value's name in messages), raising :class:`WireError`. ``strict``: a field an object does not
    declare is refused (else skipped); ``longest``: the most characters a string may have."""
    key = (hint, strict, longest)
    code = _DECODERS.get(key)
    if code is None:
        code = _DECODERS[key] = _decoder(hint, strict, longest)
    return code


def _decoder(hint: Any, strict: bool, longest: int | None) -> Decode:
    inner, marks = _parts(hint)
    if CARD in marks:
        return _card_decoder(marks)
    if MOVE in marks:
        return _move_decoder(marks)
    if _is_dataclass_type(inner):
        return object_decoder(inner, strict, longest)
    arms = _union_args(inner)
    if arms is not None:
        return _union_decoder(arms, marks, strict, longest)
    if inner is bool:
        return _bool_decoder(marks)
    if inner is int:
        return _int_decoder(marks)
    if inner is str:
        return _str_decoder(marks, longest)
    if inner is type(None):

        def none(value: Any, name: str) -> None:
            if value is not None:
                raise _fail(marks, f"{name} is not null")

        return none
    origin = get_origin(inner)
    if origin is tuple:
        return _tuple_decoder(get_args(inner), marks, strict, longest)
    if origin is dict or inner is dict:

        def mapping(value: Any, name: str) -> dict[str, Any]:
            if not isinstance(value, dict):
                raise _fail(marks, f"{name} is not an object")
            return value

        return mapping
    if inner is Any or inner is typing.Any:
        return lambda value, name: value
    raise TypeError(f"no wire form for {hint!r}")  # pragma: no cover - a declaration's mistake


def _int_decoder(marks: tuple[Any, ...]) -> Decode:
    bounds = next((m for m in marks if isinstance(m, Range)), None)

    def integer(value: Any, name: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise _fail(marks, f"{name} is not an integer")
        if bounds is not None and not bounds.low <= value <= bounds.high:
            raise _fail(marks, f"{name} is an integer from {bounds.low} to {bounds.high}")
        return value

    return integer


def _bool_decoder(marks: tuple[Any, ...]) -> Decode:
    def flag(value: Any, name: str) -> bool:
        if not isinstance(value, bool):
            raise _fail(marks, f"{name} is not true or false")
        return value

    return flag


def _str_decoder(marks: tuple[Any, ...], longest: int | None) -> Decode:
    def text(value: Any, name: str) -> str:
        if not isinstance(value, str):
            raise _fail(marks, f"{name} is not text")
        if longest is not None and len(value) > longest:
            raise WireError(f"the field {name} is longer than {longest} characters")
        return value

    return text


def _card_decoder(marks: tuple[Any, ...]) -> Decode:
    def card(value: Any, name: str) -> int:
        if not isinstance(value, str):
            raise _fail(marks, f"{name} holds a card that is not text")
        try:
            return parse_card(value)
        except CardError:
            raise _fail(marks, f"{name} holds {value[:10]!r}, which is not a card") from None

    return card


def _move_decoder(marks: tuple[Any, ...]) -> Decode:
    def move(value: Any, name: str) -> int:
        if not isinstance(value, str):
            raise _fail(marks, f"{name} is text, e.g. 'play 7H N', 'move N E' or 'end'")
        try:
            return parse_move(value)
        except MoveError as exc:
            raise WireError(f"cannot read {name}: {str(exc)[:120]}") from None

    return move


def _union_decoder(arms: tuple[Any, ...], marks: tuple[Any, ...], strict: bool, longest: int | None) -> Decode:
    optional = type(None) in arms
    rest = [decoder(arm, strict, longest) for arm in arms if arm is not type(None)]

    def union(value: Any, name: str) -> Any:
        if value is None and optional:
            return None
        problem = WireError(f"{name} is null")
        for code in rest:
            try:
                return code(value, name)
            except WireError as exc:
                problem = exc
        raise _fail(marks, problem.message)

    return union


def _tuple_decoder(args: tuple[Any, ...], marks: tuple[Any, ...], strict: bool, longest: int | None) -> Decode:
    if len(args) == 2 and args[1] is Ellipsis:
        item = decoder(args[0], strict, longest)

        def many(value: Any, name: str) -> tuple[Any, ...]:
            if not isinstance(value, list):
                raise _fail(marks, f"{name} is not a list")
            return tuple(item(x, name) for x in value)

        return many
    items = [decoder(a, strict, longest) for a in args]

    def fixed(value: Any, name: str) -> tuple[Any, ...]:
        if not isinstance(value, list) or len(value) != len(items):
            raise _fail(marks, f"{name} holds something that is not a list of {len(items)}")
        return tuple(code(x, name) for code, x in zip(items, value, strict=True))

    return fixed


def object_decoder(cls: type[Any], strict: bool, longest: int | None, skip: frozenset[str] = frozenset()) -> Decode:
    """The reader of a JSON object as a ``cls`` (see :func:`decoder`; the keys in ``skip`` are the
    envelope's, read elsewhere)."""
    key = (cls, strict, longest, skip)
    code = _DECODERS.get(key)
    if code is None:
        code = _DECODERS[key] = _object_decoder(cls, strict, longest, skip)
    return code


def _object_decoder(cls: type[Any], strict: bool, longest: int | None, skip: frozenset[str]) -> Decode:
    plan = [(name, decoder(hint, strict, longest), default) for name, hint, default in wire_fields(cls)]
    known = {name for name, _code, _default in plan} | skip

    def read(value: Any, name: str) -> Any:
        if not isinstance(value, dict):
            raise WireError(f"{name} is not an object")
        if strict:
            for key in value:
                if key not in known:
                    raise WireError(f"{name} has no field {str(key)[:40]!r}")
        kwargs: dict[str, Any] = {}
        for key, code, default in plan:
            if key in value:
                kwargs[key] = code(value[key], f"'{key}'" if skip else f"{name[:-1]}.{key}'")
            elif not default:
                raise WireError(f"{name} needs the field {key!r}")
        try:
            return cls(**kwargs)
        except ValueError as exc:
            raise WireError(str(exc)[:200]) from None

    return read


__all__ = [
    "CARD",
    "LOCAL",
    "MOVE",
    "Range",
    "Says",
    "WireError",
    "decoder",
    "encoder",
    "object_decoder",
    "to_wire",
    "wire_fields",
]
