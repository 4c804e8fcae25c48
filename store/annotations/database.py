"""Annotations in a TinyDB file, written crash-safely, with a persistent undo history.

TinyDB's default ``JSONStorage`` rewrites its file in place (a kill mid-write
leaves a torn file) and ``CachingMiddleware`` loses unflushed writes on a
crash. :class:`store.annotations.storage.JournaledJSONStorage` instead makes every change durable before
the call returns — an fsync'd append to a journal beside the TinyDB file,
folded into a new atomically written snapshot now and then — and notices when
another process changed either file.

Each user action is one transaction: the changed annotation records and the
undo entry describing them are written together, as one journal line, with a
single fsync. Undo moves its entry to a redo table, which the next new change
empties (as editors do), so ``redo`` can put back what one undo too many took.
Document ids are derived from paper ids, so two processes can never hand the
same id to different papers.
"""

from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Mapping, NoReturn, TypeVar

from tinydb import TinyDB

from store.annotations.storage import JournaledJSONStorage, now_iso
from store.record_fields import is_record
from store.annotations.journal import (ANN, ANNOTATIONS_FORMAT, ANNOTATIONS_VERSION, HIST, META, REDO,  # noqa: F401
                      Replay, journal_path_for, judge, read_acked, read_snapshot, replay_journal, write_acked)
from store.errors import PapersiftError
from store.records import Annotation, Record, RecordKey, read_record
from store.safe_text import has_unsafe, strip_unsafe
from store.annotations.note_edits import long_notes_as_edits, records_of
from store.annotations.step_records import as_change, left_as_is, refuse_if_gone, remember_states, the_steps_fields

HISTORY_LIMIT = 500
PENDING = "pending"  # the meta table's record of a corpus write still to make (a removal's)
# The maker of the steps a lab's sync stores (colleagues' marks, their assignments): no member can be
# called that, so no member's undo takes such a step back (store.sync.library_sync).
FROM_LAB = "@lab"

_T = TypeVar("_T")


class _Tracked(dict[str, Any]):
    """A table being changed in a transaction: remembers which keys were set or removed."""

    def __init__(self, *args: dict[str, Any]) -> None:
        super().__init__(*args)
        self.touched: set[str] = set()

    def __setitem__(self, key: str, value: Any) -> None:
        self.touched.add(key)
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self.touched.add(key)
        super().__delitem__(key)

    def pop(self, key: str, *default: Any) -> Any:
        self.touched.add(key)
        return super().pop(key, *default)

    def _refuse(self, *_args: object, **_kwargs: object) -> NoReturn:
        raise TypeError("transactions change tables by key (set, del, pop) so the journal sees every change")

    setdefault = update = popitem = clear = _refuse


