"""A modal page that scrolls (help, dashboard), and one that picks a row (team, topics): the
actions their keys run.

Each page binds its own keys (its context in keymap.toml: ``help.first``, ``dashboard.first`` ...:
:func:`page_bindings`); the actions are the same on every page, so they are written here once. The page's text sits in its
one ``VerticalScroll``; the keys scroll at once, not gliding, so a held key keeps up.
"""

from __future__ import annotations

from typing import TypeVar

from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList

from ..keymap import binding

_Picked = TypeVar("_Picked")


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


class PickingPage(ModalScreen[_Picked | None]):
    """A modal screen whose ``OptionList`` offers rows to pick: close (picking none), down and up."""

    def action_close(self) -> None:
        self.dismiss(None)

    def action_down(self) -> None:
        self.query_one(OptionList).action_cursor_down()

    def action_up(self) -> None:
        self.query_one(OptionList).action_cursor_up()
