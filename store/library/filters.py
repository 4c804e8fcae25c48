"""The search filters: status:, star:, tag:, topic:, id:, author:, kw:, file:, venue:, year: and
"phrases", each narrowing a mask of the papers — a part of the Library's search.

:class:`Filters` reads the corpus and annotations of a :class:`~store.library.core.LibraryCore`,
asks :class:`~store.library.discovery.Discovery` for topic:, and owns the tables its filters build
(labels, venues and years, the phrase search's folded texts); the search drops them when the
corpus changes; the arrival filters (new:, batch:, added:, updated:) are
:mod:`store.library.arrivals`. A new filter: its syntax in :mod:`store.search.query`, its mask here.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

import numpy as np

from store.library.arrivals import ArrivalFilters
from store.paper_lines import SOURCE_FILE
from store.errors import PapersiftError
from store.records import Annotation
from store.search.phrase_search import PhraseSearch, fold_phrase
from store.team.members import no_member
from store.team.view import member_names, split_papers
from store.search.query import ARRIVAL_KINDS, TEAM_KINDS, Filter, Query
from store.text import fold_name
from store.search.suggest import no_match

if TYPE_CHECKING:
    from store.library.cores import FiltersCore
    from store.library.discovery import Discovery


def _narrow(mask: np.ndarray, q: Query, kind: str, matching: Callable[[str], np.ndarray]) -> None:
    """Keep in ``mask`` the papers ``matching`` every part ``kind``'s filters want and none they leave out."""
    for part in q.values(kind):
        mask &= matching(part)
    for part in q.values(kind, negated=True):
        mask &= ~matching(part)


