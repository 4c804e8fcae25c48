"""How the search index's postings are made: each document's terms counted (title and lead
words weighted), the sparse term ids the count hands out turned into places in the sorted
vocabulary, and the postings sorted by (term, document) through one packed uint64 key, a slice at
a time, so that no full-size temporary sits beside them (at 300k papers, 39M postings, the index
build's peak is an import's). :mod:`store.search.index` holds what they make; an import's few
hundred documents are counted here too and spliced in by :mod:`store.search.index_update`.
"""

from __future__ import annotations

import itertools
from array import array
from collections import Counter
from typing import Any, Sequence

import numpy as np

from store.parallel import beside, release_free_memory
from store.text import index_tokens

TITLE_WEIGHT = 3
# Between these many documents, the second half's terms are counted in a forked worker while this
# process counts the first (30k papers: ~1.3 s of one core less). Not above: at 300k papers the
# worker's counts, sent back whole, would sit beside the import's peak.
SPLIT_COUNT = (4_000, 100_000)
# The opening of an abstract usually restates what the title says; its words count extra.
LEAD_WORDS, LEAD_WEIGHT = 60, 1


def build_postings(docs: Sequence[tuple[str, str]], normalized: list[str | None] | None
                   ) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every document's terms counted and sorted into postings: the sorted vocabulary, each
    posting's document and term frequency ordered by (term, document), each term's offset, and each
    document's length (:meth:`store.search.index.SearchIndex.build`; ``normalized`` as there)."""
    term_id: dict[str, int] = {}
    rows, per_doc, tfs, lengths = count_both_halves(docs, normalized, term_id)
    # Assemble the postings with as few full-size temporaries as possible (a
    # 30k-paper import peaked here): compact ids by a lookup table, sort once.
    # A term's id is its position in the sorted vocabulary (store.search.vocab finds terms by bisection).
    sparse_ids = np.fromiter(term_id.values(), dtype=np.int64, count=len(term_id))
    vocab_terms = list(term_id)
    del term_id
    by_term = sorted(range(len(vocab_terms)), key=vocab_terms.__getitem__)
    vocab = [vocab_terms[k] for k in by_term]
    del vocab_terms
    remap = np.zeros(int(sparse_ids.max()) + 1 if len(sparse_ids) else 1, dtype=np.int32)
    remap[sparse_ids[np.asarray(by_term, dtype=np.int64)]] = np.arange(len(by_term), dtype=np.int32)
    del sparse_ids, by_term
    # Sparse ids run up to the number of postings (the counter ticks for every term of every
    # document), so remap is as big as the postings: each is made a term id in place, a slice
    # at a time, and remap is gone before the sort's packed keys are made.
    terms = np.frombuffer(rows, dtype=np.int32)
    for a in range(0, len(terms), PACK_STEP):
        terms[a:a + PACK_STEP] = remap[terms[a:a + PACK_STEP]]
    del remap, terms
    if normalized is not None:
        release_free_memory()  # the normalized texts freed above (~400 MB at 300k)
    postings = [rows, per_doc, tfs]
    del rows, per_doc, tfs  # handed over, so the sort can free each as it goes
    cols_a, tf_a, offsets = _sort_postings(postings, len(vocab), len(docs))
    return vocab, cols_a, tf_a, offsets, lengths


