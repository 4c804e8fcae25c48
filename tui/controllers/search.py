"""Running searches as the query changes: as each key is handled when the search is quick, else
in a worker whose stale results are dropped; and the history of searches the box was left with.
"""

from __future__ import annotations

import time
from functools import partial
from typing import TYPE_CHECKING, Callable

from textual.worker import get_current_worker

from store.library.search import SORTS
from store.search.query import Query, parse_query

from .. import limits

if TYPE_CHECKING:
    from store import Library
    from store.search.result import SearchResult

    from .view import MainView


def edit_point(before: str, after: str) -> int:
    """Where the cursor stands after an edit turned ``before`` into ``after``: the end of what
    changed (Input moves its cursor only after its value has changed and been searched)."""
    limit = min(len(before), len(after))
    start = 0
    while start < limit and before[start] == after[start]:
        start += 1
    same_end = 0  # (after the common start: typing "ab" after "abab" is at the end, not the middle)
    while same_end < limit - start and before[len(before) - 1 - same_end] == after[len(after) - 1 - same_end]:
        same_end += 1
    return len(after) - same_end


class Searching:
    """The search box's query, searched.

    Args:
        library: what is searched.
        view: the main screen (its list is given each result set).
        ensure_model: gets the similarity model (built elsewhere for a big library); blocks.
        on_typed: told of each edit typed in the box, before its search (a lookup for the paper the
            last one showed is no longer wanted: the CPU is the search's).
    """

    def __init__(self, library: Library, view: MainView, ensure_model: Callable[[], None],
                 on_typed: Callable[[], None]) -> None:
        self.library = library
        self.view = view
        self.ensure_model = ensure_model
        self.on_typed = on_typed
        self.query_text = ""  # the box's text, as last searched
        self.history: list[str] = []  # searches left with enter/esc/down, oldest first
        self._recalled: tuple[list[str], int] | None = None  # up-arrow walk: older searches, position
        self._seconds = 0.0  # the last search's time: a slow one moves the next to a worker
        self._searched_once = False
        self.restored: str | None = None  # the saved search put back at start, until it has run once
        self.cursor: int | None = None  # where the box's cursor stood after the last edit typed in it
        self.typed_at = 0.0  # when the last edit was typed in the box (time.perf_counter)
        self.typing_gap = float("inf")  # seconds between the last two edits typed there
        self.shown_sorted = False  # the list shown is in the sort asked for (filters alone: no words ranked it)

    def in_burst(self) -> bool:
        """Whether keys are coming in a burst in the search box (the last two were typed less than
        limits.TYPING_BURST apart, and it still has the focus): the next key is near."""
        return self.view.focused is self.view.search_box and self.typing_gap < limits.TYPING_BURST

    def changed(self, value: str) -> None:
        """The search box's text changed (typed, pasted or set by an action)."""
        if value == self.query_text and self._searched_once:
            return
        self._searched_once = True
        # The word the cursor is on is still being typed (its completions count): only for text
        # typed in the box, not a search an action put there (restored, a tag's filter).
        typed = self.view.search_box.has_focus
        self.cursor = edit_point(self.query_text, value) if typed else None
        if typed:
            now = time.perf_counter()
            self.typing_gap, self.typed_at = now - self.typed_at, now
            self.on_typed()
        self.query_text = value
        self.run(value, parse_query(value, self.cursor))  # the one parse of this keystroke

    def finish(self) -> None:
        """The box was left (enter, esc): the search is done, and its last word is a whole word.
        A word that was already a word here keeps its count (see Vocabulary.expand); only a
        fragment's completions go."""
        if self.cursor is None:
            return
        self.cursor = None
        q = parse_query(self.query_text)
        if q.words or q.unapplied:  # (a wrong filter value passed over while typed lists no paper now)
            self.view.keep_paper_next()
            self.run(self.query_text, q)

    def run(self, value: str, q: Query) -> None:
        """Search ``value`` (parsed as ``q``): here when it is quick, else in a worker."""
        if self._can_search_inline(q, value):
            # Quick searches run right here, so the echoed key and the new list
            # land in the same frame (a worker's result waits for the next one).
            t = time.perf_counter()
            try:
                result = self.library.search.find(q, sort=self.view.sort)
            except Exception as exc:  # a fault of ours: said and logged, the app and the list stay
                self.view.cancel_workers("search")
                self.failed(value, exc)
                return
            self._seconds = time.perf_counter() - t
            self.view.cancel_workers("search")
            self._show(value, result, "")
        else:
            self.in_worker(value, q)

    def _can_search_inline(self, q: Query, query: str) -> bool:
        """Word searches and filters, while they stay quick; never what may build a model or a filter's
        table (see LibrarySearch.filter_tables_ready), or scan text (a phrase; in a big library, a
        compound, whose parts apart are read in the papers: "model-based" at 30k papers first
        folds every text, ~0.5 s)."""
        if self._seconds > limits.INLINE_SEARCH_SECONDS or self._is_queue(q, query):
            # (the triage queue is fitted again to the marks: in a worker, off the key's path)
            return False
        return (not self._slow(q) and (not self.needs_model(q, query) or self.library.discovery.similarity_ready)
                and self.library.search.filter_tables_ready(q))

    def _slow(self, q: Query) -> bool:
        """Whether ``q`` scans the papers' text: a phrase, or (in a big library) a compound."""
        return "phrase" in q.kinds or self._big_compound(q)

    def _big_compound(self, q: Query) -> bool:
        return len(self.library) > limits.BIG_LIBRARY and bool(self.library.search.compound_words(q))

    def needs_model(self, q: Query, query: str) -> bool:
        """Whether this search uses the similarity model (more like this, recommendations, topics)."""
        return bool(q.similar or q.recommend or "topic" in q.kinds
                    or (self.view.sort == "recommended" and not query.strip()))

    def next_sort(self) -> None:
        """The list's next order (``main.sort``), kept for the next start; said when the list, ranked
        by its words or by likeness, does not take it."""
        view = self.view
        # (the team's stars only where there is a team: alone, they are "star")
        offered = [s for s in SORTS if s != "team-stars" or len(self.library.team.members()) > 1]
        view.sort = offered[(offered.index(view.sort) + 1) % len(offered)] if view.sort in offered else offered[0]
        if hasattr(view.app, "remember_sort"):  # (the app that keeps places; this library's alone)
            view.app.remember_sort(view.sort)
        q = parse_query(self.query_text)
        if q.words:  # (a filter alone, as new: or tag:x, is sorted)
            view.notify(f"sort: {view.sort} (applies to a list without search words: words rank by match)")
        elif q.similar or q.recommend:
            view.notify(f"sort: {view.sort} (applies to a list without {'similar:' if q.similar else 'rec:'}, "
                        "which orders by likeness)")
        view.keep_paper_next()  # (the highlighted paper stays highlighted, wherever the new order puts it)
        self.again()

    def again(self) -> None:
        """Search the current query again, in a worker (the library or the sort changed)."""
        self.in_worker(self.query_text, parse_query(self.query_text, self.cursor))

    def in_worker(self, query: str, q: Query) -> None:
        """Search ``query`` (parsed as ``q``) in a thread worker (cancelling the one before)."""
        self.view.run_in_thread(partial(self._search_in_thread, query, q), group="search")

    def _search_in_thread(self, query: str, q: Query) -> None:
        """Phrase scans, filters whose tables are not built yet, and whatever waits for the
        similarity model."""
        worker = get_current_worker()

        def stale() -> bool:
            return worker.is_cancelled or query != self.query_text

        if len(self.library) > limits.BIG_LIBRARY and self._slow(q):
            time.sleep(limits.PHRASE_SETTLE)
            if stale():
                return  # typed on: only the query the typing settles on is searched
        if self.needs_model(q, query) and not self.library.discovery.similarity_ready:
            try:
                self.ensure_model()  # the helper's one build (a big library), not a second one here
            except Exception:
                pass  # the search below builds it here, or says why it cannot
            if stale():
                return
        t = time.perf_counter()
        try:
            result = self.library.search.find(q, sort=self.view.sort)  # reads one snapshot of the annotations
        except Exception as exc:
            if not worker.is_cancelled:
                self.view.app.call_from_thread(self.failed, query, exc)
            return
        if not self._slow(q):
            self._seconds = time.perf_counter() - t  # a quick one again: back to inline
        if stale():
            return  # the user typed on; this result is stale
        queue = self._is_queue(q, query)
        # the list first; the header's estimate of the queue after it (the stopping test takes
        # ~14 ms at 6k papers: not on the list's path)
        self.view.app.call_from_thread(self._show, query, result, None if queue else "")
        if queue:
            screening = self._screening_words(q, query)
            if not stale():
                self.view.app.call_from_thread(self._say_screening, query, screening)

    def _show(self, query: str, result: SearchResult, screening: str | None) -> None:
        """A result set to the list; ``screening``: the header's queue estimate ("" none, None:
        kept until the new one comes)."""
        if screening is not None:
            self.view.counts.screening = screening
        self.shown_sorted = result.sorted
        self.view.show_results(query, result)

    def _say_screening(self, query: str, words: str) -> None:
        if query == self.query_text:
            self.view.counts.screening = words
            self.view.counts.show_header(self.view.counts.result_note)

    def _is_queue(self, q: Query, query: str) -> bool:
        """Whether the list is the triage queue (rec:stars, or the recommended sort of the whole list)."""
        return q.recommend == "stars" or (not query.strip() and self.view.sort == "recommended")

    def _screening_words(self, q: Query, query: str) -> str:
        """How far down the triage queue is worth reading (the header says it while the list is the
        queue: rec:stars or the recommended sort); "" for any other list."""
        if not self._is_queue(q, query):
            return ""
        estimate = self.library.discovery.screening.estimate()
        if estimate is not None:
            return estimate.words()
        if any(a.status != "unread" or a.star or a.tags for a in self.library.annotations.values()):
            return "no paper marked wanted yet (to-read, read, a star or a tag): none found to count from"
        # (rec:stars says why it is empty in its own words; the sort keeps the list, in import order)
        return "" if q.recommend else "nothing marked yet: in import order until a mark (the queue learns from every one)"

    def failed(self, query: str, exc: Exception) -> None:
        """A search raised: the traceback goes to the library's log and one line to the screen. The
        search this library was left with (restored at start) is dropped, so that the plain list
        opens, and the next start does not meet it again."""
        from store.logbook import record_exception

        restored = query == self.restored
        what = "the saved search" if restored else "search"
        log = record_exception(self.library.folder, f"{what} {query!r}", exc)
        if restored:
            self.restored = None
            self.view.notify(f"dropped the saved search {query!r} ({type(exc).__name__}: {exc}); "
                             f"the details are in {log}", severity="warning", timeout=15)
            self.view.search_box.value = ""
        else:
            self.view.notify(f"search {query!r} failed ({type(exc).__name__}: {exc}); the details are in {log}",
                             severity="error", timeout=15)

    def opening_list(self) -> SearchResult:
        """The whole library in the saved sort; when that sort cannot be had, in the import order,
        said and logged."""
        try:
            return self.library.search.find("", sort=self.view.sort)
        except Exception as exc:  # noqa: BLE001 (any failure of a saved sort: the app opens all the same)
            from store.logbook import record_exception

            log = record_exception(self.library.folder, f"the saved sort {self.view.sort!r}", exc)
            self.view.notify(f"dropped the saved sort {self.view.sort!r} ({type(exc).__name__}: {exc}); the details "
                             f"are in {log}", severity="warning", timeout=15)
            self.view.sort = "import"
            return self.library.search.find("", sort=self.view.sort)

    def estimate_soon(self) -> None:
        """The header's estimate of how far to read, for the opening list when it is the queue (the
        recommended sort kept from the last visit), in a worker as a search's is."""
        q = parse_query("")
        if self._is_queue(q, ""):
            def estimate() -> None:
                words = self._screening_words(q, "")
                if not get_current_worker().is_cancelled:
                    self.view.app.call_from_thread(self._say_screening, "", words)
            self.view.run_in_thread(estimate, group="search")

    def resume(self, query: str, paper: str | None) -> None:
        """Put back the search the library was left with, its results staying on ``paper``."""
        self.view.stay_on(paper)
        self.restored = query  # dropped, if it fails (see failed)
        self.view.search_box.value = query

    def remember(self, query: str) -> None:
        """A search the user left the box with joins the history (once, as the newest)."""
        query = query.strip()
        self._recalled = None
        if query:
            if query in self.history:
                self.history.remove(query)
            self.history.append(query)

    def recall(self) -> None:
        """Put the next older search in the box; typing keeps it as the start of a new one."""
        box = self.view.search_box
        if self._recalled is None or box.value != self._recalled[0][self._recalled[1]]:
            older = [q for q in reversed(self.history) if q != box.value.strip()]
            if not older:
                self.view.notify("no earlier search", timeout=2)
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

    def recommending(self) -> bool:
        """Whether the list is a recommendation (rec: in the query, or the recommended sort of the
        whole library or of a list of filters alone, as topic:14)."""
        query = self.query_text.strip()
        return query.startswith("rec:") or (self.view.sort == "recommended" and (not query or self.shown_sorted))
