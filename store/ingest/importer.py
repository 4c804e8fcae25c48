"""Merge parsed records into a corpus: exact and near-duplicate detection.

An abstract whose normalized text is already known (as a paper or a merged
variant) only gains a source. One whose text passes the near-duplicate rule
against a known paper becomes a *variant* of it (its own id is kept as an
alias, so it can be found and split off again). Anything else is a new paper
with a derived title unless it came with a real one.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Iterable, Iterator, Mapping

import numpy as np

from store.ingest.batches import ArxivIndex, arxiv_key, held_version, revise
from store.ingest.dedup_cache import KnownPapers
from store.corpus import Corpus
from store.ingest.dedup import BANDS, Match, is_near_duplicate, shingles
from store.ingest.merge_prep import KnownRows, MergePrep, fingerprints
from store.ingest.merge_prep import prepare_merge as prepare_merge  # (an import's two steps, named here together)
from store.models import VARIANT_FIELDS, Paper, Source, Variant
from store.formats.raw_record import RawRecord
from store.ingest.summary import ImportSummary
from store.text import normalize
from store.titles.library import FIELD_DF, TakenTitles, name_tokens, settle, title_hash
from store.titles.derive import derive_titles


def _add_source(sources: list[Source], src: Source) -> bool:
    if any(s.file == src.file and s.position == src.position for s in sources):
        return False
    sources.append(src)
    return True


def merge_records(corpus: Corpus, records: list[RawRecord], summary: ImportSummary,
                  progress: Callable[[int, int], None] | None = None,
                  prep: MergePrep | None = None) -> dict[str, str]:
    """Merge ``records`` into ``corpus`` in place, counting into ``summary``.

    The per-abstract work (normalizing, shingling, MinHash, deriving titles) is
    batched and, for big imports, spread over the cores; near-duplicate
    candidates come from one sort per LSH band over the library's papers and the
    new abstracts together. Only the merge decisions run one record at a time,
    in file order: a record may merge into a library paper or into an earlier
    record that became a paper, never into one that was itself merged away.

    Args:
        records: consumed: each entry is let go of as it is merged.
        prep: the per-abstract work, done beforehand by :func:`prepare_merge` (and consumed
            here); done again if it was for another version of the corpus.

    Returns:
        Normalized abstracts of the new papers (for the search index build).
    """
    if prep is None or prep.generation != corpus.generation or prep.known is None:
        prep = prepare_merge(corpus, records)
    return _merge(corpus, records, summary, progress, prep)


def _merge(corpus: Corpus, records: list[RawRecord], summary: ImportSummary,
           progress: Callable[[int, int], None] | None, prep: MergePrep) -> dict[str, str]:
    merge = _Merge(corpus, summary, prep)
    summary.read += len(records)
    for n, rec in enumerate(_handed_out(records), start=1):
        if progress and n % 500 == 0:
            progress(n, len(records))
        merge.record(n - 1, rec)
    merge.finish(prep)
    if progress:
        progress(len(records), len(records))
    return merge.new_norms


class _Merge:
    """One import's merge decisions, one record at a time in file order (:func:`merge_records`):
    a record of a paper the library holds adds its source (:meth:`_known`); another version or
    listing of an arXiv paper revises it (:meth:`_arxiv_version`); a near duplicate of an earlier
    paper becomes its variant (:meth:`_near_duplicate`); any other record is a new paper
    (:meth:`_new_paper`), its derived title settled against the library's in :meth:`finish`.

    Rows: 0..m-1 are the library's papers (m = 0 when every record is known), then one row per
    record the library does not hold, in file order."""

    def __init__(self, corpus: Corpus, summary: ImportSummary, prep: MergePrep) -> None:
        assert prep.known is not None and prep.new is not None  # consumed together: merge_records prepares again
        self.corpus, self.summary = corpus, summary
        self.new_norms: dict[str, str] = {}
        self.norms, self.rids = prep.norms, prep.rids
        unknown = [i for i, rid in enumerate(self.rids) if corpus.index_of(rid) is None]
        m = self.m = len(corpus) if unknown else 0
        known = prep.known if m else KnownRows(np.zeros((0, BANDS), dtype=np.uint64), Counter(), None)
        prepared = [prep.new[i] for i in unknown]
        assert prep.pairs is not None
        self.candidates, prep.known, prep.new, prep.pairs = prep.pairs, None, None, None
        self.keys = np.concatenate([known.keys, np.array([p[0] for p in prepared], dtype=np.uint64).reshape(-1, BANDS)])
        # record -> (title, title without its name); row -> name-shaped words (the records' rows)
        self.titles = {i: p[1] for i, p in zip(unknown, prepared) if p[1] is not None}
        self.names = {m + n: p[2] for n, p in enumerate(prepared)}
        self.name_df, self.known_titles = known.name_df, known.titles  # (name_df taken over: updated in place)
        # new papers with a derived title (and the title without its name), settled at the end
        # (see store.titles.library)
        self.fresh: list[tuple[Paper, str | None]] = []
        self.row_of = {i: m + n for n, i in enumerate(unknown)}
        self.owner: list[str | None] = (list(corpus.ids()) if m else []) + [None] * len(unknown)  # row -> paper id
        self.paper_rows = list(range(m))  # corpus index -> its row (store.ingest.dedup_cache keeps the rows' keys)
        self.revised: list[int] = []
        self.separate: dict[str, set[str]] = {}
        for pair in corpus.separate:
            a, b = tuple(pair)
            self.separate.setdefault(a, set()).add(b)
            self.separate.setdefault(b, set()).add(a)
        self.before = len(corpus)  # papers the library held: a record of one of these is "already in the library"
        self.arxiv: ArxivIndex | None = None  # the library's arXiv papers by id, made on the first arXiv record

    def record(self, i: int, rec: RawRecord) -> None:
        """Merge the ``i``-th record of the import."""
        rid = self.rids[i]
        src = Source(rec.file, rec.position)
        idx = self.corpus.index_of(rid)
        if idx is not None:
            self._known(idx, rid, rec, src)
            return
        key = arxiv_key(rec.external_id) if rec.external_id else None
        if key is not None and self._arxiv_version(key, rid, rec, src):
            return
        row = self.row_of[i]
        if not self._near_duplicate(row, rid, rec, src):
            self._new_paper(i, row, rid, rec, src, key)

    def _known(self, idx: int, rid: str, rec: RawRecord, src: Source) -> None:
        """A record whose id the library holds: its source added, its fields filling the paper's gaps."""
        summary = self.summary
        paper = self.corpus.papers[idx]
        variant = next((v for v in paper.variants if v.id == rid), None)
        added = _add_source(variant.sources if variant else paper.sources, src)
        if variant:  # (what this listing says of the variant and an earlier one did not: kept for a split)
            variant.fields = {**own_fields(rec), **variant.fields}
        if variant and added:
            _add_source(paper.sources, src)
        seen_arxiv = rec.external_id and paper.external_id and arxiv_key(rec.external_id) is not None \
            and (arxiv_key(rec.external_id) or ("",))[0] == (arxiv_key(paper.external_id) or ("",))[0]
        if added and not seen_arxiv and idx >= self.before:  # a text twice in this import
            summary.exact += 1
        else:  # a paper the library held (from any file), or the same arXiv paper from another listing
            summary.known += 1
            summary.sources_added += bool(added and idx < self.before)  # (a file it was not in: saved, for file:)
        got = enrich(paper, own_fields(rec))
        if rec.external_id and arxiv_key(rec.external_id) and _more_categories(paper, rec.keywords):
            got.append("keywords")  # a cross-list: its category joins the paper's
        if got:
            summary.updated += 1
            summary.added.update(got)

    def _arxiv_version(self, key: tuple[str, int], rid: str, rec: RawRecord, src: Source) -> bool:
        """Whether the record is an arXiv paper the library holds (a cross-list, another version):
        then its source and categories are added, and a later version revises the paper."""
        corpus, summary = self.corpus, self.summary
        self.arxiv = self.arxiv or ArxivIndex(corpus)
        seen = self.arxiv.rows.get(key[0])
        if seen is None:
            return False
        paper = corpus.papers[seen]
        summary.sources_added += _add_source(paper.sources, src) and seen < self.before
        corpus.add_alias(rid, seen)
        _more_categories(paper, rec.keywords)
        if key[1] > held_version(paper):
            revise(paper, rec.abstract, rec.title, key[1], summary.batch, rec.external_id, rec.url)
            summary.revised += 1
            self.revised.append(seen)
            self.name_df.subtract(name_tokens(paper.versions[-1]["abstract"]).split())
            self.name_df.update(name_tokens(paper.abstract).split())
        else:
            summary.known += 1
        return True

    def _near_duplicate(self, row: int, rid: str, rec: RawRecord, src: Source) -> bool:
        """Whether the record is a near duplicate of an earlier paper (the library's, or this
        import's): then it becomes that paper's variant."""
        match = _best_match(self.candidates.get(row, ()), self.owner, self.separate.get(rid, ()))
        if match is None:
            return False
        corpus = self.corpus
        idx = corpus.index_of(match.key)
        assert idx is not None  # match.key is a paper's id (owner)
        paper = corpus.papers[idx]
        fields = own_fields(rec)
        paper.variants.append(Variant(id=rid, abstract=rec.abstract, similarity=round(match.jaccard, 3),
                                      sources=[src], fields=fields, gave=enrich(paper, fields)))
        _add_source(paper.sources, src)
        corpus.add_alias(rid, idx)
        self.summary.near += 1
        return True

    def _new_paper(self, i: int, row: int, rid: str, rec: RawRecord, src: Source,
                   key: tuple[str, int] | None) -> None:
        """A new paper, titled by the record or by a title derived from its abstract."""
        derived = None if rec.title else self.titles.get(i) or derive_titles(rec.abstract)  # (not made
        # beforehand for a record the pairs showed near an earlier one that was itself merged away)
        paper = Paper(
            id=rid,
            abstract=rec.abstract,
            title=rec.title if derived is None else derived[0],
            derived_title=not rec.title,
            authors=list(rec.authors),
            sources=[src],
            external_id=rec.external_id,
            url=rec.url,
            venue=rec.venue,
            year=rec.year,
            keywords=list(rec.keywords),
            area=rec.area,
        )
        idx = self.corpus.add(paper)
        if self.arxiv is not None and key is not None:
            self.arxiv.add(rec.external_id, idx)
        self.owner[row] = rid
        self.paper_rows.append(row)
        self.name_df.update(self.names[row].split())
        norm = self.norms[i] if self.norms is not None else None
        if norm is not None:
            self.new_norms[rid] = norm
        self.summary.new += 1
        if derived is not None:
            self.fresh.append((paper, derived[1]))

    def finish(self, prep: MergePrep) -> None:
        """Settle the new papers' derived titles, and keep what the next import's dedup starts from
        (the papers' keys, name counts and title hashes) in ``prep.after``."""
        corpus = self.corpus
        if self.fresh:
            fields = frozenset(name for name, n in self.name_df.items() if n >= FIELD_DF)
            _settle_titles(corpus, self.fresh, fields, self.known_titles)
        if self.m or not len(corpus) - len(self.paper_rows):  # every paper has its row (else nothing was added or revised)
            after_keys = self.keys[self.paper_rows]
            for idx in self.revised:  # a new version's text: its keys anew
                after_keys[idx] = fingerprints([shingles(normalize(corpus.papers[idx].abstract))])[0]
            prep.after = KnownPapers(after_keys, +self.name_df, _title_hashes(corpus, self.known_titles))


