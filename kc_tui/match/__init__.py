"""A match at the table: the session (turns, undo, the answers the UI asks for), the table driver
that runs its turns, the seats and their players, the move log's words and cards as text, the
save file, the recorder that writes finished rounds to the history, and the replay of a recorded
match."""
