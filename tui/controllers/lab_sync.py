"""A lab's git sync in the app: when the library has a remote (``papersift sync REMOTE`` once), the
app syncs on open and every few minutes, as ``papersift sync`` in a process of its own
(store.sync.library_sync), off the UI thread. What it brings in is read as any other process's writes are
(controllers.sync); the header says when it last synced and what came ("synced 2 min ago · ben +12
marks"), or, in a line, why it could not. The command line syncs once more as the app quits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

from store.safe_text import strip_unsafe
from store.sync.library_sync import remembered

if TYPE_CHECKING:
    from store import Library

    from .counts import Counts
    from .view import MainView

EVERY = 300.0  # seconds between syncs while the app is open
SYNC_TIMEOUT = 600.0  # the longest a sync's process may take


class LabSync:
    """The app's git sync.

    Args:
        library: the library whose remote is synced with.
        view: the main screen (its thread workers, its notifications).
        counts: the header's notes.
    """

    def __init__(self, library: Library, view: MainView, counts: Counts) -> None:
        self.library = library
        self.view = view
        self.counts = counts
        self._running = False
        self._synced_at: float | None = None  # monotonic time of the last sync that went through
        self._came = ""  # what it brought: "ben +12 marks; 40 papers arrived"

    def enabled(self) -> bool:
        return bool(remembered(self.library).get("remote"))

    def run(self) -> bool:
        """Sync now, in the background (not when one is running, or the library has no remote)."""
        if self._running or not self.enabled():
            return False
        self._running = True
        self.view.run_in_thread(self._sync, group="lab-sync", exclusive=False)
        return True

    def _sync(self) -> None:
        cmd = [sys.executable, "-m", "tui", "--library", str(self.library.folder), "--as", self.library.member,
               "sync", "--format", "json"]
        report: dict[str, Any] | None = None
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=SYNC_TIMEOUT, stdin=subprocess.DEVNULL,
                                  env={**os.environ, "NO_COLOR": "1"})
            if done.returncode == 0:
                report = json.loads(done.stdout)
                error = ""
            else:
                lines = [line for line in done.stderr.splitlines() if line.strip()]
                error = (lines[-1] if lines else f"exit {done.returncode}").removeprefix("error: ").removeprefix("sync: ")
        except subprocess.TimeoutExpired:
            error = f"it took over {SYNC_TIMEOUT / 60:.0f} min and was stopped"
        except (OSError, ValueError) as exc:
            error = str(exc)
        self.view.app.call_from_thread(self._done, report, strip_unsafe(error)[:200])

    def _done(self, report: dict[str, Any] | None, error: str) -> None:
        self._running = False
        if report is None:
            cause = error.split("): ", 1)[0] + ")" if "): " in error else error  # (the cause; the rest is in the notice)
            self.counts.lab_sync = f"sync failed: {cause}"
            self.view.notify(f"sync: {error}", severity="warning", timeout=10)
        else:
            first = self._synced_at is None
            self._synced_at = time.monotonic()
            if first and isinstance(report.get("assigned"), int) and report["assigned"] > 0:
                self._open_share()
            news = report.get("news")  # (what came in, as the sync's line says it: marks, papers, assignments)
            self._came = strip_unsafe(news)[:200] if isinstance(news, str) else ""
            self.show()
        self.counts.show_header(self.counts.result_note)

    def _open_share(self) -> None:
        """The app's first sync brought this member's share while the list shows the whole library
        the app opened on (it had none then): the list goes to the share, as an opening on one does."""
        from ..keymap import key_label
        member = self.library.member
        try:
            if self.library.refresh():  # (what the sync's process wrote: read now, not at the next poll)
                self.view.repaint()
        except Exception:  # (damage: the screen's poll says it)
            return
        if self.view.search_box.value.strip() or member not in self.library.assignments.values():
            return
        self.view.search_box.value = f"assigned:{member}"
        self.view.notify(f"your share arrived, {member}: the papers assigned to you · "
                         f"{key_label(self.view.app, 'list.clear_filter')} shows the whole library", timeout=8)

    def show(self) -> None:
        """The header's note, its "ago" brought up to date (the screen calls this every 30 s)."""
        if self._synced_at is None:
            return
        minutes = int((time.monotonic() - self._synced_at) // 60)
        ago = "just now" if minutes < 1 else f"{minutes} min ago" if minutes < 90 else f"{minutes // 60} h ago"
        self.counts.lab_sync = f"synced {ago}" + (f" · {self._came}" if self._came else "")
        self.counts.show_header(self.counts.result_note)
