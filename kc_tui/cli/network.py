"""The network commands: ``host`` (a table for people on other machines), ``join`` (a seat at
one), ``server`` (a lobby and many tables) and ``serve`` (the app in a browser)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from kc_tui.cli.common import MAX_LINE, PLAIN_HELP, PROG, SEED_HELP, Parser, seed_arg, show_path
from kc_tui.config.args import CliError, seats_help, target_help
from kc_tui.i18n import _
from kc_tui.util.printable import one_line, write_line

if TYPE_CHECKING:
    from kc_tui.config import Config
    from kc_tui.plain.lines import Lines


# ---------------------------------------------------------------------------- serve
def add_serve_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    """``kings-corners serve``: the app in a browser, one app process per tab (kc_tui.web)."""
    p = sub.add_parser(
        "serve",
        help=_("serve the app to web browsers (each tab its own app, settings and saves)"),
        description=_(
            "Serve the app to web browsers: each tab runs its own app on this machine. A tab's"
            " 'Join a table' connects from this machine, so it is offered only with --allow-join, and joins"
            " only the tables listed there."
        ),
    )
    p.later(_serve_arguments)
    p.set_defaults(func=cmd_serve)


def _serve_arguments(p: argparse.ArgumentParser) -> None:
    """``serve``'s options, added when it is parsed or its help shown (their checks load the web's
    modules: a command that is not ``serve`` starts without them)."""
    from kc_tui.web.options import DEFAULT_BIND, DEFAULT_PORT, allow_join_arg, port_arg

    p.add_argument(
        "--bind",
        default=DEFAULT_BIND,
        # Translators: a word shown in --help for a network address the user types.
        metavar=_("ADDRESS"),
        # Translators: {bind} is an address (127.0.0.1).
        help=_("the address to listen on (default: {bind}, this machine only; any other prints a warning)").format(
            bind=DEFAULT_BIND
        ),
    )
    p.add_argument(
        "--port",
        metavar=_("PORT"),
        type=port_arg,
        default=DEFAULT_PORT,
        help=_("the port (default: {port})").format(port=DEFAULT_PORT),
    )
    p.add_argument(
        "--root",
        # Translators: a word shown in --help for a folder's name the user types.
        metavar=_("DIR"),
        help=_("the folder that holds each tab's private folder (default: web-tabs in the data folder)"),
    )
    p.add_argument(
        "--allow-join",
        action="append",
        type=allow_join_arg,
        # Translators: words shown in --help for a machine and its port, as the user types them.
        metavar=_("HOST:PORT"),
        help=_(
            "let the tabs join the table a 'host' serves at HOST:PORT (repeatable; the host and port"
            " compared exactly, no name looked up; IPv6 as [::1]:8765). Without it a tab joins no table"
        ),
    )
    p.add_argument(
        "--online",
        metavar=_("URL"),
        help=_(
            "open every tab at the lobby of the 'kings-corners server' at URL (ws://HOST:PORT): its tables"
            " may be joined (HOST:PORT is allowed as --allow-join allows it)"
        ),
    )


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the app to browsers until Ctrl+C. Each tab's app has a private folder under the root
    (its settings, save and history), removed when the tab's app ends (kc_tui.web.folders)."""
    from kc_tui.net.allowlist import MAX_TABLES
    from kc_tui.web.folders import RootError, default_root, ready_root

    tables = tuple(dict.fromkeys(args.allow_join or ()))
    online = None
    if args.online is not None:
        from kc_tui.net.client import AddressError, destination
        from kc_tui.net.lobby_client import lobby_address

        try:
            online = lobby_address(args.online)
            tables = tuple(dict.fromkeys((*tables, destination(online))))
        except AddressError as exc:
            raise CliError(_("--online: {problem}").format(problem=exc)) from None
    if len(tables) > MAX_TABLES:
        raise CliError(_("--allow-join: at most {most} tables, not {count}").format(most=MAX_TABLES, count=len(tables)))
    try:
        root = ready_root(args.root if args.root is not None else default_root())
    except RootError as exc:
        raise CliError(str(exc)) from None
    from kc_tui.web.site import ServeError, serve

    def say(line: str) -> None:
        write_line(sys.stdout, one_line(line, MAX_LINE))

    def warn(line: str) -> None:
        write_line(sys.stderr, _("{prog}: {message}").format(prog=PROG, message=one_line(line, MAX_LINE)))

    try:
        serve(root, args.bind, args.port, say, warn, tables, online)
    except ServeError as exc:
        raise CliError(str(exc)) from None
    return 0