class AnnotationStore:
    """The annotations TinyDB: read all, apply changes transactionally, undo."""

    def __init__(self, path: Path):
        self.path = path
        self.db = TinyDB(path, storage=JournaledJSONStorage)
        self.storage: JournaledJSONStorage = self.db.storage  # type: ignore[assignment]
        self.unreadable: Counter[str] = Counter()  # what the last load_records could not read (see there)
        self.unsound: dict[str, int] = {}  # history table -> its entries papersift cannot read (see _sound)

    def load_records(self, owner: str = "") -> dict[RecordKey, Record]:
        """Every stored annotation record, by its key (its paper and member, or its assignment);
        a record that names no member is ``owner``'s (by name, as every member's is in memory).

        A library folder is untrusted input: a stored value that is no record (not a dict, or
        its paper id no string) is skipped, and a field of the wrong kind is read as its default
        (store.record_fields), both counted in ``unreadable`` (field, or "record", -> how
        many records; "fields": the records with any). In memory only: the file keeps them as found, for ``doctor --repair``.
        """
        table = (self.storage.read() or {}).get(ANN) or {}
        records: dict[RecordKey, Record] = {}
        unreadable: Counter[str] = Counter()
        for rec in table.values():
            if not is_record(rec):
                unreadable["record"] += 1
                continue
            ann, bad = read_record(rec)
            if bad:
                unreadable.update(bad)
                unreadable["fields"] += 1
            if isinstance(ann, Annotation) and not ann.member:
                ann.member = owner
            records[ann.key] = ann
        self.unreadable = unreadable
        return records

    def owner(self) -> str:
        """The member whose records carry no member name (the one who made the library), or ''
        when no member has written since members were recorded."""
        meta = (self.storage.read() or {}).get(META) or {}
        first = meta.get("1") or {}
        return str(first.get("owner") or "")

    def changed_on_disk(self) -> bool:
        return self.storage.changed_on_disk()

    def compact(self) -> None:
        """Fold the journal into annotations.json (so a copy of that file is complete)."""
        self.storage.compact()

    def _transaction(self, mutate: Callable[[dict[str, Any]], _T], owner: str = "") -> _T:
        """Read the whole database, mutate it, make the change durable once (one fsync).

        Only the records the mutation touched are journaled.
        """
        data: dict[str, Any] = copy.copy(self.storage.read() or {})  # its tables become _Tracked
        new_file = not data.get(META)
        for name in (ANN, HIST, META, REDO):
            data[name] = _Tracked(data.get(name) or {})
        if new_file:
            data[META]["1"] = {"format": ANNOTATIONS_FORMAT, "version": ANNOTATIONS_VERSION, "created": now_iso()}
        if owner and not data[META]["1"].get("owner"):  # the first member to write owns the unnamed records
            data[META]["1"] = {**data[META]["1"], "owner": owner}
        result = mutate(data)
        changes = {name: {key: data[name].get(key) for key in data[name].touched}
                   for name in (ANN, HIST, META, REDO) if data[name].touched}
        if new_file:
            self.storage.write(data)
        elif changes:
            self.storage.write_changes(data, changes)
        self.db.clear_cache()
        for table in self.db.tables():
            self.db.table(table).clear_cache()
        return result

    def apply(self, changes: Mapping[RecordKey, Record], action: str, label: str, history: bool = True,
              extra: dict[str, Any] | None = None, member: str = "", owner: str = "",
              pending: dict[str, Any] | None = None) -> None:
        """Store new annotation states and (optionally) an undo entry, together.

        Args:
            changes: record key -> its new record (one at its defaults is removed, unless it
                keeps change times: a cleared mark or an assignment taken off, ``is_cleared``).
            member: who made the change: the undo entry is theirs (each member undoes their own).
            owner: the member the library's unnamed records belong to, recorded if none is yet:
                their records are stored without their name (:meth:`RecordKey.stored`).
            action: machine name of the action ("status", "star", "tag", ...).
            label: what a person would call it ("status read on 3 papers").
            history: record an undo entry.
            extra: more for the undo entry (a removal's paper records); it is written even when
                no annotation changes.
            pending: the corpus write that must follow (a removal's), recorded in the same write
                and cleared by :meth:`clear_pending` once done: a kill between the two leaves it
                here for the next open to finish (:func:`store.library.removal.finish_cut_step`).
        """
        def mutate(data: dict[str, Any]) -> None:
            ann = data[ANN]
            before: dict[str, dict[str, Any] | None] = {}
            after: dict[str, dict[str, Any] | None] = {}
            for key, new in changes.items():
                stored = key.stored(owner)
                doc, text = str(stored.doc_id), stored.text  # (the table's key; the undo entry's)
                old = ann.get(doc)
                before[text] = old if isinstance(old, dict) else None  # (a forged file's value that is no record: none)
                # A cleared mark keeps its change times, and so does an assignment taken off (a lab's
                # sync passes it on: store.sync.library_sync).
                if new.is_default() and not new.is_cleared():
                    ann.pop(doc, None)
                    after[text] = None
                else:
                    ann[doc] = new.to_record(owner)
                    after[text] = ann[doc]
            if history:
                entry = {"time": now_iso(), "action": action, "label": label, "before": before, "after": after,
                         **({"member": member} if member else {}), **(extra or {})}
                _push(data[HIST], long_notes_as_edits(entry))
            if pending is not None:
                data[META][PENDING] = pending
            for k in [k for k, e in data[REDO].items() if made_by(e, member, owner)]:
                del data[REDO][k]  # a new change: what its member undid before it cannot be redone

        self._transaction(mutate, owner)

    def undo(self, member: str = "", owner: str = "", present: Callable[[str], bool] | None = None) -> dict[str, Any] | None:
        """Revert the member's newest history entry (another member's changes are theirs to undo);
        returns it, or None when there is nothing to undo. ``present``: whether a paper is in the
        corpus (a step on a paper another member removed since is refused, kept to undo later).

        Raises:
            PapersiftError: the step cannot be undone now (nothing is changed).
        """
        def mutate(data: dict[str, Any]) -> dict[str, Any] | None:
            hist = data[HIST]
            mine = [k for k in self._sound(HIST, hist) if made_by(hist[k], member, owner)]
            if not mine:
                return None
            entry: dict[str, Any] = hist.pop(max(mine, key=int))
            refuse_if_gone(entry, hist, present, "undo")
            before = records_of(entry, "before", data[ANN])
            if before is None:
                raise PapersiftError(f"cannot undo {entry['label']!r}: a note it changed was changed since "
                                     "outside papersift's history")
            written = _as_changes(data[ANN], before, member, owner, records_of(entry, "after", data[ANN],
                                                                                current_is="after"))
            _set_records(data[ANN], written)
            remember_states(entry, written)
            _push(data[REDO], entry)
            if entry.get("papers"):  # a removal's papers go back into the corpus next
                data[META][PENDING] = {"action": "restore", "papers": entry["papers"],
                                       "places": entry.get("places") or [],
                                       **{k: entry[k] for k in ("archived",) if k in entry}}  # (its lines out too)
            return shown_entry(entry)

        if not (self.storage.read() or {}).get(HIST):
            return None
        return self._transaction(mutate)  # (a step of the member's: the owner is recorded already)

    def redo(self, member: str = "", owner: str = "", present: Callable[[str], bool] | None = None) -> dict[str, Any] | None:
        """Make again the change the newest undo reverted; returns its entry, or None when there is
        nothing to redo (no undo since the last change).

        Each field the step changed is made again where it is still as the undo left it (what came
        since, a sync's, stays). When none is (or a note was changed outside the history: a
        papersift that predates redo) the redo table is dropped instead.
        """
        def mutate(data: dict[str, Any]) -> dict[str, Any] | None:
            redo = data[REDO]
            mine = [k for k in self._sound(REDO, redo) if made_by(redo[k], member, owner)]
            if not mine:
                return None
            entry: dict[str, Any] = redo.pop(max(mine, key=int))
            refuse_if_gone(entry, data[HIST], present, "redo")
            ann = data[ANN]
            before = records_of(entry, "before", ann, current_is="before")
            after = records_of(entry, "after", ann)
            if before is None or after is None or before and not any(  # (a note changed outside; every field since)
                    left_as_is(key, ann.get(str(key.doc_id)), rec, after.get(key.text)) for key, rec in _keyed(before)):
                for k in mine:
                    redo.pop(k, None)
                return None
            written = _as_changes(ann, after, member, owner, before)
            if entry.get("papers"):  # a removal's records go with its papers, as the removal took them (no
                gone = {str(r.get("id")) for r in entry["papers"] if isinstance(r, dict)}  # cleared record left behind)
                written = {k: None if RecordKey.parse(k).paper in gone else rec for k, rec in written.items()}
            _set_records(ann, written)
            remember_states(entry, written)
            _push(data[HIST], entry)
            if entry.get("papers"):  # a removal's papers go out of the corpus next
                data[META][PENDING] = {"action": "remove", "ids": [r.get("id") for r in entry["papers"]
                                                                   if isinstance(r, dict)],
                                       **{k: entry[k] for k in ("archived",) if k in entry}}  # (its lines again)
            return shown_entry(entry)

        if not (self.storage.read() or {}).get(REDO):
            return None
        return self._transaction(mutate)

    def pending(self) -> dict[str, Any] | None:
        """The corpus write a removal, or its undo or redo, recorded before making it (None when
        every step is whole): see ``apply``'s ``pending``."""
        meta = (self.storage.read() or {}).get(META) or {}
        step = meta.get(PENDING)
        return step if isinstance(step, dict) else None

    def clear_pending(self) -> None:
        """The corpus write recorded as pending is done."""
        def mutate(data: dict[str, Any]) -> None:
            data[META].pop(PENDING, None)

        if self.pending() is not None:
            self._transaction(mutate)

    def history(self, limit: int = 20, undone: bool = False) -> list[dict[str, Any]]:
        """The newest undo entries, newest first (every member's; none papersift cannot read);
        ``undone``: the steps undone since (the redo table's), after them."""
        data = self.storage.read() or {}
        tables = [HIST, REDO] if undone else [HIST]
        return [shown_entry(table[k]) for name in tables for table in [data.get(name) or {}]
                for k in sorted(self._sound(name, table), key=int, reverse=True)[:limit]]

    def _sound(self, name: str, table: dict[str, Any]) -> list[str]:
        """The keys of a history table's entries papersift can show, undo and redo (see
        :func:`sound_entry`); how many others it holds is kept in ``unsound`` (a forged or damaged
        file's: passed over, never a traceback, said once by the library)."""
        keys = [k for k, e in table.items() if k.isdigit() and sound_entry(e)]
        self.unsound[name] = len(table) - len(keys)
        return keys


