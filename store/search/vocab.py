"""The search vocabulary: which indexed terms a typed query word stands for.

A query word is expanded over the vocabulary, not the documents: the exact
term, other forms of the word (:mod:`store.search.forms`: Snowball stems,
inflection only), terms within a small edit distance for a word of 5+ letters
(``transfomer`` -> ``transformer``; optimal string alignment, so a
transposition counts once), and, for the word still being typed, the terms it
is a prefix of. A compound (``sim-to-real``, see :func:`store.text.query_terms`)
stands for its joined spellings (simtoreal, sim2real) and their forms; where its
parts stand apart in a text (sim to real) the library finds by reading it.

Term ids are positions in the *sorted* vocabulary, so every table here is a
sorted list or a flat array: a term or a prefix is found by bisection within
the terms sharing its first character, and typo candidates (same first
character, similar length) are those same chunks of the sorted terms and
stems. Nothing needs numpy or a dict built at load time, so the app (with the
whole index in memory) and a one-shot ``papersift search`` (reading just the
chunks it needs from the index file, :mod:`store.search.quick`) share this one
implementation and rank alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from rapidfuzz import process
from rapidfuzz.distance import OSA

from store.search.forms import form_key, form_keys
from store.search.joined import joined_spellings
from store.search.sorted_words import SortedWords
from store.text import STOP_WORDS

if TYPE_CHECKING:
    import numpy as np

INDEX_VERSION = 11  # of the index file's format (store.search.packfile): a file of another version is rebuilt
K1, B = 1.2, 0.75  # BM25's parameters (store.search.index, and store.search.quick without numpy)


def index_size(meta: Sequence[int]) -> int | None:
    """The paper count from an index file's ``meta`` section; None if it is another version."""
    return meta[1] if len(meta) == 2 and meta[0] == INDEX_VERSION else None


# Rank by how well every query word is matched (a fuzzy match counts by its similarity), then
# by BM25 score (store.search.index, and store.search.quick without numpy). Measured with benchmarks/search_quality.py.
COVERAGE_WEIGHT = 3.0
# Similarity of a variant to the typed word; the ranking weighs matches by it.
PREFIX_SIM, STEM_SIM, FUZZY1_SIM, FUZZY2_SIM = 0.8, 0.9, 0.75, 0.55
# A word derived from the same stem (Snowball's: "optimal" for "optimization") ranks a paper as a
# completion did, but is not the word: it never puts a paper in the result set. Measured with
# benchmarks/search_quality.py (known-item search, docs/quality.md).
RELATED_SIM = 0.8
# A typed word that this many abstracts hold is taken as meant: its look-alikes (terms within an
# edit or two: "grouping" for "grokking", "models" for "modes") do not count as the word being
# covered. So papers holding the word itself come first, and a look-alike alone does not put a
# paper in the list (it still adds to the score of a paper another query word matched). One
# abstract is not enough: it may be that abstract's own typo. Measured with
# benchmarks/search_quality.py --precision (a rare and a common word of one abstract: the rare
# word's papers in the top k), mean of seeds 0-2: ICML 79.6 -> 85.1 %, ICLR 80.2 -> 85.8 %;
# known-item search unchanged (ICML 78.7 %, ICLR 78.7 %).
MEANT_MIN_DF = 2
# ...unless a look-alike one edit away is held by this many times as many papers: a misspelling
# several authors share ("langauge" in three ICLR papers' keywords, "language" in a thousand)
# is still read as the word it misspells too, else `langauge models agents` found one paper.
TYPO_OVER_MEANT = 100
# Words a query need not contain for a paper to be in its result set ("diffusion models for protein
# design": every paper with diffusion, models, protein and design); they still weigh in the ranking.


def content_words(words: list[str]) -> list[str]:
    """The query words a result must contain (all of them when all are stop words)."""
    kept = [w for w in dict.fromkeys(words) if w not in STOP_WORDS]
    return kept or list(dict.fromkeys(words))
MAX_PREFIX = 40  # prefix completions kept (the most frequent)
MAX_FUZZY = 12
# A typo is forgiven only in a word this long: a shorter one has too many neighbours an edit away
# ("sim" -> sum, aim, simple's "sim"); a word of 3 letters or fewer is its forms alone.
TYPO_MIN_LETTERS = 5
# A 4-letter word's look-alikes still rank (a title word with a letter dropped, "grph", finds its
# paper among the partial matches) but are never counted. Measured with benchmarks/search_quality.py.
RANKED_TYPO_MIN_LETTERS = 4


