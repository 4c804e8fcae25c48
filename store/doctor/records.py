"""The doctor's checks of the records field by field: tags holding control characters, status,
star, notes and history entries of the wrong kind in annotations.json, member names papersift
cannot use, corpus records with fields of the wrong kind, and an archive whose last line a stopped
archive cut short. Each names what it finds; a repair keeps what it changes in backups/ first.
Used by :mod:`store.doctor`, whose report they add to."""

from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path
from typing import Any
from store import locations
from store.annotations.database import sound_entry
from store.annotations.storage import JournaledJSONStorage
from store.files.atomic import atomic_write_bytes, open_reading
from store.annotations.backups import backup_file
from store.corpus import Corpus
from store.doctor.report import DoctorReport
from store.annotations.journal import ANN, HIST, REDO
from store.record_fields import is_record, read_fields, repaired
from store.records import RecordKey
from store.tags import clean_tag
from store.wording import counted
from store.safe_text import has_unsafe, shown_unsafe


def _check_tags(ann_path: Path, repair: bool, report: DoctorReport) -> None:
    """Stored tags holding control or invisible characters (from a papersift that let them in):
    reported, and cleaned (after a backup) when repairing."""
    storage = JournaledJSONStorage(ann_path)
    data = copy.deepcopy(storage.read() or {})
    anns = data.get(ANN) or {}
    bad = {key: rec for key, rec in anns.items() if is_record(rec) and any(has_unsafe(t) for t in _tags(rec))}
    if not bad:
        return
    shown = ", ".join(sorted({f"'{shown_unsafe(t[:40])}'" for rec in bad.values() for t in _tags(rec) if has_unsafe(t)})[:5])
    report.problems.append(f"{counted(len(bad), 'annotation')} with tags holding control or invisible "
                           f"characters ({shown}); `doctor --repair` cleans them")
    if not repair:
        return
    storage.compact()
    backup = backup_file(ann_path, "clean-tags")
    for key, rec in bad.items():
        tags = [clean_tag(t)[0] for t in _tags(rec)]
        anns[key] = {**rec, "tags": list(dict.fromkeys(t for t in tags if t))}
    data[ANN] = anns
    storage.write(data)
    report.repaired.append(f"cleaned the tags of {counted(len(bad), 'annotation')} "
                           f"(the file as it was: {locations.BACKUP_DIR}/{backup.name if backup else '-'})")


def _drop_bad_history(ann_path: Path, storage: JournaledJSONStorage, report: DoctorReport) -> None:
    """Undo entries papersift cannot show, undo or redo (a forged or damaged file's) taken out of
    the history, after a backup of the file as it was."""
    storage.compact()
    backup = backup_file(ann_path, "drop-malformed-undo")
    data = copy.deepcopy(storage.read() or {})
    dropped = 0
    for table in (HIST, REDO):
        entries = data.get(table) or {}
        for key in [k for k, e in entries.items() if not k.isdigit() or not sound_entry(e)]:
            del entries[key]
            dropped += 1
    storage.write(data)
    report.repaired.append(f"took {counted(dropped, 'malformed undo entry', 'malformed undo entries')} out of the "
                           f"history (the file as it was: {locations.BACKUP_DIR}/{backup.name if backup else '-'})")


