"""More like this, recommendations and topics: a part of the Library.

The model (:class:`store.discovery.similar.Similarity`) is built once, on first use, under a
lock, so the app can build it in a background worker while the user works.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Callable, NamedTuple

import numpy as np

from store.errors import PapersiftError
from store.library.screening import Screening
from store.models import Paper
from store.tags import normalize_tag

if TYPE_CHECKING:
    from store.discovery.lookups import LookupHelper
    from store.discovery.similar import Similarity, Stop
    from store.library.cores import DiscoveryCore, ScreeningCore
    from store.library.stats import LibraryStats
    from store.records import Annotation


EXPLAINED = 200  # recommendations that carry their "because" terms and nearest marked papers


class Recommendation(NamedTuple):
    """One recommended paper: its score, the terms that weigh most for it, and the ids of the
    marked papers it is closest to ("like ★ TraceML, ★ ScrapeBench")."""

    paper: Paper
    score: float
    because: list[str]
    like: list[str]


class Explained(Mapping[str, Recommendation]):
    """A ranked list's recommendations by paper id, each explained when first asked for (the
    reader shows one paper at a time: explaining the 200 first of every re-rank took most of it)."""

    def __init__(self, discovery: Discovery, rows: np.ndarray, scores: np.ndarray, wanted: np.ndarray) -> None:
        self._discovery = discovery
        self._rows = rows
        self._listed = np.zeros(len(scores), dtype=bool)
        self._listed[rows] = True
        self._scores = scores
        self._wanted = wanted
        weights = discovery.screening.term_weights()
        self._weights = np.zeros(0) if weights is None else weights.copy()
        self._done: dict[str, Recommendation] = {}

    def __getitem__(self, pid: str) -> Recommendation:
        if pid not in self._done:
            row = self._discovery._core.corpus.index_of(pid)
            if row is None or row >= len(self._listed) or not self._listed[row]:
                raise KeyError(pid)
            because, like = self._discovery.explain(row, self._weights, self._wanted)
            self._done[pid] = Recommendation(self._discovery._core.corpus.papers[row], self.score(row), because, like)
        return self._done[pid]

    def score(self, row: int) -> float:
        """The paper's score from 0 to 1 (the model's odds as a share: which papers it favours,
        not a calibrated chance that a paper is wanted)."""
        return round(float(1.0 / (1.0 + np.exp(-self._scores[row]))), 4)

    def __iter__(self) -> Iterator[str]:
        papers = self._discovery._core.corpus.papers
        return (papers[int(i)].id for i in self._rows)

    def __len__(self) -> int:
        return len(self._rows)


class Discovery:
    """similar(), recommend(), topics() and topic_summary(): the part of :class:`~store.library.Library`
    that finds papers by what they are like. It owns the model (built once, behind its lock) and
    the topics; the core drops them (:meth:`invalidate`) when its corpus changes."""

    def __init__(self, core: DiscoveryCore, counts: LibraryStats) -> None:
        self._core = core
        self._counts = counts  # (which papers are triaged, for the topics' progress)
        self._similarity: Similarity | None = None
        self._similarity_lock = threading.Lock()
        self._topics: tuple[np.ndarray, dict[int, str]] | None = None
        self._topics_lock = threading.Lock()
        self._shared: tuple[tuple[int, ...], set[int]] | None = None  # (wanted rows, the terms they share)
        # paper id -> its Recommendation, explained (see recommend): the list shown's, for the reader
        self.last_recommendations: Mapping[str, Recommendation] = {}
        self.screening = Screening(core, lambda: self.similarity)  # the triage queue (rec:stars, the recommended sort)
        self._helper: LookupHelper | None = None  # a process answering nearest() (lookups_elsewhere)
        self._helper_lock = threading.Lock()

    def invalidate(self) -> None:
        """Drop the model and the topics (the corpus changed), and the helper serving the model."""
        self._similarity = None
        self._topics = None
        self._shared = None
        self.screening.invalidate()
        self.close()

    def close(self) -> None:
        """End the lookup helper, if one runs (the library is closing, or its corpus changed)."""
        with self._helper_lock:
            helper, self._helper = self._helper, None
        if helper is not None:
            helper.close()

    def lookups_elsewhere(self) -> bool:
        """Have a helper process (store.discovery.lookups) answer :meth:`nearest`, once the model is
        loaded from its file; True when one serves it. A big library's app does: its lookups run
        on the other core while it draws, and the latent vectors stay out of its process."""
        from store.discovery.lookups import LookupHelper
        sim = self._similarity
        if sim is None or sim.file is None:
            return False  # (built here, not loaded: no file the helper could load)
        with self._helper_lock:
            if self._helper is None and self._similarity is sim:
                self._helper = LookupHelper(self._core.similar_path, self._core.corpus.generation,
                                            len(self._core.corpus))
            return self._helper is not None

    @property
    def helper_pid(self) -> int | None:
        """The lookup helper's process id (None: lookups run in this process)."""
        helper = self._helper
        return helper.pid if helper is not None else None

    def nearest(self, idx: int, limit: int, stop: Stop = None) -> list[tuple[int, float]]:
        """The ``limit`` papers most like paper ``idx`` (corpus indices and scores, best first),
        from the lookup helper if one runs, else here (also when the helper cannot answer: it is
        ended, and lookups stay here). ``stop``: see Similarity.similar (LookupStopped)."""
        from store.discovery.lookups import HelperGone
        from store.discovery.similar import LookupStopped
        helper = self._helper
        if helper is not None:
            try:
                return helper.similar(idx, limit, stop)
            except HelperGone:
                with self._helper_lock:
                    if self._helper is helper:
                        self._helper = None
                sim = self._similarity
                if sim is None:  # (the corpus changed meanwhile, which ended the helper: not a model to build here)
                    raise LookupStopped from None
                return sim.similar(idx, limit, stop)
        return self.similarity.similar(idx, limit, stop)

    @property
    def similarity(self) -> Similarity:
        """Paper vectors for more-like-this, recommendations and topics (built once, on first use).

        Thread-safe: the app builds it in a background worker while the user works;
        a second caller waits for that build instead of starting another.
        """
        if self._similarity is None:
            with self._similarity_lock:
                if self._similarity is None:
                    self._similarity = self._load_similarity_cache() or self._build_similarity()
        return self._similarity

    def _load_similarity_cache(self) -> Similarity | None:
        from store.discovery.similar import Similarity
        return Similarity.load(self._core.similar_path, self._core.corpus.generation)

    def _build_similarity(self) -> Similarity:
        """Build the model, or bring the cached one up to the corpus, and cache it beside the corpus
        (best effort: a cache is never precious)."""
        from store.files.atomic import atomic_write_stream
        from store.discovery.similar import Similarity

        from store.discovery.fold import folded

        ids = self._core.corpus.ids()
        # The model of the corpus before an import, with the papers it added folded in, if the
        # cache holds one (store.discovery.fold); else the SVD.
        sim = folded(self._core.similar_path, self._core.index, ids) or Similarity(self._core.index)
        sim.ids = ids
        try:
            atomic_write_stream(self._core.similar_path, lambda handle: sim.save(handle, self._core.corpus.generation),
                                durable=False)
        except OSError:
            pass
        return sim

    def build_similarity_elsewhere(self, run: Callable[[], object]) -> None:
        """Take the model from its cache, else have ``run`` build that cache in another process
        (``python -m store.prepare``) and take it from there.

        The model's lock is held throughout, so whatever needs the model meanwhile (the topic
        browser, more like this, a second call of this) waits for that one build instead of
        starting another on the same cores: at 30k papers a build in the app beside the helper's
        made the topic browser take 20 s. If the helper fails, the first use builds it here.
        """
        with self._similarity_lock:
            if self._similarity is None:
                self._similarity = self._load_similarity_cache()
                if self._similarity is None:
                    run()
                    self._similarity = self._load_similarity_cache()

    def similarity_cache_fresh(self) -> bool:
        """Whether a model for this corpus is cached on disk (cheap: the arrays are not read)."""
        from store.discovery.similar import Similarity
        return Similarity.cache_matches(self._core.similar_path, self._core.corpus.generation)

    def load_similarity_cache(self) -> bool:
        """Take the model from its cache if the cache matches the corpus; True when it did."""
        if self._similarity is None:
            cached = self._load_similarity_cache()
            with self._similarity_lock:
                if self._similarity is None and cached is not None:
                    self._similarity = cached
        return self._similarity is not None

    def prepare_similarity_cache(self) -> bool:
        """Make sure the model's cache is on disk for this corpus; True when it already was.

        ``python -m store.prepare FOLDER`` runs this in a separate process, so the
        app's own process never holds the SVD's working memory or the GIL for it.
        """
        if self._load_similarity_cache() is not None:
            return True
        self._build_similarity()
        return False

    @property
    def similarity_ready(self) -> bool:
        return self._similarity is not None

    def similar(self, key: str, limit: int = 10) -> list[tuple[Paper, float]]:
        """Papers most like the given one, best first (the model's ranking), each with its
        similarity to it from 0 to 1 (:meth:`Similarity.closeness`: what a person can read)."""
        idx = self._core.corpus.index_of(self._core.paper(key).id)
        assert idx is not None  # the id of a paper of the corpus
        near = [i for i, _ in self.nearest(idx, limit)]
        close: list[float] = self.similarity.closeness(idx, np.array(near, dtype=np.int64)).tolist() if near else []
        return [(self._core.corpus.papers[i], round(float(c), 4)) for i, c in zip(near, close)]

    def recommend(self, tag: str | None = None, limit: int = 20, explain: bool = True) -> list[Recommendation]:
        """Unread papers ranked by the triage queue (no ``tag``: every mark teaches it, see
        :mod:`store.discovery.queue`), or by what the user tagged ``tag``.

        For a tag the model leans on the tagged papers' centroid while they are few and on a
        classifier as they grow (see :mod:`store.discovery.recommend`); a ★★★ counts more than a
        ★, skipped papers count against. Each recommendation comes with the terms that weigh most
        for it and the marked papers it is closest to (the queue's: with ``explain``, at once, else
        when :attr:`last_recommendations` is asked for one; a tag's: the first EXPLAINED).
        """
        if not tag:
            return self._from_queue(limit, explain)
        out = _by_tag(self._core, lambda: self.similarity, normalize_tag(tag), limit)
        # Explained in the reader while the list is this recommendation's (a long list: the first
        # EXPLAINED only, as terms and neighbours cost a sparse row each).
        self.last_recommendations = {r.paper.id: r for r in out[:EXPLAINED]}
        return out

    def queue_order(self) -> np.ndarray:
        """The unmarked papers' positions in the triage queue's order (a list's ordering: each is
        explained when :attr:`last_recommendations` is asked for it). Raises PapersiftError
        before any paper is marked."""
        rows, scores, wanted = self.screening.ranked()
        if len(rows) == len(scores):
            raise PapersiftError("nothing to learn from yet: mark a paper (read, to-read, skip, a star or a tag)")
        self.last_recommendations = Explained(self, rows, scores, wanted)
        return rows

    def _from_queue(self, limit: int, explain: bool) -> list[Recommendation]:
        """The triage queue's order, the first ``limit`` papers (``explain``: explained at once)."""
        rows = self.queue_order()
        explained = self.last_recommendations
        assert isinstance(explained, Explained)
        papers = self._core.corpus.papers
        return [explained[papers[int(i)].id] if explain and n < EXPLAINED else
                Recommendation(papers[int(i)], explained.score(int(i)), [], []) for n, i in enumerate(rows[:limit])]

    def most_likely(self, rows: np.ndarray) -> int | None:
        """Of the papers at ``rows`` (a list's), the unmarked one the triage queue ranks first;
        None when none is unmarked. Raises PapersiftError before any paper is marked."""
        scores, marks = self.screening.scores()
        if not marks:
            raise PapersiftError("nothing to learn from yet: mark a paper (read, to-read, skip, a star or a tag)")
        rows = np.asarray(rows, dtype=np.int64)
        rows = rows[[int(r) not in marks for r in rows]] if len(rows) else rows
        return int(rows[np.argmax(scores[rows])]) if len(rows) else None

    def explain(self, row: int, weights: np.ndarray, wanted: np.ndarray) -> tuple[list[str], list[str]]:
        """Why paper ``row`` ranks where it does: the terms that weigh most for it under ``weights``
        and the ids of the ``wanted`` papers it is closest to."""
        from store.discovery.recommend import closest_marked
        from store.discovery.reasons import explain
        from store.discovery.content_words import as_written
        sim = self.similarity
        paper = self._core.corpus.papers[row]
        text = "\n".join([paper.title, *paper.keywords, paper.abstract])
        because = as_written(explain(sim.matrix, weights, row, self._core.index.vocab, shared=self._shared_terms(wanted),
                                     text=text), text) if len(weights) else []
        like = closest_marked(sim.matrix, sim.latent, row, wanted) if len(wanted) else []
        return because, [self._core.corpus.papers[j].id for j in like]

    def _shared_terms(self, wanted: np.ndarray) -> set[int] | None:
        """The terms two or more of the ``wanted`` papers hold (None with fewer than two), kept
        for the same papers: every row on screen is explained against them."""
        key = tuple(int(i) for i in wanted)
        if len(key) < 2:
            return None
        kept = self._shared
        if kept is None or kept[0] != key:
            counts = np.asarray((self.similarity.matrix[np.asarray(key)] > 0).sum(axis=0)).ravel()
            kept = self._shared = (key, set(np.flatnonzero(counts >= 2).tolist()))
        return kept[1]

    def topics(self, k: int | None = None) -> tuple[np.ndarray, dict[int, str]]:
        """A topic number per paper and a label per topic (spherical k-means on the latent vectors)."""
        if k is not None and not 2 <= k <= max(2, len(self._core.corpus)):
            raise PapersiftError(f"the number of topics must be between 2 and the number of papers "
                                 f"({len(self._core.corpus):,}); got {k}")
        topics = self._topics
        if topics is None or k is not None:
            # The topic browser, the dashboard and a topic: search each ask from a worker of their own
            # (b, Esc, b starts a second browser while the first one's worker runs on): one builds.
            with self._topics_lock:
                topics = self._topics
                if topics is None or k is not None:
                    from store.discovery.clusters import kmeans
                    from store.discovery.reasons import topic_labels
                    sim = self.similarity
                    n_topics = k or max(2, min(50, int(round(np.sqrt(len(self._core.corpus) / 2)))))
                    vectors = sim.latent if sim.latent is not None else sim.matrix.toarray()
                    labels = kmeans(vectors, n_topics)
                    papers = self._core.corpus.papers
                    topics = self._topics = (labels, topic_labels(
                        sim.matrix, labels, self._core.index.vocab,
                        texts=lambda rows: [papers.fields(int(i), ("abstract",))[0] for i in rows]))
        return topics

    def topic_summary(self, k: int | None = None) -> list[dict[str, Any]]:
        """One row per topic, largest first: number, label, papers and how many are triaged.

        What the topic browser, the dashboard and ``papersift topics`` show.
        """
        labels, names = self.topics(k)
        counts = np.bincount(labels, minlength=max(names) + 1 if names else 0)
        triaged = np.bincount(labels[self._counts.triaged_mask()], minlength=len(counts))
        rows: list[dict[str, Any]]
        rows = [{"topic": int(t), "label": name, "papers": int(counts[t]), "triaged": int(triaged[t])}
                for t, name in names.items()]
        return sorted(rows, key=lambda r: (-r["papers"], r["topic"]))


