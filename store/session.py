"""What a sitting changed: the annotations when the app opened against those when it closed.

The app prints this line on the terminal as it quits ("this session: 23 papers marked (12 read,
8 to-read, 3 skipped) · stars on 4 · tags on 2 · 1 note; saved in …"), so a researcher leaving
an evening's triage sees what was kept, and where, without opening anything.
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping

from .models import Annotation
from .text import counted

Snapshot = dict[str, tuple[str, int, tuple[str, ...], str]]


def snapshot(annotations: Mapping[str, Annotation]) -> Snapshot:
    """The parts of each annotation a person changes (status, stars, tags, note), by paper id."""
    return {pid: (a.status, a.star, tuple(a.tags), a.note) for pid, a in annotations.items()}


def session_line(before: Snapshot, after: Snapshot) -> str:
    """One line saying what changed between two snapshots ("" when nothing did).

    A paper counts under "marked" when its status differs, by the status it ended with (back to
    unread counts as such); stars, tags and notes count the papers where they differ.
    """
    untouched = ("unread", 0, (), "")
    statuses: Counter = Counter()
    stars = tags = notes = 0
    for pid in before.keys() | after.keys():
        old, new = before.get(pid, untouched), after.get(pid, untouched)
        if old == new:
            continue
        if old[0] != new[0]:
            statuses[new[0]] += 1
        stars += old[1] != new[1]
        tags += old[2] != new[2]
        notes += old[3] != new[3]
    parts = []
    if statuses:
        detail = ", ".join(f"{statuses[s]:,} {s}" for s in ("read", "to-read", "skipped", "unread") if statuses[s])
        parts.append(f"{counted(sum(statuses.values()), 'paper')} marked ({detail})")
    if stars:
        parts.append(f"stars on {counted(stars, 'paper')}")
    if tags:
        parts.append(f"tags on {counted(tags, 'paper')}")
    if notes:
        parts.append(counted(notes, "note"))
    return "this session: " + " · ".join(parts) if parts else ""
