"""The main screen: search box and results list, reader, tagging panel.

The screen composes the widgets, routes each key's action to the controller that does it
(``tui/controllers/``: search, triage, reading, tags, sync, similar; each a plain class given
the library, this screen as its :class:`~tui.controllers.view.MainView` and the controllers it
calls) and does what concerns the whole screen: showing a result set, repainting after a change.
Triage keys act on the highlighted paper (or on the selection, when there is one), save through
the store's durable write at once and (configurable) advance after a status change. A search runs
as the key is handled while it is quick, else in an exclusive thread worker whose stale results
are dropped.
"""

from __future__ import annotations


from typing import TYPE_CHECKING, Any, Callable

from textual import events, on
from textual.app import ComposeResult
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
from ..widgets.tagpanel import TagInput, TagPanel
from ..controllers.counts import Counts
from ..controllers.daily import Daily
from ..controllers.reading import Reading
from ..controllers.search import Searching
from ..controllers.similar import Similar
from ..controllers.sync import Sync
from ..controllers import lab_sync
from ..controllers.lab_sync import LabSync
from ..controllers.sharing import Sharing
from ..controllers.tags import Tags
from ..controllers.triage import Triage
from ..writes import Writes
from ..opening import Opening
if TYPE_CHECKING:
    from textual.widget import Widget
    from textual.worker import Worker

    from store.search.result import SearchResult



