"""Quality of "more like this" on ICLR 2024: share of top-5 similar papers with the query's primary area.

Baselines measured on this set (issue #7): plain TF-IDF cosine 0.38, LSA 0.42, MiniLM 0.42, chance 0.08.

Usage: python benchmarks/similar_quality.py [path/to/iclr2024.jsonl]
       python benchmarks/similar_quality.py --authors path/to/icml2024.jsonl   (held out: shared authors)
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from store import Library  # noqa: E402
import store.discovery.similar as S  # noqa: E402

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "iclr2024.jsonl"


def without_labels(path: Path, folder: Path) -> Path:
    """A copy of the JSONL without ``keywords`` and ``primary_area``: papersift indexes a paper's
    keywords, and the primary area is the answer this benchmark grades against."""
    out = folder / path.name
    out.write_text("".join(json.dumps({k: v for k, v in json.loads(line).items() if k not in ("keywords", "primary_area")})
                           + "\n" for line in path.read_text().splitlines()))
    return out


def load(path: Path):
    tmp = Path(tempfile.mkdtemp())
    lib = Library(tmp / "lib")
    lib.paper_changes.import_paths([without_labels(path, tmp)])
    area = {}
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        area[rec["abstract"].strip()] = rec["primary_area"]
    labels = [area.get(p.abstract.strip()) for p in lib.corpus]
    return lib, labels


def precision_at5(sim: "S.Similarity", labels: list, queries: range | None = None) -> float:
    """The share of each query paper's 5 nearest with its label (``queries``: those papers only)."""
    hits = total = 0
    for i, lab in enumerate(labels):
        if lab is None or (queries is not None and i not in queries):
            continue
        top = sim.similar(i, 5)
        hits += sum(labels[j] == lab for j, _ in top)
        total += len(top)
    return hits / total


def author_share(path: Path) -> None:
    """A corpus without areas (ICML 2024): the share of each paper's top 5 that share an author with
    it, over the papers with a co-authored other paper, the authors left out of the import (they
    would be searched). A proxy for topic (a group writes on its topics), held out from the ICLR
    figures the settings were chosen on."""
    tmp = Path(tempfile.mkdtemp())
    bare = tmp / path.name
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    bare.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "authors"}) + "\n" for r in rows))
    lib = Library(tmp / "lib")
    lib.paper_changes.import_paths([bare])
    by_text = {r["abstract"].strip(): set(r.get("authors") or ()) for r in rows}
    authors = [by_text.get(p.abstract.strip(), set()) for p in lib.corpus]
    papers_of: dict[str, int] = {}
    for names in authors:
        for name in names:
            papers_of[name] = papers_of.get(name, 0) + 1
    queries = [i for i, names in enumerate(authors) if any(papers_of[n] > 1 for n in names)]

    def share(sim: "S.Similarity") -> float:
        hits = total = 0
        for i in queries:
            top = sim.similar(i, 5)
            hits += sum(bool(authors[i] & authors[j]) for j, _ in top)
            total += len(top)
        return hits / total
    print(f"| top 5 sharing an author, {len(queries):,} papers | share |")
    print("|---|---|")
    print(f"| TF-IDF cosine | {share(S.Similarity(lib.index, use_lsa=False)):.4f} |")
    print(f"| + LSA blend | {share(S.Similarity(lib.index, feedback=False)):.4f} |")
    full = S.Similarity(lib.index)
    kept = S.FEEDBACK_TERMS
    S.FEEDBACK_TERMS = 1 << 30
    uncut = share(full)
    S.FEEDBACK_TERMS = kept
    print(f"| + pseudo-relevance feedback, every term of the neighbours | {uncut:.4f} |")
    print(f"| + pseudo-relevance feedback, their {kept} heaviest (papersift) | {share(full):.4f} |")


def fold_table(path: Path) -> None:
    """precision@5 when the last share of the papers arrived in a later import and was folded into
    the model of the first (the model's first use after a day's import), against the SVD of all:
    over every paper, and over the folded papers alone. Papers in file order (the corpus's own)."""
    from store.discovery.fold import folded

    lines = path.read_text().splitlines()
    print("| folded in | papers folded | p@5 all: folded / new SVD | p@5 of the folded papers: folded / new SVD |")
    print("|---|---|---|---|")
    for share in (0.05, 0.10, 0.20):
        tmp = Path(tempfile.mkdtemp())
        cut = int(len(lines) * (1 - share))
        bare = without_labels(path, tmp)
        rows = bare.read_text().splitlines()
        first, rest = tmp / "first.jsonl", tmp / "rest.jsonl"
        first.write_text("\n".join(rows[:cut]) + "\n")
        rest.write_text("\n".join(rows[cut:]) + "\n")
        lib = Library(tmp / "lib")
        lib.paper_changes.import_paths([first])
        assert lib.discovery.similarity.latent is not None  # the SVD of the first papers, cached
        lib = Library(tmp / "lib")
        lib.paper_changes.import_paths([rest])
        area = {json.loads(line)["abstract"].strip(): json.loads(line)["primary_area"] for line in lines}
        labels = [area.get(p.abstract.strip()) for p in lib.corpus]
        sim = folded(lib.similar_path, lib.index, lib.corpus.ids())
        assert sim is not None
        new = S.Similarity(lib.index)
        late = range(len(lib.corpus) - sim.folded, len(lib.corpus))
        print(f"| {share:.0%} | {sim.folded:,} | {precision_at5(sim, labels):.3f} / {precision_at5(new, labels):.3f} "
              f"| {precision_at5(sim, labels, late):.3f} / {precision_at5(new, labels, late):.3f} |")


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description="More-like-this precision@5 on a labelled corpus (JSONL).")
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT, help=f"default: {DEFAULT}")
    parser.add_argument("--fold", action="store_true",
                        help="more like this after imports: the model of the first papers with the rest folded in "
                             "(store.discovery.fold), against a new SVD over all")
    parser.add_argument("--authors", action="store_true",
                        help="a corpus with authors and no areas (ICML 2024's JSONL): the share of the top 5 "
                             "sharing an author with the paper")
    args = parser.parse_args()
    path = args.corpus
    if args.authors:
        author_share(path)
        raise SystemExit(0)
    if args.fold:
        fold_table(path)
        raise SystemExit(0)
    lib, labels = load(path)
    base = precision_at5(S.Similarity(lib.index, use_lsa=False), labels)
    blend = precision_at5(S.Similarity(lib.index, feedback=False), labels)
    full = precision_at5(S.Similarity(lib.index), labels)
    dims = S.lsa_dims(len(labels))
    print(f"| TF-IDF cosine (BM25 weights) | {base:.3f} |")
    print(f"| + LSA({dims}) blend | {blend:.3f} |")
    print(f"| + pseudo-relevance feedback (papersift) | {full:.3f} | target >= 0.43 |")
