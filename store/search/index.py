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
from array import array
from dataclasses import dataclass
from typing import Sequence, cast

import numpy as np

from store.search.packfile import PackReader, file_bytes, pack, words_sections
from store.search.postings import build_postings
from store.search.joined import alternatives
from store.search.sorted_words import SortedWords, stem_tables
from store.search.vocab import B, COVERAGE_WEIGHT, INDEX_VERSION, K1, Vocabulary, content_words, idf_ceiling, index_size

OWN_SECTIONS = frozenset({"meta", "terms", "terms_chunks", "stems", "stems_chunks", "stem_offsets", "stem_members",
                          "offsets", "docs", "tf", "idf", "lengths", "norms"})


@dataclass
class Ranking:
    """Ranked document indices and the vocabulary terms that matched."""

    order: np.ndarray          # document indices: the result set (every content word) first, each part best first
    coverage: np.ndarray       # how well the query words are matched, aligned with order
    score: np.ndarray          # the ranking key (coverage and BM25), aligned with order
    matched_terms: set[str]    # for highlighting: words, and a compound's parts as "sim to real" (where they stand together)
    full: int = 0              # how many of ``order`` (its head) hold every content word
    present: np.ndarray | None = None  # how many content words each holds, aligned with order
    need: int = 0              # how many a paper holds to be in the result set (an OR group counts once)


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
        # given as ``extra``): an update of the index reuses them (IndexCache.update).
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
        vocab, cols_a, tf_a, offsets, lengths = build_postings(docs, normalized)
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
             apart: dict[str, tuple[str, np.ndarray]] | None = None,
             either: Sequence[Sequence[str]] = ()) -> Ranking:
        """Rank documents for query words.

        Args:
            words: normalized query words (a compound's parts joined by "-").
            candidates: optional boolean mask of documents allowed (filters).
            extra: per word, (documents, weights) matched outside the index (tags, notes).
            typing: the word still being typed, if any (its completions count: ``Vocabulary.expand``).
            apart: per word that is or stands for a compound (sim-to-real; multitask), the compound
                and the documents where its parts stand together but apart (sim to real), found by
                reading them (``LibrarySearch``): they hold the word too.
            either: groups of words joined by OR (``Query.either``): a paper holding one word of a
                group holds the group, which counts as one content word (:func:`needed`).

        Returns:
            A :class:`Ranking` of the documents matching at least one word (not by a
            look-alike alone: see ``store.search.vocab.MEANT_MIN_DF``).
        """
        n = self.n_docs
        total = np.zeros(n, dtype=np.float32)
        coverage = np.zeros(n, dtype=np.float32)
        present = np.zeros(n, dtype=np.int16)
        content, need = needed(words, either)
        group_of = {w: i for i, group in enumerate(either) for w in group}
        groups_held = [np.zeros(n, dtype=bool) for _ in either]
        matched: set[str] = set()
        for word in dict.fromkeys(words):
            term_score, term_sim, counted = self.word_scores(word, matched, typing=word == typing)
            if apart and word in apart and len(apart[word][1]):
                compound, d = apart[word]
                term_score[d] = np.maximum(term_score[d], self.parts_score(compound)[d])
                term_sim[d] = 1.0
                counted[d] = True
                matched.add(" ".join(compound.split("-")))  # (its parts highlighted where they stand together)
            if extra and word in extra:
                d, w = extra[word]
                term_score[d] = np.maximum(term_score[d], w)
                term_sim[d] = 1.0
                counted[d] = True
                matched.add(word)
            total += term_score
            coverage += term_sim
            if word in group_of:
                groups_held[group_of[word]] |= counted
            elif word in content:
                present += counted
        for held in groups_held:
            present += held
        hit = coverage > 0
        if candidates is not None:
            hit &= candidates
        idx = np.flatnonzero(hit)
        key = coverage[idx].astype(np.float64) * COVERAGE_WEIGHT + total[idx]
        sort = descending(key)
        order = idx[sort]
        # The result set (papers holding every content word) first, then the rest, each best first.
        in_set = present[order] == need
        order = np.concatenate([order[in_set], order[~in_set]])
        key = np.concatenate([key[sort][in_set], key[sort][~in_set]])
        return Ranking(order=order, coverage=coverage[order], score=key, matched_terms=matched,
                       full=int(np.count_nonzero(in_set)), present=present[order], need=need)


def needed(words: Sequence[str], either: Sequence[Sequence[str]] = ()) -> tuple[set[str], int]:
    """The content words of a query (``content_words``) and how many of them a paper holds to be in
    its result set: each OR group (``Query.either``) counts once, whichever of its words it holds."""
    content = set(content_words(list(words)))
    grouped = {w for group in either for w in group}
    return content, len(content - grouped) + len(either)


PACKED_SORT_MIN = 4096  # keys from which descending() sorts packed integers


def descending(key: np.ndarray) -> np.ndarray:
    """Positions of the float64 ``key`` from the largest, equal keys in position order:
    ``np.argsort(-key, kind="stable")`` in about half its time over 250k keys (17 against 32 ms).

    One sort of integers instead of an argsort: each key's bits, made to order as the floats do,
    keep their leading bits above the position (19 bits at 300k papers), so the sign, the exponent
    and 33 bits of the mantissa of 52 order the keys. Keys within one part in ~10^10 of each other
    would be ordered by position (none were: 1,028 searches at 30k and 300k papers listed the same
    papers in the same order both ways)."""
    n = len(key)
    if n < PACKED_SORT_MIN:
        return np.argsort(-key, kind="stable")
    bits = np.uint64((n - 1).bit_length())
    u = np.ascontiguousarray(key, dtype=np.float64).view(np.uint64)
    top = np.uint64(1 << 63)
    ordered = np.where(u & top, ~u, u | top)  # unsigned order = the floats' order
    packed = ((~ordered >> bits) << bits) | np.arange(n, dtype=np.uint64)  # largest first
    packed.sort()
    out: np.ndarray = (packed & ((np.uint64(1) << bits) - np.uint64(1))).astype(np.intp)
    return out


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
