"""The base of the main screen's mixins, for the type checker only.

At run time a mixin derives from ``object`` (the screen, :class:`~tui.screens.main.MainScreen`,
brings :class:`~textual.screen.Screen`); to mypy it derives from ``Screen[None]``, so what it
calls on the screen is checked, and a call to a member that does not exist is an error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.screen import Screen

    ScreenMixin = Screen[None]
else:
    ScreenMixin = object
