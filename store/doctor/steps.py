"""The doctor's checks of the library folder itself (no links, private modes) and of the
two-write steps a kill can cut short (a removal, its undo, a split): each found from its undo
entry, written before the corpus, and put right by a repair: a removal or its undo back to what
was there, a split completed. Used by :mod:`store.doctor`, whose report they add to."""

from __future__ import annotations

import os
from pathlib import Path
from collections.abc import Container
from typing import Any

from store import locations
from store.annotations.storage import JournaledJSONStorage
from store.annotations.database import PENDING, sound_entry
from store.record_fields import is_record
from store.annotations.journal import ANN, HIST, META, REDO
from store.annotations.database import AnnotationStore
from store.corpus import Corpus
from store.errors import NewerFormatError, PapersiftError
from store.records import RecordKey
from store.library.removal import STAGED
from store.doctor.records import _drop_bad_history
from store.doctor.report import DoctorReport
from store.wording import counted



def check_links_and_modes(folder: Path, repair: bool, report: DoctorReport) -> None:
    """No name of the library is a link (a shared folder's link could lead papersift's writes to
    any file of yours), and its files are private (0600; folders 0700). A cache that is a link is
    removed by a repair (a cache is never precious); a data file that is one is left for you."""
    _check_links(folder, repair, report)
    _check_modes(folder, repair, report)


def _check_links(folder: Path, repair: bool, report: DoctorReport) -> None:
    """Links among the library's names and in backups/: said; caches' and backups' removed on --repair."""
    for name in (*locations.LIBRARY_DATA, *locations.LIBRARY_CACHES):
        path = folder / name
        if not path.is_symlink():
            continue
        disposable = name in locations.LIBRARY_CACHES or name == locations.LOCK_FILE
        report.problems.append(f"{name} is a link (to {os.readlink(path)}); papersift does not follow links in a "
                               "library folder" + ("" if disposable else " (replace it with a copy of what it leads "
                                                   "to; --repair leaves a library's own file to you)"))
        if repair and disposable:
            path.unlink()
            report.repaired.append(f"removed the link {name} (papersift makes it again when needed)")
    strays = [b for b in backups_in(folder) if b.is_symlink()]
    if strays:  # never read as a backup (store.annotations.backups), but not papersift's either
        report.problems.append(f"{counted(len(strays), 'link')} in {locations.BACKUP_DIR}/ "
                               f"({', '.join(b.name for b in strays[:3])}); a backup is a file of its own")
        if repair:
            for link in strays:
                link.unlink()  # (the link only: what it points at is not touched)
            report.repaired.append(f"removed {counted(len(strays), 'link')} from {locations.BACKUP_DIR}/")


def _check_modes(folder: Path, repair: bool, report: DoctorReport) -> None:
    """Files and folders other users can read: said; made private on --repair."""
    loose = [(path, 0o700 if path.is_dir() else 0o600)
             for path in [folder, *folder.iterdir(), *backups_in(folder)] if _readable_by_others(path)]
    if not loose:
        report.ok.append("files private to their owner (0600, folders 0700)")
        return
    shown = ", ".join(p.name for p, _ in loose[:3]) + (f" and {len(loose) - 3} more" if len(loose) > 3 else "")
    report.problems.append(f"{counted(len(loose), 'file or folder', 'files or folders')} other users can read "
                           f"({shown})")
    if repair:
        for path, mode in loose:
            os.chmod(path, mode)
        report.repaired.append(f"made {counted(len(loose), 'file or folder', 'files or folders')} private "
                               f"(0600, folders 0700)")


def _readable_by_others(path: Path) -> bool:
    """Whether a name of the library (not a link, not another name's file, not a write probe) has
    a mode letting others in."""
    if path.is_symlink() or path.name.startswith(".papersift-write-probe"):
        return False
    try:
        if not path.is_dir() and os.lstat(path).st_nlink > 1:  # another name's file: never chmod it
            return False  # (papersift's next write makes the name a file of its own)
    except OSError:
        return False
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return bool(mode & 0o077)


