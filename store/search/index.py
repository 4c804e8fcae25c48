"""Typo-tolerant ranked search over titles and abstracts.

An inverted index (CSR arrays of document ids and term frequencies per term, with each
document's length: BM25's weights are computed from them as a term's postings are read) is
built once and cached on disk as a pack file (:mod:`store.search.packfile`). A query
word is expanded over the *vocabulary* (:mod:`store.search.vocab`), not the documents:
the exact term, terms it is a prefix of (search as you type) and terms within
a small edit distance (``transfomer`` -> ``transformer``). Documents are then
ranked by how many query words they match, then by summed weight. The work per
keystroke grows with the vocabulary and the matching postings, not with the
length of every abstract. :mod:`store.search.quick` computes the same ranking without
numpy for one-shot searches.
"""

from __future__ import annotations

import io
import itertools
from array import array
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence, cast

import numpy as np

from store.search.packfile import PackReader, file_bytes, pack, words_sections
from store.parallel import release_free_memory
from store.text import index_tokens
from store.search.vocab import (B, COVERAGE_WEIGHT, INDEX_VERSION, K1, STOP_WORDS, SortedWords, Vocabulary, alternatives,
                                content_words, idf_ceiling, index_size, stem_tables)

OWN_SECTIONS = frozenset({"meta", "terms", "terms_chunks", "stems", "stems_chunks", "stem_offsets", "stem_members",
                          "offsets", "docs", "tf", "idf", "lengths", "norms"})
TITLE_WEIGHT = 3
# The opening of an abstract usually restates what the title says; its words count extra.
LEAD_WORDS, LEAD_WEIGHT = 60, 1


@dataclass
class Ranking:
    """Ranked document indices and the vocabulary terms that matched."""

    order: np.ndarray          # document indices: the result set (every content word) first, each part best first
    coverage: np.ndarray       # how well the query words are matched, aligned with order
    score: np.ndarray          # the ranking key (coverage and BM25), aligned with order
    matched_terms: set[str]    # for highlighting
    full: int = 0              # how many of ``order`` (its head) hold every content word
    present: np.ndarray | None = None  # how many content words each holds, aligned with order


