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
from store.records import Annotation


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
        recs = lib.discovery.recommend("area", limit=len(lib))
        ranked = [lib.corpus.index_of(r.paper.id) in held for r in recs]
        aps.append(average_precision(ranked))
        chance.append(len(held) / len(ranked))
    print(f"| recommendations: mean average precision over 20 areas (half tagged, half held out) | {np.mean(aps):.3f} | chance {np.mean(chance):.3f} |")
    lib.annotations = {}
    topics, _ = lib.discovery.topics(k=20)
    valid = lab != ""
    print(f"| topics (k=20) vs primary areas: NMI | {nmi(topics[valid], lab[valid]):.3f} |")


def _arguments():
    import argparse
    parser = argparse.ArgumentParser(description="Recommendation and topic quality on a labelled corpus (JSONL).")
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT, help=f"default: {DEFAULT}")
    parser.add_argument("--few-shot", action="store_true", help="few-shot recommendations from a handful of marks")
    parser.add_argument("--tune", action="store_true", help="with --few-shot: tune on half the areas")
    parser.add_argument("--draws", type=int, default=3, help="with --few-shot: draws per area (default 3)")
    return parser.parse_args()


def _main_entry() -> None:
    main(_arguments().corpus)


CATCH_ALL = "general machine learning"
KS = (1, 3, 6, 12, 25, 50, "half")


def few_shot(lib, lab: np.ndarray, areas: list[str], draws: int = 3, ks=KS, halves=(None,), seed: int = 0) -> dict:
    """Same-area precision@10 and MAP of held-out papers for k marked papers of one area, per
    method: the centroid alone, the ridge classifier alone, the blend (for each ``halves`` value
    of store.discovery.recommend.RIDGE_HALF; None: the shipped one). Means over areas and draws."""
    from store.discovery.recommend import RIDGE_HALF, blended_scores, centroid_scores, ridge_scores
    sim = lib.discovery.similarity
    matrix, latent = sim.matrix, sim.latent
    n = matrix.shape[0]
    rng = np.random.default_rng(seed)
    out: dict = {}
    for k in ks:
        rows: dict[str, list[tuple[float, float]]] = {}
        for area in areas:
            members = np.flatnonzero(lab == area)
            for _ in range(draws):
                size = len(members) // 2 if k == "half" else min(int(k), len(members) - 1)
                pos = rng.choice(members, size=size, replace=False)
                others = np.setdiff1d(np.arange(n), pos)
                neg = rng.choice(others, size=min(len(others), max(200, 10 * len(pos))), replace=False)
                weights = np.ones(len(pos))
                held = np.zeros(n, dtype=bool)
                held[members] = True
                held[pos] = False
                methods = {"centroid": centroid_scores(matrix, latent, pos, weights)[0],
                           "ridge": ridge_scores(matrix, pos, neg)[0]}
                for half in halves:
                    name = "blend" if half is None else f"blend@{half:g}"
                    methods[name] = blended_scores(matrix, latent, pos, weights, np.arange(0), neg,
                                                   RIDGE_HALF if half is None else half)[0]
                for name, scores in methods.items():
                    scores = scores.copy()
                    scores[pos] = -np.inf
                    order = np.argsort(-scores)[: n - len(pos)]
                    rel = held[order]
                    rows.setdefault(name, []).append((rel[:10].mean(), average_precision(rel.tolist())))
        out[k] = {name: tuple(np.mean(v, axis=0)) for name, v in rows.items()}
    return out


def print_few_shot(table: dict, title: str) -> None:
    names = list(next(iter(table.values())))
    print(f"\n{title}\n")
    print("| k | " + " | ".join(f"{m} P@10 / MAP" for m in names) + " |")
    print("|---|" + "---|" * len(names))
    for k, row in table.items():
        print(f"| {k} | " + " | ".join(f"{row[m][0]:.3f} / {row[m][1]:.3f}" for m in names) + " |")


def few_shot_main(path: Path, tune: bool, draws: int) -> None:
    lib, labels = load(path)
    lab = np.array([label or "" for label in labels])
    areas = sorted(a for a in set(lab) - {""} if not a.startswith(CATCH_ALL))
    if tune:  # choose RIDGE_HALF on half the areas, check it on the other half
        halves = (5.0, 10.0, 20.0, 40.0, 80.0)
        for name, part in (("even-numbered areas (tuning)", areas[::2]), ("odd-numbered areas (held out)", areas[1::2])):
            print_few_shot(few_shot(lib, lab, part, draws, halves=halves), f"{path.name}, {name}, {draws} draws")
        return
    print_few_shot(few_shot(lib, lab, areas, draws), f"{path.name}: {len(areas)} areas (catch-all left out), "
                   f"{draws} draws each; same-area precision@10 / MAP of the held-out papers")


if __name__ == "__main__" and "--few-shot" in sys.argv:
    _args = _arguments()
    few_shot_main(_args.corpus, _args.tune, draws=_args.draws)
    sys.exit(0)


if __name__ == "__main__":
    _main_entry()
