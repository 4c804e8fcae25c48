"""A one-shot search answered straight from the index file, without numpy.

``papersift search QUERY`` is a whole process: most of its time used to go
on importing numpy and loading the index and the corpus, all to print twenty
lines. This module answers a plain word query (no filters) with the standard
library and rapidfuzz: it checks the index file belongs to the corpus on
disk (the corpus header's generation token), reads the vocabulary tables,
then only the postings of the terms the query expands to, only the ids and
titles of the papers it prints, and the text of the first papers of the result set (read again
from the corpus file, where the index file says their lines start, to rank words standing
together first: store.search.proximity). Annotations are read (status, star, tags to print;
tags and notes are searched too) as the TinyDB storage reads them.

The ranking is the one :meth:`store.search.index.SearchIndex.rank` computes, in
pure Python: the same vocabulary expansion (:mod:`store.search.vocab`), and float32
arithmetic reproduced step by step (a product or sum of two float32 values is
exact in a Python float; storing it in ``array("f")`` rounds it as numpy
does), so the order is identical, ties included (a test compares them).
Anything else (filters, a compound such as sim-to-real, an acronym the papers define or its
expansion, a stale or missing cache, a damaged file) returns None and the caller takes the full
path, which reports problems properly.
"""

from __future__ import annotations

import os
import re
from array import array
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Sequence, cast

import orjson

from store import locations, versions
from store.search import acronyms, proximity
from store.record_fields import is_record, read_fields
from store.annotations.journal import ANN, journal_path_for, read_snapshot, replay_journal
from store.files.nofollow import open_no_link
from store.search.packfile import PackReader, chunk_loader, items_sections, read_item, stamp_matches
from store.search.query import parse_query, valueless_filters
from store.text import search_tokens
from store.search.joined import compound_part_ids, joined_compound, worth_reading
from store.search.sorted_words import SortedWords
from store.search.vocab import COVERAGE_WEIGHT, K1, Vocabulary, content_words, idf_ceiling, index_size

if TYPE_CHECKING:
    from store.records import Annotation

LINE_MAX = 1 << 22  # a paper's line in the corpus file is far shorter (an abstract is at most 100,000 characters)
ANNOTATION_WEIGHT = 8.0  # a query word found in a paper's tags or note (a strong, personal signal)
# The corpus file's first bytes, as Corpus.save writes them (orjson, keys in this order).
_CORPUS_HEAD = re.compile(re.escape(f'{{"format":"{versions.CORPUS_FORMAT}","version":{versions.CORPUS_VERSION},'
                                    f'"generation":"'.encode()) + rb'([0-9a-f]*)"')


def display_sections(ids: list[str], titles: list[str], derived: list[bool]) -> list[tuple[str, str, object]]:
    """What a one-shot search prints, stored in the index file: ids, titles, derived-title flags."""
    return [*items_sections("ids", ids), *items_sections("titles", titles), ("derived", "b", array("b", derived))]


def spliced_display_sections(extra: dict[str, memoryview], n: int, changed: dict[int, tuple[str, bool]],
                             added: list[tuple[str, str, bool]]) -> list[tuple[str, str, object]] | None:
    """:func:`display_sections` for papers ``0..n-1`` as stored in ``extra`` (the sections of the
    index file an update started from, checked by their CRCs when it was read) with the titles of
    ``changed`` rows replaced, then ``added`` papers (id, title, derived): spliced from the stored
    bytes, no title decoded or encoded again (at 300k papers ~0.3 s of an import). None unless
    the sections are there for ``n`` papers."""
    try:
        ids, id_offsets = extra["ids"], extra["ids_offsets"].cast("q")
        blob, offsets, derived = extra["titles"], extra["titles_offsets"].cast("q"), extra["derived"]
    except (KeyError, TypeError, ValueError):
        return None
    if len(offsets) != n + 1 or len(id_offsets) != n + 1 or len(derived) != n or offsets[0] != 0 \
            or id_offsets[0] != 0 or offsets[n] != len(blob) or id_offsets[n] != len(ids):
        return None
    new_ids = [pid.encode("utf-8") for pid, _, _ in added]
    id_ends = array("q", id_offsets)
    id_ends.extend(accumulate(map(len, new_ids), initial=id_offsets[n]))
    del id_ends[n + 1]  # (accumulate's initial value is the last old offset, already there)
    pieces: list[bytes | memoryview] = []
    lengths = [offsets[i + 1] - offsets[i] for i in range(n)]
    flags = bytearray(derived)
    done = 0
    for i in sorted(changed):
        title, flag = changed[i]
        raw = title.encode("utf-8")
        pieces += [blob[offsets[done]:offsets[i]], raw]
        lengths[i], flags[i], done = len(raw), flag, i + 1
    pieces.append(blob[offsets[done]:offsets[n]])
    new_titles = [title.encode("utf-8") for _, title, _ in added]
    pieces += new_titles
    lengths += map(len, new_titles)
    flags += bytes(bool(flag) for _, _, flag in added)
    title_ends = array("q", [0])
    title_ends.extend(accumulate(lengths))
    return [("ids", "s", [ids, *new_ids]), ("ids_offsets", "q", id_ends),
            ("titles", "s", pieces), ("titles_offsets", "q", title_ends), ("derived", "b", flags)]


