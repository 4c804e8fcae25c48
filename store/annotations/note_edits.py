"""Long notes in the undo history: kept as their edit, not as two whole copies.

An undo entry holds a paper's annotation before and after a change. For a note of many
kilobytes edited again and again that was two copies per edit (five edits of a 5 MB note made
annotations.json 50 MB). A long note's entry keeps only what changed between the common start
and end, and undo and redo rebuild the whole note from the one the paper has when they run.
"""

from __future__ import annotations

import hashlib
from typing import Any, cast

from store.records import RecordKey

NOTE_INLINE = 4_096  # a longer note is kept in the undo history as its edit, not two whole copies


def _sha(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def long_notes_as_edits(entry: dict[str, Any]) -> dict[str, Any]:
    """An undo entry whose long notes are kept as the edit between the two (the common start and
    end, and what lay between before and after): five edits of a long note stored ten copies."""
    edits: dict[str, dict[str, Any]] = {}
    for pid, after in entry["after"].items():
        before = entry["before"].get(pid)
        old, new = (before or {}).get("note", ""), (after or {}).get("note", "")
        if not isinstance(old, str) or not isinstance(new, str):
            continue  # (a forged file's note that is no text: kept whole, as it was)
        if max(len(old), len(new)) <= NOTE_INLINE or old == new:
            continue
        at = 0
        limit = min(len(old), len(new))
        while at < limit and old[at] == new[at]:
            at += 1
        tail = 0
        while tail < limit - at and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
            tail += 1
        edits[pid] = {"at": at, "tail": tail, "was": old[at:len(old) - tail], "now": new[at:len(new) - tail],
                      "before": _sha(old), "after": _sha(new)}
        for side in ("before", "after"):
            if entry[side].get(pid) is not None:
                entry[side][pid] = {k: v for k, v in entry[side][pid].items() if k != "note"}
    if edits:
        entry["note_edits"] = edits
    return entry


def records_of(entry: dict[str, Any], side: str, ann: dict[str, Any],
               current_is: str | None = None) -> dict[str, Any] | None:
    """The entry's records of one side, whole: a long note rebuilt from the note the paper has now
    (the other side's, as undo and redo find it). None when that note is not the one the entry
    was made from (changed outside the history): the step cannot be made."""
    edits = entry.get("note_edits") or {}
    if not edits:
        return cast("dict[str, Any]", entry[side])
    records = dict(entry[side])
    other = current_is or ("after" if side == "before" else "before")
    for pid, edit in edits.items():  # (pid: a record key's text)
        rec = ann.get(str(RecordKey.parse(pid).doc_id))
        now = rec.get("note", "") if isinstance(rec, dict) else ""
        if not isinstance(now, str) or _sha(now) != edit[other]:
            return None
        if records.get(pid) is not None:
            note = now[:edit["at"]] + edit["was" if side == "before" else "now"] + now[len(now) - edit["tail"]:]
            records[pid] = {**records[pid], "note": note}
    return records
