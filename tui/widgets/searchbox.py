"""The search box: a search runs as each key is handled; up recalls earlier searches."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

from ..compat import ImmediateInput
from ..keymap import TypingKeys, binding
from .results import ResultsList

if TYPE_CHECKING:
    class SearchHistory(Protocol):
        """What the box calls on its screen (the main screen's, see tui.screens.main_search)."""

        def remember_search(self, query: str) -> None: ...
        def recall_search(self) -> None: ...


class SearchBox(TypingKeys, ImmediateInput):
    BINDINGS = [binding("search.done", "Back to list"),
                binding("search.previous", "Earlier search", show=False)]

    def value_changed_now(self, value: str) -> None:
        # Search while the key is handled, not from the Changed message: the echoed key and the
        # new list are drawn in one frame (see tui.compat).
        from ..screens.main import MainScreen  # (the screen imports this widget)

        screen = self.screen if self.is_mounted else None
        if isinstance(screen, MainScreen):
            screen.search_changed(value)

    def action_done(self) -> None:
        cast("SearchHistory", self.screen).remember_search(self.value)
        self.screen.set_focus(self.screen.query_one(ResultsList))

    def action_previous(self) -> None:
        cast("SearchHistory", self.screen).recall_search()

    # A paste arrives as one line (Input keeps only the first; see tui.compat): ids copied with I,
    # one per line, list those papers; a title copied over two lines is searched whole.
