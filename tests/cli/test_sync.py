"""papersift sync: a lab's library kept in sync through a git repository (store.sync.library_sync), driven
as the lab would: three members in three library folders and a bare repository on this machine."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess

import pytest

from store import Library
from store.locations import SYNC_DIR

from ..conftest import DATA, papersift_argv

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="sync runs the git program")

MEMBERS = ("ana", "ben", "chen")


def _bare(path):
    subprocess.run(["git", "init", "--quiet", "--bare", str(path)], check=True)
    return path


def _papersift(folder, member: str, *args: str, wait: bool = True, cwd=None):
    env = {**os.environ, "PAPERSIFT_LIBRARY": str(folder), "NO_COLOR": "1", "COLUMNS": "160"}
    proc = subprocess.Popen([*papersift_argv(), "--as", member, *args], env=env, text=True, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    if not wait:
        return proc
    out, err = proc.communicate(timeout=180)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _ok(proc) -> str:
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _marks(folder, member: str) -> dict[str, tuple]:
    """A member's marks as a library holds them: paper id -> (status, star, tags, note)."""
    lib = Library(folder)
    return {pid: (a.status, a.star, tuple(sorted(a.tags)), a.note) for pid, a in lib.member_marks.get(member, {}).items()}


def _tree(remote) -> list[str]:
    return subprocess.run(["git", "--git-dir", str(remote), "ls-tree", "-r", "--name-only", "main"],
                          capture_output=True, text=True, check=True).stdout.split()


@pytest.mark.slow  # (ten rounds of three syncs at once: ~40 s)
def test_three_members_sync_at_once_for_ten_rounds_and_end_with_everything(tmp_path):
    """Each round every member marks papers (chen imports a new day's feed in round 3), then all
    three sync at once: after a last round every library holds every paper and every member's
    marks, and the repository one marks file and one papers file per member."""
    remote = _bare(tmp_path / "lab.git")
    folders = {m: tmp_path / m for m in MEMBERS}
    _ok(_papersift(folders["ana"], "ana", "import", str(DATA / "icml_slice.jsonl")))
    for m in ("ben", "chen"):
        Library.open(folders[m])  # (a new library: the bundled sample, which sync replaces)
    rng = random.Random(7)
    for round_no in range(10):
        for m in MEMBERS:
            lib = Library(folders[m], member=m)
            ids = [p.id for p in lib.corpus]
            if round_no and len(ids) > 40:
                picks = rng.sample(ids, 4)
                lib.marks.set_star(picks[:1], rng.randint(1, 3))
                lib.marks.set_status(picks[1:2], rng.choice(["read", "to-read", "skipped"]))
                lib.marks.add_tags(picks[2:3], [f"{m}-{round_no}"])
                lib.marks.set_note(picks[3], f"{m} in round {round_no}")
        if round_no == 3:
            _ok(_papersift(folders["chen"], "chen", "import", str(DATA / "arxiv_days" / "day1.xml")))
        procs = [_papersift(folders[m], m, "sync", str(remote), wait=False) for m in MEMBERS]
        for proc in procs:
            out, err = proc.communicate(timeout=180)
            assert proc.returncode == 0, err
            assert "not in the repository" not in out  # (others' marks taken from the repository are theirs: no warning)
    for _ in range(2):  # (who synced first in the last round gets the others' last pushes)
        for m in MEMBERS:
            _ok(_papersift(folders[m], m, "sync"))
    papers = {m: {p.id for p in Library(folders[m]).corpus} for m in MEMBERS}
    assert papers["ana"] == papers["ben"] == papers["chen"] and len(papers["ana"]) > 300
    for m in MEMBERS:
        own = _marks(folders[m], m)
        assert len(own) >= 20
        assert all(_marks(folders[other], m) == own for other in MEMBERS), m
    assert sorted(_tree(remote)) == sorted(f"{folder}/{m}.jsonl" for m in MEMBERS
                                           for folder in ("members", "papers", "assignments"))


