"""Add documents to a search index, or replace some of its documents, without indexing the rest
again: what a day's import of a few hundred papers into a big library needs.

The result is the very index :meth:`SearchIndex.build` makes from the whole corpus (the same
vocabulary, postings and float32 weights; a test compares them array for array). BM25's weights
depend on the mean document length, so every weight is computed again, but from term frequencies
read back from the weights themselves (each weight is a known function of its term frequency and
its document's length, which the index keeps): arithmetic over arrays, not tokenizing every
abstract. If a frequency cannot be read back exactly (a weight does not come out the same from
it), :func:`updated` says so with None and the caller builds from scratch.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Sequence

import numpy as np

from store.search.index import K1, TF_BITS, SearchIndex, bm25_weights, count_terms, idf_weights, length_norms
from store.search.vocab import SortedWords, Vocabulary, stem_tables


def term_frequencies(index: SearchIndex) -> np.ndarray | None:
    """Each posting's term frequency (float32 whole numbers), read back from its BM25 weight, or
    None when the index keeps no document lengths or a weight does not come out exactly again."""
    if index.lengths is None or len(index.lengths) != index.n_docs:
        return None
    lengths = np.asarray(index.lengths, dtype=np.float32)
    avg = max(float(lengths.mean()), 1.0) if len(lengths) else 1.0
    norm = length_norms(lengths, index.docs, avg).astype(np.float64)
    w = index.weights.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        tf = np.rint(w * norm / (K1 + 1 - w))
    if not np.isfinite(tf).all():
        return None
    tf_f = tf.astype(np.float32)
    if not np.array_equal(bm25_weights(tf_f.copy(), lengths, index.docs), index.weights):
        return None
    return tf_f


def updated(index: SearchIndex, replaced: dict[int, tuple[str, str]], added: Sequence[tuple[str, str]],
            normalized: list[str | None] | None = None) -> SearchIndex | None:
    """The index with documents replaced (number -> (title, abstract)) and documents added after
    its last, numbered on from ``index.n_docs``; None when it cannot be done exactly (see the module).

    Args:
        normalized: the added abstracts already normalized (consumed, as :meth:`SearchIndex.build` does).
    """
    old_tf = term_frequencies(index)
    if old_tf is None:
        return None
    assert index.lengths is not None  # term_frequencies checked
    n_old, n = index.n_docs, index.n_docs + len(added)
    numbers = [*sorted(replaced), *range(n_old, n)]
    texts = [*(replaced[d] for d in sorted(replaced)), *added]
    norms: list[str | None] | None = None
    if normalized is not None:
        norms = [None] * len(replaced)
        norms += normalized
    term_id: dict[str, int] = {}
    rows, cols, tfs, new_lengths = count_terms(texts, norms, term_id, numbers)

    # The vocabulary: the old terms, with the new ones inserted in order.
    old_vocab = index.vocab
    local_terms = list(term_id)
    sparse = np.fromiter(term_id.values(), dtype=np.int64, count=len(term_id))
    unseen = sorted({t for t in local_terms if not _holds(old_vocab, t)})
    at = np.array([bisect_left(old_vocab, t) for t in unseen], dtype=np.int64)  # where each goes among the old
    old_to_new = np.arange(len(old_vocab), dtype=np.int64) + np.searchsorted(at, np.arange(len(old_vocab)), side="right")
    vocab = _inserted(old_vocab, unseen, at.tolist())
    merged_id = {t: int(old_to_new[bisect_left(old_vocab, t)]) for t in local_terms if _holds(old_vocab, t)}
    merged_id.update((t, int(at[k]) + k) for k, t in enumerate(unseen))
    remap = np.zeros(int(sparse.max()) + 1 if len(sparse) else 1, dtype=np.int64)
    remap[sparse] = [merged_id[t] for t in local_terms]

    # The new postings, ordered by (term, document).
    new_terms = remap[np.frombuffer(rows, dtype=np.int32)]
    new_docs = np.frombuffer(cols, dtype=np.int32).astype(np.int64)
    new_tf = np.minimum(np.frombuffer(tfs, dtype=np.int32), (1 << TF_BITS) - 1).astype(np.float32)
    new_keys = (new_terms << 32) | new_docs
    order = np.argsort(new_keys, kind="stable")
    new_keys, new_docs, new_tf, new_terms = new_keys[order], new_docs[order], new_tf[order], new_terms[order]

    # The old postings, less those of the replaced documents.
    old_terms = np.repeat(old_to_new, np.diff(index.offsets))
    old_docs = index.docs.astype(np.int64)
    if replaced:
        gone = np.zeros(n_old, dtype=bool)
        gone[list(replaced)] = True
        keep = ~gone[old_docs]
        old_terms, old_docs, old_tf = old_terms[keep], old_docs[keep], old_tf[keep]
    old_keys = (old_terms << 32) | old_docs

    # Merge the two ordered runs: each new posting goes after the old ones ordered before it.
    total = len(old_keys) + len(new_keys)
    is_new = np.zeros(total, dtype=bool)
    is_new[np.searchsorted(old_keys, new_keys) + np.arange(len(new_keys))] = True
    del old_keys, new_keys
    docs = _interleave(is_new, old_docs, new_docs, np.int32)
    tf = _interleave(is_new, old_tf, new_tf, np.float32)
    terms = _interleave(is_new, old_terms, new_terms, np.int64)
    del is_new, old_docs, new_docs, old_tf, new_tf, old_terms, new_terms

    df = np.bincount(terms, minlength=len(vocab))
    if (df == 0).any():  # a replaced document was the only one holding a term: the term goes
        kept = df > 0
        vocab = [t for t, k in zip(vocab, kept.tolist()) if k]
        terms = (np.cumsum(kept) - 1)[terms]
        df = df[kept]
    del terms
    offsets = np.zeros(len(vocab) + 1, dtype=np.int64)
    np.cumsum(df, out=offsets[1:])

    lengths = np.concatenate([np.asarray(index.lengths, dtype=np.float32), new_lengths[len(replaced):]])
    lengths[sorted(replaced)] = new_lengths[:len(replaced)]
    weights = bm25_weights(tf, lengths, docs)
    stems, stem_offsets, stem_members = stem_tables(vocab)
    return SearchIndex(Vocabulary(SortedWords(vocab), SortedWords(stems), stem_offsets, stem_members, offsets),
                       docs, weights, idf_weights(offsets, n), n, lengths)


def _holds(sorted_words: list[str], word: str) -> bool:
    k = bisect_left(sorted_words, word)
    return k < len(sorted_words) and sorted_words[k] == word


def _inserted(old: list[str], new: list[str], at: list[int]) -> list[str]:
    """``old`` with ``new[k]`` inserted before ``old[at[k]]`` (``at`` ascending)."""
    out: list[str] = []
    start = 0
    for k, pos in enumerate(at):
        out.extend(old[start:pos])
        out.append(new[k])
        start = pos
    out.extend(old[start:])
    return out


def _interleave(is_new: np.ndarray, old: np.ndarray, new: np.ndarray, dtype: type[np.generic]) -> np.ndarray:
    out = np.empty(len(is_new), dtype=dtype)
    out[is_new] = new
    out[~is_new] = old
    return out
