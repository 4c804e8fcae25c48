"""The more-like-this model of an earlier corpus brought up to the corpus as it is now, without
another SVD: the papers it knew keep their latent vectors, and the papers added since (or whose
text changed) are *folded in*, placed by the basis the SVD found (``row @ basis``, normalized),
the standard way to add documents to an LSA space.

After a day's import this is what the model's first use costs instead of the SVD (at 30k papers
~0.5 s against ~10 s). A folded paper's vector is an approximation (the basis does not learn from
it, and its new words have no loadings), so once the papers placed by folding since the last SVD
pass :data:`FOLD_LIMIT` of the library, the model is built anew.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from store.discovery.model_file import read_model, words
from store.discovery.similar import Similarity, doc_term_matrix
from store.search.index import SearchIndex

FOLD_LIMIT = 0.2  # of the library: more papers folded in since the last SVD, and it is done again


def folded(path: Path, index: SearchIndex, ids: list[str]) -> Similarity | None:
    """The cached model brought up to ``index`` (whose papers are ``ids``, in order); None when the
    cache is missing, damaged, holds no basis, or too many papers would be folded in."""
    if index.lengths is None or len(ids) != index.n_docs:
        return None
    cached = _cached_model(path)
    if cached is None:
        return None
    old_latent, basis, basis_terms, old_ids, old_lengths, folded_before, feedback = cached
    lengths = np.asarray(index.lengths, dtype=np.float32)
    where = {pid: j for j, pid in enumerate(old_ids)}
    rows = np.array([where.get(pid, -1) for pid in ids], dtype=np.int64)
    kept = rows >= 0
    kept[kept] = old_lengths[rows[kept]] == lengths[kept]  # a new version's text is folded in anew
    fold = np.flatnonzero(~kept)
    if folded_before + len(fold) > FOLD_LIMIT * len(ids):
        return None

    sim = Similarity(None)
    sim.matrix = doc_term_matrix(index)
    sim.matrix_t = sim.matrix.T.tocsr()
    full_basis = _over_terms(basis, basis_terms, index.vocab)
    latent = np.empty((len(ids), basis.shape[1]), dtype=np.float32)
    latent[kept] = old_latent[rows[kept]]
    if len(fold):
        vecs = np.asarray(sim.matrix[fold] @ full_basis, dtype=np.float32)
        norms = np.linalg.norm(vecs, axis=1)
        norms[norms == 0] = 1.0
        latent[fold] = vecs / norms[:, None]
    sim.latent, sim.basis, sim.feedback = latent, full_basis, feedback
    sim.terms, sim.ids, sim.lengths, sim.folded = list(index.vocab), list(ids), lengths, folded_before + len(fold)
    return sim


def _cached_model(path: Path) -> tuple[np.ndarray, np.ndarray, list[str], list[str], np.ndarray, int, bool] | None:
    """The cached model's latent vectors, basis, basis terms, paper ids, text lengths, papers folded
    in so far and feedback flag; None when it is missing, damaged or holds no basis."""
    file = read_model(path, None)  # (of an earlier corpus: any generation)
    if file is None or "basis" not in file.arrays or "latent" not in file.arrays or "lengths" not in file.arrays:
        return None
    old_latent, basis = file.arrays["latent"], file.arrays["basis"]
    basis_terms, old_ids = words(file.texts.get("basis_terms", "")), words(file.texts.get("ids", ""))
    old_lengths, folded_before, feedback = file.arrays["lengths"], file.meta["folded"], bool(file.meta["feedback"])
    if len(old_latent) != len(old_ids) or len(old_lengths) != len(old_ids) or len(basis) != len(basis_terms) \
            or old_latent.ndim != 2 or basis.ndim != 2 or basis.shape[1] != old_latent.shape[1]:
        return None
    return old_latent, basis, basis_terms, old_ids, old_lengths, folded_before, feedback


def _over_terms(basis: np.ndarray, basis_terms: list[str], vocab: Sequence[str]) -> np.ndarray:
    """The basis's rows placed at the index's terms (a term the basis lacks: a row of zeros)."""
    term_id = {t: i for i, t in enumerate(vocab)}
    full_basis = np.zeros((len(vocab), basis.shape[1]), dtype=np.float32)
    found = [(term_id[t], j) for j, t in enumerate(basis_terms) if t in term_id]
    if found:
        to, frm = (np.array(x, dtype=np.int64) for x in zip(*found))
        full_basis[to] = basis[frm]
    return full_basis
