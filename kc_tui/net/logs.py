"""The network table's log lines without seat tokens: a token is a seat's secret, and the
websockets library's debug lines show each request's path (the server's and the client's)."""

from __future__ import annotations

import logging
import re
from typing import Any

_SEAT_IN_TEXT = re.compile(r"/seat/[^\s\"'<>]+")


def redact(text: str) -> str:
    """``text`` with every seat path's token replaced: ``/seat/<token>``."""
    return _SEAT_IN_TEXT.sub("/seat/<token>", text)


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
