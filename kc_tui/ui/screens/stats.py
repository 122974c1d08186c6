"""The Stats screen: one person's rating, results per opponent kind and table size, streaks, the
best and worst matches, plots, and every past match (Enter or a click opens one). When several
people played, ``p`` picks whose (the screen opens on the Settings name's, else on who played
most).

The first frame is quick whatever the history holds: it counts the matches and lists the newest
page of them; everything else (every match with its rounds, the summary, the rating after each
match) is worked out in a thread, which posts :class:`StatsScreen.Loaded`; until then the screen
says it is loading. The list loads further pages as the cursor nears its end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.lazy import Lazy
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static, TabbedContent, TabPane, Tabs

from kc_tui.i18n import N_, _, ngettext, number, pgettext
from kc_tui.match.saves import saved_uid
from kc_tui.records.bounded import clamp, rule_int, safe_record, safe_summary, short_text
from kc_tui.records.rows import MatchRecord
from kc_tui.records.stats_shown import (
    NO_RATING,
    REFERENCE_WIDTH,
    RatingView,
    best_worst,
    choose_person,
    finished,
    has_all_row,
    is_chips,
    opponents,
    player_matches,
    rating_view,
    reference_lines,
    result,
    result_words,
    streak_text,
    summary_rows,
    totals_text,
    when,
)
from kc_tui.records.store import History
from kc_tui.records.summaries import Summary
from kc_tui.ui.dialogs.match_detail import COLORS, MatchDetail, draw_lines, draw_match
from kc_tui.ui.dialogs.whose_stats import PersonPicker
from kc_tui.ui.literal_text import plain, rich_fill, rich_plain
from kc_tui.ui.screens.replay import open_replay
from kc_tui.ui.widgets.footer import Footer
from kc_tui.ui.widgets.plot import LegendPlot
from kc_tui.util.printable import possessive

#: Matches listed per page.
PAGE = 100
#: The summary table's columns (the command line's SUMMARY_HEADERS, shorter: the table fits 80 columns),
#: translated where shown.
SCREEN_HEADERS = (
    N_("Opponent"),
    # Translators: a column of the stats table: how many seats the table had (2, 3 or 4).
    N_("Seats"),
    N_("Matches"),
    N_("Won"),
    "%",
    N_("Rounds"),
    N_("Won"),
    "%",
    N_("Penalty\n/round"),
    N_("Hints\n/round"),
)
#: The list of matches' columns: the short ones first, so that at 80 columns every heading and
#: result is on screen; the opponents (as long as their names) last, scrolled to with ← →.
MATCH_COLUMNS = (N_("Date"), N_("Result"), N_("Totals"), N_("Scoring"), N_("Opponents"))
#: The most matches the margins plot shows (the latest).
MARGIN_MATCHES = 200
#: Load the next page when the cursor is this close to the list's end.
PAGE_AHEAD = 10
NO_HISTORY = N_("The history is off or could not be opened, so there is nothing to show.")
EMPTY = N_(
    "No matches yet.\n\nPlay a match: every round you finish is remembered here, with your results "
    "against each kind of AI player, your streaks and your rating."
)
RESULT_STYLE = {"won": "bold green", "shared": "green", "lost": "red", "unfinished": "dim", "in progress": "italic"}


def short_scoring(m: MatchRecord) -> str:
    if is_chips(m):
        return _("chips")
    # Translators: a match's scoring in the list of matches: "points to 50".
    return _("points to {target}").format(target=rule_int(m.rules, "target"))


class ClosingTable:
    """A table (made by ``build``, given the padding of its cells) as wide as it is, or closed
    up when that is wider than its room: no padding, one space between its columns, so that
    longer headings still fit."""

    def __init__(self, build: Callable[[int], Table]) -> None:
        self.build = build
        #: The table as wide as it is (the same cells as the closed one).
        self.table = build(1)

    def fitted(self, console: Console, options: ConsoleOptions) -> Table:
        wide = Measurement.get(console, options.update(max_width=10_000), self.table).maximum
        return self.table if wide <= options.max_width else self.build(0)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.fitted(console, options)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.fitted(console, options))


@dataclass(frozen=True)
class StatsData:
    """What the thread reads first: the summary, and the best and worst matches in words."""

    summary: Summary
    best_worst: list[tuple[str, str]]
    #: The unfinished matches that can be resumed (the one saved), of ``summary.unfinished``.
    in_progress: int = 0


class MatchList(DataTable[Any]):
    """The past matches, newest first: one click opens a match (as Enter does); Home and End go
    to the first and the last row; ← → scroll a list wider than the screen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", N_("First"), show=False),
        Binding("end", "scroll_bottom", N_("Last"), show=False),
    ]

    def on_click(self, event: events.Click) -> None:
        # Runs before DataTable's own click handler, which moves the cursor to the clicked row and
        # opens it only when the cursor was already there: open it the first time too.
        row = event.style.meta.get("row")
        if isinstance(row, int) and row >= 0 and row != self.cursor_row:
            self.call_later(self.action_select_cursor)

    def on_resize(self, event: events.Resize) -> None:
        # Shown (its tab opened) or the screen resized: whether it is wider than its room.
        screen = self.screen
        if isinstance(screen, StatsScreen):
            screen.call_after_refresh(screen.show_foot)