def test_a_first_sync_brings_the_papers_and_marks_and_says_so(tmp_path):
    remote = _bare(tmp_path / "lab.git")
    ana, ben = tmp_path / "ana", tmp_path / "ben"
    _ok(_papersift(ana, "ana", "import", str(DATA / "icml_slice.jsonl")))
    lib = Library(ana, member="ana")
    ids = [p.id for p in lib.corpus][:3]
    lib.marks.set_star(ids[:2], 2)
    lib.marks.set_status(ids[2:], "to-read")
    said = _ok(_papersift(ana, "ana", "sync", str(remote)))
    assert said.startswith(f"synced with {remote} as ana: ") and f"your 3 marked papers and {len(lib.corpus)} papers you brought sent" in said
    Library.open(ben)
    said = _ok(_papersift(ben, "ben", "sync", str(remote)))
    assert "ana +3 marks" in said and f"{len(lib.corpus)} papers arrived" in said
    assert [p.id for p in Library(ben).corpus] == [p.id for p in lib.corpus]  # (in the order ana imported them)
    brought = _ok(_papersift(ben, "ben", "list", "--query", "file:sync-ana", "--format", "plain"))
    assert len(brought.splitlines()) == len(lib.corpus)  # (a paper's source says whose sync brought it)
    assert _marks(ben, "ana") == _marks(ana, "ana")
    again = _ok(_papersift(ben, "ben", "sync"))  # the remote is remembered
    assert "nothing new" in again
    assert (ben / "sync.json").stat().st_mode & 0o777 == 0o600
    listed = _ok(_papersift(ben, "ben", "list", "--query", "star-by:ana:>=2", "--format", "plain"))
    assert sorted(line.split("\t")[0] for line in listed.splitlines()) == sorted(ids[:2])


def test_offline_the_sync_fails_in_one_line_and_changes_nothing(tmp_path):
    ana = tmp_path / "ana"
    _ok(_papersift(ana, "ana", "import", str(DATA / "icml_slice.jsonl")))
    Library(ana, member="ana").marks.set_star([Library(ana).corpus.papers[0].id], 1)
    before = {name: (ana / name).read_bytes() for name in ("corpus.jsonl", "annotations.json")}
    proc = _papersift(ana, "ana", "sync", "https://127.0.0.1:9/lab.git")  # (nothing listens on port 9)
    assert proc.returncode != 0 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot fetch from the remote" in lines[0] and "the next sync catches up" in lines[0]
    assert {name: (ana / name).read_bytes() for name in before} == before


def test_a_folder_address_is_read_from_where_it_was_typed_and_a_missing_one_is_named(tmp_path):
    """``sync lab.git`` from the folder holding it (git alone would look for it inside the
    library's clone); a folder with no repository is named, with how a lab makes one; a first sync
    that brings no paper leaves a folder an import can still make a library in."""
    _bare(tmp_path / "lab.git")
    ana = tmp_path / "ana"
    proc = _papersift(ana, "ana", "sync", "nowhere.git", cwd=tmp_path)
    assert proc.returncode != 0
    assert f"no repository at {tmp_path / 'nowhere.git'} (made once with: git init --bare" in proc.stderr
    assert not ana.exists()  # ("nothing changed here": no folder, clone or lock left behind)
    assert "synced with" in _ok(_papersift(ana, "ana", "sync", "lab.git", cwd=tmp_path))
    assert json.loads((ana / "sync.json").read_text())["remote"] == str(tmp_path / "lab.git")
    assert "301 new" in _ok(_papersift(ana, "ana", "import", str(DATA / "icml_slice.jsonl")))
    assert "301 papers you brought sent" in _ok(_papersift(ana, "ana", "sync", cwd=DATA))


