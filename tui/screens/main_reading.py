"""Reading on the main screen: the reader follows the highlighted paper (at once in a small
library, once typing pauses in a big one), takes the room on a narrow terminal, and the keys
that move from paper to paper or to the next unread one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.geometry import Region

from ..widgets.reader import Reader
from ..widgets.tagpanel import TagPanel
from .mixin import ScreenMixin

if TYPE_CHECKING:
    from textual.timer import Timer

    from store import Library

    from ..widgets.results import ResultsList


class ReaderNavigation(ScreenMixin):
    """Mixin of :class:`~tui.screens.main.MainScreen`: the reader and moving between papers.

    Uses the screen's ``library``, ``results`` and the reader timer it initialises."""

    library: Library
    query_text: str
    _reader_timer: Timer | None
    _reader_timer_paper: int | None
    _list_scroll_y: float
    _left_at: str | None

    if TYPE_CHECKING:  # the screen's own and another mixin's (stubs at run time would shadow them)
        @property
        def results(self) -> ResultsList: ...
        def _recommending(self) -> bool: ...
        def _similar_soon(self, paper_index: int) -> None: ...

    def _show_reader_title(self) -> None:
        """Where the reader is in the list, while it has the list's room (it is hidden then)."""
        reader, results = self.query_one(Reader), self.results
        if self.has_class("-reading") and self.has_class("-narrow") and len(results.indices):
            query = " ".join(self.query_text.split())
            # Content, not a str: a str is read as markup, and a search for "[MASK]" would vanish.
            reader.border_title = Content(f"{results.cursor + 1:,} / {len(results.indices):,}"
                                          + (f" · {query}" if query else ""))
        else:
            reader.border_title = ""

    def _list_back_in_view(self, scroll_y: float) -> None:
        results = self.results
        results.scroll_to(y=scroll_y, animate=False, immediate=True)
        if len(results.indices):
            results.scroll_to_region(Region(0, results.cursor, 1, 1), animate=False, immediate=True)

    def _reader_due(self) -> None:
        self._reader_timer = None
        self._show_current()

    def _show_reader_now(self) -> None:
        if self._reader_timer is not None:
            self._reader_timer.stop()
            self._reader_due()

    def _show_current(self) -> None:
        idx = self.results.current_index
        self._left_at = self.library.corpus.papers[idx].id if idx is not None else None
        reader = self.query_one(Reader)
        reader.recommendation = (self.library.last_recommendations.get(self._left_at)
                                 if self._recommending() and self._left_at is not None else None)
        reader.show(idx)
        self._show_reader_title()
        if idx is not None and len(self.library) > 1 and self.library.similarity_ready:
            self._similar_soon(idx)
        self.query_one(TagPanel).show_paper(self.library.corpus.papers[idx].id if idx is not None else None)

    def action_open_reader(self) -> None:
        self.set_focus(self.query_one(Reader))

    def action_reader_back(self) -> None:
        self.set_focus(self.results)

    def action_next_paper(self) -> None:
        """From the reader: the list's next paper, read in place (on a narrow terminal the list is hidden)."""
        self.results.action_cursor_down()

    def action_prev_paper(self) -> None:
        self.results.action_cursor_up()

    def _jump_unread(self, step: int) -> None:
        results, papers, anns = self.results, self.library.corpus.papers, self.library.annotations
        pos = results.cursor + step
        while 0 <= pos < len(results.indices):
            ann = anns.get(papers[int(results.indices[pos])].id)
            if ann is None or ann.status == "unread":
                results._move_to(pos)
                return
            pos += step
        self.notify("No more unread papers in this list", severity="warning")

    def action_next_unread(self) -> None:
        self._jump_unread(1)

    def action_prev_unread(self) -> None:
        self._jump_unread(-1)
