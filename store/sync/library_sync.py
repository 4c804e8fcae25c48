"""A lab's library kept in sync through a git repository: ``papersift sync REMOTE`` once (the
remote is remembered), then ``papersift sync``; the app syncs too.

The repository holds, per member, three files only that member writes:

- ``members/NAME.jsonl``: their marks, as a team file (store.exchange.team_file: sorted, one
  record a line, each with its change times);
- ``papers/NAME.jsonl``: the papers they brought (imported, fetched) that no other member's file
  holds yet, one record a line, in the order they were imported;
- ``assignments/NAME.jsonl``: every assignment their library holds, with its time (one taken off
  too): the newest of a paper's wins, so whoever ran ``assign`` reaches everyone.

A sync fetches, checks that every new commit changes only the files of the member it names (a
``papersift-member: NAME`` line; a member's file changed by anyone else is refused, with the
commit), takes the papers it does not have and every member's marks (merged field by field by
their change times, as ``import-annotations`` does: in any order, the same library), writes this
member's two files, commits and pushes; a push another member's beat is fetched and tried again.
Since no two members write one file, git never has a conflict to show. Offline, or with a remote
that refuses, the sync fails in one line and the library keeps everything: the repository's copy
is remade from the library at every sync, so the next one catches up.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from store import locations
from store.files.atomic import atomic_write_bytes, atomic_write_text
from store.files.lock import LibraryLock
from store.files.nofollow import read_no_link
from store.errors import PapersiftError
from store.exchange.team_file import team_text
from store.formats.records import json_line
from store.sync.git_remote import SyncError, checked_remote, git, is_folder, said, shown_remote
from store.sync.repo_files import (OFFERED_FILE, member_files, member_lines, offered_before, paper_line,
                                    member_records)
from store.sync.report import SyncReport
from store.team.members import member_problem
from store.wording import counted

if TYPE_CHECKING:
    from store.library import Library

BRANCH = "main"
FOLDERS = ("members", "papers", "assignments")  # each member's three files, one in each
TRAILER = "papersift-member: "
ATTEMPTS = 8  # pushes a sync tries while other members' pushes beat it


def remembered(lib: Library) -> dict[str, Any]:
    """The library's sync settings (``remote``, ``seen``: the last remote commit taken, ``when``)."""
    path = lib.folder / locations.SYNC_FILE
    try:
        data = json.loads(read_no_link(path)[:1 << 20])
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and isinstance(data.get("remote"), str) else {}


def _damaged_settings(lib: Library) -> str:
    """Where a sync settings file that is there but cannot be read was kept (backups/), or ""."""
    path = lib.folder / locations.SYNC_FILE
    if not path.is_file() or path.is_symlink():
        return ""
    from store.annotations.backups import backup_file
    kept = backup_file(path, "damaged")
    return f"kept as found in {locations.BACKUP_DIR}/{kept.name}" if kept else "could not be copied to backups/"


def _remember(lib: Library, settings: dict[str, Any]) -> None:
    atomic_write_text(lib.folder / locations.SYNC_FILE, json.dumps(settings, indent=1) + "\n")


def sync(lib: Library, remote: str | None = None) -> SyncReport:
    """Sync the library with its remote (``remote``, kept for next time; else the one kept).

    Raises:
        SyncError: no remote yet, git missing, the remote unreachable or refusing, or a commit that
            changes another member's file (nothing of that fetch is taken).
    """
    settings = remembered(lib)
    damaged = _damaged_settings(lib) if not settings else ""
    if damaged and remote is None:
        raise SyncError(f"sync: {locations.SYNC_FILE} is damaged ({damaged}): give the remote once more, papersift "
                        "sync REMOTE; nothing changed here")
    replaced = ""
    if remote is not None and (remote := checked_remote(remote)) != settings.get("remote"):
        replaced = settings.get("remote") or ""
        settings = {"remote": remote}
    if not settings.get("remote"):
        raise SyncError("sync: no remote yet: papersift sync REMOTE (a git address, or a bare repository's folder "
                        "on a shared drive); later syncs use it")
    remote = checked_remote(settings["remote"])
    repo = lib.folder / locations.SYNC_DIR
    first = not settings.get("seen") and not (lib.folder / locations.SYNC_LOCK_FILE).exists()
    try:
        return _sync(lib, settings, remote, replaced)
    except SyncError:
        if first and not remembered(lib):  # (a first sync that reached nothing: its clone and lock go too)
            shutil.rmtree(repo, ignore_errors=True)
            (lib.folder / locations.SYNC_LOCK_FILE).unlink(missing_ok=True)
        raise


