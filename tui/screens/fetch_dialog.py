"""The fetch dialog (F): which arXiv categories, and since when, to fetch without leaving the app.

The dialog only asks and checks what was typed (categories as arXiv names them, a date);
:class:`~tui.controllers.daily.Daily` fetches in a worker and imports the feed as another
process's import would, so the screen never waits for arXiv.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from store.errors import PapersiftError
from store.ingest.arxiv_names import check_categories, since_date

from ..keymap import TypingKeys, binding, key_label
from ..widgets.footer import Footer


class FetchInput(TypingKeys, Input):
    """A box of the dialog: its keys act on the dialog (see keymap.binding)."""

    BINDINGS = [binding("fetch.run", "Fetch", action="screen.run"),
                binding("fetch.cancel", "Cancel", action="screen.cancel")]


class FetchScreen(ModalScreen[tuple[list[str], str] | None]):
    """Dismisses with (categories, since: a date or '' for the last day), or None."""

    DEFAULT_CSS = """
    FetchScreen { align: center middle; }
    FetchScreen > Vertical { width: 84; max-width: 100%; height: auto; border: thick $accent; background: $surface; padding: 0 1; }
    FetchScreen Label { width: 100%; }
    FetchScreen #fetch-error { color: $error; }
    """

    def __init__(self, categories: list[str]) -> None:
        super().__init__()
        self.categories = categories

    def compose(self) -> ComposeResult:
        with Vertical():
            run, cancel = key_label(self.app, "fetch.run"), key_label(self.app, "fetch.cancel")
            yield Label(f"[b]Fetch from arXiv[/b]   [dim]tab moves · {run} fetches · {cancel} cancels[/dim]")
            yield Label("The newest papers of these categories, imported as one batch (search new: to list "
                        "it); the feed is kept in the library's fetched/ folder.", classes="dim")
            yield FetchInput(value=" ".join(self.categories), placeholder="categories: cs.LG cs.RO stat.ML",
                             id="fetch-categories")
            yield FetchInput(placeholder="since (a date, 2026-12-01): empty for the last day", id="fetch-since")
            yield Label("", id="fetch-error")
        yield Footer()  # this dialog's keys, over the main screen's

    def on_mount(self) -> None:
        self.query_one("#fetch-categories", FetchInput).focus()

    def action_run(self) -> None:
        categories = self.query_one("#fetch-categories", FetchInput).value.replace(",", " ").split()
        since = self.query_one("#fetch-since", FetchInput).value.strip()
        try:
            check_categories(categories)
            since_date(since)
        except PapersiftError as exc:
            said = str(exc).replace("papersift fetch arxiv ", "").replace("--since ", "since ")
            self.query_one("#fetch-error", Label).update(Text(said))
            return
        self.dismiss((categories, since))

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Changed)
    def _typed(self) -> None:
        """What was said of the boxes before is about other values now."""
        self.query_one("#fetch-error", Label).update("")