def _settle_titles(corpus: Corpus, fresh: list[tuple[Paper, str | None]], fields: frozenset[str],
                   known_titles: np.ndarray | None) -> None:
    """New papers' derived titles settled against the library's (no field's acronym as a paper's
    name, no title twice: see store.titles.library); the library's papers keep theirs.

    Args:
        known_titles: the library's titles' hashes, kept from the last import (then its titles are
            not read: at 300k papers that took ~0.8 s); None to read them.
    """
    if known_titles is not None:
        changed = [p.title for i, p in corpus.papers.parsed_items() if i < len(known_titles)]  # (titles that arrived)
        taken: Iterable[str] | TakenTitles = TakenTitles(changed, known_titles.tolist())
    else:
        ids = {p.id for p, _ in fresh}
        taken = [title for title, pid in zip(corpus.papers.titles()[0], corpus.ids()) if pid not in ids]
    fresh = [(p, alternative) for p, alternative in fresh if p.derived_title]  # (not one that a later record titled)
    papers = [p for p, _ in fresh]
    settled = settle([p.abstract for p in papers], [p.title for p in papers], fields, taken,
                     nameless=[alternative for _, alternative in fresh])
    for paper, title in zip(papers, settled):
        paper.title = title


def _title_hashes(corpus: Corpus, known: np.ndarray | None) -> np.ndarray:
    """Every paper's title hash (store.titles.library.title_hash): the kept ones, with those
    of the papers parsed (whose title may have changed) and added made anew; all made without them."""
    if known is None:
        return np.array([title_hash(t) for t in corpus.papers.titles()[0]], dtype=np.uint64)
    out = np.concatenate([known, np.zeros(len(corpus) - len(known), dtype=np.uint64)])
    for i, paper in corpus.papers.parsed_items():
        out[i] = title_hash(paper.title)
    return out


