"""The network table: one table driver on a server, its seats on other machines (docs/PROTOCOL.md)."""
