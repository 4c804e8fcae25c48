"""Screening replay: how fast each ranker finds the papers a reader wants, one paper at a time.

A replay of ASReview's simulation protocol (asreview.simulation.Simulate, as `asreview simulate`
runs it): a prior of one wanted and one unwanted paper (drawn by seed), then the top paper of the
current ranking is shown, its true label revealed, and the ranking refitted on every label so far,
until 95 % of the wanted papers are found, 20 % are read and the stopping rule has said stop.
Metrics leave the two prior papers out (as ASReview's insights do): recall after 10 % and 20 %
of the papers read, WSS@95 ((N - read to reach 95 %) / N - 0.05), papers read to reach 95 %, the
true recall when :func:`store.discovery.queue.stop_estimate` first says stop, and ms per re-rank.

Methods: ``papersift`` (store.discovery.queue, what the app calls), ``asreview`` (ASReview LAB's
default model ELAS u4 through its own package: TF-IDF on words and pairs + linear SVM, balanced;
an optional extra: ``pip install asreview==3.0.8``; it runs in a subprocess, by this interpreter
if it imports asreview, else by ``$ASREVIEW_PYTHON`` or ``/tmp/asr/bin/python`` (a venv for it,
should it need numpy/scipy versions other than papersift's); skipped with a note when neither
has it), ``random`` and ``tfidf_lr`` (plain TF-IDF on words + logistic regression, balanced).

Labels: ``--label FIELD`` (a 0/1 field), ``FIELD=VALUE`` (equal, or a list field holding it),
``FIELD~TEXT`` (a field, or one of a list field's items, containing TEXT, any case).

Usage:
    python benchmarks/screening.py --corpus ../shared/corpora/iclr2024.jsonl \\
        --label "primary_area=reinforcement learning" [--label ...] [--seeds 1 2 3] [--json]
    python benchmarks/screening.py --timing 6000 30000     # re-rank time on synthetic corpora
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

# One BLAS thread: the re-rank's vectors are small, and on a busy machine OpenBLAS's threads
# spin for them (a 20 ms re-rank took 100-360 ms with the default threads and two other jobs).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from store.discovery.queue import Queue, Settings, stop_estimate  # noqa: E402
from store.discovery.similar import doc_term_matrix  # noqa: E402
from store.search.index import SearchIndex  # noqa: E402

METHODS = ("papersift", "asreview", "random", "tfidf_lr")
KEYS = ("recall10", "recall20", "wss95", "read_to_95", "stop_recall", "ms_per_rerank")


# ---- corpus and labels ----

def load(path: Path) -> list[dict]:
    return [json.loads(l) for l in path.read_text(encoding="utf-8").splitlines() if l.strip()]


def make_labels(records: list[dict], spec: str) -> np.ndarray:
    """0/1 per record from ``FIELD``, ``FIELD=VALUE`` or ``FIELD~TEXT``."""
    def values(rec: dict, field: str) -> list:
        v = rec.get(field)
        return v if isinstance(v, list) else [] if v is None else [v]
    if "~" in spec:
        field, text = spec.split("~", 1)
        return np.array([any(text.lower() in str(v).lower() for v in values(r, field)) for r in records])
    if "=" in spec:
        field, value = spec.split("=", 1)
        return np.array([any(str(v) == value for v in values(r, field)) for r in records])
    return np.array([bool(int(r.get(spec) or 0)) for r in records])


def texts_of(records: list[dict]) -> list[str]:
    return [f"{r.get('title') or ''}\n{r.get('abstract') or ''}" for r in records]


def app_matrix(records: list[dict]):
    """The papers as the app's queue sees them: the similarity model's TF-IDF over the search
    index of (title, abstract) (store.discovery.similar.doc_term_matrix)."""
    return doc_term_matrix(SearchIndex.build([(r.get("title") or "", r.get("abstract") or "") for r in records]))


def prior_of(y: np.ndarray, seed: int) -> tuple[int, int]:
    rng = np.random.default_rng(seed)
    return int(rng.choice(np.flatnonzero(y))), int(rng.choice(np.flatnonzero(~y)))


# ---- the replay ----

class Done:
    """When a replay has seen enough: 95 % found, 20 % read, and the stopping rule said stop."""

    def __init__(self, y: np.ndarray, prior: tuple[int, int]):
        self.n = len(y) - 2
        self.r = int(y.sum()) - 1
        self.n_total = len(y)
        self.stopped = False

    def __call__(self, read: list[bool]) -> bool:
        """``read``: labels in order read, the prior's two first."""
        after = read[2:]
        if not self.stopped:
            self.stopped = stop_estimate(read, self.n_total)[1]
        return len(after) >= self.n or (self.stopped and sum(after) >= math.ceil(0.95 * self.r)
                                         and len(after) >= math.ceil(0.2 * self.n))


