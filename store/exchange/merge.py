"""Merge another person's (or machine's) annotations from a papersift JSON/JSONL export.

Papers are matched by id (or alias), then by normalized text, then by
near-duplicate text. A matched paper is merged field by field with the change
times each annotation keeps (``stamps``): a field the other side did not change
never overwrites ours; a field both changed is a conflict, won by the newer
change, listed, and the other value kept in the annotation's ``conflicts``; tags
merge one by one, additions and removals from both sides. A file from an older
papersift (no change times) merges by whole records, as it always did, with a
warning. A paper we have never annotated takes their annotation exactly,
timestamps included, so export -> fresh library -> import-annotations
reproduces every annotation.
"""

from __future__ import annotations

import copy
import functools
from datetime import datetime
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from store.exchange.annotation_files import exporter_of, others_not_taken, read_annotation_records  # noqa: F401 (re-exported: tests read with it)
from store.exchange.stamps import Clock, canonical, newest_sound
from store.exchange.history_states import known_stamps, known_values
from store.corpus import paper_id
from store.errors import PapersiftError
from store.records import Annotation, RecordKey
from store.tags import clean_tag, note_problem
from store.text import normalize
from store.wording import counted

if TYPE_CHECKING:
    from store.library import Library


@dataclass
class MergeReport:
    """What a merge did (or, with dry_run, would do)."""

    records: int = 0
    by_id: int = 0
    by_text: int = 0
    unchanged: int = 0
    unknown: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)
    taken_back: int = 0  # of the changes, papers marked here that the merge leaves unmarked
    conflicts: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {"records": self.records, "matched_by_id": self.by_id, "matched_by_text": self.by_text,
                "unchanged": self.unchanged, "unknown": self.unknown, "changes": self.changes,
                "conflicts": self.conflicts, "warnings": self.warnings}


def _clean_tags(tags: list[str], pid: str, warnings: list[str]) -> list[str]:
    """Their tags as this library takes any tag: a tag holding control or invisible characters is
    cleaned (or dropped), and said so; it must never reach a terminal or an export raw."""
    kept = []
    for tag in tags:
        clean, said = clean_tag(tag)
        if said:
            warnings.append(f"{pid}: {said}")
        if clean:
            kept.append(clean)
    return list(dict.fromkeys(kept))


def _their_note(note: str, pid: str, warnings: list[str]) -> str | None:
    """Their note, or None (ours is kept) when it is longer than a note may be."""
    if problem := note_problem(note):
        warnings.append(f"{pid}: their note is not taken: {problem}")
        return None
    return note


def _theirs(rec: dict[str, Any], pid: str, warnings: list[str], local: Annotation, clock: Clock) -> Annotation:
    note = _their_note(rec.get("note") or "", pid, warnings)
    stamps = {_stamp_key(k): v for k, v in clock.read(rec.get("stamps"), pid, warnings).items()
              if note is not None or k != "note"}
    theirs = Annotation(paper_id=pid, status=rec.get("status", "unread"), star=int(rec.get("star", 0)),
                      tags=_clean_tags(rec.get("tags") or [], pid, warnings),
                      note=local.note if note is None else note,
                      created=rec.get("created") or "", updated=rec.get("updated") or "",
                      conflicts=list(rec.get("conflicts") or []), stamps=stamps)
    # A field whose change time is not a time is no change of theirs: it stays as ours.
    for name in {_stamp_key(f) for f in clock.malformed}:
        if name.startswith("#"):
            tag = name[1:]
            if (tag in local.tags) != (tag in theirs.tags):
                theirs.tags = [t for t in theirs.tags if t != tag] + ([tag] if tag in local.tags else [])
        elif name in Annotation.STAMPED:
            setattr(theirs, name, getattr(local, name))
    return theirs


def _stamp_key(key: str) -> str:
    """A tag's stamp under the tag as this library writes it (``#dupA`` is the stamp of #dupa)."""
    if key.startswith("#"):
        clean, _ = clean_tag(key[1:])
        return "#" + (clean or key[1:])
    return key


