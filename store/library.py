"""The Library: one object that owns the corpus, the annotations and the search index.

Open it at a folder (never at import time). Everything the CLI, the TUI, the
exporters and the benchmarks do to a library goes through this class. Writes
take the library's cross-process lock and are durable before the method
returns.
"""

from __future__ import annotations

import copy
import threading
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

import numpy as np

from store import locations

from store.search import quick
from store.annotations.database import AnnotationStore, now_iso
from store.annotations.atomic import PRIVATE_FOLDER, atomic_write_chunks, open_reading, refuse_links
from store.annotations.backups import backup_file
from store.corpus import Corpus, file_signature, migrate_v1
from store.annotations.drafts import NoteDrafts
from store.errors import PapersiftError
from store.annotations.lock import LibraryLock
from store.choices import MAX_STAR, STATUSES  # noqa: F401 (re-exported)
from store.models import (Annotation, Paper, normalize_tag, note_problem,  # noqa: F401 (re-exported)
                     tag_problem)
from store.search.packfile import stamp_matches, stamped
from store.library_discovery import Discovery
from store.library_papers import PaperChanges
from store.library_search import SORTS, LibrarySearch  # noqa: F401 (re-exported)
from store.search.result import SearchResult
from store.search.query import Query
from store.library_marks import Marks
from store.library_stats import LibraryStats
from store.removal import redo_corpus, remove_papers
from store.search.index import SearchIndex
from store.text import counted

if TYPE_CHECKING:
    from store.discovery.similar import Similarity
    from store.ingest.importer import ImportSummary
    from store.library_discovery import Recommendation

BULK_BACKUP_THRESHOLD = 10  # a change to this many papers at once is preceded by a backup


