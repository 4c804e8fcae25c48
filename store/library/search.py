"""Library search: a query's filters applied (:mod:`store.library.filters`), then its words ranked,
or the papers ordered (similar:, rec:) or sorted — a part of the Library.

:class:`LibrarySearch` reads the corpus, annotations and index of a
:class:`~store.library.core.LibraryCore` and asks :class:`~store.library.discovery.Discovery` for the
similar: and rec: orderings.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Mapping

import numpy as np

from store.errors import PapersiftError
from store.models import Annotation
from store.library.filters import Filters
from store.search.result import SearchResult
from store.search.query import Query, parse_query
from store.search.quick import ANNOTATION_WEIGHT, WEAKER_SHOWN, annotation_matches
from store.search.vocab import content_words
from store.text import search_tokens

if TYPE_CHECKING:
    from store.library.core import LibraryCore
    from store.library.discovery import Discovery

SORTS = ("import", "status", "star", "random", "recommended")
_STATUS_ORDER = {"to-read": 0, "unread": 1, "read": 2, "skipped": 3}


class LibrarySearch:
    """search(), filters and sort orders: the part of :class:`~store.library.Library` that finds papers.

    It owns the tables its filters build (``_label_index``, ``_venue_index``) and its phrase search
    (:class:`~store.search.phrase_search.PhraseSearch`); the Library drops them (:meth:`invalidate`)
    when its corpus changes."""

    def __init__(self, core: LibraryCore, discovery: Discovery) -> None:
        self._core = core
        self._discovery = discovery  # (the similar: and rec: orderings)
        self.filters = Filters(core, discovery)  # the filters' masks and the tables they build
        self._shuffle_seed = random.randrange(1 << 30)
        # Tag and note tokens per paper, with the corpus position they were found at: dropped with
        # the other tables when the corpus changes (a removal moves every later paper's position).
        self._ann_tokens: dict[str, tuple[tuple[tuple[str, ...], str], int | None, set[str]]] = {}

    def invalidate(self) -> None:
        """Drop the tables (the corpus changed)."""
        self.filters.invalidate()
        self._ann_tokens = {}

    def filter_tables_ready(self, q: Query) -> bool:
        """Whether ``q``'s filters can be had without building a table (see Filters.tables_ready)."""
        return self.filters.tables_ready(q)


    def _annotation_matches(self, words: list[str],
                            anns: Mapping[str, Annotation]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per query word, papers whose tags or note contain it (prefix match)."""
        # Tokens per paper, cached by the (tags, note) they came from: a keystroke
        # re-tokenizes only annotations that changed since the last search.
        cache = self._ann_tokens
        texts = []
        for pid, a in anns.items():
            if not (a.tags or a.note):
                continue
            key = (tuple(a.tags), a.note)
            hit = cache.get(pid)
            if hit is None or hit[0] != key:
                hit = (key, self._core.corpus.index_of(pid), set(search_tokens(" ".join(a.tags) + " " + a.note)))
                cache[pid] = hit
            texts.append((hit[1], hit[2]))
        return {word: (np.asarray(docs, dtype=np.int64), np.full(len(docs), ANNOTATION_WEIGHT, dtype=np.float32))
                for word, docs in annotation_matches(words, texts).items()}

    def search(self, text: str | Query = "", sort: str = "import", limit: int | None = None) -> SearchResult:
        """Rank (or, for an empty query, order) papers for a query with filters.

        Args:
            text: the query (see :mod:`store.search.query`), or the :class:`Query` it parses to (the
                app parses once per keystroke, and passes that along).
            sort: for an empty query: one of ``SORTS``.
            limit: keep only the first ``limit`` results.
        """
        q = text if isinstance(text, Query) else parse_query(text)
        full = 0
        # One snapshot of the annotations for the whole search: the app searches in a worker thread
        # while its UI thread triages, and a change installs a new mapping (never edits this one).
        anns = self._core.annotations
        mask = self.filters.mask(q, anns)
        n = len(self._core.corpus)
        if q.similar or q.recommend:
            order = self._ordering(q)
            if mask is not None:
                order = order[mask[order]]
            matched = set()
        elif q.words:
            ranking = self._core.index.rank(q.words, mask, extra=self._annotation_matches(q.words, anns))
            order, matched, full = ranking.order, ranking.matched_terms, ranking.full
            # store.search.quick.weaker_kept's rule, in numpy (a one-letter query matches most of a 300k library)
            assert ranking.present is not None  # rank() sets it
            rest = ranking.present[full:]
            kept = np.flatnonzero(rest * 2 > len(content_words(q.words))) if full else np.arange(len(rest))
            order = np.concatenate([order[:full], order[full:][kept[:WEAKER_SHOWN]]])
        else:
            order = np.flatnonzero(mask) if mask is not None else np.arange(n)
            order = self._sorted(order, sort, anns)
            matched = set()
        if limit is not None:
            order = order[:limit]
        return SearchResult(indices=order, total=n, matched_terms=matched, errors=q.errors,
                            full=min(full, len(order)) if q.words and not (q.similar or q.recommend) else None)

    def _ordering(self, q: Query) -> np.ndarray:
        """Papers ordered by similarity to one paper, or by a recommendation model."""
        if q.similar:
            try:
                doc = self._core.corpus.index_of(self._core.paper(q.similar).id)
            except PapersiftError as exc:
                q.errors.append(str(exc))
                return np.arange(0)
            assert doc is not None  # the id of a paper of the corpus
            order = np.argsort(-self._discovery.similarity.scores(doc))
            nearest: np.ndarray = order[order != doc][:200]
            return nearest
        try:
            recs = self._discovery.recommend(None if q.recommend == "stars" else q.recommend, limit=len(self._core.corpus))
        except PapersiftError as exc:
            q.errors.append(str(exc))
            return np.arange(0)
        return np.array([self._core.corpus.index_of(r.paper.id) for r in recs], dtype=np.int64)

    def _sorted(self, order: np.ndarray, sort: str, anns: Mapping[str, Annotation]) -> np.ndarray:
        if sort == "import" or not len(order):
            return order
        if sort == "random":
            rng = np.random.default_rng(self._shuffle_seed)
            return rng.permutation(order)
        if sort == "recommended":  # from stars and to-read; unchanged order when there is nothing to learn from
            ranked = self._ordering(Query(recommend="stars"))
            if not len(ranked):
                return order
            rank = np.full(len(self._core.corpus), len(self._core.corpus), dtype=np.int64)
            rank[ranked] = np.arange(len(ranked))
            return order[np.argsort(rank[order], kind="stable")]
        papers = self._core.corpus.papers
        default = Annotation("")
        shown = [anns.get(papers[i].id, default) for i in order]
        if sort == "status":
            keys = [_STATUS_ORDER[a.status] for a in shown]
        elif sort == "star":
            keys = [-a.star for a in shown]
        else:
            raise PapersiftError(f"unknown sort {sort!r}; use one of: {', '.join(SORTS)}")
        return order[np.argsort(np.asarray(keys), kind="stable")]