def _sync(lib: Library, settings: dict[str, Any], remote: str, replaced: str) -> SyncReport:
    """The sync itself, under the library's sync lock (:func:`sync`)."""
    repo = lib.folder / locations.SYNC_DIR
    report = SyncReport(shown_remote(remote), lib.member, replaced=shown_remote(replaced) if replaced else "")
    with LibraryLock(lib.folder / locations.SYNC_LOCK_FILE, timeout=300).held():
        _prepare(repo, remote)
        verified = settings.get("seen") if settings.get("remote") == remote else None  # (checked up to here)
        for attempt in range(ATTEMPTS):
            head = _fetch(repo, remote)
            if remembered(lib).get("remote") != remote:  # (reachable: kept, whatever comes next)
                _remember(lib, {"remote": remote})
            if head:
                _check_commits(repo, verified, head)
                verified = head
                git(repo, "reset", "--quiet", "--hard", head)
            offered, before = _take(lib, repo, report)
            _write_own(lib, repo, report, offered, before)
            report.unsent = _unsent(lib, repo)
            local = git(repo, "rev-parse", "--verify", "--quiet", "HEAD", check=False).stdout.strip()
            if not local or local == head:  # (nothing of this member's that the remote lacks)
                break
            if _push(repo, remote, head):
                report.pushed = True
                break
            time.sleep(random.uniform(0.05, 0.4) * (attempt + 1))  # (another member pushed first)
        else:
            raise SyncError(f"sync: {ATTEMPTS} pushes were each beaten by another member's: try again")
        settings["seen"] = git(repo, "rev-parse", "HEAD", check=False).stdout.strip() or settings.get("seen")
        settings["member"] = lib.member  # (who syncs here: no longer "a new member" once they have)
        from store.annotations.storage import now_iso
        report.when = settings["when"] = now_iso()
        _remember(lib, settings)
    return report


def _prepare(repo: Path, remote: str) -> None:
    """The library's clone of the remote (made once), pointing at ``remote``.

    Raises:
        SyncError: the clone's place is a link (a library folder is untrusted: nothing is written
            through one).
    """
    if repo.is_symlink() or (repo / ".git").is_symlink():
        raise SyncError(f"sync: {repo} is a link: refused (remove it; the next sync makes the folder anew)")
    if repo.exists() and not repo.is_dir():
        raise SyncError(f"sync: {repo} is a file, where the sync keeps its clone of the repository: refused, nothing "
                        "changed (move it away; the next sync makes the folder)")
    offered = None
    if (repo / ".git").is_dir() and git(repo, "remote", "get-url", "origin", check=False).stdout.strip() != remote:
        # Another remote (a mistyped one too): its clone goes, the library is what counts. The papers
        # offered at the last sync stay known, so the ones removed or archived here stay out at the
        # next sync, with this remote or the one before.
        offered = "".join(f"{pid}\n" for pid in sorted(offered_before(repo)))
        shutil.rmtree(repo)
    if not (repo / ".git").is_dir():
        repo.mkdir(mode=0o700, exist_ok=True)
        git(repo, "init", "--quiet", "-b", BRANCH)
        git(repo, "remote", "add", "origin", remote)
        if offered:
            atomic_write_text(repo / ".git" / OFFERED_FILE, offered)


