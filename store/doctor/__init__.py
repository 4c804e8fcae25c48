"""Check a library and repair what can be repaired safely.

Checks: the corpus and annotations files parse and are papersift's; every
paper line parses and the header's ids match the papers; every annotation
points at a paper (orphans whose id is a merged alias are re-pointed); the
undo history is well-formed; backups exist; the search-index cache matches.

Repairs (with ``repair=True``), each reported: a damaged file is moved aside
(``<file>.damaged-<time>``) and the newest backup that passes the checks is
restored; a corpus header that disagrees with its papers is rebuilt from them;
re-pointable orphan annotations are moved to their paper; a stale or damaged
index cache is rebuilt. Nothing is deleted.
"""

from __future__ import annotations

import copy
import errno
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable


from store import locations, versions
from store.annotations.database import AnnotationStore
from store.annotations.storage import JournaledJSONStorage
from store.files.atomic import atomic_write_bytes, open_reading, stale_temp_files
from store.annotations.backups import backup_file, damaged_copies, list_backups
from store.corpus import Corpus
from store.doctor import steps as doctor_steps
from store.doctor.report import DoctorReport
from store.doctor.records import _check_tags, _check_fields, _check_corpus_fields, _check_archive, _check_member_names
from store.annotations.drafts import NoteDrafts
from store.errors import CorruptFileError
from store.annotations.journal import ANN, journal_path_for
from store.record_fields import is_record
from store.wording import counted
from store.safe_text import shown_unsafe

if TYPE_CHECKING:
    from store.library import Library


def _stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def _check_corpus_file(path: Path) -> str | None:
    """None when the file is a sound corpus, else what is wrong."""
    return _load_checked_corpus(path)[1]


def _load_checked_corpus(path: Path) -> tuple[Corpus | None, str | None]:
    """The corpus and None when the file is sound, else None and what is wrong."""
    try:
        corpus = Corpus.load(path)
        for i, paper in enumerate(corpus.papers):
            if corpus.index_of(paper.id) != i:
                return None, f"line {i + 2}: paper {paper.id} does not match the header's id list"
    except CorruptFileError as exc:
        return None, str(exc).split(". papersift will not")[0]
    except OSError as exc:
        return None, f"{path}: cannot be read ({exc.strerror or exc})"
    return corpus, None


def _check_annotations_file(path: Path) -> str | None:
    try:
        AnnotationStore(path).load_records()
    except CorruptFileError as exc:
        return str(exc).split(". papersift will not")[0]
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"{path.name} (or its journal) cannot be read: it is a link"
        return f"{exc.filename or path}: cannot be read ({exc.strerror or exc})"  # (or its journal)
    except (KeyError, TypeError, ValueError) as exc:
        return f"{path}: malformed annotation records ({exc!r})"
    return None


def _journal_damage(ann_path: Path) -> tuple[list[str], JournaledJSONStorage]:
    """What reading the annotations' journal found wrong (each copy kept in backups/)."""
    storage = JournaledJSONStorage(ann_path)
    storage.read()
    return storage.take_reports(), storage


def _repair_journal(ann_path: Path, storage: JournaledJSONStorage, report: DoctorReport,
                    journal_kept: bool) -> None:
    """Fold what the journal holds whole into the snapshot (the journal as found is already in
    backups/ when it was damaged, its damaged lines' changes with it) and start the
    acknowledged-change mark again."""
    data = storage.read()
    if data is None:
        return
    journal = journal_path_for(ann_path)
    entries, lost = storage._journal_lines, storage.journal_lost
    storage.write(data)  # (the snapshot with every whole change; the journal emptied; the mark anew)
    report.repaired.append(f"folded {journal.name}'s {counted(entries, 'whole change')} into {ann_path.name} and "
                           "wrote the mark of the newest saved change anew"
                           + (f" (the journal as found is in {locations.BACKUP_DIR}/)" if journal_kept else ""))
    if lost:  # (said as a problem: the repair could not bring them back)
        report.problems.append(f"{counted(lost, 'change')} in damaged lines of {journal.name} could not be "
                               f"recovered (their bytes are in {locations.BACKUP_DIR}/)")


def _restore(path: Path, check: Callable[[Path], str | None], report: DoctorReport) -> bool:
    """Move a damaged file aside and restore the newest backup that passes ``check``."""
    for backup in list_backups(path):
        if check(backup) is None:
            aside = path.with_name(f"{path.name}.damaged-{_stamp()}")
            os.replace(path, aside)
            atomic_write_bytes(path, backup.read_bytes())
            report.repaired.append(f"moved the damaged {path.name} to {aside.name} and restored {backup.name}")
            return True
    report.problems.append(f"no good backup of {path.name} to restore; the file was left as it is")
    return False


