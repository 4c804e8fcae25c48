"""Merge parsed records into a corpus: exact and near-duplicate detection.

An abstract whose normalized text is already known (as a paper or a merged
variant) only gains a source. One whose text passes the near-duplicate rule
against a known paper becomes a *variant* of it (its own id is kept as an
alias, so it can be found and split off again). Anything else is a new paper
with a derived title unless it came with a real one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .corpus import Corpus, paper_id
from .dedup import NearDupIndex, shingles, signatures
from .models import Paper, Source, Variant
from .parallel import map_list
from .parse import RawRecord
from .text import normalize
from .titles import derive_title


@dataclass
class ImportSummary:
    """What an import did."""

    files: int = 0
    read: int = 0
    new: int = 0
    exact: int = 0
    near: int = 0
    known: int = 0
    updated: int = 0
    skipped: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.new or self.exact or self.near or self.updated)

    def line(self) -> str:
        return (f"read {self.read} abstracts from {self.files} file(s): {self.new} new, "
                f"{self.exact} exact duplicates, {self.near} near-duplicates merged, "
                f"{self.known} already in the library" + (f", {self.updated} titles/authors added" if self.updated else "")
                + (f"; passed over {self.skipped} paragraphs too short to be abstracts" if self.skipped else ""))

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("files", "read", "new", "exact", "near", "known", "updated", "skipped")}


def _add_source(sources: list[Source], src: Source) -> bool:
    if any(s.file == src.file and s.position == src.position for s in sources):
        return False
    sources.append(src)
    return True


def near_index_for(corpus: Corpus) -> NearDupIndex:
    """A near-duplicate index over every paper in the corpus."""
    index = NearDupIndex()
    index.add_many([p.id for p in corpus], normalize_all([p.abstract for p in corpus]))
    return index


def _normalize_chunk(texts: list[str]) -> list[str]:
    return [normalize(t) for t in texts]


def _new_paper_chunk(items: list[tuple[str, str | None]]) -> list[tuple[np.ndarray, np.ndarray, str | None]]:
    """For (normalized abstract, raw abstract if it needs a title): shingles, MinHash signature, title.

    Shingle hashes use Python's per-process salted ``hash``; forked workers share
    the parent's salt, so their shingles compare with the parent's.
    """
    shs = [shingles(norm) for norm, _ in items]
    sigs = signatures(shs) if shs else []
    return [(sh, sig, derive_title(raw) if raw is not None else None)
            for sh, sig, (_, raw) in zip(shs, sigs, items)]


def normalize_all(texts: list[str]) -> list[str]:
    """Normalized texts, in parallel for big batches."""
    return map_list(_normalize_chunk, texts)


def merge_records(corpus: Corpus, records: list[RawRecord], summary: ImportSummary,
                  progress: Callable[[int, int], None] | None = None) -> dict[str, str]:
    """Merge ``records`` into ``corpus`` in place, counting into ``summary``.

    The per-abstract work (normalizing, shingling, MinHash, deriving titles)
    is batched and, for big imports, spread over the cores; only the merge
    decisions run one record at a time, in file order.

    Returns:
        Normalized abstracts of the new papers (for the search index build).
    """
    new_norms: dict[str, str] = {}
    near = near_index_for(corpus) if len(corpus) else NearDupIndex()
    norms = normalize_all([r.abstract for r in records])
    rids = [paper_id(n) for n in norms]
    # Shingles and signatures up front, batched, for every abstract not already known.
    # One parallel pass over them: shingles, signatures and (for untitled ones) a derived title.
    unknown = [i for i, rid in enumerate(rids) if corpus.index_of(rid) is None]
    prepared = map_list(_new_paper_chunk, [(norms[i], None if records[i].title else records[i].abstract)
                                           for i in unknown])
    shs = {i: p[0] for i, p in zip(unknown, prepared)}
    sigs = {i: p[1] for i, p in zip(unknown, prepared)}
    titles = {i: p[2] for i, p in zip(unknown, prepared) if p[2] is not None}
    del prepared
    separate: dict[str, set[str]] = {}
    for pair in corpus.separate:
        a, b = tuple(pair)
        separate.setdefault(a, set()).add(b)
        separate.setdefault(b, set()).add(a)
    summary.read += len(records)
    for n, rec in enumerate(records, start=1):
        if progress and n % 500 == 0:
            progress(n, len(records))
        i = n - 1
        norm, rid = norms[i], rids[i]
        src = Source(rec.file, rec.position)
        idx = corpus.index_of(rid)
        if idx is not None:
            paper = corpus.papers[idx]
            variant = next((v for v in paper.variants if v.id == rid), None)
            added = _add_source(variant.sources if variant else paper.sources, src)
            if variant and added:
                _add_source(paper.sources, src)
            if added:
                summary.exact += 1
            else:
                summary.known += 1
            if _enrich(paper, rec):
                summary.updated += 1
            continue
        match, (sh, sig) = near.query(norm, exclude=frozenset(separate.get(rid, ())), sh=shs.get(i), sig=sigs.get(i))
        if match is not None:
            idx = corpus.index_of(match.key)
            paper = corpus.papers[idx]
            paper.variants.append(Variant(id=rid, abstract=rec.abstract, similarity=round(match.jaccard, 3),
                                          sources=[src]))
            _add_source(paper.sources, src)
            corpus.add_alias(rid, idx)
            _enrich(paper, rec)
            summary.near += 1
            continue
        paper = Paper(
            id=rid,
            abstract=rec.abstract,
            title=rec.title or titles.get(i) or derive_title(rec.abstract),
            derived_title=not rec.title,
            authors=list(rec.authors),
            sources=[src],
            external_id=rec.external_id,
            url=rec.url,
        )
        corpus.add(paper)
        near.add(rid, norm, sh, sig)
        new_norms[rid] = norm
        summary.new += 1
    if progress:
        progress(len(records), len(records))
    return new_norms


def _enrich(paper: Paper, rec: RawRecord) -> bool:
    """A real title, authors or link arriving for a known paper: keep them."""
    changed = False
    if rec.title and paper.derived_title:
        paper.title, paper.derived_title = rec.title, False
        changed = True
    if rec.authors and not paper.authors:
        paper.authors = list(rec.authors)
        changed = True
    if rec.url and not paper.url:
        paper.url = rec.url
        changed = True
    if rec.external_id and not paper.external_id:
        paper.external_id = rec.external_id
        changed = True
    return changed


def split_variants(corpus: Corpus, key: str) -> list[Paper]:
    """Undo a near-duplicate merge: variants become papers of their own.

    Args:
        key: a paper id (split all its variants off) or a variant id.

    Returns:
        The new papers. The pairs are recorded so a re-import does not merge them again.
    """
    idx = corpus.index_of(key)
    if idx is None:
        return []
    parent = corpus.papers[idx]
    chosen = [v for v in parent.variants if v.id == key] or (list(parent.variants) if key == parent.id else [])
    new = []
    for v in chosen:
        parent.variants.remove(v)
        parent.aliases.remove(v.id)
        parent.sources = [s for s in parent.sources if not any(s == vs for vs in v.sources)]
        paper = Paper(id=v.id, abstract=v.abstract, title=derive_title(v.abstract), sources=list(v.sources))
        corpus.separate.add(frozenset((parent.id, v.id)))
        corpus.add(paper)
        new.append(paper)
    corpus.rebuild_lookup()
    return new
