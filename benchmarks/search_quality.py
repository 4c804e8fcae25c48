"""Known-item search quality on ICML 2024, imported without titles.

For each sampled paper: three words (5+ letters) of its real title, one
misspelled (a letter dropped or two swapped); success = the paper ranks in the
top 5. Same queries through `fzf --filter` over the abstracts, one per line,
for reference. Target: >= 85% (fzf manages about 20% on such queries).

Usage: python benchmarks/search_quality.py [icml2024.jsonl] [--sample N]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from store import Library  # noqa: E402

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "icml2024.jsonl"


def misspell(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 1)
    return word[:i] + word[i + 1:] if rng.random() < 0.5 else word[:i] + word[i + 1] + word[i] + word[i + 2:]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--sample", type=int, default=500)
    args = ap.parse_args()
    recs = [json.loads(l) for l in args.path.read_text().splitlines()]
    tmp = Path(tempfile.mkdtemp())
    flat = [" ".join(r["abstract"].split()) for r in recs]
    (tmp / "dump.txt").write_text("ICML\n\n" + "\n\n".join(flat))
    (tmp / "lines.txt").write_text("\n".join(flat) + "\n")
    lib = Library(tmp / "lib")
    lib.import_paths([tmp / "dump.txt"])
    position = {" ".join(p.abstract.split()): i for i, p in enumerate(lib.corpus)}
    rng = random.Random(0)
    sample = rng.sample(recs, min(args.sample, len(recs)))
    ours = fzf = total = 0
    fzf_bin = shutil.which("fzf")
    for r in sample:
        words = re.findall(r"[A-Za-z]{5,}", r["title"])
        if len(words) < 3:
            continue
        picked = rng.sample(words, 3)
        picked[0] = misspell(picked[0], rng)
        query = " ".join(picked)
        target = position.get(" ".join(r["abstract"].split()))
        if target is None:
            continue
        total += 1
        ours += target in lib.search(query, limit=5).indices
        if fzf_bin:
            out = subprocess.run([fzf_bin, "--filter", query], input=(tmp / "lines.txt").read_text(),
                                 capture_output=True, text=True).stdout.splitlines()[:5]
            fzf += " ".join(r["abstract"].split()) in out
    print(f"| known-item: 3 title words, one misspelled, paper in top 5 ({total} ICML papers) "
          f"| papersift {ours / total:.1%} | fzf --filter {fzf / total:.1%} | target >= 85% |")


if __name__ == "__main__":
    main()
