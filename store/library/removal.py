"""Removing papers from a library, and the bundled sample giving way to your own papers.

A removal takes the papers and their annotations out as one change: both files are backed up
first, and one undo entry holds the removed papers' records and their places in the import
order, so ``undo`` puts the papers back where they were, with their annotations (and ``redo``
takes them out again). The entry is written before the
corpus: a kill between the two leaves the papers in place and an undo that adds nothing twice.

The bundled NeurIPS sample fills a new library so the app opens onto something. The first
import into a library that holds only the untouched sample (every paper read from the bundled
files, nothing annotated) replaces it; an annotated sample stays, and the import says how to
remove it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import orjson

from store import locations
from store.annotations.atomic import append_durably
from store.annotations.backups import backup_file
from store.annotations.database import now_iso
from store.errors import PapersiftError
from store.corpus import Corpus
from store.models import Paper

if TYPE_CHECKING:
    from store.library.core import LibraryCore

REMOVE_ACTION = "remove"


def sample_files() -> set[str]:
    """The names of the bundled sample's files."""
    folder = locations.bundled_seeds_dir()
    return {p.name for p in folder.iterdir()} if folder.is_dir() else set()


def sample_ids(lib: LibraryCore) -> list[str]:
    """The papers read from the bundled sample alone."""
    names = sample_files()
    return [p.id for p in lib.corpus if p.sources and all(s.file in names for s in p.sources)]


SAMPLE_CHECK_MAX = 1_000  # a library larger than this is not the sample alone (which is 35 papers)


def untouched_sample(lib: LibraryCore) -> bool:
    """True when the library holds the bundled sample and nothing else, none of it annotated."""
    return (0 < len(lib) <= SAMPLE_CHECK_MAX and not any(lib.team.values()) and not lib.assignments
            and len(sample_ids(lib)) == len(lib))


def annotated_sample(lib: LibraryCore) -> int:
    """How many sample papers a small library still holds when some of them are annotated (a
    first import keeps them; 0 otherwise)."""
    if not 0 < len(lib) <= SAMPLE_CHECK_MAX:
        return 0
    ids = sample_ids(lib)
    return len(ids) if any(i in lib.annotations for i in ids) else 0


def remove_papers(lib: LibraryCore, ids: list[str], label: str) -> int:
    """Take papers and their annotations out of the library (one undo step). Returns how many."""
    with lib.lock.held():
        lib.refresh()
        lib.refresh_corpus()
        gone = [lib.paper(i) for i in dict.fromkeys(ids)]
        gone = list({p.id: p for p in gone}.values())
        if not gone:
            return 0
        lib.store.compact()  # a backup of annotations.json must hold the journal too
        backup_file(lib.annotations_path, REMOVE_ACTION)
        backup_file(lib.corpus_path, REMOVE_ACTION, replaced_whole=True)
        cleared = lib.records_of_papers(p.id for p in gone)  # every member's, and the assignment
        places = [lib.corpus.index_of(p.id) for p in gone]
        lib.store.apply(cleared, REMOVE_ACTION, label, extra={"papers": [p.to_record() for p in gone], "places": places},
                        member=lib.member, owner=lib.owner)
        lib.install(cleared)
        _save_without(lib, {p.id for p in gone})
        taken_out(lib, [p.id for p in gone])
    return len(gone)


def taken_out(lib: LibraryCore, ids: list[str]) -> None:
    """What the session line says of papers removed here: removed, or, if an undo here had
    brought them back, nothing any more."""
    for pid in ids:
        if pid in lib.restored:
            lib.restored.discard(pid)
        else:
            lib.removed.add(pid)


def brought_back(lib: LibraryCore, ids: list[str]) -> None:
    """The other way: a paper removed here is no longer removed; one an earlier session removed
    is restored."""
    for pid in ids:
        if pid in lib.removed:
            lib.removed.discard(pid)
        else:
            lib.restored.add(pid)


def skipped_before(lib: LibraryCore, date: str) -> list[str]:
    """The papers this member skipped before ``date`` (their status's change time is earlier) that
    no member starred: what ``archive --skipped-before`` moves out of the way.

    Raises:
        PapersiftError: ``date`` is not a date (2026-11-01).
    """
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
        raise PapersiftError(f"--skipped-before {date!r}: a date, as 2026-11-01")
    starred = {pid for anns in lib.team.values() for pid, a in anns.items() if a.star}
    return [pid for pid, a in lib.annotations.items()
            if a.status == "skipped" and pid not in starred and (a.stamps.get("status") or a.updated or "9")[:10] < date
            and lib.corpus.index_of(pid) is not None]


