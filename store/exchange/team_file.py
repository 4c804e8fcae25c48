"""A member's marks as a file a lab passes around: ``papersift export --format team --as ana``.

Text that git merges cleanly: a header line, then one line per paper the member marked, sorted
by paper id, each a JSON object with sorted keys and no time of writing, so the same marks always
give the same bytes and two members' files never touch the same line. Each record carries its
change times (``stamps``): ``import-annotations`` merges it field by field into that member's
own record, never into anyone else's, so files merged in any order give the same library.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import orjson

from store.errors import InputError
from store.models import Annotation
from store.team.members import member_problem

TEAM_FORMAT = "papersift-team"
TEAM_VERSION = 1
_FIELDS = ("status", "star", "tags", "note", "created", "updated", "stamps")


def team_text(member: str, annotations: Iterable[Annotation]) -> str:
    """The file's text for one member's annotations (any order given; written sorted)."""
    lines = [orjson.dumps({"format": TEAM_FORMAT, "version": TEAM_VERSION, "member": member},
                          option=orjson.OPT_SORT_KEYS)]
    for ann in sorted(annotations, key=lambda a: a.paper_id):
        if not ann.marked and not ann.stamps:
            continue
        rec: dict[str, Any] = {"id": ann.paper_id, "member": member}
        rec.update({name: getattr(ann, name) for name in _FIELDS})
        rec["tags"] = sorted(rec["tags"])
        lines.append(orjson.dumps(rec, option=orjson.OPT_SORT_KEYS))
    return b"\n".join(lines).decode("utf-8") + "\n"


def is_team_text(text: str) -> bool:
    """Whether a file's text is a team file (its first line names the format)."""
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    return f'"format":"{TEAM_FORMAT}"' in first.replace(" ", "")


def team_records(text: str, path: Path) -> list[tuple[dict[str, Any], int]]:
    """The records of a team file with their line numbers, each naming its member.

    Raises:
        InputError: a header that is not a team file's, a newer version, a line that is not JSON,
            or a record of another member than the header names (or a bad member name).
    """
    lines = text.lstrip("\ufeff").split("\n")
    try:
        head = orjson.loads(lines[0])
    except orjson.JSONDecodeError as exc:
        raise InputError(path, f"invalid JSON: {exc}", line=1) from None
    if not isinstance(head, dict) or head.get("format") != TEAM_FORMAT:
        raise InputError(path, f"not a papersift team file (its first line names \"format\": \"{TEAM_FORMAT}\")", line=1)
    if not isinstance(head.get("version"), int) or head["version"] > TEAM_VERSION:
        raise InputError(path, f"team file version {head.get('version')!r} is newer than this papersift reads", line=1)
    member = head.get("member")
    if not isinstance(member, str) or (problem := member_problem(member)):
        raise InputError(path, f"the header's member: {problem if isinstance(member, str) else 'missing'}", line=1)
    found = []
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise InputError(path, f"invalid JSON: {exc}", line=n) from None
        if not isinstance(rec, dict):
            raise InputError(path, "each line is a paper's record (a JSON object)", line=n)
        if rec.get("member", member) != member:
            raise InputError(path, f"a record of {rec.get('member')!r} in {member}'s file", line=n)
        rec["member"] = member
        found.append((rec, n))
    return found
