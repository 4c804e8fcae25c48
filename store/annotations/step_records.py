"""The records an undo or a redo puts back, made changes of their own time.

An undo puts back what a paper's records were before a step; a redo, what they were after it. Put
back as they were, their change times were older than the step's, and a lab's sync (which decides
field by field by change time: store.exchange.merge) took the step's values, already pushed, for
the newer word and brought them back: a star undone after a sync came back on the next one. So
each field an undo or redo changes gets the time it is made, as any change does, and a record an
undo takes away is kept cleared (with those times) when the one there had marks. The step keeps
the times its undos and redos wrote (``remember_states``: a merge knows them as states this library
had), and a step on a paper another member took out since is refused (``refuse_if_gone``).
"""

from __future__ import annotations

from typing import Any, Callable

from store.errors import PapersiftError
from store.records import Annotation, Assignment, Record, RecordKey, read_record
from store.record_fields import is_record


def as_change(key: RecordKey, current: Any, target: Any, when: str) -> Any:
    """The record to store for ``key`` so that it holds
    ``target``'s marks (None: none) as a change made at ``when`` over ``current`` (what is stored
    now). A value that is no record (a forged file's) is put back as it was."""
    if target is not None and not is_record(target):
        return target
    now = _read(key, current if is_record(current) else None)
    new = _read(key, target)
    if marks(new) == marks(now):
        return target if target is not None or not now.stamps else current
    new.stamps = {**new.stamps, **now.stamps}  # (the newest known time of each field, then this one's)
    if isinstance(new, Annotation) and isinstance(now, Annotation):
        new.stamp_changes(now, when)
        new.updated = when
        new.created = new.created or now.created or when
    elif isinstance(new, Assignment) and isinstance(now, Assignment):  # (an assignment's only time is its stamp)
        new.stamp_changes(now, when)
    if new.is_default() and not new.stamps:
        return None
    return new.to_record()


def the_steps_fields(key: RecordKey, current: Any, target: Any, other: Any, own: bool = True) -> Any:
    """``target`` (one side of a step: what an undo or redo puts back) as it applies over what is
    stored now: each field the step changed (where ``target`` and ``other``, the step's other
    side, differ; a tag at a time) as ``target`` has it, where it is still as the step left it
    (as ``other`` has it); every other field as ``current`` has it. What came since (a lab's sync:
    one's own marks from another copy, a colleague's reassignment, a colleague's newer marks) is no
    step of one's own to undo, and stays. ``own``: the undoing member's record or an assignment
    (then the caller stamps the change with its time); else a field put back takes the time it had
    then, so the colleague's newer record brings it again. A value that is no record (a forged
    file's): ``target`` whole."""
    if not all(r is None or is_record(r) for r in (current, target, other)):
        return target
    now, want, was = (_read(key, r) for r in (current, target, other))

    def stamp_as_then(name: str) -> None:
        if not own:
            if name in want.stamps:
                now.stamps[name] = want.stamps[name]
            else:
                now.stamps.pop(name, None)
    for name in now.STAMPED:
        if getattr(want, name) != getattr(was, name) and getattr(now, name) == getattr(was, name):
            setattr(now, name, getattr(want, name))
            stamp_as_then(name)
    if isinstance(now, Annotation) and isinstance(want, Annotation) and isinstance(was, Annotation):
        _the_steps_tags(now, want, was, stamp_as_then)
    if marks(now) is None and (current is None or not own and not now.stamps):
        return None
    return now.to_record()


def _the_steps_tags(now: Annotation, want: Annotation, was: Annotation, stamp_as_then: Callable[[str], None]) -> None:
    """:func:`the_steps_fields` of a member's annotation: its tags (a tag at a time), and its times
    and conflicts where the record is gone since."""
    keep = set(now.tags)
    for tag in set(want.tags) ^ set(was.tags):
        if (tag in keep) == (tag in was.tags):
            (keep.add if tag in want.tags else keep.discard)(tag)
            stamp_as_then("#" + tag)
    now.tags = [t for t in want.tags if t in keep] + [t for t in now.tags if t in keep and t not in want.tags]
    now.created, now.updated = now.created or want.created, now.updated or want.updated  # (a record gone since)
    now.conflicts = now.conflicts or [dict(c) for c in want.conflicts]


