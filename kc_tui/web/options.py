"""The checks of ``kings-corners serve``'s command line: the port, the tables a tab may join, and
whether an address is this machine's only. Plain Python, cheap to import (the command line's parser uses it)."""

from __future__ import annotations

import argparse

from kc_tui.i18n import _
from kc_tui.net.allowlist import Endpoint, parse_endpoint

DEFAULT_BIND = "127.0.0.1"
DEFAULT_PORT = 8000
PORT_MAX = 65535


def port_arg(text: str) -> int:
    """A ``--port`` value: a whole number from 1 to 65535."""
    t = text.strip()
    if not t.isascii() or not t.isdigit() or len(t) > 5 or not 1 <= int(t) <= PORT_MAX:
        shown = repr(text[:20] + ("..." if len(text) > 20 else ""))
        raise argparse.ArgumentTypeError(
            _("the port must be a whole number from 1 to {most}, not {value}").format(most=PORT_MAX, value=shown)
        )
    return int(t)


def allow_join_arg(text: str) -> Endpoint:
    """An ``--allow-join`` value: ``HOST:PORT`` (:func:`kc_tui.net.allowlist.parse_endpoint`)."""
    try:
        return parse_endpoint(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def is_loopback(bind: str) -> bool:
    """Whether ``bind`` is an address of this machine only (127.0.0.0/8, ::1, ``localhost``)."""
    if bind.lower() == "localhost":
        return True
    import ipaddress  # loaded by the serve command only, not by every start of the command line

    try:
        return ipaddress.ip_address(bind.removeprefix("[").removesuffix("]")).is_loopback
    except ValueError:
        return False


def exposed_warning(bind: str, port: int) -> str:
    """The one-line warning of a server that other machines can reach."""
    return _(
        "warning: serving on {bind}, not on this machine only: anyone who can reach port {port} "
        "can open tabs (an app process each) on this machine"
    ).format(bind=bind, port=port)


__all__ = ["DEFAULT_BIND", "DEFAULT_PORT", "allow_join_arg", "exposed_warning", "is_loopback", "port_arg"]
