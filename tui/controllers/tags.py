"""The tag keys: the tag panel opened, walked and left, a tag typed or taken from its completions,
and the list filtered by the highlighted tag."""

from __future__ import annotations

from typing import TYPE_CHECKING

from store.tags import normalize_tag, tag_problem

from ..keymap import key_label
from ..widgets.reader import Reader
from ..widgets.results import ResultsList

if TYPE_CHECKING:
    from textual.widget import Widget

    from store import Library

    from .triage import Triage
    from .view import MainView


class Tags:
    """The tag panel's keys.

    Args:
        library: whose tags change.
        view: the main screen (the panel, the list, the search box).
        triage: the triage keys (a tag is applied as they apply a change: to the selection or the
            highlighted paper, through the write queue).
    """

    def __init__(self, library: Library, view: MainView, triage: Triage) -> None:
        self.library = library
        self.view = view
        self.triage = triage
        self.came_from: Widget | None = None  # where `t` was pressed: esc in the tag panel goes back there
        self._just_added: str | None = None  # the tag enter last added in the open panel (filter_by_highlighted)

    def open(self, widget: Widget) -> None:
        """Focus ``widget`` of the tag panel (its input, or the library's tags)."""
        # esc goes back where `t` was pressed: the reader stays the reader (with the list's room
        # on a narrow terminal, the panel over it), the list the list.
        view = self.view
        self.came_from = view.focused if isinstance(view.focused, (Reader, ResultsList)) else view.results
        view.set_class(True, "-tagging")  # shows the panel on narrow terminals
        view.set_focus(widget)
        if widget is view.all_tags:  # in the list itself, its first row is where enter starts
            view.tag_panel.move_highlight(0)

    def leave(self) -> None:
        """Back where `t` was pressed; a half-typed tag is dropped (the next `t` starts empty)."""
        self._just_added = None
        self.view.tag_panel.reset()
        self.view.set_class(False, "-tagging")
        self.view.set_focus(self.came_from or self.view.results)

    def focus_moved(self) -> None:
        """Focus left the tag panel another way than esc (tab, a click): the panel closes as esc
        closes it, its half-typed tag dropped, so a later `t` never applies it to another paper."""
        view = self.view
        focused = view.focused
        if view.has_class("-tagging") and focused is not None and view.tag_panel not in focused.ancestors_with_self:
            view.tag_panel.reset()
            view.set_class(False, "-tagging")

    def apply_highlighted(self) -> None:
        """Enter in the tag box: the highlighted row (a completion, a keyword, or "+ new tag")."""
        choice = self.view.tag_panel.choice()
        if choice:
            self.apply_text(choice)
            return
        typed = self.view.tag_input.value.strip()
        problem = tag_problem(normalize_tag(typed.lstrip("-"))) if typed.lstrip("-") else None
        if problem:
            self.view.notify(problem[0].upper() + problem[1:], severity="warning")
        elif typed.startswith("-") and typed.lstrip("-"):
            self.view.notify(f"No tag like #{normalize_tag(typed[1:])} to take off", severity="warning")
        elif not self.view.tag_panel.rows:  # no tag yet, and this paper has no keywords
            self.view.notify("Type a tag, then enter")
        else:
            down = key_label(self.view.app, "tags.next")
            self.view.notify(f"Type a tag, or {down} to pick one from the list, then enter")

    def move_highlight(self, step: int) -> None:
        self.view.tag_panel.move_highlight(step)

    def apply_text(self, text: str) -> None:
        """Add the tag ``text`` (``-tag``: remove it) to the selection or the highlighted paper."""
        text = text.strip()
        if not text:
            return
        if text.startswith("-"):
            self.triage.apply(lambda ids: self.library.marks.remove_tags(ids, [text[1:]]), what=f"#{text[1:]} taken off",
                              unchanged=f"no #{normalize_tag(text[1:])} to take off")
            self._just_added = None
        else:
            self.triage.apply(lambda ids: self.library.marks.add_tags(ids, [text]), what=f"#{text} added",
                              unchanged=f"already tagged #{normalize_tag(text)}")
            self._just_added = normalize_tag(text)
        self.view.tag_panel.reset()

    def filter_by_highlighted(self) -> None:
        """The list filtered by the highlighted tag; with none highlighted and nothing typed, by the
        tag enter just added (the panel's highlight goes as the tag is added)."""
        query = self.view.tag_panel.highlighted_filter()
        if query is None and self._just_added and not self.view.tag_input.value.strip():
            query = f"tag:{self._just_added}"
        if query is None:
            down = key_label(self.view.app, "tags.next")
            self.view.notify(f"Pick a tag first: type it, or {down} to highlight one")
        else:
            self.view.search_box.value = query
            self.leave()