class MainScreen(Screen[None]):
    CSS_PATH = "main.tcss"
    search_box: SearchBox
    results: ResultsList
    reader: Reader
    tag_panel: TagPanel
    counts: Counts
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
        binding("main.likely", "Most likely", show=False),
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
        binding("main.fetch", "Fetch from arXiv", show=False),
        binding("main.remove", "Remove papers", show=False),
    ]

    def __init__(self, library: Library) -> None:
        super().__init__()
        self.library = library
        self.writes: Writes | None = None  # made on mount (it needs the app)
        self.sort = "import"
        # Notes that could be neither saved nor kept as a draft on disk (a full disk): paper id -> text.
        # The editor offers them again, and the command line prints any left when the app closes.
        self.unsaved_notes: dict[str, str] = {}
        self._keep_paper = False  # the next list shown stays on its paper (a recommended list re-ranked)
        self._pin_paper = False  # ... and on its row, the others ranked around it
        self._stay_on: str | None = None  # a paper id the next results keep the cursor on
        self.opening: Opening | None = None  # where it opened, and the header's note about it (on mount)
        # The controllers, each given what it calls (see tui/controllers/view.py for what it uses of this screen).
        self.similar = Similar(library, self)
        self.search = Searching(library, self, ensure_model=self.similar.ensure_model, on_typed=self.similar.hold)
        self.sync = Sync(library, self, self.search)
        self.triage = Triage(library, self, self.search, self.sync)
        self.tags = Tags(library, self, self.triage)
        self.sharing = Sharing(library, self, self.triage)
        self.daily = Daily(library, self, self.triage)
        self.reading = Reading(library, self, self.search, self.similar, self.tags)

    def compose(self) -> ComposeResult:
        search_key = key_label(self.app, "main.search")
        # Kept as they are made: the screen never recomposes, and the controllers reach them often.
        self.search_box = SearchBox(placeholder=f"{search_key} search · typos ok · status: tag: star:>=2",
                                    id="search", on_value=self.search.changed)
        self.results = ResultsList(self.library, id="results")
        self.reader = Reader(self.library, id="reader")
        self.tag_panel = TagPanel(self.library, id="tags")
        header = TriageHeader(id="header")
        self.counts = Counts(self.library, self.results, header)
        yield header
        with Horizontal(id="panes"):
            with Vertical(id="left"):
                yield self.search_box
                yield self.results
            yield self.reader
            yield self.tag_panel
        yield Footer()

    def on_mount(self) -> None:
        self.writes = Writes(self.app, self.library.lock)
        self.sort = self.app.library_sort() if hasattr(self.app, "library_sort") else "import"
        if self.sort not in SORTS:
            self.sort = "import"
        query, paper, self.search.history = (self.app.library_place() if hasattr(self.app, "library_place")
                                             else ("", None, []))
        new, seen = getattr(self.app, "new_since_visit", (0, 0))
        self.opening = Opening.choose(self.library, (query, paper), new, seen, getattr(self.app, "updated_since_visit", 0),
                                      getattr(self.app, "resume", True))
        if note := self.opening.note(new):
            self.counts.standing = note
        self._stay_on = None if self.opening.query else self.opening.paper
        self.show_results("", self.search.opening_list())
        self.search.estimate_soon()  # (the queue kept from the last visit: how far to read)
        self.opening.shown = True  # from here, another query than the note's drops "312 new since your last visit"
        self.reading.show_now()  # nothing is being typed yet: the first paper at once
        self.set_focus(self.results)
        self.sync.tell_problems()
        self.opening.resume(self.search.resume, self.call_after_refresh,
                            lambda text, timeout: self.notify(text, timeout=timeout),
                            key_label(self.app, "list.clear_filter"), bool(self.results.cursor))
        self.tag_panel.refresh_tags()
        self.set_interval(2.0, self.sync.poll)
        self.lab_sync = LabSync(self.library, self, self.counts)  # a lab's git remote: synced now and every few minutes
        if self.lab_sync.run():
            self.set_interval(lab_sync.EVERY, self.lab_sync.run)
            self.set_interval(30.0, self.lab_sync.show)
        self.similar.model_soon()  # the model behind "more like this", after the list is up and usable

    def on_unmount(self) -> None:
        self.similar.end()
        if hasattr(self.app, "remember_place"):  # the next start picks up here
            self.app.remember_place(self.search.query_text, self.reading.left_at, self.search.history)

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < 110, "-narrow")
        self.set_class(event.size.width < 72, "-stacked")
        self.reading.show_title()  # only while the reader has the list's room

    @on(events.DescendantFocus)
    def _focus_moved(self) -> None:
        self.tags.focus_moved()
        self.reading.focus_moved()

    # ------------------------------------------------------------ its widgets
    # (results, reader, search_box and tag_panel are kept by compose)
    @property
    def tag_input(self) -> TagInput:
        return self.query_one(TagInput)

    @property
    def all_tags(self) -> Widget:
        return self.query_one("#all-tags")

    def readers(self) -> list[Reader]:
        return list(self.query(Reader))

    # ------------------------------------------------ Textual's, for the controllers
    def run_in_thread(self, fn: Callable[[], object], group: str, exclusive: bool = True) -> Worker[Any]:
        return self.run_worker(fn, group=group, exclusive=exclusive, thread=True)

    def cancel_workers(self, group: str) -> None:
        self.workers.cancel_group(self, group)

    def working(self, group: str) -> bool:
        return any(w.group == group and w.is_running for w in self.workers)

    # ----------------------------------------------------- the whole screen's
    @property
    def query_text(self) -> str:
        """The search box's text, as last searched."""
        return self.search.query_text

    def current_paper_id(self) -> str | None:
        return self.triage.current_paper_id()

    def show_current(self) -> None:
        self.reading.show_current()

    def corpus_changed(self) -> None:
        self.counts.forget_triaged()
        self.similar.model_soon()

    def stay_on(self, paper_id: str | None) -> None:
        self._stay_on = paper_id

    def keep_paper_next(self) -> None:
        self._keep_paper = True

    @on(ResultsList.SelectionChanged)
    def _selection_changed(self) -> None:
        self.counts.show_list_title()
        self.reading.show_tags()

    def show_results(self, query: str, result: SearchResult, keep_paper: bool = False) -> None:
        if query == self.search.restored:
            self.search.restored = None  # the saved search ran
        keep_paper, self._keep_paper = keep_paper or self._keep_paper, False
        pin, self._pin_paper = self._pin_paper, False
        results = self.results
        results.set_results(result.indices, result.matched_terms, keep_paper=keep_paper, full=result.full, pin=pin)
        results.unapplied = list(result.errors)  # (select-all refuses a list a bad filter left whole)
        self.reader.matched = result.matched_terms
        if self._stay_on is not None:  # after the papers were reloaded (see Sync)
            idx = self.library.corpus.index_of(self._stay_on)
            self._stay_on = None
            if idx is not None:
                results.move_to_paper(idx)
        # (a filter alone is sorted too, status:to-read; the default unsaid: room for "2 selected")
        sort = f" · sort: {self.sort}" if result.sorted and self.sort != "import" else ""
        if self.opening is not None:
            self.counts.standing = self.opening.note_after(query, result.found, self.counts.standing)
        self.counts.new_results(result, sort)
        self.reading.follow_results()

    def repaint(self, changed: list[str] | None = None, reader: bool = True) -> None:
        """Annotations changed (those of the papers ``changed``, when known): repaint rows, reader,
        tags, header and the list's unread count. ``reader`` False: the cursor moves to the next
        paper next (a triage key's advance) and the reader shows that one; the paper it shows now
        is not drawn again with its new status only to be replaced in the same frame (a layout
        pass of the whole screen each)."""
        self.counts.annotations_changed(changed)
        self.results.refresh()
        if reader:
            self.reading.show_current()
        self.tag_panel.refresh_tags()
        if changed is not None and self.search.recommending():
            # Learning as you go: a star or a status changes what is recommended; the list is ranked
            # again in a worker (the model is cached: the update is a small solve), staying on its paper
            # and its row (the row being read does not jump; the key main.likely goes to the first).
            self._keep_paper = self._pin_paper = True
            self.search.again()

    @on(AnnotationsChanged)
    def _annotations_changed(self) -> None:
        self.repaint()

    @on(ResultsList.Highlighted)
    def _highlighted(self) -> None:
        self.reading.highlighted()

    @on(TagPanel.Apply)
    def _apply_tag(self, event: TagPanel.Apply) -> None:
        self.tags.apply_text(event.text)

    def on_search_box_left(self, message: SearchBox.Left) -> None:
        """Enter or Escape in the box: its search joins the history, and is done."""
        self.search.remember(message.value)
        self.search.finish()

    def on_search_box_recall_asked(self, message: SearchBox.RecallAsked) -> None:
        self.search.recall()

    # ----------------------------------------------- the keys: each action's controller
    def action_search(self) -> None:
        # set_focus is synchronous; Widget.focus() is deferred and keys typed
        # right after "/" would still reach the list.
        self.set_focus(self.search_box)

    def action_clear_filter(self) -> None:
        box = self.search_box
        if box.value:
            # The whole library again, the cursor staying on the paper being looked at
            # (as mail readers do when a limit is lifted), not on the library's first paper;
            # more like this left where it opened (its first row) goes back to the paper it was for.
            self._stay_on = (self.results.cursor == 0 and self.similar.origin(box.value)) or self.current_paper_id()
            box.value = ""  # the box's watcher runs the search
        elif self.results.selected:
            self.results.clear_selection()

    def action_sort(self) -> None: self.search.next_sort()

    def action_topics(self) -> None:
        from .topics import TopicsScreen

        def chosen(topic: int | None) -> None:
            if topic is not None:
                self.search_box.value = f"topic:{topic}"
                self.set_focus(self.results)

        self.app.push_screen(TopicsScreen(self.library), chosen)

    def action_read(self) -> None: self.triage.set_status("read")
    def action_to_read(self) -> None: self.triage.set_status("to-read")
    def action_skipped(self) -> None: self.triage.set_status("skipped")
    def action_unread(self) -> None: self.triage.set_status("unread")
    def action_star_up(self) -> None: self.triage.bump_star(1)
    def action_star_down(self) -> None: self.triage.bump_star(-1)
    def action_undo(self) -> None: self.triage.undo()
    def action_redo(self) -> None: self.triage.redo()
    def action_note(self) -> None: self.triage.note()
    def action_import_files(self) -> None: self.triage.import_files()
    def action_fetch(self) -> None: self.daily.fetch()
    def action_remove(self) -> None: self.triage.remove()
    def action_copy_abstract(self) -> None: self.sharing.copy_abstract()
    def action_copy_citation(self) -> None: self.sharing.copy_citation()
    def action_copy_ids(self) -> None: self.sharing.copy_ids()
    def action_open_link(self) -> None: self.sharing.open_link()
    def action_open_reader(self) -> None: self.reading.open_reader()
    def action_reader_back(self) -> None: self.reading.back_to_list()
    def action_next_paper(self) -> None: self.reading.next_paper(1)  # from the reader: read in place
    def action_prev_paper(self) -> None: self.reading.next_paper(-1)
    def action_next_unread(self) -> None: self.reading.jump_unread(1)
    def action_likely(self) -> None: self.reading.jump_likely()
    def action_prev_unread(self) -> None: self.reading.jump_unread(-1)
    def action_more_like_this(self) -> None: self.similar.more_like_this()
    def action_tag(self) -> None: self.tags.open(self.tag_input)
    def action_focus_tags(self) -> None: self.tags.open(self.all_tags)
    def action_leave_tags(self) -> None: self.tags.leave()
    def action_apply_tag(self) -> None: self.tags.apply_highlighted()
    def action_tag_highlight(self, step: int) -> None: self.tags.move_highlight(step)
    def action_filter_by_tag(self) -> None: self.tags.filter_by_highlighted()