_SPENT = RawRecord("", "", 0)  # what a merged record's place in its list holds (see _handed_out)


def _handed_out(records: list[RawRecord]) -> Iterator[RawRecord]:
    """The records in order, each let go of by the list as it is handed out: the merge is their
    last user, and a record's lists and fields go as its paper is made (~100 MB at 300k)."""
    for i, rec in enumerate(records):
        records[i] = _SPENT
        yield rec


def _best_match(weighed: Iterable[tuple[int, float, float]], owner: list[str | None],
                exclude: Iterable[str]) -> Match | None:
    """The most similar earlier paper that passes the merge rule (the earliest among equals), of the
    earlier rows weighed against this one (row, Jaccard, containment: see store.ingest.merge_prep)."""
    best: Match | None = None
    for j, jac, cont in weighed:
        key = owner[j]
        if key is None or key in exclude:
            continue
        if is_near_duplicate(jac, cont) and (best is None or jac > best.jaccard):
            best = Match(key, jac, cont)
    return best


def own_fields(rec: RawRecord) -> dict[str, Any]:
    """The fields a record gave of its own (title, authors, link ...: store.models.VARIANT_FIELDS),
    those it had: what a paper made of it gets, or a variant keeps for a split."""
    got = {name: getattr(rec, name) for name in VARIANT_FIELDS}
    return {name: list(v) if isinstance(v, list) else v for name, v in got.items() if v}


def enrich(paper: Paper, fields: Mapping[str, Any]) -> list[str]:
    """A real title, authors, link, source id (a BibTeX key, an arXiv id), venue, year, keywords or
    area arriving for a known paper that lacks them (``fields``: :func:`own_fields`): keep them.
    Returns what it got (store.ingest.summary.ADDED_NAMES)."""
    added = []
    if fields.get("title") and paper.derived_title:
        paper.title, paper.derived_title = fields["title"], False
        added.append("title")
    for name in ("authors", "url", "external_id", "keywords", "area"):  # what the paper lacks
        value = fields.get(name)
        if value and not getattr(paper, name):
            setattr(paper, name, list(value) if isinstance(value, list) else value)
            added.append(name)
    if (fields.get("venue") or fields.get("year")) and not (paper.venue or paper.year):
        paper.venue, paper.year = fields.get("venue", ""), fields.get("year", "")
        added.append("venue")
    return added


def _more_categories(paper: Paper, keywords: list[str]) -> bool:
    """An arXiv record's categories the paper lacks (a cross-list's), added: True when any was."""
    new = [k for k in keywords if k not in paper.keywords]
    paper.keywords.extend(new)
    return bool(new)
