"""The commands of tables past one machine (kc_tui.net.cluster): ``store init`` (make or migrate
the store of the tables), ``worker`` (claims tables and serves them) and ``gateway`` (the door:
a client's socket carried to its table's worker). Their modules, and Redis's and PostgreSQL's
client libraries (the ``cluster`` extra), are loaded only when one of them runs."""

from __future__ import annotations

import argparse
import contextlib
import sys

from kc_tui.cli.common import Parser
from kc_tui.config.args import CliError, seats_help, target_help
from kc_tui.engine.rules import rules_help
from kc_tui.i18n import _
from kc_tui.util.printable import one_line, write_line

#: The port a gateway listens on by default (a worker's default is any free port: it is found
#: through Redis).
GATEWAY_PORT = "8765"


def _say(line: str) -> None:
    """One line for whoever runs the command (its status: tests and scripts read it)."""
    with contextlib.suppress(OSError, ValueError):
        write_line(sys.stdout, line)
        sys.stdout.flush()


def _store_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--store",
        required=True,
        # Translators: a word shown in --help for an address the user types.
        metavar=_("URL"),
        help=_("the store of the tables: postgresql://USER@HOST/DB, or an SQLite file (sqlite:///PATH or its path)"),
    )


def _redis_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--redis", required=True, metavar=_("URL"), help=_("the Redis of the cluster: redis://HOST:PORT/DB"))


def _listen_args(p: argparse.ArgumentParser, port_help: str) -> None:
    p.add_argument(
        "--bind",
        metavar=_("BIND"),
        help=_("the address to listen on (default 127.0.0.1: this machine only)"),
    )
    p.add_argument("--port", metavar=_("PORT"), help=port_help)


def add_cluster_parsers(sub: argparse._SubParsersAction[Parser]) -> None:
    """``store init``, ``worker`` and ``gateway``."""
    store = sub.add_parser("store", help=_("the store of the tables of workers (PostgreSQL or an SQLite file)"))
    actions = store.add_subparsers(dest="store_command", metavar=_("ACTION"), required=True)
    init = actions.add_parser("init", help=_("make the store's tables, or bring them to this version"))
    _store_arg(init)
    init.set_defaults(func=cmd_store_init)

    table = actions.add_parser(
        "table", help=_("a new table in the store (a worker serves it): one join command is printed per person's seat")
    )
    _store_arg(table)
    table.help_later(table.add_argument("--seats", required=True), seats_help)
    table.add_argument(
        "--rules",
        nargs="*",
        default=[],
        metavar=_("KEY=VALUE"),
        # Translators: {rules} lists the rule variants (key=value); draw=end is typed as it is.
        help=_("rule variants, e.g. draw=end: {rules}").format(rules=rules_help(offered=True)),
    )
    table.add_argument("--target", metavar=_("TARGET"), type=int, help=target_help())
    table.add_argument("--turn-seconds", metavar=_("SECONDS"), help=_("the turn clock in seconds (default 0: none)"))
    table.add_argument(
        "--gateway",
        metavar=_("URL"),
        default=f"ws://127.0.0.1:{GATEWAY_PORT}",
        help=_("the gateway's address the seats' addresses start with (default {url})").format(
            url=f"ws://127.0.0.1:{GATEWAY_PORT}"
        ),
    )
    table.set_defaults(func=cmd_store_table)

    worker = sub.add_parser("worker", help=_("claim tables from the store and serve them (behind a gateway)"))
    _store_arg(worker)
    _redis_arg(worker)
    _listen_args(worker, _("the port to listen on, 0 to 65535 (default 0: any free port)"))
    worker.add_argument(
        "--id",
        metavar=_("NAME"),
        help=_("the worker's name in Redis: letters, digits, '.', '_' and '-' (default: the machine, the process)"),
    )
    worker.add_argument(
        "--advertise",
        metavar=_("HOST"),
        help=_("the host the gateways reach this worker at (default: the address it listens on)"),
    )
    worker.set_defaults(func=cmd_worker)

    gateway = sub.add_parser("gateway", help=_("carry the clients' sockets to their tables' workers (one port)"))
    _redis_arg(gateway)
    _listen_args(gateway, _("the port to listen on, 0 to 65535 (default {port})").format(port=GATEWAY_PORT))
    gateway.set_defaults(func=cmd_gateway)


