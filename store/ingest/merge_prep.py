"""The per-abstract work of an import, done before the library lock is taken: each record's
normalized text and id, its LSH band keys, its derived title and name-shaped words, spread over the
cores (store.parallel), and the band keys and names of the library's papers. What it yields
(:class:`MergePrep`) is for one version of the corpus; :func:`store.ingest.importer.merge_records`
consumes it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import partial

import numpy as np

from store.corpus import Corpus, paper_id
from store.ingest.dedup import BANDS, band_keys, candidate_pairs, is_near_duplicate, shingles, signatures, similarity
from store.ingest.dedup_cache import KnownPapers
from store.formats.raw_record import RawRecord
from store.titles.library import name_tokens
from store.titles.derive import derive_titles
from store.parallel import map_list, release_free_memory
from store.text import normalize


def _normalize_chunk(texts: list[str]) -> list[str]:
    return [normalize(t) for t in texts]


def fingerprints(shs: list[np.ndarray]) -> np.ndarray:
    """LSH band keys of shingle sets, one row each."""
    return band_keys(signatures(shs)) if shs else np.zeros((0, BANDS), dtype=np.uint64)


# What the merge needs of a paper already in the library (LSH band keys; name-shaped words), and of a
# record not yet in it (band keys, derived title and the title without its name, names). Shingles are
# not kept: the rows a candidate pair names are shingled again to weigh it (at 300k papers every
# row's shingles held ~210 MB), and titles are derived once the pairs show which records are papers.
_Known = tuple[np.ndarray, str]
_New = tuple[np.ndarray, tuple[str, str | None] | None, str, np.ndarray | None]
KEEP_NORMALIZED_CHARS = 96_000_000  # an import of abstracts up to this many characters keeps their normalized texts


def _ids_chunk(abstracts: list[str]) -> list[str]:
    return [paper_id(normalize(a)) for a in abstracts]


def _new_paper_chunk(keep: bool, items: list[tuple[str | None, str]]) -> list[_New]:
    """For (normalized abstract, or None to normalize it here; abstract): LSH band keys, no title yet
    (:func:`_title_papers` derives it), the abstract's name-shaped words, and its shingles if
    ``keep`` (an import small enough to keep its normalized texts keeps them until its pairs are
    weighed: made again, they cost a dump of real text 1 s)."""
    shs = [shingles(normalize(a) if norm is None else norm) for norm, a in items]
    keys = fingerprints(shs)
    return [(k, None, name_tokens(abstract), sh if keep else None) for k, sh, (_, abstract) in zip(keys, shs, items)]


def _titles_chunk(abstracts: list[str]) -> list[tuple[str, str | None]]:
    return [derive_titles(a) for a in abstracts]


def _first_import_chunk(keep: bool, abstracts: list[str]) -> list[tuple[str, str, _New]]:
    """For the abstracts of an import into an empty library: the normalized abstract ("" unless
    ``keep``), its paper id, and :func:`_new_paper_chunk`'s answer."""
    norms = [normalize(abstract) for abstract in abstracts]
    new = _new_paper_chunk(keep, list(zip(norms, abstracts)))
    return [(norm if keep else "", paper_id(norm), prepared) for norm, prepared in zip(norms, new)]


def _prepare_first(corpus: Corpus, records: list[RawRecord], keep: bool) -> MergePrep:
    """:func:`prepare_merge` into a library with no papers: every record is new, so one pass over
    them does it all (not two, with the normalized texts sent to the workers and back between)."""
    rows = map_list(partial(_first_import_chunk, keep), [r.abstract for r in records])
    prep = MergePrep(corpus.generation, [row[0] for row in rows] if keep else None, [row[1] for row in rows],
                     KnownRows(np.zeros((0, BANDS), dtype=np.uint64), Counter(), None),
                     {i: row[2] for i, row in enumerate(rows)})
    del rows
    _weigh_pairs(prep, corpus, records)
    _title_papers(prep, corpus, records)
    if not keep:
        release_free_memory(collect=False)
    return prep


def _shingles_chunk(texts: list[str | tuple[str]]) -> list[np.ndarray]:
    """Shingles of normalized texts (a 1-tuple: a text to normalize first)."""
    return [shingles(normalize(t[0]) if isinstance(t, tuple) else t) for t in texts]


def _weigh_pairs(prep: MergePrep, corpus: Corpus, records: list[RawRecord]) -> None:
    """The merge's candidate pairs (store.ingest.dedup.candidate_pairs over the library's and the new
    records' band keys, in the rows the merge numbers them), each weighed (Jaccard, containment),
    here on the cores and before the lock: a dump with many near duplicates names most of its rows
    in a pair (a 30k dump of real text: 2 s of shingling on one core, under the lock)."""
    assert prep.known is not None and prep.new is not None
    unknown = sorted(prep.new)
    m = len(corpus) if unknown else 0
    if not unknown:
        prep.pairs = {}
        return
    keys = np.concatenate([prep.known.keys[:m].reshape(-1, BANDS),
                           np.array([prep.new[i][0] for i in unknown], dtype=np.uint64).reshape(-1, BANDS)])
    candidates = candidate_pairs(keys, from_row=m)
    named = {row for row, earlier in candidates.items() for row in (row, *earlier)}
    kept = {row: prep.new[unknown[row - m]][3] for row in named if row >= m}
    shs: dict[int, np.ndarray] = {row: sh for row, sh in kept.items() if sh is not None}
    made = sorted(row for row, sh in kept.items() if sh is None) + sorted(row for row in named if row < m)
    texts: list[str | tuple[str]] = [(corpus.papers[row].abstract,) if row < m else (records[unknown[row - m]].abstract,)
                                     for row in made]
    shs.update(zip(made, map_list(_shingles_chunk, texts)))
    del texts
    prep.pairs = {row: [(j, *similarity(shs[row], shs[j])) for j in earlier] for row, earlier in candidates.items()}
    for i in unknown:  # (the shingles kept for this: let go)
        keys, titles, names, _ = prep.new[i]
        prep.new[i] = (keys, titles, names, None)


