"""The states this library's undo history holds for a paper's record: what a merge must not
take for a colleague's change (store.exchange.merge). A field at a time it had (``known_stamps``),
or, for a file without change times, a value it had (``known_values``: one's own older export)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from store.records import RecordKey

if TYPE_CHECKING:
    from store.library import Library
    from store.records import Annotation


def known_stamps(library: Library, pid: str, history: list[dict[str, Any]],
                 member: str | None = None, planned: Annotation | None = None) -> frozenset[tuple[str, str]]:
    """(field, time) of every state this library's undo history (and its undone steps) holds for a
    paper (a member's record of it: this member's by default): a colleague's field with one of these
    times is a state we had, not a change of theirs. ``planned``: the record an earlier file of the same
    import made of it (a state the library will have had)."""
    member = member or library.member
    key = RecordKey(pid, member).stored(library.owner).text  # (as the history writes it)
    found: set[tuple[str, str]] = set()
    for entry in history:
        for side in ("before", "after"):
            rec = (entry.get(side) or {}).get(key)
            if isinstance(rec, dict):
                found.update((rec.get("stamps") or {}).items())
        states = entry.get("states")  # (the times its undos and redos wrote: store.annotations.database)
        for stamps in (states.get(key) if isinstance(states, dict) else None) or []:
            if isinstance(stamps, dict):
                found.update((f, t) for f, t in stamps.items() if isinstance(f, str) and isinstance(t, str))
    current = library.member_annotation(pid, member)
    found.update(current.stamps.items())
    if planned is not None:
        found.update(planned.stamps.items())
    return frozenset(found)


def known_values(library: Library, pid: str, history: list[dict[str, Any]],
                 member: str | None = None) -> dict[str, list[object]]:
    """The values of status, star and note this library's history holds for a paper's record (a
    member's: this member's by default), before and after each step."""
    key = RecordKey(pid, member or library.member).stored(library.owner).text
    found: dict[str, list[object]] = {"status": [], "star": [], "note": []}
    for entry in history:
        for side in ("before", "after"):
            rec = (entry.get(side) or {}).get(key)
            if isinstance(rec, dict):
                for name, values in found.items():
                    if name in rec and rec[name] not in values:
                        values.append(rec[name])
    return found
