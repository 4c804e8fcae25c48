"""Library search: a query's filters applied (:mod:`store.library.filters`), then its words ranked,
or the papers ordered (similar:, rec:) or sorted — a part of the Library.

:class:`LibrarySearch` reads the corpus, annotations and index of a
:class:`~store.library.core.LibraryCore` and asks :class:`~store.library.discovery.Discovery` for the
similar: and rec: orderings.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Mapping

import numpy as np

from store.errors import PapersiftError
from store.records import Annotation
from store.library.filters import Filters
from store.search.result import SearchResult
from store.search import acronyms, proximity
from store.search.compounds import candidates_and_pattern
from store.search.phrase_search import phrase_runs
from store.search.query import Query, parse_query
from store.search.quick import ANNOTATION_WEIGHT, WEAKER_SHOWN, annotation_matches
from store.search.joined import compound_part_ids, joined_compound, widened_notes, worth_reading
from store.search.vocab import content_words
from store.text import search_tokens

if TYPE_CHECKING:
    from store.library.cores import SearchCore
    from store.library.discovery import Discovery
    from store.search.index import SearchIndex


ACRONYM_SHARE = 0.1  # a paper holding an acronym: each word of its expansion scores this share of the acronym's score
APART_MEMO_MAX = 256  # compounds whose papers apart are kept (each a few hundred ids)
SPAN_TOKENS_KEPT = 4096  # papers whose words proximity keeps (~30 read per search; a few MB)
SORTS = ("import", "status", "star", "team-stars", "random", "recommended")
_STATUS_ORDER = {"to-read": 0, "unread": 1, "read": 2, "skipped": 3}


class LibrarySearch:
    """find(), rankings and sort orders: the part of :class:`~store.library.Library` that finds papers,
    with its :class:`~store.library.filters.Filters` (which own the filters' tables); the Library
    drops what both keep (:meth:`invalidate`) when its corpus changes."""

    def __init__(self, core: SearchCore, discovery: Discovery) -> None:
        self._core = core
        self._discovery = discovery  # (the similar: and rec: orderings)
        self.filters = Filters(core, discovery)  # the filters' masks and the tables they build
        self._shuffle_seed = random.randrange(1 << 30)
        # Tag and note tokens per paper, with the corpus position they were found at: dropped with
        # the other tables when the corpus changes (a removal moves every later paper's position).
        self._ann_tokens: dict[str, tuple[tuple[tuple[str, ...], str], int | None, set[str]]] = {}
        # (compound, typed) -> the papers where its parts stand together but apart (see _apart), for the
        # index they were found in: typing on after "sim-to-real" reads no paper again.
        self._apart_memo: dict[tuple[str, bool], tuple[object, np.ndarray]] = {}
        # (corpus generation, what its papers' definitions establish): see acronym_table
        self._acronyms: tuple[str, acronyms.Learned] | None = None
        self._span_tokens: dict[int, list[list[str]]] = {}  # paper position -> its words (see _tokens)
        # acronym -> (the index, the papers meaning something else by it): typing an expansion on
        # reads no posting list again (see _meant_otherwise; a few acronyms have another meaning)
        self._meant_memo: dict[str, tuple[object, np.ndarray]] = {}

    def invalidate(self) -> None:
        """Drop the tables (the corpus changed)."""
        self.filters.invalidate()
        self._ann_tokens = {}
        self._span_tokens = {}
        self._apart_memo = {}
        self._meant_memo = {}
        self._acronyms = None

    def acronym_table(self) -> acronyms.Table:
        """The acronyms the library's papers define (store.search.acronyms): kept on disk for the
        corpus generation (an import adds its new papers'), counted in every paper's line when
        missing or stale (~0.3 s at 30k papers) and kept for the next session and the one-shot
        search."""
        from store import locations

        if not self._acronyms_kept():
            corpus = self._core.corpus
            counts = acronyms.count(corpus.papers.record_chunks())
            if corpus.generation:
                acronyms.write_counts(self._core.folder / locations.ACRONYMS_FILE, corpus.generation, counts, len(corpus))
            self._acronyms = (corpus.generation, acronyms.learned(counts))
        assert self._acronyms is not None
        return self._acronyms[1].table

    def _acronyms_kept(self) -> bool:
        """Whether this corpus's acronyms are at hand: in memory, or read from what is kept on disk
        (a small file: cheap enough between keys)."""
        from store import locations

        generation = self._core.corpus.generation
        if self._acronyms is not None and self._acronyms[0] == generation:
            return True
        kept = acronyms.read_counts(self._core.folder / locations.ACRONYMS_FILE, generation)
        if kept is None:
            return False
        self._acronyms = (generation, acronyms.learned(kept[0]))
        return True

    def compound_words(self, q: Query, acronym_words: dict[str, str] | None = None) -> dict[str, str]:
        """The query's words whose parts may stand apart in a paper, each with its compound: a
        hyphenated word is its own (sim-to-real), a word written together may stand for one
        (multitask: multi-task, see ``joined_compound``; known once the index is loaded, which
        this never waits for: the app asks it between keys). ``acronym_words``: the query's
        acronyms (:meth:`_acronym_words`) when the caller has them already."""
        index = self._core.index_cache.loaded
        out = {}
        for word in dict.fromkeys(q.words):
            compound = word if "-" in word else joined_compound(word, index.vocabulary) if index is not None else None
            if compound is not None and (compound == word or (index is not None and self._parts_meet(index, word, compound))):
                out[word] = compound
        if self._acronyms is not None:  # (an acronym stands for its expansion's words: llm, large-language-models)
            known = self._acronym_words(q) if acronym_words is None else acronym_words
            out.update({w: "-".join(self._acronyms[1].table[a]) for w, a in known.items()})
        return out

    def _acronym_words(self, q: Query) -> dict[str, str]:
        """The query's words that are acronyms the papers define, each with the acronym it is
        ("llms": "llm"); none while the acronyms are not at hand (never counted here: the app asks
        between keys)."""
        if self._acronyms is None or self._acronyms[0] != self._core.corpus.generation:
            return {}
        index = self._core.index_cache.loaded
        table = self._acronyms[1].table
        used = (lambda t: index.vocabulary.terms.find(t) is not None) if index is not None else None
        return {w: a for w in q.words if (a := acronyms.acronym_of(w, table, used)) is not None}

    @staticmethod
    def _parts_meet(index: SearchIndex, word: str, compound: str) -> bool:
        """store.search.quick's test, in numpy: papers hold both parts often enough to be read."""
        first, last = compound.split("-")
        tid = index.vocabulary.terms.find(first)
        if tid is None:
            return False
        vocabulary = index.vocabulary
        rest = [index.docs[index.offsets[i]:index.offsets[i + 1]] for i in compound_part_ids(last, vocabulary)]
        holding = index.docs[index.offsets[tid]:index.offsets[tid + 1]]
        together = np.intersect1d(holding, np.concatenate(rest)) if rest else holding[:0]
        return worth_reading(word, vocabulary, len(together))

    def _apart(self, q: Query, acronym_words: dict[str, str]) -> dict[str, tuple[str, np.ndarray]]:
        """Per word of the query that is or stands for a compound (sim-to-real; multitask; an
        acronym the papers define: llm for large-language-model), the compound and the papers where
        its parts stand next to each other apart (sim to real, sim 2 real, multi task, large
        language models), read from their text (store.search.compounds); those holding a joined
        spelling the index already finds, except for an acronym, whose own postings do not hold
        its expansion's joined spelling ("reinforcement-learning" is indexed "reinforcementlearning")."""
        index = self._core.index
        out = {}
        for word, compound in self.compound_words(q, acronym_words).items():
            typing = word == q.typing and compound == word  # (a joined word's rest is whole)
            hit = self._apart_memo.get((compound, typing))
            if hit is None or hit[0] is not index:
                found = candidates_and_pattern(index, compound, typing)
                docs = np.zeros(0, dtype=np.int64)
                if found is not None:
                    candidates, pattern, pattern_bytes = found
                    for tid, *_ in index.vocabulary.expand(compound, typing):  # a joined spelling: found already
                        candidates[index.docs[index.offsets[tid]:index.offsets[tid + 1]]] = False
                    docs = np.flatnonzero(self.filters.phrases.matching(pattern, pattern_bytes, candidates))
                if len(self._apart_memo) >= APART_MEMO_MAX:  # a long session's typed compounds: start afresh
                    self._apart_memo = {}
                hit = self._apart_memo[(compound, typing)] = (index, docs)
            docs = hit[1]
            if word in acronym_words:
                joined = [index.docs[index.offsets[tid]:index.offsets[tid + 1]] for tid, *_ in index.vocabulary.expand(compound)]
                docs = np.union1d(docs, np.concatenate(joined)) if joined else docs
            out[word] = (compound, docs)
        return out

    def filter_tables_ready(self, q: Query) -> bool:
        """Whether ``q``'s filters can be had without building a table (see Filters.tables_ready),
        and its words without counting the library's acronyms (see :meth:`acronym_table`)."""
        return self.filters.tables_ready(q) and (not q.words or self._acronyms_kept())


    def _annotation_matches(self, words: list[str],
                            anns: Mapping[str, Annotation]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per query word, papers whose tags or note contain it (prefix match)."""
        # Tokens per paper, cached by the (tags, note) they came from: a keystroke
        # re-tokenizes only annotations that changed since the last search.
        cache = self._ann_tokens
        texts = []
        for pid, a in anns.items():
            if not (a.tags or a.note):
                continue
            key = (tuple(a.tags), a.note)
            hit = cache.get(pid)
            if hit is None or hit[0] != key:
                hit = (key, self._core.corpus.index_of(pid), set(search_tokens(" ".join(a.tags) + " " + a.note)))
                cache[pid] = hit
            texts.append((hit[1], hit[2]))
        return {word: (np.asarray(docs, dtype=np.int64), np.full(len(docs), ANNOTATION_WEIGHT, dtype=np.float32))
                for word, docs in annotation_matches(words, texts).items()}

    def find(self, text: str | Query = "", sort: str = "import", limit: int | None = None) -> SearchResult:
        """Rank (or, for an empty query, order) papers for a query with filters.

        Args:
            text: the query (see :mod:`store.search.query`), or the :class:`Query` it parses to (the
                app parses once per keystroke, and passes that along).
            sort: for an empty query: one of ``SORTS``.
            limit: keep only the first ``limit`` results.
        """
        q = text if isinstance(text, Query) else parse_query(text)
        n = len(self._core.corpus)
        if q.unknown_filters or q.refused or q.unapplied:  # a filter not applied as written, an OR joining nothing: no paper
            return SearchResult(indices=np.arange(0, dtype=np.int64), total=n, errors=q.errors, found=0)
        # One snapshot of the annotations for the whole search: the app searches in a worker thread
        # while its UI thread triages, and a change installs a new mapping (never edits this one).
        anns = self._core.annotations
        mask = self.filters.mask(q, anns)
        matched, full, widened, read_as = set[str](), 0, list[str](), list[str]()  # (see _by_words)
        if q.similar or q.recommend:
            order = self._ordering(q)
            if mask is not None:
                order = order[mask[order]]
        elif q.words:
            order, matched, full, widened, read_as = self._by_words(q, mask, anns)
        else:
            order = np.flatnonzero(mask) if mask is not None else np.arange(n)
            order = self._sorted(order, sort, anns)
        if "phrase" in q.kinds:  # (lit where its words stand together, as a compound's are)
            matched = matched | phrase_runs(q.values("phrase"))
        ranked = bool(q.words) and not (q.similar or q.recommend)
        found = full if ranked else None if q.similar or q.recommend else len(order)
        if limit is not None:
            order = order[:limit]
        return SearchResult(indices=order, total=n, matched_terms=matched, errors=q.errors,
                            full=min(full, len(order)) if ranked else None, widened=widened, found=found,
                            read_as=read_as, sorted=not (ranked or q.similar or q.recommend))

    def _by_words(self, q: Query, mask: np.ndarray | None,
                  anns: Mapping[str, Annotation]) -> tuple[np.ndarray, set[str], int, list[str], list[str]]:
        """The papers holding the query's words, ranked: their order, the terms matched, how many hold
        every word, what was counted besides the words, and the words read as others."""
        vocabulary = self._core.index.vocabulary
        # a word no paper holds, read as the one it stands for ("reinforcment"), counts as that word
        read = {w: r for w in content_words(q.words) if w != q.typing and (r := vocabulary.read_as(w))}
        words = [read.get(w, w) for w in q.words] if read else q.words
        table = self.acronym_table()  # (learned first: an acronym's papers apart come with the compounds')
        known = self._acronym_words(q)  # (once a search: the compounds and the notes read it)
        apart = self._apart(q, known)
        extra = self._annotation_matches(words, anns)
        acronym_terms: set[str] = set()
        learned = self._acronyms[1] if self._acronyms is not None else acronyms.Learned(table, {}, {})
        spelled = _spelled_out(self._core.index, learned, words, extra, acronym_terms, self._meant_memo, q.typing)
        ranking = self._core.index.rank(words, mask, extra=extra, typing=q.typing, apart=apart, either=q.either)
        ranking.matched_terms |= acronym_terms  # (highlighted too: "LLM" where "large language model" was typed)
        widened = [*(f"{acronyms.shown(w, a, learned.written)} (also {' '.join(table[a])})" for w, a in known.items()),
                   *spelled, *widened_notes({w: hit for w, hit in apart.items() if w not in known}, vocabulary)]
        full = ranking.full
        order = self._together_first(words, q.either, ranking.order, ranking.score, full)
        # store.search.quick.weaker_kept's rule, in numpy (a one-letter query matches most of a 300k library)
        assert ranking.present is not None  # rank() sets it
        rest = ranking.present[full:]
        kept = np.flatnonzero(rest * 2 > ranking.need) if full else np.arange(len(rest))
        order = np.concatenate([order[:full], order[full:][kept[:WEAKER_SHOWN]]])
        return order, ranking.matched_terms, full, widened, [f"{w} → {r}" for w, r in read.items()]

    def _together_first(self, words: list[str], either: list[list[str]], order: np.ndarray, keys: np.ndarray,
                        full: int) -> np.ndarray:
        """``order`` with the first papers of its result set (``full`` long) reordered by how close together
        each holds the query's words (store.search.proximity; an OR group's words stand for one another)."""
        top = min(full, proximity.PROXIMITY_DEPTH)
        groups = proximity.word_groups(words, self._core.index.vocabulary.forms, either)
        if top < 2 or len(groups) < 2:
            return order
        spans = [proximity.min_span(self._tokens(int(i)), groups) for i in order[:top]]
        if not any(spans):
            return order
        new = proximity.reordered(keys[:top].tolist(), spans, len(groups))
        order = order.copy()
        order[:top] = order[:top][new]
        return order

    def _tokens(self, doc: int) -> list[list[str]]:
        """A paper's words as proximity reads them, kept: typing on reads the same first papers again."""
        hit = self._span_tokens.get(doc)
        if hit is None:
            if len(self._span_tokens) >= SPAN_TOKENS_KEPT:
                self._span_tokens = {}
            fields = self._core.corpus.papers.fields(doc, proximity.TEXT_FIELDS)
            hit = self._span_tokens[doc] = proximity.tokens_of(proximity.texts_of(fields))
        return hit

    def _ordering(self, q: Query) -> np.ndarray:
        """Papers ordered by similarity to one paper, or by a recommendation model."""
        if q.similar:
            try:
                doc = self._core.corpus.index_of(self._core.paper(q.similar).id)
            except PapersiftError as exc:
                q.errors.append(str(exc))
                return np.arange(0)
            assert doc is not None  # the id of a paper of the corpus
            # (the 200 nearest picked, not all the papers sorted: ~25 ms of a 300k lookup)
            return np.array([i for i, _ in self._discovery.nearest(doc, 200)], dtype=np.int64)
        try:
            if q.recommend == "stars":   # the triage queue: its order as positions, explained when the reader asks
                return self._discovery.queue_order()
            recs = self._discovery.recommend(q.recommend, limit=len(self._core.corpus), explain=False)
        except PapersiftError as exc:
            q.errors.append(str(exc))
            return np.arange(0)
        return np.array([self._core.corpus.index_of(r.paper.id) for r in recs], dtype=np.int64)

    def _sorted(self, order: np.ndarray, sort: str, anns: Mapping[str, Annotation]) -> np.ndarray:
        if sort == "import" or not len(order):
            return order
        if sort == "random":
            rng = np.random.default_rng(self._shuffle_seed)
            return rng.permutation(order)
        if sort == "recommended":  # the triage queue's order (marked papers last); unchanged when nothing is marked
            ranked = self._ordering(Query(recommend="stars"))
            if not len(ranked):
                return order
            rank = np.full(len(self._core.corpus), len(self._core.corpus), dtype=np.int64)
            rank[ranked] = np.arange(len(ranked))
            return order[np.argsort(rank[order], kind="stable")]
        if sort == "team-stars":  # every member's stars summed, most first
            totals = np.zeros(len(self._core.corpus), dtype=np.int64)
            for given in self._core.member_marks.values():
                for pid, a in given.items():
                    if a.star and (i := self._core.corpus.index_of(pid)) is not None:
                        totals[i] += a.star
            return order[np.argsort(-totals[order], kind="stable")]
        papers = self._core.corpus.papers
        default = Annotation("")
        shown = [anns.get(papers[i].id, default) for i in order]
        if sort == "status":
            keys = [_STATUS_ORDER[a.status] for a in shown]
        elif sort == "star":
            keys = [-a.star for a in shown]
        else:
            raise PapersiftError(f"unknown sort {sort!r}; use one of: {', '.join(SORTS)}")
        return order[np.argsort(np.asarray(keys), kind="stable")]


def _spelled_out(index: SearchIndex, learned: acronyms.Learned, words: list[str],
                 extra: dict[str, tuple[np.ndarray, np.ndarray]], terms: set[str],
                 meant_memo: dict[str, tuple[object, np.ndarray]], typing: str | None = None) -> list[str]:
    """Where the query spells out an acronym the papers define (large language models), the
    papers holding the acronym (LLM, LLMs) hold each of those words too, each scored a tenth of
    the acronym's score (``ACRONYM_SHARE``, chosen on ICLR's known-item queries): added to
    ``extra``. A paper that means something else by it (:func:`_meant_otherwise`, kept per index
    in ``meant_memo``) is left out.
    (As any words typed, they also find the papers holding them apart.) Returns what the header
    says ("large language models (also LLM)"); the acronym's terms found are added to ``terms``."""
    notes = []
    table, written = learned.table, learned.written
    # (a misspelled word read as the one it stands for: "reinforcment learning" spells out RL too)
    read = [w if w == typing else index.vocabulary.read_as(w) or w for w in words]
    for start, end, acronym in acronyms.spelled_runs(read, table):
        score, _, counted = index.word_scores(acronym, terms)
        if acronym in learned.others:
            hit = meant_memo.get(acronym)
            if hit is None or hit[0] is not index:
                hit = meant_memo[acronym] = (index, _meant_otherwise(index, table[acronym], learned.others[acronym]))
            counted &= ~hit[1]
        docs = np.flatnonzero(counted)
        if not len(docs):
            continue
        weights = score[docs] * np.float32(ACRONYM_SHARE)
        for word in words[start:end]:
            if word in extra:  # (a tag or note match too: the better of the two)
                d, w = extra[word]
                both = np.concatenate([d, docs])
                best = np.concatenate([w, weights])
                order = np.lexsort((-best, both))
                first = np.concatenate([[True], both[order][1:] != both[order][:-1]])
                extra[word] = (both[order][first], best[order][first])
            else:
                extra[word] = (docs, weights)
        notes.append(f"{' '.join(read[start:end])} (also {acronyms.shown(acronym, acronym, written)})")  # (as read)
    return notes


def _meant_otherwise(index: SearchIndex, meaning: tuple[str, ...], others: list[tuple[str, ...]]) -> np.ndarray:
    """The papers that hold every word of another meaning of an acronym ("foundation models" for
    FM) and not every word of the library's ("flow matching"): their FM is not the one asked
    for. (Read from the index, as no paper's text is: a paper's own definition is not at hand.)"""
    def holding(expansion: tuple[str, ...]) -> np.ndarray:
        held = np.ones(index.n_docs, dtype=bool)
        for word in expansion:
            if word not in acronyms.BETWEEN:
                held &= index.word_scores(word)[2]
        return held

    other = np.zeros(index.n_docs, dtype=bool)
    for expansion in others:
        other |= holding(expansion)
    return other & ~holding(meaning) if other.any() else other