class Library:
    """A library folder: ``corpus.jsonl``, ``annotations.json``, an index cache, backups.

    The facade the CLI and the app use. Annotations, the corpus and the index are its own; its
    parts do the rest, and each method they do is written out below as one call to its part, so
    "go to definition" and the type checker land on the code that runs."""

    def __init__(self, folder: Path | str):
        self.folder = Path(folder).expanduser()
        locations.refuse_a_folder_of_other_files(self.folder)
        try:
            self.folder.mkdir(mode=PRIVATE_FOLDER, parents=True, exist_ok=True)
        except OSError as exc:  # a file of that name, a read-only place, ...
            why = "a file, not a folder" if self.folder.is_file() else exc.strerror or str(exc)
            raise PapersiftError(f"{self.folder}: cannot be used as a library folder ({why})") from None
        refuse_links(self.folder, locations.LIBRARY_DATA)  # a shared folder's links never lead us out
        self.corpus_path = self.folder / locations.CORPUS_FILE
        self.annotations_path = self.folder / locations.ANNOTATIONS_FILE
        self.index_path = self.folder / locations.INDEX_CACHE_FILE
        self.similar_path = self.folder / locations.SIMILAR_CACHE_FILE
        self.drafts = NoteDrafts(self.folder / locations.DRAFTS_FILE)
        self.lock = LibraryLock(self.folder / locations.LOCK_FILE)
        self._migrate_if_needed()
        self.corpus = Corpus.load(self.corpus_path) if self.corpus_path.exists() else Corpus()
        self.store = AnnotationStore(self.annotations_path)
        # Replaced whole on every change, never edited in place (see _install): worker threads read it.
        self.annotations: dict[str, Annotation] = self.store.load_all()
        self._index: SearchIndex | None = None
        self._index_lock = threading.Lock()
        self.discovery = Discovery(self)  # more like this, recommendations, topics (their model and caches)
        # The search tables built on first use (phrase texts, filter tables) are built by one thread at a
        # time: the app searches in a worker per keystroke, and a superseded worker runs on to the end.
        self.finder = LibrarySearch(self)  # search, filters, sort orders (and the tables they build)
        self.papers = PaperChanges(self)  # imports, retitling, near-duplicate merges
        self.counts = LibraryStats(self)  # what stats and the dashboard count
        self.marks = Marks(self)  # status, stars, tags and notes, each change one history entry

    def _migrate_if_needed(self) -> None:
        """A version-1 library (corpus.json) is converted once, with the old file kept in backups/."""
        old = self.folder / locations.CORPUS_FILE_V1
        if old.exists() and not self.corpus_path.exists():
            with self.lock.held():
                if old.exists() and not self.corpus_path.exists():
                    backup_file(old, "migrate-v1")
                    migrate_v1(old, self.corpus_path)
                    old.unlink()

    # ----------------------------------------------------------------- opening
    @classmethod
    def open(cls, folder: Path | str | None = None, seed_if_new: bool = True) -> "Library":
        """Open (creating if needed) a library; a brand-new one gets the bundled seeds.

        Args:
            folder: library folder; default from ``--library``/``PAPERSIFT_LIBRARY``/platformdirs.
            seed_if_new: import the bundled NeurIPS sample dumps into a library
                that has never had a corpus.
        """
        lib = cls(locations.library_dir(folder))
        if seed_if_new and not lib.corpus_path.exists():
            seeds = locations.bundled_seeds_dir()
            if seeds.is_dir():
                lib.import_paths([seeds])
        return lib

    @property
    def name(self) -> str:
        return self.folder.name

    def __len__(self) -> int:
        return len(self.corpus)

    # ---------------------------------------------- the papers changing (store.library_papers)
    def import_paths(self, paths: Iterable[Path | str], progress: Callable[[int, int], None] | None = None,
                     replace_sample: bool = False) -> ImportSummary:
        return self.papers.import_paths(paths, progress, replace_sample)
    @property
    def titles_outdated(self) -> bool:
        return self.papers.titles_outdated
    def retitle(self) -> tuple[int, int]:
        return self.papers.retitle()
    def dedup_report(self) -> list[dict[str, Any]]:
        return self.papers.dedup_report()
    def split(self, key: str) -> list[Paper]:
        return self.papers.split(key)


    # --------------------------------------------------------- search (store.library_search)
    def search(self, text: str = "", sort: str = "import", limit: int | None = None) -> SearchResult:
        return self.finder.search(text, sort, limit)
    def filter_tables_ready(self, q: Query) -> bool:
        return self.finder.filter_tables_ready(q)


    # ------------------- more like this, recommendations, topics (store.library_discovery)
    @property
    def similarity(self) -> Similarity:
        return self.discovery.similarity
    @property
    def similarity_ready(self) -> bool:
        return self.discovery.similarity_ready
    @property
    def last_recommendations(self) -> dict[str, Recommendation]:
        return self.discovery.last_recommendations
    def build_similarity_elsewhere(self, run: Callable[[], object]) -> None:
        self.discovery.build_similarity_elsewhere(run)
    def similarity_cache_fresh(self) -> bool:
        return self.discovery.similarity_cache_fresh()
    def load_similarity_cache(self) -> bool:
        return self.discovery.load_similarity_cache()
    def prepare_similarity_cache(self) -> bool:
        return self.discovery.prepare_similarity_cache()
    def similar(self, key: str, limit: int = 10) -> list[tuple[Paper, float]]:
        return self.discovery.similar(key, limit)
    def recommend(self, tag: str | None = None, limit: int = 20) -> list[Recommendation]:
        return self.discovery.recommend(tag, limit)
    def topics(self, k: int | None = None) -> tuple[np.ndarray, dict[int, str]]:
        return self.discovery.topics(k)
    def topic_summary(self, k: int | None = None) -> list[dict[str, Any]]:
        return self.discovery.topic_summary(k)


    # ---------------------------------- marks: status, stars, tags, notes (store.library_marks)
    def set_status(self, paper_ids: Iterable[str], status: str) -> int:
        return self.marks.set_status(paper_ids, status)
    def set_star(self, paper_ids: Iterable[str], star: int) -> int:
        return self.marks.set_star(paper_ids, star)
    def bump_star(self, paper_ids: Iterable[str], delta: int) -> int:
        return self.marks.bump_star(paper_ids, delta)
    def add_tags(self, paper_ids: Iterable[str], tags: Iterable[str]) -> int:
        return self.marks.add_tags(paper_ids, tags)
    def remove_tags(self, paper_ids: Iterable[str], tags: Iterable[str]) -> int:
        return self.marks.remove_tags(paper_ids, tags)
    def set_note(self, paper_id: str, note: str) -> int:
        return self.marks.set_note(paper_id, note)
    def rename_tag(self, old: str, new: str) -> int:
        return self.marks.rename_tag(old, new)
    def merge_tags(self, sources: Iterable[str], target: str, action: str = "merge-tags") -> int:
        return self.marks.merge_tags(sources, target, action)


    # ------------------------------------------------------------ counts (store.library_stats)
    def stats(self) -> dict[str, Any]:  # (JSON-shaped: what `stats --format json` prints)
        return self.counts.stats()
    def triage_timeline(self, buckets: int = 30) -> tuple[list[int], str, str]:
        return self.counts.triage_timeline(buckets)
    def triaged_count(self) -> int:
        return self.counts.triaged_count()
    def triaged_mask(self) -> np.ndarray:
        return self.counts.triaged_mask()

    # ------------------------------------------------------------------- index
    def _invalidate_index(self) -> None:
        self._index = None
        self.discovery.invalidate()
        self.finder.invalidate()

    @property
    def index(self) -> SearchIndex:
        """The search index: from the on-disk cache when it matches the corpus, else built."""
        index = self._index
        if index is None:
            # Searches run in a worker per keystroke (a "phrase" always does): the first two keys of a
            # fresh session would each read the whole index (at 300k papers ~300 MB, twice).
            with self._index_lock:
                index = self._index
                if index is None:
                    index = self._index = self._load_index_cache() or self.build_index()
        return index

    def _load_index_cache(self) -> SearchIndex | None:
        try:
            with open_reading(self.index_path) as fh:  # (a link is no cache: refused, then replaced)
                if not stamp_matches(fh, self.corpus.generation):
                    return None
                index = SearchIndex.load(fh)  # straight from the file: no second copy of ~30 MB
        except OSError:
            return None
        if index is not None and index.n_docs != len(self.corpus):
            return None
        return index

    def build_index(self, normalized: dict[str, str] | None = None) -> SearchIndex:
        """Build the index and cache it on disk (best effort: a cache is never precious).

        Args:
            normalized: paper id -> normalized abstract already computed (by an import).
        """
        # Taken out of the dict: build() frees each text once it is tokenized (~400 MB at 300k).
        papers = list(self.corpus)
        norms = [normalized.pop(p.id, None) for p in papers] if normalized else None
        # Keywords count as the title does: both say in a few words what the paper is about.
        index = SearchIndex.build([(" ".join([p.title, *p.keywords]), p.abstract) for p in papers], norms)
        self._index = index
        try:
            atomic_write_chunks(self.index_path, stamped(self.corpus.generation,
                                                         index.dump_chunks(quick.display_sections(papers))))
        except OSError:
            pass
        return index

    # ------------------------------------------------------------- annotations
    def paper(self, key: str) -> Paper:
        """The paper for an id, alias or unambiguous id prefix."""
        return self.corpus.resolve(key)

    def annotation(self, paper_id: str) -> Annotation:
        """The paper's annotation (a fresh default one if it has none)."""
        ann = self.annotations.get(paper_id)
        return copy.deepcopy(ann) if ann else Annotation(paper_id)

    def corpus_changed_on_disk(self) -> bool:
        """Whether the corpus file was written since this library read or wrote it (a stat)."""
        return file_signature(self.corpus_path) != self.corpus.file_signature

    def refresh_corpus(self) -> bool:
        """Pick up papers another process wrote (an import, a split): True when the corpus was
        reloaded. A stat when nothing changed, so the app can ask every few seconds."""
        read = self.read_changed_corpus()
        return read is not None and self.install_corpus(*read)

    def read_changed_corpus(self) -> tuple[Corpus, tuple[int, int, int] | None] | None:
        """The corpus file another process wrote, read but not installed, and the signature of
        the file this library had then (None when it has not changed). It touches nothing of
        this library, so the app runs it in a thread: at 300k papers the read takes ~1.3 s. No
        lock is needed: writers replace the file atomically, and a file replaced during the
        read shows as changed on the next look.

        Raises:
            CorruptFileError: the file on disk cannot be read.
        """
        if not self.corpus_changed_on_disk() or not self.corpus_path.exists():
            return None
        had = self.corpus.file_signature
        return Corpus.load(self.corpus_path), had

    def install_corpus(self, corpus: Corpus, had: tuple[int, int, int] | None) -> bool:
        """Use a corpus from :meth:`read_changed_corpus`: True when its papers differ. Refused
        (False) when this library wrote or read its corpus since that read began (``had`` is no
        longer its file's signature): the next look reads the file again."""
        if had != self.corpus.file_signature:
            return False
        if corpus.generation == self.corpus.generation:
            self.corpus.file_signature = corpus.file_signature
            return False
        self.corpus = corpus
        self._invalidate_index()
        return True

    def refresh(self) -> bool:
        """Pick up annotations another process wrote. Returns True when something changed."""
        if self.store.changed_on_disk():
            self.annotations = self.store.load_all()
            return True
        return False

    def take_problems(self) -> list[str]:
        """Damage found in the annotations journal since last asked (each kept in backups/ and
        said once): for the CLI's stderr and the app's notices."""
        return self.store.storage.take_reports()

    def _change(self, paper_ids: Iterable[str], fn: Callable[[Annotation], None], action: str, label: str) -> int:
        """Apply ``fn`` to each paper's annotation and store the changed ones durably."""
        with self.lock.held():
            self.refresh()
            stamp = now_iso()
            changes = {}
            for pid in dict.fromkeys(paper_ids):
                old = self.annotation(pid)
                new = copy.deepcopy(old)
                fn(new)
                if new != old:
                    new.stamp_changes(old, stamp)
                    new.updated = stamp
                    new.created = new.created or stamp
                    changes[pid] = new
            if not changes:
                return 0
            if len(changes) >= BULK_BACKUP_THRESHOLD:
                self.store.compact()  # a backup of annotations.json must hold the journal too
                backup_file(self.annotations_path, f"bulk-{action}")
            self.store.apply(changes, action, label if len(changes) == 1 else f"{label} on {len(changes)} papers")
            self._install(changes)
            return len(changes)

    def _install(self, changes: dict[str, Annotation]) -> None:
        """Make stored changes the library's annotations: a new mapping, never an edit of the one a
        worker thread may be reading (copy on write: a search holds one snapshot throughout)."""
        anns = dict(self.annotations)
        for pid, new in changes.items():
            if new.is_default():
                anns.pop(pid, None)
            else:
                anns[pid] = copy.deepcopy(new)
        self.annotations = anns

    def replace_annotations(self, changes: dict[str, Annotation], action: str, label: str) -> int:
        """Store exact annotations (timestamps as given), with a backup and one undo entry."""
        if not changes:
            return 0
        with self.lock.held():
            self.refresh()
            self.store.compact()  # a backup of annotations.json must hold the journal too
            backup_file(self.annotations_path, action)
            self.store.apply(changes, action, label)
            self._install(changes)
        return len(changes)

    def pairs(self, query: str = "", ids: Iterable[str] | None = None) -> list[tuple[Paper, Annotation]]:
        """(paper, annotation) for a query's results, or for the given ids, in list order."""
        if ids is not None:
            papers = [self.paper(i) for i in ids]
        else:
            result = self.search(query)
            for err in result.errors:
                raise PapersiftError(err)
            papers = [self.corpus.papers[int(i)] for i in result.matches]  # the result set, not weaker matches
        return [(p, self.annotation(p.id)) for p in papers]

    def tag_counts(self) -> Counter[str]:
        """Papers per tag."""
        return Counter(t for a in self.annotations.values() for t in a.tags)

    def undo(self) -> str | None:
        """Undo the newest change (persisted across restarts). Returns its label, or None."""
        return self._history_step(self.store.undo)

    def redo(self) -> str | None:
        """Make again the change the newest undo reverted (until a new change is made). Returns its
        label, or None."""
        return self._history_step(self.store.redo)

    def _history_step(self, step: Callable[[], dict[str, Any] | None]) -> str | None:
        with self.lock.held():
            self.refresh()
            self.refresh_corpus()
            entry = step()
            if entry is None:
                return None
            self.annotations = self.store.load_all()
            redo_corpus(self, entry, undone=step == self.store.undo)  # a removal's papers, back or out
            return str(entry["label"])

    def remove(self, ids: Iterable[str], label: str = "") -> int:
        """Remove papers and their annotations: a backup first, one undo step (see store.removal)."""
        ids = list(ids)
        return remove_papers(self, ids, label or f"remove {counted(len(set(ids)), 'paper')}")

    # ------------------------------------------------------------------- stats
