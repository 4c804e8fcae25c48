"""Typo-tolerant ranked search over titles and abstracts.

An inverted index (CSR arrays of document ids and BM25 weights per term) is
built once and cached on disk. A query word is expanded over the *vocabulary*,
not the documents: the exact term, terms it is a prefix of (search as you type)
and terms within a small edit distance (``transfomer`` -> ``transformer``,
optimal string alignment so transpositions count once). Documents are then
ranked by how many query words they match, then by summed weight. The work per
keystroke grows with the vocabulary and the matching postings, not with the
length of every abstract.
"""

from __future__ import annotations

import bisect
import itertools
from array import array
import pickle
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import OSA

from .parallel import release_free_memory
from .text import index_tokens

TITLE_WEIGHT = 3
# The opening of an abstract usually restates what the title says; its words count extra.
LEAD_WORDS, LEAD_WEIGHT = 60, 1
K1, B = 1.2, 0.75
PREFIX_SIM, STEM_SIM, FUZZY1_SIM, FUZZY2_SIM = 0.8, 0.9, 0.75, 0.55
_SUFFIXES = ("ational", "ations", "ation", "nesses", "ness", "ments", "ment", "ities", "ity", "ings", "ing",
             "ies", "ied", "ers", "er", "ed", "es", "ly", "s")


def stem(word: str) -> str:
    """A light suffix stripper: networks/network, estimating/estimated, reusing/reuse share a stem."""
    for suf in _SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 4:
            word = word[: -len(suf)]
            break
    return word[:-1] if len(word) > 4 and word.endswith("e") else word
MAX_PREFIX = 40
MAX_FUZZY = 12
CACHE_VERSION = 7  # 6: math names (sqrt, epsilon) indexed; 7: hyphenated compounds joined
# Rank by how well every query word is matched (a fuzzy match counts by its
# similarity), then by BM25 score. Measured with benchmarks/search_quality.py.
SOFT_COVERAGE = True
COVERAGE_WEIGHT = 3.0


@dataclass
class Ranking:
    """Ranked document indices and the vocabulary terms that matched."""

    order: np.ndarray          # document indices, best first
    coverage: np.ndarray       # how well the query words are matched, aligned with order
    score: np.ndarray          # the ranking key (coverage and BM25), aligned with order
    matched_terms: set[str]    # for highlighting


