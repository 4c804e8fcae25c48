"""The vectors a split keeps topics together with: a randomized truncated SVD (LSA) of the papers'
TF-IDF rows.

More-like-this's model (store.discovery.similar) takes ARPACK's exact SVD: 17 s at 30k papers on
two cores, too slow for ``assign`` to wait on (its budget is 3 s) and built in the background by
the app. A split needs topics, not exact singular vectors: a randomized range finder with a few
power iterations (Halko, Martinsson & Tropp 2011) keeps the split's quality on ICLR 2024 (the
share of papers kept with their nearest neighbour, and of an area with one member, within a point
of the exact SVD's; benchmarks/team_split.py) at a tenth of the time. Orthonormalizing is done by
Cholesky QR (twice, for stability): this machine's LAPACK QR of a 30k x 130 matrix takes ~1 s,
a Gram matrix ~15 ms. Fixed seed: the same papers give the same vectors, so the same split.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

OVERSAMPLE = 16
POWER_ITERATIONS = 2


def _orthonormal(y: np.ndarray) -> np.ndarray:
    """An orthonormal basis of ``y``'s columns (Cholesky QR, twice), in float64."""
    q = y.astype(np.float64)
    for _ in range(2):
        gram = q.T @ q
        ridge = 1e-12 * max(float(np.trace(gram)), 1e-30)
        chol = np.linalg.cholesky(gram + ridge * np.eye(len(gram)))
        q = q @ np.linalg.inv(chol).T
    return q


def topic_vectors(matrix: sp.csr_matrix, dims: int, seed: int = 0) -> np.ndarray:
    """Row-normalized latent vectors (rows x ``dims``, float32) of a documents x terms matrix.

    A matrix too small for ``dims`` gets as many as it can hold (at least one).
    """
    n, terms = matrix.shape
    if n == 0:
        return np.zeros((0, max(1, dims)), dtype=np.float32)
    k = max(1, min(dims, n - 1 if n > 1 else 1, terms))
    width = min(k + OVERSAMPLE, n, terms)
    m = matrix.astype(np.float32)
    mt = m.T.tocsr()
    rng = np.random.default_rng(seed)
    q = _orthonormal(m @ rng.standard_normal((terms, width)).astype(np.float32))
    for _ in range(POWER_ITERATIONS):
        q = _orthonormal(m @ _orthonormal(mt @ q.astype(np.float32)).astype(np.float32))
    b = np.asarray((mt @ q.astype(np.float32)).T, dtype=np.float64)  # width x terms
    s2, u = np.linalg.eigh(b @ b.T)
    top = np.argsort(-s2)[:k]
    v = (q @ u[:, top]) * np.sqrt(np.maximum(s2[top], 0.0))
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.asarray(v / norms, dtype=np.float32)