def idf_ceiling(variants: Sequence[tuple[int, float, float, bool]], idf: Sequence[float] | np.ndarray) -> float | None:
    """The highest idf any of a query word's variants may weigh with (None: no variants).

    With an exact term, that term's idf: other forms of a word count no more than the word.
    Without one (a typo, a word still being typed), the idf of the likeliest meaning, the
    commonest of the closest variants: otherwise a rare neighbour outweighs the word meant
    for being rare (``reinforcemnet`` ranked papers saying "reinforced", idf 6.2, above
    those saying "reinforcement", idf 2.2). Measured with benchmarks/search_quality.py:
    ICML 78.1 -> 78.7 %, ICLR 77.5 -> 78.8 % (mean of seeds 0-2).

    Args:
        variants: (term id, similarity, coverage, counted) tuples, as :meth:`Vocabulary.expand` gives them.
        idf: term id -> idf.
    """
    if not variants:
        return None
    exact = [idf[i] for i, sim, *_ in variants if sim == 1.0]
    if exact:
        return max(exact)
    best = max(sim for _, sim, *_ in variants)
    return min(idf[i] for i, sim, *_ in variants if sim == best)


@dataclass
class _Expansion:
    """What :meth:`Vocabulary._expand` builds for one word: term id -> similarity, and the terms
    derived from its stem, those that rank without counting, and its look-alikes."""

    out: dict[int, float] = field(default_factory=dict)
    related: set[int] = field(default_factory=set)
    completing: set[int] = field(default_factory=set)
    lookalikes: set[int] = field(default_factory=set)
    far: set[int] = field(default_factory=set)  # look-alikes two edits away


