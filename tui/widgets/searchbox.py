"""The search box: a search runs as each key is handled; up recalls earlier searches."""

from __future__ import annotations

from typing import Any, Callable

from textual.message import Message

from ..compat import ImmediateInput
from ..keymap import TypingKeys, binding
from .results import ResultsList


class SearchBox(TypingKeys, ImmediateInput):
    """The search box. Its screen passes ``on_value``, called as each key is handled (not from a
    message: the echoed key and the new list are then drawn in one frame, see tui.compat); leaving
    the box (focus goes to the list) and asking for an earlier search are posted up as messages."""

    BINDINGS = [binding("search.done", "Back to list"),
                binding("search.previous", "Earlier search")]

    class Left(Message):
        """The user left the box (Enter or Escape) with this search."""

        def __init__(self, value: str) -> None:
            super().__init__()
            self.value = value

    class RecallAsked(Message):
        """The user asked for the next earlier search."""

    def __init__(self, *args: Any, on_value: Callable[[str], None] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._on_value = on_value

    def value_changed_now(self, value: str) -> None:
        if self._on_value is not None and self.is_mounted:
            self._on_value(value)

    def action_done(self) -> None:
        self.post_message(self.Left(self.value))
        # The list takes the keys now, not when the message is handled: a burst of keys (fast
        # typing, tmux) already holds the next one.
        self.screen.set_focus(self.screen.query_one(ResultsList))

    def action_previous(self) -> None:
        self.post_message(self.RecallAsked())

    # A paste arrives as one line (Input keeps only the first; see tui.compat): ids copied with I,
    # one per line, list those papers; a title copied over two lines is searched whole.
