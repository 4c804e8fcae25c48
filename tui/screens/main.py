"""The main screen: search box and results list, reader, tagging panel.

Triage keys act on the highlighted paper (or on the selection, when there is
one), save through the store's durable write at once, repaint what shows the
change, and (configurable) advance to the next paper after a status change.
Search runs in an exclusive thread worker; results of a query the user has
already changed are dropped.
"""

from __future__ import annotations

import subprocess
import sys
import time
import webbrowser
from pathlib import Path

import numpy as np
from textual import events, on, work
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.geometry import Region
from textual.screen import Screen
from textual.worker import get_current_worker

from store import Library, PapersiftError
from store.corpus import file_signature
from store.library import SORTS
from store.search.query import Query, parse_query
from store.text import counted

from ..clipboard import copy_text
from ..compat import ImmediateInput
from ..keymap import TypingKeys, binding, key_label
from ..messages import AnnotationsChanged
from ..render import plain_title
from ..widgets.footer import Footer
from ..widgets.header import TriageHeader
from ..widgets.reader import Reader
from ..widgets.results import ResultsList
from ..widgets.tagpanel import TagInput, TagPanel
from ..writes import Writes
from .confirm import ConfirmScreen
from .note import NoteScreen


class SearchBox(TypingKeys, ImmediateInput):
    BINDINGS = [binding("search.done", "Back to list"),
                binding("search.previous", "Earlier search", show=False)]

    def value_changed_now(self, value: str) -> None:
        # Search while the key is handled, not from the Changed message: the echoed key and the
        # new list are drawn in one frame (see tui.compat).
        screen = self.screen if self.is_mounted else None
        if isinstance(screen, MainScreen):
            screen.search_changed(value)

    def action_done(self) -> None:
        self.screen.remember_search(self.value)
        self.screen.set_focus(self.screen.query_one(ResultsList))

    def action_previous(self) -> None:
        self.screen.recall_search()

    # A paste arrives as one line (Input keeps only the first; see tui.compat): ids copied with I,
    # one per line, list those papers; a title copied over two lines is searched whole.


# Papers above which the reader and "more like this" wait for a pause and a helper builds the model.
BIG_LIBRARY = 2000
AUTO_MODEL_MAX = 100_000   # papers; above this the similarity model is built only when asked for (m)
SIMILAR_DELAY = 0.15       # seconds
READER_DELAY = 0.15        # seconds: the reader follows the search results once typing pauses
INLINE_SEARCH_SECONDS = 0.015  # searches quicker than this run on the UI thread (see search_changed)
# A "phrase" in a big library waits this long in its worker before searching, and is dropped if a
# key came meanwhile: a worker cannot be stopped once it runs, and typing '"capacity' at 300k
# papers ran a search per key (each ~0.3 s; 1.5 s after the last key, where one search takes 0.5 s).
PHRASE_SETTLE = 0.12        # seconds: a key every 125 ms is brisk typing


