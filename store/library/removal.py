"""Removing papers from a library, and the bundled sample giving way to your own papers.

A removal takes the papers and their annotations out as one change: both files are backed up
first, and one undo entry holds the removed papers' records and their places in the import
order, so ``undo`` puts the papers back where they were, with every member's annotations (and
``redo`` takes them out again). The entry is written before the corpus, together with a mark that
the corpus write is pending; the mark is cleared once it is made. A kill between the two leaves
the mark, and the next open of the library finishes the step and says so
(:func:`finish_cut_step`), so no state half-way between is ever shown or built upon.

The bundled NeurIPS sample fills a new library so the app opens onto something. The first
import into a library that holds only the untouched sample (every paper read from the bundled
files, nothing annotated) replaces it; an annotated sample stays, and the import says how to
remove it.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

import orjson

from store import locations
from store.files.atomic import append_durably, atomic_write_bytes
from store.files.nofollow import read_no_link
from store.annotations.backups import backup_file
from store.annotations.database import HISTORY_LIMIT
from store.annotations.storage import now_iso
from store.errors import PapersiftError
from store.corpus import Corpus
from store.models import Paper
from store.records import Assignment, RecordKey, read_record
from store.wording import counted

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


def _sample_of_the_app(lib: LibraryCore) -> bool:
    """Whether the sample's papers may be the app's first start's: no batch is a person's import
    (``papersift import seeds/`` by hand makes them papers of theirs, which an import never replaces)."""
    return not any(b.get("chosen") is True for b in lib.corpus.batches)


def untouched_sample(lib: LibraryCore) -> bool:
    """True when the library holds the bundled sample and nothing else, none of it annotated."""
    return (0 < len(lib) <= SAMPLE_CHECK_MAX and not any(lib.member_marks.values()) and not lib.assignments
            and len(sample_ids(lib)) == len(lib) and _sample_of_the_app(lib))


def annotated_sample(lib: LibraryCore) -> int:
    """How many sample papers a small library still holds when some of them are annotated (a
    first import keeps them; 0 otherwise)."""
    if not 0 < len(lib) <= SAMPLE_CHECK_MAX or not _sample_of_the_app(lib):
        return 0
    ids = sample_ids(lib)
    return len(ids) if any(i in lib.annotations for i in ids) else 0


def remove_papers(lib: LibraryCore, ids: list[str], label: str, archived: str = "") -> int:
    """Take papers and their annotations out of the library (one undo step). Returns how many.

    Three writes: the undo entry (every member's records of the papers, cleared) with the corpus
    write marked pending, then (for ``archived``, an archive's time) the archive's lines, then the
    corpus without the papers, then the mark cleared. A kill anywhere between them leaves the mark,
    and the next open finishes the step (:func:`finish_cut_step`)."""
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
        lines = _archive_lines(gone, lib.member_marks, lib.assignments, archived, lib.owner) if archived else b""
        places = [lib.corpus.index_of(p.id) for p in gone]
        extra: dict[str, Any] = {"papers": [p.to_record() for p in gone], "places": places, STAGED: True}
        pending: dict[str, Any] = {"action": REMOVE_ACTION, "ids": [p.id for p in gone]}
        if archived:
            extra[ARCHIVED] = pending[ARCHIVED] = archived
        lib.store.apply(cleared, REMOVE_ACTION, label, extra=extra, member=lib.member, owner=lib.owner,
                        pending=pending)
        lib.install(cleared)
        if lines:
            _append_archive(lib, lines)
        _save_without(lib, {p.id for p in gone})
        lib.store.clear_pending()
        taken_out(lib, [p.id for p in gone])
    return len(gone)


STAGED = "staged"  # an undo entry whose corpus write is marked pending until made (the doctor's older check skips it)
ARCHIVED = "archived"  # an archive's time: on its undo entry, its pending mark and each of its lines


def finish_cut_step(lib: LibraryCore) -> str:
    """Finish a removal, or its undo or redo, that a kill cut short between its writes (its
    pending mark is still in the annotations file): the papers out of the corpus (and into the
    archive, for an archive), or back in. Run when a library opens; a step under way in another
    process holds the lock, so it is never taken for a cut one. Returns what to tell the user
    ("" when every step was whole)."""
    if lib.store.pending() is None:
        return ""
    with lib.lock.held():
        lib.refresh()
        lib.refresh_corpus()
        step = lib.store.pending()
        if step is None:
            return ""
        said = ""
        if step.get("action") == REMOVE_ACTION:
            said = _finish_removal(lib, step)
        elif step.get("action") == "restore":
            said = _finish_restore(lib, step)
        lib.store.clear_pending()
        return said


def _finish_removal(lib: LibraryCore, step: dict[str, Any]) -> str:
    """A removal (or archive) cut short: its lines archived, its papers out of the corpus."""
    ids = {i for i in step.get("ids") or [] if isinstance(i, str)}
    if isinstance(step.get(ARCHIVED), str):
        _archive_cut_lines(lib, step[ARCHIVED])
    present = {i for i in ids if lib.corpus.index_of(i) is not None}
    if present:
        _save_without(lib, present)
    return (f"a removal of {counted(len(ids), 'paper')} was cut short (the process was stopped); it is "
            "finished now (`papersift undo` puts them back with every member's marks)")


def _finish_restore(lib: LibraryCore, step: dict[str, Any]) -> str:
    """An undo of a removal cut short: its papers back in the corpus, at their places."""
    records = [r for r in step.get("papers") or [] if isinstance(r, dict) and isinstance(r.get("id"), str)]
    _put_back(lib, records, step)
    return (f"an undo of a removal was cut short (the process was stopped); it is finished now: "
            f"{counted(len(records), 'paper')} back with their marks")


def _archive_lines(papers: list[Paper], team: dict[str, dict[str, Any]], assignments: dict[str, str],
                   when: str, owner: str) -> bytes:
    """The archive's lines: each paper with every member's marks (as stored: the owner's name
    none), and its assignment."""
    lines = []
    for paper in papers:
        marks = {name: anns[paper.id].to_record(owner) for name, anns in team.items() if paper.id in anns}
        if paper.id in assignments:
            marks["@assignment"] = {"assignee": assignments[paper.id]}
        lines.append(orjson.dumps({ARCHIVED: when, "paper": paper.to_record(), "marks": marks}) + b"\n")
    return b"".join(lines)


def _append_archive(lib: LibraryCore, lines: bytes) -> None:
    """Append whole lines to the archive, after its last whole line: a line a kill cut short (never
    acknowledged) is kept in backups/, said, and written over, so no new line lands on it."""
    path = lib.folder / locations.ARCHIVE_FILE
    data = path.read_bytes() if path.exists() else b""
    whole = data.rfind(b"\n") + 1
    if whole < len(data):
        kept = backup_file(path, "archive-cut-line")
        lib.notices.append(f"{locations.ARCHIVE_FILE} ended in a line a stopped archive cut short: kept in "
                           f"{locations.BACKUP_DIR}/{kept.name if kept else '-'}, and its paper archived again whole")
    append_durably(path, lines, whole)


def _archive_token(when: str) -> bytes:
    """What each line of the archive made at ``when`` starts with: '"archived":"…"'."""
    return orjson.dumps({ARCHIVED: when})[1:-1]


def _archived_ids(lib: LibraryCore, when: str) -> set[str]:
    """The papers whose whole line the archive holds for the archive made at ``when``."""
    path = lib.folder / locations.ARCHIVE_FILE
    found: set[str] = set()
    if not path.exists():
        return found
    token = _archive_token(when)
    for line in path.read_bytes().split(b"\n")[:-1]:  # (the last piece is "" or a cut line)
        if token in line:
            try:
                rec = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            paper = rec.get("paper") if isinstance(rec, dict) else None
            if isinstance(paper, dict) and isinstance(paper.get("id"), str):
                found.add(paper["id"])
    return found


def _archive_cut_lines(lib: LibraryCore, when: str) -> None:
    """An archive cut short before all its lines were written: the missing ones written now (each
    paper's line once), from its undo entry (the papers and every member's records as they were)."""
    entry = next((e for e in lib.store.history(limit=HISTORY_LIMIT) if e.get(ARCHIVED) == when), None)
    if entry is None:
        return
    have = _archived_ids(lib, when)
    papers = [Paper.from_record(r) for r in entry.get("papers") or [] if isinstance(r, dict)
              and r.get("id") not in have]
    if not papers:
        return
    team: dict[str, dict[str, Any]] = {}
    assignments: dict[str, str] = {}
    for key, rec in (entry.get("before") or {}).items():
        if not isinstance(rec, dict):
            continue
        ann, pid = read_record(rec)[0], RecordKey.parse(key).paper
        if isinstance(ann, Assignment):
            if ann.assignee:
                assignments[pid] = ann.assignee
        else:
            team.setdefault(ann.member or lib.owner, {})[pid] = ann
    _append_archive(lib, _archive_lines(papers, team, assignments, when, lib.owner))


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
    no member wants: none starred or marked to read, none assigned to another member (an archive
    takes a paper out for everyone). What ``archive --skipped-before`` moves out of the way.

    Raises:
        PapersiftError: ``date`` is not a date (2026-11-01).
    """
    try:
        if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", date):  # (ASCII digits: "２０２６" compares wrongly)
            raise ValueError(date)
        datetime.strptime(date, "%Y-%m-%d")  # (a real day: not 2026-13-45)
    except ValueError:
        raise PapersiftError(f"--skipped-before {date!r}: a date, as 2026-11-01") from None
    wanted = {pid for anns in lib.member_marks.values() for pid, a in anns.items() if a.star or a.status == "to-read"}
    wanted.update(pid for pid, who in lib.assignments.items() if who != lib.member)
    return [pid for pid, a in lib.annotations.items()
            if a.status == "skipped" and pid not in wanted and (a.stamps.get("status") or a.updated or "9")[:10] < date
            and lib.corpus.index_of(pid) is not None]


def archive_papers(lib: LibraryCore, ids: list[str], label: str) -> int:
    """Move papers out of the library into ``archive.jsonl`` (each line the paper and every member's
    marks, fsynced before the corpus is written) as one undo step: undo puts them back with their
    marks; the archive keeps them whatever happens to the history."""
    return remove_papers(lib, ids, label, archived=now_iso())


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


def _put_back(lib: LibraryCore, records: list[dict[str, Any]], step: dict[str, Any]) -> list[Paper]:
    """A removal's papers back in the corpus at the places its ``step`` kept (but those here
    already, imported again since) and out of the archive it made; returns those put back."""
    if isinstance(step.get(ARCHIVED), str):  # (its papers are back: no longer in the archive)
        unarchive(lib, step[ARCHIVED])
    places = step.get("places") or []
    back = [(places[i] if i < len(places) and isinstance(places[i], int) else None, Paper.from_record(rec))
            for i, rec in enumerate(records) if lib.corpus.index_of(rec["id"]) is None]
    if back:
        _save_with(lib, back)
    return [paper for _, paper in back]


def redo_corpus(lib: LibraryCore, entry: dict[str, Any], undone: bool) -> str:
    """The corpus side of undoing (``undone``) or redoing a removal: its papers back, or out again.
    Returns what the undo's label should add ("" mostly): that the papers were back already."""
    records = entry.get("papers") or []
    if entry.get("action") != REMOVE_ACTION or not records:
        return ""
    if undone:
        back = _put_back(lib, records, entry)
        # A paper an import brought back meanwhile only gets its marks back: not restored, and
        # no longer removed either.
        brought_back(lib, [paper.id for paper in back])
        lib.removed.difference_update(rec["id"] for rec in records)
        already = len(records) - len(back)
        if already:
            return (" (the paper was back already, imported again: its marks are back)" if len(records) == 1
                    else f" ({already:,} of its papers were back already, imported again: their marks are back)")
    else:
        if isinstance(entry.get(ARCHIVED), str):  # an archive's lines written again, as it wrote them
            _archive_cut_lines(lib, entry[ARCHIVED])
        _save_without(lib, {rec["id"] for rec in records})
        taken_out(lib, [rec["id"] for rec in records])
    return ""


def unarchive(lib: LibraryCore, when: str) -> None:
    """The archive made at ``when`` taken out of archive.jsonl (its undo put its papers back): an
    undone archive left its lines, and archiving again wrote each paper twice."""
    path = lib.folder / locations.ARCHIVE_FILE
    if not path.exists():
        return
    token = _archive_token(when)
    data = read_no_link(path)
    *lines, tail = data.split(b"\n")  # (tail: b"", or a line a stopped archive cut short, kept as it is)
    new = b"".join(line + b"\n" for line in lines if token not in line) + tail
    if len(new) != len(data):
        atomic_write_bytes(path, new)


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
