"""A remote seat (``join``): its screen, its table, what it reads out of the server's state, its
dialogs. The app imports them when a table is joined, so start-up loads no network module."""
