"""What a lab's marks say together, from every member's annotations: a verdict per mark and the
papers the members disagree on. Plain functions over ``{member: {paper id: Annotation}}``."""

from __future__ import annotations

from typing import Mapping

from store.records import Annotation

Team = Mapping[str, Mapping[str, Annotation]]


def keeps(ann: Annotation) -> bool:
    """A member's verdict on a paper they triaged: kept (starred, read or to read) or not (skipped)."""
    return ann.status != "skipped" or ann.star > 0


def member_names(team: Team, assignments: Mapping[str, str], me: str) -> list[str]:
    """Everyone with marks or an assignment, and ``me`` (who is triaging), sorted as people read."""
    names = {name for name, anns in team.items() if anns} | set(assignments.values()) | {me}
    return sorted(names, key=str.casefold)


def split_papers(team: Team) -> set[str]:
    """Papers one member starred and another skipped (the ``split:`` filter): the ones to talk over."""
    starred: dict[str, set[str]] = {}
    skipped: dict[str, set[str]] = {}
    for name, anns in team.items():
        for pid, ann in anns.items():
            if ann.star > 0:
                starred.setdefault(pid, set()).add(name)
            elif ann.status == "skipped":
                skipped.setdefault(pid, set()).add(name)
    return {pid for pid, names in starred.items() if skipped.get(pid, set()) - names}


def team_stars(team: Team) -> dict[str, int]:
    """Paper id -> the stars every member gave it, summed (papers with none left out)."""
    total: dict[str, int] = {}
    for anns in team.values():
        for pid, ann in anns.items():
            if ann.star:
                total[pid] = total.get(pid, 0) + ann.star
    return total