# ---------------------------------------------------------------------------- host
def add_host_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    """``host``: serve one table to people on other machines (docs/PROTOCOL.md)."""
    from kc_tui.engine.rules import rules_help

    p = sub.add_parser("host", help=_("serve a table to people on other machines ('join' sits at it)"))
    p.help_later(
        p.add_argument("--seats"),
        # Translators: {seats} is the help of --seats (which kinds of player may sit).
        lambda: _("{seats}; one join command is printed per person's seat").format(seats=seats_help()),
    )
    p.add_argument(
        "--rules",
        nargs="*",
        default=[],
        # Translators: words shown in --help for a rule's name and its value, as the user types them.
        metavar=_("KEY=VALUE"),
        # Translators: {rules} lists the rule variants (key=value); draw=end is typed as it is.
        help=_("rule variants, e.g. draw=end: {rules}").format(rules=rules_help(offered=True)),
    )
    p.add_argument("--target", metavar=_("TARGET"), type=int, help=target_help())
    p.add_argument("--seed", metavar=_("SEED"), type=seed_arg, help=_(SEED_HELP))
    p.add_argument(
        "--bind",
        metavar=_("BIND"),
        help=_("the address to listen on (default 127.0.0.1: this machine only; share it with an SSH tunnel)"),
    )
    p.add_argument(
        "--port", metavar=_("PORT"), help=_("the port to listen on, 0 to 65535 (default 8765; 0: any free port)")
    )
    p.add_argument("--resume", action="store_true", help=_("serve the saved hosted table again: same port, same seats"))
    p.add_argument(
        "--replace",
        action="store_true",
        help=_(
            "start a new table over an unfinished hosted one, kept aside as hosted.json.replaced (else host refuses)"
        ),
    )
    p.add_argument(
        "--stand-in",
        # Translators: a word shown in --help for a number of seconds the user types.
        metavar=_("SECONDS"),
        help=_("seconds an away person's seat waits before an AI plays it (default 60; 0: never)"),
    )
    p.help_later(p.add_argument("--turn-seconds", metavar=_("SECONDS")), _turn_seconds_help)
    p.add_argument(
        "--addresses",
        metavar=_("DIR"),
        help=_(
            "write each person's seat address into its own file in DIR (readable by you only; DIR is made"
            " 0700 if missing) instead of printing it: hand each person their file, they run join --file FILE"
        ),
    )
    p.add_argument("--cert", metavar=_("FILE"), help=_("TLS certificate (PEM) to serve wss:// (with --key)"))
    p.add_argument("--key", metavar=_("FILE"), help=_("the certificate's private key (PEM)"))
    p.add_argument("--config", metavar=_("FILE"), default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_host)


def _turn_seconds_help() -> str:
    from kc_tui.net.lobby_schema import CLOCK_WARNING, TIMEOUTS_FREE_SEAT

    # Translators: {warning} is a number of seconds (10), {turns} a number of turns (3).
    return _(
        "seconds a connected person has for each turn, warned {warning} s before its end; then an AI"
        " plays the rest of that turn, and {turns} such turns in a row free the seat (default 0: no clock)"
    ).format(warning=CLOCK_WARNING, turns=TIMEOUTS_FREE_SEAT)


def cmd_host(args: argparse.Namespace) -> int:
    from kc_tui.net.host_options import HostRequest
    from kc_tui.net.hosting import run

    return run(
        HostRequest(
            seats=args.seats,
            rules=tuple(str(r) for r in args.rules or ()),
            target=args.target,
            seed=args.seed,
            bind=args.bind,
            port=args.port,
            stand_in=args.stand_in,
            turn_seconds=args.turn_seconds,
            cert=args.cert,
            key=args.key,
            addresses=args.addresses,
            resume=args.resume,
            replace=args.replace,
            config=getattr(args, "config", None),
        )
    )