def _by_tag(core: DiscoveryCore, similarity: Callable[[], Similarity], tag: str, limit: int) -> list[Recommendation]:
    """Unread papers ranked by what the user tagged ``tag`` (see :meth:`Discovery.recommend`), the
    first EXPLAINED explained."""
    from store.discovery.content_words import as_written
    from store.discovery.recommend import blended_scores, closest_marked
    from store.discovery.reasons import explain as terms_for

    anns = core.annotations  # one snapshot (a worker thread may run this while the UI triages)
    pos, weights, skipped = _tag_marks(core, anns, tag)
    rng = np.random.default_rng(0)
    others = np.setdiff1d(np.arange(len(core.corpus)), pos)
    sample = rng.choice(others, size=min(len(others), max(200, 10 * len(pos))), replace=False) if len(others) else others
    sim = similarity()
    scores, w = blended_scores(sim.matrix, sim.latent, pos, weights, skipped, sample)
    exclude = set(pos.tolist())
    papers = core.corpus.papers
    candidates = [i for i in np.argsort(-scores) if int(i) not in exclude and (
                  anns.get(papers[int(i)].id) is None or anns[papers[int(i)].id].status == "unread")]
    out = []
    for n, i in enumerate(candidates[:limit]):
        if n >= EXPLAINED and limit > EXPLAINED:  # an ordering of the whole library: the head explained
            out.append(Recommendation(papers[int(i)], float(scores[i]), [], []))
            continue
        like = [papers[j].id for j in closest_marked(sim.matrix, sim.latent, int(i), pos)]
        paper = papers[int(i)]
        text = f"{paper.title}\n{paper.abstract}"
        out.append(Recommendation(paper, float(scores[i]), as_written(
            terms_for(sim.matrix, w, int(i), core.index.vocab, text=text), text), like))
    return out


def _tag_marks(core: ScreeningCore, anns: Mapping[str, Annotation], tag: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The positions of the papers tagged ``tag`` with their weights (stars count), and those of
    the skipped papers not tagged so."""
    from store.discovery.recommend import star_weight

    index_of = core.corpus.index_of
    marked = {index_of(pid): star_weight(a.star, a.status) for pid, a in anns.items() if tag in a.tags}
    marked.pop(None, None)
    if not marked:
        raise PapersiftError(f"nothing to learn from: no tag {tag!r} yet")
    pos = np.array(sorted(i for i in marked if i is not None), dtype=np.int64)  # (None was popped)
    weights = np.array([marked[i] for i in pos], dtype=np.float64)
    skipped = np.array(sorted(i for i in (index_of(pid) for pid, a in anns.items() if a.status == "skipped")
                              if i is not None and i not in marked), dtype=np.int64)
    return pos, weights, skipped
