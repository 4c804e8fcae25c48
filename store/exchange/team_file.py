"""A member's marks as a file a lab passes around: ``papersift export --format team --as ana``.

Text that git merges cleanly: a header line, then one line per paper the member marked, sorted
by paper id, each a JSON object with sorted keys and no time of writing, so the same marks always
give the same bytes and two members' files never touch the same line. Each record carries its
change times (``stamps``): ``import-annotations`` merges it field by field into that member's
own record, never into anyone else's, so files merged in any order give the same library. (Read
back, with every other exported format, in :mod:`store.exchange.annotation_files`.)
"""

from __future__ import annotations

from typing import Any, Iterable

from store.formats.records import safe_json
from store.records import Annotation

TEAM_FORMAT = "papersift-team"
TEAM_VERSION = 1
_FIELDS = ("status", "star", "tags", "note", "created", "updated", "stamps")


def team_text(member: str, annotations: Iterable[Annotation]) -> str:
    """The file's text for one member's annotations (any order given; written sorted)."""
    lines = [safe_json({"format": TEAM_FORMAT, "version": TEAM_VERSION, "member": member}, sort_keys=True)]
    for ann in sorted(annotations, key=lambda a: a.paper_id):
        if not ann.marked and not ann.stamps:
            continue
        rec: dict[str, Any] = {"id": ann.paper_id, "member": member}
        rec.update({name: getattr(ann, name) for name in _FIELDS})
        rec["tags"] = sorted(rec["tags"])
        lines.append(safe_json(rec, sort_keys=True))  # (a note's U+2028 escaped: one record, one line)
    return "\n".join(lines) + "\n"


def is_team_text(text: str) -> bool:
    """Whether a file's text is a team file (its first line names the format)."""
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    return f'"format":"{TEAM_FORMAT}"' in first.replace(" ", "")