# ---------------------------------------------------------------------------- server
def add_server_parser(sub: argparse._SubParsersAction[Parser]) -> None:
    """``server``: the lobby and many tables on one port (docs/PROTOCOL.md, "The lobby")."""
    p = sub.add_parser(
        "server", help=_("serve a lobby and many tables on one port ('online' opens it; the data folder keeps them)")
    )
    p.add_argument(
        "--bind",
        metavar=_("BIND"),
        help=_("the address to listen on (default 127.0.0.1: this machine only; share it with an SSH tunnel)"),
    )
    p.add_argument(
        "--port", metavar=_("PORT"), help=_("the port to listen on, 0 to 65535 (default 8765; 0: any free port)")
    )
    p.add_argument("--cert", metavar=_("FILE"), help=_("TLS certificate (PEM) to serve wss:// (with --key)"))
    p.add_argument("--key", metavar=_("FILE"), help=_("the certificate's private key (PEM)"))
    p.add_argument(
        "--data",
        metavar=_("DIR"),
        help=_(
            "the data folder: its server.sqlite3 keeps the tables, the people and their ratings (default: the app's)"
        ),
    )
    count = _("N")
    p.add_argument("--max-tables", metavar=count, help=_("the tables open or played at once, at most (default 1000)"))
    p.add_argument(
        "--tables-per-person", metavar=count, help=_("the open tables one person has created, at most (default 3)")
    )
    p.add_argument("--max-sockets", metavar=count, help=_("the open connections, at most (default 1024)"))
    p.add_argument(
        "--sockets-per-address",
        metavar=count,
        help=_("the open connections from one address, at most (default 32; 0: no limit)"),
    )
    seconds = _("SECONDS")
    p.add_argument("--turn-seconds", metavar=seconds, help=_("quick play's turn time (default 60; 0: no clock)"))
    p.add_argument("--ai-delay", metavar=seconds, help=_("the pause before an AI's move (default 0.3)"))
    p.add_argument("--round-pause", metavar=seconds, help=_("how long a finished round stays shown (default 1.5)"))
    p.add_argument(
        "--durable",
        action="store_true",
        help=_("flush every move to the disk: not even a power cut loses one (slower: fewer tables)"),
    )
    p.set_defaults(func=cmd_server)


def cmd_server(args: argparse.Namespace) -> int:
    import os

    from kc_tui.config.store import ENV_DATA
    from kc_tui.net.serving import ServerRequest, run

    if args.data is not None:  # the log and the store follow the data folder given
        os.environ[ENV_DATA] = os.path.abspath(args.data)
    return run(
        ServerRequest(
            bind=args.bind,
            port=args.port,
            cert=args.cert,
            key=args.key,
            data=args.data,
            max_tables=args.max_tables,
            tables_per_person=args.tables_per_person,
            max_sockets=args.max_sockets,
            sockets_per_address=args.sockets_per_address,
            turn_seconds=args.turn_seconds,
            ai_delay=args.ai_delay,
            round_pause=args.round_pause,
            durable=args.durable,
        )
    )


# ---------------------------------------------------------------------------- the plain mode
def _plain_wanted(args: argparse.Namespace) -> bool:
    """The plain mode asked for: ``--plain``, or the setting ``plain``."""
    if args.plain:
        return True
    from kc_tui.config.store import config_path, load_config

    config, _warning = load_config(config_path(getattr(args, "config", None)))
    return config.plain


def _plain_start(args: argparse.Namespace) -> tuple[Lines, Config]:
    """The plain mode's lines (standard output and input) and the settings (a warning about
    them said first)."""
    from kc_tui.config.store import config_path, load_config
    from kc_tui.plain.lines import Lines

    lines = Lines(sys.stdout, sys.stdin)
    config, warning = load_config(config_path(getattr(args, "config", None)))
    if warning:
        lines.say(warning)
    return lines, config