def test_marks_from_another_copy_are_said_and_another_members_marks_made_here_too(tmp_path):
    """ana keeps two copies of her library (a laptop, a desktop): what one syncs reaches the other
    and is said. ben marks a paper in ana's copy: a sync as ana says it stays there until ben
    syncs from it, and then it travels."""
    remote = _bare(tmp_path / "lab.git")
    laptop, desktop, ben = tmp_path / "laptop", tmp_path / "desktop", tmp_path / "ben"
    _ok(_papersift(laptop, "ana", "import", str(DATA / "icml_slice.jsonl")))
    ids = [p.id for p in Library(laptop).corpus][:2]
    _ok(_papersift(laptop, "ana", "sync", str(remote)))
    _ok(_papersift(desktop, "ana", "sync", str(remote)))
    _ok(_papersift(desktop, "ana", "star", ids[0], "2"))
    _ok(_papersift(desktop, "ana", "sync"))
    said = _ok(_papersift(laptop, "ana", "sync"))
    assert "your +1 mark from another copy" in said and _marks(laptop, "ana") == _marks(desktop, "ana")
    _ok(_papersift(desktop, "ana", "star", ids[0], "0"))  # (taken back: said as such, not as a new mark)
    said = _ok(_papersift(desktop, "ana", "sync"))
    assert said.rstrip().endswith("as ana: nothing new; 1 mark taken back sent"), said
    said = _ok(_papersift(laptop, "ana", "sync"))
    assert "as ana: 1 mark of yours taken back on another copy" in said and ids[0] not in _marks(laptop, "ana")
    _ok(_papersift(ben, "ben", "sync", str(remote)))
    _ok(_papersift(ben, "ben", "star", ids[0], "3"))
    _ok(_papersift(ben, "ben", "sync"))
    assert "ben +1 mark" in _ok(_papersift(laptop, "ana", "sync"))
    _ok(_papersift(ben, "ben", "star", ids[0], "0"))
    _ok(_papersift(ben, "ben", "sync"))
    assert "as ana: ben: 1 mark taken back" in _ok(_papersift(laptop, "ana", "sync"))
    _ok(_papersift(laptop, "ben", "status", ids[1], "to-read"))
    said = _ok(_papersift(laptop, "ana", "sync"))
    assert "the repository lacks ben's marks on 1 paper as they are here" in said
    assert "papersift --as ben sync" in said
    assert _marks(ben, "ben") == {}  # (not sent by ana's sync)
    _ok(_papersift(laptop, "ben", "sync"))
    assert "not in the repository" not in _ok(_papersift(laptop, "ana", "sync"))
    _ok(_papersift(ben, "ben", "sync"))
    assert _marks(ben, "ben") == {ids[1]: ("to-read", 0, (), "")}


def test_a_refused_push_loses_nothing_and_the_next_sync_sends_it(tmp_path):
    remote = _bare(tmp_path / "lab.git")
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'branch is protected' >&2\nexit 1\n")
    hook.chmod(0o755)
    ana = tmp_path / "ana"
    _ok(_papersift(ana, "ana", "import", str(DATA / "icml_slice.jsonl")))
    pid = Library(ana).corpus.papers[0].id
    Library(ana, member="ana").marks.set_star([pid], 3)
    proc = _papersift(ana, "ana", "sync", str(remote))
    assert proc.returncode != 0 and "the remote refused your marks" in proc.stderr and "nothing lost" in proc.stderr
    assert _marks(ana, "ana")[pid][1] == 3
    hook.unlink()
    assert "your 1 marked paper sent" in _ok(_papersift(ana, "ana", "sync"))
    assert "members/ana.jsonl" in _tree(remote)


def test_a_members_file_changed_by_someone_else_is_refused_with_the_commit(tmp_path):
    remote = _bare(tmp_path / "lab.git")
    ana, ben = tmp_path / "ana", tmp_path / "ben"
    _ok(_papersift(ana, "ana", "import", str(DATA / "icml_slice.jsonl")))
    Library(ana, member="ana").marks.set_star([Library(ana).corpus.papers[0].id], 1)
    _ok(_papersift(ana, "ana", "sync", str(remote)))
    work = tmp_path / "forger"
    subprocess.run(["git", "clone", "--quiet", "--branch", "main", str(remote), str(work)], check=True)
    path = work / "members" / "ana.jsonl"
    path.write_text(path.read_text().replace('"star":1', '"star":3'))
    git = ["git", "-C", str(work), "-c", "user.name=ben", "-c", "user.email=ben@x"]
    subprocess.run([*git, "commit", "--quiet", "-am", "tweak\n\npapersift-member: ben"], check=True)
    subprocess.run([*git, "push", "--quiet", "origin", "main"], check=True)
    sha = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    Library.open(ben)
    proc = _papersift(ben, "ben", "sync", str(remote))
    assert proc.returncode != 0 and sha[:12] in proc.stderr and "members/ana.jsonl" in proc.stderr
    assert "refused, nothing taken" in proc.stderr
    assert not _marks(ben, "ana") and not (ben / SYNC_DIR / "members").exists()


