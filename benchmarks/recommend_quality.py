"""Recommendation and topic quality on ICLR 2024 (20 primary areas).

Recommendations: for each area, tag a random half of its papers, ask for
recommendations from that tag, and measure the average precision of the
held-out half within the ranked unread papers (chance = the area's share).
Topics: normalized mutual information between papersift's topics (k = 20) and
the areas.

Usage: python benchmarks/recommend_quality.py [path/to/iclr2024.jsonl]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from similar_quality import DEFAULT, load  # noqa: E402
from store.models import Annotation  # noqa: E402


def average_precision(ranked_relevant: list[bool]) -> float:
    hits, total = 0, 0.0
    for k, rel in enumerate(ranked_relevant, start=1):
        if rel:
            hits += 1
            total += hits / k
    return total / max(hits, 1)


def nmi(a: np.ndarray, b: np.ndarray) -> float:
    """Normalized mutual information (arithmetic mean normalization)."""
    _, ai = np.unique(a, return_inverse=True)
    _, bi = np.unique(b, return_inverse=True)
    joint = np.zeros((ai.max() + 1, bi.max() + 1))
    np.add.at(joint, (ai, bi), 1)
    p = joint / joint.sum()
    pa, pb = p.sum(1), p.sum(0)
    nz = p > 0
    mi = (p[nz] * np.log(p[nz] / (pa[:, None] * pb[None, :])[nz])).sum()
    h = lambda q: -(q[q > 0] * np.log(q[q > 0])).sum()  # noqa: E731
    return 2 * mi / (h(pa) + h(pb))


def main(path: Path) -> None:
    lib, labels = load(path)
    lab = np.array([l or "" for l in labels])
    rng = np.random.default_rng(0)
    aps, chance = [], []
    for area in sorted(set(lab) - {""}):
        members = np.flatnonzero(lab == area)
        rng.shuffle(members)
        train, held = members[: len(members) // 2], set(members[len(members) // 2:].tolist())
        lib.annotations = {}
        changes = {lib.corpus.papers[int(i)].id: Annotation(lib.corpus.papers[int(i)].id, tags=["area"]) for i in train}
        lib.annotations.update(changes)  # in memory only: nothing is written for the evaluation
        recs = lib.recommend("area", limit=len(lib))
        ranked = [lib.corpus.index_of(p.id) in held for p, _, _ in recs]
        aps.append(average_precision(ranked))
        chance.append(len(held) / len(ranked))
    print(f"| recommendations: mean average precision over 20 areas (half tagged, half held out) | {np.mean(aps):.3f} | chance {np.mean(chance):.3f} |")
    lib.annotations = {}
    topics, _ = lib.topics(k=20)
    valid = lab != ""
    print(f"| topics (k=20) vs primary areas: NMI | {nmi(topics[valid], lab[valid]):.3f} |")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT)
