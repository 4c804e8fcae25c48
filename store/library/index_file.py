"""The library's search index (:class:`IndexCache`) and its cache file (``index.bin`` in the
library folder): read back only when it was made from the corpus the library holds, written with
what a one-shot ``papersift search`` prints (ids, titles, derived flags) and where each paper's
line starts in the corpus file.

A cache is never precious: a file that does not match is ignored (and rebuilt by the caller), a
write that fails is skipped.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

import numpy as np

from store.files.atomic import atomic_write_chunks, open_reading
from store.corpus import Corpus
from store.library.increments import IndexDocuments, changed_rows, index_document
from store.search import quick
from store.search.index import SearchIndex
from store.search.packfile import stamp_matches, stamped


def read_index_file(path: Path, generation: str, n_docs: int) -> SearchIndex | None:
    """The index cached at ``path`` if it was made from the corpus of ``generation`` with ``n_docs``
    papers, else None (a link is no cache: refused, then replaced)."""
    try:
        with open_reading(path) as fh:
            if not stamp_matches(fh, generation):
                return None
            index = SearchIndex.load(fh)  # straight from the file: no second copy of ~30 MB
    except OSError:
        return None
    if index is not None and index.n_docs != n_docs:
        return None
    return index


def write_index_file(path: Path, corpus: Corpus, index: SearchIndex,
                     kept: tuple[dict[str, memoryview], int] | None = None) -> None:
    """Cache ``index`` of ``corpus`` at ``path`` (best effort), with what a one-shot search prints:
    the ids, titles and derived flags, spliced from ``kept`` (the sections of the index file this
    one updates, for its first papers) where it can, else read from the corpus file's bytes (no
    paper is parsed)."""
    papers = corpus.papers
    shown = None
    if kept is not None:
        extra, n = kept
        changed = {i: (p.title, p.derived_title) for i, p in papers.parsed_items() if i < n}
        shown = quick.spliced_display_sections(extra, n, changed,
                                               [(p.id, p.title, p.derived_title) for p in papers[n:]])
    if shown is None:
        titles, derived = papers.titles()
        shown = quick.display_sections(corpus.ids(), titles, derived)
    starts = corpus.line_starts  # (where the one-shot search reads a paper's text again)
    if starts is not None and len(starts) == len(corpus) + 1:
        shown = [*shown, ("lines", "q", np.ascontiguousarray(starts, dtype=np.int64))]
    try:
        atomic_write_chunks(path, stamped(corpus.generation, index.dump_chunks(shown)), durable=False)
    except OSError:
        pass


class IndexCache:
    """The search index of a library's corpus: held once read or built, read from the cache file
    when that was made from this corpus, built when not, updated after an import, and written back.

    ``corpus`` gives the library's corpus as it is now (a refresh replaces it)."""

    def __init__(self, path: Path, corpus: Callable[[], Corpus]) -> None:
        self.path = path
        self._corpus = corpus
        self.loaded: SearchIndex | None = None  # None: the next use reads or builds it
        self._lock = threading.Lock()

    def get(self) -> SearchIndex:
        """The search index: from the on-disk cache when it matches the corpus, else built."""
        index = self.loaded
        if index is None:
            # Searches run in a worker per keystroke (a "phrase" always does): the first two keys of a
            # fresh session would each read the whole index (at 300k papers ~300 MB, twice).
            with self._lock:
                index = self.loaded
                if index is None:
                    corpus = self._corpus()
                    index = self.read_cache()
                    starts = corpus.line_starts
                    if index is not None and "lines" not in index.extra and starts is not None \
                            and len(starts) == len(corpus) + 1:
                        # A cache from before the one-shot search read papers again: written once
                        # more with where their lines start (its other sections kept as they are).
                        index = self._install(index, (index.extra, len(corpus)))
                    index = self.loaded = index or self.build()
        return index

    def read_cache(self, generation: str | None = None, n_docs: int | None = None) -> SearchIndex | None:
        """The cached index if it was made from the corpus of ``generation`` with ``n_docs`` papers
        (by default the library's corpus)."""
        corpus = self._corpus()
        return read_index_file(self.path, corpus.generation if generation is None else generation,
                               len(corpus) if n_docs is None else n_docs)

    def build(self, normalized: dict[str, str] | None = None) -> SearchIndex:
        """Build the index and cache it on disk (best effort: a cache is never precious).

        Args:
            normalized: paper id -> normalized abstract already computed (by an import).
        """
        corpus = self._corpus()
        # Taken out of the dict: build() frees each text once it is tokenized (~400 MB at 300k).
        norms = [normalized.pop(pid, None) for pid in corpus.ids()] if normalized else None
        return self._install(SearchIndex.build(IndexDocuments(corpus.papers), norms))

    def update(self, generation: str, n_before: int, normalized: dict[str, str]) -> SearchIndex:
        """The index after an import that started from the corpus of ``generation`` with ``n_before``
        papers: the cached index of that corpus with the papers added since, and those whose indexed
        text changed (a new version, a title or category arriving), indexed anew; built from
        scratch when that cache is gone (store.search.index_update).
        A day's few hundred papers into 30k: ~0.2 s instead of ~5 s."""
        from store.search.index_update import updated

        old = self.read_cache(generation, n_before)
        if old is not None:
            corpus = self._corpus()
            papers = corpus.papers
            replaced = {i: index_document(papers[i]) for i in changed_rows(corpus, n_before)}
            added = papers[n_before:]
            index = updated(old, replaced, [index_document(p) for p in added],
                            [normalized.pop(p.id, None) for p in added])
            kept = old.extra  # (its display sections, spliced into the new file's)
            del old  # (the postings of its file, ~270 MB at 300k, freed before the new index is written)
            return self._install(index, (kept, n_before))
        return self.build(normalized)

    def drop(self) -> None:
        """The corpus changed: the next use reads or builds the index again."""
        self.loaded = None

    def _install(self, index: SearchIndex, kept: tuple[dict[str, memoryview], int] | None = None) -> SearchIndex:
        """Hold the index and cache it on disk (:func:`write_index_file`; ``kept``: the sections of
        the index file this one updates, and for how many papers)."""
        self.loaded = index
        write_index_file(self.path, self._corpus(), index, kept)
        return index
