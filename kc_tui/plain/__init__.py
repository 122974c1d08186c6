"""The plain mode: the game as lines of text, for a screen reader, a braille display, a pipe or
a dumb terminal (``kings-corners play --plain``).

No boxes and no redraws: one line a thing, in the player's language. What happened is told as it
happens; at the player's turn their hand, the table and the numbered legal moves; a move is
typed by its number or as it is said (``7h north``, ``move east to north``, ``end``). It reads
the same view of the table as the screens (:class:`kc_tui.match.view.TableSnapshot`) and plays
through the same table driver or remote seat. Plain Python: no Textual, no Rich.

* :mod:`kc_tui.plain.lines`: where the mode writes and reads (:class:`Lines`: every line
  printable, wrapped to the width, never an escape sequence).
* :mod:`kc_tui.plain.telling`: a view told in sentences (:class:`Teller`: what changed since the
  last view, the hand, the table, the moves, the scores).
* :mod:`kc_tui.plain.reading`: a typed line read as a move or a command (:func:`read_input`).
* :mod:`kc_tui.plain.local`: a table of this machine (play, demo, hot-seat, tutorial).
* :mod:`kc_tui.plain.remote`: a remote seat (join) and a server's lobby (online).
"""
