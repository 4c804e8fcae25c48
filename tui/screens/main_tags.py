"""Tags on the main screen: the tag panel opened, walked and left, a tag typed or taken from its
completions, and the list filtered by the highlighted tag."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..widgets.reader import Reader
from ..widgets.results import ResultsList
from ..widgets.searchbox import SearchBox
from ..widgets.tagpanel import TagInput, TagPanel
from .mixin import ScreenMixin

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.widget import Widget

    from store import Library


class TagActions(ScreenMixin):
    """Mixin of :class:`~tui.screens.main.MainScreen`: the tag keys.

    Uses the screen's ``library``, ``targets`` and write queue; remembers where ``t`` was pressed."""

    library: Library
    _tags_from: Widget | None

    if TYPE_CHECKING:  # the screen's own and another mixin's (stubs at run time would shadow them)
        @property
        def results(self) -> ResultsList: ...
        def _apply(self, fn: Callable[[list[str]], object], advance: bool = False) -> None: ...

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