def check_cut_removals(data: dict[str, Any], corpus: Corpus, corpus_path: Path, anns: dict[str, Any],
                        storage: JournaledJSONStorage, repair: bool, report: DoctorReport) -> set[str]:
    """A removal is written in steps: its undo entry (every member's records of the papers,
    cleared) with a mark that its corpus write is pending, then the corpus, then the mark cleared.
    A kill between them leaves the mark: said here, and finished by the next open of the library
    (a repair opens it). A removal made before the mark was written leaves none: its undo entry
    with every one of its papers still in the corpus is taken for a cut one, and a repair puts
    back every record the entry holds (each member's and the assignment), since that removal
    never completed; its entry then goes (undoing it would add nothing)."""
    step = (data.get(META) or {}).get(PENDING)
    if isinstance(step, dict):
        what = "an undo of a removal" if step.get("action") == "restore" else "a removal"
        report.problems.append(f"{what} was cut short (the process was stopped); it is finished the next time "
                               "the library is opened (`papersift doctor --repair` finishes it now)")
    lost, cut_entries = _cut_removals(data, corpus, anns)
    if isinstance(step, dict):  # (an undo's papers, not yet back: their records are no orphans)
        undone = {str(r.get("id")) for r in step.get("papers") or [] if isinstance(r, dict)}
    else:
        undone = check_cut_undos(data, corpus, corpus_path, anns, repair, report)
    if isinstance(step, dict) and repair:
        from store.library import Library  # (opening it finishes the step, under the library's lock)
        finished = Library(corpus_path.parent).take_problems()
        report.repaired += [f for f in finished if "cut short" in f]
        return undone
    if not lost:
        return undone
    papers = {RecordKey.parse(k).paper for k in lost}
    report.problems.append(f"a removal was cut short: {counted(len(papers), 'paper')} still in the library without "
                           f"the annotations they had (`papersift doctor --repair` puts them back)")
    if repair:
        for rkey, before in lost.items():
            anns[str(RecordKey.parse(rkey).doc_id)] = before
        data[ANN] = anns
        for key in cut_entries:  # the removal never happened: no undo step for it, and nothing to find again
            del data[HIST][key]
        storage.write(data)  # a full snapshot; the journal is folded in
        report.repaired.append(f"put back the annotations of {counted(len(papers), 'paper')} a cut-short removal "
                               "had cleared (every member's)")
    return undone


