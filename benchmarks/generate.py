"""Generate realistic synthetic abstract dumps of N abstracts (6k, 30k, 300k), deterministic by seed.

Text is learned from the real corpora (../shared/corpora, else tests/data) and
the seeds: each abstract is 4-10 real sentences, each with ~25% of its words
replaced by words drawn from the corpus vocabulary by frequency, so the length,
vocabulary and style are real but no two abstracts share long runs. About 10%
carry a LaTeX span or Markdown bold; ~3% are duplicates: exact copies, or near
copies (re-wrapped, typos, a sentence appended). Output: the seed dump format.

With --real, only real text: the real abstracts as they are, then abstracts made of one real
abstract's opening sentences and another's later ones (whole sentences: their openers, names and
"we propose" sentences as papers write them), ~3% duplicates. Titles take longest on such text.

Usage: python benchmarks/generate.py N OUT.txt [--seed S] [--real]
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [ROOT.parent / "shared" / "corpora" / "icml2024.jsonl", ROOT.parent / "shared" / "corpora" / "iclr2024.jsonl",
           ROOT / "tests" / "data" / "icml_slice.jsonl", ROOT / "tests" / "data" / "iclr_slice.jsonl"]
LATEX = [r"$\mathcal{O}(\sqrt{T\log T})$", r"$\tilde{O}(d\sqrt{n})$", r"$\epsilon$-optimal", r"$\ell_2$",
         r"$\mathbb{R}^d$", r"$k$-NN", r"$\alpha \in (0,1)$", r"$\textbf{Model}$"]


def load_sentences() -> list[list[str]]:
    texts = []
    for path in SOURCES:
        if path.exists():
            texts += [json.loads(l)["abstract"] for l in path.read_text(encoding="utf-8").splitlines() if l.strip()]
    for f in sorted((ROOT / "seeds").glob("*.txt")):
        texts += [p for p in re.split(r"\n\s*\n", f.read_text(encoding="utf-8"))[1:] if p.strip()]
    sentences = []
    for t in texts:
        for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", " ".join(t.split())):
            w = s.split()
            if 5 <= len(w) <= 60:
                sentences.append(w)
    return sentences


def generate(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    sentences = load_sentences()
    vocab, counts = np.unique(np.array([w for s in sentences for w in s], dtype=object), return_counts=True)
    probs = counts / counts.sum()
    n_unique = int(n * 0.97)
    abstracts: list[str] = []
    lengths = rng.integers(4, 11, size=n_unique)
    replacement = vocab[rng.choice(len(vocab), size=int(lengths.sum() * 30 * 0.3), p=probs)]
    rpos = 0
    for i in range(n_unique):
        words: list[str] = []
        for si in rng.integers(0, len(sentences), size=lengths[i]):
            words.extend(sentences[si])
        mask = rng.random(len(words)) < 0.25
        k = int(mask.sum())
        if rpos + k >= len(replacement):
            rpos = 0
        words = np.array(words, dtype=object)
        words[mask] = replacement[rpos:rpos + k]
        rpos += k
        text = " ".join(words)
        r = rng.random()
        if r < 0.05:
            text = text.replace(" the ", f" the {LATEX[int(rng.integers(len(LATEX)))]} ", 1)
        elif r < 0.10:
            text = f"We propose **Gen{i}Net**, " + text
        abstracts.append(text)
    # ~3% duplicates: a third exact, two thirds near (typos / appended sentence / re-wrapped)
    for j in range(n - n_unique):
        src = abstracts[int(rng.integers(n_unique))]
        kind = j % 3
        if kind == 0:
            dup = src
        elif kind == 1:
            w = src.split()
            for _ in range(3):
                p = int(rng.integers(len(w)))
                w[p] = w[p][::-1]
            dup = " ".join(w)
        else:
            dup = src + " Code and data are publicly available."
        abstracts.append(dup)
    order = rng.permutation(len(abstracts))
    return [abstracts[i] for i in order]


def load_abstracts() -> list[list[str]]:
    """The real abstracts (ICML and ICLR 2024, else the test slices), each as its sentences."""
    texts = []
    for path in SOURCES[:2] if SOURCES[0].exists() else SOURCES[2:]:
        if path.exists():
            texts += [json.loads(l)["abstract"] for l in path.read_text(encoding="utf-8").splitlines() if l.strip()]
    return [re.split(r"(?<=[.!?])\s+(?=[A-Z])", " ".join(t.split())) for t in texts]


def generate_real(n: int, seed: int = 0) -> list[str]:
    """``n`` abstracts of real text only: every real abstract as it is, then abstracts each made of
    one real abstract's opening sentences followed by another's later ones (whole sentences, no word
    replaced: the background openers, "we propose" sentences, names and LaTeX real papers write),
    and ~3% duplicates as :func:`generate` makes them."""
    rng = np.random.default_rng(seed)
    real = [s for s in load_abstracts() if len(s) >= 3]
    n_unique = int(n * 0.97)
    abstracts = [" ".join(s) for s in real][:n_unique]
    while len(abstracts) < n_unique:
        a, b = real[int(rng.integers(len(real)))], real[int(rng.integers(len(real)))]
        head = int(rng.integers(1, max(2, len(a) - 1)))
        tail = int(rng.integers(1, max(2, len(b) - 1)))
        abstracts.append(" ".join(a[:head] + b[tail:]))
    for j in range(n - n_unique):
        src = abstracts[int(rng.integers(n_unique))]
        abstracts.append(src if j % 2 else src + " Code and data are publicly available.")
    order = rng.permutation(len(abstracts))
    return [abstracts[i] for i in order]


def write_dump(abstracts: list[str], out: Path, wrap_every: int = 7) -> None:
    with out.open("w", encoding="utf-8") as fh:
        fh.write(f"Synthetic corpus of {len(abstracts)} abstracts\n\n")
        for i, a in enumerate(abstracts):
            if i % wrap_every == 0:  # some paragraphs hard-wrapped, as real dumps are
                a = re.sub(r"(.{70,90}?) ", r"\1\n", a)
            fh.write(a + "\n\n")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", type=int)
    ap.add_argument("out", type=Path)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--real", action="store_true",
                    help="real text only: the real abstracts, then real abstracts' sentences recombined")
    args = ap.parse_args()
    write_dump((generate_real if args.real else generate)(args.n, args.seed), args.out)
    print(f"wrote {args.n} abstracts to {args.out}")
