"""The files of a lab's sync repository (store.sync.library_sync), read as untrusted input: each
member's files found by name (names no member may have, and links, passed over), read bounded and
never through a link; the papers the last sync was offered; a paper as a papers file holds it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from store.files.nofollow import read_no_link
from store.sync.git_remote import SyncError
from store.team.members import member_problem

if TYPE_CHECKING:
    from store.models import Paper

MAX_FILE_BYTES = 512 << 20  # a member's file larger than this is refused, not read
OFFERED_FILE = "papersift-offered"  # in the clone's .git: the paper ids the papers files offered at the last sync


def member_files(repo: Path, folder: str) -> dict[str, Path]:
    """member -> their file in ``folder`` (names no member may have, and links, passed over)."""
    found: dict[str, Path] = {}
    place = repo / folder
    if not place.is_dir() or place.is_symlink():
        return found
    for path in sorted(place.iterdir()):
        name = path.name[:-len(".jsonl")] if path.name.endswith(".jsonl") else ""
        if name and member_problem(name) is None and path.is_file() and not path.is_symlink():
            found[name] = path
    return found


def member_lines(path: Path) -> list[bytes]:
    """A member file's lines, read bounded and never through a link.

    Raises:
        SyncError: a file over :data:`MAX_FILE_BYTES`, or one that cannot be read.
    """
    try:
        if path.lstat().st_size > MAX_FILE_BYTES:
            raise SyncError(f"sync: {path.parent.name}/{path.name} is over {MAX_FILE_BYTES >> 20} MB: refused")
        return read_no_link(path).splitlines()
    except OSError as exc:
        raise SyncError(f"sync: {path.parent.name}/{path.name}: cannot be read ({exc.strerror or exc})") from None


def member_records(path: Path, first_only: bool = False) -> list[dict[str, Any]]:
    """A member file's records (objects only; a line that is none is passed over)."""
    out = []
    for line in member_lines(path):
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict):
            out.append(record)
            if first_only:
                break
    return out


def offered_before(repo: Path) -> set[str]:
    """The paper ids the papers files offered at the last sync (:data:`OFFERED_FILE`; none before
    the first)."""
    try:
        data = read_no_link(repo / ".git" / OFFERED_FILE)
    except OSError:
        return set()
    return {line for line in data[:MAX_FILE_BYTES].decode("utf-8", "replace").split("\n") if line}


def paper_line(paper: Paper) -> dict[str, Any]:
    """A paper as its member's papers file holds it: what another library needs to import it (a
    derived title is derived there again)."""
    record: dict[str, Any] = {"papersift_id": paper.id, "abstract": paper.abstract}
    if not paper.derived_title and paper.title:
        record["title"] = paper.title
    for key, value in (("authors", paper.authors), ("url", paper.url), ("id", paper.external_id),
                       ("venue", paper.venue), ("year", paper.year), ("keywords", paper.keywords), ("area", paper.area)):
        if value:
            record[key] = value
    return record
