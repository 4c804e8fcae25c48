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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from store.exchange.annotation_files import read_annotation_records  # noqa: F401 (re-exported: the CLI reads with it)
from store.corpus import paper_id
from store.ingest.dedup import NearDupIndex
from store.models import STAMPED, Annotation, clean_tag, note_problem
from store.text import normalize

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


def _theirs(rec: dict[str, Any], pid: str, warnings: list[str], local: Annotation) -> Annotation:
    note = _their_note(rec.get("note") or "", pid, warnings)
    return Annotation(paper_id=pid, status=rec.get("status", "unread"), star=int(rec.get("star", 0)),
                      tags=_clean_tags(rec.get("tags") or [], pid, warnings),
                      note=local.note if note is None else note,
                      created=rec.get("created") or "", updated=rec.get("updated") or "",
                      conflicts=list(rec.get("conflicts") or []),
                      stamps={k: v for k, v in _stamps(rec.get("stamps")).items() if note is not None or k != "note"})


def _stamps(value: object) -> dict[str, str]:
    """Their change times, as far as they are well-formed (a malformed one counts as no change)."""
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}


def merge_one(local: Annotation, theirs: Annotation, source: str,
              known: frozenset[tuple[str, str]] = frozenset()) -> tuple[Annotation, list[str]]:
    """Merge ``theirs`` into ``local``; returns the result and conflict descriptions.

    Field by field when their record carries change times (``stamps``): a field they never
    changed, or left as a state this library already had (its time is in ``known``: this
    library's history), never overwrites ours; one only they changed is taken; one both changed
    to different values is a conflict, which the newer change wins, the other value kept in the
    annotation's ``conflicts``. Tags merge one by one the same way, additions and removals alike.
    A record without change times (an older papersift's) merges by whole records:
    :func:`merge_whole`.
    """
    if local.is_default() and not local.updated and not local.stamps:
        return copy.deepcopy(theirs), []
    if not theirs.stamps:
        return merge_whole(local, theirs, source)
    new = copy.deepcopy(local)
    conflicts = []
    for name in STAMPED:
        mine, other = getattr(local, name), getattr(theirs, name)
        ms, ts = local.stamps.get(name), theirs.stamps.get(name)
        if mine == other:
            if ts and ts > (ms or ""):
                new.stamps[name] = ts
            continue
        if not ts or (name, ts) in known:
            continue  # they did not change it, or have a state we had before ours
        if not ms or ms < ts:
            setattr(new, name, other)
            new.stamps[name] = ts
        if ms:  # both changed it: the newer won; the other value is kept, and listed
            kept, lost, lost_when = (other, mine, ms) if ms < ts else (mine, other, ts)
            new.conflicts.append({"field": name, "kept": kept, "other": lost, "other_updated": lost_when,
                                  "source": source if kept == mine else "local"})
            conflicts.append(f"{name}: kept {_short(kept)} (newer), recorded {_short(lost)}")
    _merge_tags(new, local, theirs, known)
    if local.created and theirs.created:
        new.created = min(local.created, theirs.created)
    new.updated = max(local.updated, theirs.updated)
    return new, conflicts


def _merge_tags(new: Annotation, local: Annotation, theirs: Annotation, known: frozenset[tuple[str, str]]) -> None:
    """Each tag present or not as its newest change says (an add or a removal, on either side)."""
    for tag in dict.fromkeys([*local.tags, *theirs.tags, *(k[1:] for k in theirs.stamps if k.startswith("#"))]):
        key = "#" + tag
        mine, other = tag in local.tags, tag in theirs.tags
        ms, ts = local.stamps.get(key, ""), theirs.stamps.get(key, "")
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


def merge_whole(local: Annotation, theirs: Annotation, source: str) -> tuple[Annotation, list[str]]:
    """An older papersift's record (no change times): tags unioned, a differing note appended under
    a line naming its source, status and star from the newer record as a whole."""
    new = copy.deepcopy(local)
    conflicts = []
    for t in theirs.tags:
        if t not in new.tags:
            new.tags.append(t)
    if theirs.note.strip() and theirs.note.strip() not in new.note:
        new.note = (new.note + f"\n\n— from {source} ({theirs.updated[:10] or 'undated'}):\n" + theirs.note
                    if new.note.strip() else theirs.note)
    theirs_newer = theirs.updated > local.updated
    for name in ("status", "star"):
        mine, other = getattr(local, name), getattr(theirs, name)
        if mine == other:
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


def known_stamps(library: Library, pid: str, history: list[dict[str, Any]]) -> frozenset[tuple[str, str]]:
    """(field, time) of every state this library's undo history holds for a paper: a colleague's
    field with one of these times is a state we had, not a change of theirs."""
    found: set[tuple[str, str]] = set()
    for entry in history:
        for side in ("before", "after"):
            rec = (entry.get(side) or {}).get(pid)
            if isinstance(rec, dict):
                found.update((rec.get("stamps") or {}).items())
    current = library.annotation(pid)
    found.update(current.stamps.items())
    return frozenset(found)


def plan_merge(library: Library, records: list[dict[str, Any]],
               source: str) -> tuple[dict[str, Annotation], MergeReport]:
    """Work out the merged annotations without writing anything."""
    report = MergeReport(records=len(records))
    corpus = library.corpus
    near: NearDupIndex | None = None
    changes: dict[str, Annotation] = {}
    history = library.store.history(10_000)
    if records and not any(rec.get("stamps") for rec in records):
        report.warnings.append(f"{source}: no per-field change times (a file from an older papersift, or a "
                               "format without them): merged by whole records, the newer record's status and star winning")
    for rec in records:
        idx = corpus.index_of(rec["id"])
        if idx is not None:
            report.by_id += 1
        elif rec.get("abstract"):
            norm = normalize(rec["abstract"])
            idx = corpus.index_of(paper_id(norm))
            if idx is None:
                if near is None:
                    near = NearDupIndex()
                    near.add_many([p.id for p in corpus], [normalize(p.abstract) for p in corpus])
                match, _ = near.query(norm)
                idx = corpus.index_of(match.key) if match else None
            if idx is not None:
                report.by_text += 1
        if idx is None:
            report.unknown.append(f"{rec['id']} {rec.get('title', '')[:60]}")
            continue
        pid = corpus.papers[idx].id
        local = changes.get(pid) or library.annotation(pid)
        merged, conflicts = merge_one(local, _theirs(rec, pid, report.warnings, local), source,
                                      known_stamps(library, pid, history))
        if merged == local:
            report.unchanged += 1
            continue
        changes[pid] = merged
        report.changes.append(f"{pid}: {_describe(local, merged)}")
        report.conflicts += [f"{pid}: {c}" for c in conflicts]
    return changes, report


def _describe(old: Annotation, new: Annotation) -> str:
    parts = []
    if old.status != new.status:
        parts.append(f"status {old.status} -> {new.status}")
    if old.star != new.star:
        parts.append(f"star {old.star} -> {new.star}")
    added = [t for t in new.tags if t not in old.tags]
    if added:
        parts.append("tags +" + ", +".join(added))
    if old.note != new.note:
        parts.append("note " + ("set" if not old.note else "extended"))
    return "; ".join(parts) or "timestamps"