def _tags(rec: dict[str, Any]) -> list[str]:
    """The tags of a stored record that are tags (strings; the others: _check_fields)."""
    tags = rec.get("tags")
    return [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []


def _check_fields(ann_path: Path, repair: bool, report: DoctorReport) -> None:
    """Records a forged or damaged file holds that papersift cannot read in full: a field of the
    wrong kind (a status that is no status, a star of 10**30, tags that are a string, a note that
    is a number; the library reads each as its default, store.record_fields) or a value that
    is no record at all (skipped). Named, written safely; when repairing, after a backup, those
    fields are reset to their defaults (the rest of each record kept) and the values that are no
    record are taken out."""
    import reprlib

    storage = JournaledJSONStorage(ann_path)
    data = copy.deepcopy(storage.read() or {})
    anns = data.get(ANN) or {}
    bad, junk, fields, example = _unreadable(anns)
    if not bad and not junk:
        return
    short = reprlib.Repr()  # (a 50 MB note or 100,000 tags quoted in a few words)
    short.maxstring, short.maxother, short.maxlist, short.maxdict = 40, 40, 3, 2
    if bad:
        named = ", ".join(f"{name} ({n:,}; e.g. {shown_unsafe(short.repr(example[name]))})"
                          for name, n in sorted(fields.items()))
        report.problems.append(f"{counted(len(bad), 'annotation')} with fields papersift cannot read: {named}; read as "
                               "their defaults (`doctor --repair` resets them)")
    if junk:
        report.problems.append(f"{counted(len(junk), 'stored value')} in {ann_path.name} that "
                               f"{'is' if len(junk) == 1 else 'are'} no annotation record (e.g. "
                               f"{shown_unsafe(short.repr(anns[junk[0]]))}): skipped (`doctor --repair` takes "
                               f"{'it' if len(junk) == 1 else 'them'} out)")
    if repair:
        _reset_unreadable(ann_path, storage, data, anns, bad, junk, fields, report)


def _unreadable(anns: dict[str, Any]) -> tuple[list[str], list[str], Counter[str], dict[str, object]]:
    """The records with fields papersift cannot read, the values that are no record, how many
    records each such field is wrong in, and one wrong value of each."""
    fields: Counter[str] = Counter()
    example: dict[str, object] = {}
    bad, junk = [], []
    for key, rec in anns.items():
        if not is_record(rec):
            junk.append(key)
            continue
        if wrong := read_fields(rec)[1]:
            bad.append(key)
            fields.update(wrong)
            for name in wrong:
                example.setdefault(name, rec.get(name))
    return bad, junk, fields, example


def _reset_unreadable(ann_path: Path, storage: JournaledJSONStorage, data: dict[str, Any], anns: dict[str, Any],
                      bad: list[str], junk: list[str], fields: Counter[str], report: DoctorReport) -> None:
    """After a backup: the unreadable fields, and the values that are no record, put back as the
    newest backup holding them readable has them; else the fields reset to their defaults and the
    values taken out."""
    kept, readable = _readable_in_backups(ann_path, [*bad, *junk])  # (before this repair's own backup is taken)
    storage.compact()
    backup = backup_file(ann_path, "reset-forged-fields")
    restored: set[str] = set()
    for key in bad:
        good = {name: kept[key][name] for name in read_fields(anns[key])[1] if name in readable.get(key, ())}
        anns[key] = {**repaired(anns[key]), **good}
        if good:
            restored.add(key)
    for key in junk:
        if key in kept:
            anns[key] = kept[key]
            restored.add(key)
        else:
            del anns[key]
    data[ANN] = anns
    storage.write(data)
    was = f" (the file as it was: {locations.BACKUP_DIR}/{backup.name if backup else '-'})"
    back = [key for key in bad if key in restored]
    if bad:  # (a line for each problem said: the report is whole when each has its repair)
        report.repaired.append(f"reset {', '.join(sorted(fields))} of {counted(len(bad), 'annotation')} in "
                               f"{ann_path.name}, the rest of each kept: " + (
                                   f"{len(back):,} as the newest backup holding it readable has it, the others to "
                                   "their defaults" if back and len(back) < len(bad) else
                                   "as the newest backup holding them readable has them" if back else
                                   "to their defaults") + was)
    if junk:
        gone = [key for key in junk if key not in restored]
        done = [f"{len(junk) - len(gone):,} put back from the newest backup holding it"] if len(gone) < len(junk) else []
        done += [f"{len(gone):,} taken out of {ann_path.name}"] if gone else []
        report.repaired.append(f"{counted(len(junk), 'value')} that {'is' if len(junk) == 1 else 'are'} no annotation "
                               f"record: {', '.join(done)}{was}")


def _readable_in_backups(ann_path: Path, keys: list[str]) -> tuple[dict[str, dict[str, Any]], dict[str, set[str]]]:
    """For each record key, the record in the newest backup of the annotations that holds it as one
    (as papersift reads it), and the names of its fields that were readable there: a forged or
    damaged value is put back as the user last had it, not reset."""
    import orjson

    from store.annotations.backups import list_backups

    found: dict[str, dict[str, Any]] = {}
    readable: dict[str, set[str]] = {}
    for backup in list_backups(ann_path):
        if ".damaged-" in backup.name or len(found) == len(keys):
            continue
        try:
            data = orjson.loads(backup.read_bytes())
        except (OSError, ValueError):
            continue
        table = data.get(ANN) if isinstance(data, dict) else None
        if not isinstance(table, dict):
            continue
        for key in keys:
            rec = table.get(key)
            if key not in found and isinstance(rec, dict) and is_record(rec):
                found[key] = repaired(rec)  # (whole, as papersift reads it: for a value that is no record)
                fields, wrong = read_fields(rec)
                readable[key] = {name for name in fields if name in rec} - set(wrong)
    return found, readable


def _check_corpus_fields(path: Path, corpus: Corpus, repair: bool, report: DoctorReport) -> None:
    """Paper records with a field of the wrong kind (a forged or hand-edited corpus: a title that
    is a number, authors that are not texts): read as none by papersift, named here; a repair
    writes the corpus as papersift reads it, after a backup."""
    import orjson

    from store.models import paper_record_problems

    bad: list[str] = []
    with open_reading(path) as fh:
        for no, line in enumerate(fh, 1):
            if no == 1 or not line.strip():
                continue
            try:
                rec = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue  # (a damaged line is the load's to say)
            fields = paper_record_problems(rec) if isinstance(rec, dict) else []
            if fields:
                bad.append(f"line {no}: {', '.join(fields)}")
    if not bad:
        return
    report.problems.append(f"{path.name}: {counted(len(bad), 'paper')} with fields of the wrong kind, read as none "
                           f"({'; '.join(bad[:3])}{' …' if len(bad) > 3 else ''})")
    if repair:
        kept = backup_file(path, "reset-forged-fields", replaced_whole=True)
        corpus.save(path)
        report.repaired.append(f"wrote {path.name} with those fields as papersift reads them (the file as it was: "
                               f"{locations.BACKUP_DIR}/{kept.name if kept else '-'})")


def _check_archive(path: Path, repair: bool, report: DoctorReport) -> None:
    """The archive's last line is whole (a stopped archive's append can leave it cut: the next open
    writes its papers' lines again, whole, and the cut bytes go to backups/); a repair does the same."""
    if not path.is_file() or path.is_symlink():
        return
    data = path.read_bytes()
    whole = data.rfind(b"\n") + 1
    if whole == len(data):
        return
    report.problems.append(f"{path.name} ends in a line cut short ({len(data) - whole:,} bytes)")
    if repair:
        kept = backup_file(path, "archive-cut-line")
        atomic_write_bytes(path, data[:whole])
        report.repaired.append(f"cut the archive's last line short of its cut part (kept in "
                               f"{locations.BACKUP_DIR}/{kept.name if kept else '-'})")


def _check_member_names(ann_path: Path, report: DoctorReport) -> None:
    """Records under a member, an assignee or an owner that is no usable member name (a forged or
    damaged file: an escape sequence, a space, 10,000 characters). The library never shows them
    nor counts them as a member; they are listed here, written safely, and kept as found (whose
    marks they are is for a person to say)."""
    from store.annotations.journal import META
    from store.team.members import member_problem

    data = JournaledJSONStorage(ann_path).read() or {}
    names: list[str] = []
    for rec in (data.get(ANN) or {}).values():
        if not isinstance(rec, dict):
            continue
        for field in ("member", "assignee"):
            value = rec.get(field)
            value = str(value) if isinstance(value, int) and not isinstance(value, bool) else value  # (read so)
            if field == "member" and RecordKey.of_record(rec).is_assignment:
                continue
            if value not in (None, "") and (not isinstance(value, str) or member_problem(value)):
                names.append(str(value))
    owner = ((data.get(META) or {}).get("1") or {}).get("owner")
    if owner not in (None, "") and (not isinstance(owner, str) or member_problem(owner)):
        names.append(str(owner))
    if not names:
        return
    shown = ", ".join(sorted({f"'{shown_unsafe(n[:40])}'" for n in names})[:5])
    report.problems.append(f"{counted(len(names), 'record')} under a member name papersift cannot use ({shown}): "
                           "not shown nor counted as a member; kept as found")
