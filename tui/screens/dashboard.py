"""The triage dashboard (d): progress over time and counts by status, star, tag and topic as charts."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table
from rich.text import Text
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Sparkline, Static

from store import Library

from ..keymap import binding

WIDTH = 30


def bars(rows: list[tuple[str, int]], total: int, style: str = "green") -> Table:
    """A label / bar / count table (bars scaled to ``total``)."""
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(no_wrap=True, max_width=34, overflow="ellipsis")
    table.add_column(no_wrap=True)
    table.add_column(justify="right", no_wrap=True)
    for label, count in rows:
        filled = round(WIDTH * count / total) if total else 0
        table.add_row(escape(label), Text("█" * filled + "░" * (WIDTH - filled), style=style), f"{count:,}")
    return table


def topic_bar(papers: int, triaged: int, biggest: int) -> Text:
    """A bar as long as the topic is big, green for its triaged part."""
    filled = round(WIDTH * papers / biggest) if biggest else 0
    part = round(filled * triaged / papers) if papers else 0
    return Text("█" * part, style="green") + Text("█" * (filled - part), style="blue") + Text(" " * (WIDTH - filled))


def topic_table(rows: list[dict]) -> Table:
    table = Table(box=None, show_header=False, pad_edge=False)
    for col in ("topic", "bar", "papers", "triaged"):
        table.add_column(no_wrap=True, justify="right" if col in ("papers", "triaged") else "left")
    biggest = max((r["papers"] for r in rows), default=1)
    for r in rows:
        table.add_row(escape(f"topic:{r['topic']} {r['label']}"), topic_bar(r["papers"], r["triaged"], biggest),
                      f"{r['papers']:,}", f"{r['triaged']:,}")
    return table


class DashboardScreen(ModalScreen[None]):
    BINDINGS = [binding("dashboard.close", "Close dashboard")]
    DEFAULT_CSS = """
    DashboardScreen { align: center middle; }
    DashboardScreen > VerticalScroll { width: 95%; height: 95%; border: thick $accent; background: $surface; padding: 0 1; }
    DashboardScreen Sparkline { height: 4; margin: 0 0 1 0; }
    DashboardScreen Horizontal { height: auto; }
    DashboardScreen Static { width: 1fr; margin-bottom: 1; }
    """

    def __init__(self, library: Library) -> None:
        super().__init__()
        self.library = library

    def compose(self):
        lib = self.library
        stats = lib.stats()
        n = stats["papers"] or 1
        timeline, first, last = lib.triage_timeline()
        with VerticalScroll():
            yield Label(f"[b]Dashboard[/b] — {stats['triaged']:,} / {stats['papers']:,} triaged "
                        f"({stats['triaged'] / n:.0%})   [dim]esc closes[/dim]")
            yield Label(f"Triage over time {'(' + first + ' → ' + last + ')' if first else '(nothing triaged yet)'}")
            yield Sparkline(timeline, id="timeline")
            with Horizontal():
                yield Static(bars([(s, c) for s, c in stats["status"].items()], n), id="by-status")
                stars = [(("★" * int(k)) or "no star", v) for k, v in sorted(stats["stars"].items())]
                stars.insert(0, ("no star", stats["papers"] - sum(v for _, v in stars)))
                yield Static(bars(stars, n, "yellow"), id="by-star")
            tags = list(stats["tags"].items())[:15]
            yield Label("[b]Tags[/b]" if tags else "[b]Tags[/b] [dim](none yet)[/dim]")
            yield Static(bars([("#" + t, c) for t, c in tags], max((c for _, c in tags), default=1), "magenta"),
                         id="by-tag")
            yield Label("[b]Topics[/b] [dim](papers, and how many are triaged)[/dim]")
            yield Static(self._topics(), id="by-topic")

    def _topics(self) -> Table:
        if len(self.library) < 10:
            return bars([], 1)
        return topic_table(self.library.topic_summary())

    def action_close(self) -> None:
        self.dismiss(None)