class Filters:
    """The masks of a query's filters, and the tables they are read from."""

    def __init__(self, core: FiltersCore, discovery: Discovery) -> None:
        self._core = core
        self._discovery = discovery  # (the topic: filter)
        self._tables_lock = threading.Lock()
        self.phrases = PhraseSearch(core)  # "phrase" filters (and the folded texts they keep)
        self._label_index: dict[str, tuple[list[str], list[np.ndarray]]] = {}  # author:, kw:, file: filters
        self._venue_index: tuple[list[str], np.ndarray, np.ndarray] | None = None  # venue: and year: filters
        self.arrivals = ArrivalFilters(core, self._tables_lock)  # new:, batch:, added:, updated:

    def invalidate(self) -> None:
        """Drop the tables (the corpus changed)."""
        self.phrases.invalidate()
        self._label_index = {}
        self._venue_index = None
        self.arrivals.invalidate()

    def _labels(self, field: str) -> tuple[list[str], list[np.ndarray]]:
        """The distinct labels of a field, folded (case and accents dropped), and for each the
        papers carrying it: for ``"authors"`` the words of author names, for ``"keywords"`` whole
        keywords and areas. An author: or kw: filter scans these labels, not every paper: ~200 ms a
        keystroke at 300k papers when it looked at each paper's names."""
        tables = self._label_index
        if field not in tables:
            with self._tables_lock:  # one build, however many keystrokes' workers ask (as PhraseSearch builds its texts)
                tables = self._label_index
                if field not in tables:
                    tables[field] = self._source_files() if field == "files" else self._label_table(field)
        return tables[field]

    def _label_table(self, field: str) -> tuple[list[str], list[np.ndarray]]:
        """:meth:`_labels` of ``"authors"`` or ``"keywords"``, built from every paper."""
        papers_of: dict[str, list[int]] = {}
        columns = self._core.corpus.papers.column(field)
        if field == "keywords":  # kw: finds the area too
            columns = [[*ks, area] if area else ks for ks, area in zip(columns, self._core.corpus.papers.column("area"))]
        for i, values in enumerate(columns):
            for value in values:
                folded = fold_name(value)
                for label in (folded.split() if field == "authors" else (folded,)):  # kept collapsed
                    papers_of.setdefault(label, []).append(i)
        return list(papers_of), [np.asarray(v, dtype=np.int64) for v in papers_of.values()]

    def tables_ready(self, q: Query) -> bool:
        """Whether the query's author:, kw:, file:, venue: and year: filters find their tables built.
        The first such filter builds its table from every paper (0.6 s for file: at 300k papers),
        so the app runs that search off the UI thread; later ones take microseconds."""
        wanted = {"authors": "author" in q.kinds, "keywords": "kw" in q.kinds, "files": "file" in q.kinds}
        if any(used and field not in self._label_index for field, used in wanted.items()):
            return False
        return q.kinds.isdisjoint(("venue", "year")) or self._venue_index is not None

    def _source_files(self) -> tuple[list[str], list[np.ndarray]]:
        """The source files' names (casefolded) and the papers read from each, for file: (a
        duplicate across files, or a merged near-duplicate, is in each of its files). The names are
        found in the corpus file's bytes, as stats finds them: no paper is parsed for them."""
        import orjson
        papers_of: dict[str, set[int]] = {}
        for i, raw in self._core.corpus.papers.scan(SOURCE_FILE):
            papers_of.setdefault(orjson.loads(raw).casefold(), set()).add(i)
        for i, paper in self._core.corpus.papers.parsed_items():
            for source in paper.sources:
                papers_of.setdefault(source.file.casefold(), set()).add(i)
        return list(papers_of), [np.fromiter(v, dtype=np.int64, count=len(v)) for v in papers_of.values()]

    def _by_label(self, field: str, part: str) -> np.ndarray:
        """A mask of the papers with a label of ``field`` (see :meth:`_labels`) containing ``part``;
        for ``"authors"``, a name of several words ("chelsea finn", quoted) is one author's."""
        if field == "authors" and " " in part:
            return self._by_full_name(part)
        labels, papers = self._labels(field)
        hit = np.zeros(len(self._core.corpus), dtype=bool)
        for label, where in zip(labels, papers):
            if part in label:
                hit[where] = True
        return hit

    def _by_full_name(self, part: str) -> np.ndarray:
        """The papers one of whose authors' names holds ``part``, words in order: the papers holding
        each word (the label table), then those papers' names read."""
        hit: np.ndarray = np.logical_and.reduce([self._by_label("authors", word) for word in part.split()])
        papers = self._core.corpus.papers
        for i in np.flatnonzero(hit):
            hit[i] = any(part in " ".join(fold_name(name).split()) for name in papers[int(i)].authors)
        return hit

    def _venues_and_years(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The distinct venues (casefolded), each paper's venue as a position in them (-1: none),
        and each paper's year (0: none): a venue: or year: filter compares arrays, not papers."""
        table = self._venue_index
        if table is None:
            with self._tables_lock:  # one build, however many keystrokes' workers ask (as PhraseSearch builds its texts)
                table = self._venue_index
                if table is None:
                    names: dict[str, int] = {}
                    codes = np.full(len(self._core.corpus), -1, dtype=np.int32)
                    years = np.zeros(len(self._core.corpus), dtype=np.int32)
                    papers = self._core.corpus.papers
                    for i, (venue, year) in enumerate(zip(papers.column("venue"), papers.column("year"))):
                        if venue:
                            codes[i] = names.setdefault(venue.casefold(), len(names))
                        if year.isdigit():
                            years[i] = int(year)
                    table = self._venue_index = (list(names), codes, years)
        return table

    def _by_venue(self, part: str) -> np.ndarray:
        """A mask of the papers whose venue contains ``part`` (casefolded)."""
        names, codes, _ = self._venues_and_years()
        return np.isin(codes, [k for k, name in enumerate(names) if part in name])

    def mask(self, q: Query, anns: Mapping[str, Annotation]) -> np.ndarray | None:
        """The papers every filter of ``q`` lets through (None: no filters). Each family of filters
        narrows the mask in turn; what cannot match (an unknown topic, no authors in the library)
        is said in ``q.errors``."""
        if not q.has_filters:
            return None
        mask = np.ones(len(self._core.corpus), dtype=bool)
        for narrow in (self._by_annotation, self._by_team, self._by_arrival, self._by_topic, self._by_id, self._by_labels,
                       self._by_venue_and_year, self._by_phrases):
            narrow(q, anns, mask)
        if not mask.any():
            q.errors += self._nothing_matches(q, anns)
        return mask

    def _by_annotation(self, q: Query, anns: Mapping[str, Annotation], mask: np.ndarray) -> None:
        if not q.has_annotation_filters:
            return

        test = q.mark_test()

        def passes(a: Annotation) -> bool:
            return test(a.status, a.star, a.tags)

        # An unannotated paper is a default annotation: decide it once, then look
        # only at the annotated papers (few, next to a 30k-paper library).
        passing = np.full(len(mask), passes(Annotation("")))
        for pid, a in anns.items():
            i = self._core.corpus.index_of(pid)
            if i is not None:
                passing[i] = passes(a)
        mask &= passing

    def _by_team(self, q: Query, anns: Mapping[str, Annotation], mask: np.ndarray) -> None:
        """by:, star-by:, status-by:, tag-by:, note-by:, team-star:, split: and assigned: (see
        store.library.team): each member's own marks. A member no one knows here matches nothing,
        and is said with the nearest name."""
        given = q.of(*TEAM_KINDS)
        if not given:
            return
        core = self._core
        team, assignments = core.member_marks, core.assignments  # (one snapshot: installs replace them whole)
        members = member_names(team, assignments, core.member)
        index_of = core.corpus.index_of

        def of(pids: Iterable[str]) -> np.ndarray:
            hit = np.zeros(len(mask), dtype=bool)
            rows = [i for i in map(index_of, pids) if i is not None]
            hit[rows] = True
            return hit

        for f in given:
            if f.value and f.value not in members:
                q.errors.append(no_member(f.value, members))
                hit = np.zeros(len(mask), dtype=bool)
            elif f.kind in _ONE_MEMBER:
                hit = _ONE_MEMBER[f.kind](f, team.get(f.value, {}), of)
            elif f.kind == "team-star":
                hit = _team_stars(f, team, index_of, len(mask))
            elif f.kind == "split":
                hit = of(split_papers(team))
            else:  # assigned
                hit = of(pid for pid, name in assignments.items() if not f.value or name == f.value)
            mask &= ~hit if f.negated else hit

    def _by_arrival(self, q: Query, anns: Mapping[str, Annotation], mask: np.ndarray) -> None:
        if q.of(*ARRIVAL_KINDS):
            self.arrivals.narrow(q, mask)

    def _by_topic(self, q: Query, anns: Mapping[str, Annotation], mask: np.ndarray) -> None:
        if "topic" not in q.kinds:
            return
        topics, not_topics = {int(v) for v in q.values("topic")}, {int(v) for v in q.values("topic", negated=True)}
        labels, names = self._discovery.topics()
        unknown = sorted(t for t in topics | not_topics if t not in names)
        if unknown:
            q.errors.append(f"no topic {', '.join(map(str, unknown))} here: topics run 0-{max(names)} "
                            f"(b in the app, or `papersift topics`, lists them)")
        if topics:
            mask &= np.isin(labels, list(topics))
        if not_topics:
            mask &= ~np.isin(labels, list(not_topics))

    def _by_id(self, q: Query, anns: Mapping[str, Annotation], mask: np.ndarray) -> None:
        for keys, keep in ((q.values("id"), True), (q.values("id", negated=True), False)):
            if keys:
                named = np.zeros(len(mask), dtype=bool)
                corpus = self._core.corpus
                for key in keys:
                    try:
                        named[corpus.index_of(corpus.resolve(key).id)] = True
                    except PapersiftError as exc:
                        prefixed = corpus.starting_with(key.lower())
                        if len(prefixed) > 1:  # (a prefix several ids begin with: a filter lists them all)
                            named[prefixed] = True
                        else:
                            q.errors.append(str(exc))
                mask &= named if keep else ~named

    def _by_labels(self, q: Query, anns: Mapping[str, Annotation], mask: np.ndarray) -> None:
        """author:, kw: and file: (each a part of one of a paper's labels)."""
        if "author" in q.kinds:
            if not self._labels("authors")[0]:
                q.errors.append("no paper here lists its authors (dumps have none: import JSON, CSV, "
                                "BibTeX or RIS with authors)")
            _narrow(mask, q, "author", lambda part: self._by_label("authors", part))
        if "kw" in q.kinds:
            if not self._labels("keywords")[0]:
                q.errors.append("no paper here has keywords (they come from the input's fields: OpenReview, "
                                "arXiv categories, BibTeX, RIS, CSL-JSON or a keywords column)")
            _narrow(mask, q, "kw", lambda part: self._by_label("keywords", part))
        if "file" in q.kinds:
            names = self._labels("files")[0]
            for part in q.values("file"):
                if not any(part in name for name in names):
                    shown = ", ".join(names[:5]) + (f" and {len(names) - 5:,} more" if len(names) > 5 else "")
                    q.errors.append(f"no paper here was read from a file named like {part!r} (files: {shown})")
            _narrow(mask, q, "file", lambda part: self._by_label("files", part))

    def _by_venue_and_year(self, q: Query, anns: Mapping[str, Annotation], mask: np.ndarray) -> None:
        if q.kinds.isdisjoint(("venue", "year")):
            return
        names, _, years = self._venues_and_years()
        if "venue" in q.kinds and not names:
            q.errors.append("no paper here names its venue (it comes from a dump's header line, "
                            "such as 'NeurIPS 2026 Papers', or the input's fields)")
        _narrow(mask, q, "venue", self._by_venue)
        if "year" in q.kinds:
            if not years.any():
                q.errors.append("no paper here has a year (it comes from a dump's header line or the input's fields)")
            if year := q.comparison("year"):
                mask &= (years > 0) & year[0](years, year[1])
            if not_year := q.comparison("year", negated=True):  # a paper without a year is not of the year left out
                mask &= ~((years > 0) & not_year[0](years, not_year[1]))

    def _by_phrases(self, q: Query, anns: Mapping[str, Annotation], mask: np.ndarray) -> None:
        if "phrase" not in q.kinds:
            return
        notes = {self._core.corpus.index_of(pid): fold_phrase(a.note) for pid, a in anns.items() if a.note}
        for phrase in q.values("phrase"):
            mask &= self.phrases.mask(phrase, mask, notes)
        for phrase in q.values("phrase", negated=True):
            mask &= ~self.phrases.mask(phrase, mask, notes)

    def _nothing_matches(self, q: Query, anns: Mapping[str, Annotation]) -> list[str]:
        """For each tag:, kw:, author: or venue: value no paper has: say so, with the nearest value
        the library holds ("no tag #bandit here; did you mean #bandits?")."""
        said = []
        tags = sorted({t for a in anns.values() for t in a.tags})
        said += [no_match("tag", t, tags, lambda v: "#" + v) for t in q.values("tag") if t not in tags]
        for kind, table, parts in (("keyword", "keywords", q.values("kw")), ("author", "authors", q.values("author"))):
            for part in parts if self._labels(table)[0] else ():  # (none at all: said by the filter itself)
                if not self._by_label(table, part).any():
                    said.append(no_match(kind, part, self._labels(table)[0], repr))
        for part in q.values("venue") if self._venues_and_years()[0] else ():
            if not self._by_venue(part).any():
                said.append(no_match("venue", part, self._venues_and_years()[0], repr))
        return said


# One member's filters: (the filter, that member's annotations, papers -> their rows as a mask).
Rows = Callable[[Iterable[str]], np.ndarray]


def _by(f: Filter, given: Mapping[str, Annotation], of: Rows) -> np.ndarray:
    return of(pid for pid, a in given.items() if a.marked)


def _star_by(f: Filter, given: Mapping[str, Annotation], of: Rows) -> np.ndarray:
    assert f.compare is not None
    op, value = f.compare
    hit = of(pid for pid, a in given.items() if op(a.star, value))
    if op(0, value):  # (star-by:ana:<1 holds for every paper she gave no star)
        hit |= ~of(pid for pid, a in given.items() if a.star)
    return hit


def _status_by(f: Filter, given: Mapping[str, Annotation], of: Rows) -> np.ndarray:
    if f.detail == "unread":  # (every paper she gave no other status)
        return ~of(pid for pid, a in given.items() if a.status != "unread")
    # (no status named: any but unread)
    return of(pid for pid, a in given.items() if a.status == f.detail or not f.detail and a.status != "unread")


def _tag_by(f: Filter, given: Mapping[str, Annotation], of: Rows) -> np.ndarray:
    return of(pid for pid, a in given.items() if (f.detail in a.tags if f.detail else a.tags))


def _note_by(f: Filter, given: Mapping[str, Annotation], of: Rows) -> np.ndarray:
    return of(pid for pid, a in given.items() if a.note and (not f.detail or f.detail in a.note.casefold()))


_ONE_MEMBER: dict[str, Callable[[Filter, Mapping[str, Annotation], Rows], np.ndarray]] = {
    "by": _by, "star-by": _star_by, "status-by": _status_by, "tag-by": _tag_by, "note-by": _note_by}


def _team_stars(f: Filter, team: Mapping[str, Mapping[str, Annotation]], index_of: Callable[[str], int | None],
                n: int) -> np.ndarray:
    """team-star: every member's stars summed, compared."""
    assert f.compare is not None
    op, value = f.compare
    totals = np.zeros(n, dtype=np.int64)
    for anns_of in team.values():
        for pid, a in anns_of.items():
            if a.star and (i := index_of(pid)) is not None:
                totals[i] += a.star
    hit: np.ndarray = op(totals, value)
    return hit
