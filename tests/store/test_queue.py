"""The triage queue (store.discovery.queue): re-ranking after marks, what a mark means, the
stopping rule."""

from __future__ import annotations

import json

import numpy as np

from store.discovery.queue import Queue, Settings, mark_of, stop_estimate
from store.discovery.similar import doc_term_matrix
from store.search.index import SearchIndex

from ..conftest import DATA

TEXTS = ["graph neural networks for molecules", "graph neural networks message passing",
         "reinforcement learning with policy gradients", "policy gradients in reinforcement learning agents",
         "diffusion models for image generation", "graph neural networks on citation graphs"]


def features(texts: list[str]):
    """The papers as the app's queue has them (the similarity model's matrix)."""
    return doc_term_matrix(SearchIndex.build([("", t) for t in texts]), min_df=1)


def test_marks_rank_like_papers_first_and_leave_marked_out():
    q = Queue(features(TEXTS))
    q.mark(0, True)
    q.mark(2, False)
    order = q.order()
    assert set(order.tolist()) == {1, 3, 4, 5}
    assert set(order[:2].tolist()) == {1, 5}      # the graph papers
    q.mark(0, None)                                # a mark taken back
    assert 0 in q.order().tolist()


def test_a_first_mark_teaches_whatever_it_is():
    """No mark: corpus order. One wanted paper: its like first. Only skipped papers: the papers
    least like them first (the queue learns from the first mark, not the first star)."""
    q = Queue(features(TEXTS))
    assert q.order().tolist() == list(range(len(TEXTS)))
    q.mark(2, True)
    assert q.order()[0] == 3
    q = Queue(features(TEXTS))
    q.mark(0, False)
    q.mark(1, False)
    assert q.order()[-1] == 5 and q.order()[0] in (2, 3, 4)


def test_a_heavier_mark_pulls_harder():
    """Two wanted papers on different subjects: the one that counts more (a star) leads."""
    q = Queue(features(TEXTS), Settings(pseudo=0))
    q.mark(0, True, 1.0)
    q.mark(2, True, 3.0)
    assert q.order()[0] == 3
    q.mark(0, True, 3.0)
    q.mark(2, True, 1.0)
    assert q.order()[0] in (1, 5)


def test_what_marks_mean():
    assert mark_of("skipped", 3, True) == (False, 1.0)             # skipped outweighs a star or a tag
    assert mark_of("to-read", 0) == (True, 1.0)
    assert mark_of("read", 0) == (True, 0.5)                       # read and kept: a weak yes
    assert mark_of("unread", 0, True) == (True, 0.5)               # a tag alone: a weak yes
    assert mark_of("unread", 2) == (True, 1.0) and mark_of("to-read", 3)[1] > mark_of("to-read", 1)[1]
    assert mark_of("unread", 0) is None


def test_ranks_an_area_first_on_the_iclr_slice():
    records = [json.loads(l) for l in (DATA / "iclr_slice.jsonl").read_text(encoding="utf-8").splitlines() if l.strip()]
    y = np.array([r.get("primary_area") == "reinforcement learning" for r in records])
    assert 10 <= y.sum() <= 40
    matrix = doc_term_matrix(SearchIndex.build([(r["title"], r["abstract"]) for r in records]))
    q = Queue(matrix, Settings(pseudo=50))
    rng = np.random.default_rng(0)
    for row in list(rng.choice(np.flatnonzero(y), 4, replace=False)) + list(rng.choice(np.flatnonzero(~y), 20,
                                                                                       replace=False)):
        q.mark(int(row), bool(y[row]))
    order = q.order()
    left = y[order]
    top = left[: int(left.sum())]
    assert top.mean() >= 4 * left.mean()          # precision at R well above chance


def test_stop_rule_waits_while_wanted_papers_keep_coming_and_stops_after_a_long_dry_run():
    n = 2000
    hits = [True] * 40 + [False] * 10
    most, stop = stop_estimate(hits, n)
    assert not stop and 100 < most <= n - len(hits)     # ten dry papers bound little
    dry = hits + [False] * 1500   # (40 found: 3 missing would be below 95 %)
    most, stop = stop_estimate(dry, n)
    assert stop and most <= 2                           # the bound agrees with the stop
    assert stop_estimate([], n) == (None, False) and stop_estimate([False] * 100, n) == (None, False)


def test_the_bound_falls_as_the_dry_run_lengthens_and_holds_on_random_orders():
    """The most left is the test's bound: the longer the run without a wanted paper, the lower it
    is; on random orders (the test's assumption) the true count left exceeds it in about one run
    of five (the smallest p over many windows: the bound is that much bolder than one test's;
    a queue that finds wanted papers first makes it conservative)."""
    bounds = [stop_estimate([True] * 30 + [False] * k, 2000)[0] for k in (50, 200, 800)]
    assert bounds[0] > bounds[1] > bounds[2]
    rng = np.random.default_rng(2)
    over = 0
    for _ in range(20):
        labels = rng.permutation(np.arange(1000) < 50)
        k = 400
        most, _ = stop_estimate(labels[:k], len(labels))
        over += int(labels[k:].sum()) > most
    assert over <= 6


def test_stop_rule_is_right_on_random_orders_most_of_the_time():
    """On a random order (the test's own assumption), it stops early (true recall < 95 %) rarely."""
    rng = np.random.default_rng(1)
    early = 0
    for _ in range(20):
        labels = rng.permutation(np.arange(600) < 30)
        found = np.cumsum(labels)
        for k in range(1, len(labels) + 1, 5):
            if stop_estimate(labels[:k], len(labels))[1]:
                early += found[k - 1] < 0.95 * 30
                break
    assert early <= 3