def archive_papers(lib: LibraryCore, ids: list[str], label: str) -> int:
    """Move papers out of the library into ``archive.jsonl`` (each line the paper and every member's
    marks, appended and fsynced before anything is taken out), then remove them as one undo step:
    undo puts them back with their marks; the archive keeps them whatever happens to the history."""
    with lib.lock.held():
        lib.refresh()
        lines = []
        when = now_iso()
        for pid in dict.fromkeys(ids):
            paper = lib.paper(pid)
            marks = {name: anns[pid].to_record() for name, anns in lib.team.items() if pid in anns}
            if pid in lib.assignments:
                marks["@assignment"] = {"assignee": lib.assignments[pid]}
            lines.append(orjson.dumps({"archived": when, "paper": paper.to_record(), "marks": marks}) + b"\n")
        path = lib.folder / locations.ARCHIVE_FILE
        length = path.stat().st_size if path.exists() else 0
        append_durably(path, b"".join(lines), length)
    return remove_papers(lib, ids, label)


def _save_without(lib: LibraryCore, ids: set[str]) -> None:
    kept = Corpus([p for p in lib.corpus if p.id not in ids], [list(pair) for pair in lib.corpus.separate])
    kept.title_rules = lib.corpus.title_rules
    kept.batches = lib.corpus.batches
    kept.save(lib.corpus_path)
    lib.corpus = kept
    lib.invalidate()


def _save_with(lib: LibraryCore, back: list[tuple[int | None, Paper]]) -> None:
    """Put papers back at their old places in the import order (an entry written before places
    were kept, or a place past the end, appends)."""
    papers = list(lib.corpus)
    for place, paper in sorted(back, key=lambda pair: (pair[0] is None, pair[0] or 0)):
        papers.insert(place if place is not None and place <= len(papers) else len(papers), paper)
    restored = Corpus(papers, [list(pair) for pair in lib.corpus.separate])
    restored.title_rules = lib.corpus.title_rules
    restored.batches = lib.corpus.batches
    restored.save(lib.corpus_path)
    lib.corpus = restored
    lib.invalidate()


def redo_corpus(lib: LibraryCore, entry: dict[str, Any], undone: bool) -> str:
    """The corpus side of undoing (``undone``) or redoing a removal: its papers back, or out again.
    Returns what the undo's label should add ("" mostly): that the papers were back already."""
    records = entry.get("papers") or []
    if entry.get("action") != REMOVE_ACTION or not records:
        return ""
    if undone:
        places = entry.get("places") or []
        back = [(places[i] if i < len(places) and isinstance(places[i], int) else None, Paper.from_record(rec))
                for i, rec in enumerate(records) if lib.corpus.index_of(rec["id"]) is None]
        if back:
            _save_with(lib, back)
        # A paper an import brought back meanwhile only gets its marks back: not restored, and
        # no longer removed either.
        brought_back(lib, [paper.id for _, paper in back])
        lib.removed.difference_update(rec["id"] for rec in records)
        already = len(records) - len(back)
        if already:
            return (" (the paper was back already, imported again: its marks are back)" if len(records) == 1
                    else f" ({already:,} of its papers were back already, imported again: their marks are back)")
    else:
        _save_without(lib, {rec["id"] for rec in records})
        taken_out(lib, [rec["id"] for rec in records])
    return ""


def replace_untouched_sample(lib: LibraryCore) -> int:
    """Before an import: the untouched sample makes way (backed up first). Returns how many
    sample papers went (0 when the library holds anything else, or anything annotated).

    Only in memory: the import merges into an empty corpus and its save writes the file; an
    import that fails reloads the file, sample and all.
    """
    if not untouched_sample(lib):
        return 0
    n = len(lib)
    backup_file(lib.corpus_path, "sample", replaced_whole=True)
    empty = Corpus()
    empty.file_signature = lib.corpus.file_signature  # the file is unchanged until the import saves
    empty.generation = lib.corpus.generation
    empty.batches = lib.corpus.batches  # (numbers go on: the sample's import was batch 1)
    lib.corpus = empty
    lib.invalidate()
    return n
