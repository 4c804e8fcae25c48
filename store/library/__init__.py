"""The Library: one object that owns the corpus, the annotations and the search index.

Open it at a folder (never at import time). Everything the CLI, the TUI, the exporters and the
benchmarks do to a library goes through this class. Writes take the library's cross-process lock
and are durable before the method returns.

The package's layout: :mod:`.core` holds the state (paths, lock, corpus, annotations, index) and
the operations every part shares; each part takes that core and does one job; the Library builds
the parts, passing each what it uses, and callers use each part by its name: ``lib.marks``
(status, stars, tags, notes), ``lib.search``, ``lib.discovery`` (more like this, the queue,
topics), ``lib.paper_changes`` (imports, retitling, near-duplicate merges), ``lib.team``
(members, assignments), ``lib.stats``. What spans parts (undo, redo, removal, a query's pairs)
is written here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, NamedTuple

from store import locations
from store.choices import MAX_STAR, STATUSES  # noqa: F401 (re-exported)
from store.errors import PapersiftError
from store.library.core import BULK_BACKUP_THRESHOLD, LibraryCore  # noqa: F401 (re-exported)
from store.library.discovery import Discovery
from store.library.marks import Marks
from store.library.papers import PaperChanges, redo_titles
from store.library.removal import finish_cut_step, redo_corpus, remove_papers
from store.library.search import SORTS, LibrarySearch  # noqa: F401 (re-exported)
from store.library.stats import LibraryStats
from store.library.team import Team
from store.models import Paper
from store.records import Annotation, RecordKey
from store.wording import counted


class HistoryStep(NamedTuple):
    """An undo or redo made: what it said, and the ids of the papers it changed (a removal's
    papers first, then those whose marks it changed, in the order the change listed them)."""

    label: str
    papers: list[str]


class Library(LibraryCore):
    """A library folder: its state (:class:`~store.library.core.LibraryCore`, the one base class)
    and the parts that work on it, each an attribute typed as its class, so "go to definition"
    and the type checker land on the code that runs."""

    def __init__(self, folder: Path | str, member: str | None = None) -> None:
        super().__init__(folder, member)
        self.stats = LibraryStats(self)  # what stats and the dashboard count
        self.discovery = Discovery(self, self.stats)  # more like this, recommendations, topics (their model)
        # The search tables built on first use (phrase texts, filter tables) are built by one thread at a
        # time: the app searches in a worker per keystroke, and a superseded worker runs on to the end.
        self.search = LibrarySearch(self, self.discovery)  # search, filters, sort orders (and their tables)
        self.paper_changes = PaperChanges(self)  # imports, retitling, near-duplicate merges
        self.marks = Marks(self)  # status, stars, tags and notes, each change one history entry
        self.team = Team(self, lambda: self.discovery.similarity.latent)  # members, assignments, everyone's marks
        self.on_invalidate(self.discovery.invalidate)
        self.on_invalidate(self.search.invalidate)
        try:  # a removal a kill cut short: finished before anything reads the library
            finished = finish_cut_step(self)
        except OSError as exc:  # (a read-only or full disk: the step stays marked, said, and is tried next time)
            finished = f"a removal cut short could not be finished: {exc.strerror or exc}"
        if finished:
            self.notices.append(finished)

    # ----------------------------------------------------------------- opening
    @classmethod
    def open(cls, folder: Path | str | None = None, seed_if_new: bool = True, member: str | None = None) -> "Library":
        """Open (creating if needed) a library; a brand-new one gets the bundled seeds.

        Args:
            folder: library folder; default from ``--library``/``PAPERSIFT_LIBRARY``/platformdirs.
            member: who is triaging (``--as``); default ``PAPERSIFT_USER`` or the login name.
            seed_if_new: import the bundled NeurIPS sample dumps into a library
                that has never had a corpus.
        """
        lib = cls(locations.library_dir(folder), member)
        if seed_if_new and not lib.corpus_path.exists():
            seeds = locations.bundled_seeds_dir()
            if seeds.is_dir():
                lib.paper_changes.import_paths([seeds])
        return lib

    def pairs(self, query: str = "", ids: Iterable[str] | None = None) -> list[tuple[Paper, Annotation]]:
        """(paper, annotation) for a query's results, or for the given ids, in list order."""
        if ids is not None:
            papers = [self.paper(i) for i in ids]
        else:
            result = self.search.find(query)
            if result.errors:  # (said as search and list say it)
                raise PapersiftError(f"the query {query!r}: " + "; ".join(result.errors))
            papers = [self.corpus.papers[int(i)] for i in result.matches]  # the result set, not weaker matches
        if not any(anns for name, anns in self.member_marks.items() if name != self.member):
            return [(p, self.annotation(p.id)) for p in papers]
        return [(p, self.team.with_marks(self.annotation(p.id))) for p in papers]  # a lab's: everyone's marks too

    def own_history(self, limit: int = 20) -> list[dict[str, Any]]:
        """This member's newest undo entries, newest first: what their undo would revert."""
        from store.annotations.database import made_by
        return [e for e in self.store.history(10_000) if made_by(e, self.member, self.owner)][:limit]

    def undo(self) -> str | None:
        """Undo this member's newest change (persisted across restarts). Returns its label, or None."""
        step = self.undo_step()
        return step and step.label

    def redo(self) -> str | None:
        """Make again the change this member's newest undo reverted (until they make a new change).
        Returns its label, or None."""
        step = self.redo_step()
        return step and step.label

    def undo_step(self) -> HistoryStep | None:
        """:meth:`undo`, telling which papers it changed (the app shows the first)."""
        return self._history_step(undone=True)

    def redo_step(self) -> HistoryStep | None:
        """:meth:`redo`, telling which papers it changed."""
        return self._history_step(undone=False)

    def _history_step(self, undone: bool) -> HistoryStep | None:
        with self.lock.held():
            self.refresh()
            self.refresh_corpus()
            step = self.store.undo if undone else self.store.redo
            entry = step(self.member, self.owner, lambda pid: self.corpus.index_of(pid) is not None)
            if entry is None:
                return None
            self.reload_annotations()
            marked = [RecordKey.parse(key).paper for key in (entry.get("before") or {})]
            self.touched.update(marked)
            removed = [str(rec["id"]) for rec in entry.get("papers") or [] if isinstance(rec, dict) and "id" in rec]
            papers = list(dict.fromkeys([*removed, *marked]))  # (a removal's papers, marked or not)
            said = redo_corpus(self, entry, undone=undone)  # a removal's papers, back or out
            self.store.clear_pending()  # (the corpus write the step marked pending is made)
            redo_titles(self, entry, undone=undone)  # a retitle's titles, back or again
            return HistoryStep(str(entry["label"]) + said, papers)

    def remove(self, ids: Iterable[str], label: str = "") -> int:
        """Remove papers and their annotations: a backup first, one undo step (see store.library.removal)."""
        ids = list(ids)
        return remove_papers(self, ids, label or f"remove {counted(len(set(ids)), 'paper')}")

    # ------------------------------------------------------------------- stats
