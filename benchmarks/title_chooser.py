"""Would a learned choice among the title rules' own candidates recognise more papers? Trained on one
corpus, measured on the other (ICML 2024 -> ICLR 2024 and back).

Each paper's candidates are the phrases the rules choose among: the derived title, the title without
its name, the first clause, the question, the focus sentence, the first contribution sentence and any
contribution sentence (store.titles.contribution). A softmax over them (14 features: the kind,
words, idf sum and mean, share of words the abstract repeats, capped term frequency, position, whether
it leads with a name) is fitted to the candidates that make the paper's real title rank first (recog@1,
as in title_quality.py), then picks one per paper of the other corpus. The rules, the chooser and the
oracle that always picks a hit are printed side by side.

Usage: python benchmarks/title_chooser.py
"""
import argparse
import json
import math
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from title_quality import _matrix, derive_all, title_index  # noqa: E402

from store.escapes import repair_escapes  # noqa: E402
from store.titles.contribution import contribution_object  # noqa: E402
from store.titles.names import INTRO  # noqa: E402
from store.titles.phrases import contribution, first_clause, focus_of, question_of  # noqa: E402
from store.titles.derive import derive_titles, fit_title  # noqa: E402

KINDS = 7  # derived, nameless, first clause, question, focus, contribution, any contribution sentence
FEATURES = 14
_WORD = re.compile(r"[a-z][a-z0-9-]+")
_STOP = set("a an the of for and in on with to via by from as at is are its their our we this that be or into "
            "using which these those it can also such".split())
_LEADS_WITH_NAME = re.compile(r"[A-Z].*[A-Z0-9]")


def candidates(abstract: str, title: str) -> list[str]:
    intros = list(INTRO.finditer(abstract))
    phrases = [title, derive_titles(abstract)[1] or "", first_clause(abstract), question_of(abstract),
               focus_of(abstract, intros), contribution(abstract, intros), contribution_object(abstract)]
    return [fit_title(p) if p else "" for p in phrases]


def features(abstract: str, phrase: str, kind: int, df: Counter, n: int) -> list[float]:
    tf = Counter(_WORD.findall(abstract.lower()))
    words = [w for w in _WORD.findall(phrase.lower()) if w not in _STOP]
    idfs = [math.log(n / (1 + df[w])) for w in words] or [0.0]
    at = abstract.lower().find(phrase.lower()[:25])
    f = [0.0] * FEATURES
    f[kind] = 1.0
    f[7] = len(words) / 10
    f[8] = sum(idfs) / 10
    f[9] = float(np.mean(idfs)) / 5
    f[10] = sum(1 for w in words if tf[w] >= 2) / max(len(words), 1)
    f[11] = sum(min(tf[w], 5) for w in words) / 20
    f[12] = at / max(len(abstract), 1) if at >= 0 else 1.0
    f[13] = 1.0 if ":" in phrase and _LEADS_WITH_NAME.search(phrase.split(":")[0][1:]) else 0.0
    return f


def load(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Each paper's candidates' features (NaN where a kind gives none) and which of them make the
    real title rank first."""
    recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    titles, _ = derive_all(recs)
    abstracts = [repair_escapes(r["abstract"]) for r in recs]
    df: Counter = Counter()
    for a in abstracts:
        df.update(set(_WORD.findall(a.lower())))
    index, vocab, idf = title_index([r["title"] for r in recs])
    phrases = [candidates(a, t) for a, t in zip(abstracts, titles)]
    hit = np.zeros((len(recs), KINDS), bool)
    for k in range(KINDS):
        scores = (_matrix([p[k] or "-" for p in phrases], vocab, idf) @ index.T).toarray()
        own = scores.diagonal()
        hit[:, k] = ((scores > own[:, None]).sum(1) == 0) & (own > 0)
    x = np.full((len(recs), KINDS, FEATURES), np.nan)
    for i, (a, ps) in enumerate(zip(abstracts, phrases)):
        for k, p in enumerate(ps):
            if p:
                x[i, k] = features(a, p, k, df, len(recs))
    return x, hit


def _scores(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    s = np.nan_to_num(x) @ w
    s[np.isnan(x[:, :, 0])] = -1e9
    return s


def train(x: np.ndarray, hit: np.ndarray, epochs: int = 300, lr: float = 0.5, l2: float = 1e-3) -> np.ndarray:
    """Softmax over each paper's candidates, fitted to the share of its hits (papers with none left out)."""
    w = np.zeros(x.shape[2])
    target = hit & ~np.isnan(x[:, :, 0])
    has = target.any(1)
    share = target[has] / target[has].sum(1, keepdims=True)
    xz = np.nan_to_num(x)[has]
    for _ in range(epochs):
        s = _scores(w, x)[has]
        p = np.exp(s - s.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        w -= lr * (((p - share)[:, :, None] * xz).sum((0, 1)) / has.sum() + l2 * w)
    return w


def evaluate(w: np.ndarray, x: np.ndarray, hit: np.ndarray) -> float:
    return float(hit[np.arange(len(hit)), _scores(w, x).argmax(1)].mean())


def main():
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    corpora = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"
    icml, iclr = load(corpora / "icml2024.jsonl"), load(corpora / "iclr2024.jsonl")
    print("| trained on -> measured on | rules | chooser | chooser on its own training corpus | oracle |")
    print("|---|---|---|---|---|")
    for name, tr, te in (("ICML -> ICLR", icml, iclr), ("ICLR -> ICML", iclr, icml)):
        w = train(*tr)
        print(f"| {name} | {te[1][:, 0].mean():.3f} | {evaluate(w, *te):.3f} | {evaluate(w, *tr):.3f} | "
              f"{te[1].any(1).mean():.3f} |")


if __name__ == "__main__":
    main()
