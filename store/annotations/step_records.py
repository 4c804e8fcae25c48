"""The records an undo or a redo puts back, made changes of their own time.

An undo puts back what a paper's records were before a step; a redo, what they were after it. Put
back as they were, their change times were older than the step's, and a lab's sync (which decides
field by field by change time: store.exchange.merge) took the step's values, already pushed, for
the newer word and brought them back: a star undone after a sync came back on the next one. So
each field an undo or redo changes gets the time it is made, as any change does, and a record an
undo takes away is kept cleared (with those times) when the one there had marks.
"""

from __future__ import annotations

from typing import Any

from store.annotations.journal import MEMBER_SEP
from store.models import TEAM, Annotation
from store.record_fields import is_record


def as_change(key: str, current: Any, target: Any, when: str) -> Any:
    """The record to store for ``key`` (``PAPERID`` or ``PAPERID@member``) so that it holds
    ``target``'s marks (None: none) as a change made at ``when`` over ``current`` (what is stored
    now). A value that is no record (a forged file's) is put back as it was."""
    if target is not None and not is_record(target):
        return target
    pid, _, member = key.partition(MEMBER_SEP)
    now = Annotation.from_record(current) if is_record(current) else Annotation(pid, member=member)
    new = Annotation.from_record(target) if target is not None else Annotation(pid, member=member)
    if marks(new) == marks(now):
        return target if target is not None or not now.stamps else current
    new.stamps = {**new.stamps, **now.stamps}  # (the newest known time of each field, then this one's)
    new.stamp_changes(now, when)
    if member != TEAM:
        new.updated = when
        new.created = new.created or now.created or when
    if new.is_default() and not new.stamps:
        return None
    return new.to_record()


def marks(record: Any) -> tuple[Any, ...] | None:
    """What a record says of its paper, without its times (None: nothing); a value that is no
    record, as it is."""
    if isinstance(record, Annotation):
        a = record
    elif is_record(record):
        a = Annotation.from_record(record)
    else:
        return (record,) if record is not None else None
    if a.is_default():
        return None
    return (a.status, a.star, tuple(a.tags), a.note, a.assignee)