def replay(make: Callable[[], Queue], y: np.ndarray, prior: tuple[int, int]) -> tuple[list[int], float]:
    """Rows read after the prior, in order, and the median ms per re-rank."""
    queue = make()
    for row in prior:
        queue.mark(row, bool(y[row]))
    done = Done(y, prior)
    read = [bool(y[prior[0]]), bool(y[prior[1]])]
    order: list[int] = []
    times = []
    while not done(read):
        t = time.process_time()   # CPU time: the machine may be busy with other jobs (one BLAS thread)
        row = int(queue.order()[0])
        times.append(time.process_time() - t)
        queue.mark(row, bool(y[row]))
        order.append(row)
        read.append(bool(y[row]))
    return order, 1000 * float(np.median(times)) if times else 0.0


def random_order(y: np.ndarray, prior: tuple[int, int], seed: int) -> tuple[list[int], float]:
    rest = np.setdiff1d(np.arange(len(y)), prior)
    return np.random.default_rng(seed).permutation(rest).tolist(), 0.0


def metrics(order: Sequence[int], y: np.ndarray, prior: tuple[int, int]) -> dict[str, float]:
    n, r = len(y) - 2, int(y.sum()) - 1
    seen = np.asarray(y[np.asarray(order, dtype=np.int64)], dtype=bool)
    found = np.cumsum(seen)
    at = lambda k: float(found[min(k, len(found)) - 1]) / r  # noqa: E731
    target = math.ceil(0.95 * r)
    read95 = int(np.searchsorted(found, target) + 1)
    stop_recall = 1.0
    read = [bool(y[prior[0]]), bool(y[prior[1]])]
    for k, lab in enumerate(seen):   # the first k at which the rule says stop
        read.append(bool(lab))
        if stop_estimate(read, len(y))[1]:
            stop_recall = float(found[k]) / r
            break
    return {"recall10": at(math.ceil(0.1 * n)), "recall20": at(math.ceil(0.2 * n)),
            "wss95": (n - read95) / n - 0.05, "read_to_95": float(read95), "stop_recall": stop_recall}


# ---- baselines ----

WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")


def _tokens(text: str) -> list[str]:
    return WORD.findall(text.lower())


def text_features(texts: Sequence[str], pairs: bool = True, min_df: int = 2,
                  max_df_ratio: float = 0.5, sublinear: bool = True) -> sp.csr_matrix:
    """Documents x terms: sublinear TF-IDF over words (and adjacent word pairs), rows L2-normalized.

    Args:
        texts: one string per paper (its title and abstract).
        pairs: also count each pair of adjacent words as a term.
        min_df: terms in fewer papers are dropped (they cannot generalize from one paper to another).
        max_df_ratio: terms in more than this share of the papers are dropped.
        sublinear: weigh a term's count c as 1 + log(c) (else c).
    """
    ids: dict[str, int] = {}
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    for i, text in enumerate(texts):
        toks = np.fromiter((ids.setdefault(t, len(ids)) for t in _tokens(text)), dtype=np.int64)
        cols.append(toks)
        rows.append(np.full(len(toks), i, dtype=np.int64))
    n_words = max(len(ids), 1)
    if pairs:
        # a pair (a, b) is the term n_words * (a + 1) + b: one integer, made in numpy per paper
        for i in range(len(texts)):
            t = cols[i]
            if len(t) > 1:
                cols.append(n_words * (t[:-1] + 1) + t[1:])
                rows.append(np.full(len(t) - 1, i, dtype=np.int64))
    row = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    col = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
    keys, col = np.unique(col, return_inverse=True)
    counts = sp.csr_matrix((np.ones(len(row), dtype=np.float32), (row, col)), shape=(len(texts), len(keys)))
    counts.sum_duplicates()
    df = np.diff(counts.tocsc().indptr)
    keep = np.flatnonzero((df >= min_df) & (df <= max(2, max_df_ratio * len(texts))))
    m = counts[:, keep].tocsr()
    idf = np.log((1 + len(texts)) / (1 + df[keep])).astype(np.float32) + 1
    if sublinear:
        m.data = (1 + np.log(m.data)).astype(np.float32)
    m = (m @ sp.diags(idf)).tocsr()
    norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return sp.csr_matrix(sp.diags((1.0 / norms).astype(np.float32)) @ m, dtype=np.float32)


def tfidf_lr_matrix(texts: list[str]):
    return text_features(texts, pairs=False, min_df=1, max_df_ratio=1.0, sublinear=False)