def _fetch(repo: Path, remote: str) -> str:
    """The remote branch's commit after a fetch ("" for a repository with no commit yet)."""
    done = git(repo, "fetch", "--quiet", "--no-tags", "origin", check=False)
    if done.returncode and is_folder(remote) and (not os.path.lexists(remote)
                                                  or "does not appear to be a git repository" in done.stderr):
        raise SyncError(f"sync: no repository at {shown_remote(remote)} (made once with: git init --bare -b main "
                        f"{shown_remote(remote)}): nothing changed here")
    if done.returncode:
        raise SyncError(f"sync: cannot fetch from the remote ({said(done.stderr)}): nothing changed here; the next "
                        "sync catches up")
    found = git(repo, "rev-parse", "--verify", "--quiet", f"refs/remotes/origin/{BRANCH}", check=False)
    return found.stdout.strip() if found.returncode == 0 else ""


def _check_commits(repo: Path, seen: str | None, head: str) -> None:
    """Every commit since ``seen`` changes only the files of the member its trailer names.

    Raises:
        SyncError: one that does not, named (nothing of this fetch is taken).
    """
    ancestor = bool(seen) and git(repo, "merge-base", "--is-ancestor", str(seen), head, check=False).returncode == 0
    listing = git(repo, "log", "--format=%x00%H%x01%B%x01", "--name-only", "--no-renames",
                  f"{seen}..{head}" if ancestor else head).stdout
    for entry in listing.split("\x00")[1:]:
        sha, message, names = (entry.split("\x01") + ["", ""])[:3]
        member = next((line[len(TRAILER):].strip() for line in message.splitlines() if line.startswith(TRAILER)), "")
        own = {f"{folder}/{member}.jsonl" for folder in FOLDERS}
        foreign = [name for name in names.split() if name not in own]
        if foreign:
            who = f"says it is {member}'s" if member else "names no member"
            raise SyncError(f"sync: commit {sha[:12]} writes {shown_remote(foreign[0])} but {who}: refused, nothing "
                            "taken (each member writes only their own files; ask who made it)")


def _take(lib: Library, repo: Path, report: SyncReport) -> tuple[dict[str, set[str]], set[str]]:
    """The papers the library does not have yet, then every member's marks. Returns the paper ids
    each member's papers file offers, and the ones offered at the last sync (each read once:
    :func:`_write_own` needs them too)."""
    new_papers: dict[str, list[dict[str, Any]]] = {}  # member -> the papers of theirs this library lacks
    offered: dict[str, set[str]] = {}
    # The papers offered at this library's last sync, which it took then: one it lacks now was removed
    # or archived here since, and stays out (the others keep theirs: a removal is this library's own).
    before = offered_before(repo)
    kept_out: set[str] = set()
    for name, path in member_files(repo, "papers").items():
        ids = offered[name] = set()
        for record in member_records(path):
            pid = record.get("papersift_id")
            if isinstance(pid, str):
                ids.add(pid)
                if lib.corpus.index_of(pid) is None and "abstract" in record:
                    if pid in before:
                        kept_out.add(pid)
                    else:
                        new_papers.setdefault(name, []).append(record)
    report.kept_out = len(kept_out)
    if new_papers:
        arrived = lib.folder / locations.SYNC_DIR / ".arrived"  # (outside the work tree's files: git ignores it)
        arrived.mkdir(mode=0o700, exist_ok=True)
        # One file a member, named for them: a paper's source says whose sync brought it ("sync-ana.jsonl",
        # found with file:sync-ana); imported in one step, as one batch.
        sources = [arrived / f"sync-{name}.jsonl" for name in new_papers]
        for source, records in zip(sources, new_papers.values()):
            atomic_write_bytes(source, b"".join(json_line(r) for r in records))
        try:
            summary = lib.paper_changes.import_paths(sources, replace_sample=True)  # (an untouched sample makes way, as for an import)
        finally:
            for source in sources:
                source.unlink(missing_ok=True)
        report.papers += summary.new
    files = member_files(repo, "members")
    if files:
        _take_marks(lib, files, report)
    report.assigned += _take_assignments(lib, repo)
    return offered, before


