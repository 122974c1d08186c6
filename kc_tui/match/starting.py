"""What a table started from the command line plays with: the settings file read, then the
command line's seats, opponents and target over them (``play``, ``demo``, ``tutorial``). The app
and the plain mode both start from it. Plain Python."""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from kc_tui.config import Config, Opponent
from kc_tui.config.args import CliError, check_target, parse_kinds, parse_seats
from kc_tui.config.store import config_path, load_config
from kc_tui.i18n import _
from kc_tui.match.roster import config_for_seats, default_name


@dataclass(slots=True)
class Start:
    """The settings a mode starts with, and what else the command line asked for."""

    config: Config
    #: The settings file (it may not exist).
    path: Path
    #: No settings file was there at the start.
    first_start: bool = False
    #: Why the settings file could not be used (one line), or None.
    warning: str | None = None
    seed: int | None = None
    #: The demo's seats (AI kinds; empty: the settings' opponents and greedy).
    demo_seats: list[str] = field(default_factory=list)
    pace: str | None = None


def start_settings(mode: str, args: argparse.Namespace) -> Start:
    """The settings ``mode`` starts with for the parsed command line ``args`` (CliError for a
    bad value): the settings file's, with ``--target``, ``--seats`` or ``--opponents`` over them."""
    path = config_path(getattr(args, "config", None))
    first_start = not path.exists() and not path.is_symlink()  # before a bad file is moved aside
    config, warning = load_config(path)
    start = Start(config, path, first_start, warning, getattr(args, "seed", None))
    target = getattr(args, "target", None)
    check_target(target)
    if target is not None:
        config = config.with_(rules=dataclasses.replace(config.rules, target=target))
    if mode == "play" and getattr(args, "seats", None):
        if getattr(args, "opponents", None):
            raise CliError(_("give --seats or --opponents, not both"))
        config = config_for_seats(config, parse_seats(args.seats, config.player_name))
    elif mode == "play" and getattr(args, "opponents", None):
        kinds = parse_kinds(args.opponents, "opponents", 1, 3)
        taken: list[str] = [config.player_name]
        ops = []
        for k in kinds:
            name = default_name(k, taken)
            taken.append(name)
            ops.append(Opponent(name, k, 1000))
        config = config.with_(opponents=tuple(ops))
    if mode == "demo":
        if getattr(args, "seats", None):
            start.demo_seats = [seat.kind for seat in parse_seats(args.seats, None)]
        start.pace = getattr(args, "pace", None)
    start.config = config
    return start


__all__ = ["Start", "start_settings"]
