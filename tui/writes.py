"""The app's changes to the library, in order, without ever holding the UI thread on the lock.

A change is made at once when nothing is queued and the library lock is free (the usual case:
a triage key costs one journal append). When another papersift holds the lock (an import in
another terminal, a long export), the change goes to a writer thread that waits for the lock;
typing and navigation go on, later changes queue behind it in order, and each lands (the list
is repainted) or fails with a notice.
"""

from __future__ import annotations

import queue
import threading
from typing import TYPE_CHECKING, Any, Callable

from store.errors import PapersiftError

if TYPE_CHECKING:
    from textual.app import App

    from store.files.lock import LibraryLock

_Job = tuple[Callable[[], object], Callable[[object], None], Callable[[PapersiftError], None]]


class Writes:
    """Ordered, non-blocking writes for one screen.

    Args:
        app: the Textual app (for call_from_thread and notices).
        lock: the library's :class:`store.files.lock.LibraryLock`.
    """

    def __init__(self, app: App[Any], lock: LibraryLock) -> None:
        self.app = app
        self.lock = lock
        self.pending = 0  # queued or running on the writer thread (changed on the UI thread only)
        self._queue: queue.Queue[_Job] = queue.Queue()
        self._thread: threading.Thread | None = None
        self.unsaid: list[str] = []  # failures that came after the app closed (the CLI prints them)

    def submit(self, change: Callable[[], object], landed: Callable[[object], None],
               failed: Callable[[PapersiftError], None]) -> None:
        """Make ``change``; ``landed(result)`` or ``failed(error)`` follows on the UI thread (at once
        when the lock was free)."""
        if not self.pending:
            with self.lock.attempt() as got:
                if got:
                    try:
                        result = change()
                    except PapersiftError as exc:
                        failed(exc)
                        return
                    landed(result)
                    return
        self.pending += 1
        if self.pending == 1:
            self.app.notify("waiting for another papersift to finish writing to this library…", timeout=5)
        self._queue.put((change, landed, failed))
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="papersift-writes", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            change, landed, failed = self._queue.get()
            try:
                result = change()  # waits for the lock (up to its timeout)
            except PapersiftError as exc:
                self._back(failed, exc)
            except Exception as exc:  # noqa: BLE001 (a bug must not kill the writer thread silently)
                self._back(failed, PapersiftError(f"could not save the change: {exc!r}"))
            else:
                self._back(landed, result)
            finally:
                self._queue.task_done()

    def _back(self, then: Callable[[Any], None], value: object) -> None:
        def on_ui() -> None:
            self.pending -= 1
            then(value)
        try:
            self.app.call_from_thread(on_ui)
        except RuntimeError:  # the app has closed: a failure is said on the terminal (see drain)
            if isinstance(value, PapersiftError):
                self.unsaid.append(str(value))

    def drain(self, say: Callable[[str], None]) -> list[str]:
        """After the app closed: wait for queued changes to land (each waits for the lock up to its
        timeout); returns the failures no notice could tell."""
        if self._queue.unfinished_tasks:
            say(f"saving {self._queue.unfinished_tasks} change(s) that wait for another papersift…")
            self._queue.join()
        return self.unsaid