def merge_one(local: Annotation, theirs: Annotation, source: str,
              known: frozenset[tuple[str, str]] = frozenset(),
              fieldwise: bool | None = None, theirs_alone: bool = False,
              past: Callable[[], dict[str, list[object]]] | None = None) -> tuple[Annotation, list[str]]:
    """Merge ``theirs`` into ``local``; returns the result and conflict descriptions.

    Field by field when their record carries change times (``stamps``): a field they never
    changed, or left as a state this library already had (its time is in ``known``: this
    library's history), never overwrites ours; one only they changed is taken; one both changed
    to different values is a conflict, which the newer change wins, the other value kept in the
    annotation's ``conflicts``. Tags merge one by one the same way, additions and removals alike.
    A record without change times (an older papersift's) merges by whole records:
    :func:`merge_whole`.

    ``theirs_alone``: the record is another member's, from their own file; only they change it (this
    library holds what their earlier files said), so their newer change wins with no conflict.
    ``past``: the values this record had in this library's history (asked only for a record without
    change times: one's own older export, whose values are states we had, not changes).
    """
    if local.is_default() and not local.updated and not local.stamps:
        return copy.deepcopy(theirs), []
    if not (theirs.stamps if fieldwise is None else fieldwise):
        return merge_whole(local, theirs, source, past() if past else {})
    new = copy.deepcopy(local)
    mine_at = {k: canonical(v) or "" for k, v in local.stamps.items()}  # (a stamp stored malformed: no time)
    base = shared_base(mine_at, theirs.stamps, known)
    conflicts = [said for name in Annotation.STAMPED
                 if (said := _merge_field(name, new, local, theirs, mine_at, base, known, source, theirs_alone))]
    _merge_tags(new, local, theirs, known, mine_at)
    if local.created and theirs.created:
        new.created = min(local.created, theirs.created)
    new.updated = max(local.updated, theirs.updated)
    return new, conflicts


def _merge_field(name: str, new: Annotation, local: Annotation, theirs: Annotation, mine_at: dict[str, str],
                 base: str, known: frozenset[tuple[str, str]], source: str, theirs_alone: bool) -> str:
    """One stamped field of :func:`merge_one` into ``new``: theirs taken where only they changed it
    or changed it later; where both changed it since the state they share, the other value kept in
    ``new.conflicts`` and the conflict said (returned; "" for none)."""
    mine, other = getattr(local, name), getattr(theirs, name)
    ms, ts = mine_at.get(name), theirs.stamps.get(name)
    if mine == other:
        if ts and ts > (ms or ""):
            new.stamps[name] = ts
        return ""
    if not ts or (name, ts) in known:
        return ""  # they did not change it, or have a state we had before ours
    if not ms or ms < ts:
        setattr(new, name, other)
        new.stamps[name] = ts
    if not (ms and ms > base and not theirs_alone):
        return ""
    # both changed it since the state they share: the newer won; the other is kept, listed
    kept, lost, lost_when = (other, mine, ms) if ms < ts else (mine, other, ts)
    new.conflicts.append({"field": name, "kept": kept, "other": lost, "other_updated": lost_when,
                          "source": source if kept == mine else "local"})
    return f"{name}: kept {_short(kept)} ({'theirs' if kept == other else 'yours'}, newer), recorded {_short(lost)}"


def shared_base(mine_at: dict[str, str], theirs: dict[str, str], known: frozenset[tuple[str, str]]) -> str:
    """The newest change time both sides hold for this paper (any field): the state they last
    shared. A field we changed before it and they changed after it is theirs alone, no conflict."""
    ours = set(mine_at.values()) | {when for _, when in known}
    return max((when for when in theirs.values() if when in ours), default="")


def _merge_tags(new: Annotation, local: Annotation, theirs: Annotation, known: frozenset[tuple[str, str]],
                mine_at: dict[str, str]) -> None:
    """Each tag present or not as its newest change says (an add or a removal, on either side)."""
    for tag in dict.fromkeys([*local.tags, *theirs.tags, *(k[1:] for k in theirs.stamps if k.startswith("#"))]):
        key = "#" + tag
        mine, other = tag in local.tags, tag in theirs.tags
        ms, ts = mine_at.get(key, ""), theirs.stamps.get(key, "")
        if mine == other or (key, ts) in known:
            if ts > ms:
                new.stamps[key] = ts
            continue
        if ts > ms or (not ts and not ms):  # their newer add or removal; unstamped: kept (a union)
            if other:
                new.tags.append(tag)
            elif ts:
                new.tags.remove(tag)
            if ts:
                new.stamps[key] = ts