def _cut_removals(data: dict[str, Any], corpus: Corpus,
                  anns: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The records removals that never reached the corpus cleared (record key -> what goes back:
    the record before it, under any change made since), and those removals' undo entries."""
    lost: dict[str, dict[str, Any]] = {}
    cut_entries = []  # the undo entries of removals whose corpus write never happened
    for key, entry in (data.get(HIST) or {}).items():
        if not isinstance(entry, dict) or entry.get("action") != "remove" or entry.get(STAGED):
            continue
        records = [r for r in entry.get("papers") or [] if isinstance(r, dict)]
        if not records or not all(corpus.index_of(str(r.get("id", ""))) is not None for r in records):
            continue
        cut_entries.append(key)
        lost.update(_lost_by(entry, data, corpus, anns))
    return lost, cut_entries


def _lost_by(entry: dict[str, Any], data: dict[str, Any], corpus: Corpus,
             anns: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """What one removal cut short cleared: record key -> the record to put back (the one before it,
    under any change made since)."""
    lost: dict[str, dict[str, Any]] = {}
    befores = entry.get("before") or {}
    for rkey, before in (befores.items() if isinstance(befores, dict) else []):
        key = RecordKey.parse(str(rkey))
        if corpus.index_of(key.paper) is None or not isinstance(before, dict) \
                or not isinstance(before.get("note", ""), str):
            continue
        now = anns.get(str(key.doc_id))
        since = changed_after(data, str(rkey), entry.get("seq"))
        if now is None and not since:
            lost[rkey] = before
        elif (merged := _under(now if isinstance(now, dict) else
                               {k: before[k] for k in ("paper_id", "member") if k in before},
                               before, since)) != now:
            lost[rkey] = merged  # annotated again since the cut: what it had goes back under that
    return lost


def changed_after(data: dict[str, Any], pid: str, since: Any) -> set[str]:
    """The fields of a record (``pid``: a record key, a paper id for the owner's) that some change
    after the entry numbered ``since`` set, to any value (status, star, note, ``#tag``): read from
    the undo history's later entries (numbered in order: two changes within one millisecond keep
    their order), whose before and after say."""
    if not isinstance(since, int):
        return set()
    fields: set[str] = set()
    for entry in (data.get(HIST) or {}).values():
        seq = entry.get("seq") if isinstance(entry, dict) else None
        if not isinstance(seq, int) or seq <= since or entry.get("action") == "remove":
            continue
        befores, afters = entry.get("before") or {}, entry.get("after") or {}
        if not isinstance(befores, dict) or not isinstance(afters, dict) or pid not in afters:
            continue
        was, now = befores.get(pid), afters.get(pid)
        old: dict[str, Any] = was if isinstance(was, dict) else {}
        new: dict[str, Any] = now if isinstance(now, dict) else {}
        for name, default in (("status", "unread"), ("star", 0), ("note", "")):
            if old.get(name, default) != new.get(name, default):
                fields.add(name)
        fields |= {"#" + t for t in set(old.get("tags") or []) ^ set(new.get("tags") or [])}
    return fields


def _under(now: dict[str, Any], before: dict[str, Any], since: set[str]) -> dict[str, Any]:
    """An annotation as it is after a cut-short removal, with what the paper had before the
    removal put back under every field no later change has set (``since``): a status, star, note
    or tag set after the removal, to any value (the default too), stays as set."""
    merged = dict(now)
    for name, default in (("status", "unread"), ("star", 0), ("note", "")):
        if name not in since and merged.get(name, default) == default and before.get(name, default) != default:
            merged[name] = before[name]
    tags = list(merged.get("tags") or [])
    merged["tags"] = tags + [t for t in before.get("tags") or [] if t not in tags and "#" + t not in since]
    if not merged["tags"] and "tags" not in now:
        del merged["tags"]
    return merged


def check_cut_undos(data: dict[str, Any], corpus: Corpus, corpus_path: Path, anns: dict[str, Any], repair: bool,
                     report: DoctorReport) -> set[str]:
    """The undo of a removal is written in two steps too: the annotations back (and its entry on
    the redo table), then the papers. A kill between them leaves the entry's papers out of the
    corpus: a repair puts every one of them back, annotated or not."""
    # An undo moves the removal's entry to the redo table with the annotations back, in one write;
    # the papers follow. A redo entry whose papers are not all in the corpus is such an undo cut
    # short (a completed undo put every one back; a new change empties the redo table).
    records: dict[str, dict[str, Any]] = {}
    for entry in (data.get(REDO) or {}).values():
        if isinstance(entry, dict) and entry.get("action") == "remove":
            records.update({r["id"]: r for r in entry.get("papers") or [] if isinstance(r, dict) and "id" in r})
    missing = {pid for pid in records if corpus.index_of(pid) is None}
    if not missing:
        return set()
    report.problems.append(f"an undo of a removal was cut short: {counted(len(missing), 'paper')} not back in the "
                           f"library (their annotations are)")
    if repair:
        from store.models import Paper
        for pid in sorted(p for p in missing if p):
            corpus.add(Paper.from_record(records[pid]))
        corpus.save(corpus_path)
        report.repaired.append(f"put back {counted(len(missing), 'paper')} a cut-short undo had not yet restored")
    return {p for p in missing if p}


def check_cut_splits(data: dict[str, Any], corpus: Corpus, corpus_path: Path, anns: dict[str, Any], repair: bool,
                     report: DoctorReport) -> set[str]:
    """A split of a near-duplicate merge writes the split papers' annotations first (one undo
    entry naming the paper they leave), then the corpus. A kill between them leaves annotations
    under ids the corpus still holds as variants: a repair completes the split the user asked for.
    Returns the ids found (the alias check leaves them alone)."""
    from store.ingest.split import split_variants
    from store.library.papers import SPLIT_ACTION, SPLIT_OF  # (the library's own words for a split)

    cut: set[str] = set()
    for entry in (data.get(HIST) or {}).values():
        if not isinstance(entry, dict) or entry.get("action") != SPLIT_ACTION or not entry.get(SPLIT_OF):
            continue
        for pid, after in (entry.get("after") or {}).items():
            idx = corpus.index_of(pid)
            if after is not None and str(RecordKey.parse(pid).doc_id) in anns and idx is not None and corpus.papers[idx].id != pid:
                cut.add(pid)
    if not cut:
        return cut
    report.problems.append(f"a split was cut short: {counted(len(cut), 'paper')} annotated but still merged into "
                           f"another (`papersift doctor --repair` completes the split)")
    if repair:
        for pid in sorted(cut):
            split_variants(corpus, pid)
        corpus.save(corpus_path)
        report.repaired.append(f"completed a cut-short split ({counted(len(cut), 'paper')} now of their own)")
    return cut


def backups_in(folder: Path) -> list[Path]:
    backups = folder / locations.BACKUP_DIR
    return list(backups.iterdir()) if backups.is_dir() and not backups.is_symlink() else []


def check_history(ann_path: Path, data: dict[str, Any], storage: JournaledJSONStorage, repair: bool,
                   report: DoctorReport) -> None:
    """Malformed undo and redo entries: passed over until --repair takes them out."""
    bad_hist = [k for table in (HIST, REDO) for k, e in (data.get(table) or {}).items()
                if not k.isdigit() or not sound_entry(e)]
    if bad_hist:
        report.problems.append(f"{counted(len(bad_hist), 'malformed undo entry', 'malformed undo entries')} "
                               "(passed over by history, undo and redo; `doctor --repair` takes them out)")
        if repair:
            _drop_bad_history(ann_path, storage, report)
    else:
        report.ok.append(f"undo history: {counted(len(data.get(HIST) or {}), 'entry', 'entries')}")


def check_keys(corpus: Corpus, anns: dict[str, Any], splitting: Container[str], data: dict[str, Any],
                storage: JournaledJSONStorage, repair: bool, report: DoctorReport) -> None:
    """Annotations stored under a merged paper's alias or a key not their own: re-pointed to their
    papers on --repair (one landing on a key already taken is kept beside it, never dropped).
    ``anns``: the annotations table of ``data``, written back into it."""
    records = {k: v for k, v in anns.items() if is_record(v)}  # (the others: _check_fields)
    moved = {}
    for key, rec in records.items():
        if rec.get("paper_id") in splitting and not repair:
            continue  # (said as a cut split)
        idx = corpus.index_of(rec.get("paper_id", ""))
        if idx is not None and corpus.papers[idx].id != rec["paper_id"]:
            moved[key] = corpus.papers[idx].id  # annotation under a merged alias
        elif idx is not None and str(RecordKey.of_record(rec).doc_id) != key:
            moved[key] = rec["paper_id"]
    if not moved:
        return
    report.problems.append(f"{counted(len(moved), 'annotation')} stored under an alias or a wrong key")
    if repair:
        for key, pid in moved.items():
            rec = dict(anns.pop(key))
            rec["paper_id"] = pid
            target = str(RecordKey.of_record(rec).doc_id)
            if target not in anns:
                anns[target] = rec
            else:
                anns[key + "-dup"] = rec  # never drop a word: keep both
        data[ANN] = anns
        storage.write(data)  # a full snapshot; the journal is folded in
        report.repaired.append(f"re-pointed {counted(len(moved), 'annotation')} to their papers")


def newer_files(corpus_path: Path, ann_path: Path) -> list[str]:
    """The library's files a newer papersift wrote: nothing in such a library is checked or
    repaired (a repair would rewrite them in this version's format, dropping what it does not know)."""
    found = []
    for path, read in ((corpus_path, Corpus.load), (ann_path, lambda p: AnnotationStore(p).load_records())):
        try:
            if path.is_file() and not path.is_symlink():
                read(path)
        except NewerFormatError as exc:
            found.append(str(exc))
        except (PapersiftError, OSError, ValueError, TypeError, KeyError):
            pass  # (damage: the other checks say it)
    return found


def not_files(*paths: Path, report: DoctorReport) -> bool:
    """Whether one of ``paths`` is a folder, a pipe or a device, not a file: no repair rewrites what
    stands beside it (it did, the sound file "kept as damaged"), and none removes what papersift did
    not write. Said, for you to move away."""
    odd = [p for p in paths if p.exists() and not p.is_symlink() and not p.is_file()]
    for p in odd:
        report.problems.append(f"{p.name} is {'a folder' if p.is_dir() else 'a pipe or a device'}, not a file: "
                               "the repair leaves it (move it out of the library folder, then repair again)")
    return bool(odd)