def annotation_matches(words: list[str], texts: list[tuple[int | None, set[str]]]) -> dict[str, list[int]]:
    """Per query word, the papers whose tag or note tokens start with it.

    Args:
        texts: (corpus index, tokens of the paper's tags and note) per annotated paper.
    """
    out: dict[str, list[int]] = {}
    for word in words:
        docs = [i for i, toks in texts if i is not None and any(t.startswith(word) for t in toks)]
        if docs:
            out[word] = docs
    return out


class Row:
    """A paper as a results table prints it: id, title and the person's triage."""

    __slots__ = ("id", "title", "derived_title", "status", "star", "tags")
    status: str
    star: int
    tags: list[str]

    def __init__(self, paper_id: str, title: str, derived_title: bool, annotation: Annotation | Triage | None = None):
        self.id, self.title, self.derived_title = paper_id, title, derived_title
        self.status, self.star, self.tags = ("unread", 0, []) if annotation is None else \
            (annotation.status, annotation.star, annotation.tags)



class Found(NamedTuple):
    """What a one-shot search found."""

    rows: list[Row]  # the first ``limit`` results, the result set first (store.library.search.SearchResult)
    total: int  # the library's size
    full: int  # the result set's size
    read_as: list[str]  # each word no paper holds, and the one it was read as: "reinforcment → reinforcement"


def quick_search(folder: Path, text: str, limit: int | None) -> Found | None:
    """The first ``limit`` results of a plain word query (no OR), or None when this path cannot
    answer it exactly (the caller opens the Library instead)."""
    q = parse_query(text)
    if not q.words or q.either or q.has_filters or q.similar or q.recommend or q.errors or any("-" in w for w in q.words) \
            or valueless_filters(text):  # (a filter with no value: the full path says so)
        return None  # (a compound's parts standing apart are found by reading the papers: the full path)
    try:
        with open_no_link(folder / locations.CORPUS_FILE) as fh:
            head = _CORPUS_HEAD.match(fh.read(200))
        if head is None:
            return None
        annotations = _read_annotations(folder / locations.ANNOTATIONS_FILE)
        if annotations is None:
            return None
        table = acronyms.read_table(folder / locations.ACRONYMS_FILE, head.group(1).decode())
        if table is None or acronyms.involves(q.words, table):
            return None  # an acronym the papers define, or the acronyms not learned yet: the full path
        with open_no_link(folder / locations.INDEX_CACHE_FILE) as fh:
            if not stamp_matches(fh, head.group(1)):
                return None  # the cache is from another state of the corpus
            return _search(PackReader(fh), q.words, annotations, limit, (folder / locations.CORPUS_FILE, head.group(1)),
                           table)
    except Exception:  # noqa: BLE001 - an optimisation only: anything unexpected takes the full path
        return None


def _read_annotations(path: Path) -> dict[str, Triage] | None:
    """Every annotation by paper id (None if the files changed while being read, or hold more than
    one member's marks)."""
    journal = journal_path_for(path)

    def signature() -> tuple[tuple[int, int, int] | None, ...]:
        return tuple((st.st_ino, st.st_size, st.st_mtime_ns) if (st := _stat(p)) else None for p in (path, journal))

    before = signature()
    if before == (None, None):
        return {}
    import json  # only when there are annotations (the standard library's: importing orjson costs more here)

    data = read_snapshot(path, json.loads) if before[0] else {}
    replay_journal(journal, data, json.loads)
    if signature() != before:
        return None
    found = {}
    for rec in (data.get(ANN) or {}).values():
        if not is_record(rec) or "member" in rec:
            return None  # a team's library: whose marks count depends on who asks (the full path knows)
        found[rec["paper_id"]] = triage = Triage(rec)
        if triage.unreadable:
            return None  # a forged or damaged record: the full path reads it and says so
    return found


