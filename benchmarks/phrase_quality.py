"""Multi-word queries whose words form a phrase in the papers wanted: words standing together first.

The queries are ICLR 2024's author keywords of 2-4 words that five or more papers chose ("graph
neural networks", "offline reinforcement learning", "task planning"); the papers wanted for one are
those that chose it (on ICLR) or whose real title holds it (on ICML, or any JSONL with titles).
The library is the abstracts alone (imported as a dump, as in search_quality.py: no title, no
keyword), so a keyword is found only as the abstracts write it. Reported: precision of the first 10
(of at most as many as are wanted) and average precision over the first 50, for the app's order and,
in the same process, the same search with the proximity bonus off (store.search.proximity): the
ranking before it.

Usage: python benchmarks/phrase_quality.py [corpus.jsonl ...] [--depth N] [--weight W]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from search_quality import untitled_library  # noqa: E402
from store.search import proximity  # noqa: E402

CORPORA = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def phrases() -> list[str]:
    """ICLR's author keywords of 2-4 words chosen by five or more papers."""
    counts: Counter[str] = Counter()
    for line in (CORPORA / "iclr2024.jsonl").read_text().splitlines():
        counts.update({_norm(k) for k in json.loads(line).get("keywords") or []})
    return sorted(k for k, n in counts.items() if 2 <= len(k.split()) <= 4 and n >= 5)


def wanted(recs: list[dict], position: dict[str, int], queries: list[str]) -> dict[str, set[int]]:
    """Per query, the papers wanted (three or more): by their keywords if the corpus has them, else by title."""
    by_keywords = any(r.get("keywords") for r in recs)
    out = {}
    for q in queries:
        docs = set()
        for r in recs:
            hit = q in {_norm(k) for k in r.get("keywords") or []} if by_keywords else \
                f" {q} " in f" {_norm(r['title'])} "
            if hit and (i := position.get(" ".join(r["abstract"].split()))) is not None:
                docs.add(i)
        if len(docs) >= 3:
            out[q] = docs
    return out


def measure(lib, rel: dict[str, set[int]]) -> tuple[float, float]:
    p10, ap = [], []
    for q, docs in rel.items():
        found = lib.search.find(q, limit=50).indices.tolist()
        p10.append(sum(d in docs for d in found[:10]) / min(10, len(docs)))
        hits, total = 0, 0.0
        for rank, d in enumerate(found, 1):
            if d in docs:
                hits += 1
                total += hits / rank
        ap.append(total / min(len(docs), 50))
    return statistics.fmean(p10), statistics.fmean(ap)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpora", nargs="*", type=Path,
                        default=[CORPORA / "iclr2024.jsonl", CORPORA / "icml2024.jsonl"])
    parser.add_argument("--depth", type=int, default=proximity.PROXIMITY_DEPTH)
    parser.add_argument("--weight", type=float, default=proximity.PHRASE_WEIGHT)
    args = parser.parse_args()
    proximity.PROXIMITY_DEPTH = args.depth
    queries = phrases()
    print(f"| corpus | queries | P@10 without → with | AP@50 without → with |  (depth {args.depth}, weight {args.weight})")
    print("|---|---|---|---|")
    for path in args.corpora:
        recs = [json.loads(line) for line in path.read_text().splitlines()]
        with tempfile.TemporaryDirectory() as tmp:
            lib, position = untitled_library(recs, Path(tmp) / "lib")
            rel = wanted(recs, position, queries)
            proximity.PHRASE_WEIGHT = 0.0
            before = measure(lib, rel)
            proximity.PHRASE_WEIGHT = args.weight
            after = measure(lib, rel)
        print(f"| {path.name} | {len(rel)} | {before[0]:.3f} → {after[0]:.3f} | {before[1]:.3f} → {after[1]:.3f} |")


if __name__ == "__main__":
    main()
