"""Plain helpers every layer above the engine may use: text made printable, files read and
written safely. They import nothing of ours."""
