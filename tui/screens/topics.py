"""The topic browser (b): every topic with its label, size and triage progress; enter filters to it.

Topics need the similarity model, which a big library builds in the background,
so the list is computed in a worker and the screen says so until it is ready.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual import work
from textual.containers import Vertical
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from store import Library
from store.wording import counted, share

from ..keymap import binding, key_label
from ..widgets.footer import Footer
from .page import PickingPage

WIDE_BAR, NARROW_BAR = 20, 8   # bar cells; the narrow bar leaves an 80-column screen room for the labels
WIDE = 120                     # screens at least this wide get the wide bar


def topic_bar(papers: int, triaged: int, biggest: int, width: int) -> Text:
    """A bar as long as the topic is big, green for its triaged part."""
    filled = round(width * papers / biggest) if biggest else 0
    part = round(filled * triaged / papers) if papers else 0
    return Text("█" * part, style="green") + Text("█" * (filled - part), style="blue") + Text(" " * (width - filled))


def topic_prompt(row: dict[str, Any], biggest: int, bar_width: int = WIDE_BAR) -> Text:
    """One line: bar (green = triaged), size, share triaged, label, then the topic number.

    The label comes before the number: it is what a reader scans for, and on a
    narrow screen the end of the line is what gets cut.
    """
    bar = topic_bar(row["papers"], row["triaged"], biggest, bar_width)
    shown = share(row["triaged"], row["papers"]) if row["papers"] else "–"
    return (bar + Text(f" {row['papers']:>5,} {shown:>5}  ") + Text(row["label"], style="bold")
            + Text(f"  topic:{row['topic']}", style="dim"))


class TopicsScreen(PickingPage[int]):
    """Dismisses with the chosen topic number (None when closed)."""

    # (before the list's own enter, which the footer does not show: so that it offers this one)
    BINDINGS = [binding("topics.open", "Show the topic's papers", label="Papers", priority=True),
                binding("topics.close", "Close topics"),
                binding("topics.down", "Next topic", show=False),
                binding("topics.up", "Previous topic", show=False),
                binding("topics.first", "First topic", show=False),
                binding("topics.last", "Last topic", show=False)]
    DEFAULT_CSS = """
    TopicsScreen { align: center middle; }
    TopicsScreen > Vertical { width: 95%; height: 90%; border: thick $accent; background: $surface; padding: 0 1; }
    TopicsScreen OptionList, TopicsScreen OptionList:focus { height: 1fr; border: none; padding: 0;
                                                             text-wrap: nowrap; text-overflow: ellipsis; }
    TopicsScreen #topics-title { width: 1fr; }
    """

    def __init__(self, library: Library) -> None:
        super().__init__()
        self.library = library

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("[b]Topics[/b] [dim]building the topic map…[/dim]", id="topics-title")
            yield OptionList(id="topic-list")
        yield Footer()  # this dialog's keys, over the main screen's

    def on_mount(self) -> None:
        self.set_focus(self.query_one(OptionList))
        self.load()

    @work(thread=True, exclusive=True)
    def load(self) -> None:
        if len(self.library) >= 10 and hasattr(self.app, "main_screen"):
            self.app.main_screen.similar.ensure_model()  # the helper's model, not a second build here
        rows = self.library.discovery.topic_summary() if len(self.library) >= 10 else []
        self.app.call_from_thread(self._show, rows)

    def _show(self, rows: list[dict[str, Any]]) -> None:
        options = self.query_one(OptionList)
        biggest = max((r["papers"] for r in rows), default=1)
        bar_width = WIDE_BAR if self.app.size.width >= WIDE else NARROW_BAR
        options.add_options([Option(topic_prompt(r, biggest, bar_width), id=str(r["topic"])) for r in rows])
        title = self.query_one("#topics-title", Label)
        if rows:
            options.highlighted = 0
            title.update(f"[b]Topics[/b] — {len(rows)} clusters of "
                         f"{counted(sum(r['papers'] for r in rows), 'paper')}, largest first (papers, % triaged, label)   "
                         f"[dim]⏎ shows a topic's papers · {key_label(self.app, 'topics.close')} closes[/dim]")
        else:
            title.update("[b]Topics[/b] [dim](a library needs at least 10 papers for topics) · "
                         f"{key_label(self.app, 'topics.close')} closes[/dim]")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        assert event.option.id is not None  # every option is made with its topic's id
        self.dismiss(int(event.option.id))

    def action_open(self) -> None:
        self.query_one(OptionList).action_select()

    def action_first(self) -> None:
        self.query_one(OptionList).action_first()

    def action_last(self) -> None:
        self.query_one(OptionList).action_last()
