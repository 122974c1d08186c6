"""``kings-corners host``'s arguments as typed (:class:`HostRequest`) and checked
(:class:`HostOptions`): the address and port, the stand-in's wait, the seats, the rules, TLS and
the seats' address folder. Every problem is one line (:class:`CliError`)."""

from __future__ import annotations

import ipaddress
import math
import ssl
from dataclasses import dataclass, replace
from pathlib import Path

from kc_tui.config import HUMAN, Config
from kc_tui.config.args import CliError, check_target, parse_seats
from kc_tui.engine import Rules, RulesError
from kc_tui.i18n import _
from kc_tui.match.roster import Seat, default_name
from kc_tui.net.lobby_schema import MAX_TURN_SECONDS
from kc_tui.util.printable import one_line

DEFAULT_BIND = "127.0.0.1"
DEFAULT_PORT = 8765
DEFAULT_STAND_IN = 60.0
STAND_IN_MAX = 86_400.0
#: The longest turn the clock may give (``--turn-seconds``; 0: no clock, the default).
TURN_SECONDS_MAX = MAX_TURN_SECONDS
#: The think time of the AIs at a hosted table and of a stand-in (milliseconds).
HOSTED_THINK_MS = 1000


@dataclass(frozen=True, slots=True)
class HostOptions:
    """The ``host`` command's arguments, checked."""

    bind: str
    port: int | None
    stand_in: float
    resume: bool
    seats: tuple[Seat, ...] = ()
    rules: Rules | None = None
    seed: int | None = None
    cert: str | None = None
    key: str | None = None
    #: The folder the seats' address files go into (``--addresses``); None: they are printed.
    addresses: Path | None = None
    #: Start a new table over an unfinished hosted one, which is kept aside (``--replace``).
    replace: bool = False
    #: Seconds a connected person has for a turn before an AI plays the rest of it (0: no clock).
    turn_seconds: float = 0.0


def is_loopback(bind: str) -> bool:
    if bind == "localhost":
        return True
    try:
        return ipaddress.ip_address(bind).is_loopback
    except ValueError:
        return False


def _port(text: str | None) -> int | None:
    if text is None:
        return None
    t = text.strip()
    if not t.isascii() or not t.isdigit() or len(t) > 5 or int(t) > 65535:
        # Translators: {value} is what was typed, quoted.
        raise CliError(
            _("--port must be a whole number from 0 to 65535, not {value}").format(value=one_line(repr(text[:20])))
        )
    return int(t)


def _stand_in(text: str | None) -> float:
    if text is None:
        return DEFAULT_STAND_IN
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not 0 <= value <= STAND_IN_MAX:
        raise CliError(
            _("--stand-in must be a number of seconds from 0 to {most}, not {value}").format(
                most=f"{STAND_IN_MAX:g}", value=one_line(repr(text[:20]))
            )
        )
    return value


def _turn_seconds(text: str | None) -> float:
    if text is None:
        return 0.0
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not 0 <= value <= TURN_SECONDS_MAX:
        raise CliError(
            # Translators: {value} is what was typed, quoted.
            _("--turn-seconds must be a number of seconds from 0 (no clock) to {most}, not {value}").format(
                most=TURN_SECONDS_MAX, value=one_line(repr(text[:20]))
            )
        )
    return value


def _bind(text: str | None) -> str:
    if text is None:
        return DEFAULT_BIND
    bind = text.strip()
    if (
        not bind
        or len(bind) > 253
        or not bind.isascii()
        or not bind.isprintable()
        or any(c.isspace() or c in "/[]" for c in bind)
    ):
        raise CliError(
            _("--bind must be an address to listen on (e.g. 127.0.0.1 or 0.0.0.0), not {value}").format(
                value=one_line(repr(text[:40]))
            )
        )
    return bind


@dataclass(frozen=True, slots=True)
class HostRequest:
    """What ``host`` was asked on its command line, as typed (checked by :func:`options_from`)."""

    seats: str | None = None
    rules: tuple[str, ...] = ()
    target: int | None = None
    seed: int | None = None
    bind: str | None = None
    port: str | None = None
    stand_in: str | None = None
    turn_seconds: str | None = None
    cert: str | None = None
    key: str | None = None
    addresses: str | None = None
    resume: bool = False
    replace: bool = False
    #: The settings file (``--config``); None: the usual one.
    config: str | None = None


def options_from(args: HostRequest, config: Config | None = None) -> HostOptions:
    """The checked options of ``host``; :class:`CliError` (one line) for the first bad one."""
    bind = _bind(args.bind) if args.bind is not None else None
    port = _port(args.port)
    stand_in = _stand_in(args.stand_in)
    turn_seconds = _turn_seconds(args.turn_seconds)
    if (args.cert is None) != (args.key is None):
        raise CliError(_("--cert and --key go together: the certificate and its private key"))
    folder = _addresses(args.addresses)
    if args.resume:
        given = [o for o, v in (("--seats", args.seats), ("--rules", args.rules), ("--target", args.target)) if v]
        if args.seed is not None:
            given.append("--seed")
        if args.replace:
            given.append("--replace")
        if given:
            # Translators: {options} are the options given (--seats, --seed), comma-separated.
            raise CliError(
                _("--resume serves the saved table as it was: drop {options}").format(options=", ".join(given))
            )
        return HostOptions(
            bind or "",
            port,
            stand_in,
            True,
            cert=args.cert,
            key=args.key,
            addresses=folder,
            turn_seconds=turn_seconds,
        )
    if not args.seats:
        raise CliError(_("host needs --seats, e.g. --seats human:Ana,human:Ben,expert (a person's seat is human:NAME)"))
    config = config or Config()
    specs = parse_seats(args.seats, config.player_name)
    check_target(args.target)
    try:
        rules = Rules.from_pairs(list(args.rules)) if args.rules else config.rules
    except RulesError as exc:
        raise CliError(_("--rules: {error}").format(error=exc)) from None
    if args.target is not None:
        rules = replace(rules, target=args.target)
    taken = [spec.name for spec in specs if spec.name is not None]
    ordered: list[Seat] = []
    for spec in specs:  # in the order given: the first seat deals first
        if spec.name is not None:
            ordered.append(Seat(spec.name, HUMAN))
        else:
            name = default_name(spec.kind, taken)
            taken.append(name)
            ordered.append(Seat(name, spec.kind, HOSTED_THINK_MS))
    return HostOptions(
        bind or DEFAULT_BIND,
        port,
        stand_in,
        False,
        tuple(ordered),
        rules,
        args.seed,
        args.cert,
        args.key,
        folder,
        args.replace,
        turn_seconds,
    )


def _addresses(text: str | None) -> Path | None:
    if text is None:
        return None
    from kc_tui.net.addresses import ready_folder

    return ready_folder(text)


def tls_context(cert: str | None, key: str | None) -> ssl.SSLContext | None:
    if cert is None or key is None:
        return None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CliError(_("cannot use --cert/--key: {reason}").format(reason=one_line(reason, 200))) from None
    return context


__all__ = [
    "DEFAULT_BIND",
    "DEFAULT_PORT",
    "HOSTED_THINK_MS",
    "HostOptions",
    "HostRequest",
    "is_loopback",
    "options_from",
    "tls_context",
]