def _run_plain(main: Coroutine[Any, Any, int]) -> int:
    """Run the plain mode's ``main`` to its end; Ctrl+C ends it quietly (exit 130)."""
    import asyncio

    try:
        return asyncio.run(main)
    except KeyboardInterrupt:
        return 130


# ---------------------------------------------------------------------------- join
def add_join_command(sub: argparse._SubParsersAction[Parser]) -> None:
    """``join (--file FILE | URL) [--watch]``: a seat (or a spectator's view) at a table ``host`` runs."""
    p = sub.add_parser("join", help=_("sit at a table another machine hosts (the address 'host' gave you)"))
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--file",
        metavar=_("FILE"),
        help=_(
            "read the seat's address from FILE (the file 'host --addresses' wrote; '-': paste it at the"
            " terminal): it stays out of the process list other users see"
        ),
    )
    where.add_argument(
        "url",
        # Translators: a word shown in --help for a web address the user types.
        metavar=_("URL"),
        nargs="?",
        help=_(
            "the seat's address, ws://HOST:PORT/seat/<token> (or .../watch); on the command line other"
            " users of this machine can read it in the process list and take the seat: prefer --file"
        ),
    )
    p.add_argument("--watch", action="store_true", help=_("watch the table: what is public, no hand"))
    p.add_argument("--plain", action="store_true", help=_(PLAIN_HELP))
    p.add_argument(
        "--cafile",
        metavar=_("FILE"),
        help=_("trust a wss:// server with this certificate (the host's --cert, self-signed)"),
    )
    p.add_argument("--config", metavar=_("FILE"), default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_join)


def cmd_join(args: argparse.Namespace) -> int:
    """The app on a remote seat; an address that cannot be joined is one line (exit 2)."""
    import ssl

    from kc_tui.net.client import AddressError, table_address, trusting

    if args.file is not None:
        from kc_tui.net.addresses import read_address

        url = read_address(args.file, watch=args.watch)
    elif args.url is None:
        raise CliError(_("join needs the seat's address: --file FILE (the file the host gave you) or the URL"))
    else:
        try:
            url = table_address(args.url, watch=args.watch)
        except AddressError as exc:
            raise CliError(str(exc)) from None
    if args.cafile is not None:
        if not url.startswith("wss://"):
            raise CliError(_("--cafile is for a wss:// address (a server with --cert and --key)"))
        try:
            trusting(args.cafile)
        except (OSError, ssl.SSLError) as exc:
            # Translators: {path} is the file's name, {error} the system's reason (in English).
            raise CliError(
                _("{path}: not a certificate file that can be read ({error})").format(
                    path=show_path(args.cafile), error=exc
                )
            ) from None
    if _plain_wanted(args):
        from kc_tui.plain.remote import join_table

        lines, config = _plain_start(args)
        return _run_plain(join_table(url, lines, config, cafile=args.cafile))
    from kc_tui.ui.app import KingsCornersApp
    from kc_tui.ui.launch import build_app, run

    app = build_app("join", args)
    assert isinstance(app, KingsCornersApp)
    app.options.join, app.options.join_cafile = url, args.cafile
    return run(app)


# ---------------------------------------------------------------------------- online
#: The longest wait quick play may be given before AIs fill the empty seats (lobby_schema's).
FILL_AFTER_MAX = 600


def fill_after_arg(text: str) -> int:
    """A ``--fill-after`` value: whole seconds from 0 to :data:`FILL_AFTER_MAX`."""
    t = text.strip()
    if not t.isascii() or not t.isdigit() or len(t) > 4 or int(t) > FILL_AFTER_MAX:
        shown = one_line(repr(text[:20] + ("..." if len(text) > 20 else "")), MAX_LINE)
        raise argparse.ArgumentTypeError(
            _("the wait must be whole seconds from 0 to {most}, not {value}").format(most=FILL_AFTER_MAX, value=shown)
        )
    return int(t)