def asreview_python() -> str | None:
    for python in (sys.executable, os.environ.get("ASREVIEW_PYTHON"), "/tmp/asr/bin/python"):
        if python and Path(python).exists() and subprocess.run(
                [python, "-c", "import asreview"], capture_output=True, cwd=tempfile.gettempdir()).returncode == 0:
            return python
    return None


def run_asreview(python: str, records: list[dict], y: np.ndarray, prior: tuple[int, int]) -> tuple[list[int], float]:
    """ASReview's simulation in a subprocess (its import writes a cache file in the working folder:
    it runs in a temporary one)."""
    job = {"titles": [r.get("title") or "" for r in records], "abstracts": [r.get("abstract") or "" for r in records],
           "labels": y.astype(int).tolist(), "prior": list(prior)}
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([python, str(Path(__file__).resolve()), "--asreview-worker"], input=json.dumps(job),
                              capture_output=True, text=True, cwd=tmp, check=True)
    out = json.loads(proc.stdout.splitlines()[-1])
    return out["order"], out["ms"]


def asreview_worker() -> None:
    """Reads a job on stdin, runs asreview's Simulate with the ELAS u4 model as `asreview simulate`
    builds it (a TopDown cycle until the model can be fitted, then the default), the prior labelled
    first, one record a query; prints the order and the ms per query."""
    import pandas as pd
    from asreview.learner import ActiveLearningCycle
    from asreview.models.models import get_ai_config
    from asreview.models.queriers import TopDown
    from asreview.models.stoppers import IsFittable
    from asreview.simulation.simulate import Simulate

    job = json.loads(sys.stdin.read())
    y = np.array(job["labels"], dtype=bool)
    done = Done(y, tuple(job["prior"]))

    class Stopper:
        def stop(self, results, labels) -> bool:
            return done([bool(v) for v in results["label"].tolist()])

    cycles = [ActiveLearningCycle(querier=TopDown(), stopper=IsFittable()),
              ActiveLearningCycle.from_meta(get_ai_config()["value"])]
    df = pd.DataFrame({"title": job["titles"], "abstract": job["abstracts"]})
    sim = Simulate(df, y.astype(int), cycles, stopper=Stopper(), print_progress=False)
    for row in job["prior"]:
        sim.label([row])
    t = time.process_time()
    sim.review()
    seconds = time.process_time() - t
    order = [int(v) for v in sim._results["record_id"].tolist()[2:]]
    print(json.dumps({"order": order, "ms": 1000 * seconds / max(len(order), 1)}))


# ---- driver ----

def run(records: list[dict], labels: list[str], seeds: list[int], methods: Sequence[str],
        settings: Settings | None = None, log: Callable[[str], None] = print) -> dict[str, list[dict]]:
    texts = texts_of(records)
    need = set(methods)
    matrix = app_matrix(records) if "papersift" in need else None
    plain = tfidf_lr_matrix(texts) if "tfidf_lr" in need else None
    python = asreview_python() if "asreview" in need else None
    if "asreview" in need and python is None:
        log("(asreview: not installed, skipped: pip install asreview==3.0.8, or a venv at /tmp/asr)")
    out: dict[str, list[dict]] = {m: [] for m in methods if m != "asreview" or python}
    for spec in labels:
        y = make_labels(records, spec)
        for seed in seeds:
            prior = prior_of(y, seed)
            for m in out:
                if m == "papersift":
                    order, ms = replay(lambda: Queue(matrix, settings), y, prior)
                elif m == "tfidf_lr":
                    order, ms = replay(lambda: Queue(plain, Settings(pseudo=0)), y, prior)  # marked papers only
                elif m == "random":
                    order, ms = random_order(y, prior, seed)
                else:
                    order, ms = run_asreview(python, records, y, prior)
                row = {**metrics(order, y, prior), "ms_per_rerank": ms, "label": spec, "seed": seed,
                       "wanted": int(y.sum())}
                out[m].append(row)
                log(f"| {spec[:40]} | {seed} | {m} | " + " | ".join(f"{row[k]:.3f}" for k in KEYS) + " |")
    return out


def summary(results: dict[str, list[dict]]) -> dict[str, dict]:
    """Means over the reviews, and ``stop_ok``: the share of reviews whose true recall was at least
    95 % when the stopping rule said stop."""
    return {m: {**{k: float(np.mean([r[k] for r in rows])) for k in KEYS},
                "stop_ok": float(np.mean([r["stop_recall"] >= 0.95 for r in rows])), "reviews": rows}
            for m, rows in results.items() if rows}


