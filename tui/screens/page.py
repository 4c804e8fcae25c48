"""A modal page that scrolls (help, dashboard): the actions its keys run.

Each page binds its own keys (its context in keymap.toml: ``help.first``, ``dashboard.first`` ...:
:func:`page_bindings`); the actions are the same on every page, so they are written here once. The page's text sits in its
one ``VerticalScroll``; the keys scroll at once, not gliding, so a held key keeps up.
"""

from __future__ import annotations

from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen

from ..keymap import binding


def page_bindings(context: str, close: str) -> list[BindingType]:
    """A page's keys, from its context in keymap.toml: ``close`` (shown in the footer as
    ``close``, e.g. "Close help"), and the scrolling ones."""
    return [binding(f"{context}.close", close),
            binding(f"{context}.scroll_down", "Scroll down", show=False),
            binding(f"{context}.scroll_up", "Scroll up", show=False),
            binding(f"{context}.first", "Top", show=False), binding(f"{context}.last", "Bottom", show=False)]


class ScrollingPage(ModalScreen[None]):
    """A modal screen showing one ``VerticalScroll``: close, line up and down, top and bottom."""

    def action_close(self) -> None:
        self.dismiss(None)

    def action_scroll_down(self) -> None:
        self.query_one(VerticalScroll).scroll_down(animate=False)

    def action_scroll_up(self) -> None:
        self.query_one(VerticalScroll).scroll_up(animate=False)

    def action_first(self) -> None:
        self.query_one(VerticalScroll).scroll_home(animate=False)

    def action_last(self) -> None:
        self.query_one(VerticalScroll).scroll_end(animate=False)
