"""Papers dealt out by who cares about what (``assign --by-interest``): each paper to the member
whose own papers (their stars and to-reads, and papers a seed phrase finds) it is most like, the
shares kept to their sizes, and, where interest says nothing, a paper kept with its topic.

A member's interest in a paper is its mean cosine to the member's five nearest papers in
more-like-this's latent vectors (not to their mean: a member who cares about three areas has three
neighbourhoods).
Papers are then dealt as a transportation problem: each member gets a price (the dual of their
share's size), adjusted until the members' asks nearly match their shares, and each paper goes,
surest first, to the member it is priced best for who has room left. The topic split's member gets a small bonus, so among members equally
(un)interested a paper goes where its topic went.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

TOPIC_BONUS = 0.02  # what keeping a paper with its topic is worth, in cosine (what decides where interest is even)


NEAREST = 5  # a member's interest in a paper: its mean cosine to the member's 5 nearest papers


def interest(vectors: np.ndarray, profiles: Sequence[np.ndarray]) -> np.ndarray:
    """Papers x members: each member's interest in each paper, the mean cosine to the member's
    NEAREST nearest profile rows (0 for a member with none). ``vectors`` rows L2-normalized.

    Measured on ICLR (benchmarks/team_split.py --interest, draws 0-14): more-like-this's LSA
    vectors over the split's own 64 dimensions (0.623 against 0.600 of the members' areas'
    papers reaching them); the 5 nearest over the nearest alone; two rounds of pseudo-relevance
    feedback (each member's surest papers joining their profile) gained nothing (0.614)."""
    out = np.zeros((len(vectors), len(profiles)), dtype=np.float32)
    for m, rows in enumerate(profiles):
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows):
            sims = vectors @ vectors[rows].T
            k = min(NEAREST, len(rows))
            out[:, m] = np.partition(sims, len(rows) - k, axis=1)[:, len(rows) - k:].mean(axis=1)
    return out


PRICE_ROUNDS = 200  # rounds that adjust each member's price until the shares nearly fit


def split_by_interest(scores: np.ndarray, topic_owner: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Member index per paper: each member gets exactly ``sizes[m]`` papers, the papers most like
    their own first (see the module docstring).

    Args:
        scores: papers x members interest (:func:`interest`).
        topic_owner: the member the topic split gave each paper (store.team.split.split_by_topic).
        sizes: papers per member (store.team.split.share_sizes), summing to the number of papers.
    """
    n, m = scores.shape
    sizes = np.asarray(sizes, dtype=np.int64)
    preference = scores.astype(np.float64) + TOPIC_BONUS * (topic_owner[:, None] == np.arange(m)[None, :])
    # Each member's price (the dual of their share's size): raised while they are asked for more
    # papers than their share, lowered while fewer, with a shrinking step.
    price = np.zeros(m)
    step = float(preference.std()) or 1.0
    for _ in range(PRICE_ROUNDS):
        wanted = np.bincount(np.argmax(preference - price, axis=1), minlength=m)
        if np.array_equal(wanted, sizes):
            break
        price += step * np.sign(wanted - sizes)
        step *= 0.93
    # Then each paper, surest first (the gap between its best and second-best priced member), to
    # the best priced member with room left: the few papers the prices left over find a place.
    priced = preference - price
    order = np.argsort(-priced, axis=1, kind="stable")
    ranked = np.take_along_axis(priced, order, axis=1)
    regret = ranked[:, 0] - (ranked[:, 1] if m > 1 else 0.0)
    room = sizes.copy()
    owner = np.full(n, -1, dtype=np.int64)
    for paper in np.argsort(-regret, kind="stable"):
        for member in order[paper]:
            if room[member] > 0:
                owner[paper] = member
                room[member] -= 1
                break
    return owner