class Triage:
    """What a one-shot search uses of an annotation, read from its record as
    ``Annotation.from_record`` reads it (importing store.records, with dataclasses,
    would cost the search ~8 ms)."""

    __slots__ = ("status", "star", "tags", "note", "unreadable")

    def __init__(self, rec: dict[str, Any]) -> None:
        fields, self.unreadable = read_fields(rec)  # (the fields of the wrong kind: read as their defaults)
        self.status, self.star, self.tags, self.note = fields["status"], fields["star"], fields["tags"], fields["note"]


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


def _search(reader: PackReader, words: list[str], annotations: dict[str, Triage], limit: int | None,
            corpus: tuple[Path, bytes], table: acronyms.Table) -> Found | None:
    n_docs = index_size(cast("array[int]", reader.read("meta")))  # the sections' kinds: SearchIndex.dump_chunks
    if n_docs is None or reader.count("ids_offsets") != n_docs + 1:
        return None
    offsets = cast("array[int]", reader.read("offsets"))
    vocab = Vocabulary(SortedWords(loader=chunk_loader(reader, "terms")), SortedWords(loader=chunk_loader(reader, "stems")),
                       cast("array[int]", reader.read("stem_offsets")), cast("array[int]", reader.read("stem_members")),
                       offsets)
    if any(_parts_meet(vocab, reader, w, c) for w in words if (c := joined_compound(w, vocab)) is not None):
        return None  # a word written together whose parts may stand apart in a paper: the full path reads them
    # a word no paper holds, read as the one it stands for ("reinforcment"), counts as that word
    read = {w: r for w in content_words(words) if (r := vocab.read_as(w))}
    words = [read.get(w, w) for w in words] if read else words
    if acronyms.involves(words, table):
        return None  # words spelling out an acronym ("reinforcment learning"): the full path counts it
    texts = [(pid, a) for pid, a in annotations.items() if a.tags or a.note]
    extra: dict[str, list[int]] = {}
    if texts:
        ids = cast(str, reader.read("ids"))
        bounds = cast("array[int]", reader.read("ids_offsets"))
        index_of = {ids[bounds[i]:bounds[i + 1]]: i for i in range(n_docs)}  # byte offsets: ids are ASCII
        if len(ids) != bounds[-1] or not all(pid in index_of for pid, _ in texts):
            return None  # keyed by an alias: the Library resolves those
        extra = annotation_matches(words, [(index_of[pid], set(search_tokens(" ".join(a.tags) + " " + a.note)))
                                           for pid, a in texts])
    order, full, key = rank(vocab, reader, cast("array[float]", reader.read("idf")), words, extra)
    together = _together_first(vocab, reader, corpus, words, order, key, full)
    if together is None:
        return None
    order = together
    rows = []
    for d in order[:limit]:
        pid = read_item(reader, "ids", d)
        rows.append(Row(pid, read_item(reader, "titles", d), bool(reader.read("derived", d, d + 1)[0]),
                        annotations.get(pid)))
    return Found(rows, n_docs, full, [f"{w} → {r}" for w, r in read.items()])


def _together_first(vocab: Vocabulary, reader: PackReader, corpus: tuple[Path, bytes], words: list[str],
                    order: list[int], key: dict[int, float], full: int) -> list[int] | None:
    """LibrarySearch._together_first without numpy: the first papers of the result set read
    again from the corpus file (where the index file says their lines start), reordered by how
    close together each holds the query's words. None when a line is not the paper the index
    says (the corpus file changed meanwhile): the full path answers."""
    top = min(full, proximity.PROXIMITY_DEPTH)
    groups = proximity.word_groups(words, vocab.forms)
    if top < 2 or len(groups) < 2:
        return order
    if "lines" not in reader:
        return None
    path, generation = corpus
    spans = []
    with open_no_link(path) as fh:
        head = _CORPUS_HEAD.match(fh.read(200))
        if head is None or head.group(1) != generation:
            return None
        for d in order[:top]:
            start, end = cast("array[int]", reader.read("lines", d, d + 2))
            if not 0 < start < end <= start + LINE_MAX:
                return None
            fh.seek(start)
            rec = orjson.loads(fh.read(end - start))
            if not isinstance(rec, dict) or rec.get("id") != read_item(reader, "ids", d):
                return None
            fields = [rec.get(k) or default for k, default in zip(proximity.TEXT_FIELDS, ("", [], ""))]
            spans.append(proximity.min_span(proximity.tokens_of(proximity.texts_of(fields)), groups))
    if not any(spans):
        return order
    new = proximity.reordered([key[d] for d in order[:top]], spans, len(groups))
    return [order[i] for i in new] + order[top:]