def _title_papers(prep: MergePrep, corpus: Corpus, records: list[RawRecord]) -> None:
    """Derived titles for the untitled records that will be papers, on the cores: not for a record
    whose text repeats an earlier one's, nor for one a pair shows near an earlier text (a third of
    a dump of recombined real text; the merge titles any of them that becomes a paper after all)."""
    assert prep.new is not None and prep.pairs is not None
    unknown = sorted(prep.new)
    m = len(corpus)
    ids: set[str] = set()
    todo = []
    for n, i in enumerate(unknown):
        rid = prep.rids[i]
        if records[i].title or rid in ids:
            continue
        ids.add(rid)
        if not any(is_near_duplicate(jac, cont) for _, jac, cont in prep.pairs.get(m + n, ())):
            todo.append(i)
    for i, titles in zip(todo, map_list(_titles_chunk, [records[i].abstract for i in todo])):
        keys, _, names, sh = prep.new[i]
        prep.new[i] = (keys, titles, names, sh)


def _known_paper_chunk(abstracts: list[str]) -> list[_Known]:
    """Band keys of papers already in the library (to find near duplicates of them), and their
    name-shaped words (a name many abstracts use is the field's: see store.titles.library)."""
    keys = fingerprints([shingles(normalize(a)) for a in abstracts])
    return [(k, name_tokens(a)) for k, a in zip(keys, abstracts)]


def normalize_all(texts: list[str]) -> list[str]:
    """Normalized texts, in parallel for big batches."""
    return map_list(_normalize_chunk, texts)


@dataclass
class KnownRows:
    """The library's papers as the merge sees them, in corpus order: LSH band keys, and over all of
    them, how many use each name-shaped word and (from the cache) their titles' hashes."""

    keys: np.ndarray  # (papers, BANDS)
    name_df: Counter[str]  # name-shaped word -> papers using it
    titles: np.ndarray | None  # hashes of the papers' titles (store.ingest.dedup_cache), if kept


@dataclass
class MergePrep:
    """The per-abstract work of a merge, done for one version of the corpus (its generation).

    It is most of a merge's time (2,610 papers into 29,100: all but ~0.3 s) and needs no lock: an import
    prepares first, then takes the library lock only to merge and save. If the corpus changed
    in between (another process wrote it), the merge prepares again under the lock.
    """

    generation: str
    norms: list[str] | None          # normalized abstract per record (None: a big import's, not kept)
    rids: list[str]                  # paper id per record
    known: KnownRows | None          # band keys, names of the corpus's papers (empty: not needed)
    new: dict[int, _New] | None      # record index -> band keys, derived title, names (unknown records)
    # The merge's row -> (earlier row, Jaccard, containment) of each earlier row sharing a band key (see _weigh_pairs)
    pairs: dict[int, list[tuple[int, float, float]]] | None = None
    after: KnownPapers | None = None  # after the merge: every paper's band keys and names (store.ingest.dedup_cache)


def prepare_merge(corpus: Corpus, records: list[RawRecord], cached: KnownPapers | None = None) -> MergePrep:
    """Normalize, shingle and fingerprint for :func:`merge_records`, without touching ``corpus``.

    Args:
        cached: the library's papers' band keys and names, kept from the last import (see
            store.ingest.dedup_cache); used when they are of this corpus, so its papers are not read.
    """
    # A big import's normalized texts (~370 MB at 300k papers) are not kept: each is made in a worker
    # for its id, and again for its shingles; the index build normalizes again as it goes (~8 s at
    # 300k, one core), and a candidate pair's rows are made from their records.
    keep = sum(len(r.abstract) for r in records) <= KEEP_NORMALIZED_CHARS
    if not len(corpus):
        return _prepare_first(corpus, records, keep)
    norms: list[str] | None = None
    if keep:
        norms = normalize_all([r.abstract for r in records])
        rids = [paper_id(n) for n in norms]
    else:
        rids = map_list(_ids_chunk, [r.abstract for r in records])
    unknown = [i for i, rid in enumerate(rids) if corpus.index_of(rid) is None]
    known = KnownRows(np.zeros((0, BANDS), dtype=np.uint64), Counter(), None)
    if unknown and len(corpus):
        if cached is not None and len(cached) == len(corpus):
            known = KnownRows(cached.keys, cached.name_df, cached.titles)
        else:
            rows = map_list(_known_paper_chunk, [p.abstract for p in corpus])
            name_df: Counter[str] = Counter()
            for r in rows:
                name_df.update(r[1].split())
            known = KnownRows(np.array([r[0] for r in rows], dtype=np.uint64).reshape(-1, BANDS),
                              name_df, None)
            del rows
    prepared = map_list(partial(_new_paper_chunk, keep), [(norms[i] if norms is not None else None, records[i].abstract)
                                           for i in unknown])
    prep = MergePrep(corpus.generation, norms, rids, known, dict(zip(unknown, prepared)))
    del prepared
    _weigh_pairs(prep, corpus, records)
    _title_papers(prep, corpus, records)
    if norms is None:
        release_free_memory(collect=False)  # (the workers' replies' pages, back before the merge)
    return prep