def cmd_store_init(args: argparse.Namespace) -> int:
    from kc_tui.net.cluster.tables import open_checked, shown_url, store_problem
    from kc_tui.net.store.tablestore import StoreError

    store = open_checked(args.store)
    try:
        store.init()
    except StoreError as exc:
        raise store_problem(args.store, exc) from None
    finally:
        store.close()
    # Translators: {url} is the store's address (its password hidden).
    _say(_("the store at {url} is ready").format(url=shown_url(args.store)))
    return 0


def cmd_store_table(args: argparse.Namespace) -> int:
    """A new table in the store, its seats' join commands printed (the only copies of their
    tokens: the store keeps their hashes)."""
    from kc_tui.net.client import AddressError, table_address
    from kc_tui.net.cluster.tables import TURN_SECONDS, new_table, open_checked, store_problem
    from kc_tui.net.host_options import HostRequest, options_from
    from kc_tui.net.hosting import join_lines
    from kc_tui.net.store.tablestore import StoreError

    options = options_from(
        HostRequest(
            seats=args.seats,
            rules=tuple(str(r) for r in args.rules or ()),
            target=args.target,
            turn_seconds=args.turn_seconds,
        )
    )
    gateway = str(args.gateway).strip().rstrip("/")
    try:
        if not gateway.isprintable():
            raise AddressError(gateway)
        table_address(f"{gateway}/watch")
    except AddressError:
        raise CliError(
            # Translators: {url} is what was given as the gateway's address.
            _("--gateway is a gateway's address, ws://HOST:PORT: not {url}").format(url=one_line(gateway, 120))
        ) from None
    assert options.rules is not None
    store = open_checked(args.store)
    try:
        table, tokens = new_table(store, options.seats, options.rules, record={TURN_SECONDS: int(options.turn_seconds)})
    except StoreError as exc:
        raise store_problem(args.store, exc) from None
    finally:
        store.close()
    for line in join_lines([seat.name for seat in options.seats], tokens, f"{gateway}/t/{table}"):
        _say(line)
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    from kc_tui.net.host_options import _bind, _port

    bind = _bind(args.bind)
    port = _port(args.port)
    worker_id = args.id
    try:
        from kc_tui.net.cluster.worker import WORKER_ID, serve_worker
    except ImportError:
        raise CliError(_missing()) from None
    if worker_id is not None and not WORKER_ID.fullmatch(worker_id):
        raise CliError(
            _("--id must be 1 to 64 letters, digits, '.', '_' or '-', not {value}").format(
                value=one_line(repr(worker_id[:40]))
            )
        )
    advertise = args.advertise
    if advertise is not None:
        try:
            _bind(advertise)  # a host name or an address, as --bind takes
        except CliError:
            raise CliError(
                # Translators: {value} is what was given (quoted).
                _("--advertise must be a host name or an address, not {value}").format(
                    value=one_line(repr(advertise[:40]))
                )
            ) from None
    return serve_worker(
        args.store,
        args.redis,
        bind=bind,
        port=0 if port is None else port,
        worker_id=worker_id,
        advertise=advertise,
        status=_say,
    )


def cmd_gateway(args: argparse.Namespace) -> int:
    from kc_tui.net.host_options import _bind, _port

    bind = _bind(args.bind)
    port = _port(args.port)
    try:
        import redis  # noqa: F401

        from kc_tui.net.cluster.gateway import serve_gateway
    except ImportError:
        raise CliError(_missing()) from None
    return serve_gateway(args.redis, bind=bind, port=int(GATEWAY_PORT) if port is None else port, status=_say)


def _missing() -> str:
    from kc_tui.net.cluster.tables import cluster_missing_text

    return cluster_missing_text()


__all__ = ["GATEWAY_PORT", "add_cluster_parsers", "cmd_gateway", "cmd_store_init", "cmd_worker"]
