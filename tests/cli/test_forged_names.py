"""A library folder is untrusted input: member names, assignees and the owner a forged
``annotations.json`` holds never reach the terminal raw (an OSC sequence could set the window's
title, clear the screen or write the clipboard), and ``doctor`` names them, written safely."""

from __future__ import annotations

import json

import pytest

from store import Library
from store.annotations.storage import JournaledJSONStorage
from store.annotations.journal import ANN, META
from store.records import RecordKey

TITLE = "\x1b]0;pwned\x07"  # sets the terminal window's title
CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4K\x07"  # writes the clipboard (OSC 52)
CLEAR = "\x1b[2J\x1b[H"


def forge(folder, owner: str | None = None) -> list[str]:
    """Records under hostile member names and a hostile assignee, written as a colleague's forged
    file would hold them (straight into the storage, past every check)."""
    lib = Library.open(folder, member="olga")
    ids = [p.id for p in lib.corpus.papers][:3]
    lib.marks.set_star(ids[:1], 2)  # the owner's own, real mark
    storage = JournaledJSONStorage(lib.annotations_path)
    data = storage.read()
    for pid, member in ((ids[0], TITLE + "ana"), (ids[1], CLEAR + "ben")):
        data[ANN][str(RecordKey(pid, member).doc_id)] = {
            "paper_id": pid, "member": member, "status": "read", "star": 3, "tags": ["x"], "note": ""}
    data[ANN][str(RecordKey(ids[2], "@team").doc_id)] = {
        "paper_id": ids[2], "member": "@team", "assignee": CLIPBOARD + "chen", "stamps": {}}
    if owner is not None:
        data[META]["1"] = {**data[META]["1"], "owner": owner}
    storage.write(data)
    return ids


def assert_clean(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text, repr(text[:300])


@pytest.mark.parametrize("args", [("team",), ("team", "--format", "json"), ("list",), ("stats",),
                                  ("list", "--query", "by:olga"), ("export", "--format", "json")])
def test_hostile_member_names_never_reach_the_terminal(tmp_path, run_cli, args):
    folder = tmp_path / "lib"
    forge(folder)
    proc = run_cli(*args, library=folder)
    assert_clean(proc.stdout + proc.stderr)
    if args[0] == "team":
        assert "olga" in proc.stdout  # the real member is still there
        assert "pwned" not in proc.stdout and "chen" not in proc.stdout  # the forged names are no members


def test_the_forged_records_are_said_once_and_kept(tmp_path, run_cli):
    folder = tmp_path / "lib"
    forge(folder)
    proc = run_cli("list", library=folder)
    assert "3 records under a member name papersift cannot use" in proc.stderr
    assert "\\x1b" in proc.stderr  # quoted as its escape, never run
    raw = json.loads((folder / "annotations.json").read_text())
    assert sum(1 for rec in raw[ANN].values() if any("\x1b" in str(v) for v in rec.values())) == 3  # kept as found


def test_doctor_names_the_unusable_member_names(tmp_path, run_cli):
    folder = tmp_path / "lib"
    forge(folder, owner=TITLE)
    proc = run_cli("doctor", library=folder, check=False)
    assert proc.returncode != 0
    assert "4 records under a member name papersift cannot use" in proc.stdout + proc.stderr
    assert_clean(proc.stdout + proc.stderr)


def test_a_forged_owner_is_not_taken_for_a_member(tmp_path):
    folder = tmp_path / "lib"
    ids = forge(folder, owner=TITLE)
    lib = Library(folder, member="olga")
    assert lib.owner == "olga" and lib.annotation(ids[0]).star == 2
    assert set(lib.member_marks) == {"olga"} and lib.assignments == {}
