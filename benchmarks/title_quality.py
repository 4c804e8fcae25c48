"""Measure derived-title quality against the real titles (ICML 2024; ICLR 2024 with --iclr).

Two measures, each over a corpus whose real titles are known, deriving every
title from the abstract alone:

- **name**: for papers whose real title starts with a method name ("VIPBench:
  ...") that also appears in the abstract, how often the derived title contains
  that name. Target: >= 80%.
- **words**: for every paper, the overlap of the derived title's content words
  with the real title's (F1 over stemmed words, stop words left out), averaged.
  It rewards a title that says what the paper is about, not only its name.

Usage: python benchmarks/title_quality.py [path/to/corpus.jsonl ...] [--iclr] [--misses N]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from store.titles import derive_title  # noqa: E402
from store.vocab import stem  # noqa: E402

CORPORA = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"
DEFAULT = CORPORA / "icml2024.jsonl"
STOP = set("a an the of for and in on with to via by from as at is are its their our we this that be or into "
           "using towards toward through under over beyond without".split())


def content_words(title: str) -> set[str]:
    return {stem(w) for w in re.findall(r"[a-z0-9]+", title.lower()) if w not in STOP}


def word_f1(derived: str, real: str) -> float:
    a, b = content_words(derived), content_words(real)
    common = len(a & b)
    if not common:
        return 0.0
    precision, recall = common / len(a), common / len(b)
    return 2 * precision * recall / (precision + recall)


def evaluate(path: Path, show_misses: int = 0) -> tuple[int, int, float, int]:
    """(name hits, papers eligible for the name measure, mean word F1, papers) over the corpus."""
    hits = total = papers = 0
    f1 = 0.0
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        title = derive_title(rec["abstract"])
        papers += 1
        f1 += word_f1(title, rec["title"])
        m = re.match(r"^\s*([^:\s][^:]{0,40}?)\s*:", rec["title"])
        if not m:
            continue
        name = m.group(1).strip()
        if " " in name or name not in rec["abstract"]:
            continue
        total += 1
        if name in title:
            hits += 1
        elif show_misses > 0:
            show_misses -= 1
            print(f"MISS {name!r}: {title!r}")
    return hits, total, f1 / max(papers, 1), papers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", type=Path)
    ap.add_argument("--iclr", action="store_true", help="also ICLR 2024 (not used to tune the rules)")
    ap.add_argument("--misses", type=int, default=0, help="print this many name misses")
    args = ap.parse_args()
    paths = args.paths or [DEFAULT]
    if args.iclr:
        paths.append(CORPORA / "iclr2024.jsonl")
    print("| corpus | derived titles containing the method name | mean word F1 with the real title |")
    print("|---|---|---|")
    for path in paths:
        hits, total, f1, papers = evaluate(path, args.misses)
        print(f"| {path.name} ({papers:,} papers) | {hits} / {total} = {hits / max(total, 1):.1%} (target >= 80%) "
              f"| {f1:.3f} |")


if __name__ == "__main__":
    main()
