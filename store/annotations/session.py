"""What a sitting changed: the annotations when the app opened against those when it closed.

The app prints this line on the terminal as it quits ("this session: 120 papers imported
(batch 5) · 23 papers marked (12 read, 8 to-read, 3 skipped) · stars on 4 · tags on 2 · 1 note ·
2 papers removed; saved in …"), so a researcher leaving an evening's triage sees what was kept,
and where, without opening anything.
"""

from __future__ import annotations

from collections import Counter
from typing import Collection, Mapping, Sequence

from store.records import Annotation
from store.wording import counted

Snapshot = dict[str, Annotation]


def snapshot(annotations: Mapping[str, Annotation]) -> Snapshot:
    """The annotations as they are now, by paper id: a shallow copy, which is enough since the
    library never changes an Annotation in place (a change stores a changed copy), and cheap
    (10 ms for 300k annotated papers, where copying their fields took 0.27 s of the app's start)."""
    return dict(annotations)


def _parts(a: Annotation | None) -> tuple[str, int, tuple[str, ...], str]:
    return ("unread", 0, (), "") if a is None else (a.status, a.star, tuple(a.tags), a.note)


def session_line(before: Snapshot, after: Snapshot, only: Collection[str] | None = None,
                 removed: Collection[str] = (), imported: Sequence[tuple[int, int]] = (),
                 restored: Collection[str] = ()) -> str:
    """One line saying what changed between two snapshots ("" when nothing did).

    A paper counts under "marked" when its status differs, by the status it ended with (back to
    unread counts as such); stars, tags and notes count the papers where they differ, said by
    which way they went (an undo of a note written earlier clears it: "1 note cleared").

    Args:
        only: the papers this session changed (``LibraryCore.touched``): a change another
            process made meanwhile (a colleague, a second terminal) is not this session's.
        removed: the papers this session took out of the library (``LibraryCore.removed``): said
            as removed, not as their marks gone back to unread.
        imported: this session's imports, each (new papers, batch).
        restored: papers an earlier session removed that an undo here brought back, marks and all.
    """
    def mine(pid: str) -> bool:
        return (only is None or pid in only) and pid not in removed and pid not in restored

    changed: list[tuple[Annotation | None, Annotation | None]] = [
        (before.get(pid), a) for pid, a in after.items() if before.get(pid) is not a and mine(pid)]
    changed += [(a, None) for pid, a in before.items() if pid not in after and mine(pid)]
    statuses, moved = _tally(changed)
    parts = [*_imported(imported), *_marked(statuses), *_moved(moved)]
    if removed:
        parts.append(f"{counted(len(removed), 'paper')} removed")
    if restored:
        parts.append(f"{counted(len(restored), 'paper')} restored")
    return "this session: " + " · ".join(parts) if parts else ""


def _tally(changed: list[tuple[Annotation | None, Annotation | None]]) -> tuple[Counter[str], Counter[str]]:
    """The statuses papers ended with, where a status changed, and the moves of stars, tags and
    notes ("stars up", "stars down", "tags on", "tags off", "notes", "notes cleared")."""
    statuses: Counter[str] = Counter()
    moved: Counter[str] = Counter()
    for was, now in changed:
        old, new = _parts(was), _parts(now)
        if old[0] != new[0]:
            statuses[new[0]] += 1
        if old[1] != new[1]:
            moved["stars up" if new[1] > old[1] else "stars down"] += 1
        if old[2] != new[2]:
            moved["tags on" if set(new[2]) - set(old[2]) else "tags off"] += 1
        if old[3] != new[3]:
            moved["notes" if new[3] else "notes cleared"] += 1
    return statuses, moved


def _imported(imported: Sequence[tuple[int, int]]) -> list[str]:
    arrived = sum(n for n, _ in imported)
    if not arrived:
        return []
    batches = [str(b) for n, b in imported if n and b]
    return [f"{counted(arrived, 'paper')} imported"
            + (f" (batch{'es' if len(batches) > 1 else ''} {', '.join(batches)})" if batches else "")]


def _marked(statuses: Counter[str]) -> list[str]:
    if not statuses:
        return []
    detail = ", ".join(f"{statuses[s]:,} {s}" for s in ("read", "to-read", "skipped", "unread") if statuses[s])
    return [f"{counted(sum(statuses.values()), 'paper')} marked ({detail})"]


def _moved(moved: Counter[str]) -> list[str]:
    parts = [said.format(counted(moved[key], "paper"))
             for key, said in (("stars up", "stars on {}"), ("stars down", "stars lowered on {}"),
                               ("tags on", "tags on {}"), ("tags off", "tags taken off {}")) if moved[key]]
    if moved["notes"]:
        parts.append(counted(moved["notes"], "note"))
    if moved["notes cleared"]:
        parts.append(counted(moved["notes cleared"], "note") + " cleared")
    return parts