def merge_whole(local: Annotation, theirs: Annotation, source: str,
                past: dict[str, list[object]] | None = None) -> tuple[Annotation, list[str]]:
    """An older papersift's record (no change times): tags unioned, a differing note appended under
    a line naming its source, status and star from the newer record as a whole. A value this
    record had before here (``past``: one's own older export read back) is no news: ours stands."""
    new = copy.deepcopy(local)
    conflicts = []
    past = past or {}
    for t in theirs.tags:
        if t not in new.tags:
            new.tags.append(t)
    if theirs.note.strip() and theirs.note.strip() not in new.note and theirs.note not in past.get("note", []):
        new.note = (new.note + f"\n\n— from {source} ({theirs.updated[:10] or 'undated'}):\n" + theirs.note
                    if new.note.strip() else theirs.note)
    theirs_newer = theirs.updated > local.updated
    for name in ("status", "star"):
        mine, other = getattr(local, name), getattr(theirs, name)
        if mine == other or (other in past.get(name, []) and not theirs_newer):
            continue
        kept, lost = (other, mine) if theirs_newer else (mine, other)
        setattr(new, name, kept)
        lost_when = local.updated if theirs_newer else theirs.updated
        new.conflicts.append({"field": name, "kept": kept, "other": lost, "other_updated": lost_when,
                              "source": source if not theirs_newer else "local"})
        conflicts.append(f"{name}: kept {kept!r} (newer), recorded {lost!r}")
    if local.created and theirs.created:
        new.created = min(local.created, theirs.created)
    new.updated = max(local.updated, theirs.updated)
    return new, conflicts


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…'"


def plan_merge(library: Library, records: list[dict[str, Any]], source: str,
               written: datetime | None = None,
               planned: dict[RecordKey, Annotation] | None = None) -> tuple[dict[RecordKey, Annotation], MergeReport]:
    """Work out the merged annotations without writing anything. ``written`` is when the file was
    written (its modification time): what a stamp ahead of this machine's clock counts as.
    ``planned``: record key -> the record earlier files of the same import made (this file merges
    into those, as if they were stored: several files, one write)."""
    planned = planned or {}
    report = MergeReport(records=len(records))
    if records and not any(rec.get("stamps") for rec in records):
        report.warnings.append(f"{source}: no per-field change times (a file from an older papersift, or a "
                               "format without them): merged by whole records, the newer record's status and star winning")
    # A stamp ahead of this machine's clock counts as the file's newest sound one (the file cannot be
    # older than that), else as the time it was written.
    newest = newest_sound([*(v for rec in records if isinstance(rec.get("stamps"), dict) for v in rec["stamps"].values()),
                           *(rec.get(k) for rec in records for k in ("updated", "created"))])
    clock = Clock(written=newest or written)
    exporter = exporter_of(records)  # (a member here: a login name of another machine is no colleague)
    if exporter is not None and exporter != library.member and exporter in library.team.active():
        raise PapersiftError(f"{source} holds {exporter}'s marks (each paper's team list names them): merged, they "
                             f"would become {library.member}'s. To take them as {exporter}'s: papersift --as "
                             f"{exporter} import-annotations {source}; nothing changed")
    if said := others_not_taken(records, library.member, source):
        report.warnings.append(said)
    read = _ReadRecords(library, planned)
    for rec in records:
        read.add(rec, report, clock)
    changes: dict[RecordKey, Annotation] = {}
    history = library.store.history(10_000, undone=True)  # (a step undone since: a state we had too)
    for key, theirs in read.folded.items():
        pid, member = read.member_of[key]
        shown = pid if member == library.member else f"{pid} ({member})"
        if read.seen[key] > 1:
            report.warnings.append(f"{shown}: {counted(read.seen[key], 'record')} in {source} for this paper: "
                                   f"merged as one (each field's newest change)")
        local = read.current(pid, member)
        known = known_stamps(library, pid, history, member, planned.get(key))
        merged, conflicts = merge_one(local, theirs, source, known, key in read.fieldwise,
                                      theirs_alone=member != library.member,
                                      past=functools.partial(known_values, library, pid, history, member))
        merged.member = local.member  # (theirs came without its member's name)
        if merged == local:
            report.unchanged += 1
            continue
        changes[key] = merged
        report.taken_back += local.marked and not merged.marked
        report.changes.append(f"{shown}: {describe(local, theirs, merged, known)}")
        report.conflicts += [f"{shown}: {c}" for c in conflicts]
    report.warnings += clock.warnings(source)
    return changes, report


