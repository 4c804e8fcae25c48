"""The main screen: search box and results list, reader, tagging panel.

Triage keys act on the highlighted paper (or on the selection, when there is
one), save through the store's durable write at once, repaint what shows the
change, and (configurable) advance to the next paper after a status change.
Search runs in an exclusive thread worker; results of a query the user has
already changed are dropped.
"""

from __future__ import annotations


from typing import TYPE_CHECKING, cast

import numpy as np
from textual import events, on
from textual.containers import Horizontal, Vertical
from textual.screen import Screen

from store import Library
from store.library.search import SORTS

from ..keymap import binding, key_label
from ..messages import AnnotationsChanged
from ..widgets.footer import Footer
from ..widgets.header import TriageHeader
from ..widgets.reader import Reader
from ..widgets.results import ResultsList
from ..widgets.searchbox import SearchBox
from ..widgets.tagpanel import TagPanel
from ..writes import Writes
from . import limits
from .main_reading import ReaderNavigation
from .main_search import SearchController
from .main_similar import SimilarPapers
from .main_sync import LibrarySync
from .main_tags import TagActions
from .main_triage import TriageActions

if TYPE_CHECKING:
    from ..host import SettingsHost


class MainScreen(SearchController, ReaderNavigation, TagActions, LibrarySync, SimilarPapers, TriageActions,
                 Screen):
    CSS_PATH = "main.tcss"
    BINDINGS = [
        binding("main.search", "Search"),
        binding("main.read", "Read"),
        binding("main.to_read", "To-read"),
        binding("main.skipped", "Skip"),
        binding("main.unread", "Unread", show=False),
        binding("main.star_up", "Star+"),
        binding("main.star_down", "Star-", show=False),
        binding("main.tag", "Tag"),
        binding("main.note", "Note"),
        binding("main.next_unread", "Next unread", show=False),
        binding("main.prev_unread", "Previous unread", show=False),
        binding("main.undo", "Undo"),
        binding("main.redo", "Redo", show=False),
        binding("main.copy_abstract", "Copy abstract", show=False),
        binding("main.copy_citation", "Copy citation", show=False),
        binding("main.copy_ids", "Copy selected ids", show=False),
        binding("main.open_link", "Open link", show=False),
        binding("main.sort", "Sort", show=False),
        binding("main.more_like_this", "More like this", show=False),
        binding("main.focus_tags", "Tag panel", show=False),
        binding("main.topics", "Topics", show=False),
        binding("main.import_files", "Import", show=False),
        binding("main.remove", "Remove papers", show=False),
    ]

    def __init__(self, library: Library) -> None:
        super().__init__()
        self.library = library
        self.writes: Writes | None = None  # made on mount (it needs the app)
        self._keep_paper = False  # the next list shown stays on its paper (a recommended list re-ranked)
        self._own_import: tuple | None = None  # the corpus file this app's own import wrote (not announced)
        self.query_text = ""
        self._list_scroll_y = 0.0  # where the list was when the reader took its room (narrow terminals)
        self._annotations_problem: str | None = None  # the damaged annotations file, once reported
        self._tags_from = None  # where `t` was pressed: esc in the tag panel goes back there
        # Notes that could be neither saved nor kept as a draft on disk (a full disk): paper id -> text.
        # The editor offers them again, and the command line prints any left when the app closes.
        self.unsaved_notes: dict[str, str] = {}
        self.sort = "import"
        self._similar_timer = None
        self._reader_timer = None
        self._reader_timer_paper: int | None = None  # the paper the pending reader update is for
        self._search_seconds = 0.0
        self._list_counts = (0, 0, "", 0)  # result set, library size, sort note, weaker matches: the border title
        self._triaged: np.ndarray | None = None  # see _triaged_mask
        self._searched_once = False
        self._stay_on: str | None = None  # a paper id the next results keep the cursor on
        self._restored_query: str | None = None
        self._reading_corpus = False  # a thread is reading the corpus another process wrote
        self._unreadable_corpus: tuple | None = None  # signature of a corpus file that could not be read
        self._left_at: str | None = None  # the paper in the reader: where the library is left on quit
        self.search_history: list[str] = []  # searches left with enter/esc/down, oldest first
        self._recalled: tuple[list[str], int] | None = None  # up-arrow walk: older searches, position

    def compose(self):
        yield TriageHeader(id="header")
        with Horizontal(id="panes"):
            with Vertical(id="left"):
                search_key = key_label(self.app, "main.search")
                yield SearchBox(placeholder=f"{search_key} search · typos ok · status: tag: star:>=2", id="search",
                                on_value=self.search_changed)
                yield ResultsList(self.library, id="results")
            yield Reader(self.library, id="reader")
            yield TagPanel(self.library, id="tags")
        yield Footer()

    def on_mount(self) -> None:
        self.writes = Writes(self.app, self.library.lock)
        self.sort = self.app.settings.sort if hasattr(self.app, "settings") else "import"
        if self.sort not in SORTS:
            self.sort = "import"
        query, paper, self.search_history = (self.app.library_place() if hasattr(self.app, "library_place")
                                             else ("", None, []))
        if paper is not None and self.library.corpus.index_of(paper) is None:
            paper = None  # gone since (a merge, another library at the same path)
        self._stay_on = None if query else paper
        try:
            result = self.library.search("", sort=self.sort)
        except Exception as exc:  # the saved sort cannot be had: the import order, said and logged
            result = self._drop_saved_sort(exc)
        self._show_results("", result)
        self._show_reader_now()  # nothing is being typed yet: the first paper at once
        self.set_focus(self.query_one(ResultsList))
        self._tell_problems()
        if query:  # the search the library was left with; its results keep the cursor on the paper
            if len(self.library) <= limits.BIG_LIBRARY:
                self._resume_search(query, paper)
            else:  # after the first paint: at 300k papers the search takes ~0.5 s
                self.call_after_refresh(self._resume_search, query, paper)
            self.notify(f"back where you left off: {query} · "
                        f"{key_label(self.app, 'list.clear_filter')} clears the search", timeout=6)
        elif self.results.cursor:
            self.notify("back where you left off", timeout=4)
        self.query_one(TagPanel).refresh_tags()
        self.set_interval(2.0, self._poll_other_processes)
        # The model behind "more like this" is built after the list is up and usable.
        if len(self.library) <= limits.AUTO_MODEL_MAX or self.library.similarity_cache_fresh():
            self.set_timer(1.0 if len(self.library) > limits.BIG_LIBRARY else 0.05, self.prepare_similarity)

    def _drop_saved_sort(self, exc: Exception):
        from store.logbook import record_exception

        log = record_exception(self.library.folder, f"the saved sort {self.sort!r}", exc)
        self.notify(f"dropped the saved sort {self.sort!r} ({type(exc).__name__}: {exc}); the details are in {log}",
                    severity="warning", timeout=15)
        self.sort = "import"
        return self.library.search("", sort=self.sort)

    def _resume_search(self, query: str, paper: str | None) -> None:
        self._stay_on = paper
        self._restored_query = query  # dropped, if it fails (see search_failed)
        self.query_one(SearchBox).value = query

    def on_unmount(self) -> None:
        if hasattr(self.app, "remember_place"):  # the next start picks up here
            self.app.remember_place(self.query_text, self._left_at, self.search_history)

    def on_resize(self, event) -> None:
        self.set_class(event.size.width < 110, "-narrow")
        self.set_class(event.size.width < 72, "-stacked")
        self._show_reader_title()  # only while the reader has the list's room

    @on(events.DescendantFocus)
    def _reading_or_not(self) -> None:
        # On a narrow terminal the reader, once focused, takes the list's room too: at 80 columns an
        # abstract in half the width is three screens of scrolling, in the whole width about one.
        # Triage keys work there and advance as in the list; esc (or /) brings the list back.
        reader = self.query_one(Reader)
        reading = self.focused is reader or (self.has_class("-tagging") and self._tags_from is reader)
        if reading == self.has_class("-reading"):
            return
        if reading:
            self._list_scroll_y = self.results.scroll_y
        else:  # the list as it was left, scrolled only as far as the cursor (moved by triage) needs
            self.call_after_refresh(self._list_back_in_view, self._list_scroll_y)
        self.set_class(reading, "-reading")
        self._show_reader_title()

    # ------------------------------------------------------------- helpers
    @property
    def results(self) -> ResultsList:
        return self.query_one(ResultsList)

    def current_paper_id(self) -> str | None:
        idx = self.results.current_index
        return self.library.corpus.papers[idx].id if idx is not None else None

    def targets(self) -> list[str]:
        """The selection if there is one, else the highlighted paper."""
        if self.results.selected:
            shown, elsewhere = self._selection()
            return shown + elsewhere
        pid = self.current_paper_id()
        return [pid] if pid else []

    def _selection(self) -> tuple[list[str], list[str]]:
        """The selected papers in the current list (in list order) and those elsewhere (library
        order): a selection may be gathered over several searches."""
        selected, corpus = self.results.selected, self.library.corpus
        shown = [pid for pid in self.results.shown_ids() if pid in selected]
        elsewhere = sorted(i for i in map(corpus.index_of, selected.difference(shown)) if i is not None)
        return shown, [corpus.papers[i].id for i in elsewhere]

    def _show_list_title(self) -> None:
        """The results' border title: how many match, how many of those are still unread (a search
        or filter is a piece of work of its own: the header counts the whole library), the sort,
        how many are selected."""
        shown, total, sort, weaker = self._list_counts
        picked = len(self.results.selected)
        unread = ""
        if shown and shown < total:
            left = shown - int(np.count_nonzero(self._triaged_mask()[self.results.indices[:shown]]))
            unread = f" · {left:,} unread"
        # The count is the result set's (every word); weaker matches below the divider are not in it.
        more = f" · +{weaker:,} weaker" if weaker else ""
        self.results.border_title = (f"{shown:,} / {total:,}{unread}{more}{sort}"
                                     + (f" · {picked:,} selected" if picked else ""))

    def _triaged_mask(self) -> np.ndarray:
        """The library's triaged_mask, taken once per change to the annotations (see repaint), not
        on every keystroke."""
        if self._triaged is None or len(self._triaged) != len(self.library):
            self._triaged = self.library.triaged_mask()
        return self._triaged

    @on(ResultsList.SelectionChanged)
    def _selection_changed(self) -> None:
        self._show_list_title()

    def _update_header(self, note: str = "") -> None:
        total = len(self.library)
        triaged = self.library.triaged_count()
        self.query_one(TriageHeader).show(self.library.name, triaged, total, note)

    def _show_results(self, query: str, result, keep_paper: bool = False) -> None:
        if query == self._restored_query:
            self._restored_query = None  # the saved search ran
        keep_paper, self._keep_paper = keep_paper or self._keep_paper, False
        results = self.results
        results.set_results(result.indices, result.matched_terms, keep_paper=keep_paper, full=result.full)
        results.unapplied = list(result.errors)  # (select-all refuses a list a bad filter left whole)
        self.query_one(Reader).matched = result.matched_terms
        if self._stay_on is not None:  # after the papers were reloaded (see _poll_other_processes)
            idx = self.library.corpus.index_of(self._stay_on)
            self._stay_on = None
            if idx is not None:
                results.move_to_paper(idx)
        sort = f" · sort: {self.sort}" if not query.strip() else ""
        self._list_counts = (result.full, result.total, sort, result.weaker)
        self._show_list_title()
        self._update_header("; ".join(result.errors))
        if self._reader_timer is not None:
            self._reader_timer.stop()
            self._reader_timer = None
        if len(self.library) <= limits.BIG_LIBRARY:
            self._show_current()
        else:
            # Typing in a big library: the list repaints now, the reader (a full
            # re-render of an abstract) once the typing pauses.
            self._reader_timer = self.set_timer(limits.READER_DELAY, self._reader_due)
            self._reader_timer_paper = results.current_index

    def _recommending(self) -> bool:
        """Whether the list is a recommendation (rec: in the query, or the recommended sort)."""
        query = self.query_text.strip()
        return query.startswith("rec:") or (not query and self.sort == "recommended")

    def repaint(self, changed: list[str] | None = None) -> None:
        """Annotations changed (those of the papers ``changed``, when known): repaint rows, reader,
        tags, header and the list's unread count."""
        if changed is not None and self._triaged is not None:  # a triage key: only its papers
            for pid in changed:
                i = self.library.corpus.index_of(pid)
                if i is not None:
                    self._triaged[i] = self.library.annotation(pid).status != "unread"
        else:
            self._triaged = None  # rebuilt when next needed (7.7 ms at 29k annotated papers)
        self._show_list_title()
        self.results.refresh()
        self._show_current()
        self.query_one(TagPanel).refresh_tags()
        self._update_header()
        if changed is not None and self._recommending():
            # Learning as you go: a star or a status changes what is recommended; the list is ranked
            # again in a worker (the model is cached: the update is a small solve), staying on its paper.
            self._keep_paper = True
            self.search_again()

    @on(AnnotationsChanged)
    def _annotations_changed(self) -> None:
        self.repaint()

    def action_search(self) -> None:
        # set_focus is synchronous; Widget.focus() is deferred and keys typed
        # right after "/" would still reach the list.
        self.set_focus(self.query_one(SearchBox))

    def action_clear_filter(self) -> None:
        box = self.query_one(SearchBox)
        if box.value:
            # The whole library again, the cursor staying on the paper being looked at
            # (as mail readers do when a limit is lifted), not on the library's first paper.
            self._stay_on = self.current_paper_id()
            box.value = ""  # the box's watcher runs the search
        elif self.results.selected:
            self.results.clear_selection()

    # ---------------------------------------------------------- navigation
    @on(ResultsList.Highlighted)
    def _highlighted(self) -> None:
        # New results post this too: their first paper is already in the reader (a small
        # library), or is on its way once typing pauses (a big one: limits.READER_DELAY), so the
        # abstract is not rendered again in the keystroke's frame. Moving the cursor shows
        # the paper at once (it also cancels a pending reader update, to show the newest).
        if self._reader_timer is not None:
            if self._reader_timer_paper != self.results.current_index:
                self._show_reader_now()
        elif self.query_one(Reader).paper_index != self.results.current_index:
            self._show_current()

    def action_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        settings = getattr(self.app, "settings", None)
        if settings is not None:
            settings.sort = self.sort
            cast("SettingsHost", self.app).save_settings()  # (the app that has settings)
        if self.query_text.strip():
            self.notify(f"sort: {self.sort} (applies when the search box is empty)")
        self.search_again()

    @on(TagPanel.Apply)
    def _apply_tag(self, event: TagPanel.Apply) -> None:
        self._tag_text(event.text)

    def action_topics(self) -> None:
        from .topics import TopicsScreen

        def chosen(topic: int | None) -> None:
            if topic is not None:
                self.query_one(SearchBox).value = f"topic:{topic}"
                self.set_focus(self.results)

        self.app.push_screen(TopicsScreen(self.library), chosen)