def count_terms(docs: Sequence[tuple[str, str]], normalized: list[str | None] | None, term_id: dict[str, int],
                numbers: Sequence[int]) -> tuple["array[int]", "array[int]", "array[int]", np.ndarray]:
    """Count each document's terms: sparse term ids per posting, how many postings each document
    has (:func:`posting_docs`), term frequencies per posting (capped at TF_MAX), and each
    document's length. Document k of ``docs`` is numbered ``numbers[k]``.

    A term's sparse id comes from ``term_id`` (new terms are added), by dict.setdefault fed by a
    counter, all in C (map): ids of new terms are sparse (the counter also ticks for known terms)
    and the caller compacts them.

    Args:
        normalized: the abstracts already normalized (None entries are computed); the list is
            consumed (entries set to None as they are used).
    """
    ticket = itertools.count(len(term_id))
    rows = array("i")
    per_doc = array("i")  # postings of each document (its number on each is made when needed: posting_docs)
    tfs = array("H")  # term frequencies are whole numbers (title and lead weights too), kept as uint16
    lengths = np.zeros(len(docs), dtype=np.float32)
    for k, (title, abstract) in enumerate(docs):
        norm = normalized[k] if normalized is not None else None
        toks = index_tokens(abstract, norm)
        if norm is not None:
            assert normalized is not None  # norm came from it
            normalized[k] = None  # the caller hands the texts over: free each once tokenized
        if k % TRIM_EVERY == TRIM_EVERY - 1:
            # Freed texts' pages back to the OS: the handed-over ones, and those of the free space
            # an import left in the heap, which each document's passing objects touch again
            # (at 300k papers that put ~300 MB back in the process during this loop).
            release_free_memory(collect=False)
        counts = Counter(toks)
        if LEAD_WEIGHT:
            counts.update(toks[:LEAD_WORDS] * LEAD_WEIGHT)
        for tok in index_tokens(title):
            counts[tok] += TITLE_WEIGHT
        lengths[k] = length = sum(counts.values())
        rows.extend(map(term_id.setdefault, counts, ticket))
        per_doc.append(len(counts))
        tfs.extend(counts.values() if length <= TF_MAX else (min(n, TF_MAX) for n in counts.values()))
    return rows, per_doc, tfs, lengths


def count_both_halves(docs: Sequence[tuple[str, str]], normalized: list[str | None] | None,
                      term_id: dict[str, int]) -> tuple["array[int]", "array[int]", "array[int]", np.ndarray]:
    """:func:`count_terms` of all ``docs``, the second half in a forked worker when there are
    :data:`SPLIT_COUNT` of them: its terms come back as words with dense ids and are given ids
    here (the vocabulary is sorted afterwards, so the postings are the same either way)."""
    half = len(docs) // 2
    if not SPLIT_COUNT[0] <= len(docs) <= SPLIT_COUNT[1]:
        return count_terms(docs, normalized, term_id, range(len(docs)))
    rest = None if normalized is None else normalized[half:]
    with beside(lambda: _count_dense(docs[half:], rest)) as second:
        if second is None:
            return count_terms(docs, normalized, term_id, range(len(docs)))
        first = count_terms(docs[:half], None if normalized is None else normalized[:half], term_id, range(half))
        try:
            words, rows2, per_doc2, tfs2, lengths2 = second()
        except ChildProcessError:  # (the worker was killed: its half is counted here)
            words, rows2, per_doc2, tfs2, lengths2 = _count_dense(docs[half:], rest)
    if normalized is not None:
        normalized[:] = [None] * len(normalized)  # (handed over: the worker's copies are gone with it)
    rows, per_doc, tfs, lengths = first
    ticket = itertools.count(max(term_id.values(), default=-1) + 1)
    ids = np.fromiter(map(term_id.setdefault, words, ticket), dtype=np.int32, count=len(words))
    rows.frombytes(ids[np.frombuffer(rows2, dtype=np.int32)].tobytes())
    per_doc.extend(per_doc2)
    tfs.extend(tfs2)
    return rows, per_doc, tfs, np.concatenate([lengths, lengths2])


