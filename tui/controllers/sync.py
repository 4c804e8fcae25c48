"""Keeping the main screen in step with other papersift processes on the same library.

Every two seconds the screen stats the corpus file and refreshes the annotations: another
terminal's import is read off the UI thread and installed, another's triage repainted, and
damage found in the journal said once.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from store import PapersiftError
from store.corpus import file_signature

if TYPE_CHECKING:
    from store import Library
    from store.corpus import Corpus
    from store.ingest.summary import ImportSummary

    from .search import Searching
    from .view import MainView

    Signature = tuple[int, int, int]  # a file's (inode, size, mtime): see store.corpus.file_signature


class Sync:
    """The cross-process sync.

    Args:
        library: the library other processes change too.
        view: the main screen (repainted; its list emptied while papers are removed elsewhere).
        search: the search controller (the library searched again when its papers changed).
    """

    def __init__(self, library: Library, view: MainView, search: Searching) -> None:
        self.library = library
        self.view = view
        self.search = search
        self._reading_corpus = False  # a thread is reading the corpus another process wrote
        self._unreadable_corpus: Signature | None = None  # signature of a corpus that could not be read
        self._annotations_problem: str | None = None  # the damaged annotations file, once reported
        self._own_import: Signature | None = None  # the corpus file this app's own import wrote
        self.imports: list[tuple[int, int]] = []  # this app's imports, each (new papers, batch): the quit line

    def poll(self) -> None:
        """Look for another process's changes (the screen calls this every 2 s)."""
        signature = file_signature(self.library.corpus_path)  # one stat every 2 s
        if (signature != self.library.corpus.file_signature and not self._reading_corpus
                and signature != self._unreadable_corpus):
            self._reading_corpus = True
            self.view.run_in_thread(partial(self._read_corpus, signature), group="corpus")
        try:
            changed = self.library.refresh()
        except (PapersiftError, OSError) as exc:  # damaged by hand or by a disk error: never written over
            if str(exc) != self._annotations_problem:  # said once, not every poll
                self._annotations_problem = str(exc)
                self.view.notify(f"could not read the annotations on disk: {exc}", severity="error", timeout=15)
            return
        self._annotations_problem = None
        self.tell_problems()
        if changed:
            self.view.repaint()

    def tell_problems(self) -> None:
        """Damage the library found in its journal (kept in backups/): said as it is found."""
        for problem in self.library.take_problems():
            self.view.notify(problem, severity="warning", timeout=30)

    def imported(self, summary: ImportSummary, signature: Signature | None) -> None:
        """This app's own import finished: said here, its papers arrive as another process's would."""
        self.view.notify(summary.line(), timeout=10)
        if summary.new:
            self.imports.append((summary.new, summary.batch))
        if summary.batch and hasattr(self.view.app, "saw_batch"):  # (shown here: not new next time)
            self.view.app.saw_batch(summary.batch)
        self._own_import = signature  # (unannounced when they arrive)
        self.poll()

    def _read_corpus(self, signature: Signature | None) -> None:
        """Another process imported (or split) papers: read its corpus off the UI thread (~1.3 s
        at 300k papers), then install it there. ``signature``: the file's, when the poll saw it
        change (remembered if it cannot be read, so it is said once)."""
        try:
            read = self.library.read_changed_corpus()
        except (PapersiftError, OSError) as exc:  # damaged, or gone (a library folder deleted)
            self.view.app.call_from_thread(self._corpus_unreadable, str(exc), signature)
            return
        self.view.app.call_from_thread(self._reload_papers, read)

    def _corpus_unreadable(self, message: str, signature: Signature | None) -> None:
        self._reading_corpus = False
        self._unreadable_corpus = signature  # said once: tried again when the file changes again
        self.view.notify(f"could not read the papers another process wrote: {message}", severity="error",
                         timeout=10)

    def _reload_papers(self, read: tuple[Corpus, Signature] | None) -> None:
        """Install the corpus read by :meth:`_read_corpus` and search again, staying on the paper shown."""
        self._reading_corpus = False
        before = len(self.library)
        results = self.view.results
        idx = results.current_index
        shown = self.library.corpus.papers[idx].id if idx is not None else None
        if read is None or not self.library.install_corpus(*read):
            return
        self.view.corpus_changed()  # positions may have moved
        self.view.stay_on(shown)
        if len(self.library) < before:  # papers removed elsewhere: no row may point past the end meanwhile
            results.set_results(np.arange(0), set())
        self.search.again()
        if read[0].file_signature is not None and read[0].file_signature == self._own_import:
            return  # this app's own import: its summary was said already
        if self.view.working("import"):
            return  # this app's import saved and its summary is on its way (a poll came between)
        added = len(self.library) - before
        self.view.notify(f"the library changed on disk: {added:+,} {'paper' if abs(added) == 1 else 'papers'}, "
                         f"{len(self.library):,} now" if added else "the library changed on disk: papers reloaded")
