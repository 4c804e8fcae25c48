"""The annotation records as the library reads them: each member's marks by name (their cleared
records, which a team file still carries, apart), and the team's assignments with their change
times, and what is said of records papersift cannot read. Pure functions over records: :class:`store.library.core.LibraryCore` keeps the views and
replaces them whole (copy on write: a search in a worker thread holds one snapshot throughout)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

from store.record_fields import CHECKED
from store.records import Annotation, Assignment, Record
from store.team.members import member_problem
from store.wording import counted


@dataclass
class MemberViews:
    """Every member's marks (``team``: name -> paper id -> annotation; a member's cleared records
    in ``cleared``), the assignments (paper id -> member) and their change times."""

    team: dict[str, dict[str, Annotation]] = field(default_factory=dict)
    cleared: dict[str, dict[str, Annotation]] = field(default_factory=dict)
    assignments: dict[str, str] = field(default_factory=dict)
    stamps: dict[str, dict[str, str]] = field(default_factory=dict)


def read_views(records: Iterable[Record]) -> tuple[MemberViews, list[str]]:
    """The views of every record, and the names no record may be shown under (a forged or
    damaged file's: never shown, never a member). Each annotation carries its member by name."""
    views, unusable = MemberViews(), []
    for ann in records:
        if isinstance(ann, Assignment):
            if ann.assignee and member_problem(ann.assignee) is None:
                views.assignments[ann.paper_id] = ann.assignee
            elif ann.assignee:
                unusable.append(ann.assignee)
            views.stamps[ann.paper_id] = ann.stamps
        elif member_problem(name := ann.member) is None:
            (views.cleared if ann.is_default() else views.team).setdefault(name, {})[ann.paper_id] = ann
        else:
            unusable.append(name)
    return views, unusable


def with_changes(views: MemberViews, changes: Iterable[Record]) -> MemberViews:
    """New views with stored changes in: the mappings a change touches are copied, never edited."""
    team, cleared = dict(views.team), dict(views.cleared)
    assignments, stamps = views.assignments, views.stamps
    for new in changes:
        if isinstance(new, Assignment):
            assignments = dict(assignments) if assignments is views.assignments else assignments
            stamps = dict(stamps) if stamps is views.stamps else stamps
            if new.assignee:
                assignments[new.paper_id] = new.assignee
            else:
                assignments.pop(new.paper_id, None)
            stamps[new.paper_id] = dict(new.stamps)
            continue
        name = new.member
        anns = team[name] = dict(team.get(name, {})) if team.get(name) is views.team.get(name) else team[name]
        if new.is_default():
            anns.pop(new.paper_id, None)
        else:
            anns[new.paper_id] = new.copy()
        if new.is_cleared() or new.paper_id in cleared.get(name, {}):  # (a member's cleared records)
            gone = cleared[name] = dict(cleared.get(name, {})) if cleared.get(name) is views.cleared.get(name) \
                else cleared[name]
            gone.pop(new.paper_id, None)
            if new.is_cleared():
                gone[new.paper_id] = new.copy()
    return MemberViews(team, cleared, assignments, stamps)


def unreadable_notice(found: Mapping[str, int], file_name: str) -> str:
    """What is said of the records a forged or damaged file holds that papersift cannot read in
    full (``found``: records per field of the wrong kind, "fields" in all, "record": values that are
    no record): a status that is no status, a star of 10**30. Never written back (``doctor
    --repair`` resets them after a backup)."""
    fields = [name for name in CHECKED if found[name]]
    parts = [f"{counted(found['fields'], 'record')} with {', '.join(fields)} of the wrong kind (read as "
             "the defaults)"] if found["fields"] else []
    if found["record"]:
        parts.append(f"{counted(found['record'], 'value')} that {'is' if found['record'] == 1 else 'are'} no "
                     "annotation record (skipped)")
    return (f"{file_name}: papersift cannot read {' and '.join(parts)}; the file is left as found (`papersift "
            "doctor` lists them, `doctor --repair` resets them)")