class Vocabulary:
    """Sorted terms, their stems, and how often each term occurs (for prefix order).

    Args:
        terms: every indexed term, sorted; a term's id is its position.
        stems: the distinct stems, sorted; stem_offsets, stem_members: each stem's
            term ids (from :func:`store.search.sorted_words.stem_tables`).
        offsets: postings offsets (``offsets[i + 1] - offsets[i]`` documents hold term i).
    """

    def __init__(self, terms: SortedWords, stems: SortedWords, stem_offsets: Sequence[int],
                 stem_members: Sequence[int], offsets: Sequence[int] | np.ndarray) -> None:
        self.terms = terms
        self.stems = stems
        self.stem_offsets = stem_offsets
        self.stem_members = stem_members
        self.offsets = offsets
        # A plain dict, not lru_cache over a bound method: that is a reference cycle, and the
        # index file's bytes (which ``offsets`` views) would outlive the index until a GC pass.
        self._expanded: dict[tuple[str, bool], tuple[tuple[int, float, float, bool], ...]] = {}

    def forget_expansions(self) -> None:
        """Drop the remembered :meth:`expand` results (a benchmark's "word never typed before")."""
        self._expanded.clear()

    def expand(self, word: str, typing: bool = False) -> tuple[tuple[int, float, float, bool], ...]:
        """:meth:`_expand`, remembered (the last 4,096 words asked, cleared when full)."""
        key = (word, typing)
        hit = self._expanded.get(key)
        if hit is None:
            if len(self._expanded) >= 4096:
                self._expanded.clear()
            hit = self._expanded[key] = self._expand(word, typing)
        return hit

    def read_as(self, word: str) -> str | None:
        """The word a typed word no paper holds, in no form, is read as: the commonest term that
        counts for it ("reinforcment" -> reinforcement), said so a reader knows what was searched;
        None for a word the library holds (in some form), a compound, or one nothing counts for."""
        if not word or "-" in word or self.terms.find(word) is not None or self.with_stem(form_key(word)):
            return None
        counted = [tid for tid, _, cover, counts in self.expand(word) if counts and cover > 0]
        return self.terms.word_at(max(counted, key=lambda t: (self._df(t), -t))) if counted else None

    def forms(self, word: str) -> frozenset[str]:
        """The terms that are ``word`` itself or one of its forms ("models" for "model"), as
        :meth:`expand` finds them: no look-alike, no completion."""
        return frozenset(self.terms.word_at(tid) for tid, sim, cover, counts in self.expand(word)
                         if counts and cover > 0 and sim >= STEM_SIM)

    def with_stem(self, st: str) -> Sequence[int]:
        """Ids of the terms whose form key is ``st``."""
        k = self.stems.find(st)
        return () if k is None else self.with_stem_at(k)

    def with_stem_at(self, k: int) -> Sequence[int]:
        """Ids of the terms of the ``k``-th form key."""
        return self.stem_members[self.stem_offsets[k]:self.stem_offsets[k + 1]]

    def _df(self, i: int) -> int:
        return self.offsets[i + 1] - self.offsets[i]

    def _expand(self, word: str, typing: bool = False) -> tuple[tuple[int, float, float, bool], ...]:
        """Vocabulary terms a query word stands for: (term id, similarity, coverage, counted).

        The similarity weighs the term's score (1.0: the word itself); the coverage is how far a
        document holding the term counts as holding the word in the ranking: the similarity,
        except for the look-alikes of a word the library holds (see MEANT_MIN_DF), which count 0.
        ``counted``: a document holding the term holds the word, for the result set. Words
        derived from its stem (RELATED_SIM), and the completions of a word being typed that is
        already a word here, rank but are not counted (so a count never changes because the word
        was finished: "policy" is not "policymakers").

        Args:
            typing: the word is still being typed (the cursor is on it): its completions count too.
        """
        if not word:
            return ()
        if "-" in word:
            return self._expand_compound(word, typing)
        e = _Expansion()
        word_stem = form_key(word)
        whole = self._own_forms(word, word_stem, e)
        self._derived(word_stem, e)
        e.completing = set(e.related)
        pref = self._completions(word, bool(whole), e) if typing else []
        # Typos (see _near): forgiven in a word of TYPO_MIN_LETTERS; a 4-letter word's only rank.
        near, wholes = self._lookalikes(word, word_stem, bool(whole), e) if len(word) >= RANKED_TYPO_MIN_LETTERS \
            else ({}, {})
        meant = self._meant(whole, near)
        if whole and not meant:
            # A word a paper or two hold (a name: "CrossLoco"): a look-alike two edits away counts only
            # where it is a hundred times as common, as a misspelling's word is ("reinforment"), not
            # a name's neighbour ("Crossdocked"): the others rank, never count.
            held = sum(self._df(i) for i in whole)
            rare = {i for i in e.far if self._df(i) < TYPO_OVER_MEANT * held}
            e.lookalikes -= rare
            e.completing |= rare
        if not whole and not pref and not e.related and near and list(near.values()).count(min(near.values())) == 1:
            self._corrected(near, wholes, e)
        if len(word) < TYPO_MIN_LETTERS:
            e.completing.update(e.lookalikes)  # ranked, never counted
        return tuple((i, sim, 0.0 if meant and i in e.lookalikes else sim, i not in e.completing)
                     for i, sim in e.out.items())

    def _lookalikes(self, word: str, word_stem: str, whole: bool,
                    e: _Expansion) -> tuple[dict[str, int], dict[str, int]]:
        """The forms of the words within reach of a typo, the closest first (see :meth:`_near`,
        whose answer this returns). Where the word typed is no word here, a word derived from
        its stem that is also within reach is what was meant, misspelled: it counts as a
        look-alike does ("reinforcment": reinforcement, not only the rarer "reinforment")."""
        near, wholes = self._near(word, word_stem)
        for st, dist in sorted(near.items(), key=lambda kv: kv[1]):
            for i in self.with_stem(st):
                if i not in e.out:
                    e.out[i] = FUZZY1_SIM if dist == 1 else FUZZY2_SIM
                    e.lookalikes.add(i)
                    if dist > 1:
                        e.far.add(i)
                elif not whole and i in e.related:
                    e.related.discard(i)
                    e.completing.discard(i)
                    e.lookalikes.add(i)
        return near, wholes

    def _meant(self, whole: list[int], near: dict[str, int]) -> bool:
        """Whether the word, held in MEANT_MIN_DF papers, is taken as meant (its look-alikes then
        count 0), unless a look-alike one edit away is TYPO_OVER_MEANT times as common."""
        held = sum(self._df(i) for i in whole)
        return held >= MEANT_MIN_DF and not any(
            dist == 1 and sum(self._df(i) for i in self.with_stem(st)) >= TYPO_OVER_MEANT * held
            for st, dist in near.items())

    def _own_forms(self, word: str, word_stem: str, e: _Expansion) -> list[int]:
        """The word itself and its other forms (policies -> policy, estimating -> estimated)."""
        exact = self.terms.find(word)
        if exact is not None:
            e.out[exact] = 1.0
        for i in self.with_stem(word_stem):
            e.out.setdefault(i, STEM_SIM)
        return list(e.out)

    def _derived(self, word_stem: str, e: _Expansion) -> None:
        """Words derived from its stem: they rank a paper, never count it (optimal, optimization)."""
        base = word_stem.split("+")[0]
        at = self.stems.find(base)
        for k in ([] if at is None else [at]) + list(self.stems.completions(base + "+")):
            for i in self.with_stem_at(k):
                if i not in e.out:  # (the word's own forms are in already)
                    e.out[i] = RELATED_SIM
                    e.related.add(i)

    def _completions(self, word: str, whole: bool, e: _Expansion) -> list[int]:
        """Search as you type ("transf" -> transformer, transfer ...): the commonest completions;
        they count unless the word typed so far is a word here already."""
        pref = [i for i in self.terms.completions(word) if i not in e.out or i in e.related]
        if len(pref) > MAX_PREFIX:
            pref.sort(key=lambda i: -self._df(i))  # stable: equally common terms stay alphabetical
            pref = pref[:MAX_PREFIX]
        for i in pref:
            e.out[i] = PREFIX_SIM
            e.related.discard(i)
        if whole:
            e.completing.update(pref)
        else:
            e.completing.difference_update(pref)
        return pref

    def _corrected(self, near: dict[str, int], wholes: dict[str, int], e: _Expansion) -> None:
        """An unambiguous correction (one word's forms at the fewest edits, and the typed word is
        neither a word here nor the start of one): it counts as the word it stands for, its
        closest form fully, the other forms as other forms do ("difusion" -> diffusion)."""
        best_stem = min(near, key=near.__getitem__)
        spelled = sorted((d, t) for t, d in wholes.items() if form_key(t) == best_stem)
        closest = self.terms.find(spelled[0][1]) if spelled else None
        for i in self.with_stem(best_stem):
            if i in e.lookalikes:
                e.out[i] = 1.0 if i == closest else STEM_SIM
                e.lookalikes.discard(i)
        e.completing.update(e.lookalikes)  # the other look-alikes rank, as the word's would not count

    def _near(self, word: str, word_stem: str) -> tuple[dict[str, int], dict[str, int]]:
        """Typos: the form keys within reach of the word (key -> fewest edits), and the terms found
        as whole words (term -> edits). On form keys so a typo and another word form combine
        ("netorks" -> network), and on whole words, since a typo can hide a suffix from the
        stemmer ("imitaion" keeps its ending, "imitation" loses it): within 1 edit (short words)
        or 2 (8+ letters). Candidates share the first letter (a typo there is rare), which cuts
        the strings compared ~20-fold."""
        near: dict[str, int] = {}
        wholes: dict[str, int] = {}
        for probe, pool, of_stems in ((word_stem, self.stems, True), (word, self.terms, False)):
            max_d = 1 if len(probe) < 8 else 2
            shortest, longest = len(probe) - max_d, len(probe) + max_d
            cands = [t for t in pool.chunk(probe[0])[1] if shortest <= len(t) <= longest]
            hits = process.extract(probe, cands, scorer=OSA.distance, score_cutoff=max_d, limit=MAX_FUZZY * 4)
            keys = [f for f, _, _ in hits] if of_stems else form_keys([f for f, _, _ in hits])
            for (found, dist, _), st in zip(hits, keys):
                if dist:
                    near[st] = min(dist, near.get(st, dist))
                    if not of_stems:
                        wholes[found] = dist
        return near, wholes

    def _expand_compound(self, word: str, typing: bool) -> tuple[tuple[int, float, float, bool], ...]:
        """A compound's joined spellings (sim-to-real: simtoreal, sim2real), in every form, and
        while it is typed the terms they begin. No part is widened on its own: where the parts
        stand apart in a text, :meth:`LibrarySearch` reads it."""
        out: dict[int, float] = {}
        for spelled in joined_spellings(word):
            exact = self.terms.find(spelled)
            if exact is not None:
                out[exact] = 1.0
            for i in self.with_stem(form_key(spelled)):
                out.setdefault(i, STEM_SIM)
        # Typed, its completions count while it is no whole term yet (as a word's: see _expand).
        completing = typing and bool(out)
        for spelled in joined_spellings(word) if typing else ():
            for i in list(self.terms.completions(spelled))[:MAX_PREFIX]:
                out.setdefault(i, PREFIX_SIM)
        whole = {i for i, sim in out.items() if sim != PREFIX_SIM}
        return tuple((i, sim, sim, i in whole or not completing) for i, sim in out.items())
