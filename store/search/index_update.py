"""Add documents to a search index, or replace some of its documents, without indexing the rest
again: what a day's import of a few hundred papers into a big library needs.

The result is the very index :meth:`SearchIndex.build` makes from the whole corpus (the same
vocabulary, postings, term frequencies and lengths; a test compares them array for array). The
index keeps term frequencies, not BM25 weights (which depend on the mean document length, so on
every document): the new postings are spliced in among the old ones, and the weights come out
of the new lengths when a term's postings are read.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from typing import Sequence

import numpy as np

from store.search.index import SearchIndex, idf_weights
from store.search.postings import count_terms, posting_docs
from store.search.forms import form_keys
from store.search.sorted_words import SortedWords, stem_tables
from store.search.vocab import Vocabulary


BLOCK = 1 << 20  # postings per pass: each pass's temporaries stay a few MB (at 300k papers 37M postings)


def updated(index: SearchIndex, replaced: dict[int, tuple[str, str]], added: Sequence[tuple[str, str]],
            normalized: list[str | None] | None = None) -> SearchIndex:
    """The index with documents replaced (number -> (title, abstract)) and documents added after
    its last, numbered on from ``index.n_docs`` (``index`` itself is left as it was).

    Args:
        normalized: the added abstracts already normalized (consumed, as :meth:`SearchIndex.build` does).
    """
    n_old, n = index.n_docs, index.n_docs + len(added)
    numbers = [*sorted(replaced), *range(n_old, n)]
    texts = [*(replaced[d] for d in sorted(replaced)), *added]
    norms: list[str | None] | None = None
    if normalized is not None:
        norms = [None] * len(replaced)
        norms += normalized
    term_id: dict[str, int] = {}
    rows, per_doc, tfs, new_lengths = count_terms(texts, norms, term_id, numbers)

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
    new_docs = posting_docs(per_doc, numbers).astype(np.int64)
    new_tf = np.frombuffer(tfs, dtype=np.uint16).copy()
    order = np.argsort((new_terms << 32) | new_docs, kind="stable")
    new_terms, new_docs, new_tf = new_terms[order], new_docs[order], new_tf[order]

    # The old postings of the replaced documents: they go (found a block at a time, no mask of
    # every posting), and so does each one's count in its term's document frequency.
    old_offsets = np.asarray(index.offsets, dtype=np.int64)
    old_docs, old_tf = index.docs, index.tf
    drop = np.zeros(0, dtype=np.int64)
    if replaced:
        gone = np.zeros(n_old, dtype=bool)
        gone[list(replaced)] = True
        drop = np.concatenate([np.flatnonzero(gone[old_docs[a:a + BLOCK]]) + a for a in range(0, len(old_docs), BLOCK)]
                              or [drop])

    # Each new posting's place among the old ones (array positions, not keys: no pass over every
    # posting): an added document's goes at the end of its term's run, a replaced one's is searched
    # for within the run, and a new term's postings go where the term is inserted.
    old_id = np.full(len(vocab), -1, dtype=np.int64)
    old_id[old_to_new] = np.arange(len(old_vocab), dtype=np.int64)
    of_term = old_id[new_terms]
    unseen_at = np.zeros(len(vocab), dtype=np.int64)
    unseen_at[at + np.arange(len(unseen))] = at  # a new term's postings go before old term ``at``'s
    pos = np.where(of_term < 0, old_offsets[unseen_at[new_terms]], old_offsets[of_term + 1])
    for k in np.flatnonzero((of_term >= 0) & (new_docs < n_old)).tolist():  # replaced documents' postings
        a, b = old_offsets[of_term[k]], old_offsets[of_term[k] + 1]
        pos[k] = a + np.searchsorted(old_docs[a:b], new_docs[k])
    docs, tf = _merged([old_docs, old_tf], drop, pos, [new_docs.astype(np.int32), new_tf])
    del old_docs, old_tf, pos

    df = np.bincount(new_terms, minlength=len(vocab))
    df[old_to_new] += np.diff(old_offsets) - np.bincount(np.searchsorted(old_offsets, drop, side="right") - 1,
                                                         minlength=len(old_vocab))
    del new_terms, new_docs, new_tf
    vanished = bool((df == 0).any())
    if vanished:  # a replaced document was the only one holding a term: the term goes
        kept = df > 0
        vocab = [t for t, k in zip(vocab, kept.tolist()) if k]
        df = df[kept]
    offsets = np.zeros(len(vocab) + 1, dtype=np.int64)
    np.cumsum(df, out=offsets[1:])

    lengths = np.concatenate([np.asarray(index.lengths, dtype=np.float32), new_lengths[len(replaced):]])
    lengths[sorted(replaced)] = new_lengths[:len(replaced)]
    if vanished:
        stems, stem_offsets, stem_members = stem_tables(vocab)
    else:
        stems, stem_offsets, stem_members = _stems_updated(index.vocabulary, old_to_new, unseen,
                                                           [int(at[k]) + k for k in range(len(unseen))])
    return SearchIndex(Vocabulary(SortedWords(vocab), SortedWords(stems), stem_offsets, stem_members, offsets),
                       docs, tf, idf_weights(offsets, n), n, lengths)


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


def _merged(olds: list[np.ndarray], drop: np.ndarray, pos: np.ndarray, news: list[np.ndarray]) -> list[np.ndarray]:
    """Each of ``olds`` without its elements at positions ``drop``, and with ``news`` inserted
    before old positions ``pos`` (both ascending; an insert at a dropped position goes where it
    was), as runs of slice copies into one new array each: no mask or temporary of every posting
    (at 300k papers 39M), only copies of the runs between the few thousand places a day touches."""
    size = len(olds[0]) - len(drop) + len(pos)
    outs = [np.empty(size, dtype=old.dtype) for old in olds]
    places, drops = pos.tolist(), drop.tolist()
    end_of = len(olds[0])
    done = w = i = j = 0  # old elements copied or dropped; elements written; next insert; next drop
    while i < len(places) or j < len(drops):
        place = places[i] if i < len(places) else end_of
        gone = drops[j] if j < len(drops) else end_of
        at = min(place, gone)
        if at > done:
            for out, old in zip(outs, olds):
                out[w:w + at - done] = old[done:at]
            w += at - done
            done = at
        if place == at and i < len(places):
            k = i + 1
            while k < len(places) and places[k] == at:
                k += 1
            for out, new in zip(outs, news):
                out[w:w + k - i] = new[i:k]
            w += k - i
            i = k
        else:
            done = at + 1
            j += 1
    for out, old in zip(outs, olds):
        out[w:] = old[done:]
    return outs