def sound_entry(entry: object) -> bool:
    """Whether an undo entry is one papersift can show, undo and redo: a dict with a time and a
    label that are strings, whose before and after map record keys to dicts or None (the records
    are checked as they are read: store.record_fields), with its long notes' edits and a
    removal's papers of the kinds undo reads. A forged or damaged file's entry that is not is
    passed over (store.doctor counts it)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("label"), str) or not isinstance(entry.get("time"), str):
        return False
    for side in ("before", "after"):
        records = entry.get(side)
        if not isinstance(records, dict) or not all(_is_key(k) and (r is None or isinstance(r, dict))
                                                    for k, r in records.items()):
            return False
    edits = entry.get("note_edits")
    if edits is not None and not (isinstance(edits, dict) and all(_is_edit(k, e) for k, e in edits.items())):
        return False
    papers = entry.get("papers")
    return papers is None or isinstance(papers, list) and all(
        isinstance(p, dict) and isinstance(p.get("id"), str) and isinstance(p.get("abstract"), str) for p in papers)


def _is_key(key: str) -> bool:
    """Whether a history entry's key is a record key (a paper id in hex, and a member)."""
    try:
        RecordKey.parse(key).doc_id  # noqa: B018 (ValueError: a paper id that is no hex)
    except ValueError:
        return False
    return True