def _kept_as_found(path: Path, report: DoctorReport) -> Path | None:
    """A damaged file copied into backups/ before a repair rewrites it (None, said: nothing is
    then changed)."""
    from store.annotations.backups import keep_damaged

    kept, _ = keep_damaged(path)
    if kept is None:
        report.problems.append(f"could not repair: {path.name} could not be copied to {locations.BACKUP_DIR}/ "
                               "first; nothing was changed")
    return kept


def _rebuild_corpus(path: Path, report: DoctorReport) -> None:
    """A damaged corpus rebuilt from its own whole lines and, for the papers its header names that
    no whole line holds, the newest good backup (store.doctor.corpus_salvage); the file as found
    stays in backups/, and a paper neither holds is counted as a problem."""
    from store.doctor.corpus_salvage import salvage

    good = next((b for b in list_backups(path) if ".damaged-" not in b.name and _check_corpus_file(b) is None), None)
    found = salvage(path, Corpus.load(good) if good is not None else None)
    if not len(found.corpus):
        report.problems.append(f"no paper of {path.name} could be read, and no good backup holds any; the file "
                               "was left as it is")
        return
    kept = _kept_as_found(path, report)
    if kept is None:
        return
    found.corpus.save(path)
    sources = [f"{counted(found.whole, 'whole paper')} of the damaged file"]
    if found.from_backup:
        sources.append(f"{counted(found.from_backup, 'paper')} from the backup {good.name if good else ''}")
    report.repaired.append(f"rebuilt {path.name} from " + " and ".join(sources) +
                           f" (the file as found is {locations.BACKUP_DIR}/{kept.name})")
    if found.header_lost:
        report.ok.append(f"{path.name}'s first line (which lists its papers) was damaged: every paper of the "
                         "backup that no whole line held is back, so one removed since that backup may be too")
    if found.lost:
        ids = ", ".join(found.lost_ids[:5]) + (", …" if len(found.lost_ids) > 5 else "")
        report.problems.append(f"{counted(found.lost, 'paper')} could not be recovered ({ids}): in the damaged part of "
                               f"{path.name} and in no backup (`papersift import` of the files they came from "
                               "brings them back; their annotations are kept)")


def _rebuild_annotations(path: Path, report: DoctorReport) -> None:
    """A damaged snapshot rebuilt from the newest good backup, its own whole records and the
    journal on top (store.annotations.salvage); the file as found stays in backups/, and every
    acknowledged change that could not be recovered is counted as a problem (never "repaired")."""
    import orjson

    from store.annotations.journal import read_acked, read_snapshot, write_acked
    from store.annotations.salvage import rebuild

    if path.is_symlink() or journal_path_for(path).is_symlink():  # (said by the folder's check: left for you)
        return
    kept = _kept_as_found(path, report)
    if kept is None:
        return
    backup = next((b for b in list_backups(path) if ".damaged-" not in b.name and _check_annotations_file(b) is None),
                  None)
    tables = read_snapshot(backup, orjson.loads) if backup is not None else None
    journal = journal_path_for(path)
    journal_copy = backup_file(journal, "before-repair") if journal.exists() else None
    found = rebuild(path, tables, read_acked(path))
    atomic_write_bytes(path, orjson.dumps(found.data))
    if journal.exists():
        atomic_write_bytes(journal, b"")  # (every change it held is in the snapshot now; a copy is in backups/)
    write_acked(path, found.newest)
    sources = [f"the backup {backup.name}" if backup else "no backup"]
    sources.append(f"{counted(found.salvaged, 'whole record')} of the damaged file")
    sources.append(f"{counted(found.replayed, 'journal change')}")
    report.repaired.append(f"rebuilt {path.name} from " + ", ".join(sources) + f" (the file as found is "
                           f"{locations.BACKUP_DIR}/{kept.name}" +
                           (f", the journal {locations.BACKUP_DIR}/{journal_copy.name})" if journal_copy else ")"))
    if found.history_lost:
        report.ok.append(f"the undo history's entries in the damaged part of {path.name} are gone (what the "
                         "changes made is in effect; only their undo steps are lost)")
    if found.lost:
        report.problems.append(f"up to {counted(found.lost, 'acknowledged change')} could not be recovered: "
                               f"{'their records were in the damaged part of ' + path.name} "
                               f"(kept as found in {locations.BACKUP_DIR}/{kept.name})")


def run_doctor(folder: Path, repair: bool = False) -> DoctorReport:
    """Check (and optionally repair) the library at ``folder``. A repair that cannot write (a
    read-only or full file system) is reported as a problem, never as repaired."""
    report = DoctorReport()
    try:
        _run(folder, repair, report)
    except OSError as exc:  # (WriteFailedError included): the repair under way could not write
        reason = getattr(exc, "reason", None) or exc.strerror or str(exc)
        report.problems.append(f"could not repair: {reason} ({getattr(exc, 'path', None) or exc.filename or folder})")
    return report