def _take_marks(lib: Library, files: dict[str, Path], report: SyncReport) -> None:
    """Every member's team file merged (by change times, as ``import-annotations`` merges)."""
    from store.exchange.import_files import merge_files
    for name, path in files.items():
        head = member_records(path, first_only=True)
        if not head or head[0].get("member") != name:
            raise SyncError(f"sync: members/{name}.jsonl is no team file of {name}'s: refused, nothing taken")
    try:
        # (a mark on a paper not here: passed over; no member's undo takes what the lab brought back)
        merged = merge_files(lib, list(files.values()), strict=False, from_lab=True)
    except PapersiftError as exc:
        raise SyncError(f"sync: {exc}") from None
    for (name, _), done in zip(files.items(), merged):
        gone = done.report.taken_back
        if name == lib.member:  # (this member's own file: written by a copy of their library elsewhere)
            report.own += len(done.report.changes) - gone
            report.own_taken += gone
        elif done.report.changes:
            report.marks[name] = report.marks.get(name, 0) + len(done.report.changes) - gone
            report.taken[name] = report.taken.get(name, 0) + gone


def _unsent(lib: Library, repo: Path) -> dict[str, int]:
    """Other members' marked papers here that their file in the repository lacks, or holds older,
    by member (marks made in this folder ``--as ben``; ben's marks from another repository): a sync
    writes only its own member's files, so only their own sync sends these; the report says so
    rather than leaving them behind unsaid. (A mark taken back is no mark: not counted.)"""
    from store.exchange.stamps import canonical

    def newest(stamps: object) -> str:
        times = [canonical(t) for t in stamps.values() if isinstance(t, str)] if isinstance(stamps, dict) else []
        return max((t for t in times if t), default="")

    def here(pid: str) -> str:  # (a paper this library merged with a near-duplicate: its id here)
        row = lib.corpus.index_of(pid)
        return pid if row is None else lib.corpus.papers[row].id

    files = member_files(repo, "members")
    unsent = {}
    for name in set(lib.member_marks) - {lib.member}:
        held: dict[str, str] = {}
        for r in member_records(files[name]) if name in files else []:
            if isinstance(r.get("id"), str):
                pid = here(r["id"])
                held[pid] = max(held.get(pid, ""), newest(r.get("stamps")))
        count = sum(1 for pid, ann in lib.member_marks.get(name, {}).items() if ann.marked and newest(ann.stamps) > held.get(pid, ""))
        if count:
            unsent[name] = count
    return unsent


def _take_assignments(lib: Library, repo: Path) -> int:
    """The newest assignment of each paper any member's file holds, where it is newer than the
    library's (an assignment taken off travels too: its record keeps the time). How many changed."""
    from store.exchange.stamps import canonical
    from store.records import Assignment

    newest: dict[str, tuple[str, str]] = {}  # paper id -> (when, assignee: "" for none)
    for path in member_files(repo, "assignments").values():
        for record in member_records(path):
            pid, who, when = record.get("id"), record.get("assignee"), canonical(str(record.get("at", "")))
            if (isinstance(pid, str) and isinstance(who, str) and when is not None
                    and (not who or member_problem(who) is None) and (pid not in newest or when > newest[pid][0])):
                newest[pid] = (when, who)
    changes = {}
    for pid, (when, who) in newest.items():
        if lib.corpus.index_of(pid) is None:
            continue
        held = lib.assignment(pid)
        if when > (canonical(held.stamps.get("assignee", "")) or "") and who != held.assignee:
            changes[pid] = Assignment(pid, who, {"assignee": when})
    return lib.replace_annotations(changes.values(), "sync", f"sync: {counted(len(changes), 'assignment')} from the lab",
                                   from_lab=True)