def _is_edit(key: str, edit: object) -> bool:
    """Whether a long note's edit in an undo entry is one undo can apply (store.annotations.note_edits)."""
    return _is_key(key) and isinstance(edit, dict) and all(type(edit.get(k)) is int for k in ("at", "tail")) \
        and all(isinstance(edit.get(k), str) for k in ("was", "now", "before", "after"))


def shown_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """An undo entry as it is shown: its label without escape sequences or control characters
    (a forged file's label could clear the screen); the stored entry is not changed."""
    label = entry["label"]
    return entry if not has_unsafe(label) else {**entry, "label": strip_unsafe(label)}


def made_by(entry: Any, member: str, owner: str) -> bool:
    """Whether an undo entry is the member's: an entry without a member is the owner's (every
    entry before members were), and with no member asked for, every entry is."""
    if not member:
        return True
    made = entry.get("member", "") if isinstance(entry, dict) else ""
    return bool(made == member or (not made and member == owner))


def _as_changes(ann: dict[str, Any], records: dict[str, Any], member: str, owner: str,
                other: dict[str, Any] | None) -> dict[str, Any]:
    """An undo's or redo's records (``other``: the step's other side), the fields the step changed
    only, where still as it left them (store.annotations.step_records: what a sync brought since
    stays): the member's own and the assignments as changes made now; another member's with the
    times they had then (a lead's undo of a colleague's team file takes back the import, not the
    colleague's marks: their newer record, in their file, is theirs to bring again)."""
    when = now_iso()
    own = "" if member == owner else member  # (the owner's records carry no member name)
    out = {}
    for key, rec in _keyed(records):
        mine = not member or key.member == own or key.is_assignment
        current = ann.get(str(key.doc_id))
        target = the_steps_fields(key, current, rec, other[key.text], mine) if other is not None and key.text in other else rec
        out[key.text] = as_change(key, current, target, when) if mine else target
    return out


def _keyed(records: dict[str, Any]) -> list[tuple[RecordKey, Any]]:
    """An undo entry's records (record key text -> record) with their keys read."""
    return [(RecordKey.parse(k), rec) for k, rec in records.items()]


def _set_records(ann: dict[str, Any], records: dict[str, Any]) -> None:
    """Put an undo entry's records (record key text -> the record, None: none) into the annotations table."""
    for key, rec in _keyed(records):
        doc = str(key.doc_id)
        if rec is None:
            ann.pop(doc, None)
        else:
            ann[doc] = rec


def _push(table: dict[str, Any], entry: dict[str, Any]) -> None:
    """Add an entry as the table's newest (numbered after the others), keeping the newest
    ``HISTORY_LIMIT``."""
    seq = max((int(k) for k in table if k.isdigit()), default=0) + 1
    table[str(seq)] = {"seq": seq, **{k: v for k, v in entry.items() if k != "seq"}}
    if len(table) > HISTORY_LIMIT:  # (a key that is no number, a forged file's, goes first)
        for k in sorted(table, key=lambda k: int(k) if k.isdigit() else -1)[: len(table) - HISTORY_LIMIT]:
            del table[k]
