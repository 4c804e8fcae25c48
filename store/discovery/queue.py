"""The triage queue: which paper to show next, learned again from every mark.

A screening loop (one paper shown at a time, re-ranked after each mark) in two parts, over the
papers as the similarity model has them (:func:`store.discovery.similar.doc_term_matrix`: the
search index's BM25-saturated term weights x idf, rows L2-normalized; on ICLR 2024's areas they
did as well as TF-IDF over words and word pairs, and they are built and cached already):

- :class:`Queue`: the marks so far and a linear model over those vectors: a logistic regression
  with balanced classes, fitted to the marked papers plus a fixed draw of up to 3,000 unmarked ones
  taken as unwanted (most papers are: Cormack & Grossman's BMI does the same. On ICLR 2024's areas
  the more were drawn the better: 700 drawn, WSS@95 0.729; 1,000: 0.736; 1,500: 0.742; every
  unmarked paper: 0.744), warm-started from the previous fit, so a re-rank after one more mark
  costs a few solver steps and one product with the matrix. ``order()`` ranks
  the unmarked papers by it, wanted-first ("certainty" sampling, as ASReview does). With only
  skipped papers it ranks by how unlike them a paper is; with no mark, in corpus order;
- :func:`stop_estimate`: a stopping rule with a statistical basis (Callaghan & Müller-Hansen
  2020): the papers read last are treated as a random draw from what was unread before them, which
  a ranking that puts wanted papers first makes conservative; if drawing so few wanted papers would
  be unlikely (p < alpha) were more than 5 % of the wanted papers still unread, it says stop.

What a mark means (:func:`mark_of`): skipped is unwanted; to-read, read, a tag and stars are
wanted, to-read and each star counting most (a replay has only yes and no: the weights are a
choice, not a measurement).
Chosen with ``benchmarks/screening.py`` on ICLR 2024's primary areas, and reported on its
author keywords (see docs/quality.md). Tried and dropped on the areas: TF-IDF over words and word
pairs (as good, but a second matrix to build and keep); the drawn papers' weight fading as skipped
papers accumulate (0.714: the draw keeps its use to the end); LSA dimensions appended to the terms
(helped a broad area, hurt a small one); a heavier weight on wanted papers, as ASReview's 9.8;
C = 0.5 (as good) or 2 (0.731).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # (imported where a queue is built: 0.13 s every command would pay otherwise)
    import scipy.sparse as sp


def mark_of(status: str, star: int, tagged: bool = False) -> tuple[bool, float] | None:
    """What a triage mark says for the queue: (wanted, how much it counts), or None for nothing.

    Skipped is unwanted (weight 1), whatever else the paper carries. Everything else the reader
    did to a paper says "wanted", by how much: to-read 1, read 0.5 (read and kept, neither skipped
    nor put aside: a weak yes), a tag 0.5 more, each star 0.5 more. An untouched paper says
    nothing. (Weights are within a class: the classes are balanced, so they say which wanted
    papers the model leans on most, not how many unwanted ones a wanted one outweighs.)"""
    if status == "skipped":
        return (False, 1.0)
    weight = {"to-read": 1.0, "read": 0.5}.get(status, 0.0) + 0.5 * bool(tagged) + 0.5 * max(0, star)
    return (True, weight) if weight > 0 else None


@dataclass(frozen=True)
class Settings:
    """The queue's model, chosen with benchmarks/screening.py (ICLR 2024 primary areas)."""
    c: float = 1.0           # inverse regularization of the logistic regression (as scikit-learn's C)
    iterations: int = 60     # L-BFGS steps per re-rank at most (warm-started: few are used)
    tolerance: float = 1e-3  # L-BFGS's gradient tolerance (the ranking needs no closer fit)
    ratio: float = 1.0       # the wanted papers' total weight over the unwanted ones' (1: balanced)
    pseudo: int = 3000       # unmarked papers taken as unwanted (Cormack & Grossman's BMI does so)
    pseudo_weight: float = 1.0  # each such paper's weight, as a share of an unwanted paper's


