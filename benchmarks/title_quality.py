"""Measure derived-title quality against the real titles (ICML 2024 and ICLR 2024 by default).

Every title is derived from the abstract alone and settled across the corpus as an import
settles a library (store.titles.library), then compared with the paper's real title:

- **recog@1**: a TF-IDF index over the corpus's *real* titles (lower-cased alphanumeric tokens of
  2+ characters, no English stop words, sublinear tf, idf log((1+N)/(1+df)), L2-normed); each
  derived title is a query by cosine. recog@1 is the share of papers whose own real title ranks
  first: would a reader who knows the paper recognise it from the derived title?
- **duplicates**: papers sharing their title with another.
- **field acronym**: titles that give a name three or more abstracts of the corpus use (SAM,
  MCMC) as the paper's own ("SAM: …"), where the abstract does not claim it ("we introduce SAM, a
  ..." leads its title however widely it is cited).
- **"…"**: titles cut mid-phrase.
- **longest**: characters.
- **name**: of the papers whose real title starts with a method name ("VIPBench: …") that the
  abstract uses, the share whose derived title names it.
- **word F1**: the derived title's content words against the real title's (stemmed), averaged.

A second table counts the ways a title fails a reader, by the hand-written detectors of
``benchmarks/title_classes.py`` (which read the abstract and the derived title, never the real
title): an introduced name missed (a share of the papers that introduce one), a background opener
while a contribution sentence exists, a name glued to a sentence, a title cut on a word that leads
on, unbalanced brackets or quotes, a name's math damaged (shares of all papers).

Two reference rows run in the same process: the abstract's first 12 words, and (with
``--oracle``) the 12-word window of the abstract that best matches the real title, which only
an oracle that knows the title could pick; ``--oracle`` adds recog@1 for the best of the phrases
the rules themselves choose among (what a perfect chooser over them would reach).

Usage: python benchmarks/title_quality.py [corpus.jsonl ...] [--oracle] [--misses N] [--show CLASS]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from scipy.sparse import csr_matrix, diags

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from title_classes import CLASSES, READER_CLASSES, claimed_names, classify, name_kept  # noqa: E402

from store.titles.library import field_names, leading_name, name_tokens, settle  # noqa: E402
from store.escapes import repair_escapes  # noqa: E402
from store.titles.kinds import is_excerpt  # noqa: E402
from store.titles.contribution import contribution_object  # noqa: E402
from store.titles.names import INTRO  # noqa: E402
from store.titles.phrases import contribution, first_clause, focus_of, question_of  # noqa: E402
from store.titles.derive import derive_title, derive_titles, fit_title  # noqa: E402
from store.search.forms import form_key as stem  # noqa: E402
from store.text import STOP_WORDS  # noqa: E402

CORPORA = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"
DEFAULTS = [CORPORA / "icml2024.jsonl", CORPORA / "iclr2024.jsonl"]
STOP = set("a an the of for and in on with to via by from as at is are its their our we this that be or into "
           "using towards toward through under over beyond without".split())
_TOKEN = re.compile(r"[a-z0-9]{2,}")
_FIELD_NAME = re.compile(r"(?<![\w-])[A-Za-z][\w+-]*[A-Z][\w+-]*(?![\w-])")


def content_words(title: str) -> set[str]:
    return {stem(w) for w in re.findall(r"[a-z0-9]+", title.lower()) if w not in STOP}


def word_f1(derived: str, real: str) -> float:
    a, b = content_words(derived), content_words(real)
    common = len(a & b)
    if not common:
        return 0.0
    precision, recall = common / len(a), common / len(b)
    return 2 * precision * recall / (precision + recall)


def _tokens(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOP_WORDS]


def _matrix(texts: list[str], vocab: dict[str, int], idf: np.ndarray) -> csr_matrix:
    rows, cols, vals = [], [], []
    for i, text in enumerate(texts):
        for token, n in Counter(t for t in _tokens(text) if t in vocab).items():
            rows.append(i)
            cols.append(vocab[token])
            vals.append((1 + math.log(n)) * idf[vocab[token]])
    m = csr_matrix((vals, (rows, cols)), shape=(len(texts), len(vocab)))
    norms = np.sqrt(np.asarray(m.multiply(m).sum(1)).ravel())
    norms[norms == 0] = 1
    return diags(1 / norms) @ m


def title_index(real: list[str]) -> tuple[csr_matrix, dict[str, int], np.ndarray]:
    """The TF-IDF index over the real titles (see the module docstring)."""
    df: Counter[str] = Counter()
    for title in real:
        df.update(set(_tokens(title)))
    vocab = {t: i for i, t in enumerate(df)}
    idf = np.array([math.log((1 + len(real)) / (1 + df[t])) for t in vocab])
    return _matrix(real, vocab, idf), vocab, idf


def recog_at_1(derived: list[str], real: list[str]) -> float:
    """The share of papers whose real title ranks first for their derived title."""
    index, vocab, idf = title_index(real)
    scores = (_matrix(derived, vocab, idf) @ index.T).toarray()
    own = scores.diagonal()
    return float((((scores > own[:, None]).sum(1) == 0) & (own > 0)).mean())


def oracle_windows(recs: list[dict], words: int = 12) -> list[str]:
    """Each abstract's 12-word window closest to its real title (an oracle: it reads the title)."""
    real = [r["title"] for r in recs]
    index, vocab, idf = title_index(real)
    out = []
    for i, rec in enumerate(recs):
        toks = rec["abstract"].split()
        windows = [" ".join(toks[s:s + words]) for s in range(max(1, len(toks) - words + 1))]
        sims = (_matrix(windows, vocab, idf) @ index[i].T).toarray().ravel()
        out.append(windows[int(np.argmax(sims))])
    return out