def add_online_command(sub: argparse._SubParsersAction[Parser]) -> None:
    """``online [URL] [--name NAME] [--fill-after SECONDS] [--quick]``: a server's lobby."""
    p = sub.add_parser(
        "online", help=_("play online: a server's lobby (open tables, quick play, invites; 'server' runs one)")
    )
    p.add_argument(
        "url",
        metavar=_("URL"),
        nargs="?",
        help=_(
            "the server's address, ws://HOST:PORT (or wss://), or an invite link .../i/TABLE/SECRET"
            " (default: the server in Settings)"
        ),
    )
    p.add_argument("--name", metavar=_("NAME"), help=_("the name to play under (default: your name in Settings)"))
    p.add_argument(
        "--fill-after",
        metavar=_("SECONDS"),
        type=fill_after_arg,
        default=30,
        help=_("quick play: seconds before AIs fill the empty seats (default 30)"),
    )
    p.add_argument("--quick", action="store_true", help=_("quick play at once, at a table of your settings' rules"))
    p.add_argument("--plain", action="store_true", help=_(PLAIN_HELP))
    p.add_argument(
        "--cafile",
        metavar=_("FILE"),
        help=_("trust a wss:// server with this certificate (the server's --cert, self-signed)"),
    )
    p.add_argument("--config", metavar=_("FILE"), default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_online)


def online_address(url: str) -> str:
    """``url`` checked as a server's address or an invite link; CliError (one line) otherwise."""
    from kc_tui.net.client import AddressError
    from kc_tui.net.lobby_client import lobby_address, parse_invite

    invite = parse_invite(url)
    try:
        lobby_address(invite[0] if invite is not None else url)
    except AddressError as exc:
        raise CliError(str(exc)) from None
    return url.strip()


def cmd_online(args: argparse.Namespace) -> int:
    """The app (or the plain mode) at a server's lobby; an address, a name or a wait that cannot
    be used is one line (exit 2)."""
    name = args.name.strip() if args.name else None
    if _plain_wanted(args):
        from kc_tui.plain.remote_lobby import online

        lines, config = _plain_start(args)
        url = _online_url(args, config.server)
        lobby = online(url, lines, config, name=name, quick=args.quick, fill_after=args.fill_after, cafile=args.cafile)
        return _run_plain(lobby)
    from kc_tui.ui.app import KingsCornersApp
    from kc_tui.ui.launch import build_app, run

    app = build_app("online", args)
    assert isinstance(app, KingsCornersApp)
    url = _online_url(args, app.config.server)
    options = app.options
    options.online, options.online_name = url, name
    options.online_quick, options.online_fill_after, options.join_cafile = args.quick, args.fill_after, args.cafile
    return run(app)


def _online_url(args: argparse.Namespace, server: str) -> str:
    """The lobby's address ``online`` opens (the command line's, else the setting ``server``),
    its --name and --cafile checked; CliError (one line) for one that cannot be used."""
    from kc_tui.config import name_problem

    address = args.url or server
    if not address:
        raise CliError(
            _("online needs the server's address: kings-corners online ws://HOST:PORT (or set it in Settings)")
        )
    url = online_address(address)
    if args.name is not None:
        problem = name_problem(args.name.strip(), _("--name"))
        if problem is not None:
            raise CliError(problem)
    if args.cafile is not None:
        import ssl

        from kc_tui.net.client import trusting

        if not url.startswith("wss://"):
            raise CliError(_("--cafile is for a wss:// address (a server with --cert and --key)"))
        try:
            trusting(args.cafile)
        except (OSError, ssl.SSLError) as exc:
            raise CliError(
                _("{path}: not a certificate file that can be read ({error})").format(
                    path=show_path(args.cafile), error=exc
                )
            ) from None
    return url


__all__ = [
    "add_host_parser",
    "add_join_command",
    "add_online_command",
    "add_serve_parser",
    "add_server_parser",
    "cmd_host",
    "cmd_join",
    "cmd_online",
    "cmd_serve",
    "cmd_server",
    "online_address",
]