class SearchIndex:
    """The inverted index. Build with :meth:`build`; persist with :meth:`dump_chunks`."""

    def __init__(self, vocabulary: Vocabulary, docs: np.ndarray, tf: np.ndarray, idf: np.ndarray,
                 n_docs: int, lengths: np.ndarray):
        self.vocabulary = vocabulary
        assert vocabulary.terms.words is not None  # an index holds its vocabulary in memory (build, load)
        self.vocab = vocabulary.terms.words  # term id -> term (ids are sorted-vocabulary positions)
        self.offsets = vocabulary.offsets
        self.docs = docs
        # Term frequencies (uint16), not BM25 weights: a weight depends on the mean document length,
        # which every import changes; frequencies do not, so an import splices a day's postings in
        # (store.search.index_update) and a weight is two float32 operations when it is read.
        self.tf = tf
        self.idf = idf
        self.n_docs = n_docs
        # The sections of the file it was loaded from that are not the index's (what dump_chunks was
        # given as ``extra``): an update of the index reuses them (LibraryCore.update_index).
        self.extra: dict[str, memoryview] = {}
        # Each document's length in BM25's sense, and k1 (1 - b + b dl / avgdl) from it.
        self.lengths = lengths
        self.norms = doc_norms(lengths, mean_length(lengths))

    def weights(self, a: int, b: int, docs: np.ndarray | None = None) -> np.ndarray:
        """BM25 weights of postings ``a:b`` (float32; ``docs``: ``self.docs[a:b]`` if at hand),
        the very floats :func:`bm25_weights` gives over the whole index."""
        return saturated(self.tf[a:b].astype(np.float32), self.norms[self.docs[a:b] if docs is None else docs])

    @classmethod
    def build(cls, docs: Sequence[tuple[str, str]], normalized: list[str | None] | None = None) -> "SearchIndex":
        """Index (title, abstract) pairs; document i is the i-th pair.

        Args:
            normalized: the abstracts already normalized (None entries are computed);
                the list is consumed (entries set to None as they are used).
        """
        term_id: dict[str, int] = {}
        rows, per_doc, tfs, lengths = count_terms(docs, normalized, term_id, range(len(docs)))
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
        idf = idf_weights(offsets, len(docs))
        stems, stem_offsets, stem_members = stem_tables(vocab)
        return cls(Vocabulary(SortedWords(vocab), SortedWords(stems), stem_offsets, stem_members, offsets),
                   cols_a, tf_a, idf, len(docs), lengths)

    def dump_chunks(self, extra: Sequence[tuple[str, str, object]] = ()) -> list[bytes | memoryview]:
        """The index as a pack file (:mod:`store.search.packfile`), with ``extra`` sections
        (the library adds what a one-shot search prints: ids and titles)."""
        v = self.vocabulary
        assert v.terms.words is not None and v.stems.words is not None  # in memory, as __init__ checks
        meta = array("q", [INDEX_VERSION, self.n_docs])
        return pack([("meta", "q", meta), *words_sections("terms", v.terms.words), *words_sections("stems", v.stems.words),
                     ("stem_offsets", "i", v.stem_offsets), ("stem_members", "i", v.stem_members),
                     ("offsets", "q", np.ascontiguousarray(self.offsets, dtype=np.int64)),
                     ("docs", "i", np.ascontiguousarray(self.docs, dtype=np.int32)),
                     ("tf", "H", np.ascontiguousarray(self.tf, dtype=np.uint16)),
                     ("idf", "f", np.ascontiguousarray(self.idf, dtype=np.float32)),
                     ("lengths", "f", np.ascontiguousarray(self.lengths, dtype=np.float32)),
                     ("norms", "f", np.ascontiguousarray(self.norms, dtype=np.float32)),  # (for store.search.quick)
                     *extra])

    @classmethod
    def load(cls, handle: io.BufferedReader) -> "SearchIndex | None":
        """Read :meth:`dump_chunks` output from an open binary file (the whole
        file is read once; the arrays are views of it). None if it is damaged
        or from another version."""
        try:
            reader = PackReader(handle)
            n_docs = index_size(cast("array[int]", reader.read("meta")))  # a "q" section
            if n_docs is None:
                return None
            data = file_bytes(handle, reader.base)
            if data is None:
                return None

            def view(name: str, dtype: type[np.generic]) -> np.ndarray:
                _, offset, length = reader.sections[name]
                if offset + length > len(data):
                    raise ValueError(f"section {name} is cut short")
                return np.frombuffer(data, dtype=dtype, count=length // np.dtype(dtype).itemsize, offset=offset)

            def words(name: str) -> list[str]:
                text = view(name, np.uint8).tobytes().decode("utf-8")
                return text.split("\n") if text else []

            for name, (_, offset, length) in reader.sections.items():  # every section, the quick
                if offset + length > len(data):                          # path's titles too (~1 ms a MB)
                    raise ValueError(f"section {name} is cut short")
                reader.check_in(name, data)
            vocabulary = Vocabulary(SortedWords(words("terms")), SortedWords(words("stems")), array("i", view("stem_offsets", np.int32)),
                                    array("i", view("stem_members", np.int32)), view("offsets", np.int64))
            lengths = view("lengths", np.float32)
            if len(lengths) != n_docs:
                return None
            index = cls(vocabulary, view("docs", np.int32), view("tf", np.uint16), view("idf", np.float32),
                        n_docs, lengths)
            index.extra = {name: memoryview(data)[offset:offset + length]  # (checked above)
                           for name, (_, offset, length) in reader.sections.items() if name not in OWN_SECTIONS}
        except (ValueError, KeyError, IndexError, UnicodeDecodeError, OSError):
            return None
        if len(index.offsets) != len(index.vocab) + 1 or len(index.idf) != len(index.vocab) \
                or len(index.docs) != len(index.tf) or int(index.offsets[-1]) != len(index.docs):
            return None
        return index

    def word_scores(self, word: str, matched: set[str] | None = None,
                    typing: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One query word's score, coverage and count per document: its best-matching variant's
        BM25 weight x idf (capped: see ``idf_ceiling``) x similarity, how far the document holds
        the word in the ranking, and whether it holds it for the result set (see
        ``Vocabulary.expand``). The terms that matched are added to ``matched``."""
        n = self.n_docs
        variants = self.vocabulary.expand(word, typing)
        term_score = np.zeros(n, dtype=np.float32)
        term_sim = np.zeros(n, dtype=np.float32)
        counted = np.zeros(n, dtype=bool)
        ceiling = idf_ceiling(variants, self.idf)
        for tid, sim, cover, counts in variants:
            a, b = self.offsets[tid], self.offsets[tid + 1]
            d = self.docs[a:b]
            idf = min(self.idf[tid], ceiling)
            # In float32 throughout (as store.search.quick's pure-Python ranking reproduces).
            cur = term_score[d]
            term_score[d] = np.maximum(cur, self.weights(a, b, d) * np.float32(idf * np.float32(sim)))
            term_sim[d] = np.maximum(term_sim[d], cover)
            if counts and cover > 0:
                counted[d] = True
            if matched is not None:
                matched.add(self.vocab[tid])
        return term_score, term_sim, counted

    def parts_score(self, word: str) -> np.ndarray:
        """A compound's score per document from its parts where they stand apart (sim to real):
        the mean of each part's BM25 weight x idf (its exact term, in any of its spellings)."""
        total = np.zeros(self.n_docs, dtype=np.float32)
        parts = word.split("-")
        for part in parts:
            best = np.zeros(self.n_docs, dtype=np.float32)
            for spelled in alternatives(part):
                tid = self.vocabulary.terms.find(spelled)
                if tid is not None:
                    a, b = self.offsets[tid], self.offsets[tid + 1]
                    d = self.docs[a:b]
                    best[d] = np.maximum(best[d], self.weights(a, b, d) * self.idf[tid])
            total += best
        return total / np.float32(len(parts))

    def rank(self, words: list[str], candidates: np.ndarray | None = None,
             extra: dict[str, tuple[np.ndarray, np.ndarray]] | None = None, typing: str | None = None,
             apart: dict[str, tuple[str, np.ndarray]] | None = None) -> Ranking:
        """Rank documents for query words.

        Args:
            words: normalized query words (a compound's parts joined by "-").
            candidates: optional boolean mask of documents allowed (filters).
            extra: per word, (documents, weights) matched outside the index (tags, notes).
            typing: the word still being typed, if any (its completions count: ``Vocabulary.expand``).
            apart: per word that is or stands for a compound (sim-to-real; multitask), the compound
                and the documents where its parts stand together but apart (sim to real), found by
                reading them (``LibrarySearch``): they hold the word too.

        Returns:
            A :class:`Ranking` of the documents matching at least one word (not by a
            look-alike alone: see ``store.search.vocab.MEANT_MIN_DF``).
        """
        n = self.n_docs
        total = np.zeros(n, dtype=np.float32)
        coverage = np.zeros(n, dtype=np.float32)
        present = np.zeros(n, dtype=np.int16)
        content = set(content_words(words))
        matched: set[str] = set()
        for word in dict.fromkeys(words):
            term_score, term_sim, counted = self.word_scores(word, matched, typing=word == typing)
            if apart and word in apart and len(apart[word][1]):
                compound, d = apart[word]
                term_score[d] = np.maximum(term_score[d], self.parts_score(compound)[d])
                term_sim[d] = 1.0
                counted[d] = True
                matched.update(p for p in compound.split("-") if p not in STOP_WORDS)
            if extra and word in extra:
                d, w = extra[word]
                term_score[d] = np.maximum(term_score[d], w)
                term_sim[d] = 1.0
                counted[d] = True
                matched.add(word)
            total += term_score
            coverage += term_sim
            if word in content:
                present += counted
        hit = coverage > 0
        if candidates is not None:
            hit &= candidates
        idx = np.flatnonzero(hit)
        key = coverage[idx].astype(np.float64) * COVERAGE_WEIGHT + total[idx]
        sort = np.argsort(-key, kind="stable")
        order = idx[sort]
        # The result set (papers holding every content word) first, then the rest, each best first.
        in_set = present[order] == len(content)
        order = np.concatenate([order[in_set], order[~in_set]])
        key = np.concatenate([key[sort][in_set], key[sort][~in_set]])
        return Ranking(order=order, coverage=coverage[order], score=key, matched_terms=matched,
                       full=int(np.count_nonzero(in_set)), present=present[order])


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


def posting_docs(per_doc: "array[int]", numbers: Sequence[int]) -> np.ndarray:
    """The document number of every posting of :func:`count_terms` (int32), from how many postings
    each document has (the index build makes them a slice at a time instead: see _sort_postings)."""
    return np.repeat(np.asarray(numbers, dtype=np.int32), np.frombuffer(per_doc, dtype=np.int32))


def mean_length(lengths: np.ndarray) -> float:
    """The mean document length BM25 normalizes by (1 for an empty index)."""
    return max(float(np.mean(lengths, dtype=np.float64)), 1.0) if len(lengths) else 1.0


def bm25_weights(tf: np.ndarray, lengths: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """BM25 saturation per posting, in place of ``tf`` (float32): tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl))."""
    return saturated(tf, length_norms(lengths, docs, mean_length(lengths)))


def saturated(tf: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """:func:`bm25_weights` from each posting's length norm (:func:`length_norms`), in place of ``tf``."""
    denom = norms + tf
    weights: np.ndarray = tf
    weights *= np.float32(K1 + 1)
    weights /= denom
    return weights


def idf_weights(offsets: np.ndarray, n_docs: int) -> np.ndarray:
    """BM25's idf per term, from the terms' posting offsets."""
    df = np.diff(offsets).astype(np.float32)
    n = max(n_docs, 1)
    return np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32)


def length_norms(lengths: np.ndarray, docs: np.ndarray, avg: float) -> np.ndarray:
    """k1 (1 - b + b dl / avgdl) per posting, in float32 as :func:`bm25_weights` computes it
    (per document, then one gather: the same floats as per posting, with fewer passes over them)."""
    norms: np.ndarray = doc_norms(lengths, avg)[docs]
    return norms


def doc_norms(lengths: np.ndarray, avg: float) -> np.ndarray:
    """k1 (1 - b + b dl / avgdl) per document (see :func:`length_norms`)."""
    per_doc: np.ndarray = np.asarray(lengths, dtype=np.float32) * np.float32(B / avg)
    per_doc += np.float32(1 - B)
    per_doc *= np.float32(K1)
    return per_doc


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
