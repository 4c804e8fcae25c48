"""The triage dashboard (d): progress over time and counts by status, star, tag and topic as charts."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual import work
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Label, Sparkline, Static

from store import Library
from store.safe_text import display_safe
from store.search.query import parse_query
from store.wording import bar, counted, share

from ..keymap import key_label
from ..widgets.footer import Footer
from .page import ScrollingPage, page_bindings

WIDTH = 30       # the longest bar, in cells
MIN_BAR = 6      # bars never shrink below this; the labels give way first
MAX_LABEL = 64   # topic labels are phrases: "partial differential equations · neural operators · …"


class Chart:
    """Rows of label, bar and counts. Bars take the width left once the counts and
    (up to MAX_LABEL cells of) the labels fit, but at least a third of it, so a narrow pane
    never cuts a count and a long label does not leave the bars a sliver.

    Each row is (label, bar segments as (fraction of a full bar, style), count cells).
    """

    def __init__(self, rows: list[tuple[str, list[tuple[float, str]], list[str]]]) -> None:
        self.rows = rows

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = Table(box=None, show_header=False, pad_edge=False, expand=False)
        if not self.rows:
            yield table
            return
        n_counts = max(len(r[2]) for r in self.rows)
        count_w = [max(cell_len(r[2][i]) for r in self.rows if i < len(r[2])) for i in range(n_counts)]
        label_w = min(MAX_LABEL, max(cell_len(r[0]) for r in self.rows))
        room = options.max_width - sum(count_w) - 2 * (n_counts + 1)  # two spaces between columns
        bar_w = max(MIN_BAR, min(WIDTH, max(room - label_w, room // 3)))  # a third for bars, if labels need it
        label_w = max(4, min(label_w, room - bar_w))
        table.add_column(no_wrap=True, width=label_w, overflow="ellipsis")
        table.add_column(no_wrap=True, width=bar_w)
        for w in count_w:
            table.add_column(justify="right", no_wrap=True, width=w)
        for label, segments, counts in self.rows:
            chart_bar, used = Text(), 0
            for fraction, style in segments:
                drawn = bar(fraction, bar_w - used)
                chart_bar.append(drawn, style=style)
                used += len(drawn)
            table.add_row(Text(display_safe(label, False)), chart_bar + Text(" " * (bar_w - used)), *counts)
        yield table


def bars(rows: list[tuple[str, int]], total: int, style: str = "green") -> Chart:
    """A label / bar / count chart, bars scaled to ``total``."""
    return Chart([(label, [(count / total if total else 0.0, style)], [f"{count:,}"]) for label, count in rows])


def topic_table(rows: list[dict[str, Any]]) -> Chart:
    """Topics as bars as long as each is big, green for its triaged part; papers and triaged counts."""
    biggest = max((r["papers"] for r in rows), default=1) or 1
    return Chart([(f"topic:{r['topic']} {r['label']}",
                   [(r["triaged"] / biggest, "green"), ((r["papers"] - r["triaged"]) / biggest, "blue")],
                   [f"{r['papers']:,}", f"{r['triaged']:,}"]) for r in rows])


class DashboardScreen(ScrollingPage):
    BINDINGS = page_bindings("dashboard", "Close dashboard")
    DEFAULT_CSS = """
    DashboardScreen { align: center middle; }
    DashboardScreen > VerticalScroll { width: 95%; height: 95%; border: thick $accent; background: $surface; padding: 0 1; }
    DashboardScreen Sparkline { height: 4; margin: 0 0 1 0; }
    DashboardScreen Horizontal { height: auto; }
    DashboardScreen Static { width: 1fr; margin-bottom: 1; }
    DashboardScreen Horizontal > Static { margin-right: 3; }
    DashboardScreen Horizontal > Label { width: 1fr; margin-right: 3; }
    """

    def __init__(self, library: Library, search: tuple[str, list[str]] | None = None) -> None:
        """``search``: the current search and its result set's ids (charted on a line of its own)."""
        super().__init__()
        self.library = library
        self.search = search

    def compose(self) -> ComposeResult:
        lib = self.library
        stats = lib.stats.summary()
        with VerticalScroll():
            yield Label(f"[b]Dashboard[/b] — {stats['triaged']:,} / {stats['papers']:,} triaged "
                        f"({share(stats['triaged'], stats['papers'])})   [dim]{key_label(self.app, 'dashboard.close')} closes[/dim]")
            if self.search and self.search[0].strip():
                yield Label(self._search_line(*self.search))
            estimate = lib.discovery.screening.estimate()  # (no model: the marks and the stopping rule alone)
            yield Label(Text.assemble(("How far to read", "bold"), ": " + (
                estimate.words() if estimate else "nothing marked wanted yet (a star, to-read, read or a tag)")),
                id="screening")
            yield from self._timeline()
            yield from self._charts(stats)
            yield Label("[b]Topics[/b] [dim](papers, and how many are triaged)[/dim]")
            yield Static(bars([], 1) if len(lib) < 10 else Text("building the topic map…", style="dim"),
                         id="by-topic")
        yield Footer()  # this dialog's keys, over the main screen's

    def _search_line(self, query: str, ids: list[str]) -> Text:
        """The current search's papers: how many, how many triaged, by status."""
        anns = self.library.annotations
        done = sum(1 for i in ids if i in anns and anns[i].status != "unread")
        statuses = {s: sum(1 for i in ids if (anns[i].status if i in anns else "unread") == s)
                    for s in ("to-read", "read", "skipped")}
        one = len(ids) == 1
        held = ("holds every word" if one else "hold every word") if parse_query(query).words \
            else ("matches it" if one else "match it")  # (a filter has no words)
        return Text.assemble(("This search", "bold"), f" ({display_safe(query, False)}): "
                             f"{counted(len(ids), 'paper')} {held}, {done:,} triaged · "
                             + " · ".join(f"{c:,} {s}" for s, c in statuses.items()))

    def _timeline(self) -> ComposeResult:
        """The triage over time: its span, and a sparkline of marks per bucket."""
        timeline, first, last = self.library.stats.triage_timeline()
        one_bar = sum(1 for c in timeline if c) == 1  # (a bucket is an hour at least: one sitting)
        span = (f"(all at {first})" if first == last else f"(all from {first} to {last[11:]})" if one_bar
                else f"({first} → {last})")
        yield Label(f"Triage over time {span if first else '(nothing triaged yet)'}")
        if first and not one_bar:  # (one block and a flat line say nothing the heading does not)
            yield Sparkline(timeline, id="timeline")

    def _charts(self, stats: dict[str, Any]) -> ComposeResult:
        """Bars by status and star (side by side), tag, venue and area, each under its heading."""
        n = stats["papers"] or 1
        with Horizontal():
            yield Label("[b]Status[/b]")
            yield Label("[b]Stars[/b]")
        with Horizontal():
            yield Static(bars([(s, c) for s, c in stats["status"].items()], n), id="by-status")
            stars = [(("★" * int(k)) or "no star", v) for k, v in sorted(stats["stars"].items())]
            stars.insert(0, ("no star", stats["papers"] - sum(v for _, v in stars)))
            yield Static(bars(stars, n, "yellow"), id="by-star")
        tags = list(stats["tags"].items())[:15]
        # (the other bars are shares of the library; a tag's, of the commonest tag's papers)
        yield Label("[b]Tags[/b] [dim](bars against the commonest)[/dim]" if tags else "[b]Tags[/b] [dim](none yet)[/dim]")
        yield Static(bars([("#" + t, c) for t, c in tags], max((c for _, c in tags), default=1), "magenta"),
                     id="by-tag")
        venues = [(v or "(none)", c) for v, c in stats["venues"].items()]
        if len(venues) > 1:  # papers from more than one venue or year
            yield Label("[b]Venues[/b]")
            yield Static(bars(venues[:10], n, "cyan"), id="by-venue")
        areas = list(stats["areas"].items())[:10]
        if areas:  # the subject areas the venues filed papers under (OpenReview's primary area)
            yield Label("[b]Areas[/b]")
            yield Static(bars(areas, n, "cyan"), id="by-area")

    def on_mount(self) -> None:
        if len(self.library) >= 10:
            self._load_topics()

    @work(thread=True, exclusive=True)
    def _load_topics(self) -> None:
        """Topics need the similarity model: in a big library just opened, the helper process may
        still be building it (seconds), and the dashboard must not hold the screen meanwhile."""
        if hasattr(self.app, "main_screen"):
            self.app.main_screen.similar.ensure_model()
        table = topic_table(self.library.discovery.topic_summary())
        self.app.call_from_thread(self._show_topics, table)

    def _show_topics(self, table: Chart) -> None:
        """On the UI thread, where the panel is looked up: it may be gone by then (see
        MainScreen._show_similar_titles)."""
        for panel in self.query("#by-topic").results(Static):
            panel.update(table)