class Queue:
    """The papers in the order to show them, re-ranked after each mark.

    Args:
        matrix: papers x terms (:func:`text_features`), rows L2-normalized.
        settings: the model's settings (the defaults are the measured ones).
    """

    def __init__(self, matrix: sp.csr_matrix, settings: Settings | None = None) -> None:
        import scipy.sparse as sp

        self.matrix = sp.csr_matrix(matrix, dtype=np.float32)
        self.settings = settings or Settings()
        self.marks: dict[int, bool] = {}
        self.weights: dict[int, float] = {}  # how much each mark counts (1 unless said)
        self._weights = np.zeros(self.matrix.shape[1] + 1)
        # unmarked papers taken as unwanted (most are: wanted papers are a few per cent)
        self._draw = np.random.default_rng(0).permutation(self.matrix.shape[0])[: 2 * self.settings.pseudo + 64]

    def mark(self, row: int, wanted: bool | None, weight: float = 1.0) -> None:
        """Record (or with None, forget) what the reader said of paper ``row``, counting ``weight``."""
        if wanted is None:
            self.marks.pop(int(row), None)
            self.weights.pop(int(row), None)
        else:
            self.marks[int(row)] = bool(wanted)
            self.weights[int(row)] = float(weight)

    def set_marks(self, marks: dict[int, tuple[bool, float]]) -> None:
        """Replace every mark at once (the library's annotations, read again); the fitted model
        is kept as the next fit's start."""
        self.marks = {int(r): bool(w) for r, (w, _) in marks.items()}
        self.weights = {int(r): float(c) for r, (_, c) in marks.items()}

    @property
    def term_weights(self) -> np.ndarray:
        """The last fitted model's weight per term (for the terms that explain a score)."""
        return self._weights[:-1]

    def scores(self) -> np.ndarray:
        """Every paper's score (higher: more likely wanted), from the marks so far.

        From the first mark: skipped papers alone rank the others by how unlike them they are;
        once a paper is wanted, the model is fitted (the unmarked draw stands for the unwanted
        ones until the reader has skipped some)."""
        rows = np.fromiter(self.marks, dtype=np.int64, count=len(self.marks))
        y = np.fromiter(self.marks.values(), dtype=bool, count=len(self.marks))
        counts = np.fromiter((self.weights.get(int(r), 1.0) for r in rows), dtype=np.float64, count=len(rows))
        if not len(rows):
            return np.zeros(self.matrix.shape[0])
        if not y.any():
            away = np.asarray(self.matrix[rows].mean(axis=0)).ravel()
            return -np.asarray(self.matrix @ away).ravel()
        if y.all() and not self.settings.pseudo:
            centre = np.asarray(self.matrix[rows].T @ (counts / counts.sum())).ravel()
            return np.asarray(self.matrix @ centre).ravel()
        sample_weight = counts
        if self.settings.pseudo:
            # a fixed draw (in a fixed order, marked papers passed over): the model changes by one
            # mark a re-rank, so the warm-started solver needs few steps
            draw = self._draw[~np.isin(self._draw, rows)][: self.settings.pseudo]
            rows = np.concatenate([rows, draw])
            y = np.concatenate([y, np.zeros(len(draw), dtype=bool)])
            sample_weight = np.concatenate([counts, np.full(len(draw), self.settings.pseudo_weight)])
        self._weights = fit_logistic(self.matrix[rows], y, self._weights, self.settings, sample_weight)
        scores: np.ndarray = np.asarray(self.matrix @ self._weights[:-1]).ravel() + self._weights[-1]
        return scores

    def order(self) -> np.ndarray:
        """The unmarked papers' rows, the one to show first first."""
        scores = self.scores()
        unmarked = np.ones(self.matrix.shape[0], dtype=bool)
        unmarked[np.fromiter(self.marks, dtype=np.int64, count=len(self.marks))] = False
        rows = np.flatnonzero(unmarked)
        return rows[np.argsort(-scores[rows], kind="stable")]


