"""store.team.interest: papers dealt out by who cares about what, the shares kept."""

from __future__ import annotations

import numpy as np

from store.team.interest import interest, split_by_interest


def _unit(rows) -> np.ndarray:
    v = np.asarray(rows, dtype=np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_interest_is_the_mean_cosine_to_a_members_nearest_papers_and_none_without_any():
    vectors = _unit([[1, 0], [0.9, 0.1], [0, 1], [0.1, 0.9]])
    scores = interest(vectors, [np.array([0]), np.array([2, 3]), np.array([], dtype=np.int64)])
    assert scores.shape == (4, 3)
    assert np.argmax(scores[1, :2]) == 0 and np.argmax(scores[3, :2]) == 1
    assert np.allclose(scores[:, 2], 0.0)
    assert np.isclose(scores[0, 1], (vectors[0] @ vectors[2] + vectors[0] @ vectors[3]) / 2)


def test_each_member_gets_their_share_exactly_and_the_papers_most_like_their_own():
    rng = np.random.default_rng(0)
    scores = rng.random((300, 3)).astype(np.float32) * 0.5
    scores[:100, 0] += 1  # the first hundred: member 0's, clearly
    scores[100:, 0] = 0.0  # and only those
    topic = rng.integers(0, 3, 300)
    owner = split_by_interest(scores, topic, np.array([100, 100, 100]))
    assert np.bincount(owner, minlength=3).tolist() == [100, 100, 100]
    assert np.all(owner[:100] == 0)


def test_where_interest_says_nothing_a_paper_goes_with_its_topic():
    scores = np.zeros((6, 2), dtype=np.float32)  # (no member has papers of their own)
    topic = np.array([1, 1, 1, 0, 0, 0])
    assert split_by_interest(scores, topic, np.array([3, 3])).tolist() == topic.tolist()
