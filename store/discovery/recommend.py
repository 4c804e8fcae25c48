"""Recommendations that learn from a handful of stars, and keep learning as they grow.

Two models of "papers like the ones I marked", blended by how much there is to learn from:

- a **centroid** (Rocchio): the weighted mean of the marked papers' vectors, scored as "more like
  this" scores one paper (TF-IDF cosine plus the LSA cosine), minus a share of the skipped
  papers' mean. With three stars it is what works: a classifier fitted to three positives
  against thousands of negatives fits noise;
- a **ridge classifier** (least squares with damping, solved by LSQR on the sparse TF-IDF
  matrix: the linear model per tag arxiv-sanity uses), which wins once there are tens of
  positives.

The blend weighs the classifier by k / (k + RIDGE_HALF) for k marked papers, each model's scores
standardized first; RIDGE_HALF was chosen with ``benchmarks/recommend_quality.py`` on half of
ICLR 2024's areas and checked on the other half. A ★★★ paper weighs more than a ★ one, a to-read
paper as a ★, and skipped papers count against.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from store.discovery.similar import LSA_WEIGHT

RIDGE_HALF = 20.0   # marked papers at which the classifier and the centroid weigh the same
SKIPPED_WEIGHT = 0.25  # of the skipped papers' centroid, taken off (Rocchio's gamma)


def star_weight(star: int, status: str) -> float:
    """How much one marked paper counts: 1 (to-read, or a tag) plus one per star."""
    return 1.0 + max(0, star)


def centroid_scores(matrix: sp.csr_matrix, latent: np.ndarray | None, positives: np.ndarray,
                    weights: np.ndarray, negatives: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Rocchio scores for every paper, and the centroid over terms (for "because" terms).

    (Pseudo-relevance feedback, which helps "more like this" for one paper, moved precision@10 by
    less than its noise here, for 10 more papers' vectors a call: left out.)"""
    w = weights / weights.sum()
    centre = np.asarray(matrix[positives].T @ w).ravel()
    scores = matrix @ centre
    if latent is not None:
        scores = scores + LSA_WEIGHT * (latent @ (latent[positives].T @ w))
    if negatives is not None and len(negatives):
        away = np.asarray(matrix[negatives].mean(axis=0)).ravel()
        scores = scores - SKIPPED_WEIGHT * (matrix @ away)
        if latent is not None:
            scores = scores - SKIPPED_WEIGHT * LSA_WEIGHT * (latent @ latent[negatives].mean(axis=0))
        centre = centre - SKIPPED_WEIGHT * away
    return np.asarray(scores).ravel(), centre


def ridge_scores(matrix: sp.csr_matrix, positives: np.ndarray, negatives: np.ndarray,
                 weights: np.ndarray | None = None, damp: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """A ridge classifier's scores for every paper, and its weights over terms.

    Args:
        positives: paper indices with the label (a tag, stars, to-read); ``weights`` each.
        negatives: paper indices taken not to have it (skipped, and a sample of the others).
    """
    from scipy.sparse.linalg import lsqr

    rows = np.concatenate([positives, negatives])
    y = np.concatenate([np.ones(len(positives)), -np.ones(len(negatives))])
    pos_w = np.ones(len(positives)) if weights is None else weights / weights.mean()
    # balance the classes so a handful of positives is not drowned by negatives
    balance = np.concatenate([pos_w * len(rows) / (2 * max(len(positives), 1)),
                              np.full(len(negatives), len(rows) / (2 * max(len(negatives), 1)))])
    sw = np.sqrt(balance)
    x = sp.diags(sw).dot(matrix[rows])
    w = lsqr(x, y * sw, damp=damp, atol=1e-6, btol=1e-6, iter_lim=200)[0]
    return np.asarray(matrix.dot(w)).ravel(), w


def _standard(scores: np.ndarray) -> tuple[np.ndarray, float]:
    sd = float(scores.std()) or 1.0
    return (scores - scores.mean()) / sd, sd


def blended_scores(matrix: sp.csr_matrix, latent: np.ndarray | None, positives: np.ndarray, weights: np.ndarray,
                   skipped: np.ndarray, sample: np.ndarray, ridge_half: float = RIDGE_HALF
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The recommender's scores for every paper, and a term weighting that explains them.

    Args:
        positives, weights: the marked papers and how much each counts.
        skipped: papers the user skipped (against, in both models).
        sample: other papers, taken as negatives by the classifier.
    """
    cen, centre = centroid_scores(matrix, latent, positives, weights, skipped)
    k = float(len(positives))
    share = k / (k + ridge_half) if ridge_half > 0 else 1.0
    if len(positives) < 2 or share < 0.02:
        return cen, centre
    rid, w = ridge_scores(matrix, positives, np.union1d(sample, skipped).astype(np.int64), weights)
    zc, sc = _standard(cen)
    zr, sr = _standard(rid)
    return (1 - share) * zc + share * zr, (1 - share) * centre / sc + share * w / sr


def closest_marked(matrix: sp.csr_matrix, latent: np.ndarray | None, doc: int, positives: np.ndarray,
                   n: int = 2) -> list[int]:
    """The marked papers most like ``doc`` (for "like ★ TraceML, ★ ScrapeBench")."""
    sims = np.asarray(matrix[positives] @ matrix[doc].T.toarray()).ravel()
    if latent is not None:
        sims = sims + LSA_WEIGHT * (latent[positives] @ latent[doc])
    return [int(positives[i]) for i in np.argsort(-sims)[:n]]