class _ReadRecords:
    """A file's records, each found in the library (by id, else by its text: the same or a near
    duplicate) and read as the record of (paper, member) it is; a paper's records folded into one."""

    def __init__(self, library: Library, planned: dict[RecordKey, Annotation]) -> None:
        self.library, self.planned = library, planned
        self.folded: dict[RecordKey, Annotation] = {}
        self.fieldwise: set[RecordKey] = set()
        self.seen: dict[RecordKey, int] = {}
        self.member_of: dict[RecordKey, tuple[str, str]] = {}  # -> (paper id, member by name)
        self._near: Callable[[str], str | None] | None = None  # the library's lookup by text, made when first needed

    def current(self, pid: str, member: str) -> Annotation:
        """The member's record of the paper: as an earlier file of this import made it, else stored."""
        made = self.planned.get(RecordKey(pid, member))
        return made.copy() if made is not None else self.library.member_annotation(pid, member)

    def add(self, rec: dict[str, Any], report: MergeReport, clock: Clock) -> None:
        """Read one record (a paper the library does not hold is listed in ``report.unknown``)."""
        library = self.library
        idx = self._paper_index(rec, report)
        if idx is None:
            report.unknown.append(f"{rec['id']} {rec.get('title', '')[:60]}")
            return
        pid = library.corpus.papers[idx].id
        member = str(rec.get("member") or library.member)  # a team file's records are their member's
        key = RecordKey(pid, member)
        self.member_of[key] = (pid, member)
        self.seen[key] = self.seen.get(key, 0) + 1
        theirs = _theirs(rec, pid, report.warnings, self.current(pid, member), clock)
        if str(rec["id"]) != pid and not _only_marks(theirs):  # a paper merged here into this one
            return  # (marks taken back on the duplicate take back none of this paper's: it brings none)
        if isinstance(rec.get("stamps"), dict):
            self.fieldwise.add(key)  # (even when none of its stamps is a time: then nothing is its change)
        if key in self.folded:  # a second record of one paper in one file: one record, its newest changes
            theirs = _fold(self.folded[key], theirs)
        self.folded[key] = theirs

    def _paper_index(self, rec: dict[str, Any], report: MergeReport) -> int | None:
        """The record's paper's corpus position: by id, else by its abstract (the same text, or a
        near duplicate); counted in ``report``."""
        corpus = self.library.corpus
        idx = corpus.index_of(rec["id"])
        if idx is not None:
            report.by_id += 1
        elif rec.get("abstract"):
            norm = normalize(rec["abstract"])
            idx = corpus.index_of(paper_id(norm))
            if idx is None:
                if self._near is None:
                    self._near = self.library.paper_changes.near_duplicate_finder()
                match = self._near(norm)
                idx = corpus.index_of(match) if match else None
            if idx is not None:
                report.by_text += 1
        return idx


def _only_marks(ann: Annotation) -> bool:
    """Keep of a record, for a paper merged here into another, only the marks it brings: the
    change times of what it took back go (taking back marks on the duplicate is no change to the
    paper kept). False when it brings none."""
    kept = {k: v for k, v in ann.stamps.items()
            if (k[1:] in ann.tags if k.startswith("#") else getattr(ann, k, None) not in (None, "unread", 0, ""))}
    ann.stamps = kept
    return ann.marked


def _fold(first: Annotation, second: Annotation) -> Annotation:
    """Two records of one paper from one file as one: each field and tag as its newer change says."""
    if not (first.stamps or second.stamps):
        return second if second.updated >= first.updated else first
    merged, _ = merge_one(first, second, "")
    merged.conflicts = first.conflicts
    return merged


def describe(old: Annotation, theirs: Annotation, new: Annotation,
             known: frozenset[tuple[str, str]] = frozenset()) -> str:
    """What a merge does to each field, exactly: ``status unread -> read (theirs, newer)``,
    ``#alpha removed (theirs)``, ``note replaced (theirs)``, ``star kept (yours; theirs unchanged)``."""
    parts = []
    mine_at = {k: canonical(v) or "" for k, v in old.stamps.items()}
    base = shared_base(mine_at, theirs.stamps, known)
    for name in ("status", "star", "note"):
        mine, other, result = getattr(old, name), getattr(theirs, name), getattr(new, name)
        if mine == other and mine == result:
            continue
        ours_at, their_at = mine_at.get(name, ""), theirs.stamps.get(name, "")
        whose = "theirs, newer" if ours_at > base and their_at else "theirs"
        if result != mine:
            if name == "note":
                verb = "set" if not mine else "cleared" if not result else \
                    "extended" if result.startswith(mine) else "replaced"
                parts.append(f"note {verb} ({whose})")
            else:
                parts.append(f"{name} {mine} -> {result} ({whose})")
        elif not their_at:
            parts.append(f"{name} kept (yours; theirs unchanged)")
        else:
            parts.append(f"{name} kept (yours, newer)")
    parts += [f"#{t} added (theirs)" for t in new.tags if t not in old.tags]
    parts += [f"#{t} removed (theirs)" for t in old.tags if t not in new.tags]
    return "; ".join(parts) or "change times only"
