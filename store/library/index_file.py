"""The search index's cache file (``index.bin`` in the library folder): read back only when it was
made from the corpus the library holds, written with what a one-shot ``papersift search`` prints
(ids, titles, derived flags) and where each paper's line starts in the corpus file.

A cache is never precious: a file that does not match is ignored (and rebuilt by the caller), a
write that fails is skipped.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from store.files.atomic import atomic_write_chunks, open_reading
from store.corpus import Corpus
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
