"""Learn to play: a guided first game. Plain Python (no Textual, no Rich): the lessons and their
steps (:mod:`kc_tui.learn.lessons`), a lesson's run as the coach checks it
(:mod:`kc_tui.learn.coach`), and how far the player got (:mod:`kc_tui.learn.progress`). The UI's
tutorial screen (:mod:`kc_tui.ui.screens.tutorial`) is a table over them."""