def test_an_address_with_a_password_is_refused_and_never_kept(tmp_path):
    ana = tmp_path / "ana"
    Library.open(ana)
    proc = _papersift(ana, "ana", "sync", "https://ana:hunter2@git.example.org/lab.git")
    assert proc.returncode != 0 and "hunter2" not in proc.stderr and "credential helper" in proc.stderr
    assert not (ana / "sync.json").exists()
    proc = _papersift(ana, "ana", "sync")
    assert proc.returncode != 0 and "no remote yet" in proc.stderr


def test_a_sync_folder_that_is_a_link_is_refused(tmp_path):
    remote = _bare(tmp_path / "lab.git")
    ana = tmp_path / "ana"
    Library.open(ana)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (ana / SYNC_DIR).symlink_to(elsewhere)
    proc = _papersift(ana, "ana", "sync", str(remote))
    assert proc.returncode != 0 and "is a link: refused" in proc.stderr
    assert list(elsewhere.iterdir()) == []


def test_an_assignment_travels_and_so_does_taking_it_back(tmp_path):
    """The lead's `assign` reaches every member's library (each opens on their share); an
    assignment taken off travels too; the repository holds one assignments file per member."""
    remote = _bare(tmp_path / "lab.git")
    lead, ben = tmp_path / "lead", tmp_path / "ben"
    _ok(_papersift(lead, "lead", "import", str(DATA / "icml_slice.jsonl")))
    _ok(_papersift(lead, "lead", "assign", "--to", "ana,ben"))
    assigned = dict(Library(lead).assignments)
    _ok(_papersift(lead, "lead", "sync", str(remote)))
    said = _ok(_papersift(ben, "ben", "sync", str(remote)))
    assert f"{len(assigned)} assignments changed" in said
    assert Library(ben).assignments == assigned
    assert "assignments/lead.jsonl" in _tree(remote)
    _ok(_papersift(lead, "lead", "assign", "--clear"))
    _ok(_papersift(lead, "lead", "sync"))
    _ok(_papersift(ben, "ben", "sync"))
    assert Library(ben).assignments == {}
    _ok(_papersift(ben, "ben", "sync"))  # (ben's own file now says the same: nothing comes back)
    _ok(_papersift(lead, "lead", "sync"))
    assert Library(lead).assignments == {}


def test_an_undo_after_a_sync_stays_undone_and_travels(tmp_path):
    """chen stars a paper and syncs, then undoes the star (and a tag, and a new mark) and syncs
    again: the undone marks stayed undone (the star came back from the repository, whose record
    was newer than the one undo put back) and reach ben; a redo travels the same way."""
    remote = _bare(tmp_path / "lab.git")
    chen, ben = tmp_path / "chen", tmp_path / "ben"
    _ok(_papersift(chen, "chen", "import", str(DATA / "icml_slice.jsonl")))
    ids = [p.id for p in Library(chen).corpus][:2]
    _ok(_papersift(chen, "chen", "status", ids[0], "to-read"))
    _ok(_papersift(chen, "chen", "star", ids[0], "2"))
    _ok(_papersift(chen, "chen", "tag", ids[1], "later"))  # (a paper marked only by the step undone)
    _ok(_papersift(chen, "chen", "sync", str(remote)))
    _ok(_papersift(ben, "ben", "sync", str(remote)))
    assert _marks(ben, "chen") == {ids[0]: ("to-read", 2, (), ""), ids[1]: ("unread", 0, ("later",), "")}
    _ok(_papersift(chen, "chen", "undo"))  # the tag
    _ok(_papersift(chen, "chen", "undo"))  # the star
    _ok(_papersift(chen, "chen", "sync"))
    assert _marks(chen, "chen") == {ids[0]: ("to-read", 0, (), "")}
    _ok(_papersift(ben, "ben", "sync"))
    assert _marks(ben, "chen") == {ids[0]: ("to-read", 0, (), "")}
    _ok(_papersift(chen, "chen", "redo"))  # the star again
    _ok(_papersift(chen, "chen", "sync"))
    _ok(_papersift(ben, "ben", "sync"))
    assert _marks(chen, "chen") == _marks(ben, "chen") == {ids[0]: ("to-read", 2, (), "")}


