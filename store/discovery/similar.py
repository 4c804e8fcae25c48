"""More like this, recommendations and topics, from the search index's vectors.

Each paper is a sparse vector: its BM25-saturated term weights times idf (the
same statistics search uses, so nothing is tokenized twice), L2-normalized.
"More like this" blends that cosine with the cosine in a latent space (LSA: a
truncated SVD of the same matrix, ~sqrt(n)/1.5 dimensions: few, so it captures
topics rather than wording), then adds pseudo-relevance feedback: the scores
of the query's ten nearest neighbours, weighted by their similarity (their
summed row's heaviest terms), for the CANDIDATES papers nearest by the first
score (the feedback reorders the papers near the top). On ICLR 2024's primary areas the share of top-5
neighbours in the query's area goes from 0.375 (TF-IDF cosine) to 0.440
(``benchmarks/similar_quality.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import numpy as np
import scipy.sparse as sp

from store.files.nofollow import open_no_link
from store.discovery.model_file import MODEL_VERSION, ModelFile, model_chunks, read_model
from store.discovery.term_rows import Lanes, halves, latent_product, term_product
from store.search.index import SearchIndex, saturated
from store.search.packfile import PackReader, stamp_matches

LSA_WEIGHT = 1.0
FEEDBACK_K = 10
FEEDBACK_BETA = 1.0
FEEDBACK_TERMS = 200  # the feedback's terms: the neighbours' summed row's heaviest (Similarity._feedback)
CANDIDATES = 2000  # papers the feedback scores: the nearest by the first pass (Similarity._scores)


def lsa_dims(n_docs: int) -> int:
    """Latent dimensions for a corpus: measured best at 32 for 2,260 papers; grows as sqrt(n)."""
    return int(min(128, max(32, round(n_docs ** 0.5 / 1.5))))


def doc_term_matrix(index: SearchIndex, min_df: int = 2, max_df_ratio: float = 0.5) -> sp.csr_matrix:
    """Documents x terms, TF-IDF-like weights, rows L2-normalized."""
    df = np.diff(index.offsets)
    keep = (df >= min_df) & (df <= max(2, int(max_df_ratio * index.n_docs)))
    term_of_posting = np.repeat(np.arange(len(df)), df)
    mask = keep[term_of_posting]
    rows = index.docs[mask]
    cols = term_of_posting[mask]
    vals = saturated(index.tf[mask].astype(np.float32), index.norms[rows]) * index.idf[cols]
    m = sp.csr_matrix((vals.astype(np.float32), (rows, cols)), shape=(index.n_docs, len(df)))
    norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return sp.diags(1.0 / norms).dot(m).tocsr()


def lsa(matrix: sp.csr_matrix, dims: int | None = None) -> np.ndarray:
    """Row-normalized latent vectors (documents x dims)."""
    return lsa_basis(matrix, dims)[0]


def lsa_basis(matrix: sp.csr_matrix, dims: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Row-normalized latent vectors (documents x dims) and the basis that makes them from a
    document's row (terms x dims: ``row @ basis`` is the row's latent vector before normalizing),
    with which store.discovery.fold places papers added later without another SVD."""
    from scipy.sparse.linalg import svds  # (here: ~10 MB of ARPACK and scipy.linalg a lookup never needs)
    k = max(2, min(dims or lsa_dims(matrix.shape[0]), min(matrix.shape) - 1))
    # In single precision, as the matrix is stored: no float64 copy of it, and ARPACK's
    # Lanczos vectors take half the memory (30k papers: helper peak 450 -> ~370 MB).
    u, s, vt = svds(matrix.astype(np.float32, copy=False), k=k, random_state=0)
    vecs = (u * s).astype(np.float32)
    norms = np.linalg.norm(vecs, axis=1)
    norms[norms == 0] = 1.0
    latent: np.ndarray = vecs / norms[:, None]
    return latent, np.ascontiguousarray(vt.T, dtype=np.float32)




TOP_BLOCKS = 8  # largest(): blocks per value asked for, whose maxima are taken