def candidate_oracle(derived: list[str], recs: list[dict]) -> float:
    """recog@1 if each paper got the best of the phrases the rules choose among (its title, the title
    without its name, the first clause, the question, the focus, the first and any contribution
    sentence): what a perfect chooser over the rules' candidates would reach."""
    index, vocab, idf = title_index([r["title"] for r in recs])

    def hits(titles: list[str]) -> np.ndarray:
        scores = (_matrix(titles, vocab, idf) @ index.T).toarray()
        own = scores.diagonal()
        return ((scores > own[:, None]).sum(1) == 0) & (own > 0)

    best = hits(derived)
    columns: list[list[str]] = [[] for _ in range(6)]
    for rec in recs:
        abstract = repair_escapes(rec["abstract"])
        intros = list(INTRO.finditer(abstract))
        phrases = (derive_titles(abstract)[1] or "", first_clause(abstract), question_of(abstract),
                   focus_of(abstract, intros), contribution(abstract, intros), contribution_object(abstract))
        for column, phrase in zip(columns, phrases):
            column.append(fit_title(phrase) if phrase else "-")
    for column in columns:
        best |= hits(column)
    return float(best.mean())


def measures(derived: list[str], recs: list[dict]) -> dict:
    abstracts = [r["abstract"] for r in recs]
    df: Counter[str] = Counter()
    for a in abstracts:
        df.update(set(_FIELD_NAME.findall(a)))
    named = [leading_name(t) for t in derived]
    counts = Counter(derived)
    hits = eligible = 0
    for title, rec in zip(derived, recs):
        m = re.match(r"^\s*([^:\s][^:]{0,40}?)\s*:", rec["title"])
        if m and " " not in m.group(1).strip() and m.group(1).strip() in rec["abstract"]:
            eligible += 1
            hits += m.group(1).strip() in title
    n = max(len(derived), 1)
    return {
        "recog": recog_at_1(derived, [r["title"] for r in recs]),
        "duplicates": sum(c for c in counts.values() if c > 1) / n,
        "field": sum(1 for name, rec in zip(named, recs) if name and df[name] >= 3
                     and name not in claimed_names(rec["abstract"])) / n,
        "cut": sum(t.endswith("…") for t in derived) / n,
        "longest": max((len(t) for t in derived), default=0),
        "name": hits / max(eligible, 1), "eligible": eligible,
        "f1": sum(word_f1(t, r["title"]) for t, r in zip(derived, recs)) / n,
    }


def class_rates(derived: list[str], recs: list[dict]) -> tuple[dict[str, float], int, dict[str, list[tuple]]]:
    """Each failure class's rate (see title_classes), the papers that introduce a name, and the cases."""
    cases: dict[str, list[tuple]] = {c: [] for c in CLASSES}
    introducing = 0
    for title, rec in zip(derived, recs):
        for name, reason in classify(rec["abstract"], title).items():
            introducing += name == "missed" and reason is not None
            if reason:
                cases[name].append((reason, title, rec.get("title", "")))
    n = max(len(derived), 1)
    rates = {c: len(cases[c]) / (max(introducing, 1) if c == "missed" else n) for c in CLASSES}
    return rates, introducing, cases