def test_an_undo_after_a_sync_never_takes_back_what_the_lab_brought(tmp_path):
    """ana syncs in ben's marks and chen's assignment of the papers, then presses undo: her own
    newest change is undone, not the sync (undo takes back one's own changes, never a colleague's);
    ben's marks stay as ben made them, and nothing of his is said to be ana's to send."""
    remote = _bare(tmp_path / "lab.git")
    ana, ben = tmp_path / "ana", tmp_path / "ben"
    _ok(_papersift(ana, "ana", "import", str(DATA / "icml_slice.jsonl")))
    ids = [p.id for p in Library(ana).corpus][:3]
    _ok(_papersift(ana, "ana", "tag", ids[0], "mine"))
    _ok(_papersift(ana, "ana", "sync", str(remote)))
    _ok(_papersift(ben, "ben", "sync", str(remote)))
    _ok(_papersift(ben, "ben", "star", ids[1], "3"))
    _ok(_papersift(ben, "ben", "assign", "--to", "ana,ben", "--new-members"))
    _ok(_papersift(ben, "ben", "sync"))
    said = _ok(_papersift(ana, "ana", "sync"))
    assert "ben +1 mark" in said and "assignments changed" in said
    assert "2 assignments" not in said  # (ana sent none of her own)
    history = _ok(_papersift(ana, "ana", "history"))
    assert "import annotations" not in history and "sync" not in history
    assert "tag" in _ok(_papersift(ana, "ana", "undo"))  # her own tag, not the sync
    assert _marks(ana, "ben") == {ids[1]: ("unread", 3, (), "")}
    assert Library(ana).assignments == Library(ben).assignments and len(Library(ana).assignments) > 290
    said = _ok(_papersift(ana, "ana", "sync"))
    assert "not in the repository" not in said and _marks(ana, "ana") == {}
    _ok(_papersift(ben, "ben", "sync"))
    assert _marks(ben, "ana") == {}  # (her undone tag travelled: it was hers)


def test_the_line_says_what_a_sync_did_that_a_person_would_not_guess(tmp_path):
    """A new remote in place of the one kept is said; a member's marks here that their file in the
    repository lacks are said, with how they go; a mark made and taken back is none; the
    assignments sent are counted; a folder that holds no repository is named."""
    first, second = _bare(tmp_path / "lab.git"), _bare(tmp_path / "lab2.git")
    ana = tmp_path / "ana"
    _ok(_papersift(ana, "ana", "import", str(DATA / "icml_slice.jsonl")))
    ids = [p.id for p in Library(ana).corpus][:2]
    _ok(_papersift(ana, "ana", "sync", str(first)))
    _ok(_papersift(ana, "anaa", "star", ids[0], "1"))  # a slip of the name, taken back
    _ok(_papersift(ana, "anaa", "undo"))
    assert "not in the repository" not in _ok(_papersift(ana, "ana", "sync"))
    _ok(_papersift(ana, "ben", "status", ids[1], "read"))
    said = _ok(_papersift(ana, "ana", "sync"))
    assert "the repository lacks ben's marks on 1 paper as they are here" in said
    assert "papersift --as ben sync" in said
    said = _ok(_papersift(ana, "ana", "sync", str(second)))
    assert f"synced with {second} (in place of {first}, remembered until now) as ana: " in said
    assert "in place of" not in _ok(_papersift(ana, "ana", "sync"))
    _ok(_papersift(ana, "ana", "assign", "--to", "ana,ben"))
    said = _ok(_papersift(ana, "ana", "sync"))
    assert f"{len(Library(ana).assignments)} assignments sent" in said, said
    (tmp_path / "plain").mkdir()
    proc = _papersift(ana, "ana", "sync", str(tmp_path / "plain"))
    assert proc.returncode != 0 and f"no repository at {tmp_path / 'plain'} (made once with" in proc.stderr


