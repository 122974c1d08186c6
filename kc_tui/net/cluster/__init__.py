"""Tables past one machine: workers that own tables, gateways that carry the clients' sockets to
them, the truth in PostgreSQL (or an SQLite file on one machine), leases and routes in Redis.

- the store of the tables is :mod:`kc_tui.net.store` (its interface, SQLite, the history);
  :mod:`.pg_store` is its PostgreSQL kind and :mod:`.opening` opens either by its address. Every
  write of a table's row is fenced by the table's epoch in the store itself.
- :mod:`.coord`: what may be lost and rebuilt, in Redis: the workers' leases, the route of every
  table to its owner, the tables' listings, the routes' changes told by pub/sub; and the reaper
  that finds the tables whose owner's lease lapsed and claims them.
- :mod:`.worker`: ``kings-corners worker``: claims tables, serves them, fences itself.
- :mod:`.gateway`: ``kings-corners gateway``: the door; a client's socket proxied to its table's
  owner, and :mod:`.lobby_view`, the cluster's public tables to browse and watch.

Plain Python and asyncio (no Textual, no Rich). ``redis`` and ``psycopg`` are imported only here
(the ``cluster`` extra): the one-process ``server`` needs neither.
"""