def reader_rates(titles: list[str], recs: list[dict], real: bool = False) -> dict[str, float]:
    """The share of titles in each of the reader's classes (title_classes.READER_CLASSES), and the
    share of papers whose real title holds the introduced name that keep it (``name kept``)."""
    n = max(len(titles), 1)
    # An excerpt is shown marked as the abstract's own words, never as a title (store.titles.kinds):
    # counted apart, and not in the classes of titles shown as titles.
    excerpts = [not real and is_excerpt(t, True) for t in titles]
    rates = {c: sum(1 for t, x in zip(titles, excerpts) if fn(t) and not x) / n for c, fn in READER_CLASSES.items()}
    rates["excerpt"] = sum(excerpts) / n
    kept = [name_kept(r["abstract"], t, r["title"]) for t, r in zip(titles, recs)]
    judged = [k for k in kept if k is not None]
    rates["name kept"] = sum(judged) / max(len(judged), 1)
    rates["judged"] = len(judged)
    return rates


READER_HEADER = ("| corpus · titles | generic opener | sentence | dangling last word | \"…\" | over 16 words | "
                 "name kept (papers) | shown as an excerpt |\n|---|---|---|---|---|---|---|---|")


def reader_row(label: str, r: dict[str, float]) -> str:
    return (f"| {label} | {r['opener']:.2%} | {r['sentence']:.2%} | {r['dangling']:.2%} | {r['ellipsis']:.2%} | "
            f"{r['long']:.2%} | {r['name kept']:.1%} ({int(r['judged'])}) | {r['excerpt']:.2%} |")


CLASS_HEADER = ("| corpus | introduce a name | introduced name missed | background opener | glued | cut | unbalanced | "
                "damaged name |\n|---|---|---|---|---|---|---|---|")


def class_row(label: str, rates: dict[str, float], introducing: int) -> str:
    return f"| {label} | {introducing} | " + " | ".join(f"{rates[c]:.2%}" for c in CLASSES) + " |"


def derive_all(recs: list[dict]) -> tuple[list[str], float]:
    """Titles as an import gives them (derived, then settled across the corpus), and the seconds taken."""
    abstracts = [r["abstract"] for r in recs]
    t0 = time.perf_counter()
    titles = [derive_title(a) for a in abstracts]
    fields = field_names(name_tokens(a) for a in abstracts)
    titles = settle(abstracts, titles, fields)
    return titles, time.perf_counter() - t0


def row(label: str, m: dict) -> str:
    return (f"| {label} | {m['recog']:.3f} | {m['duplicates']:.2%} | {m['field']:.2%} | {m['cut']:.1%} | "
            f"{m['longest']} | {m['name']:.2f} ({m['eligible']}) | {m['f1']:.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", type=Path)
    ap.add_argument("--oracle", action="store_true", help="add the best-window oracle row (slow)")
    ap.add_argument("--misses", type=int, default=0, help="print this many papers whose title is not recognised")
    ap.add_argument("--show", choices=CLASSES, help="print the papers of one failure class")
    args = ap.parse_args()
    paths = args.paths or [p for p in DEFAULTS if p.exists()]
    if not paths:
        sys.exit("no corpus: pass a JSONL file with title and abstract per line")
    print("| corpus · titles | recog@1 | duplicates | field acronym as own | ending in … | longest | name | word F1 |")
    print("|---|---|---|---|---|---|---|---|")
    classes = []
    readers = []
    for path in paths:
        recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        titles, seconds = derive_all(recs)
        rates, introducing, cases = class_rates(titles, recs)
        classes.append(class_row(path.name, rates, introducing))
        readers.append(reader_row(f"{path.name} · derived", reader_rates(titles, recs)))
        readers.append(reader_row(f"{path.name} · real", reader_rates([r["title"] for r in recs], recs, real=True)))
        for reason, title, real in cases[args.show] if args.show else ():
            print(f"{args.show.upper()} [{reason}] {title!r}\n     real: {real!r}")
        print(row(f"{path.name} ({len(recs):,}) · derived", measures(titles, recs)))
        first = [" ".join(r["abstract"].split()[:12]) for r in recs]
        print(row(f"{path.name} · first 12 words", measures(first, recs)))
        if args.oracle:
            print(row(f"{path.name} · best 12-word window (oracle)", measures(oracle_windows(recs), recs)))
            print(f"| {path.name} · the best of the rules' own candidates (oracle) | {candidate_oracle(titles, recs):.3f} "
                  "|||||||")
        print(f"|   ({seconds * 1000 / max(len(recs), 1):.2f} ms a paper to derive and settle) |||||||")
        if args.misses:
            index, vocab, idf = title_index([r["title"] for r in recs])
            scores = (_matrix(titles, vocab, idf) @ index.T).toarray()
            shown = 0
            for i in np.argsort(scores.diagonal()):
                if shown >= args.misses:
                    break
                shown += 1
                print(f"MISS {titles[i]!r}\n     real: {recs[i]['title']!r}")
    print()
    print(CLASS_HEADER)
    print("\n".join(classes))
    print()
    print(READER_HEADER)
    print("\n".join(readers))


if __name__ == "__main__":
    main()
