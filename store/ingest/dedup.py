"""Near-duplicate detection: MinHash signatures, LSH banding, exact verification.

Candidates come from LSH bands (never all pairs): :func:`candidate_pairs` for a
whole import at once, :class:`NearDupIndex` for one text at a time. 30,000
abstracts dedup in seconds. Each candidate is then verified on the word 3-shingle sets:
a pair merges when their Jaccard similarity is at least ``JACCARD_MERGE`` or
one nearly contains the other (a sentence appended or dropped). Two distinct
papers that share a template sentence share only a few shingles and stay apart.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from store.text import words

NUM_PERM = 96
BANDS = 24
ROWS = NUM_PERM // BANDS  # 4 rows: detection threshold about Jaccard 0.45
JACCARD_MERGE = 0.5
CONTAINMENT_MERGE = 0.8
CONTAINMENT_MIN_JACCARD = 0.3
_MASK61 = np.uint64((1 << 61) - 1)

_rng = np.random.default_rng(20261129)
_A = _rng.integers(1, (1 << 61) - 1, size=NUM_PERM, dtype=np.uint64) | np.uint64(1)
_B = _rng.integers(0, (1 << 61) - 1, size=NUM_PERM, dtype=np.uint64)


def shingles(normalized: str) -> np.ndarray:
    """Unique 32-bit hashes of the word 3-shingles of normalized text.

    Words are hashed with CRC-32 (C, over the text's UTF-8 bytes), the same in every process, so a
    library keeps its papers' LSH band keys between imports (store.ingest.dedup_cache) and a day's
    import compares its few hundred abstracts with them instead of shingling every paper again.
    32 bits, not 64: half the memory (300k abstracts hold ~60M shingles), and
    for sets of a few hundred shingles a collision shifts a Jaccard estimate by
    ~1e-5, far below the merge thresholds' margins.
    """
    toks = words(normalized)
    if not toks:
        return np.zeros(1, dtype=np.uint32)
    # The tokens hold no ASCII white space (str.split took it), so joined and split again as bytes they are the same words.
    ids = np.fromiter(map(zlib.crc32, " ".join(toks).encode("utf-8").split()), dtype=np.uint64, count=len(toks))
    if len(ids) >= 3:
        with np.errstate(over="ignore"):
            ids = ids[:-2] * np.uint64(0x9E3779B97F4A7C15) ^ ids[1:-1] * np.uint64(0xC2B2AE3D27D4EB4F) ^ ids[2:]
    return np.unique((ids ^ (ids >> np.uint64(32))).astype(np.uint32))


def signature(sh: np.ndarray) -> np.ndarray:
    """MinHash signature (NUM_PERM values) of a shingle set."""
    with np.errstate(over="ignore"):
        vals = (_A[:, None] * (sh[None, :].astype(np.uint64) & _MASK61) + _B[:, None]) & _MASK61
    minima: np.ndarray = vals.min(axis=1)
    return minima


def signatures(shingle_sets: list[np.ndarray], chunk: int = 128, budget: int = 1 << 13) -> np.ndarray:
    """MinHash signatures of many shingle sets at once (rows = sets); one numpy pass per chunk.

    A chunk is up to ``chunk`` sets and, beyond its first, up to ``budget`` shingles in all, hashed
    in place in one buffer of NUM_PERM x budget values (6 MB: it stays in the cache; 65,536
    shingles a pass, with a new array for each step, took three times as long, and 128 abstracts
    of 90k characters once held 1.8 GB at a time).
    """
    out = np.empty((len(shingle_sets), NUM_PERM), dtype=np.uint64)
    buffer = np.empty(0, dtype=np.uint64)
    start = 0
    while start < len(shingle_sets):
        end, total = start + 1, len(shingle_sets[start])
        while end < len(shingle_sets) and end - start < chunk and total + len(shingle_sets[end]) <= budget:
            total += len(shingle_sets[end])
            end += 1
        part = shingle_sets[start:end]
        flat = np.concatenate(part).astype(np.uint64) & _MASK61
        offsets = np.zeros(len(part), dtype=np.int64)
        np.cumsum([len(x) for x in part[:-1]], out=offsets[1:])
        if len(buffer) < NUM_PERM * len(flat):
            buffer = np.empty(NUM_PERM * max(budget, len(flat)), dtype=np.uint64)
        vals = buffer[:NUM_PERM * len(flat)].reshape(NUM_PERM, len(flat))
        with np.errstate(over="ignore"):
            np.multiply(_A[:, None], flat[None, :], out=vals)
            vals += _B[:, None]
        vals &= _MASK61
        out[start:end] = np.minimum.reduceat(vals, offsets, axis=1).T
        start = end
    return out


def band_keys(sigs: np.ndarray) -> np.ndarray:
    """LSH: one 64-bit hash per band of ROWS minima; (n, NUM_PERM) signatures -> (n, BANDS)."""
    with np.errstate(over="ignore"):
        bands = sigs.reshape(len(sigs), BANDS, ROWS)
        h = bands[:, :, 0] * np.uint64(0x9E3779B97F4A7C15)
        for r in range(1, ROWS):
            h = (h ^ bands[:, :, r]) * np.uint64(0xBF58476D1CE4E5B9)
    return h


def candidate_pairs(keys: np.ndarray, max_bucket: int = 100, from_row: int = 0) -> dict[int, list[int]]:
    """Rows sharing at least one band key: for each row (from ``from_row`` on), the earlier rows
    it collides with.

    The batch form of LSH buckets: one sort per band instead of a dict entry
    per (text, band) — at 300k abstracts the dicts held 7.2M entries. A bucket
    of more than ``max_bucket`` rows (degenerate texts) is cut to its first rows.
    """
    if 0 < from_row < len(keys):
        # Only buckets holding a row from ``from_row`` on count: a library's rows that share no band
        # key with those are left out before sorting (a day's 500 against 300k: a search per row
        # into the few new keys instead of 24 sorts of every row).
        rows = _sharing(keys, from_row)
        return {int(rows[r]): [int(rows[e]) for e in es]
                for r, es in _pairs(keys[rows], max_bucket, int(np.searchsorted(rows, from_row))).items()}
    return _pairs(keys, max_bucket, from_row)


def _pairs(keys: np.ndarray, max_bucket: int, from_row: int) -> dict[int, list[int]]:
    earlier: dict[int, set[int]] = {}
    for b in range(keys.shape[1]):
        col = keys[:, b]
        order = np.argsort(col, kind="stable")
        ordered = col[order]
        breaks = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
        starts = np.concatenate(([0], breaks))
        ends = np.concatenate((breaks, [len(col)]))
        for lo, hi in zip(starts[ends - starts > 1].tolist(), ends[ends - starts > 1].tolist()):
            members = sorted(order[lo:min(hi, lo + max_bucket)].tolist())
            if members[-1] < from_row:
                continue
            for n, row in enumerate(members[1:], start=1):
                if row >= from_row:
                    earlier.setdefault(row, set()).update(members[:n])
    return {row: sorted(rows) for row, rows in earlier.items()}


def _sharing(keys: np.ndarray, from_row: int) -> np.ndarray:
    """The rows before ``from_row`` sharing a band key with a row from it on, and those rows, ascending.

    Per band, a bit table of the later rows' keys' low bits finds the few earlier rows that may
    share one (a lookup in a small table per row), and only those are searched for exactly."""
    hit = np.zeros(from_row, dtype=bool)
    low = np.uint64(_TABLE_BITS - 1)
    table = np.zeros(_TABLE_BITS, dtype=bool)
    for b in range(keys.shape[1]):
        later = np.sort(keys[from_row:, b])
        col = keys[:from_row, b]
        table[:] = False
        table[(later & low).astype(np.intp)] = True
        maybe = np.flatnonzero(table[(col & low).astype(np.intp)])
        if len(maybe):
            at = np.minimum(np.searchsorted(later, col[maybe]), len(later) - 1)
            hit[maybe[later[at] == col[maybe]]] = True
    return np.concatenate([np.flatnonzero(hit), np.arange(from_row, len(keys))])


_TABLE_BITS = 1 << 20


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
        # band hash -> key, or a list of keys once two texts share the band (rare): singletons
        # stay plain strings, which keeps 30k papers x 24 bands small.
        self._buckets: list[dict[int, str | list[str]]] = [dict() for _ in range(BANDS)]
        self._shingles: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self._shingles)

    def add_many(self, keys: list[str], normalized: list[str]) -> None:
        """Index many texts at once (batched signatures)."""
        shs = [shingles(n) for n in normalized]
        for key, sh, sig in zip(keys, shs, signatures(shs)):
            self.add(key, "", sh, sig)

    def add(self, key: str, normalized: str, sh: np.ndarray | None = None, sig: np.ndarray | None = None) -> None:
        """Index a text under ``key`` (pass the shingles and signature ``query`` returned, to reuse them)."""
        if sh is None:
            sh = shingles(normalized)
        if sig is None:
            sig = signature(sh)
        self._shingles[key] = sh
        for band, bucket in zip(self._band_keys(sig), self._buckets):
            have = bucket.get(band)
            if have is None:
                bucket[band] = key
            elif isinstance(have, list):
                have.append(key)
            else:
                bucket[band] = [have, key]

    def query(self, normalized: str, exclude: frozenset[str] = frozenset(),
              sh: np.ndarray | None = None,
              sig: np.ndarray | None = None) -> tuple[Match | None, tuple[np.ndarray, np.ndarray]]:
        """The most similar indexed text that passes the merge rule, if any.

        Args:
            sh, sig: precomputed shingles and signature (see :func:`signatures`).

        Returns:
            (best match or None, (shingles, signature) for reuse by ``add``).
        """
        if sh is None:
            sh = shingles(normalized)
        if sig is None:
            sig = signature(sh)
        seen: set[str] = set()
        best: Match | None = None
        for band, bucket in zip(self._band_keys(sig), self._buckets):
            have = bucket.get(band)
            if have is None:
                continue
            for key in (have if isinstance(have, list) else (have,)):
                if key in seen or key in exclude:
                    continue
                seen.add(key)
                jac, cont = similarity(sh, self._shingles[key])
                if is_near_duplicate(jac, cont) and (best is None or jac > best.jaccard):
                    best = Match(key, jac, cont)
        return best, (sh, sig)

    @staticmethod
    def _band_keys(sig: np.ndarray) -> list[int]:
        """One 64-bit hash per band (a combination of the band's ROWS minima)."""
        keys: list[int] = band_keys(sig[None, :])[0].tolist()
        return keys
