"""A day's papers into a big library: the incremental import beside a full rebuild, in one run.

The library is built once from benchmarks/generate.py's corpus (30,000 abstracts by default);
the day's batch is generated with another seed (500 abstracts: new papers, and a few duplicates
of each other). Each repeat copies the library and times, as whole processes, alternately:

- **incremental**: `papersift import BATCH`, the caches of the library as an import left them
  (the search index is updated and the near-duplicate check reads the papers' band keys:
  store.search.index_update, store.ingest.dedup_cache);
- **full rebuild**: the same import with those two caches deleted, which is what every import
  cost before: every paper shingled again and the index built from the whole corpus.

Then the first keystroke after each: a fresh process's first search (the index read from its
cache) and the next one. The two results must be the same library: the script checks that the
papers (all but the batch's time) and the index cache (past its stamp) are alike, and says so.

Usage: python benchmarks/daily_import.py [--size 30000] [--batch 500] [--repeat 5] [--base DIR] [--smoke]
(--base: an existing library of the corpus, not rebuilt; --smoke: 1,000 papers, a batch of 50, 2 repeats.)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from run_all import OUT, corpus, papersift_cmd, peak_process, stats, timed_process  # noqa: E402

CACHES = ("index.cache", "dedup.cache")
QUERY = "graph neural network"


def batch_file(n: int, seed: int = 7) -> Path:
    path = OUT / f"batch{n}_s{seed}.txt"
    if not path.exists():
        OUT.mkdir(exist_ok=True)
        subprocess.run([sys.executable, str(HERE / "generate.py"), str(n), str(path), "--seed", str(seed)],
                       check=True, stdout=sys.stderr)
    return path


def first_keys(lib: Path) -> tuple[float, float]:
    """A fresh process's first search on the library (index read from its cache) and the next."""
    code = ("import sys, time; from store.library import Library; lib = Library.open(sys.argv[1], seed_if_new=False); "
            "t = time.perf_counter(); lib.search.find(sys.argv[2]); a = time.perf_counter() - t; "
            "t = time.perf_counter(); lib.search.find(sys.argv[2] + ' pass'); b = time.perf_counter() - t; print(a, b)")
    out = subprocess.run([sys.executable, "-c", code, str(lib), QUERY], capture_output=True, text=True, check=True)
    first, second = (float(x) for x in out.stdout.split())
    return first, second


def same_library(a: Path, b: Path) -> bool:
    """The same papers and the same index cache: corpus records alike but for the batch's time
    (``added``, and the header's generation and batch times), index cache alike past its stamp.
    Compared by digest, a line at a time: this process stays small, as each import it times is
    forked from it (a child's peak RSS counts its parent's pages at the fork)."""
    def papers(lib: Path) -> str:
        digest = hashlib.sha256()
        with (lib / "corpus.jsonl").open("rb") as fh:
            header = json.loads(fh.readline())
            header.pop("generation", None)
            for batch in header.get("batches", []):
                batch.pop("time", None)
            digest.update(json.dumps(header, sort_keys=True).encode())
            for line in fh:
                rec = json.loads(line)
                rec.pop("added", None)
                digest.update(json.dumps(rec, sort_keys=True).encode())
        return digest.hexdigest()

    def index(lib: Path) -> str:
        digest = hashlib.sha256()
        with (lib / "index.cache").open("rb") as fh:
            fh.readline()  # the generation stamp
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()
    return papers(a) == papers(b) and index(a) == index(b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=30000)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--base", type=Path, help="an existing library of the corpus (not rebuilt)")
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    if args.smoke:
        args.size, args.batch, args.repeat = 1000, 50, 2
    day = batch_file(args.batch)
    work = Path(tempfile.mkdtemp(prefix="psdaily-"))
    try:
        base = args.base
        built = None
        if base is None:
            base = work / "base"
            built, _ = timed_process(papersift_cmd() + ["--library", str(base), "import", str(corpus(args.size))])
        times: dict[str, list[float]] = {"incremental": [], "full rebuild": []}
        rss: dict[str, list[float]] = {"incremental": [], "full rebuild": []}
        keys: dict[str, list[tuple[float, float]]] = {"incremental": [], "full rebuild": []}
        alike = True
        for r in range(args.repeat):
            kinds = ["incremental", "full rebuild"] if r % 2 == 0 else ["full rebuild", "incremental"]
            made = {}
            for kind in kinds:
                lib = work / f"{kind.split()[0]}{r}"
                shutil.copytree(base, lib)
                if kind == "full rebuild":
                    for name in CACHES:
                        (lib / name).unlink(missing_ok=True)
                os.sync()  # the copy's dirty pages written out first: not the timed import's to wait for
                t, peak = peak_process(papersift_cmd() + ["--library", str(lib), "import", str(day)])
                times[kind].append(t)
                rss[kind].append(peak / 1024)
                keys[kind].append(first_keys(lib))
                made[kind] = lib
            alike = alike and same_library(made["incremental"], made["full rebuild"])
            for lib in made.values():
                shutil.rmtree(lib)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    inc, full = stats(times["incremental"]), stats(times["full rebuild"])
    print(f"## {args.batch:,} new abstracts into a {args.size:,}-abstract library ({args.repeat} runs each, alternating)")
    print()
    print("| | incremental | full rebuild |")
    print("|---|---|---|")
    print(f"| import, whole process: median / p95 | {inc['median']:.2f} / {inc['p95']:.2f} s "
          f"| {full['median']:.2f} / {full['p95']:.2f} s |")
    print(f"| peak RSS (median) | {stats(rss['incremental'])['median']:,.0f} MB | {stats(rss['full rebuild'])['median']:,.0f} MB |")
    for k, label in ((0, "first search after, a fresh process (index from its cache)"), (1, "the next search")):
        a = stats([x[k] for x in keys["incremental"]])["median"] * 1000
        b = stats([x[k] for x in keys["full rebuild"]])["median"] * 1000
        print(f"| {label} | {a:.1f} ms | {b:.1f} ms |")
    print()
    print(f"incremental / full rebuild: {inc['median'] / full['median']:.2f}; "
          f"the same corpus and index from both: {'yes' if alike else 'NO'}"
          + (f"; the library itself imported in {built:.1f} s" if built is not None else ""))


if __name__ == "__main__":
    main()
