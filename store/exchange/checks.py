"""Every field of a colleague's triage record checked before anything merges: its kind, its size,
and that its text is text (no NUL). A record read back from any exported format
(:mod:`store.exchange.annotation_files`) passes here, so the merge (:mod:`store.exchange.merge`)
and the library it writes never meet a number where a time belongs or a ten-megabyte note.

Each check returns why a value cannot be taken (None when it can); the reader names the file, the
line and the field.
"""

from __future__ import annotations

from typing import Any, Callable

from store.choices import MAX_STAR, STATUSES
from store.exchange.stamps import canonical
from store.tags import MAX_NOTE_CHARS
from store.team.members import member_problem
from store.wording import counted

MAX_ID_CHARS = 1_000
MAX_TITLE_CHARS = 10_000
MAX_ABSTRACT_CHARS = 1_000_000
MAX_NOTE_READ = 10 * MAX_NOTE_CHARS  # a note longer than a note may be is said and not taken; far longer is refused
MAX_TAGS = 1_000
MAX_RAW_TAG_CHARS = 1_000  # (cleaned and cut to a tag's 64 by the merge, with a warning)
MAX_TIME_CHARS = 64
MAX_CONFLICTS = 1_000
MAX_STAMPS = MAX_TAGS + 10


def text_problem(value: object, limit: int) -> str | None:
    """Why a value is not a string of text of at most ``limit`` characters."""
    if not isinstance(value, str):
        return f"must be text, not {_kind(value)}"
    if len(value) > limit:
        return f"holds {len(value):,} characters; at most {limit:,}"
    if "\x00" in value:
        return "holds a NUL character (text holds none)"
    return None


def _kind(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value).lower() if value is not None else "null"
    text = repr(value)
    return text if len(text) <= 30 else f"a {type(value).__name__}"


def _status(value: object) -> str | None:
    if not isinstance(value, str) or value not in STATUSES:
        return f"is an unknown status {_kind(value)} (one of {', '.join(STATUSES)})"
    return None


def _star(value: object) -> str | None:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_STAR:
        return f"must be a whole number 0-{MAX_STAR}, not {_kind(value)}"
    return None


def _tags(value: object) -> str | None:
    if not isinstance(value, list):
        return f"must be a list of tags, not {_kind(value)}"
    if len(value) > MAX_TAGS:
        return f"holds {counted(len(value), 'tag')}; at most {MAX_TAGS:,}"
    for tag in value:
        if problem := text_problem(tag, MAX_RAW_TAG_CHARS):
            return f"a tag {problem}"
    return None


def _time(value: object) -> str | None:
    """A creation or change time: empty, or a time (ISO 8601)."""
    if problem := text_problem(value, MAX_TIME_CHARS):
        return problem
    if value and canonical(str(value)) is None:
        return f"{str(value)[:40]!r} is not a time (ISO 8601, such as 2026-01-31T09:00:00+00:00)"
    return None


def _stamps(value: object) -> str | None:
    """Change times by field. A value that is text but no time is said and counted as no change
    by the merge (store.exchange.stamps); one that is not text at all is refused here."""
    if not isinstance(value, dict):
        return f"must be an object of change times by field, not {_kind(value)}"
    if len(value) > MAX_STAMPS:
        return f"holds {len(value):,} change times; at most {MAX_STAMPS:,}"
    for name, when in value.items():
        if problem := text_problem(name, MAX_RAW_TAG_CHARS + 1):
            return f"a field name {problem}"
        if problem := text_problem(when, MAX_TIME_CHARS):
            return f"the change time of {name[:40]!r} {problem}"
    return None


def _conflicts(value: object) -> str | None:
    """The losing sides of earlier merges: a list of objects whose values are text, numbers or null."""
    if not isinstance(value, list):
        return f"must be a list of earlier conflicts, not {_kind(value)}"
    if len(value) > MAX_CONFLICTS:
        return f"holds {len(value):,} conflicts; at most {MAX_CONFLICTS:,}"
    for n, item in enumerate(value, start=1):
        if not isinstance(item, dict):
            return f"conflict {n} must be an object, not {_kind(item)}"
        if problem := text_problem(item.get("field"), 64):
            return f"conflict {n}'s \"field\" {problem}"
        for key, part in item.items():
            if problem := _conflict_value(key, part):
                return f"conflict {n}'s {str(key)[:40]!r} {problem}"
    return None


def _conflict_value(key: object, part: object) -> str | None:
    if problem := text_problem(key, 64):
        return problem
    if part is None or (isinstance(part, int) and not isinstance(part, bool)):
        return None
    if isinstance(part, list):
        return _tags(part)
    return text_problem(part, MAX_NOTE_READ)


def _member(value: object) -> str | None:
    if not isinstance(value, str):
        return f"must be a member's name, not {_kind(value)}"
    return member_problem(value)


def _assignee(value: object) -> str | None:
    return None if value == "" else _member(value)


def _limited(limit: int) -> Callable[[object], str | None]:
    return lambda value: text_problem(value, limit)


# field -> its check (a field a record does not hold takes its default and needs none)
FIELD_CHECKS: dict[str, Callable[[object], str | None]] = {
    "id": _limited(MAX_ID_CHARS),
    "title": _limited(MAX_TITLE_CHARS),
    "abstract": _limited(MAX_ABSTRACT_CHARS),
    "status": _status,
    "star": _star,
    "tags": _tags,
    "note": _limited(MAX_NOTE_READ),
    "created": _time,
    "updated": _time,
    "stamps": _stamps,
    "conflicts": _conflicts,
    "member": _member,
    "assignee": _assignee,
}


def record_problem(rec: dict[str, Any]) -> str | None:
    """Why a triage record cannot be merged, naming its field (None when it can)."""
    if "id" not in rec:
        return "each paper needs a string \"id\""
    for name, check in FIELD_CHECKS.items():
        if name in rec and (problem := check(rec[name])):
            return f"\"{name}\" {problem}"
    return None