@pytest.mark.slow  # (several processes)
def test_a_remote_that_is_not_utf8_or_a_file_in_the_clones_place_is_said_in_one_line(tmp_path):
    """`sync $'/tmp/\\xff'` ended in a traceback, and every sync after it too (the address was kept
    in the clone); a file named `sync` in the library folder did too."""
    remote = _bare(tmp_path / "lab.git")
    ana = tmp_path / "ana"
    _ok(_papersift(ana, "ana", "import", str(DATA / "icml_slice.jsonl")))
    _ok(_papersift(ana, "ana", "sync", str(remote)))
    proc = _papersift(ana, "ana", "sync", "/tmp/\udcff")
    assert proc.returncode == 2 and "is not UTF-8 text" in proc.stderr and "Traceback" not in proc.stderr
    assert "synced with" in _ok(_papersift(ana, "ana", "sync"))
    shutil.rmtree(ana / SYNC_DIR)
    (ana / SYNC_DIR).write_text("mine")
    proc = _papersift(ana, "ana", "sync")
    assert proc.returncode == 1 and "is a file, where the sync keeps its clone" in proc.stderr
    assert "Traceback" not in proc.stderr and (ana / SYNC_DIR).read_text() == "mine"


@pytest.mark.slow  # (several processes)
def test_a_paper_removed_or_archived_here_stays_out_and_its_marks_stay_in_the_archive(tmp_path):
    """A sync brought back the papers this library had removed or archived (from its own papers
    file, "2 papers arrived"), the archived one unread, its skip hidden in the archive. They stay
    out, said; the others keep theirs; a paper another member brings later still arrives."""
    remote = _bare(tmp_path / "lab.git")
    ana, ben = tmp_path / "ana", tmp_path / "ben"
    _ok(_papersift(ana, "ana", "import", str(DATA / "icml_slice.jsonl")))
    _ok(_papersift(ana, "ana", "sync", str(remote)))
    _ok(_papersift(ben, "ben", "sync", str(remote)))
    ids = [p.id for p in Library(ana).corpus][:2]
    _ok(_papersift(ana, "ana", "status", ids[0], "skipped"))
    _ok(_papersift(ana, "ana", "archive", "--skipped-before", "2100-01-01"))
    _ok(_papersift(ana, "ana", "remove", ids[1]))
    said = _ok(_papersift(ana, "ana", "sync"))
    assert "arrived" not in said and "2 papers removed or archived here stay out (the others keep theirs)" in said
    assert Library(ana).corpus.index_of(ids[0]) is None and Library(ana).corpus.index_of(ids[1]) is None
    assert "arrived" not in _ok(_papersift(ana, "ana", "sync"))
    _ok(_papersift(ben, "ben", "sync"))
    assert Library(ben).corpus.index_of(ids[0]) is not None  # (ben's library keeps them)
    (tmp_path / "day.jsonl").write_text(json.dumps({"abstract": "We study zebrafish schooling with graph networks "
                                                                "over many seasons of field data in rivers."}) + "\n")
    _ok(_papersift(ben, "ben", "import", str(tmp_path / "day.jsonl")))
    _ok(_papersift(ben, "ben", "sync"))
    assert "1 paper arrived" in _ok(_papersift(ana, "ana", "sync"))
    _ok(_papersift(ana, "ana", "undo"))  # (the removal: the paper is back with its marks)
    assert Library(ana).corpus.index_of(ids[1]) is not None