class MainScreen(Screen):
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
                yield SearchBox(placeholder=f"{search_key} search · typos ok · status: tag: star:>=2", id="search")
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
        result = self.library.search("", sort=self.sort)
        self._show_results("", result)
        self._show_reader_now()  # nothing is being typed yet: the first paper at once
        self.set_focus(self.query_one(ResultsList))
        self._tell_problems()
        if query:  # the search the library was left with; its results keep the cursor on the paper
            if len(self.library) <= BIG_LIBRARY:
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
        if len(self.library) <= AUTO_MODEL_MAX or self.library.similarity_cache_fresh():
            self.set_timer(1.0 if len(self.library) > BIG_LIBRARY else 0.05, self.prepare_similarity)

    def _resume_search(self, query: str, paper: str | None) -> None:
        self._stay_on = paper
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
        keep_paper, self._keep_paper = keep_paper or self._keep_paper, False
        results = self.results
        results.set_results(result.indices, result.matched_terms, keep_paper=keep_paper, full=result.full)
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
        if len(self.library) <= BIG_LIBRARY:
            self._show_current()
        else:
            # Typing in a big library: the list repaints now, the reader (a full
            # re-render of an abstract) once the typing pauses.
            self._reader_timer = self.set_timer(READER_DELAY, self._reader_due)
            self._reader_timer_paper = results.current_index

    def _reader_due(self) -> None:
        self._reader_timer = None
        self._show_current()

    def _show_reader_now(self) -> None:
        if self._reader_timer is not None:
            self._reader_timer.stop()
            self._reader_due()

    def _recommending(self) -> bool:
        """Whether the list is a recommendation (rec: in the query, or the recommended sort)."""
        query = self.query_text.strip()
        return query.startswith("rec:") or (not query and self.sort == "recommended")

    def _show_current(self) -> None:
        idx = self.results.current_index
        self._left_at = self.library.corpus.papers[idx].id if idx is not None else None
        reader = self.query_one(Reader)
        reader.recommendation = (self.library.last_recommendations.get(self._left_at)
                                 if self._recommending() else None)
        reader.show(idx)
        self._show_reader_title()
        if idx is not None and len(self.library) > 1 and self.library.similarity_ready:
            self._similar_soon(idx)
        self.query_one(TagPanel).show_paper(self.library.corpus.papers[idx].id if idx is not None else None)

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
            self.run_search(self.query_text)

    def _poll_other_processes(self) -> None:
        signature = file_signature(self.library.corpus_path)  # one stat every 2 s
        if (signature != self.library.corpus.file_signature and not self._reading_corpus
                and signature != self._unreadable_corpus):
            self._reading_corpus = True
            self._read_corpus(signature)
        try:
            changed = self.library.refresh()
        except (PapersiftError, OSError) as exc:  # damaged by hand or by a disk error: never written over
            if str(exc) != self._annotations_problem:  # said once, not every poll
                self._annotations_problem = str(exc)
                self.notify(f"could not read the annotations on disk: {exc}", severity="error", timeout=15)
            return
        self._annotations_problem = None
        self._tell_problems()
        if changed:
            self.repaint()

    def _tell_problems(self) -> None:
        """Damage the library found in its journal (kept in backups/): said as it is found."""
        for problem in self.library.take_problems():
            self.notify(problem, severity="warning", timeout=30)

    @work(exclusive=True, thread=True, group="corpus")
    def _read_corpus(self, signature: tuple | None) -> None:
        """Another process imported (or split) papers: read its corpus off the UI thread (~1.3 s
        at 300k papers), then install it there. ``signature``: the file's, when the poll saw it
        change (remembered if it cannot be read, so it is said once)."""
        try:
            read = self.library.read_changed_corpus()
        except (PapersiftError, OSError) as exc:  # damaged, or gone (a library folder deleted)
            self.app.call_from_thread(self._corpus_unreadable, str(exc), signature)
            return
        self.app.call_from_thread(self._reload_papers, read)

    def _corpus_unreadable(self, message: str, signature: tuple | None) -> None:
        self._reading_corpus = False
        self._unreadable_corpus = signature  # said once: tried again when the file changes again
        self.notify(f"could not read the papers another process wrote: {message}", severity="error", timeout=10)

    def _reload_papers(self, read) -> None:
        """Install the corpus read by :meth:`_read_corpus` and search again, staying on the paper shown."""
        self._reading_corpus = False
        before = len(self.library)
        idx = self.results.current_index
        shown = self.library.corpus.papers[idx].id if idx is not None else None
        if read is None or not self.library.install_corpus(*read):
            return
        self._triaged = None  # positions may have moved
        self._stay_on = shown
        if len(self.library) < before:  # papers removed elsewhere: no row may point past the end meanwhile
            self.results.set_results(np.arange(0), set())
        self.run_search(self.query_text)
        if read[0].file_signature is not None and read[0].file_signature == self._own_import:
            return  # this app's own import: its summary was said already
        added = len(self.library) - before
        self.notify(f"the library changed on disk: {added:+,} {'paper' if abs(added) == 1 else 'papers'}, "
                    f"{len(self.library):,} now" if added else "the library changed on disk: papers reloaded")

    @on(AnnotationsChanged)
    def _annotations_changed(self) -> None:
        self.repaint()

    # -------------------------------------------------------------- search
    def search_changed(self, value: str) -> None:
        """The search box's text changed (typed, pasted or set by an action)."""
        if value == self.query_text and self._searched_once:
            return
        self._searched_once = True
        self.query_text = value
        if self._can_search_inline(value):
            # Quick searches run right here, so the echoed key and the new list
            # land in the same frame (a worker's result waits for the next one).
            t = time.perf_counter()
            result = self.library.search(value, sort=self.sort)
            self._search_seconds = time.perf_counter() - t
            self.workers.cancel_group(self, "search")
            self._show_results(value, result)
        else:
            self.run_search(value)

    def _can_search_inline(self, query: str) -> bool:
        """Word searches and filters, while they stay quick; never what may build a model or a filter's
        table (see Library.filter_tables_ready), or scan text."""
        if self._search_seconds > INLINE_SEARCH_SECONDS:
            return False
        q = parse_query(query)
        return (not q.phrases and (not self._needs_model(q, query) or self.library.similarity_ready)
                and self.library.filter_tables_ready(q))

    def _needs_model(self, q: Query, query: str) -> bool:
        """Whether this search uses the similarity model (more like this, recommendations, topics)."""
        return bool(q.similar or q.recommend or q.topics or (self.sort == "recommended" and not query.strip()))

    @work(exclusive=True, thread=True, group="search")
    def run_search(self, query: str) -> None:
        worker = get_current_worker()
        q = parse_query(query)
        if len(self.library) > BIG_LIBRARY and q.phrases:
            time.sleep(PHRASE_SETTLE)
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
        result = self.library.search(query, sort=self.sort)  # reads one snapshot of the annotations
        if not q.phrases:
            self._search_seconds = time.perf_counter() - t  # a quick one again: back to inline
        if worker.is_cancelled or query != self.query_text:
            return  # the user typed on; this result is stale
        self.app.call_from_thread(self._show_results, query, result)

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
        # library), or is on its way once typing pauses (a big one: READER_DELAY), so the
        # abstract is not rendered again in the keystroke's frame. Moving the cursor shows
        # the paper at once (it also cancels a pending reader update, to show the newest).
        if self._reader_timer is not None:
            if self._reader_timer_paper != self.results.current_index:
                self._show_reader_now()
        elif self.query_one(Reader).paper_index != self.results.current_index:
            self._show_current()

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

    def action_more_like_this(self) -> None:
        """List the papers most like the highlighted one (escape returns to the full list)."""
        pid = self.current_paper_id()
        if pid and not self.library.similarity_ready and len(self.library) > AUTO_MODEL_MAX:
            # A huge library: the model (minutes of work) is built on request, in the helper.
            if not any(w.group == "prepare" and w.is_running for w in self.workers):
                self.prepare_similarity()
            again = key_label(self.app, "main.more_like_this")
            self.notify(f"building the similarity model for {len(self.library):,} papers in the background; "
                        f"press {again} again when the reader shows “More like this”")
            return
        if pid:
            self.query_one(SearchBox).value = f"similar:{pid}"
            self.set_focus(self.results)

    @work(exclusive=True, thread=True, group="prepare")
    def prepare_similarity(self) -> None:
        """Get the similarity model after the first paint: from its cache, else built by a helper.

        The helper is a separate process (``python -m store.discovery.prepare``) for big
        libraries, so the SVD uses another core and neither its memory nor the
        GIL is taken from the app while the user types; if it fails, the model
        is built here instead.
        """
        try:
            self.ensure_model()
        except Exception:
            return
        self.app.call_from_thread(self._show_current)

    def ensure_model(self) -> None:
        """The similarity model, from its cache, else built by the helper process (big libraries),
        else here. It blocks: call it from a worker (the topic browser's calls it too, so topics
        asked for before the helper starts wait for the helper's one build)."""
        lib = self.library
        if len(lib) > BIG_LIBRARY:
            lib.build_similarity_elsewhere(lambda: subprocess.run(
                [sys.executable, "-m", "store.discovery.prepare", str(lib.folder)], check=False,
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        _ = lib.similarity  # (built, or loaded from the cache the helper wrote)

    def _similar_soon(self, paper_index: int) -> None:
        """Nearest papers for the reader once the cursor rests (big libraries).

        At 30k papers a lookup takes ~20 ms of CPU, much of it holding the GIL;
        run on every keystroke and every row passed while scrolling, it delayed
        the list's own repaint. Small libraries look up at once.
        """
        if self._similar_timer is not None:
            self._similar_timer.stop()
            self._similar_timer = None
        if len(self.library) <= BIG_LIBRARY:
            self.show_similar(paper_index)
        else:
            self._similar_timer = self.set_timer(SIMILAR_DELAY, lambda: self.show_similar(paper_index))

    @work(exclusive=True, thread=True, group="similar")
    def show_similar(self, paper_index: int) -> None:
        """Five nearest papers in the reader, computed off the UI thread."""
        try:
            sims = self.library.similarity.similar(paper_index, 5)
        except Exception:  # never let the side panel break reading
            return
        if get_current_worker().is_cancelled:
            return
        titles = [(i, self.library.corpus.papers[i].title) for i, _ in sims]
        self.app.call_from_thread(self._show_similar_titles, paper_index, titles)

    def _show_similar_titles(self, paper_index: int, titles: list[tuple[int, str]]) -> None:
        """:meth:`show_similar`'s answer, on the UI thread, where the reader is looked up: it may be
        gone by then (the app closing as the lookup finished), and a worker that looked it up
        itself failed, taking the app down with a traceback."""
        for reader in self.query(Reader):
            reader.show_similar(paper_index, titles)

    def action_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        settings = getattr(self.app, "settings", None)
        if settings is not None:
            settings.sort = self.sort
            self.app.save_settings()
        if self.query_text.strip():
            self.notify(f"sort: {self.sort} (applies when the search box is empty)")
        self.run_search(self.query_text)

    # -------------------------------------------------------------- triage
    def _apply(self, fn, advance: bool = False) -> None:
        many = bool(self.results.selected)
        shown, elsewhere = self._selection() if many else (self.targets(), [])
        ids = shown + elsewhere
        if not ids:
            return

        def landed(_result) -> None:
            if many:
                self.notify(f"applied to {counted(len(ids), 'selected paper')}"
                            + (f" ({len(elsewhere):,} of them not in this list)" if elsewhere else ""))
            self.repaint(ids)

        failed = self._write_failed
        queued = []
        self.writes.submit(lambda: fn(ids), landed, lambda exc: (failed(exc), queued.append(exc)))
        if queued:
            return  # refused (a tag that cannot be used, a full disk): no advance past it
        if many:
            self.results.clear_selection()
        if advance and not many and getattr(self.app, "settings", None) and self.app.settings.advance_after_triage:
            self.results.action_cursor_down()

    def _write_failed(self, exc: PapersiftError) -> None:
        self.notify(str(exc), severity="error")

    def action_read(self) -> None:
        self._apply(lambda ids: self.library.set_status(ids, "read"), advance=True)

    def action_to_read(self) -> None:
        self._apply(lambda ids: self.library.set_status(ids, "to-read"), advance=True)

    def action_skipped(self) -> None:
        self._apply(lambda ids: self.library.set_status(ids, "skipped"), advance=True)

    def action_unread(self) -> None:
        self._apply(lambda ids: self.library.set_status(ids, "unread"))

    def action_star_up(self) -> None:
        self._apply(lambda ids: self.library.bump_star(ids, 1))

    def action_star_down(self) -> None:
        self._apply(lambda ids: self.library.bump_star(ids, -1))

    def action_undo(self) -> None:
        self._history_step(self.library.undo, "undo")

    def action_redo(self) -> None:
        """Make again what the last undo reverted (one undo too many), until a new change is made."""
        self._history_step(self.library.redo, "redo")

    def _history_step(self, step, verb: str) -> None:
        papers = len(self.library)

        def landed(label) -> None:
            self.notify(f"{verb}ne: {label}" if label else f"nothing to {verb}")
            if len(self.library) != papers:
                self._after_corpus_change()  # a removal undone or redone: papers came back or went
            self.repaint()
        self.writes.submit(step, landed, self._write_failed)  # (a full disk, a damaged file: said)

    def action_tag(self) -> None:
        self._open_tags(self.query_one(TagInput))

    def action_focus_tags(self) -> None:
        self._open_tags(self.query_one("#all-tags"))

    def _open_tags(self, widget) -> None:
        # esc goes back where `t` was pressed: the reader stays the reader (with the list's room
        # on a narrow terminal, the panel over it), the list the list.
        self._tags_from = self.focused if isinstance(self.focused, (Reader, ResultsList)) else self.results
        self.add_class("-tagging")  # shows the panel on narrow terminals
        self.set_focus(widget)

    def action_leave_tags(self) -> None:
        self.remove_class("-tagging")
        self.set_focus(self._tags_from or self.results)

    def action_apply_tag(self) -> None:
        """Enter in the tag box: the highlighted row (a completion, a keyword, or "+ new tag")."""
        choice = self.query_one(TagPanel).choice()
        if choice:
            self._tag_text(choice)

    def action_tag_highlight(self, step: int) -> None:
        self.query_one(TagPanel).move_highlight(step)

    @on(TagPanel.Apply)
    def _apply_tag(self, event: TagPanel.Apply) -> None:
        self._tag_text(event.text)

    def _tag_text(self, text: str) -> None:
        text = text.strip()
        if not text:
            return
        if text.startswith("-"):
            self._apply(lambda ids: self.library.remove_tags(ids, [text[1:]]))
        else:
            self._apply(lambda ids: self.library.add_tags(ids, [text]))
        self.query_one(TagInput).value = ""

    def action_filter_by_tag(self) -> None:
        query = self.query_one(TagPanel).highlighted_filter()
        if query:
            self.query_one(SearchBox).value = query
            self.action_leave_tags()

    def action_import_files(self) -> None:
        from .importer import ImportScreen

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.notify(f"importing {path}…")
                self._import(path)

        self.app.push_screen(ImportScreen(getattr(self.app, "confinement", None)), chosen)

    @work(thread=True, group="import")
    def _import(self, path: Path) -> None:
        """Import as another process would: a second Library on this folder, in a thread. Its
        papers then arrive as another process's do (see :meth:`_poll_other_processes`). It holds the
        library lock only to merge and save (0.4 s for 2,610 papers into 29,100), so a triage key
        pressed meanwhile waits at most that long."""
        try:
            summary = Library(self.library.folder).import_paths([path], replace_sample=True)
        except (PapersiftError, OSError) as exc:  # a bad file is named with its line; nothing written
            self.app.call_from_thread(self.notify, f"nothing imported: {exc}", severity="error", timeout=15)
            return
        self.app.call_from_thread(self._imported, summary.line(), file_signature(self.library.corpus_path))

    def _imported(self, line: str, signature: tuple | None) -> None:
        self.notify(line, timeout=10)
        self._own_import = signature  # its papers arrive as another process's would, but unannounced
        self._poll_other_processes()

    def action_remove(self) -> None:
        """Remove the selection (or the highlighted paper) and its annotations, once confirmed."""
        ids = self.targets()
        if not ids:
            return
        annotated = sum(1 for i in ids if i in self.library.annotations)
        question = (f"Remove {counted(len(ids), 'paper')} from the library"
                    + (f", with the annotations of {annotated:,}" if annotated else "")
                    + f"? (a backup is taken; {key_label(self.app, 'main.undo')} brings them back)")

        def landed(n) -> None:
            self.notify(f"removed {counted(n, 'paper')}; {key_label(self.app, 'main.undo')} brings them back")
            self.results.clear_selection()
            self._after_corpus_change()

        def decided(yes: bool | None) -> None:
            if yes:
                self.writes.submit(lambda: self.library.remove(ids), landed, self._write_failed)

        self.app.push_screen(ConfirmScreen(question), decided)

    def _after_corpus_change(self) -> None:
        """This library's own corpus changed (a removal, or its undo): search again at once (the
        list's rows point into the old corpus), repaint."""
        self._triaged = None
        self._show_results(self.query_text, self.library.search(self.query_text, sort=self.sort), keep_paper=True)
        self.repaint()

    def action_topics(self) -> None:
        from .topics import TopicsScreen

        def chosen(topic: int | None) -> None:
            if topic is not None:
                self.query_one(SearchBox).value = f"topic:{topic}"
                self.set_focus(self.results)

        self.app.push_screen(TopicsScreen(self.library), chosen)

    def action_note(self) -> None:
        pid = self.current_paper_id()
        if pid is None:
            return
        paper = self.library.paper(pid)
        note = self.library.annotation(pid).note
        found = self.library.drafts.get(pid)
        if pid in self.unsaved_notes:  # neither saved nor kept on disk (a full disk): held here
            found = (self.unsaved_notes[pid], "")
        draft = found[0] if found and found[0] != note else None
        if draft is not None:
            when = f"kept {found[1][:16].replace('T', ' ')} UTC" if found[1] else "not yet on disk"
            self.notify(f"restored your unsaved draft of this note ({when}); "
                        f"{key_label(self.app, 'note.cancel')} discards it")

        def keep_draft(text: str | None) -> None:
            try:
                if text is None:
                    self.library.drafts.drop(pid)
                else:
                    self.library.drafts.keep(pid, text)
            except OSError as exc:  # a full disk: the text stays here, in memory
                if text is None:
                    self.unsaved_notes.pop(pid, None)
                else:
                    self.unsaved_notes[pid] = text
                self.notify(f"could not keep a draft of this note: {exc}", severity="warning")
            else:
                self.unsaved_notes.pop(pid, None)

        def saved(text: str | None) -> None:
            if text is None:
                return

            def failed(exc: PapersiftError) -> None:
                self.unsaved_notes[pid] = text  # whatever the drafts file could take: never lost
                self.notify(f"{exc}; the note is kept as a draft (press {key_label(self.app, 'main.note')} "
                            "to try again)", severity="error")

            def landed(_result) -> None:
                keep_draft(None)
                self.notify("note saved")
                self.repaint()
            self.writes.submit(lambda: self.library.set_note(pid, text), landed, failed)

        self.app.push_screen(NoteScreen(plain_title(paper.title), note, draft, keep_draft), saved)

    # ----------------------------------------------------- clipboard, links
    def _copy(self, text: str, what: str) -> None:
        where = copy_text(self.app, text)
        self.notify(f"copied {what} to the {where}")

    def action_copy_abstract(self) -> None:
        pid = self.current_paper_id()
        if pid:
            from ..render import render_abstract
            self._copy(render_abstract(self.library.paper(pid).abstract)[0].plain, "abstract")

    def action_copy_citation(self) -> None:
        pid = self.current_paper_id()
        if pid:
            from store.exchange.export import citation_line  # (not at start-up: it loads the export formats)
            self._copy(citation_line(self.library.paper(pid), self.library.annotation(pid)), "citation")

    def action_copy_ids(self) -> None:
        ids = self.targets()
        if ids:
            self._copy("\n".join(ids), counted(len(ids), "id"))

    def action_open_link(self) -> None:
        links = self.query_one(Reader).links
        if not links:
            self.notify("this paper has no link", severity="warning")
            return
        try:
            opened = webbrowser.open(links[0])
        except Exception:
            opened = False
        if opened:
            self.notify(f"opened {links[0]}")
        else:
            self._copy(links[0], "link (no browser found)")