def _run(folder: Path, repair: bool, report: DoctorReport) -> None:
    """Every check, in order: the folder's links and modes, the corpus, the annotations and their
    journal, the two checked against each other, the fields, tags, names and archive, then the
    drafts, backups and temporary files."""
    corpus_path = folder / locations.CORPUS_FILE
    ann_path = folder / locations.ANNOTATIONS_FILE
    newer = doctor_steps.newer_files(corpus_path, ann_path)
    if newer:  # a newer papersift's library: what this one takes for damage may be its format
        report.problems += newer
        report.newer = True
        return
    doctor_steps.check_links_and_modes(folder, repair, report)
    _check_corpus(corpus_path, repair, report)
    _check_annotations(ann_path, repair, report)
    _cross_check(corpus_path, ann_path, repair, report)
    if ann_path.exists() and _check_annotations_file(ann_path) is None:
        _check_fields(ann_path, repair, report)
        _check_tags(ann_path, repair, report)
        _check_member_names(ann_path, report)
    _check_archive(folder / locations.ARCHIVE_FILE, repair, report)
    _check_leftovers(folder, corpus_path, ann_path, repair, report)


def _check_corpus(corpus_path: Path, repair: bool, report: DoctorReport) -> None:
    """1. The corpus parses and its ids agree; a header that does not match is rebuilt, a corpus
    that does not parse is rebuilt from what can be read (on --repair)."""
    if not corpus_path.exists():
        report.ok.append("no corpus yet (an empty library)")
        return
    sound, problem = _load_checked_corpus(corpus_path)
    if sound is not None:
        report.ok.append(f"{corpus_path.name}: parses, ids consistent")
        _check_corpus_fields(corpus_path, sound, repair, report)
        if sound.title_rules < versions.TITLE_RULES and sound.has_derived_titles():
            report.ok.append("titles: derived by an earlier papersift's rules; `papersift retitle` derives "
                             "them with this version's")
        return
    assert problem is not None  # said when there is no corpus
    report.problems.append(problem)
    if repair and "does not match the header" in problem:
        corpus = Corpus.load(corpus_path)
        papers = list(corpus.papers)
        fixed = Corpus(papers, [list(p) for p in corpus.separate])
        fixed.title_rules = corpus.title_rules  # the titles are still the ones it had
        fixed.save(corpus_path)
        report.repaired.append(f"rebuilt {corpus_path.name}'s header from its {counted(len(papers), 'paper')}")
    elif repair and not corpus_path.is_symlink() and not doctor_steps.not_files(corpus_path, report=report):
        # (a link is said by the folder's check, left for you; so is a folder or a pipe)
        _rebuild_corpus(corpus_path, report)


def _check_annotations(ann_path: Path, repair: bool, report: DoctorReport) -> None:
    """2. The annotations' snapshot, then its journal; damaged journals kept as found are named."""
    journal = journal_path_for(ann_path)
    if not (ann_path.exists() or journal.exists()):
        return
    problem = _check_annotations_file(ann_path)
    damage, storage = _journal_damage(ann_path) if problem is None else ([], None)
    if problem is None and not damage:
        report.ok.append(f"{ann_path.name}: parses" + (" (and its journal)" if journal.exists() else ""))
    elif problem is None:
        report.problems += damage
        if repair:
            assert storage is not None  # read when the snapshot is sound
            _repair_journal(ann_path, storage, report, any(d.startswith(journal.name) for d in damage))
    else:
        report.problems.append(problem)
        if repair:
            if not doctor_steps.not_files(ann_path, journal, report=report):
                _rebuild_annotations(ann_path, report)
    kept = damaged_copies(journal)
    if kept:
        report.ok.append(f"{counted(len(kept), 'damaged journal')} kept as found, not in effect: "
                         + ", ".join(f"{locations.BACKUP_DIR}/{k.name}" for k in kept[:3]))