class StatsScreen(Screen[None]):
    """Statistics from the game history; ``history`` None: the history is off or unusable."""

    CSS_PATH = "stats.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "back", N_("Back")),
        Binding("1", "show_tab('summary')", N_("Summary")),
        Binding("2", "show_tab('plots')", N_("Plots")),
        Binding("3", "show_tab('matches')", N_("Matches")),
        Binding("p", "pick_person", N_("Player")),
    ]

    class Loaded(Message):
        def __init__(self, data: StatsData) -> None:
            super().__init__()
            self.data = data

    class Rated(Message):
        def __init__(self, rating: RatingView) -> None:
            super().__init__()
            self.rating = rating

    class Failed(Message):
        def __init__(self, problem: str) -> None:
            super().__init__()
            self.problem = problem

    class Page(Message):
        """The matches from row ``offset`` of the list query on (``PAGE`` rows asked for: fewer
        records when some could not be read), and how many matches there are now."""

        def __init__(self, offset: int, records: list[MatchRecord], total: int) -> None:
            super().__init__()
            self.offset = offset
            self.records = records
            self.total = total

    class Chosen(Message):
        def __init__(self, match_id: int, record: MatchRecord | None) -> None:
            super().__init__()
            self.match_id = match_id
            self.record = record

    def __init__(self, history: History | None, person: str | None = None) -> None:
        """``person``: whose statistics (None, or a name that never played: the Settings name's
        when that person played, else the one who played most)."""
        super().__init__()
        self.history = history
        self.wanted = person
        #: The people who played, most matches first; the one shown.
        self.people: list[str] = []
        self.person: str | None = None
        self.total = 0
        self.data: StatsData | None = None
        self.rating: RatingView | None = None
        #: The listed matches, by row, and their ids.
        self.listed: list[MatchRecord] = []
        self._ids: set[int] = set()
        #: The row of the list query the next page starts at: the rows asked for so far, which
        #: counts those that could not be read (and were not listed).
        self.next_offset = 0
        self._paging = False
        #: Why the statistics could not be worked out (shown instead of them), or "".
        self.problem = ""
        #: The match the Plots tab shows.
        self.chosen: int | None = None
        #: The uid of the match that can be resumed (the one saved), and its id in the history.
        self.saved_uid: str | None = saved_uid()
        self.resumable: int | None = None

    # ------------------------------------------------------------------ layout
    @property
    def several(self) -> bool:
        """Whether more than one person played (then the screen names whose statistics it shows)."""
        return len(self.people) > 1

    @property
    def scope(self) -> str | None:
        """The person whose matches are listed and counted (None: every player's, one played)."""
        return self.person if self.several else None

    def _settings_name(self) -> str | None:
        name = getattr(getattr(self.app, "config", None), "player_name", None)
        return name if isinstance(name, str) else None

    def compose(self) -> ComposeResult:
        # The people and the count are quick queries: they say whether there is anything to show.
        if self.history is not None:
            self.people = self.history.people()
            self.resumable = self.history.unfinished_id(self.saved_uid) if self.saved_uid is not None else None
            wanted = self.wanted if self.wanted in self.people else self._settings_name()
            self.person = choose_person(self.people, wanted)
        self.total = self.history.count_matches(person=self.scope) if self.history is not None else 0
        title = _("Statistics of {name}").format(name=short_text(self.person)) if self.several else _("Statistics")
        yield Static(plain(title), id="stats-title")
        yield Static(plain(_(NO_RATING)) if not self.total else _("Working out your rating…"), id="rating")
        if not self.total:
            yield Static(_(NO_HISTORY) if self.history is None else _(EMPTY), id="empty")
            yield Footer()
            return
        yield Static(plain(self._loading()), id="empty")
        # The tabs are built after the first frame (Lazy), the plots and the hidden tabs after
        # that: the first frame comes at once, whatever the history holds.
        with Lazy(TabbedContent(initial="summary", id="tabs")):
            with TabPane(_("Summary"), id="summary"), VerticalScroll(id="summary-body"):
                yield Static("", id="summary-table")
                yield Static("", id="streaks")
                yield Lazy(LegendPlot(id="rating-plot"))
            with TabPane(_("Plots"), id="plots"), Lazy(Vertical(id="plots-body")):
                yield LegendPlot(id="margin-plot")
                yield LegendPlot(id="match-plot")
                yield Static(_("The match plotted is the one picked in the Matches tab (3)."), id="plots-hint")
            with TabPane(_("Matches"), id="matches"), Lazy(Vertical(id="matches-body")):
                table = MatchList(id="match-list", cursor_type="row", zebra_stripes=True)
                for label in MATCH_COLUMNS:
                    table.add_column(_(label), key=label.lower())
                yield table
                yield Static("", id="list-foot")
        yield Footer()

    def on_mount(self) -> None:
        if self.total:
            self._when_built("#summary-body", self._start)

    def _start(self) -> None:
        """Once the tabs are built: the summary says it is loading, the list shows the newest
        page, and the thread starts (after the next frame: it would slow it down, the GIL)."""
        assert self.history is not None
        self.query_one("#empty", Static).display = False
        self.query_one("#tabs", TabbedContent).query_one(Tabs).focus()  # ← → switch tabs, as the digits do
        self.query_one("#summary-table", Static).update(plain(self._loading()))
        self.query_one("#summary-body").loading = True
        self._add_page(0, self.history.matches(limit=PAGE, person=self.scope), self.total)
        self.call_after_refresh(self.load)

    # ------------------------------------------------------------------ loading (threads)
    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def load(self) -> None:
        history = self.history
        assert history is not None
        try:
            summary = safe_summary(history.summary(self.person))
            mine = self.resumable is not None and history.unfinished_id(self.saved_uid or "", self.person) is not None
            going = int(mine)
            data = StatsData(summary, best_worst(summary, self._record, self.person), going)
            self.post_message(self.Loaded(data))
            records = player_matches([safe_record(m) for m in history.matches()])
            done = sorted((m for m in records if finished(m)), key=lambda m: (m.finished_at, m.started_at, m.id))
            who = self.person if self.several and self.person is not None else ""
            self.post_message(self.Rated(rating_view(done, person=self.person, who=who)))
        except Exception as exc:  # a bug must not take the app down: say so on the screen
            self.post_message(self.Failed(_("The statistics could not be worked out: {problem}").format(problem=exc)))

    def _record(self, match_id: int) -> MatchRecord | None:
        """Match ``match_id`` with its rounds, fit to show (:func:`safe_record`), or None."""
        record = self.history.match(match_id) if self.history is not None else None
        return None if record is None else safe_record(record)

    @work(thread=True, exclusive=True, group="page", exit_on_error=False)
    def load_page(self, offset: int) -> None:
        assert self.history is not None
        records = self.history.matches(limit=PAGE, offset=offset, person=self.scope)
        self.post_message(self.Page(offset, records, self.history.count_matches(person=self.scope)))

    @work(thread=True, exclusive=True, group="chosen", exit_on_error=False)
    def load_match(self, match_id: int) -> None:
        self.post_message(self.Chosen(match_id, self._record(match_id)))

    # ------------------------------------------------------------------ what the threads post
    def on_stats_screen_loaded(self, message: Loaded) -> None:
        self.data = data = message.data
        body = self.query_one("#summary-body")
        body.loading = False
        self.query_one("#summary-table", Static).update(self._summary_table(data.summary))
        self.query_one("#streaks", Static).update(self._streaks(data))
        self._when_built("#margin-plot", lambda: self._draw_margins(data.summary))

    def on_stats_screen_rated(self, message: Rated) -> None:
        self.rating = message.rating
        self.query_one("#rating", Static).update(plain(message.rating.line))
        self._draw_rating(message.rating)

    def on_stats_screen_failed(self, message: Failed) -> None:
        self.problem = message.problem
        self.query_one("#summary-body").loading = False
        self.query_one("#rating", Static).update(plain(_(NO_RATING)))
        self.query_one("#summary-table", Static).update(plain(message.problem, "bold red"))

    def on_stats_screen_page(self, message: Page) -> None:
        self._paging = False
        if message.offset == self.next_offset:
            self._add_page(message.offset, message.records, message.total)

    def on_stats_screen_chosen(self, message: Chosen) -> None:
        record = message.record
        if record is not None and message.match_id == self.chosen:
            self._when_built("#match-plot", lambda: draw_match(self.query_one("#match-plot", LegendPlot), record))

    def _when_built(self, selector: str, then: Callable[[], object], tries: int = 100) -> None:
        """Run ``then`` once the widget ``selector`` (in a tab built after the first frame) is there."""
        if self.query(selector):
            then()
        elif tries > 0:
            self.call_after_refresh(self._when_built, selector, then, tries - 1)

    # ------------------------------------------------------------------ the parts
    def _summary_table(self, summary: Summary) -> ClosingTable | Text:
        rows = summary_rows(summary)
        if not rows:
            return Text(_("No finished match or round yet."), style="dim")
        # A Text: a str would be read as markup (the name is data); in the style Rich gives a title.
        title = rich_plain(self._title(_("Your results by opponent and table size"), self._by_opponent), "table.title")

        def build(padding: int) -> Table:
            t = Table(
                title=title,
                title_justify="left",
                header_style="bold",
                box=box.SIMPLE_HEAD,
                show_edge=False,
                collapse_padding=True,
                pad_edge=False,
                padding=(0, padding),
            )
            for i, head in enumerate(SCREEN_HEADERS):
                t.add_column(_(head) if head != "%" else head, justify="left" if i == 0 else "right", no_wrap=True)
            for i, row in enumerate(rows):
                every = has_all_row(rows) and i == len(rows) - 1
                t.add_row(*(rich_plain(c, "bold" if every else "") for c in row))
            return t

        return ClosingTable(build)

    def _streaks(self, data: StatsData) -> Text:
        """The streaks, the best and worst matches, the unfinished ones: a line each."""
        lines = [Text(streak_text(data.summary))]
        for label, line in data.best_worst:
            lines.append(Text.assemble((label + ": ", "bold"), rich_plain(line)))
        if data.in_progress:
            lines.append(Text(_("A match in progress: Resume in the menu carries it on."), style="dim"))
        if n := data.summary.unfinished - data.in_progress:
            unfinished = ngettext(
                "{n} unfinished match (left before the end)", "{n} unfinished matches (left before the end)", n
            )
            lines.append(Text(unfinished.format(n=n), style="dim"))
        if others := [p for p in self.people if p != self.person]:
            names = ", ".join(short_text(p) for p in others[:3]) + (", …" if len(others) > 3 else "")
            # Translators: {names} are the other people in the game history; p is the key that
            # picks whose statistics show.
            lines.append(rich_fill(_("Also played here: {names}. p shows their statistics."), names=rich_plain(names)))
        return Text("\n").join(lines)

    def _draw_rating(self, rating: RatingView, *, again: bool = True) -> None:
        if not self.query("#rating-plot"):
            self._when_built("#rating-plot", lambda: self._draw_rating(rating))
            return
        plot = self.query_one("#rating-plot", LegendPlot)
        if not rating.series:
            draw_lines(plot, [], title=_("Your rating: play a match against the AI players"), xlabel=_("Matches"))
            return
        xs = [float(k) for k, _value in rating.series]
        ys = [float(clamp(v)) for _match, v in rating.series]
        lo, hi = min(ys) - 150, max(ys) + 150
        # The AI kinds near the player's rating, as flat lines to read it against (dashed over
        # the player's line, in the first colour, so both show where they meet).
        # Kinds rated within a row of the plot of each other share one line (a line over another
        # would hide it).
        rows = plot.data_rows()
        if not rows and again:  # drawn again once the plot has its size (and so its rows)
            self.call_after_refresh(lambda: self._draw_rating(rating, again=False))
        refs = reference_lines(rating.anchors, lo, hi, rows=rows or None)
        near = [(kinds, value, COLORS[1 + k % (len(COLORS) - 1)]) for k, (kinds, value) in enumerate(refs)]
        draw_lines(
            plot,
            [(self._label, ys)],
            title=self._title(_("Your rating after each match"), self._rating_after),
            xlabel=_("Matches played"),
            xs=xs,
            label_width=REFERENCE_WIDTH,
            references=near,
        )

    def _draw_margins(self, summary: Summary) -> None:
        """How far ahead of the best opponent (+) or behind (-) each of the latest matches ended."""
        points = summary.points[-MARGIN_MATCHES:]
        first = len(summary.points) - len(points) + 1
        xs = [float(first + k) for k in range(len(points))]
        lines: list[tuple[str, Sequence[float]]] = []
        if points:
            lines = [(self._label, [float(clamp(p.margin)) for p in points]), (_("level"), [0.0] * len(points))]
        if len(points) < len(summary.points):
            title = ngettext(
                "How the latest {n} match ended: ahead of the best opponent (+) or behind (-)",
                "How the latest {n} matches ended: ahead of the best opponent (+) or behind (-)",
                len(points),
            ).format(n=len(points))
        else:
            title = _("How matches ended: ahead of the best opponent (+) or behind (-)")
        draw_lines(
            self.query_one("#margin-plot", LegendPlot),
            lines,
            title=title,
            xlabel=_("Match"),
            xs=xs,
        )

    def _add_page(self, offset: int, records: list[MatchRecord], total: int) -> None:
        """List the page of the list query from row ``offset`` (``PAGE`` rows asked for): a
        match already listed is skipped (a match recorded since, by this or another window,
        pushes older rows down the query); the next page starts ``PAGE`` rows on."""
        if not self.query(MatchList):
            self._when_built("#match-list", lambda: self._add_page(offset, records, total))
            return
        table = self.query_one(MatchList)
        first = not self.listed
        self.next_offset = offset + PAGE
        self.total = max(total, len(self.listed))
        for m in map(safe_record, records):
            if m.id in self._ids:
                continue
            self._ids.add(m.id)
            self.listed.append(m)
            res = result(m, self.person)
            said = result_words(m, self.person)
            if res == "unfinished" and m.id == self.resumable:
                res, said = "in progress", pgettext("a match's result", "in progress")
            table.add_row(
                rich_plain(when(m)),
                rich_plain(said, RESULT_STYLE.get(res, "")),
                rich_plain(totals_text(m)),
                rich_plain(short_scoring(m)),
                rich_plain(opponents(m, self.person)),
                key=str(m.id),
            )
        self.show_foot()
        self.call_after_refresh(self.show_foot)  # once the new rows are laid out
        if first and self.listed:
            self._choose(self.listed[0])
        self._page_ahead(table.cursor_row)

    def show_foot(self) -> None:
        """The line under the list: how many matches, and the keys (← → when the list is wider
        than the screen)."""
        if not self.query("#list-foot"):
            return
        shown = len(self.listed)
        more = _(" · {n} listed, more as you scroll").format(n=number(shown)) if self.more else ""
        table = self.query_one(MatchList)
        wide = _(" · ← → scroll") if table.size.width and table.max_scroll_x > 0 else ""
        self.query_one("#list-foot", Static).update(
            # Translators: {more} and {wide} are " · 100 listed, more as you scroll" and " · ← → scroll", or empty.
            plain(
                ngettext(
                    "{n} match, newest first{more}{wide} · Enter opens one",
                    "{n} matches, newest first{more}{wide} · Enter opens one",
                    self.total,
                ).format(n=number(self.total), more=more, wide=wide)
            )
        )

    @property
    def more(self) -> bool:
        """Whether the list query has rows not asked for yet."""
        return self.next_offset < self.total

    def _page_ahead(self, row: int) -> None:
        """Load the next page when row ``row`` is near the list's end and there is more."""
        if row >= len(self.listed) - PAGE_AHEAD and self.more and not self._paging:
            self._paging = True
            self.load_page(self.next_offset)

    def _choose(self, m: MatchRecord) -> None:
        """Plot match ``m`` in the Plots tab (its rounds are read in a thread)."""
        if m.id != self.chosen:
            self.chosen = m.id
            self.load_match(m.id)

    # ------------------------------------------------------------------ events and actions
    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        row = event.cursor_row
        if 0 <= row < len(self.listed):
            self._choose(self.listed[row])
        self._page_ahead(row)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.open_match(event.cursor_row)

    def open_match(self, row: int) -> None:
        if self.history is None or not 0 <= row < len(self.listed):
            return
        record = self._record(self.listed[row].id)
        if record is None:
            self.app.notify(_("That match cannot be read any more."), severity="warning")
            return
        self.app.push_screen(
            MatchDetail(
                record, lambda number: open_replay(self.app, record.id, number, person=self.person), person=self.person
            )
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The tab keys only when there are tabs (not in the empty state)."""
        if action == "show_tab":
            return self.has_tabs
        if action == "pick_person":
            return self.several
        return True

    @property
    def has_tabs(self) -> bool:
        return self.history is not None and self.total > 0

    def action_show_tab(self, tab: str) -> None:
        if not self.has_tabs:
            return
        if not self.query("#tabs"):
            self._when_built("#tabs", lambda: self.action_show_tab(tab))
            return
        tabs = self.query_one("#tabs", TabbedContent)
        tabs.active = tab
        if tab == "matches":
            self._when_built("#match-list", lambda: self.query_one(MatchList).focus())

    def _title(self, yours: str, theirs: Callable[[], str]) -> str:
        """A title about the player: ``yours`` with one player, else ``theirs()`` (of the person shown)."""
        return theirs() if self.several and self.person is not None else yours

    def _by_opponent(self) -> str:
        # Translators: {whose} is a name with "'s" ("Ana's"); {name} is the name alone.
        return _("{whose} results by opponent and table size").format(
            whose=possessive(short_text(self.person or "")), name=short_text(self.person or "")
        )

    def _rating_after(self) -> str:
        # Translators: {whose} is a name with "'s" ("Ana's"); {name} is the name alone.
        return _("{whose} rating after each match").format(
            whose=possessive(short_text(self.person or "")), name=short_text(self.person or "")
        )

    def _loading(self) -> str:
        """The line shown while the statistics load."""
        return ngettext("Loading {n} match…", "Loading {n} matches…", self.total).format(n=number(self.total))

    @property
    def _label(self) -> str:
        """The person's line in the plots: "You" with one player, else the name."""
        return short_text(self.person) if self.several and self.person is not None else _("You")

    def action_pick_person(self) -> None:
        """Pick whose statistics to show (several people played): the screen is shown again for them."""
        if not self.several:
            return

        def picked(person: str | None) -> None:
            if person is not None and person != self.person:
                self.app.switch_screen(StatsScreen(self.history, person))

        self.app.push_screen(PersonPicker(self.people, self.person), picked)

    def action_back(self) -> None:
        self.dismiss(None)