@pytest.mark.slow  # (several processes)
def test_marks_on_a_near_duplicate_merged_here_under_another_id_are_not_said_to_be_missing(tmp_path):
    """chen's library merged ben's version of a paper with ana's (one id here, another in their
    files): every sync as chen said ana's and ben's marks were not in the repository, and advised a
    sync as them from chen's library."""
    remote = _bare(tmp_path / "lab.git")
    rec = json.loads((DATA / "icml_slice.jsonl").read_text().splitlines()[5])
    rec.pop("title", None)
    longer = dict(rec, abstract=rec["abstract"] + " We release our code publicly on the web for everyone.",
                  id=str(rec.get("id")) + "v")
    (tmp_path / "ben.jsonl").write_text(json.dumps(rec) + "\n")
    (tmp_path / "ana.jsonl").write_text(json.dumps(longer) + "\n")
    folders = {m: tmp_path / m for m in MEMBERS}
    _ok(_papersift(folders["ana"], "ana", "import", str(tmp_path / "ana.jsonl")))
    _ok(_papersift(folders["ana"], "ana", "sync", str(remote)))
    _ok(_papersift(folders["ben"], "ben", "sync", str(remote)))
    _ok(_papersift(folders["ben"], "ben", "import", str(tmp_path / "ben.jsonl")))
    _ok(_papersift(folders["chen"], "chen", "import", str(tmp_path / "ben.jsonl")))
    _ok(_papersift(folders["chen"], "chen", "sync", str(remote)))
    for m, star in (("ana", "1"), ("ben", "3")):
        pid = Library(folders[m]).corpus.papers[0].id
        _ok(_papersift(folders[m], m, "star", pid, star))
        _ok(_papersift(folders[m], m, "sync"))
    for _ in range(2):
        said = _ok(_papersift(folders["chen"], "chen", "sync"))
        assert "not in the repository" not in said, said
    marks = {name for name, _ in Library(folders["chen"]).team.marks_of(Library(folders["chen"]).corpus.papers[0].id)}
    assert marks == {"ana", "ben"}


@pytest.mark.slow  # (several processes)
def test_an_undo_synced_then_redone_is_no_conflict_with_oneself(tmp_path):
    """star, undo, sync, redo, sync on one copy stored a conflict with ana's own undone star and said
    "your +1 mark from another copy" (the merge did not know the undo's own change times)."""
    remote = _bare(tmp_path / "lab.git")
    ana = tmp_path / "ana"
    _ok(_papersift(ana, "ana", "import", str(DATA / "icml_slice.jsonl")))
    pid = Library(ana).corpus.papers[0].id
    _ok(_papersift(ana, "ana", "sync", str(remote)))
    _ok(_papersift(ana, "ana", "star", pid, "2"))
    _ok(_papersift(ana, "ana", "undo"))
    assert "1 mark taken back sent" in _ok(_papersift(ana, "ana", "sync"))
    _ok(_papersift(ana, "ana", "redo"))
    said = _ok(_papersift(ana, "ana", "sync"))
    assert "as ana: nothing new; your 1 marked paper sent" in said, said
    ann = Library(ana, member="ana").annotation(pid)
    assert ann.star == 2 and ann.conflicts == []


@pytest.mark.slow  # (several processes)
def test_damaged_sync_settings_are_kept_and_said_not_read_as_no_remote(tmp_path):
    remote = _bare(tmp_path / "lab.git")
    ana = tmp_path / "ana"
    _ok(_papersift(ana, "ana", "sync", str(remote)))
    (ana / "sync.json").write_text("garb{")
    proc = _papersift(ana, "ana", "sync")
    assert proc.returncode == 1 and "sync.json is damaged (kept as found in backups/sync.json." in proc.stderr
    assert "papersift sync REMOTE" in proc.stderr and "no remote yet" not in proc.stderr
    assert [p.read_text() for p in (ana / "backups").glob("sync.json.*")] == ["garb{"]
    assert "synced with" in _ok(_papersift(ana, "ana", "sync", str(remote)))
    assert json.loads((ana / "sync.json").read_text())["remote"] == str(remote)