def _cross_check(corpus_path: Path, ann_path: Path, repair: bool, report: DoctorReport) -> None:
    """3. The corpus and the annotations against each other (only files that now parse: repairs
    may have run): removals and splits cut short, annotations pointing at no paper or stored
    under an alias, malformed undo entries."""
    corpus = _load_checked_corpus(corpus_path)[0] if corpus_path.exists() and ann_path.exists() else None
    if corpus is None or _check_annotations_file(ann_path) is not None:
        return
    storage = JournaledJSONStorage(ann_path)
    data = copy.deepcopy(storage.read() or {})  # the snapshot with its journal replayed
    anns = data.get(ANN) or {}
    undone = doctor_steps.check_cut_removals(data, corpus, corpus_path, anns, storage, repair, report)
    splitting = doctor_steps.check_cut_splits(data, corpus, corpus_path, anns, repair, report)
    records = {k: v for k, v in anns.items() if is_record(v)}  # (the others: _check_fields)
    orphans = {k: v for k, v in records.items() if corpus.index_of(v["paper_id"]) is None
               and v["paper_id"] not in undone}
    blank = {k for k, v in orphans.items() if _holds_no_mark(v)}  # (a cleared record: change times alone)
    if blank:
        orphans = {k: v for k, v in orphans.items() if k not in blank}
        report.ok.append(f"{counted(len(blank), 'cleared record')} of papers no longer here (no mark in "
                         f"{'it' if len(blank) == 1 else 'them'}{'; dropped' if repair else '; --repair drops them'})")
        if repair:
            for k in blank:
                anns.pop(k, None)
            storage.write(data)  # a full snapshot; the journal is folded in
    if orphans:
        report.problems.append(f"{counted(len(orphans), 'annotation')} pointing at no paper (kept; e.g. "
                               f"{shown_unsafe(next(iter(orphans.values()))['paper_id'][:40])})")
    else:
        report.ok.append(f"every annotation points at a paper ({counted(len(anns), 'annotation')})")
    doctor_steps.check_keys(corpus, anns, splitting, data, storage, repair, report)
    doctor_steps.check_history(ann_path, data, storage, repair, report)


def _holds_no_mark(rec: dict[str, Any]) -> bool:
    """A stored record at its defaults: no status, star, tag, note or assignee (a mark taken back
    keeps its change times, so that the clearing travels)."""
    return (rec.get("status", "unread") == "unread" and not rec.get("star") and not rec.get("tags")
            and not rec.get("note") and not rec.get("assignee"))


def _check_leftovers(folder: Path, corpus_path: Path, ann_path: Path, repair: bool, report: DoctorReport) -> None:
    """4. Unsaved note drafts, backups and temporary files (the index cache: check_index_cache)."""
    drafts = NoteDrafts(folder / locations.DRAFTS_FILE).count()
    if drafts:
        report.ok.append(f"{counted(drafts, 'note has an unsaved draft', 'notes have unsaved drafts')} "
                         "(the app offers it back when the note is opened)")
    n_backups = len(list_backups(corpus_path)) + len(list_backups(ann_path))
    report.ok.append(f"{counted(n_backups, 'backup')} in {locations.BACKUP_DIR}/") if n_backups else \
        report.ok.append("no backups yet (one is taken before an import into a library that holds papers, "
                         "and before a bulk change)")
    _check_temp_files(folder, repair, report)


def _check_temp_files(folder: Path, repair: bool, report: DoctorReport) -> None:
    """Temporary files that writes killed half-way left behind (an hour old or more)."""
    stale = stale_temp_files(folder) + stale_temp_files(folder / locations.BACKUP_DIR)
    if not stale:
        return
    size = sum(p.stat().st_size for p in stale if p.exists())
    report.problems.append(f"{counted(len(stale), 'temporary file')} left by interrupted writes ({size:,} bytes): "
                           + ", ".join(p.name for p in stale[:3]) + (", …" if len(stale) > 3 else ""))
    if repair:
        for p in stale:
            p.unlink()
        report.repaired.append(f"removed {counted(len(stale), 'temporary file')} left by interrupted writes")


def check_index_cache(library: Library, repair: bool, report: DoctorReport) -> None:
    """The search-index cache matches the corpus (else rebuilt when repairing)."""
    if library.index_cache.read_cache() is not None:
        report.ok.append("search index cache matches the corpus")
        return
    if not repair:  # a cache is never precious: one from before the last change is rebuilt by the next search
        report.ok.append("search index cache: damaged, not used (the next search rebuilds it)" if _cache_damaged(library)
                         else "search index cache: none that matches the corpus yet (the next search builds it)")
        return
    if repair:
        library.index_cache.build()  # (its cache is written best effort: whether it was, is read back)
        if library.index_cache.read_cache() is None:
            probe = _why_unwritable(library.folder)
            report.problems.append(f"could not repair: the search index cache could not be written ({probe})")
        else:
            report.repaired.append("rebuilt the search index cache")


def _cache_damaged(library: Library) -> bool:
    """True when the index cache is of this corpus (its stamp matches) yet does not read back."""
    from store.search.packfile import stamp_matches
    try:
        with open_reading(library.index_path) as fh:
            return stamp_matches(fh, library.corpus.generation)
    except OSError:
        return False


def _why_unwritable(folder: Path) -> str:
    """What stops a file being written in ``folder`` ('read-only file system', …)."""
    try:
        atomic_write_bytes(folder / ".papersift-write-probe", b"")
        (folder / ".papersift-write-probe").unlink()
    except OSError as exc:
        return getattr(exc, "reason", None) or exc.strerror or str(exc)
    return "reason unknown"

