"""The move log: lines shown before its width is known are wrapped once it is, the last line is
always in view, a log cut back (undo) is drawn again, and it never scrolls sideways."""

from __future__ import annotations

from textual.app import App, ComposeResult

from kc_tui.ui.widgets import MoveLog

LINES = [f"Player {i} played 9♦ on 10♣ at E, then ended the turn" for i in range(40)]


class LogHost(App[None]):
    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.first = lines

    def compose(self) -> ComposeResult:
        yield MoveLog(id="log")

    def on_mount(self) -> None:
        self.query_one(MoveLog).sync(self.first)  # before the log's width is known


def row_texts(log: MoveLog) -> list[str]:
    return [strip.text.rstrip() for strip in log.lines]


async def test_lines_shown_before_the_width_is_known_are_wrapped_and_the_last_is_in_view() -> None:
    app = LogHost(LINES)
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        log = app.query_one(MoveLog)
        width = log.scrollable_content_region.width
        assert len(log.lines) > len(LINES), "the long lines were not wrapped"
        assert all(strip.cell_length <= width for strip in log.lines)
        assert log.virtual_size.height == len(log.lines)
        assert log.max_scroll_x == 0
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y > 0, "the last line is not in view"
        last = log.render_line(log.scrollable_content_region.height - 1).text
        assert last.strip() == row_texts(log)[-1].strip()


async def test_new_lines_follow_and_a_cut_back_log_is_drawn_again() -> None:
    app = LogHost(LINES[:3])
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        log = app.query_one(MoveLog)
        assert log.max_scroll_y == 0 and log.scroll_y == 0
        log.sync(LINES)
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y > 0
        assert "Player 39" in row_texts(log)[-2] + row_texts(log)[-1]
        log.sync(LINES[:2])  # an undo took moves back
        await pilot.pause()
        assert log._shown == LINES[:2]
        assert "Player 1 " in " ".join(row_texts(log)) and "Player 2 " not in " ".join(row_texts(log))
        assert log.scroll_y == 0 and log.virtual_size.height == len(log.lines)


async def test_a_wider_window_wraps_the_lines_wider() -> None:
    app = LogHost(LINES)
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        log = app.query_one(MoveLog)
        narrow = len(log.lines)
        await pilot.resize_terminal(100, 20)
        await pilot.pause()
        assert len(log.lines) == len(LINES) < narrow
        assert log.virtual_size.height == len(log.lines) and log.max_scroll_x == 0
        assert log.scroll_y == log.max_scroll_y


async def test_a_shorter_log_keeps_its_last_line_in_view() -> None:
    app = LogHost(LINES)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        log = app.query_one(MoveLog)
        log.styles.height = 8  # as when a hint opens below it
        await pilot.pause()
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y > 0
        rows = log.scrollable_content_region.height
        assert log.render_line(rows - 1).text.strip() == row_texts(log)[-1].strip()
