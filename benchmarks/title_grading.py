"""A blind reading of derived titles beside the best phrase an extractor could pick.

40 random papers of a corpus; for each, two candidate titles in random order: the app's derived
title (settled across the corpus as an import does) and an oracle phrase (the span of one sentence
of the abstract, 3-14 words, not starting or ending on a function word, closest to the real title
by the TF-IDF cosine of title_quality.py: only an oracle that reads the real title could pick it).
A reader with a fresh eye grades both against the real title without knowing which is which
(good / weak / bad); the key says which was which.

Usage: python benchmarks/title_grading.py CORPUS.jsonl SEED OUT
  (writes OUT.md for the reader, OUT.json, and OUT.key.json)
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from store.titles.library import field_names, name_tokens, settle  # noqa: E402
from store.titles.derive import derive_title  # noqa: E402
from store.latex import plain_text  # noqa: E402
from title_quality import _matrix, title_index  # noqa: E402

parser = argparse.ArgumentParser(description="A blind reading of derived titles beside the oracle's closest span "
                                             "of the abstract: writes OUT.md for a reader, OUT.json and OUT.key.json.")
parser.add_argument("corpus", help="a JSONL corpus with real titles (icml2024.jsonl, iclr2024.jsonl)")
parser.add_argument("seed", type=int, help="the random draw of 40 papers")
parser.add_argument("out", help="the path the three files start with")
args = parser.parse_args()
path, seed = args.corpus, args.seed
recs = [json.loads(l) for l in open(path)]
abstracts = [r["abstract"] for r in recs]
real = [r["title"] for r in recs]
titles = settle(abstracts, [derive_title(a) for a in abstracts], field_names(name_tokens(a) for a in abstracts))
index, vocab, idf = title_index(real)
STOP_END = set("a an the of for and in on with to via by from as at is are or that which we our this its their".split())


def oracle(i: int) -> str:
    """The span closest to paper i's real title."""
    text = plain_text(abstracts[i])
    best, score = "", -1.0
    for sent in re.split(r"(?<=[.!?])\s+", text):
        toks = sent.rstrip(".").split()
        spans = []
        for s in range(len(toks)):
            if toks[s].lower().strip(",;:") in STOP_END:
                continue
            for e in range(s + 3, min(len(toks), s + 14) + 1):
                if toks[e - 1].lower().strip(",;:") in STOP_END:
                    continue
                spans.append(" ".join(toks[s:e]).strip(",;:"))
        if not spans:
            continue
        sims = (_matrix(spans, vocab, idf) @ index[i].T).toarray().ravel()
        j = int(np.argmax(sims))
        if sims[j] > score:
            best, score = spans[j], sims[j]
    return best[:1].upper() + best[1:]


rng = random.Random(seed)
picks = rng.sample(range(len(recs)), 40)
items, key = [], []
for n, i in enumerate(picks, 1):
    cands = [("derived", titles[i]), ("oracle", oracle(i))]
    rng.shuffle(cands)
    items.append({"n": n, "real_title": real[i], "abstract": abstracts[i], "A": cands[0][1], "B": cands[1][1]})
    key.append({"n": n, "A": cands[0][0], "B": cands[1][0]})
out = args.out
json.dump(items, open(out + ".json", "w"), indent=1, ensure_ascii=False)
json.dump(key, open(out + ".key.json", "w"))
with open(out + ".md", "w") as f:
    for it in items:
        f.write(f"## {it['n']}\nREAL TITLE: {it['real_title']}\nA: {it['A']}\nB: {it['B']}\n\nABSTRACT: {it['abstract']}\n\n")
