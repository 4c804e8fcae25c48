"""The main screen's search: as each key is handled when the search is quick, else in a worker
whose stale results are dropped; and the history of searches the box was left with.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual import work
from textual.worker import get_current_worker

from store.search.query import Query, parse_query

from ..widgets.searchbox import SearchBox
from . import limits
from .mixin import ScreenMixin

if TYPE_CHECKING:
    from store import Library
    from store.search.result import SearchResult


class SearchController(ScreenMixin):
    """Mixin of :class:`~tui.screens.main.MainScreen`: running searches as the query changes.

    Uses the screen's ``library``, ``sort``, ``_show_results`` and ``ensure_model``; keeps
    ``query_text``, the last search's time and the search history, which the screen initialises."""

    library: Library
    sort: str
    query_text: str
    search_history: list[str]
    _search_seconds: float
    _searched_once: bool
    _recalled: tuple[list[str], int] | None
    _restored_query: str | None  # the saved search put back at start, until it has run once

    if TYPE_CHECKING:  # the screen's own and another mixin's (stubs at run time would shadow them)
        def _show_results(self, query: str, result: SearchResult, keep_paper: bool = False) -> None: ...
        def ensure_model(self) -> None: ...

    # -------------------------------------------------------------- search
    def search_changed(self, value: str) -> None:
        """The search box's text changed (typed, pasted or set by an action)."""
        if value == self.query_text and self._searched_once:
            return
        self._searched_once = True
        self.query_text = value
        q = parse_query(value)  # the one parse of this keystroke: the search and its worker take it
        if self._can_search_inline(q, value):
            # Quick searches run right here, so the echoed key and the new list
            # land in the same frame (a worker's result waits for the next one).
            t = time.perf_counter()
            try:
                result = self.library.search(q, sort=self.sort)
            except Exception as exc:  # a fault of ours: said and logged, the app and the list stay
                self.workers.cancel_group(self, "search")
                self.search_failed(value, exc)
                return
            self._search_seconds = time.perf_counter() - t
            self.workers.cancel_group(self, "search")
            self._show_results(value, result)
        else:
            self.run_search(value, q)

    def _can_search_inline(self, q: Query, query: str) -> bool:
        """Word searches and filters, while they stay quick; never what may build a model or a filter's
        table (see Library.filter_tables_ready), or scan text."""
        if self._search_seconds > limits.INLINE_SEARCH_SECONDS:
            return False
        return (not (q.phrases or q.not_phrases) and (not self._needs_model(q, query) or self.library.similarity_ready)
                and self.library.filter_tables_ready(q))

    def _needs_model(self, q: Query, query: str) -> bool:
        """Whether this search uses the similarity model (more like this, recommendations, topics)."""
        return bool(q.similar or q.recommend or q.topics or q.not_topics or (self.sort == "recommended" and not query.strip()))

    def search_again(self) -> None:
        """Search the current query again, in a worker (the library or the sort changed)."""
        self.run_search(self.query_text, parse_query(self.query_text))

    @work(exclusive=True, thread=True, group="search")
    def run_search(self, query: str, q: Query) -> None:
        """Search ``query`` (parsed as ``q``) in a worker: phrase scans, filters whose tables are
        not built yet, and whatever waits for the similarity model."""
        worker = get_current_worker()
        if len(self.library) > limits.BIG_LIBRARY and (q.phrases or q.not_phrases):
            time.sleep(limits.PHRASE_SETTLE)
            if worker.is_cancelled or query != self.query_text:
                return  # typed on: only the query the typing settles on is searched
        if self._needs_model(q, query) and not self.library.similarity_ready:
            try:
                self.ensure_model()  # the helper's one build (a big library), not a second one here
            except Exception:
                pass  # the search below builds it here, or says why it cannot
            if worker.is_cancelled or query != self.query_text:
                return
        t = time.perf_counter()
        try:
            result = self.library.search(q, sort=self.sort)  # reads one snapshot of the annotations
        except Exception as exc:
            if not worker.is_cancelled:
                self.app.call_from_thread(self.search_failed, query, exc)
            return
        if not (q.phrases or q.not_phrases):
            self._search_seconds = time.perf_counter() - t  # a quick one again: back to inline
        if worker.is_cancelled or query != self.query_text:
            return  # the user typed on; this result is stale
        self.app.call_from_thread(self._show_results, query, result)

    def search_failed(self, query: str, exc: Exception) -> None:
        """A search raised: the traceback goes to the library's log and one line to the screen. The
        search this library was left with (restored at start) is dropped, so that the plain list
        opens, and the next start does not meet it again."""
        from store.logbook import record_exception

        restored = query == self._restored_query
        what = "the saved search" if restored else "search"
        log = record_exception(self.library.folder, f"{what} {query!r}", exc)
        if restored:
            self._restored_query = None
            self.notify(f"dropped the saved search {query!r} ({type(exc).__name__}: {exc}); "
                        f"the details are in {log}", severity="warning", timeout=15)
            self.query_one(SearchBox).value = ""
        else:
            self.notify(f"search {query!r} failed ({type(exc).__name__}: {exc}); the details are in {log}",
                        severity="error", timeout=15)

    def on_search_box_left(self, message: SearchBox.Left) -> None:
        """Enter or Escape in the box: its search joins the history."""
        self.remember_search(message.value)

    def on_search_box_recall_asked(self, message: SearchBox.RecallAsked) -> None:
        self.recall_search()

    def remember_search(self, query: str) -> None:
        """A search the user left the box with joins the history (once, as the newest)."""
        query = query.strip()
        self._recalled = None
        if query:
            if query in self.search_history:
                self.search_history.remove(query)
            self.search_history.append(query)

    def recall_search(self) -> None:
        """Put the next older search in the box; typing keeps it as the start of a new one."""
        box = self.query_one(SearchBox)
        if self._recalled is None or box.value != self._recalled[0][self._recalled[1]]:
            older = [q for q in reversed(self.search_history) if q != box.value.strip()]
            if not older:
                self.notify("no earlier search", timeout=2)
                return
            self._recalled = (older, 0)
        else:
            older, pos = self._recalled
            if pos + 1 >= len(older):
                return  # the oldest: stay on it
            self._recalled = (older, pos + 1)
        older, pos = self._recalled
        box.value = older[pos]
        box.cursor_position = len(box.value)
