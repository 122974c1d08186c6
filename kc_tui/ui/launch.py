"""Start the app in a mode chosen on the command line ('menu', 'play' or 'demo')."""

from __future__ import annotations

import argparse
import dataclasses

from kc_tui.args import CliError, check_target, parse_kinds
from kc_tui.config import Config, Opponent, config_path, load_config
from kc_tui.session import default_name


def build_app(mode: str, args: argparse.Namespace) -> object:
    """The app for ``mode`` and the parsed command line (CliError for bad values)."""
    from kc_tui.ui.app import KingsCornersApp, StartOptions

    path = config_path(getattr(args, "config", None))
    config, warning = load_config(path)
    options = StartOptions(seed=getattr(args, "seed", None), warnings=[warning] if warning else [])
    target = getattr(args, "target", None)
    check_target(target)
    if target is not None:
        config = config.with_(rules=dataclasses.replace(config.rules, target=target))
    if mode == "play" and getattr(args, "opponents", None):
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
            options.seats = parse_kinds(args.seats, "seats", 2, 4)
        options.pace = getattr(args, "pace", None)
    return KingsCornersApp(config, path, mode, options)


def launch(mode: str, args: argparse.Namespace) -> int:
    app = build_app(mode, args)
    from kc_tui.ui.app import KingsCornersApp

    assert isinstance(app, KingsCornersApp)
    app.run()
    code = app.return_code
    return int(code or 0)


__all__ = ["CliError", "Config", "build_app", "check_target", "launch", "parse_kinds"]
