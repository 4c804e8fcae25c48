"""What the fetch key (F) does: ask for arXiv categories, fetch their newest papers in the
background (every wait said as a notice), keep the feed in the library's fetched/ folder and import
it as one batch, as the command line's ``papersift fetch`` does (store.ingest.daily).

The fetch runs in a thread of its own that quitting does not wait for: arXiv may ask for waits of
minutes, and a Textual worker's thread is joined when the app closes. Nothing is written until the
whole feed has arrived, so a fetch cut short by quitting leaves the library as it was."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable

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
        self._thread: threading.Thread | None = None

    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def fetch(self) -> None:
        """Open the dialog, offering the categories of the last feed kept; fetch what it gives."""
        from store.ingest.daily import last_categories

        if self.running():
            self.view.notify("a fetch is running already", timeout=4)
            return

        def chosen(asked: tuple[list[str], str] | None) -> None:
            if asked is not None:
                categories, since = asked
                self.view.notify(f"fetching the newest papers of {', '.join(categories)} from arXiv…", timeout=4)
                self._thread = threading.Thread(target=self._fetch_in_thread, args=(categories, since),
                                                name="papersift-fetch", daemon=True)
                self._thread.start()

        self.view.app.push_screen(FetchScreen(last_categories(self.library.folder)), chosen)

    def _fetch_in_thread(self, categories: list[str], since_text: str) -> None:
        from store.ingest.arxiv_names import since_date
        from store.ingest.daily import fetch_into

        app = self.view.app

        def post(callback: Callable[..., object], *args: Any, **kwargs: Any) -> None:
            if not app.is_running:  # (closed: asking its loop would leave a coroutine never awaited)
                return
            try:
                app.call_from_thread(callback, *args, **kwargs)
            except RuntimeError:  # the app has closed meanwhile: no one to tell
                pass

        def say(text: str, severity: SeverityLevel = "information", timeout: float = 8) -> None:
            post(self.view.notify, display_safe(text, False), severity=severity, timeout=timeout, markup=False)

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
        post(self.triage.import_path, saved)