class SearchIndex:
    """The inverted index. Build with :meth:`build`; persist with :meth:`dumps`."""

    def __init__(self, vocab: list[str], offsets: np.ndarray, docs: np.ndarray, weights: np.ndarray,
                 idf: np.ndarray, n_docs: int, lookups: dict | None = None):
        self.vocab = vocab
        self.offsets = offsets
        self.docs = docs
        self.weights = weights
        self.idf = idf
        self.n_docs = n_docs
        self.term_id = dict(zip(vocab, range(len(vocab))))
        self.df = np.diff(offsets)
        lookups = lookups or self._lookups(vocab)
        self.sorted_vocab: list[str] = lookups["sorted_vocab"]
        self.by_stem: dict[str, list[int]] = lookups["by_stem"]
        self.buckets: dict[tuple[int, str], list[str]] = lookups["buckets"]
        self.word_buckets: dict[tuple[int, str], list[str]] = lookups["word_buckets"]
        self._expand = lru_cache(maxsize=4096)(self._expand_uncached)

    @staticmethod
    def _lookups(vocab: list[str]) -> dict:
        """The vocabulary's lookup tables; saved in the cache, since stemming
        20k terms took most of a `papersift search` process's time."""
        # Word forms: terms grouped by stem. Typo candidates are stems bucketed by
        # (length, first letter): a typo in the first letter is rare, and this cuts
        # the strings compared per query word ~20-fold.
        by_stem: dict[str, list[int]] = {}
        for i, t in enumerate(vocab):
            by_stem.setdefault(stem(t), []).append(i)
        buckets: dict[tuple[int, str], list[str]] = {}
        for st in by_stem:
            buckets.setdefault((len(st), st[0]), []).append(st)
        # The same for whole words: a typo can hide a suffix from the stemmer
        # ("imitaion" keeps its ending, "imitation" loses it), so both are compared.
        word_buckets: dict[tuple[int, str], list[str]] = {}
        for t in vocab:
            word_buckets.setdefault((len(t), t[0]), []).append(t)
        return {"sorted_vocab": sorted(vocab), "by_stem": by_stem, "buckets": buckets, "word_buckets": word_buckets}

    @classmethod
    def build(cls, docs: list[tuple[str, str]], normalized: list[str | None] | None = None) -> "SearchIndex":
        """Index (title, abstract) pairs; document i is the i-th pair.

        Args:
            normalized: the abstracts already normalized (None entries are computed);
                the list is consumed (entries set to None as they are used).
        """
        # Term ids: dict.setdefault fed by a counter, all in C (map); ids of new terms
        # are sparse (the counter also ticks for known terms) and are compacted below.
        term_id: dict[str, int] = {}
        ticket = itertools.count()
        rows = array("i")
        cols = array("i")
        tfs = array("i")  # term frequencies are whole numbers (title and lead weights too)
        lengths = np.zeros(len(docs), dtype=np.float32)
        for d, (title, abstract) in enumerate(docs):
            norm = normalized[d] if normalized is not None else None
            toks = index_tokens(abstract, norm)
            if norm is not None:
                normalized[d] = None  # the caller hands the texts over: free each once tokenized
                if d % TRIM_EVERY == TRIM_EVERY - 1:
                    release_free_memory(collect=False)  # so the postings reuse the texts' pages
            counts = Counter(toks)
            if LEAD_WEIGHT:
                counts.update(toks[:LEAD_WORDS] * LEAD_WEIGHT)
            for tok in index_tokens(title):
                counts[tok] += TITLE_WEIGHT
            lengths[d] = sum(counts.values())
            rows.extend(map(term_id.setdefault, counts, ticket))
            cols.extend(array("i", [d]) * len(counts))
            tfs.extend(counts.values())
        # Assemble the postings with as few full-size temporaries as possible (a
        # 30k-paper import peaked here): compact ids by a lookup table, sort once.
        sparse_ids = np.fromiter(term_id.values(), dtype=np.int64, count=len(term_id))
        order_ids = np.argsort(sparse_ids)
        vocab_terms = list(term_id)
        vocab = [vocab_terms[i] for i in order_ids]  # compact id k = k-th smallest sparse id
        del vocab_terms, term_id
        remap = np.zeros(int(sparse_ids.max()) + 1 if len(sparse_ids) else 1, dtype=np.int32)
        remap[sparse_ids[order_ids]] = np.arange(len(order_ids), dtype=np.int32)
        rows_a = remap[np.frombuffer(rows, dtype=np.int32)]
        del remap, rows, sparse_ids, order_ids
        if normalized is not None:
            release_free_memory()  # the normalized texts freed above (~400 MB at 300k)
        postings = [rows_a, cols, tfs]
        del rows_a, cols, tfs  # handed over, so the sort can free each as it goes
        cols_a, tf_a, offsets = _sort_postings(postings, len(vocab), len(docs))
        # BM25 saturation, in place: tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl))
        avg = max(float(lengths.mean()), 1.0) if len(docs) else 1.0
        denom = lengths[cols_a]
        denom *= np.float32(B / avg)
        denom += np.float32(1 - B)
        denom *= np.float32(K1)
        denom += tf_a
        weights = tf_a
        weights *= np.float32(K1 + 1)
        weights /= denom
        del denom
        df = np.diff(offsets).astype(np.float32)
        n = max(len(docs), 1)
        idf = np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32)
        return cls(vocab, offsets, cols_a, weights, idf, len(docs))

    def dumps(self) -> bytes:
        return pickle.dumps({"v": CACHE_VERSION, "vocab": self.vocab, "offsets": self.offsets, "docs": self.docs,
                             "weights": self.weights, "idf": self.idf, "n": self.n_docs,
                             "lookups": {"sorted_vocab": self.sorted_vocab, "by_stem": self.by_stem,
                                         "buckets": self.buckets, "word_buckets": self.word_buckets}},
                            protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def load(cls, handle) -> "SearchIndex | None":
        """Rebuild from :meth:`dumps` output, read from an open binary file; None if it is
        damaged or from another version."""
        try:
            obj = pickle.load(handle)
        except Exception:
            return None
        if not isinstance(obj, dict) or obj.get("v") != CACHE_VERSION:
            return None
        return cls(obj["vocab"], obj["offsets"], obj["docs"], obj["weights"], obj["idf"], obj["n"], obj["lookups"])

    def _expand_uncached(self, word: str) -> tuple[tuple[int, float], ...]:
        """Vocabulary terms a query word stands for, with a similarity weight."""
        out: dict[int, float] = {}
        exact = self.term_id.get(word)
        if exact is not None:
            out[exact] = 1.0
        # Prefixes: search as you type ("transf" -> transformer, transfer ...).
        lo = bisect.bisect_left(self.sorted_vocab, word)
        hi = bisect.bisect_left(self.sorted_vocab, word + "\uffff")
        if hi > lo:
            pref = [self.term_id[t] for t in self.sorted_vocab[lo:hi] if t != word]
            if len(pref) > MAX_PREFIX:
                pref.sort(key=lambda i: -self.df[i])
                pref = pref[:MAX_PREFIX]
            for i in pref:
                out.setdefault(i, PREFIX_SIM)
        # Other forms of the word (networks -> network, estimating -> estimation).
        word_stem = stem(word)
        for i in self.by_stem.get(word_stem, ()):
            out.setdefault(i, STEM_SIM)
        # Typos, on stems so a typo and another word form combine ("netorks" -> network):
        # within 1 edit (short words) or 2 edits (8+ letters).
        if len(word) >= 4:
            near: dict[str, int] = {}  # stem -> fewest edits
            for probe, buckets in ((word_stem, self.buckets), (word, self.word_buckets)):
                max_d = 1 if len(probe) < 8 else 2
                cands = [t for n in range(len(probe) - max_d, len(probe) + max_d + 1)
                         for t in buckets.get((n, probe[0]), ())]
                for found, dist, _ in process.extract(probe, cands, scorer=OSA.distance, score_cutoff=max_d,
                                                      limit=MAX_FUZZY * 4):
                    if dist:
                        st = found if buckets is self.buckets else stem(found)
                        near[st] = min(dist, near.get(st, dist))
            for st, dist in sorted(near.items(), key=lambda kv: kv[1]):
                for i in self.by_stem[st]:
                    out.setdefault(i, FUZZY1_SIM if dist == 1 else FUZZY2_SIM)
        return tuple(out.items())

    def rank(self, words: list[str], candidates: np.ndarray | None = None,
             extra: dict[str, tuple[np.ndarray, np.ndarray]] | None = None) -> Ranking:
        """Rank documents for query words.

        Args:
            words: normalized query words.
            candidates: optional boolean mask of documents allowed (filters).
            extra: per word, (documents, weights) matched outside the index (tags, notes).

        Returns:
            A :class:`Ranking` of the documents matching at least one word.
        """
        n = self.n_docs
        total = np.zeros(n, dtype=np.float32)
        coverage = np.zeros(n, dtype=np.float32)
        matched: set[str] = set()
        for word in dict.fromkeys(words):
            variants = self._expand(word)
            term_score = np.zeros(n, dtype=np.float32)
            term_sim = np.zeros(n, dtype=np.float32)
            if extra and word in extra:
                d, w = extra[word]
                term_score[d] = np.maximum(term_score[d], w)
                term_sim[d] = 1.0
                matched.add(word)
            exact_idf = max((self.idf[i] for i, s in variants if s == 1.0), default=None)
            for tid, sim in variants:
                a, b = self.offsets[tid], self.offsets[tid + 1]
                d = self.docs[a:b]
                idf = self.idf[tid] if exact_idf is None else min(self.idf[tid], exact_idf)
                cur = term_score[d]
                term_score[d] = np.maximum(cur, self.weights[a:b] * (idf * sim))
                term_sim[d] = np.maximum(term_sim[d], sim)
                matched.add(self.vocab[tid])
            total += term_score
            coverage += term_sim if SOFT_COVERAGE else (term_sim > 0)
        hit = coverage > 0
        if candidates is not None:
            hit &= candidates
        idx = np.flatnonzero(hit)
        key = coverage[idx].astype(np.float64) * COVERAGE_WEIGHT + total[idx]
        sort = np.argsort(-key, kind="stable")
        order = idx[sort]
        return Ranking(order=order, coverage=coverage[order], score=key[sort], matched_terms=matched)


TF_BITS = 16
TRIM_EVERY = 50_000  # documents between handing freed texts back while indexing


def _sort_postings(postings: list, n_terms: int, n_docs: int):
    """Order postings by (term, document): documents and term frequencies, and each term's offset.

    Term, document and frequency are packed into one uint64 and sorted in place,
    instead of an argsort (an int64 index per posting) and two gathers: at 300k
    papers (37M postings) that was ~300 MB less at the import's peak. Falls back
    to the argsort where the three do not fit in 64 bits.

    Args:
        postings: [term ids (int32 array), documents, frequencies (array.array)];
            emptied, so each is freed once packed.
    """
    rows, cols, tfs = postings
    postings.clear()
    doc_bits = max(1, n_docs.bit_length())
    shift = doc_bits + TF_BITS
    if max(1, n_terms.bit_length()) + shift > 64:
        order = np.argsort(rows, kind="stable")
        offsets = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=n_terms), out=offsets[1:])
        return (np.frombuffer(cols, dtype=np.int32)[order], np.frombuffer(tfs, dtype=np.int32)[order].astype(np.float32), offsets)
    key = rows.astype(np.uint64)
    del rows
    key <<= np.uint64(shift)
    part = np.frombuffer(cols, dtype=np.int32).astype(np.uint64)
    del cols
    part <<= np.uint64(TF_BITS)
    key |= part
    del part
    part = np.minimum(np.frombuffer(tfs, dtype=np.int32), (1 << TF_BITS) - 1).astype(np.uint64)
    del tfs
    key |= part
    del part
    key.sort()
    offsets = np.searchsorted(key, np.arange(n_terms + 1, dtype=np.uint64) << np.uint64(shift)).astype(np.int64)
    part = key >> np.uint64(TF_BITS)
    part &= np.uint64((1 << doc_bits) - 1)
    cols_sorted = part.astype(np.int32)
    del part
    key &= np.uint64((1 << TF_BITS) - 1)
    return cols_sorted, key.astype(np.float32), offsets
