"""Near-duplicate detection: MinHash signatures, LSH banding, exact verification.

Candidates come from LSH buckets (never all pairs), so 30,000 abstracts dedup
in seconds. Each candidate is then verified on the word 3-shingle sets:
a pair merges when their Jaccard similarity is at least ``JACCARD_MERGE`` or
one nearly contains the other (a sentence appended or dropped). Two distinct
papers that share a template sentence share only a few shingles and stay apart.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from .text import words

NUM_PERM = 96
BANDS = 24
ROWS = NUM_PERM // BANDS  # 4 rows: detection threshold about Jaccard 0.45
JACCARD_MERGE = 0.5
CONTAINMENT_MERGE = 0.8
CONTAINMENT_MIN_JACCARD = 0.3
_MASK61 = np.uint64((1 << 61) - 1)

_rng = np.random.default_rng(20261129)  # fixed: signatures are stable across runs
_A = _rng.integers(1, (1 << 61) - 1, size=NUM_PERM, dtype=np.uint64) | np.uint64(1)
_B = _rng.integers(0, (1 << 61) - 1, size=NUM_PERM, dtype=np.uint64)
_word_hash_cache: dict[str, int] = {}


def _word_hash(word: str) -> int:
    h = _word_hash_cache.get(word)
    if h is None:
        h = zlib.crc32(word.encode("utf-8")) | (zlib.adler32(word.encode("utf-8")) << 32)
        _word_hash_cache[word] = h
    return h


def shingles(normalized: str) -> np.ndarray:
    """Unique 64-bit hashes of the word 3-shingles of normalized text."""
    toks = words(normalized)
    if not toks:
        return np.zeros(1, dtype=np.uint64)
    ids = np.fromiter((_word_hash(t) for t in toks), dtype=np.uint64, count=len(toks))
    if len(ids) < 3:
        return np.unique(ids)
    with np.errstate(over="ignore"):
        sh = ids[:-2] * np.uint64(0x9E3779B97F4A7C15) ^ ids[1:-1] * np.uint64(0xC2B2AE3D27D4EB4F) ^ ids[2:]
    return np.unique(sh)


def signature(sh: np.ndarray) -> np.ndarray:
    """MinHash signature (NUM_PERM values) of a shingle set."""
    with np.errstate(over="ignore"):
        vals = (_A[:, None] * (sh[None, :] & _MASK61) + _B[:, None]) & _MASK61
    return vals.min(axis=1)


def similarity(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Exact (Jaccard, containment) of two shingle sets."""
    inter = len(np.intersect1d(a, b, assume_unique=True))
    union = len(a) + len(b) - inter
    jac = inter / union if union else 1.0
    cont = inter / min(len(a), len(b)) if min(len(a), len(b)) else 0.0
    return jac, cont


def is_near_duplicate(jaccard: float, containment: float) -> bool:
    """The merge rule (kept in one place so the report and import agree)."""
    return jaccard >= JACCARD_MERGE or (containment >= CONTAINMENT_MERGE and jaccard >= CONTAINMENT_MIN_JACCARD)


@dataclass
class Match:
    """A verified near-duplicate: the key already indexed and its similarity."""

    key: str
    jaccard: float
    containment: float


class NearDupIndex:
    """LSH buckets over MinHash signatures; keys are paper ids."""

    def __init__(self) -> None:
        self._buckets: list[dict[bytes, list[str]]] = [dict() for _ in range(BANDS)]
        self._shingles: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self._shingles)

    def add(self, key: str, normalized: str, sh: np.ndarray | None = None) -> None:
        """Index a text under ``key``."""
        if sh is None:
            sh = shingles(normalized)
        self._shingles[key] = sh
        sig = signature(sh)
        for band, bucket in zip(self._band_keys(sig), self._buckets):
            bucket.setdefault(band, []).append(key)

    def query(self, normalized: str, exclude: frozenset[str] = frozenset()) -> tuple[Match | None, np.ndarray]:
        """The most similar indexed text that passes the merge rule, if any.

        Returns:
            (best match or None, the query's shingles for reuse by ``add``).
        """
        sh = shingles(normalized)
        sig = signature(sh)
        seen: set[str] = set()
        best: Match | None = None
        for band, bucket in zip(self._band_keys(sig), self._buckets):
            for key in bucket.get(band, ()):
                if key in seen or key in exclude:
                    continue
                seen.add(key)
                jac, cont = similarity(sh, self._shingles[key])
                if is_near_duplicate(jac, cont) and (best is None or jac > best.jaccard):
                    best = Match(key, jac, cont)
        return best, sh

    @staticmethod
    def _band_keys(sig: np.ndarray) -> list[bytes]:
        return [sig[i * ROWS:(i + 1) * ROWS].tobytes() for i in range(BANDS)]
