"""The results list: one row per paper, rendering only the rows on screen.

Built on the Line API (``ScrollView.render_line``) like Textual's ``Log``:
the cost of a repaint is the visible rows, whatever the number of results, so
30,000 papers scroll and filter as quickly as 30. Each row shows a selection
mark, the status glyph, stars, the title with matched words highlighted, and
tag chips.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from store import Library
from store.safe_text import display_safe

from ..keymap import binding
from .result_row import row_text

DIVIDER = "── weaker matches: most but not all words ──"
NO_FULL_MATCH = "── no paper has every word; the best partial matches ──"


class ResultsList(ScrollView, can_focus=True):
    """Virtual list of papers (corpus indices) with a cursor and a multi-selection."""

    BINDINGS = [
        binding("list.cursor_down", "Down", show=False),
        binding("list.cursor_up", "Up", show=False),
        binding("list.first", "First", show=False),
        binding("list.last", "Last", show=False),
        binding("list.page_down", "Page down", show=False),
        binding("list.page_up", "Page up", show=False),
        binding("list.open_reader", "Open", action="screen.open_reader"),  # not "Read": r marks read
        binding("list.clear_filter", "Clear search, then selection", show=False, action="screen.clear_filter"),
        binding("list.select", "Select"),
        binding("list.select_all", "Select all", show=False),
    ]
    COMPONENT_CLASSES = {"results--cursor", "results--match", "results--tag", "results--star", "results--dim"}
    DEFAULT_CSS = """
    ResultsList { background: $surface; overflow-x: hidden; }
    ResultsList > .results--cursor { background: $accent 40%; text-style: bold; }
    ResultsList:focus > .results--cursor { background: $accent; color: $text; }
    ResultsList > .results--match { color: $warning; text-style: bold underline; }
    ResultsList > .results--tag { color: $secondary; }
    ResultsList > .results--star { color: $warning; }
    ResultsList > .results--dim { color: $text-muted; }
    """

    class Highlighted(Message):
        """The cursor moved to another paper (index into the corpus, or None)."""

        def __init__(self, paper_index: int | None) -> None:
            self.paper_index = paper_index
            super().__init__()

    def __init__(self, library: Library, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.library = library
        self.indices: np.ndarray = np.arange(0)
        self.cursor = 0
        self.selected: set[str] = set()
        self.unapplied: list[str] = []  # what the current search could not apply as written (its errors)
        self.matched: set[str] = set()
        # The result set's size: rows from here on are weaker matches, below a divider line (None:
        # every row is in the set). Rows are papers; lines are what is drawn (the divider is one).
        self.full: int | None = None

    # ------------------------------------------------------------ content
    def set_results(self, indices: np.ndarray, matched: set[str], keep_paper: bool = False,
                    full: int | None = None, pin: bool = False) -> None:
        """Show new results; the cursor goes to the top (or stays on its paper). ``full``: how
        many lead as the result set (the rest follow a divider as weaker matches). ``pin`` (with
        ``keep_paper``): a recommended list ranked again after a mark: the rows above the cursor
        stay as they were and the paper on its row; only the rows below take the new order."""
        current = self.current_index if keep_paper else None
        pinned_at: int | None = None
        if current is not None and pin and len(indices):
            # the rows above the cursor (passed over) keep their order, the paper its row (less the
            # rows above that left the list; a paper marked away from the list: the next one takes
            # its row), and the rows below are the new ranking's rest: reading on down meets the
            # paper now ranked first
            passed = self.indices[:self.cursor]
            passed = passed[np.isin(passed, indices)]
            here = [current] if current in indices else []
            rest = indices[~np.isin(indices, np.append(passed, here))]
            indices = np.concatenate([passed, here, rest]).astype(indices.dtype)
            pinned_at = len(passed)
        self.indices = indices
        self.matched = matched
        self.full = full if full is not None and full < len(indices) else None
        pos = 0
        if pinned_at is not None:
            pos = min(pinned_at, max(len(indices) - 1, 0))
        elif current is not None:
            hits = np.flatnonzero(indices == current)
            pos = int(hits[0]) if len(hits) else min(self.cursor, max(len(indices) - 1, 0))
        self._set_virtual_height(self._lines())
        self._move_to(pos, force=True)
        self.refresh()

    def _lines(self) -> int:
        return len(self.indices) + (self.full is not None)

    def _line(self, row: int) -> int:
        """The line a row is drawn on (past the divider, one further down)."""
        return row + (self.full is not None and row >= self.full)

    def _row(self, line: int) -> int | None:
        """The row drawn on a line (None: the divider)."""
        if self.full is None or line < self.full:
            return line
        return None if line == self.full else line - 1

    @property
    def set_ids(self) -> list[str]:
        """The ids of the result set (the rows above the divider), in list order."""
        papers = self.library.corpus.papers
        return [papers[int(i)].id for i in self.indices[:self.full]]

    def _set_virtual_height(self, rows: int) -> None:
        """The scrollable height is the result count. Setting ``virtual_size`` lays out the
        whole screen again (the reader re-wraps its abstract to measure it), on every
        keystroke; that is needed only when the scrollbar appears or disappears. Otherwise
        the scrollbar is told the new height and the list repaints alone."""
        new = Size(self.size.width, rows)
        if new == self.virtual_size:
            return
        viewport = self.scrollable_content_region.height
        overflows = rows > viewport
        if not viewport or overflows != (self.virtual_size.height > viewport) \
                or overflows != self.show_vertical_scrollbar:
            self.virtual_size = new  # the scrollbar comes or goes: lay out
            return
        self.set_reactive(ResultsList.virtual_size, new)
        if overflows:
            scrollbar = self.vertical_scrollbar
            scrollbar.window_virtual_size = rows
            scrollbar.refresh()
        self.refresh()

    @property
    def current_index(self) -> int | None:
        """Corpus index of the highlighted paper."""
        if 0 <= self.cursor < len(self.indices):
            return int(self.indices[self.cursor])
        return None

    def _move_to(self, pos: int, force: bool = False) -> None:
        pos = max(0, min(pos, len(self.indices) - 1)) if len(self.indices) else 0
        changed = pos != self.cursor or force
        old = self.cursor
        self.cursor = pos
        if len(self.indices):
            self.scroll_to_region(Region(0, self._line(pos), 1, 1), animate=False, force=True, immediate=True)
        self.refresh_row(old)
        self.refresh_row(pos)
        if changed:
            self.post_message(self.Highlighted(self.current_index))

    def refresh_row(self, row: int) -> None:  # (not ScrollView.refresh_lines: that takes a line and a count)
        self.refresh(Region(0, self._line(row) - int(self.scroll_offset.y), self.size.width, 1))

    # ------------------------------------------------------------ actions
    def action_cursor_down(self) -> None:
        self._move_to(self.cursor + 1)

    def action_cursor_up(self) -> None:
        self._move_to(self.cursor - 1)

    def action_first(self) -> None:
        self._move_to(0)

    def action_last(self) -> None:
        self._move_to(len(self.indices) - 1)

    def action_page_down(self) -> None:
        self._move_to(self.cursor + max(self.size.height - 1, 1))

    def action_page_up(self) -> None:
        self._move_to(self.cursor - max(self.size.height - 1, 1))

    class SelectionChanged(Message):
        """The set of selected papers changed (the screen shows the count)."""

    def action_select(self) -> None:
        idx = self.current_index
        if idx is None:
            return
        pid = self.library.corpus.papers[idx].id
        self.selected.symmetric_difference_update({pid})
        self.refresh()
        self.post_message(self.SelectionChanged())
        self._move_to(self.cursor + 1)

    def shown_ids(self) -> list[str]:
        """The ids of the papers in the list, in list order."""
        papers = self.library.corpus.papers
        return [papers[int(i)].id for i in self.indices]

    def action_select_all(self) -> None:
        """Select every paper of the result set (a search, a tag filter: not the weaker matches
        below the divider); if all are selected, unselect them."""
        if self.unapplied:  # the list shows everything because a filter was not applied: never "all of it"
            self.notify(f"the search has a filter that is not applied ({self.unapplied[0]}): fix it to select its "
                        "papers", severity="warning", timeout=6)
            return
        shown = set(self.set_ids)
        if shown <= self.selected:
            self.selected -= shown
        else:
            self.selected |= shown
        self.refresh()
        self.post_message(self.SelectionChanged())

    def clear_selection(self) -> None:
        self.selected.clear()
        self.refresh()
        self.post_message(self.SelectionChanged())

    def move_to_paper(self, corpus_index: int) -> bool:
        """Jump to a paper (a restart's or a reload's paper), shown mid-list with the rows around it:
        once laid out, for at a start the list's height is not known yet."""
        hits = np.flatnonzero(self.indices == corpus_index)
        if len(hits):
            self._move_to(int(hits[0]))
            self.call_after_refresh(self._center_cursor)
            return True
        return False

    def _center_cursor(self) -> None:
        if len(self.indices):
            self.scroll_to_region(Region(0, self._line(self.cursor), 1, 1), animate=False, force=True,
                                  immediate=True, center=True)

    def on_click(self, event: events.Click) -> None:
        row = self._row(int(self.scroll_offset.y) + event.y)
        if row is not None:
            self._move_to(row)

    # ------------------------------------------------------------ rendering
    _base_style: Style | None = None

    _styles: dict[str, Style] | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        # The widget's base style walks its ancestors' backgrounds, and each component
        # style is a CSS lookup: once per paint, not per row.
        self._base_style = self.rich_style
        self._styles = {name: self.get_component_rich_style(f"results--{name}")
                        for name in ("cursor", "match", "tag", "star", "dim")}
        try:
            return super().render_lines(crop)
        finally:
            self._base_style = None
            self._styles = None

    def _style(self, name: str) -> Style:
        styles = self._styles
        return styles[name] if styles is not None else self.get_component_rich_style(f"results--{name}")

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        line = int(scroll_y) + y
        width = self.size.width
        base = self._base_style or self.rich_style
        if not len(self.indices) and self.unapplied:
            return self._said_line(line, width, base)
        row = self._row(line)
        if row is None:
            text = Text(DIVIDER if self.full else NO_FULL_MATCH, style=self._style("dim"), no_wrap=True, end="")
            strip = Strip(text.render(self.app.console), text.cell_len)
            return strip.crop_extend(scroll_x, scroll_x + width, base).apply_offsets(scroll_x, line)
        if row >= len(self.indices) or int(self.indices[row]) >= len(self.library.corpus):
            return Strip.blank(width, base)  # (a row of a corpus just replaced: redrawn once searched)
        text = self._row_text(row)
        if row == self.cursor:
            text.stylize(self._style("cursor"))
        strip = Strip(text.render(self.app.console), text.cell_len)
        return strip.crop_extend(scroll_x, scroll_x + width, base).apply_offsets(scroll_x, line)

    _said: tuple[tuple[str, ...], int, list[Strip]] | None = None

    def _said_line(self, line: int, width: int, base: Style) -> Strip:
        """A line of what an empty list says instead of papers: why the search lists none (an
        unknown filter), whole, wrapped to the list's width."""
        said = self._said
        if said is None or said[:2] != (tuple(self.unapplied), width):
            text = Text("\n".join(display_safe(e, False) for e in self.unapplied), style=self._style("match"))
            lines = text.wrap(self.app.console, max(width - 2, 10))
            strips = [Strip([Segment(" "), *piece.render(self.app.console)], piece.cell_len + 1) for piece in lines]
            said = self._said = (tuple(self.unapplied), width, strips)
        strips = said[2]
        if line >= len(strips):
            return Strip.blank(width, base)
        return strips[line].crop_extend(0, width, base).apply_offsets(0, line)

    def _row_text(self, row: int) -> Text:
        paper = self.library.corpus.papers[int(self.indices[row])]
        assignee = self.library.assignments.get(paper.id)
        return row_text(paper, self.library.annotations.get(paper.id), paper.id in self.selected,
                        assignee if assignee != self.library.member else None,  # (one's own share: no name)
                        self.matched, self.scrollable_content_region.width, self._style)  # (width: not the scrollbar)

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, self._lines())
