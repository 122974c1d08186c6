"""The network's log lines without secrets: a seat's token and an invite's secret open a seat,
and the websockets library's debug lines show each request's path (the server's and the
client's): ``/seat/<token>`` (also below a table, ``/t/<table>/seat/<token>``) and
``/i/<table>/<secret>``."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

_SEAT_IN_TEXT = re.compile(r"/seat/[^\s\"'<>]+")
_INVITE_IN_TEXT = re.compile(r"/i/([^\s\"'<>/]+)/[^\s\"'<>]+")


def redact(text: str) -> str:
    """``text`` with every seat path's token and every invite path's secret replaced:
    ``/seat/<token>``, ``/i/<table>/<secret>``."""
    return _INVITE_IN_TEXT.sub(r"/i/\1/<secret>", _SEAT_IN_TEXT.sub("/seat/<token>", text))


def tell(logger: logging.Logger, status: Callable[[str], None] | None, line: str) -> None:
    """``line`` (one plain line of what happens at a table or a server) into ``logger``'s log
    and to ``status`` (the console's line), whose failing is logged, never raised."""
    logger.info("%s", line)
    if status is not None:
        try:
            status(line)
        except Exception:
            logger.exception("the status line could not be shown")


class TokenRedacting(logging.LoggerAdapter):  # type: ignore[type-arg]
    """The websockets library's log with the seat tokens taken out of every line (its debug
    lines show each request's path)."""

    def log(self, level: int, msg: object, *args: object, **kwargs: Any) -> None:
        if self.isEnabledFor(level):
            try:
                text = str(msg) % args if args else str(msg)
            except (TypeError, ValueError):
                text = " ".join(str(x) for x in (msg, *args))
            self.logger.log(level, "%s", redact(text), **kwargs)
