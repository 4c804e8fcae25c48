"""What a stored annotation record's fields may hold, checked as they are read.

A library folder is untrusted input: the ``annotations.json`` of a colleague's folder, forged or
damaged, may hold a status that is no status (``"read\\x1b[2J"``), a star of 10**30, tags that are
one string or 100,000 of them, a note that is a number. :func:`read_fields` reads each field of the
wrong kind as its default and names it, so no reader fails on it (``Annotation.from_record``, the
one-shot search), the library says it once, and ``doctor --repair`` resets exactly those fields.
Reading never writes: the file keeps what it holds until a repair (after a backup).

Only :mod:`store.choices` is imported: a one-shot search uses this module too.
"""

from __future__ import annotations

from typing import Any

from store.choices import MAX_STAR, STATUSES

# A tag papersift stored is at most 64 characters (store.tags.MAX_TAG_CHARS; before that limit
# a few may be longer): a longer "tag" is no label but a forged field that would fill a list row.
MAX_TAG_READ = 1_000
MAX_TAGS = 1_000  # tags of one paper: more is no person's triage (a forged 100,000 would fill every view)
DEFAULTS: dict[str, Any] = {"status": "unread", "star": 0, "tags": [], "note": "", "stamps": {}}
CHECKED = tuple(DEFAULTS)  # the fields read_fields checks, in the order it names them


def is_record(rec: object) -> bool:
    """Whether a stored value is an annotation record at all: a dict whose paper id is a string
    (anything else is skipped, and kept in the file as found)."""
    return isinstance(rec, dict) and isinstance(rec.get("paper_id"), str)


def read_fields(rec: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The status, star, tags, note and change times of a stored record, each of the wrong kind
    read as its default (a field that is missing or null is its default too, and no problem).

    Args:
        rec: a stored record (see :func:`is_record`).

    Returns:
        The fields by name (fresh containers, ready for an ``Annotation``), and the names of those
        that held something else (for tags and change times: anything dropped; the good ones are
        kept, at most ``MAX_TAGS`` tags).
    """
    bad: list[str] = []
    status = rec.get("status")
    if status is None:
        status = "unread"
    elif type(status) is not str or status not in STATUSES:
        status = "unread"
        bad.append("status")
    star = rec.get("star")
    if star is None:
        star = 0
    elif type(star) is not int or not 0 <= star <= MAX_STAR:  # (a bool is no star either)
        star = 0
        bad.append("star")
    tags = _tags(rec.get("tags"), bad)
    note = rec.get("note")
    if note is None:
        note = ""
    elif type(note) is not str:
        note = ""
        bad.append("note")
    stamps = rec.get("stamps")
    if stamps is None:
        stamps = {}
    elif type(stamps) is not dict:
        stamps = {}
        bad.append("stamps")
    else:
        good = {k: v for k, v in stamps.items() if type(k) is str and type(v) is str}
        if len(good) != len(stamps):
            bad.append("stamps")
        stamps = good
    return {"status": status, "star": star, "tags": tags, "note": note, "stamps": stamps}, bad


def _tags(tags: object, bad: list[str]) -> list[str]:
    """The good tags of a stored list (strings, non-empty, not too long), at most ``MAX_TAGS``."""
    if tags is None:
        return []
    if type(tags) is not list:
        bad.append("tags")
        return []
    good = [t for t in tags if type(t) is str and 0 < len(t) <= MAX_TAG_READ]
    if len(good) != len(tags) or len(good) > MAX_TAGS:
        bad.append("tags")
    return good[:MAX_TAGS]


def repaired(rec: dict[str, Any]) -> dict[str, Any]:
    """A stored record with its fields of the wrong kind reset as :func:`read_fields` reads them,
    everything else kept as it is (what ``doctor --repair`` writes)."""
    fields, bad = read_fields(rec)
    return {**rec, **{name: fields[name] for name in bad}}