@pytest.mark.slow  # (three members, five syncs)
def test_a_line_separator_pasted_into_a_note_travels_and_stops_no_one(tmp_path):
    """A note pasted from a PDF holding U+2028: its member file was written with it raw and read back
    split there, so every other member's sync, a new member joining, and the writer's own next sync
    (after the note was changed) failed with "line 2: invalid JSON"."""
    remote = _bare(tmp_path / "lab.git")
    ana, ben, chen = tmp_path / "ana", tmp_path / "ben", tmp_path / "chen"
    _ok(_papersift(ana, "ana", "import", str(DATA / "icml_slice.jsonl")))
    pid = Library(ana).corpus.papers[0].id
    _ok(_papersift(ana, "ana", "status", pid, "read"))
    _ok(_papersift(ana, "ana", "sync", str(remote)))
    Library.open(ben)
    _ok(_papersift(ben, "ben", "sync", str(remote)))
    pasted = "copied from the pdf:\u2028second line\u2029third\x85fourth"
    _ok(_papersift(ana, "ana", "note", pid, pasted))
    _ok(_papersift(ana, "ana", "sync"))
    _ok(_papersift(ben, "ben", "sync"))
    assert _marks(ben, "ana")[pid][3] == pasted  # (kept as typed: escaped in the file, not cut)
    Library.open(chen)
    _ok(_papersift(chen, "chen", "sync", str(remote)))
    assert _marks(chen, "ana")[pid][3] == pasted
    _ok(_papersift(ana, "ana", "note", pid, "plain again"))
    _ok(_papersift(ana, "ana", "sync"))
    _ok(_papersift(ben, "ben", "sync"))
    assert _marks(ben, "ana")[pid][3] == "plain again"
    shown = subprocess.run(["git", "--git-dir", str(remote), "log", "-p", "main"], capture_output=True,
                           text=True, check=True).stdout
    assert "\u2028" not in shown and "\\u2028" in shown  # (the repository's files hold it escaped)


@pytest.mark.slow  # (several processes)
def test_a_sync_to_another_address_forgets_no_paper_removed_here(tmp_path):
    """A sync to a mistyped address failed ("nothing changed here") but had already dropped the
    clone, and with it the list of papers this library took before: the next sync with the lab's
    address brought back a paper removed here, with a colleague's marks on it."""
    remote = _bare(tmp_path / "lab.git")
    ana, ben = tmp_path / "ana", tmp_path / "ben"
    _ok(_papersift(ana, "ana", "import", str(DATA / "icml_slice.jsonl")))
    _ok(_papersift(ana, "ana", "sync", str(remote)))
    _ok(_papersift(ben, "ben", "sync", str(remote)))
    gone = next(iter(Library(ana).corpus)).id
    _ok(_papersift(ben, "ben", "star", gone, "3"))
    _ok(_papersift(ben, "ben", "sync"))
    _ok(_papersift(ana, "ana", "sync"))
    _ok(_papersift(ana, "ana", "remove", gone))
    assert "1 paper removed or archived here stays out" in _ok(_papersift(ana, "ana", "sync"))
    # ben's papers file now offers it (ana's no longer does), but ben did not bring it (it said
    # "1 paper you brought sent")
    assert "you brought" not in _ok(_papersift(ben, "ben", "sync"))
    assert "1 paper removed or archived here stays out" in _ok(_papersift(ana, "ana", "sync"))
    typo = _papersift(ana, "ana", "sync", str(tmp_path / "typo.git"))
    assert typo.returncode == 1 and "no repository at" in typo.stderr
    said = _ok(_papersift(ana, "ana", "sync"))  # (the lab's address, remembered)
    assert "arrived" not in said and Library(ana).corpus.index_of(gone) is None, said
    assert "stays out" in _ok(_papersift(ana, "ana", "sync", str(tmp_path / "lab.git/")))  # (written otherwise)
    assert Library(ana).corpus.index_of(gone) is None