def left_as_is(key: RecordKey, current: Any, side: Any, other: Any) -> bool:
    """Whether any field a step changed (where ``side`` and ``other`` differ) still holds ``side``'s
    value: a redo with none such would make nothing again. A value that is no record: compared whole."""
    if not all(r is None or is_record(r) for r in (current, side, other)):
        return marks(current) == marks(side)
    now, was, made = (_read(key, r) for r in (current, side, other))
    return (any(getattr(now, f) == getattr(was, f) != getattr(made, f) for f in now.STAMPED)
            or any((t in _tags(now)) == (t in _tags(was)) for t in set(_tags(was)) ^ set(_tags(made))))


def _tags(record: Record) -> list[str]:
    return record.tags if isinstance(record, Annotation) else []


def _read(key: RecordKey, record: Any) -> Record:
    """The record a stored one holds, of the key's kind (None: the key's paper and member, or its
    assignment, untouched)."""
    if key.is_assignment:
        return Assignment.read(record)[0] if record is not None else Assignment(key.paper)
    return Annotation.from_record(record) if record is not None else Annotation(key.paper, member=key.member)


def marks(record: Any) -> tuple[Any, ...] | None:
    """What a record says of its paper, without its times (None: nothing); a value that is no
    record, as it is."""
    a: Record
    if isinstance(record, (Annotation, Assignment)):
        a = record
    elif is_record(record):
        a = read_record(record)[0]
    else:
        return (record,) if record is not None else None
    if a.is_default():
        return None
    if isinstance(a, Assignment):
        return (a.assignee,)
    return (a.status, a.star, tuple(a.tags), a.note)


STATES_KEPT = 8  # the undos' and redos' change times a step keeps per record


def remember_states(entry: dict[str, Any], written: dict[str, Any]) -> None:
    """Keep in the step the change times its undo or redo wrote (``states``: record key -> the
    stamps of each): states this library had, which a merge must not take for a colleague's
    change (a sync of one's own file after an undo, then a redo: no conflict with oneself)."""
    found = entry.get("states")
    states: dict[str, Any] = found if isinstance(found, dict) else {}
    for key, rec in written.items():
        stamps = rec.get("stamps") if isinstance(rec, dict) else None
        if isinstance(stamps, dict) and stamps:
            held = states.get(key)
            kept: list[Any] = held if isinstance(held, list) else []
            states[key] = [*kept, stamps][-STATES_KEPT:]
    if states:
        entry["states"] = states


def refuse_if_gone(entry: dict[str, Any], hist: dict[str, Any], present: Callable[[str], bool] | None,
                    verb: str) -> None:
    """Refuse to undo or redo a change of marks on a paper the corpus no longer holds (another
    member removed or archived it since): the step would be spent on nothing, and the paper would
    come back, with the removal's undo, marked as before. Said with who took it out.

    Raises:
        PapersiftError: such a paper (the step stays, to undo or redo once the paper is back).
    """
    if present is None or entry.get("papers"):  # (a removal's own step: its papers are its to put back)
        return
    papers = (RecordKey.parse(k).paper for k in entry.get("before") or {})
    gone = next((pid for pid in papers if not present(pid)), None)
    if gone is None:
        return
    took = next((e for _, e in sorted(((int(k), e) for k, e in hist.items() if k.isdigit()), reverse=True)
                 if isinstance(e, dict) and any(isinstance(r, dict) and r.get("id") == gone for r in e.get("papers") or [])),
                None)
    if took and str(took.get("time", "")) < str(entry.get("time", "")):
        return  # the step was made after the removal (a process that had not seen it yet): it changed
        # a record pointing at no paper, which its undo or redo changes as any other; the removal's
        # undo, older, then puts the paper back with its marks as they were
    who = f" by {took.get('member')}" if took and took.get("member") else ""
    back = (f"`papersift --as {took['member']} undo` brings it back" if took and took.get("member")
            else "an undo of that brings it back")
    raise PapersiftError(f"cannot {verb} {str(entry.get('label', ''))!r} now: its paper {gone} was removed or archived "
                         f"since{who} ({back}); nothing changed, and the step stays to {verb} then")
