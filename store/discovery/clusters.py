"""Spherical k-means: the papers cut into topics (the topic browser, topic:N) and into the few
dozen clusters a lab's split deals out (store.team.split)."""

from __future__ import annotations

import numpy as np


def kmeans(vectors: np.ndarray, k: int, iters: int = 30, seed: int = 0) -> np.ndarray:
    """Spherical k-means (cosine) with k-means++ seeding; returns a label per row."""
    rng = np.random.default_rng(seed)
    n = len(vectors)
    k = max(1, min(k, n))
    centers = [vectors[rng.integers(n)]]
    dist = np.full(n, np.inf)
    for _ in range(1, k):
        dist = np.minimum(dist, 1 - vectors @ centers[-1])
        p = np.clip(dist, 0, None) ** 2
        centers.append(vectors[rng.choice(n, p=p / p.sum()) if p.sum() > 0 else rng.integers(n)])
    c = np.array(centers)
    labels = np.zeros(n, dtype=np.int32)
    for _ in range(iters):
        new = np.argmax(vectors @ c.T, axis=1)
        if np.array_equal(new, labels) and _:
            break
        labels = new
        for j in range(k):
            members = vectors[labels == j]
            if len(members):
                m = members.sum(axis=0)
                c[j] = m / (np.linalg.norm(m) or 1.0)
    return labels
