"""What screens and the command palette use of the app that runs them, as Protocols: they name
the app's members without importing :mod:`tui.app` (which imports them), so the import graph has
no circle and the type checker still checks each call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from textual.screen import Screen

    from store import Library

    from .controllers.lab_sync import LabSync
    from .controllers.triage import Triage
    from .widgets.reader import Reader
    from .widgets.results import ResultsList
    from .widgets.searchbox import SearchBox

    class MainScreenLike(Screen[None]):
        """The main screen as the palette targets it: a screen whose actions run, with its list,
        reader and search box, and the lab's sync."""

        results: ResultsList
        reader: Reader
        search_box: SearchBox
        lab_sync: LabSync


class ExportSource(Protocol):
    """What the export dialog reads of the main screen: its list (the result set, the selection)
    and the triage controller (which papers a selection means)."""

    @property
    def results(self) -> ResultsList: ...

    @property
    def triage(self) -> Triage: ...


class KeymapHost(Protocol):
    def current_keymap(self) -> dict[str, str]:
        """Action id -> the keys bound to it now (the user's keymap over the defaults)."""
        ...


class SettingsHost(Protocol):
    def save_settings(self) -> None:
        """Write the app's settings (the session's searches, sort, layout) to disk."""
        ...


class PaletteHost(KeymapHost, Protocol):
    main_screen: MainScreenLike
    library: Library
