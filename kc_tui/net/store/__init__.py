"""The tables' store: every table's owner, epoch, seq, record, history (a snapshot each round and
the move rows after it) and its seats' token hashes, behind one interface
(:class:`.tablestore.TableStore`) over SQLite (:mod:`.sqlite_store`, the embedded default:
``kings-corners server`` and workers on one machine) and PostgreSQL
(:mod:`kc_tui.net.cluster.pg_store`). The statements both kinds run are :mod:`.sql`'s; a
history is written and replayed by :mod:`.history`.

It lies below the servers: it imports neither the one-process server nor the cluster, nor Redis
or PostgreSQL's clients. Plain Python.
"""
