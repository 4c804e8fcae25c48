"""Reading on the main screen: the reader follows the highlighted paper (at once in a small
library, once typing pauses in a big one), takes the whole width when read in full, and the keys
that move from paper to paper or to the next unread one.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual.content import Content
from textual.geometry import Region

from store.wording import counted

from .. import limits

if TYPE_CHECKING:
    import numpy as np
    from textual.timer import Timer

    from store import Library

    from .search import Searching
    from .similar import Similar
    from .tags import Tags
    from .view import MainView


class Reading:
    """The reader, kept on the highlighted paper, and moving between papers.

    Args:
        library: the papers read.
        view: the main screen (its list and reader).
        search: the search controller (the query, for the reader's title; whether the list is a
            recommendation).
        similar: more like this (the reader's nearest papers).
        tags: the tag keys (where `t` was pressed: the reader stays the reader under the panel).
    """

    def __init__(self, library: Library, view: MainView, search: Searching, similar: Similar,
                 tags: Tags) -> None:
        self.library = library
        self.view = view
        self.search = search
        self.similar = similar
        self.tags = tags
        self._timer: Timer | None = None  # a pending reader update (typing in a big library)
        self._timer_paper: int | None = None  # the paper the pending update is for
        self._list_scroll_y = 0.0  # where the list was when the reader took its room
        self.left_at: str | None = None  # the paper in the reader: where the library is left on quit

    def show_title(self) -> None:
        """Where the reader is in the list, while it has the list's room (it is hidden then)."""
        view, results = self.view, self.view.results
        reader = view.reader
        if view.has_class("-reading") and len(results.indices):
            query = " ".join(self.search.query_text.split())
            # Content, not a str: a str is read as markup, and a search for "[MASK]" would vanish.
            at, full = results.cursor + 1, results.full
            # Counted as the list counts: the result set, then the weaker matches below its divider
            # (1 / 219 read as 219 results where the list said 119).
            where = (f"{at:,} / {len(results.indices):,}" if full is None else f"{at:,} / {full:,}" if at <= full
                     else f"weaker match {at - full:,} / {len(results.indices) - full:,}")
            reader.border_title = Content(where + (f" · {query}" if query else ""))
        else:
            reader.border_title = ""

    def focus_moved(self) -> None:
        """The reader, once focused (enter: read in full), takes the list's and the tag panel's room,
        at any width: at 80 columns an abstract in half the width is three screens of scrolling, in
        the whole width about one.
        Triage keys work there and advance as in the list; esc (or /) brings the list back."""
        view = self.view
        reader = view.reader
        reading = view.focused is reader or (view.has_class("-tagging") and self.tags.came_from is reader)
        if reading == view.has_class("-reading"):
            return
        if reading:
            self._list_scroll_y = view.results.scroll_y
        else:  # the list as it was left, scrolled only as far as the cursor (moved by triage) needs
            view.call_after_refresh(self._list_back_in_view, self._list_scroll_y)
        view.set_class(reading, "-reading")
        # The panes change places: the whole screen is laid out again. (The reader takes its size
        # quietly, tui.compat.QuietlySizedScroll; after a search in a real terminal, the class alone
        # left the three panes drawn until the next resize.)
        view.refresh(layout=True)
        self.show_title()

    def _list_back_in_view(self, scroll_y: float) -> None:
        results = self.view.results
        results.scroll_to(y=scroll_y, animate=False, immediate=True)
        if len(results.indices):
            results.scroll_to_region(Region(0, results.cursor, 1, 1), animate=False, immediate=True)

    def follow_results(self) -> None:
        """New results are in the list: the reader shows their first paper (in a big library, while
        keys come in a burst, once typing pauses: the list repaints now, the reader, a full
        re-render of an abstract, later; a key typed after a pause brings both in one frame).

        The pause counts from the key that was typed, not from the results: a search that took
        longer than READER_DELAY (a big library's, in a worker, whose answer is dropped when a key
        comes meanwhile) was itself the pause, and the reader shows its paper with the new list, in
        the same frame (a real terminal draws a frame in ~20 ms at 160×45: one, not two)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.similar.hold()  # (the paper the reader shows is about to change)
        if len(self.library) <= limits.BIG_LIBRARY:
            self.show_current()
        else:
            wait = limits.READER_DELAY - (time.perf_counter() - self.search.typed_at)
            if wait <= 0 or not self.search.in_burst():
                self.show_current()
            else:
                self._timer = self.view.set_timer(wait, self._due)
                self._timer_paper = self.view.results.current_index

    def highlighted(self) -> None:
        """The list's cursor moved. New results post this too: their first paper is already in the
        reader (a small library), or is on its way once typing pauses (a big one), so the abstract is
        not rendered again in the keystroke's frame. Moving the cursor shows the paper at once (it
        also cancels a pending reader update, to show the newest)."""
        if self._timer is not None:
            if self._timer_paper != self.view.results.current_index:
                self.show_now()
        elif self.view.reader.paper_index != self.view.results.current_index:
            self.show_current()

    def _due(self) -> None:
        self._timer = None
        self.show_current()

    def show_now(self) -> None:
        """The pending reader update, now (nothing is being typed)."""
        if self._timer is not None:
            self._timer.stop()
            self._due()

    def show_current(self) -> None:
        """The highlighted paper in the reader and the tag panel; its nearest papers once found."""
        view = self.view
        idx = view.results.current_index
        self.left_at = self.library.corpus.papers[idx].id if idx is not None else None
        reader = view.reader
        reader.recommendation = (self.library.discovery.last_recommendations.get(self.left_at)
                                 if self.search.recommending() and self.left_at is not None else None)
        reader.show(idx)
        self.show_title()
        if idx is not None and len(self.library) > 1 and self.library.discovery.similarity_ready:
            self.similar.soon(idx, burst=self.search.in_burst())
        self.show_tags()

    def show_tags(self) -> None:
        """The tag panel: the highlighted paper's tags, or the selection's (what a tag acts on)."""
        selected = self.view.results.selected
        self.view.tag_panel.show_paper(self.left_at, sorted(selected) if selected else None)

    def open_reader(self) -> None:
        self.view.set_focus(self.view.reader)

    def back_to_list(self) -> None:
        self.view.set_focus(self.view.results)

    def jump_likely(self) -> None:
        """The paper of this list the triage queue ranks first (of those not marked yet): ranked
        again from every mark in a worker, then the cursor goes there."""
        rows = self.view.results.indices.copy()
        self.view.run_in_thread(lambda: self._likely_in_thread(rows), group="likely")

    def _likely_in_thread(self, rows: np.ndarray) -> None:
        from store.errors import PapersiftError
        try:
            idx: int | str | None = self.library.discovery.most_likely(rows)
        except PapersiftError as exc:
            idx = str(exc)
        self.view.app.call_from_thread(self._go_likely, idx)

    def _go_likely(self, idx: int | str | None) -> None:
        if isinstance(idx, str):
            self.view.notify(idx, severity="warning")
        elif idx is None:
            self.view.notify("every paper in this list is marked already", severity="warning")
        elif idx == self.view.results.current_index:
            self.view.notify("this is the paper of the list most likely wanted", timeout=3)
        elif not self.view.results.move_to_paper(idx):
            self.view.notify("the list changed meanwhile: press again", severity="warning")

    def next_paper(self, step: int) -> None:
        """J (``step`` 1) or K (-1) in the reader: the next or previous paper of the list, read in
        place; at the list's end it says so (J on the last paper did nothing, where N says)."""
        results = self.view.results
        if not len(results.indices):
            return
        at = results.cursor
        (results.action_cursor_down if step > 0 else results.action_cursor_up)()
        if results.cursor == at:
            self.view.notify("This is the last paper of the list" if step > 0 else "This is the first paper of the list",
                             timeout=3)

    def jump_unread(self, step: int) -> None:
        """The next (``step`` 1) or previous (-1) unread paper in the list."""
        results, papers, anns = self.view.results, self.library.corpus.papers, self.library.annotations
        pos = results.cursor + step
        while 0 <= pos < len(results.indices):
            ann = anns.get(papers[int(results.indices[pos])].id)
            if ann is None or ann.status == "unread":
                results._move_to(pos)
                return
            pos += step
        # None that way: say how many there are the other way (N on the first unread paper had
        # said "no more", with unread papers below it). Ids from the corpus's lookup: no paper parsed.
        ids = self.library.corpus.ids()
        other = sum(1 for k, i in enumerate(results.indices.tolist())
                    if k != results.cursor and ((ann := anns.get(ids[i])) is None or ann.status == "unread"))
        way, back = ("below", "above") if step > 0 else ("above", "below")
        self.view.notify(f"No unread paper {way} this one"
                         + (f": {counted(other, 'unread paper')} {back}" if other else ", and none in this list"),
                         severity="warning")

