"""The arrival filters — new:, batch:, added: and updated: — which import brought a paper and
when (store.ingest.batches numbers the imports): a part of the search's filters
(:mod:`store.library.filters`), read from a table of the corpus file's columns, built once per
corpus."""

from __future__ import annotations

import operator
import threading
from typing import TYPE_CHECKING

import numpy as np

from store.ingest.batches import last_batch
from store.search.query import ARRIVAL_KINDS, Filter, Query

if TYPE_CHECKING:
    from store.corpus import Corpus
    from store.library.cores import FiltersCore


class ArrivalFilters:
    """The masks of new:, batch:, added: and updated:, and the table they are read from."""

    def __init__(self, core: FiltersCore, lock: threading.Lock) -> None:
        self._core = core
        self._lock = lock  # (the filters' one lock: one table built at a time)
        self._table: tuple[np.ndarray, list[str], np.ndarray] | None = None

    def invalidate(self) -> None:
        """Drop the table (the corpus changed)."""
        self._table = None

    def _arrivals(self) -> tuple[np.ndarray, list[str], np.ndarray]:
        """Each paper's batch, added time and revising batch, from the corpus file's columns (no paper
        parsed), kept until the corpus changes."""
        table = self._table
        if table is None:
            with self._lock:
                table = self._table
                if table is None:
                    papers = self._core.corpus.papers
                    table = self._table = (np.asarray(papers.column("batch"), dtype=np.int64),
                                           list(papers.column("added")),
                                           np.asarray(papers.column("revised"), dtype=np.int64))
        return table

    def narrow(self, q: Query, mask: np.ndarray) -> None:
        """Keep in ``mask`` the papers the query's arrival filters want (and say in ``q.errors``
        why a filter finds none, where that is not an answer)."""
        given = q.of(*ARRIVAL_KINDS)
        if not given:
            return
        batches, added, revised = self._arrivals()
        corpus = self._core.corpus
        if not corpus.batches:
            q.errors.append("no import here is numbered yet: batches are kept from this version of papersift on "
                            "(the next import is batch 1)")
        for f in given:
            if f.kind == "new":
                hit = _newest(corpus, f, batches, q.errors)
            elif f.kind == "updated":
                hit = revised > 0
            elif f.kind == "batch":
                hit = _numbered(corpus, f, batches, q.errors)
            else:  # added: compare the date's first characters, as many as were typed (2026-12: a month)
                assert f.compare is not None
                op, width = f.compare[0], len(f.value)
                hit = np.fromiter((bool(a) and op(a[:width], f.value) for a in added), dtype=bool, count=len(added))
            mask &= ~hit if f.negated else hit


def _newest(corpus: Corpus, f: Filter, batches: np.ndarray, errors: list[str]) -> np.ndarray:
    """new:, the newest import's papers (and why none, when it has none left)."""
    n = (last_batch(corpus) or {"n": -1})["n"]  # (batches count from 1)
    hit: np.ndarray = batches == n
    if n > 0 and not f.negated and not hit.any():  # (else "none found" read as an import of none)
        errors.append(f"new: lists the newest import, batch {n}, and none of its papers is here now "
                      "(removed since)" + (f": batch:{n - 1} lists the one before" if n > 1 else ""))
    return hit


def _numbered(corpus: Corpus, f: Filter, batches: np.ndarray, errors: list[str]) -> np.ndarray:
    """batch:N (or a comparison): those imports' papers (and the numbers there are, when N is none)."""
    assert f.compare is not None
    hit: np.ndarray = (batches > 0) & f.compare[0](batches, f.compare[1])
    numbers = sorted(b["n"] for b in corpus.batches)
    if f.compare[0] is operator.eq and numbers and f.compare[1] not in numbers:  # (else "none found" only)
        errors.append(f"no import numbered {f.compare[1]} here: the imports are batch:{numbers[0]} to "
                      f"batch:{numbers[-1]}")
    return hit