def _parts_meet(vocab: Vocabulary, reader: PackReader, word: str, compound: str) -> bool:
    """Whether the full search would read a joined word's parts apart: papers hold both parts
    (its last in any form), often enough (store.search.joined.worth_reading)."""
    first, last = compound.split("-")
    tid = vocab.terms.find(first)
    if tid is None:
        return False
    holding = set(cast("array[int]", reader.read("docs", vocab.offsets[tid], vocab.offsets[tid + 1])))
    both: set[int] = set()
    for i in compound_part_ids(last, vocab):
        both.update(holding.intersection(cast("array[int]", reader.read("docs", vocab.offsets[i], vocab.offsets[i + 1]))))
    return worth_reading(word, vocab, len(both))


def _f32(x: float) -> float:
    return array("f", (x,))[0]


K1_PLUS_1 = _f32(K1 + 1)


def bm25_weights(tf: Sequence[int], docs: Sequence[int], norms: Sequence[float]) -> "array[float]":
    """store.search.index.saturated's float32 weights, the same floats: each operation is made
    in double (exact for these operands) and rounded to float32 (a division's double rounding is
    innocuous at these precisions)."""
    numerators = array("f", [t * K1_PLUS_1 for t in tf])
    denominators = array("f", [norms[d] + t for d, t in zip(docs, tf)])
    return array("f", [x / y for x, y in zip(numerators, denominators)])


def rank(vocab: Vocabulary, reader: PackReader, idf: Sequence[float], words: list[str],
         extra: dict[str, list[int]]) -> tuple[list[int], int, dict[int, float]]:
    """Documents matching any query word, those holding every content word first, each part best
    first, how many hold every one, and each one's key: SearchIndex.rank without numpy."""
    total: dict[int, float] = {}
    coverage: dict[int, float] = {}
    present: dict[int, int] = {}
    content = set(content_words(words))
    offsets = vocab.offsets
    norms = cast("array[float]", reader.read("norms"))
    for word in dict.fromkeys(words):
        variants = vocab.expand(word)
        score: dict[int, float] = {}
        sim_of: dict[int, float] = {}
        counted: set[int] = set()  # holds the word, for the result set (Vocabulary.expand)
        for d in extra.get(word, ()):
            score[d] = ANNOTATION_WEIGHT
            sim_of[d] = 1.0
            counted.add(d)
        ceiling = idf_ceiling(variants, idf)
        for tid, sim, cover, counts in variants:
            assert ceiling is not None  # there are variants
            a, b = offsets[tid], offsets[tid + 1]
            term_idf = min(idf[tid], ceiling)
            sim32, cover32 = _f32(sim), _f32(cover)
            w = _f32(term_idf * sim32)
            docs = cast("array[int]", reader.read("docs", a, b))
            weights = array("f", [x * w for x in bm25_weights(cast("array[int]", reader.read("tf", a, b)), docs, norms)])
            if counts and cover > 0:
                counted.update(docs)
            if not score and w > 0:  # the first variant: every posting (weight > 0) is the best yet
                score.update(zip(docs, weights))
                sim_of.update(dict.fromkeys(docs, cover32))
                continue
            get_score, get_sim = score.get, sim_of.get
            for d, v in zip(docs, weights):
                if v > get_score(d, 0.0):
                    score[d] = v
                if cover32 >= get_sim(d, 0.0):  # >=: a look-alike (coverage 0) still records d
                    sim_of[d] = cover32
        keys = list(score)
        total.update(zip(keys, array("f", [total.get(d, 0.0) + score[d] for d in keys])))
        coverage.update(zip(keys, array("f", [coverage.get(d, 0.0) + sim_of[d] for d in keys])))
        if word in content:
            for d in counted:
                present[d] = present.get(d, 0) + 1
    key = {d: c * COVERAGE_WEIGHT + total[d] for d, c in coverage.items() if c > 0}
    order = sorted(key)
    order.sort(key=lambda d: -key[d])  # stable: ties stay in document order, as numpy's stable argsort
    need = len(content)
    full = [d for d in order if present.get(d, 0) == need]
    rest = [d for d in order if present.get(d, 0) != need]
    kept = weaker_kept(len(full), [present.get(d, 0) for d in rest], need)
    return full + [rest[i] for i in kept], len(full), key


WEAKER_SHOWN = 100  # weaker matches listed after the result set (or, when it is empty, in its place)


def weaker_kept(full: int, present: list[int], need: int) -> list[int]:
    """Which of the matches after the result set are shown (positions in ``present``, the number
    of content words each holds, best first): after a set, those holding most (more than half) of
    the ``need`` words; with no set, the best partial matches; ``WEAKER_SHOWN`` at most."""
    kept = [i for i, p in enumerate(present) if not full or p * 2 > need]
    return kept[:WEAKER_SHOWN]
