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

from array import array
from bisect import bisect_left
from typing import Sequence

import numpy as np

from store.search.index import K1, TF_BITS, SearchIndex, bm25_weights, count_terms, idf_weights, length_norms
from store.search.forms import form_keys
from store.search.vocab import SortedWords, Vocabulary, stem_tables


def term_frequencies(index: SearchIndex) -> np.ndarray | None:
    """Each posting's term frequency (float32 whole numbers), read back from its BM25 weight, or
    None when the index keeps no document lengths or a weight does not come out exactly again."""
    if index.lengths is None or len(index.lengths) != index.n_docs:
        return None
    lengths = np.asarray(index.lengths, dtype=np.float32)
    avg = max(float(lengths.mean()), 1.0) if len(lengths) else 1.0
    norm = length_norms(lengths, index.docs, avg)
    for precision in (np.float32, np.float64):  # float32 is exact for every frequency below ~2,000
        w = index.weights.astype(precision, copy=False)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            tf = np.rint(w * norm.astype(precision, copy=False) / (precision(K1 + 1) - w))
        if np.isfinite(tf).all():
            tf_f = tf.astype(np.float32, copy=False)
            if np.array_equal(bm25_weights(tf_f.copy(), lengths, index.docs), index.weights):
                return tf_f
    return None


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
    is_new = np.zeros(len(old_keys) + len(new_keys), dtype=bool)
    is_new[np.searchsorted(old_keys, new_keys) + np.arange(len(new_keys))] = True
    del old_keys, new_keys
    is_old = ~is_new
    docs = _interleave(is_new, is_old, old_docs, new_docs, np.int32)
    tf = _interleave(is_new, is_old, old_tf, new_tf, np.float32)
    del is_new, is_old, old_docs, new_docs, old_tf, new_tf

    df = np.bincount(old_terms, minlength=len(vocab)) + np.bincount(new_terms, minlength=len(vocab))
    del old_terms, new_terms
    vanished = bool((df == 0).any())
    if vanished:  # a replaced document was the only one holding a term: the term goes
        kept = df > 0
        vocab = [t for t, k in zip(vocab, kept.tolist()) if k]
        df = df[kept]
    offsets = np.zeros(len(vocab) + 1, dtype=np.int64)
    np.cumsum(df, out=offsets[1:])

    lengths = np.concatenate([np.asarray(index.lengths, dtype=np.float32), new_lengths[len(replaced):]])
    lengths[sorted(replaced)] = new_lengths[:len(replaced)]
    weights = bm25_weights(tf, lengths, docs)
    if vanished:
        stems, stem_offsets, stem_members = stem_tables(vocab)
    else:
        stems, stem_offsets, stem_members = _stems_updated(index.vocabulary, old_to_new, unseen,
                                                           [int(at[k]) + k for k in range(len(unseen))])
    return SearchIndex(Vocabulary(SortedWords(vocab), SortedWords(stems), stem_offsets, stem_members, offsets),
                       docs, weights, idf_weights(offsets, n), n, lengths)


def _stems_updated(old: Vocabulary, old_to_new: np.ndarray, unseen: list[str],
                   unseen_ids: list[int]) -> tuple[list[str], "array[int]", "array[int]"]:
    """:func:`stem_tables` of the vocabulary with ``unseen`` terms inserted (at ``unseen_ids``),
    from the old tables: only the new terms' form keys are computed (at 300k papers the whole
    vocabulary's took ~1.5 s)."""
    assert old.stems.words is not None  # an index holds its tables in memory (build, load)
    old_stems = old.stems.words
    keys = form_keys(unseen)
    fresh = sorted({k for k in keys if not _holds(old_stems, k)})
    at = np.array([bisect_left(old_stems, k) for k in fresh], dtype=np.int64)
    stem_to_new = np.arange(len(old_stems), dtype=np.int64) + np.searchsorted(at, np.arange(len(old_stems)), side="right")
    stems = _inserted(old_stems, fresh, at.tolist())
    new_stem = {k: int(at[n]) + n for n, k in enumerate(fresh)}
    new_stem.update((k, int(stem_to_new[bisect_left(old_stems, k)])) for k in keys if k not in new_stem)
    old_members = np.frombuffer(old.stem_members, dtype=np.int32) if isinstance(old.stem_members, array) \
        else np.asarray(old.stem_members, dtype=np.int32)
    old_offsets = np.asarray(old.stem_offsets, dtype=np.int64)
    pair_keys = np.concatenate([
        (np.repeat(stem_to_new, np.diff(old_offsets)) << 32) | old_to_new[old_members],
        (np.array([new_stem[k] for k in keys], dtype=np.int64) << 32) | np.array(unseen_ids, dtype=np.int64)])
    pair_keys.sort()
    offsets = np.searchsorted(pair_keys >> 32, np.arange(len(stems) + 1))
    return stems, array("i", offsets.astype(np.int32).tobytes()), array("i", (pair_keys & 0xFFFFFFFF).astype(np.int32).tobytes())


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


def _interleave(is_new: np.ndarray, is_old: np.ndarray, old: np.ndarray, new: np.ndarray,
                dtype: type[np.generic]) -> np.ndarray:
    out = np.empty(len(is_new), dtype=dtype)
    out[is_new] = new
    out[is_old] = old
    return out
