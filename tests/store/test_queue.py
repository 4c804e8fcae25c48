"""The triage queue (store.discovery.queue): features, re-ranking after marks, the stopping rule."""

from __future__ import annotations

import json

import numpy as np
import scipy.sparse as sp

from store.discovery.queue import Queue, Settings, mark_of, stop_estimate, text_features

from ..conftest import DATA

TEXTS = ["graph neural networks for molecules", "graph neural networks message passing",
         "reinforcement learning with policy gradients", "policy gradients in reinforcement learning agents",
         "diffusion models for image generation", "graph neural networks on citation graphs"]


def test_features_are_unit_rows_over_words_and_pairs():
    m = text_features(TEXTS)
    assert m.shape[0] == len(TEXTS) and m.dtype == np.float32
    assert np.allclose(sp.linalg.norm(m, axis=1), 1.0, atol=1e-5)
    words = text_features(TEXTS, pairs=False)
    assert m.shape[1] > words.shape[1]   # "graph neural", "neural networks", ... are terms too


def test_marks_rank_like_papers_first_and_leave_marked_out():
    q = Queue(text_features(TEXTS))
    q.mark(0, True)
    q.mark(2, False)
    order = q.order()
    assert set(order.tolist()) == {1, 3, 4, 5}
    assert set(order[:2].tolist()) == {1, 5}      # the graph papers
    q.mark(0, None)                                # a mark taken back
    assert 0 in q.order().tolist()


def test_only_wanted_marks_rank_by_their_centroid_and_no_marks_keep_corpus_order():
    q = Queue(text_features(TEXTS))
    assert q.order().tolist() == list(range(len(TEXTS)))
    q.mark(2, True)
    assert q.order()[0] == 3


def test_what_marks_mean():
    assert mark_of("to-read", 0) is True and mark_of("unread", 2) is True
    assert mark_of("skipped", 0) is False
    assert mark_of("read", 0) is None and mark_of("unread", 0) is None


def test_ranks_an_area_first_on_the_iclr_slice():
    records = [json.loads(l) for l in (DATA / "iclr_slice.jsonl").read_text(encoding="utf-8").splitlines() if l.strip()]
    y = np.array([r.get("primary_area") == "reinforcement learning" for r in records])
    assert 10 <= y.sum() <= 40
    q = Queue(text_features([f"{r['title']}\n{r['abstract']}" for r in records]), Settings(pseudo=50))
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
    assert stop_estimate(hits, n) == (stop_estimate(hits, n)[0], False)
    dry = hits + [False] * 1500   # (40 found: 3 missing would be below 95 %)
    remaining, stop = stop_estimate(dry, n)
    assert stop and remaining == 0.0
    assert not stop_estimate([], n)[1] and not stop_estimate([False] * 100, n)[1]


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
