"""A more-like-this lookup's heavy part, the query's weights times the rows of its terms (each lists
the papers that use the term), and the second thread a lookup shares its work with.

A big model's file is mapped (store.discovery.model_file), but its term rows are read with pread
into two buffers of this process (one per thread), not through the mapping. At 300k papers a
lookup reads 4-6 million postings, 35-50 MB; touched through the mapping, each page faulted in and,
given back after (else the app would hold them all), zapped again: ~9 ms a lookup of mapping
churn, and scipy's row indexing copied what it read once more. Read into the buffers, the rows
cost one copy from the page cache, and the product runs over them where they lie.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from store.errors import PapersiftError, shown_path

CHUNK_POSTINGS = 1 << 20  # postings a buffer holds (4 MB of paper numbers, 4 MB of weights)


class Lanes:
    """A second thread for a lookup's independent parts: ``start(fn, ...)`` runs ``fn`` there
    and returns its Future (numpy's and scipy's loops run without the GIL). One thread, started
    on first use and ended by :meth:`close` when the lookup is done: a thread left running would
    keep a later import in the same process from forking its workers (store.parallel forks
    only a single-threaded process)."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None

    def start(self, fn: Callable[..., np.ndarray], *args: object) -> Future[np.ndarray]:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="similar-lane")
        return self._pool.submit(fn, *args)

    def close(self) -> None:
        """End the thread, once what it was given is done (a stopped lookup's half, a few ms)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)


def term_product(t: sp.csr_matrix, terms: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``weights @ t[terms]`` as a dense row, from a matrix held in memory."""
    if not len(terms):
        return np.zeros(t.shape[1], dtype=np.float32)
    return np.asarray(t[terms].T @ weights, dtype=np.float32)


def latent_product(latent: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``latent @ vector`` in numpy's own loop on this thread: BLAS would spread it over both
    cores, which the term rows' product is using too."""
    out: np.ndarray = np.einsum("ij,j->i", latent, vector)
    return out


def halves(sizes: np.ndarray) -> int:
    """Where to cut a list of rows of these sizes into two of about as many postings."""
    if not len(sizes):
        return 0
    total = np.cumsum(sizes)
    return int(np.searchsorted(total, total[-1] // 2)) + 1


class TermRows:
    """A sparse matrix's rows in a model file, read with pread (see the module's docstring): the
    term matrix's (a lookup's products), and the same way the document matrix's (its papers' own
    rows: :meth:`rows`).

    Args:
        fd: the file, open for reading (closed by :meth:`close`).
        path: its path, named when what it holds no longer fits its checked shape.
        indices_at, data_at: where the matrix's column numbers and weights start in the file.
        indptr: the rows' offsets (checked, in memory or mapped).
        n_docs: the matrix's columns (papers, for the term matrix; terms, for the document matrix).
    """

    def __init__(self, fd: int, path: Path, indices_at: int, data_at: int, indptr: np.ndarray,
                 index_dtype: np.dtype, n_docs: int) -> None:
        self.fd, self.path = fd, path
        self.indices_at, self.data_at = indices_at, data_at
        self.indptr, self.n_docs = indptr, n_docs
        self.index_dtype = np.dtype(index_dtype)
        self._buffers: list[tuple[np.ndarray, np.ndarray] | None] = [None, None]

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def _buffer(self, slot: int) -> tuple[np.ndarray, np.ndarray]:
        made = self._buffers[slot]
        if made is None:
            made = self._buffers[slot] = (np.empty(CHUNK_POSTINGS, self.index_dtype),
                                          np.empty(CHUNK_POSTINGS, np.float32))
        return made

    def product(self, terms: np.ndarray, weights: np.ndarray, slot: int = 0,
                between: Callable[[], None] | None = None) -> np.ndarray:
        """``weights @ rows[terms]`` as a dense row over the papers. ``slot``: the buffer to read
        into (0 for the lookup's thread, 1 for its second: one reader each); ``between`` is called
        between buffers (a stopped lookup raises there)."""
        out = np.zeros(self.n_docs, dtype=np.float32)
        starts = self.indptr[terms].astype(np.int64)
        sizes = self.indptr[terms + 1].astype(np.int64) - starts
        pieces: list[tuple[int, int, float]] = []  # (first posting, postings, weight), a row cut to fit
        for start, size, weight in zip(starts.tolist(), sizes.tolist(), weights.tolist()):
            for at in range(start, start + size, CHUNK_POSTINGS):
                pieces.append((at, min(CHUNK_POSTINGS, start + size - at), weight))
        indices, data = self._buffer(slot)
        isize = self.index_dtype.itemsize
        at = 0
        while at < len(pieces):
            filled, ends, ws = 0, [0], []
            while at < len(pieces) and filled + pieces[at][1] <= CHUNK_POSTINGS:
                first, size, weight = pieces[at]
                self.read_into(indices[filled:filled + size], self.indices_at + first * isize)
                self.read_into(data[filled:filled + size], self.data_at + first * 4)
                filled += size
                ends.append(filled)
                ws.append(weight)
                at += 1
            if filled and int(indices[:filled].view(f"u{isize}").max()) >= self.n_docs:
                raise changed_in_use(self.path)
            rows = sp.csr_matrix((data[:filled], indices[:filled], np.array(ends, dtype=self.index_dtype)),
                                 shape=(len(ws), self.n_docs), copy=False)
            out += rows.T @ np.array(ws, dtype=np.float32)
            if between is not None and at < len(pieces):
                between()
        return out

    def rows(self, which: np.ndarray) -> sp.csr_matrix:
        """Rows ``which`` of the matrix as a matrix of their own, read with pread (a lookup's paper
        and its ten nearest: through the mapping, each row's page faulted in a folio of the file,
        up to 2 MB, ~40 MB a lookup at 300k papers before they were given back), their column
        numbers checked."""
        starts = self.indptr[which].astype(np.int64)
        sizes = self.indptr[which + 1].astype(np.int64) - starts
        indices = np.empty(int(sizes.sum()), self.index_dtype)
        data = np.empty(len(indices), np.float32)
        isize, at = self.index_dtype.itemsize, 0
        for start, size in zip(starts.tolist(), sizes.tolist()):
            self.read_into(indices[at:at + size], self.indices_at + start * isize)
            self.read_into(data[at:at + size], self.data_at + start * 4)
            at += size
        if len(indices) and int(indices.view(f"u{isize}").max()) >= self.n_docs:
            raise changed_in_use(self.path)
        indptr = np.concatenate(([0], np.cumsum(sizes))).astype(self.index_dtype)
        return sp.csr_matrix((data, indices, indptr), shape=(len(which), self.n_docs), copy=False)

    def read_into(self, into: np.ndarray, offset: int) -> None:
        """Fill ``into`` (contiguous) from the file at ``offset``; a file cut short since its checks
        is refused (changed_in_use)."""
        view = into.data.cast("B")
        while len(view):
            got = os.preadv(self.fd, [view], offset)
            if got <= 0:
                raise changed_in_use(self.path)
            view, offset = view[got:], offset + got


def changed_in_use(path: Path) -> PapersiftError:
    """A mapped model file no longer holds what was checked when it was opened (changed in place:
    papersift replaces its caches by renaming, so someone else wrote it). The next start rebuilds it."""
    return PapersiftError(f"{shown_path(path)}: the more-like-this cache changed while in use; "
                          "start papersift again (it checks the cache and rebuilds it)")
