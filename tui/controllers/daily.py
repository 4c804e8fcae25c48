"""What the fetch key (F) does: ask for arXiv categories, fetch their newest papers in a worker
(every wait said as a notice), keep the feed in the library's fetched/ folder and import it as one
batch, as the command line's ``papersift fetch`` does (store.ingest.daily)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from store import Library, PapersiftError
from store.safe_text import display_safe
from store.wording import counted

from ..screens.fetch_dialog import FetchScreen

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from .triage import Triage
    from .view import MainView


class Daily:
    """The fetch dialog and the fetch behind it (``triage`` imports what was fetched)."""

    def __init__(self, library: Library, view: MainView, triage: Triage) -> None:
        self.library = library
        self.view = view
        self.triage = triage

    def fetch(self) -> None:
        """Open the dialog, offering the categories of the last feed kept; fetch what it gives."""
        from store.ingest.daily import last_categories

        if self.view.working("fetch"):
            self.view.notify("a fetch is running already", timeout=4)
            return

        def chosen(asked: tuple[list[str], str] | None) -> None:
            if asked is not None:
                categories, since = asked
                self.view.notify(f"fetching the newest papers of {', '.join(categories)} from arXiv…", timeout=4)
                self.view.run_in_thread(lambda: self._fetch_in_thread(categories, since), group="fetch",
                                        exclusive=False)

        self.view.app.push_screen(FetchScreen(last_categories(self.library.folder)), chosen)

    def _fetch_in_thread(self, categories: list[str], since_text: str) -> None:
        from store.ingest.arxiv_fetch import since_date
        from store.ingest.daily import fetch_into

        app = self.view.app

        def say(text: str, severity: SeverityLevel = "information", timeout: float = 8) -> None:
            app.call_from_thread(self.view.notify, display_safe(text, False), severity=severity, timeout=timeout,
                                 markup=False)

        since = since_date(since_text)
        try:
            got = fetch_into(self.library.folder, categories, since, note=say)
        except (PapersiftError, OSError) as exc:  # offline, refused, a file where fetched/ goes: nothing kept
            say(f"nothing fetched: {exc}", "error", 15)
            return
        if got.saved is None:
            say(f"nothing new on arXiv in {', '.join(categories)} since {since:%Y-%m-%d} "
                f"({counted(got.requests, 'request')}); the library is unchanged")
            return
        saved = got.saved
        say(f"fetched {counted(got.entries, 'entry', 'entries')} since {since:%Y-%m-%d}; importing them…", timeout=4)
        app.call_from_thread(self.triage.import_path, saved)
