"""Keeping the main screen in step with other papersift processes on the same library.

Every two seconds the screen stats the corpus file and refreshes the annotations: another
terminal's import is read off the UI thread and installed, another's triage repainted, and
damage found in the journal said once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from textual import work

from store import PapersiftError
from store.corpus import file_signature

from .mixin import ScreenMixin

if TYPE_CHECKING:

    from store import Library

    from ..widgets.results import ResultsList


class LibrarySync(ScreenMixin):
    """Mixin of :class:`~tui.screens.main.MainScreen`: the cross-process sync.

    Uses the screen's ``library``, ``results``, ``query_text``, ``search_again``, ``repaint`` and
    these flags, which the screen initialises."""

    library: Library
    query_text: str
    _reading_corpus: bool
    _unreadable_corpus: tuple | None
    _annotations_problem: str | None
    _own_import: tuple | None
    _triaged: np.ndarray | None
    _stay_on: str | None

    if TYPE_CHECKING:  # the screen's own and another mixin's (stubs at run time would shadow them)
        @property
        def results(self) -> ResultsList: ...
        def repaint(self, changed: list[str] | None = None) -> None: ...
        def search_again(self) -> None: ...

    def _poll_other_processes(self) -> None:
        signature = file_signature(self.library.corpus_path)  # one stat every 2 s
        if (signature != self.library.corpus.file_signature and not self._reading_corpus
                and signature != self._unreadable_corpus):
            self._reading_corpus = True
            self._read_corpus(signature)
        try:
            changed = self.library.refresh()
        except (PapersiftError, OSError) as exc:  # damaged by hand or by a disk error: never written over
            if str(exc) != self._annotations_problem:  # said once, not every poll
                self._annotations_problem = str(exc)
                self.notify(f"could not read the annotations on disk: {exc}", severity="error", timeout=15)
            return
        self._annotations_problem = None
        self._tell_problems()
        if changed:
            self.repaint()

    def _tell_problems(self) -> None:
        """Damage the library found in its journal (kept in backups/): said as it is found."""
        for problem in self.library.take_problems():
            self.notify(problem, severity="warning", timeout=30)

    @work(exclusive=True, thread=True, group="corpus")
    def _read_corpus(self, signature: tuple | None) -> None:
        """Another process imported (or split) papers: read its corpus off the UI thread (~1.3 s
        at 300k papers), then install it there. ``signature``: the file's, when the poll saw it
        change (remembered if it cannot be read, so it is said once)."""
        try:
            read = self.library.read_changed_corpus()
        except (PapersiftError, OSError) as exc:  # damaged, or gone (a library folder deleted)
            self.app.call_from_thread(self._corpus_unreadable, str(exc), signature)
            return
        self.app.call_from_thread(self._reload_papers, read)

    def _corpus_unreadable(self, message: str, signature: tuple | None) -> None:
        self._reading_corpus = False
        self._unreadable_corpus = signature  # said once: tried again when the file changes again
        self.notify(f"could not read the papers another process wrote: {message}", severity="error", timeout=10)

    def _reload_papers(self, read) -> None:
        """Install the corpus read by :meth:`_read_corpus` and search again, staying on the paper shown."""
        self._reading_corpus = False
        before = len(self.library)
        idx = self.results.current_index
        shown = self.library.corpus.papers[idx].id if idx is not None else None
        if read is None or not self.library.install_corpus(*read):
            return
        self._triaged = None  # positions may have moved
        self._stay_on = shown
        if len(self.library) < before:  # papers removed elsewhere: no row may point past the end meanwhile
            self.results.set_results(np.arange(0), set())
        self.search_again()
        if read[0].file_signature is not None and read[0].file_signature == self._own_import:
            return  # this app's own import: its summary was said already
        added = len(self.library) - before
        self.notify(f"the library changed on disk: {added:+,} {'paper' if abs(added) == 1 else 'papers'}, "
                    f"{len(self.library):,} now" if added else "the library changed on disk: papers reloaded")