def fit_logistic(x: sp.csr_matrix, y: np.ndarray, start: np.ndarray, settings: Settings,
                 sample_weight: np.ndarray | None = None) -> np.ndarray:
    """A logistic regression with balanced classes (each class weighs half), L2-damped; the last
    weight is the intercept (not damped). Warm-started from ``start``."""
    import scipy.sparse as sp
    from scipy.optimize import minimize

    n = len(y)
    sign = np.where(y, 1.0, -1.0)
    sw = np.ones(n) if sample_weight is None else sample_weight
    pos = max(float(sw[y].sum()), 1e-9)
    neg = max(float(sw[~y].sum()), 1e-9)
    share = settings.ratio / (1 + settings.ratio)   # of the total weight n, the wanted papers'
    weight = sw * np.where(y, n * share / pos, n * (1 - share) / neg)
    lam = 1.0 / settings.c
    # only the terms the marked papers hold: the others' weights stay 0 under L2 damping
    cols = np.flatnonzero(np.bincount(x.indices, minlength=x.shape[1]))
    xc = sp.csr_matrix(x[:, cols], dtype=np.float64)
    xt = xc.T          # (a CSC view: its product needs no conversion)

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = sign * (xc @ w[:-1] + w[-1])
        value = float(weight @ np.logaddexp(0.0, -z)) + 0.5 * lam * float(w[:-1] @ w[:-1])
        g = -weight * sign * _sigmoid(-z)
        grad = np.empty_like(w)
        grad[:-1] = xt @ g + lam * w[:-1]
        grad[-1] = g.sum()
        return value, grad

    result = minimize(loss, np.append(start[cols], start[-1]), jac=True, method="L-BFGS-B",
                      options={"maxiter": settings.iterations, "gtol": settings.tolerance})
    out = np.zeros_like(start)
    out[cols] = result.x[:-1]
    out[-1] = result.x[-1]
    return out


def _sigmoid(z: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.exp(-np.logaddexp(0.0, -z))
    return out


def stop_estimate(labels_in_order: Sequence[bool] | np.ndarray, n_total: int, recall: float = 0.95,
                  alpha: float = 0.05) -> tuple[int | None, bool]:
    """How many wanted papers may still be unread, and whether screening can stop, by Callaghan &
    Müller-Hansen's (2020) hypergeometric test.

    For every window of the last k papers read, the test treats the window as k papers drawn at
    random from the unread papers plus the window (a ranking that puts wanted papers first makes
    that conservative). Were fewer than ``recall`` of the wanted papers found so far, that urn
    would hold at least K wanted ones; how likely is it that the window holds as few as it does?
    The smallest such probability over the windows is the p-value; below ``alpha`` it says stop.
    The same test, asked of every count m, bounds what is left: the largest m of wanted papers
    still unread that no window makes unlikely (p >= alpha).

    Args:
        labels_in_order: what each paper read so far was (True wanted), in the order read.
        n_total: papers in the corpus (read and unread).

    Returns:
        (most_left, stop): at most how many wanted papers are still unread, with confidence
        1 - alpha (None before a wanted paper is found: nothing bounds it), and whether the test
        says ``recall`` is reached with that confidence.
    """
    from scipy.stats import hypergeom

    seen = np.asarray(labels_in_order, dtype=bool)
    n = len(seen)
    found = int(seen.sum())
    unread = n_total - n
    if found == 0 or n == 0:
        return None, False
    # windows of geometrically spaced sizes (~64 of them, every size up to 16): testing each of
    # thousands of sizes costs ~20 ms at 2,000 papers read and finds no earlier safe stop
    ks = np.unique(np.concatenate([np.arange(1, min(n, 16) + 1),
                                   np.geomspace(1, n, 48).round().astype(np.int64)]))
    in_window = np.cumsum(seen[::-1])[ks - 1]   # wanted papers among the last k read
    before = found - in_window                  # found before the window
    urn = unread + ks                           # the window and the unread papers
    # fewest wanted papers the urn holds if recall were below target: total > found / recall
    least = np.floor(found / recall - before + 1).astype(np.int64)
    # (an urn too small to hold that many: recall below target is impossible, p = 0)
    p = hypergeom.cdf(in_window, urn, np.minimum(least, urn), ks)
    p[least > urn] = 0.0
    # the bound: per window, the largest m (0..unread) with cdf(window's count | m + its count
    # wanted in the urn) >= alpha (the cdf falls as m grows: a search by halves, all windows at once)
    lo = np.zeros(len(ks), dtype=np.int64)           # plausible (m = 0 always is)
    hi = np.full(len(ks), unread, dtype=np.int64)
    ok_hi = hypergeom.cdf(in_window, urn, hi + in_window, ks) >= alpha
    lo[ok_hi] = hi[ok_hi]
    while np.any(hi - lo > 1):
        mid = (lo + hi) // 2
        ok = hypergeom.cdf(in_window, urn, mid + in_window, ks) >= alpha
        lo = np.where(ok, mid, lo)
        hi = np.where(ok, hi, mid)
        hi = np.maximum(hi, lo)
    return int(lo.min()), bool(np.min(p) < alpha)
