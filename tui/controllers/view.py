"""What the main screen's controllers use of the screen, as one Protocol.

The controllers (``tui/controllers/*``) are plain classes: each is given the library, this view
and the other controllers it calls, at construction. The view is the screen's side of the
bargain: its widgets, Textual's services (notices, timers, workers, focus, the app), and the few
things that concern the whole screen (showing a result set, repainting after a change). The
screen (:class:`tui.screens.main.MainScreen`) implements it; mypy checks each controller's use
against it, so a call to a member the screen does not have fails the type check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel
    from textual.timer import Timer
    from textual.widget import Widget
    from textual.worker import Worker

    from store.search.result import SearchResult

    from ..widgets.reader import Reader
    from .counts import Counts
    from ..widgets.results import ResultsList
    from ..widgets.searchbox import SearchBox
    from ..widgets.tagpanel import TagInput, TagPanel
    from ..writes import Writes


class MainView(Protocol):
    """The main screen, as its controllers see it."""

    sort: str  # the list's order when the search box is empty (cycled by `main.sort`)
    writes: Writes | None  # the screen's write queue (made on mount: it needs the app)
    unsaved_notes: dict[str, str]  # notes neither saved nor kept as a draft (a full disk)
    counts: Counts  # what the list's title and the header count (and say: the triage queue's estimate)

    # ------------------------------------------------------------- its widgets
    @property
    def results(self) -> ResultsList: ...
    @property
    def reader(self) -> Reader: ...
    @property
    def search_box(self) -> SearchBox: ...
    @property
    def tag_panel(self) -> TagPanel: ...
    @property
    def tag_input(self) -> TagInput: ...
    @property
    def all_tags(self) -> Widget: ...
    def readers(self) -> list[Reader]:
        """The reader, or none when the screen is gone (the app closing as a worker finished)."""
        ...

    # ------------------------------------------------------- Textual's services
    @property
    def app(self) -> App[Any]: ...
    @property
    def focused(self) -> Widget | None: ...
    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...
    def set_focus(self, widget: Widget | None, scroll_visible: bool = True) -> None: ...
    def set_timer(self, delay: float, callback: Callable[[], object] | None = None, *, name: str | None = None,
                  pause: bool = False) -> Timer: ...
    def call_after_refresh(self, callback: Callable[..., object], *args: Any, **kwargs: Any) -> bool: ...
    def has_class(self, *class_names: str) -> bool: ...
    def set_class(self, add: bool, *class_names: str, update: bool = True) -> Any: ...
    def refresh(self, *regions: Any, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Any: ...
    def run_in_thread(self, fn: Callable[[], object], group: str, exclusive: bool = True) -> Worker[Any]:
        """``fn`` in a thread worker of this screen (``exclusive``: cancels the group's others)."""
        ...
    def cancel_workers(self, group: str) -> None: ...
    def working(self, group: str) -> bool:
        """Whether a worker of ``group`` is running."""
        ...

    # ---------------------------------------------------- the whole screen's
    def current_paper_id(self) -> str | None:
        """The highlighted paper's id (None in an empty list)."""
        ...
    def show_current(self) -> None:
        """Show the highlighted paper in the reader and the tag panel again."""
        ...
    def show_results(self, query: str, result: SearchResult, keep_paper: bool = False) -> None:
        """Give the list (and the reader, the counts, the header) a search's result set."""
        ...
    def repaint(self, changed: list[str] | None = None, reader: bool = True) -> None:
        """Annotations changed (of the papers ``changed``, when known): repaint what shows them
        (the reader too, unless ``reader`` is False: the cursor moves on next)."""
        ...
    def corpus_changed(self) -> None:
        """The corpus changed (an import, a removal, a reload): paper positions moved (the triaged
        mask is taken again), and the more-like-this model the change dropped is made again."""
        ...
    def stay_on(self, paper_id: str | None) -> None:
        """The next result set keeps the cursor on ``paper_id`` (when it is in it)."""
        ...
    def keep_paper_next(self) -> None:
        """The next result set stays on the paper shown (a recommended list ranked again)."""
        ...