def timing(sizes: list[int], marks: int = 60) -> dict[str, dict]:
    """CPU ms per re-rank (median, p95; and the wall median) at synthetic corpus sizes
    (benchmarks/generate.py), after ``marks`` marks (a tenth wanted), then 20 re-ranks each after
    one more mark: the queue alone (``Queue.order``), in a library as the app's worker ranks the
    list (``lib.search.find`` with the recommended sort), and the header's estimate (the stopping
    rule, which the app computes after the list is shown)."""
    from store import Library

    out = {}
    for n in sizes:
        path = Path(tempfile.gettempdir()) / f"papersift_screening_{n}.txt"
        if not path.exists():
            subprocess.run([sys.executable, str(ROOT / "benchmarks" / "generate.py"), str(n), str(path)], check=True)
        with tempfile.TemporaryDirectory() as tmp:
            lib = Library(Path(tmp) / "lib")
            lib.paper_changes.import_paths([path])
            t = time.perf_counter()
            matrix = lib.discovery.similarity.matrix
            build = time.perf_counter() - t
            ids = lib.corpus.ids()
            rng = np.random.default_rng(0)
            rows = rng.permutation(len(ids))
            queue = Queue(matrix)
            for i, row in enumerate(rows[:marks]):
                queue.mark(int(row), i % 10 == 0)
                lib.marks.set_status([ids[int(row)]], "to-read" if i % 10 == 0 else "skipped")
            queue.order()
            lib.search.find("", sort="recommended")
            times, walls, app, app_walls, estimates = [], [], [], [], []
            for i, row in enumerate(rows[marks:marks + 20]):
                queue.mark(int(row), i % 7 == 0)
                t, w = time.process_time(), time.perf_counter()
                queue.order()
                times.append(1000 * (time.process_time() - t))
                walls.append(1000 * (time.perf_counter() - w))
                lib.marks.set_status([ids[int(row)]], "to-read" if i % 7 == 0 else "skipped")
                t, w = time.process_time(), time.perf_counter()
                lib.search.find("", sort="recommended")
                app.append(1000 * (time.process_time() - t))
                app_walls.append(1000 * (time.perf_counter() - w))
                t = time.process_time()
                lib.discovery.screening.estimate()
                estimates.append(1000 * (time.process_time() - t))
        out[str(len(ids))] = {"median_ms": float(np.median(times)), "p95_ms": float(np.percentile(times, 95)),
                              "wall_median_ms": float(np.median(walls)), "app_median_ms": float(np.median(app)),
                              "app_p95_ms": float(np.percentile(app, 95)), "app_wall_median_ms": float(np.median(app_walls)),
                              "estimate_median_ms": float(np.median(estimates)),
                              "build_s": build, "terms": matrix.shape[1]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpora" / "iclr2024.jsonl")
    parser.add_argument("--label", action="append", help="FIELD, FIELD=VALUE or FIELD~TEXT (repeatable)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--timing", type=int, nargs="*", help="re-rank ms at these synthetic sizes instead")
    parser.add_argument("--json", action="store_true", help="one JSON object keyed by method (means over reviews)")
    parser.add_argument("--asreview-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.asreview_worker:
        return asreview_worker()
    if args.timing is not None:
        res = timing(args.timing or [6000, 30000])
        if args.json:
            print(json.dumps(res))
        print("| papers | queue re-rank, CPU median / p95 | wall median | the list in a library, CPU median / p95 "
              "| wall median | the header's estimate, CPU median | model built |\n|---|---|---|---|---|---|---|")
        for n, r in res.items():
            print(f"| {int(n):,} | {r['median_ms']:.1f} / {r['p95_ms']:.1f} ms | {r['wall_median_ms']:.1f} ms "
                  f"| {r['app_median_ms']:.1f} / {r['app_p95_ms']:.1f} ms | {r['app_wall_median_ms']:.1f} ms "
                  f"| {r['estimate_median_ms']:.1f} ms | {r['build_s']:.1f} s, {r['terms']:,} terms |")
        return
    if not args.label:
        parser.error("--label is required")
    log = (lambda s: print(s, file=sys.stderr)) if args.json else print
    if not args.json:
        print("| wanted | seed | method | " + " | ".join(KEYS) + " |\n|---|---|---|" + "---|" * len(KEYS))
    res = summary(run(load(args.corpus), args.label, args.seeds, args.methods, log=log))
    if args.json:
        print(json.dumps(res))
        return
    print("\n| method | " + " | ".join(KEYS) + " | stop_ok |\n|---|" + "---|" * (len(KEYS) + 1))
    for m, r in res.items():
        print(f"| {m} | " + " | ".join(f"{r[k]:.3f}" for k in KEYS) + f" | {r['stop_ok']:.2f} |")


if __name__ == "__main__":
    main()
