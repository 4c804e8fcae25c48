"""The triage queue of a library: the recommended order, learned again from every mark, and how
far down it is worth reading — a part of the Library.

It keeps one :class:`store.discovery.queue.Queue` over the similarity model's matrix (the same
TF-IDF the search index gives more-like-this: nothing more to build or cache), reads the marks
from the annotations each time it ranks (a re-rank after one more mark is a warm-started solve),
and explains a paper's place only when asked (the reader shows one paper; the list needs none).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable, Mapping, NamedTuple

import numpy as np

from store.discovery.queue import Queue, mark_of, stop_estimate

if TYPE_CHECKING:
    from store.discovery.similar import Similarity
    from store.library.cores import ScreeningCore
    from store.records import Annotation


RECALL = 0.95   # the share of the wanted papers the stopping rule asks about
ALPHA = 0.05    # its risk: the test's p-value under which "95 % found" is said
FEW = 50        # marks under which no estimate is said (a bound from a few marks says little)


class Estimate(NamedTuple):
    """How far the reader has got: wanted papers found, at most how many are likely still among
    the unmarked ones (the stopping test's bound, see :func:`store.discovery.queue.stop_estimate`),
    how many are unmarked (``unread``: a starred or tagged paper left unread is marked, though the
    status counts hold it as unread), whether the stopping rule says 95 % are found, and how many
    papers are marked."""

    found: int
    most_left: int
    unread: int
    stop: bool
    marked: int

    def words(self) -> str:
        """In plain words, for the header and the dashboard."""
        if self.marked < FEW <= self.marked + self.unread:  # (a library too small to reach FEW: said as it is)
            return f"{self.found:,} wanted found; mark {FEW - self.marked} more to estimate how many are left"
        if self.most_left >= self.unread > 0 and not self.stop:  # (a bound of every unread paper says nothing)
            return (f"{self.found:,} wanted found; too few read to bound how many of the {self.unread:,} unmarked "
                    "are wanted")
        head = (f"{self.found:,} wanted found; likely at most {self.most_left:,} more among {self.unread:,} unmarked"
                if self.most_left else f"{self.found:,} wanted found; likely none left among {self.unread:,} unmarked")
        return head + (f" · {RECALL:.0%} found by the stopping test: you may stop" if self.stop else "")


def marks_of(annotations: Mapping[str, Annotation], index_of: Callable[[str], int | None]) -> dict[int, tuple[bool, float]]:
    """What each marked paper says to the queue, by corpus position (see :func:`mark_of`)."""
    out: dict[int, tuple[bool, float]] = {}
    for pid, a in annotations.items():
        said = mark_of(a.status, a.star, bool(a.tags))
        if said is not None and (i := index_of(pid)) is not None:
            out[i] = said
    return out


class Screening:
    """ranked(), explain() and estimate(): the library's triage queue.

    Args:
        core: the corpus and the annotations.
        similarity: the similarity model (built on first use by the discovery part).
    """

    def __init__(self, core: ScreeningCore, similarity: Callable[[], Similarity]) -> None:
        self._core = core
        self._similarity = similarity
        self._queue: Queue | None = None
        self._lock = threading.Lock()  # one re-rank at a time (the app's workers and its key path)
        self._last: tuple[dict[int, tuple[bool, float]], np.ndarray] | None = None  # marks and the scores they gave

    def invalidate(self) -> None:
        """The corpus changed: paper positions moved, the queue starts anew."""
        with self._lock:
            self._queue = None
            self._last = None

    def scores(self) -> tuple[np.ndarray, dict[int, tuple[bool, float]]]:
        """Every paper's score from the marks now (the last scores when no mark changed), and
        those marks."""
        core = self._core
        with self._lock:
            marks = marks_of(core.annotations, core.corpus.index_of)
            if self._last is not None and self._last[0] == marks:
                return self._last[1], marks
            if self._queue is None:
                self._queue = Queue(self._similarity().matrix)
            self._queue.set_marks(marks)
            scores = self._queue.scores()
            self._last = (marks, scores)
            return scores, marks

    def ranked(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The unmarked papers' positions, most likely wanted first; every paper's score; and the
        positions of the papers marked wanted (sorted), all from one reading of the marks."""
        scores, marks = self.scores()
        unmarked = np.ones(len(scores), dtype=bool)
        unmarked[np.fromiter(marks, dtype=np.int64, count=len(marks))] = False
        rows = np.flatnonzero(unmarked)
        wanted = np.array(sorted(i for i, (w, _) in marks.items() if w), dtype=np.int64)
        return rows[np.argsort(-scores[rows], kind="stable")], scores, wanted

    def term_weights(self) -> np.ndarray | None:
        """The last fitted model's weight per term (None before a model was fitted)."""
        queue = self._queue
        return None if queue is None or not queue.marks else queue.term_weights

    def estimate(self) -> Estimate | None:
        """Wanted papers found and expected still unread, by the stopping rule of
        :func:`store.discovery.queue.stop_estimate`, the marks taken in the order they were made
        (their last change); None before any paper is marked wanted."""
        core = self._core
        marked = []
        for pid, a in core.annotations.items():
            said = mark_of(a.status, a.star, bool(a.tags))
            if said is not None and core.corpus.index_of(pid) is not None:
                marked.append((a.updated or a.created, said[0]))
        marked.sort(key=lambda m: m[0])
        labels = [w for _, w in marked]
        if not any(labels):
            return None
        most_left, stop = stop_estimate(labels, len(core.corpus), RECALL, ALPHA)
        unread = len(core.corpus) - len(labels)
        return Estimate(sum(labels), unread if most_left is None else most_left, unread, stop, len(labels))