def largest(values: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest of ``values``, in no order: ``np.argpartition(-values, k)[:k]``,
    in a fraction of its time over 300k scores (top 10: ~0.2 ms against ~2-5 ms).

    The ``k``-th largest of the maxima of blocks of ``values`` is a floor for the ``k`` largest
    (``k`` blocks hold a value at least that), so they are among the few values at or above it,
    which are partitioned alone. Blocks number :data:`TOP_BLOCKS` times ``k``."""
    n = len(values)
    if k <= 0:
        return np.arange(0)
    if k >= n:
        return np.arange(n)
    size = n // (TOP_BLOCKS * k)
    if size < 8:
        return np.argpartition(-values, k)[:k]
    blocks = n // size
    maxima = values[:blocks * size].reshape(blocks, size).max(axis=1)
    floor = np.partition(maxima, blocks - k)[blocks - k]
    candidates = np.flatnonzero(values >= floor)
    picked: np.ndarray = candidates[np.argpartition(-values[candidates], k - 1)[:k]]
    return picked


Stop = Callable[[], bool] | None  # whether a running query is no longer wanted


class LookupStopped(Exception):
    """A query was stopped: its answer is no longer wanted (see Similarity.similar)."""


def _check(stop: Stop) -> None:
    if stop is not None and stop():
        raise LookupStopped


class Similarity:
    """Nearest neighbours of papers (indices into the corpus)."""

    matrix: sp.csr_matrix
    matrix_t: sp.csr_matrix
    basis: np.ndarray | None
    feedback: bool
    terms: list[str]
    ids: list[str]
    lengths: np.ndarray
    folded: int

    def __init__(self, index: SearchIndex | None, use_lsa: bool = True, feedback: bool = True):
        self.file: ModelFile | None = None  # the mapped file a loaded model's arrays view
        self._query_lock = threading.Lock()
        self._latent: np.ndarray | None = None
        self._latent_from: ModelFile | None = None  # a loaded model's file, its latent vectors not yet copied
        self._latent_lock = threading.Lock()
        self._lanes = Lanes()
        if index is None:  # filled in by load() or store.discovery.fold
            return
        self.matrix = doc_term_matrix(index)
        self.matrix_t = self.matrix.T.tocsr()
        self.latent, self.basis = lsa_basis(self.matrix) if use_lsa and index.n_docs > 10 else (None, None)
        self.feedback = feedback and use_lsa
        # What store.discovery.fold needs to place papers added later: the basis's terms, and the
        # papers the latent rows are of (ids, and lengths to tell a paper whose text changed).
        self.terms = list(index.vocab)
        self.ids = []
        self.lengths = np.asarray(index.lengths if index.lengths is not None else np.zeros(0), dtype=np.float32)
        self.folded = 0  # papers placed by folding since the last SVD

    def save(self, handle: BinaryIO, token: str) -> None:
        """Write the model tagged with ``token`` (the corpus generation): see store.discovery.model_file."""
        with_basis = self.basis is not None and self.ids and len(self.lengths) == len(self.ids)
        basis = terms = None
        if with_basis:
            assert self.basis is not None
            used = np.flatnonzero(np.abs(self.basis).sum(axis=1) > 0)  # terms out of the matrix have no loadings
            basis, terms = self.basis[used], [self.terms[i] for i in used]
        for chunk in model_chunks(token, {"m": self.matrix, "t": self.matrix_t}, self.latent, self.feedback,
                                  self.folded, basis, terms, self.ids if with_basis else None,
                                  self.lengths if with_basis else None):
            handle.write(chunk)

    @staticmethod
    def cache_matches(path: Path, token: str) -> bool:
        """Whether the saved model is for this corpus (reads only its tag and header, not the arrays)."""
        try:
            with open_no_link(path) as fh:
                if not stamp_matches(fh, token):
                    return False
                meta = PackReader(fh).read("meta")
                return len(meta) > 0 and meta[0] == MODEL_VERSION
        except (OSError, ValueError, KeyError):
            return False

    @classmethod
    def load(cls, path: Path, token: str) -> "Similarity | None":
        """The saved model, or None when it is missing, damaged, or for another corpus. Its term
        matrices stay mapped (see store.discovery.model_file); its latent vectors are copied into
        memory on first use (see :attr:`latent`)."""
        file = read_model(path, token)
        if file is None:
            return None
        self = cls(None)
        self.file = file
        self.matrix, self.matrix_t = file.matrices["m"], file.matrices["t"]
        self._latent_from = file if "latent" in file.arrays else None
        self.feedback = bool(file.meta["feedback"])
        self.basis = None  # (read by store.discovery.fold when it needs them)
        self.terms, self.ids, self.lengths, self.folded = [], [], np.zeros(0, np.float32), 0
        return self

    @property
    def latent(self) -> np.ndarray | None:
        """The papers' latent vectors (rows). A loaded model's are copied into memory on first use
        (ModelFile.copy_latent): every lookup reads them all (~150 MB at 300k papers), and mapped
        they cost page faults on every lookup and, given back after it, the kernel's unmapping. Not
        before first use: an app whose lookups a helper process answers (store.discovery.lookups)
        never holds them."""
        if self._latent is None and self._latent_from is not None:
            with self._latent_lock:
                file = self._latent_from
                if self._latent is None and file is not None:
                    self._latent, self._latent_from = file.copy_latent(), None
        return self._latent

    @latent.setter
    def latent(self, value: np.ndarray | None) -> None:
        self._latent, self._latent_from = value, None

    def _like(self, row: sp.csr_matrix, vector: np.ndarray | None, stop: Stop = None) -> np.ndarray:
        """Blended similarity to every paper of a query given as a row of the matrix (1 x terms)
        and its latent ``vector``: ``row @ matrix_t + LSA_WEIGHT * latent @ vector``.

        The work is shared with a second thread (:class:`~store.discovery.term_rows.Lanes`):
        the latent product there while the term rows are read here, or, with no latent product,
        half of the term rows there. A mapped model's term rows are read with pread
        (:class:`~store.discovery.term_rows.TermRows`); ``stop`` is asked between its buffers:
        when it says so the query ends (:class:`LookupStopped`). At 300k papers, the same hour, a
        lookup took 17 ms back to back and 24-28 ms after pauses so; 28 / 33 ms on two threads
        through the mapping; 46 / 40 ms on one thread, whose latent product in BLAS took both cores."""
        latent = None
        if self.latent is not None and vector is not None:
            latent = self._lanes.start(latent_product, self.latent, vector.astype(np.float32) * np.float32(LSA_WEIGHT))
        order = np.argsort(row.indices)
        terms, weights = row.indices[order], row.data[order].astype(np.float32)
        rows = self.file.term_rows if self.file is not None else None

        def product(terms: np.ndarray, weights: np.ndarray, slot: int = 0) -> np.ndarray:
            if rows is None:
                return term_product(self.matrix_t, terms, weights)
            return rows.product(terms, weights, slot, lambda: _check(stop))
        if latent is None:  # the rows in two halves of about as many postings, one on each thread
            t = self.matrix_t
            cut = halves(t.indptr[terms + 1] - t.indptr[terms])
            there = self._lanes.start(product, terms[cut:], weights[cut:], 1)
            out = product(terms[:cut], weights[:cut])
            out += there.result()
        else:
            out = product(terms, weights)
            out += latent.result()
        _check(stop)
        return out

    def _rows(self, rows: np.ndarray) -> sp.csr_matrix:
        """Rows of the matrix (papers' term weights), copied: a mapped model's read with pread and
        checked as they are read (TermRows.rows: one written over in place since it was opened
        would have scipy's products, which check no bounds, write past their arrays)."""
        mapped = self.file.doc_rows if self.file is not None else None
        if mapped is not None:
            return mapped.rows(rows)
        copied: sp.csr_matrix = self.matrix[rows]
        return copied

    def scores(self, doc: int, stop: Stop = None) -> np.ndarray:
        """Similarity of every paper to ``doc`` (higher is closer). One at a time: two queries
        at once (the reader's panel and the `m` list) would each map the pages they read."""
        with self._query_lock:
            try:
                return self._scores(doc, stop)
            finally:
                self._lanes.close()

    def _scores(self, doc: int, stop: Stop) -> np.ndarray:
        _check(stop)  # (a query that waited for the lock may no longer be wanted)
        base = self._like(self._rows(np.array([doc])), None if self.latent is None else self.latent[doc], stop)
        if not self.feedback or len(base) <= FEEDBACK_K + 1:
            return base
        masked = base.copy()
        masked[doc] = -np.inf
        # The feedback moves papers near the top among themselves: it is scored for the nearest
        # CANDIDATES alone (the others score -inf). At 300k papers the top 5 of 100 papers were
        # those of the feedback scored for every paper with 1,000 candidates as with 2,000.
        among = np.sort(largest(masked, min(CANDIDATES, len(base) - 1)))
        top = among[largest(masked[among], FEEDBACK_K)]
        _check(stop)
        out = np.full_like(base, -np.inf)
        out[doc] = base[doc]
        out[among] = base[among] + FEEDBACK_BETA * self._feedback(top, base[top], among, stop) / FEEDBACK_K
        return out

    def _feedback(self, top: np.ndarray, weights: np.ndarray, among: np.ndarray, stop: Stop) -> np.ndarray:
        """``weights @ blend(top)`` with the summed row's :data:`FEEDBACK_TERMS` heaviest terms, for
        the papers ``among`` (ascending), made as one product: the blend is linear in the query's
        row, so the neighbours' rows are summed (weighted) first and multiplied once.

        The term selection is Rocchio's with a cut: ten abstracts' rows sum to 600-1,000 terms,
        and the light ones (words every abstract writes) rank nothing. Cut to the heaviest 200: on
        ICLR 2024 the share of the top 5 in the query's area is the same (0.439 -> 0.440; 100 to
        400 terms measure the same). The terms' rows are read whole (each lists its papers); the
        latent vectors of ``among`` alone."""
        w = weights.astype(np.float32)
        row = sp.csr_matrix(w[None, :]) @ self._rows(top)
        if row.nnz > FEEDBACK_TERMS:
            keep = np.sort(np.argpartition(-row.data, FEEDBACK_TERMS)[:FEEDBACK_TERMS])
            row = sp.csr_matrix((row.data[keep], row.indices[keep], np.array([0, FEEDBACK_TERMS])), shape=row.shape)
        out: np.ndarray = self._like(row, None, stop)[among]
        if self.latent is not None:
            out += LSA_WEIGHT * (self.latent[among] @ (w @ self.latent[top]))
        return out

    def closeness(self, doc: int, others: np.ndarray) -> np.ndarray:
        """How alike ``doc`` and each of ``others`` are, 0 (nothing in common) to 1 (the same
        words and topics): the mean of their word (TF-IDF) and topic (LSA) cosines, as a person
        reads a similarity; the ranking's scores add what the nearest papers share, and are not."""
        rows = self._rows(np.concatenate([[doc], others]).astype(np.int64))
        words = np.asarray((rows[1:] @ rows[0].T).toarray()).ravel()
        latent = self.latent
        both = words if latent is None else (words + LSA_WEIGHT * (latent[others] @ latent[doc])) / (1 + LSA_WEIGHT)
        out: np.ndarray = np.clip(both, 0.0, 1.0)
        return out

    def similar(self, doc: int, limit: int = 10, stop: Stop = None) -> list[tuple[int, float]]:
        """The ``limit`` most similar papers (not ``doc`` itself), best first: at most
        :data:`CANDIDATES`. ``stop``: asked as the query goes (a mapped model's, between windows);
        when it says so, LookupStopped."""
        s = self.scores(doc, stop)
        s[doc] = -np.inf
        limit = min(limit, len(s) - 1)
        top = largest(s, limit)
        top = top[np.argsort(-s[top])]
        return [(int(i), float(s[i])) for i in top if s[i] > -np.inf]
