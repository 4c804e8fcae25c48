"""Measure derived-title quality on the ICML 2024 corpus.

For papers whose real title starts with a method name ("VIPBench: ...") that
also appears in the abstract, derive a title from the abstract alone and count
how often it contains that name. Target: >= 80%.

Usage: python benchmarks/title_quality.py [path/to/icml2024.jsonl]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from store.titles import derive_title  # noqa: E402

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "icml2024.jsonl"


def evaluate(path: Path, show_misses: int = 0) -> tuple[int, int]:
    """(hits, eligible) over the corpus."""
    hits = total = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        m = re.match(r"^\s*([^:\s][^:]{0,40}?)\s*:", rec["title"])
        if not m:
            continue
        name = m.group(1).strip()
        if " " in name or name not in rec["abstract"]:
            continue
        total += 1
        title = derive_title(rec["abstract"])
        if name in title:
            hits += 1
        elif show_misses > 0:
            show_misses -= 1
            print(f"MISS {name!r}: {title!r}")
    return hits, total


if __name__ == "__main__":
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    hits, total = evaluate(path, show_misses=int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    print(f"| derived titles containing the method name | {hits} / {total} | {hits / total:.1%} | target >= 80% |")