def _count_dense(docs: Sequence[tuple[str, str]], normalized: list[str | None] | None
                 ) -> tuple[list[str], "array[int]", "array[int]", "array[int]", np.ndarray]:
    """:func:`count_terms` with the terms as words and dense ids into them (the worker's answer;
    ``normalized`` is consumed as there)."""
    term_id: dict[str, int] = {}
    rows, per_doc, tfs, lengths = count_terms(docs, normalized, term_id, range(len(docs)))
    sparse = np.fromiter(term_id.values(), dtype=np.int64, count=len(term_id))
    dense = np.zeros(int(sparse.max()) + 1 if len(sparse) else 1, dtype=np.int32)
    dense[sparse] = np.arange(len(sparse), dtype=np.int32)
    terms = np.frombuffer(rows, dtype=np.int32)
    terms[:] = dense[terms]
    return list(term_id), rows, per_doc, tfs, lengths


def posting_docs(per_doc: "array[int]", numbers: Sequence[int]) -> np.ndarray:
    """The document number of every posting of :func:`count_terms` (int32), from how many postings
    each document has (the index build makes them a slice at a time instead: see _sort_postings)."""
    return np.repeat(np.asarray(numbers, dtype=np.int32), np.frombuffer(per_doc, dtype=np.int32))


TF_BITS = 16
TF_MAX = (1 << 16) - 1  # a posting's term frequency is capped here (kept as uint16)
PACK_STEP = 1 << 20  # postings packed (and unpacked) a slice at a time (each slice's temporaries ~40 MB)
TRIM_EVERY = 50_000  # documents between handing freed memory back while indexing


def _sort_postings(postings: list[Any], n_terms: int, n_docs: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Order postings by (term, document): documents and term frequencies, and each term's offset.

    Term, document and frequency are packed into one uint64 and sorted in place,
    instead of an argsort (an int64 index per posting) and two gathers; the packing and
    the unpacking go a slice at a time, so no full-size temporary sits beside the three
    arrays (at 300k papers, 37M postings: ~450 MB less at the import's peak than whole-array
    steps and an argsort). Falls back to the argsort where the three do not fit in 64 bits.

    Args:
        postings: term ids (their places in the sorted vocabulary), postings per document and
            term frequencies, as :func:`count_terms` makes them (array.array); emptied, so each is
            freed once packed.
    """
    rows = np.frombuffer(postings[0], dtype=np.int32)
    ends = np.cumsum(np.frombuffer(postings[1], dtype=np.int32), dtype=np.int64)  # each document's last posting + 1
    tfs = np.frombuffer(postings[2], dtype=np.uint16)
    postings.clear()
    doc_bits = max(1, n_docs.bit_length())
    shift = doc_bits + TF_BITS
    if max(1, n_terms.bit_length()) + shift > 64:
        order = np.argsort(rows, kind="stable")
        offsets = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=n_terms), out=offsets[1:])
        docs = np.searchsorted(ends, np.arange(len(rows), dtype=np.int64), side="right").astype(np.int32)
        return docs[order], tfs[order], offsets
    n = len(rows)
    key = packed = np.empty(n, dtype=np.uint64)
    for a in range(0, n, PACK_STEP):
        b = min(n, a + PACK_STEP)
        packed = rows[a:b].astype(np.uint64)
        packed <<= np.uint64(shift)
        packed |= np.searchsorted(ends, np.arange(a, b, dtype=np.int64), side="right").astype(np.uint64) << np.uint64(TF_BITS)
        packed |= tfs[a:b]
        key[a:b] = packed
    del rows, ends, tfs, packed
    key.sort()
    offsets = np.searchsorted(key, np.arange(n_terms + 1, dtype=np.uint64) << np.uint64(shift)).astype(np.int64)
    cols_sorted = np.empty(n, dtype=np.int32)
    tf_sorted = np.empty(n, dtype=np.uint16)
    doc_mask = np.uint64((1 << doc_bits) - 1)
    for a in range(0, n, PACK_STEP):
        b = min(n, a + PACK_STEP)
        cols_sorted[a:b] = (key[a:b] >> np.uint64(TF_BITS)) & doc_mask
        tf_sorted[a:b] = key[a:b] & np.uint64(TF_MAX)
    return cols_sorted, tf_sorted, offsets