def _write_own(lib: Library, repo: Path, report: SyncReport, offered: dict[str, set[str]], before: set[str]) -> None:
    """This member's three files from the library; committed when they changed. ``offered``: the
    paper ids each member's papers file holds, ``before`` those offered at the last sync (:func:`_take`)."""
    me = lib.member
    others = set().union(*(ids for name, ids in offered.items() if name != me))
    mine_path = repo / "papers" / f"{me}.jsonl"
    kept = offered.get(me, set())
    from store.library.removal import sample_ids  # (the use case sits above the library's parts)
    sample = set(sample_ids(lib))  # (the bundled sample every new library starts with is no one's to send)
    # In the library's order (the order they were imported: a day's listing as it came), which only
    # grows at its end as papers arrive: the other libraries import them in that order.
    papers = [p for p in lib.corpus.papers if (p.id in kept or p.id not in others) and p.id not in sample]
    # (a paper another member offered at the last sync, and no one offers now (removed in their
    # copy), is offered here again for the others, but was not brought by this member)
    report.brought = sum(1 for p in papers if p.id not in kept and p.id not in before)
    _write_marks(lib, repo, report)
    (repo / "papers").mkdir(mode=0o700, exist_ok=True)
    (repo / "assignments").mkdir(mode=0o700, exist_ok=True)
    assigned = [orjson.dumps({"id": pid, "assignee": lib.assignments.get(pid, ""), "at": stamps["assignee"]},
                             option=orjson.OPT_SORT_KEYS) + b"\n"
                for pid, stamps in sorted(lib.assignment_stamps.items()) if stamps.get("assignee")]
    atomic_write_bytes(repo / "assignments" / f"{me}.jsonl", b"".join(assigned))
    atomic_write_bytes(mine_path, b"".join(json_line(paper_line(p), sort_keys=True) for p in papers))
    # (what the next sync reads as taken here already: the others' papers, the ones this file offers,
    # and the ones taken before: a paper removed here stays known, whoever offers it next)
    offered_now = before | others | {p.id for p in papers}
    atomic_write_text(repo / ".git" / OFFERED_FILE, "".join(f"{pid}\n" for pid in sorted(offered_now)))
    git(repo, "add", "--", f"members/{me}.jsonl", f"papers/{me}.jsonl", f"assignments/{me}.jsonl")
    changed = git(repo, "diff", "--cached", "--name-only", check=False).stdout.split()
    report.assignments_sent = len(assigned) if f"assignments/{me}.jsonl" in changed else 0
    if changed:
        git(repo, "-c", f"user.name={me}", "-c", f"user.email={me}@papersift.invalid", "commit", "--quiet",
            "-m", f"papersift sync: {me}\n\n{TRAILER}{me}")


def _write_marks(lib: Library, repo: Path, report: SyncReport) -> None:
    """This member's marks file (their marks, and the ones taken back: a team file), counting the
    marked papers it holds and the marks it newly takes back."""
    me = lib.member
    records = lib.member_records(me)
    report.sent = sum(1 for a in records.values() if a.marked)
    (repo / "members").mkdir(mode=0o700, exist_ok=True)
    own_file = repo / "members" / f"{me}.jsonl"
    text = team_text(me, records.values())
    before = set(member_lines(own_file)) if own_file.is_file() else set()  # (sorted keys: one record, one text)
    report.taken_sent = sum(1 for line in text.encode("utf-8").splitlines()[1:] if line not in before
                            and not records[orjson.loads(line)["id"]].marked)
    atomic_write_text(own_file, text)


def _push(repo: Path, remote: str, fetched: str) -> bool:
    """Push this member's commit: True when it went up, False when another member's push came first
    (the remote's branch moved since ``fetched``: taken in, and tried again).

    Raises:
        SyncError: the remote refused it (a permission, a protected branch): nothing lost.
    """
    done = git(repo, "push", "--quiet", "--porcelain", "origin", f"HEAD:refs/heads/{BRANCH}", check=False)
    if done.returncode == 0:
        return True
    if _fetch(repo, remote) != fetched:  # (a rejection, or a lock two pushes raced for: someone else's commit came first)
        return False
    raise SyncError(f"sync: the remote refused your marks ({said(done.stderr or done.stdout)}): nothing lost here; "
                    "the next sync sends them")
