"""A lab triaging one library together, through the real `papersift` command: assign, triage as
each member (`--as`), team files out and back in any order, the team view and its filters."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import DATA

MEMBERS = ("ana", "ben", "chen")


def ids_of(run_cli, *args: str, library: Path) -> list[str]:
    return [r["id"] for r in json.loads(run_cli("list", "--format", "json", *args, library=library).stdout)]


@pytest.fixture
def lab(run_cli, tmp_path):
    """A library of ICML's slice split among three members, each with a clone of it that they
    triaged as themselves: 3 stars on two papers of their share, a skip, a tag and a note."""
    lead = tmp_path / "lead"
    run_cli("import", str(DATA / "icml_slice.jsonl"), library=lead)
    run_cli("assign", "--to", ",".join(MEMBERS), library=lead)
    clones = {}
    for m in MEMBERS:
        clone = clones[m] = tmp_path / m
        shutil.copytree(lead, clone)
        mine = ids_of(run_cli, "--query", f"assigned:{m}", library=clone)
        for pid in mine[:2]:
            run_cli("--as", m, "star", pid, "3", library=clone)
        run_cli("--as", m, "status", mine[2], "skipped", library=clone)
        run_cli("--as", m, "tag", mine[0], f"pick-{m}", library=clone)
        run_cli("--as", m, "note", mine[0], f"{m} says read it", library=clone)
    # chen also reads a paper of ana's and skips it: the team disagrees there
    ana_first = ids_of(run_cli, "--query", "assigned:ana", library=lead)[0]
    run_cli("--as", "chen", "status", ana_first, "skipped", library=clones["chen"])
    return lead, clones, ana_first


@pytest.mark.slow
def test_assign_splits_every_untriaged_paper_once_and_evenly(run_cli, tmp_path):
    lead = tmp_path / "lead"
    run_cli("import", str(DATA / "icml_slice.jsonl"), library=lead)
    total = len(ids_of(run_cli, library=lead))
    out = json.loads(run_cli("assign", "--to", "ana, ben,chen", "--format", "json", library=lead).stdout)
    assert out["total"] == total and max(out["assigned"].values()) - min(out["assigned"].values()) <= 1
    shares = {m: set(ids_of(run_cli, "--query", f"assigned:{m}", library=lead)) for m in MEMBERS}
    assert sum(map(len, shares.values())) == total == len(set().union(*shares.values()))
    assert ids_of(run_cli, "--query", "-assigned:", library=lead) == []
    again = run_cli("assign", "--to", "ana,ben,chen", library=lead)  # every paper has its member: said, no error
    assert again.stdout.startswith("nothing to assign") and len(ids_of(run_cli, "--query", "assigned:ana",
                                                                    library=lead)) == out["assigned"]["ana"]
    run_cli("assign", "--clear", library=lead)
    weighted = json.loads(run_cli("assign", "--to", "ana,ben,chen", "--weights", "2,1,1", "--format", "json",
                                  library=lead).stdout)["assigned"]
    assert abs(weighted["ana"] - total / 2) <= 1 and abs(weighted["ben"] - total / 4) <= 1
    assert "assign 301 papers to ana, ben, chen" in run_cli("undo", library=lead).stdout  # the weighted split undone
    assert ids_of(run_cli, "--query", "assigned:", library=lead) == []
    proc = run_cli("assign", "--to", "ana,ben", "--weights", "-1,2", library=lead, check=False)
    assert proc.returncode == 1 and "one positive number per member" in proc.stderr


@pytest.mark.slow
def test_assign_by_interest_gives_each_member_the_papers_like_their_own(run_cli, tmp_path):
    """ana starred two reinforcement-learning papers; ben and chen are seeded with a phrase: the
    shares stay even, and most papers of each interest reach the member who holds it."""
    lead = tmp_path / "lead"
    run_cli("import", str(DATA / "iclr_slice.jsonl"), library=lead)
    rl = ids_of(run_cli, "--query", '"reinforcement learning"', library=lead)
    for pid in rl[:2]:
        run_cli("--as", "ana", "star", pid, "2", library=lead)
    total = len(ids_of(run_cli, "--query", "-star-by:ana", library=lead))
    out = json.loads(run_cli("assign", "--to", "ana,ben,chen", "--by-interest", "--seed", "ben=diffusion",
                             "--seed", "chen=graph neural network", "--format", "json", library=lead).stdout)
    assert out["total"] == total and max(out["assigned"].values()) - min(out["assigned"].values()) <= 1
    for member, query in (("ana", '"reinforcement learning"'), ("ben", "diffusion"), ("chen", '"graph neural"')):
        topical = set(ids_of(run_cli, "--query", f"{query} -star-by:ana", library=lead))
        mine = set(ids_of(run_cli, "--query", f"{query} -star-by:ana assigned:{member}", library=lead))
        assert len(topical) >= 8 and len(mine) >= 0.6 * len(topical), (member, len(mine), len(topical))
    anas = ids_of(run_cli, "--query", '"reinforcement learning" assigned:ana', library=lead)[:2]
    why = json.loads(run_cli("team", *anas, "--format", "json", library=lead).stdout)
    assert [w["assigned"] for w in why] == ["ana", "ana"] and all(w["like"] in rl[:2] for w in why)
    said = run_cli("team", anas[0], library=lead).stdout
    assert said.startswith(f"{anas[0]}  → ana (like ") and "by topic" not in said
    # ben has no paper of his own: his diffusion papers went by the papers the seed found (the
    # search's first 10), and `team` says so; one of those papers says the seed found it itself
    seeded = ids_of(run_cli, "--query", "diffusion", library=lead)[:10]
    diffusion_bens = ids_of(run_cli, "--query", "diffusion assigned:ben", library=lead)
    found = [pid for pid in diffusion_bens if pid in seeded][:1]
    said = run_cli("team", *found, library=lead).stdout
    assert said == f"{found[0]}  → ben (one of the papers the seed “diffusion” found)\n", said
    assert json.loads(run_cli("team", *found, "--format", "json", library=lead).stdout)[0]["like"] is None
    bens = [pid for pid in diffusion_bens if pid not in seeded][:1]
    said = run_cli("team", *bens, library=lead).stdout
    assert "(like " in said and "found by the seed “diffusion”" in said and "by topic" not in said, said
    why = json.loads(run_cli("team", *bens, "--format", "json", library=lead).stdout)[0]
    assert why["seed"] == "diffusion" and why["like"] and why["like"] not in rl[:2] and why["closer_to"] is None
    assert json.loads(run_cli("team", anas[0], "--format", "json", library=lead).stdout)[0]["seed"] is None
    # a paper dealt to ben to keep the shares even says so, not that it is like his seed's papers
    others = ids_of(run_cli, "--query", "-diffusion assigned:ben", library=lead)
    whys = json.loads(run_cli("team", *others, "--format", "json", library=lead).stdout)
    evened = [w for w in whys if w["closer_to"]]
    assert evened and all(w["closer_to"] in ("ana", "chen") for w in evened)
    said = run_cli("team", evened[0]["id"], library=lead).stdout
    assert f"to keep the shares even: it is more like {evened[0]['closer_to']}'s papers" in said, said
    assert "assigned to no one (marked by ana)" in run_cli("team", rl[0], library=lead).stdout
    run_cli("undo", library=lead)  # the assignment taken back: no paper is ben's, nothing to say why
    assert "assigned to no one" in run_cli("team", *bens, library=lead).stdout
    said = run_cli("assign", "--to", "ana,ben,chen", "--by-interest", "--seed", "ben=diffusion", library=lead).stdout
    assert "ben " in said and "(seed “diffusion”: 10 papers found)" in said and said.count("seed") == 1, said
    said = run_cli("assign", "--to", "ana,ben,chen", "--by-interest", library=lead).stdout
    assert "nothing to assign" in said and "papersift assign --clear, then this again" in said, said
    run_cli("undo", library=lead)
    for bad, said in ((["--seed", "ben=diffusion"], "add --by-interest"),
                      (["--by-interest", "--seed", "dan=diffusion"], "dan is not among --to"),
                      (["--by-interest", "--seed", "ben"], "a member and search words"),
                      (["--by-interest", "--seed", "ben=zzzqqqxx"], "no paper here holds these words")):
        proc = run_cli("assign", "--to", "ana,ben,chen", "--query", "diffusion", *bad, library=lead, check=False)
        assert proc.returncode == 1 and said in proc.stderr, (bad, proc.stderr)
    fresh = tmp_path / "fresh"
    run_cli("import", str(DATA / "iclr_slice.jsonl"), library=fresh)
    proc = run_cli("assign", "--to", "ana,ben", "--by-interest", library=fresh, check=False)
    assert proc.returncode == 1 and "no member has starred a paper" in proc.stderr


@pytest.mark.slow
def test_team_says_a_split_by_topic_put_a_paper_there(run_cli, tmp_path):
    """A split by topic gave ana a paper whatever her own papers hold: `team` says the split put it
    there, not "like" the paper of hers it happens to be nearest (the reason a split by interest
    has); by interest after it, the reason is hers again."""
    lead = tmp_path / "lead"
    run_cli("import", str(DATA / "iclr_slice.jsonl"), library=lead)
    rl = ids_of(run_cli, "--query", '"reinforcement learning"', library=lead)
    for pid in rl[:2]:
        run_cli("--as", "ana", "star", pid, "2", library=lead)
    run_cli("assign", "--to", "ana,ben", library=lead)
    anas = ids_of(run_cli, "--query", "assigned:ana", library=lead)[:3]
    said = run_cli("team", *anas, library=lead).stdout.splitlines()
    assert said == [f"{pid}  → ana (a split by topic put it there)" for pid in anas], said
    assert [w["like"] for w in json.loads(run_cli("team", *anas, "--format", "json", library=lead).stdout)] == [None] * 3
    run_cli("assign", "--clear", library=lead)  # (a paper an assignment leaves where it was keeps its reason)
    run_cli("assign", "--to", "ana,ben", "--by-interest", library=lead)
    mine = ids_of(run_cli, "--query", '"reinforcement learning" assigned:ana', library=lead)[:1]
    assert run_cli("team", *mine, library=lead).stdout.startswith(f"{mine[0]}  → ana (like ")


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_assign_after_an_import_deals_out_only_the_new_papers(run_cli, tmp_path):
    lead = tmp_path / "lead"
    run_cli("import", str(DATA / "arxiv_days" / "day1.xml"), library=lead)
    run_cli("assign", "--to", "ana,ben", library=lead)
    before = {m: set(ids_of(run_cli, "--query", f"assigned:{m}", library=lead)) for m in ("ana", "ben")}
    run_cli("import", str(DATA / "arxiv_days" / "day2.xml"), library=lead)
    out = json.loads(run_cli("assign", "--to", "ana,ben", "--format", "json", library=lead).stdout)
    assert out["total"] == 12 and out["reassigned"] == 0
    after = {m: set(ids_of(run_cli, "--query", f"assigned:{m}", library=lead)) for m in ("ana", "ben")}
    assert all(before[m] <= after[m] for m in before)  # each share stays its member's
    first = ids_of(run_cli, library=lead)[0]
    run_cli("--as", "ana", "star", first, "1", library=lead)
    run_cli("import", str(DATA / "arxiv_days" / "day3.xml"), library=lead)
    said = run_cli("assign", "--to", "ana,ben", library=lead).stdout
    kept = len(ids_of(run_cli, "--query", "assigned:", library=lead)) - sum(int(n) for n in
                                                                              re.findall(r"(?:ana|ben) (\d+)", said))
    assert f"{kept} papers left as they are (marked by a member, or assigned already)" in said, said


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_assignment_is_one_undo_step(run_cli, tmp_path):
    lead = tmp_path / "lead"
    run_cli("import", str(DATA / "icml_slice.jsonl"), library=lead)
    run_cli("assign", "--to", "ana,ben", library=lead)
    assert "assign 301 papers to ana, ben" in run_cli("history", library=lead).stdout
    run_cli("undo", library=lead)
    assert ids_of(run_cli, "--query", "assigned:", library=lead) == []


@pytest.mark.slow
def test_files_merged_in_any_order_give_one_library(run_cli, lab, tmp_path):
    lead, clones, ana_first = lab
    files = {}
    for m in MEMBERS:
        out = run_cli("--as", m, "export", "--format", "team", library=clones[m]).stdout
        lines = out.splitlines()
        assert json.loads(lines[0]) == {"format": "papersift-team", "member": m, "version": 1}
        assert [json.loads(x)["id"] for x in lines[1:]] == sorted(json.loads(x)["id"] for x in lines[1:])
        files[m] = tmp_path / f"{m}.json"
        files[m].write_text(out)
    results = set()
    for order in itertools.permutations(MEMBERS):
        target = tmp_path / ("merge-" + "-".join(order))
        shutil.copytree(lead, target)
        run_cli("import-annotations", *(str(files[m]) for m in order), library=target)
        team = json.loads(run_cli("team", "--format", "json", library=target).stdout)
        marks = {m: run_cli("--as", m, "export", "--format", "team", library=target).stdout for m in MEMBERS}
        results.add(json.dumps([team["members"], marks], sort_keys=True))
    assert len(results) == 1
    # Each member's own values are kept; the lead's own marks are untouched.
    target = tmp_path / "merge-ana-ben-chen"
    rows = {r["member"]: r for r in json.loads(run_cli("team", "--format", "json", library=target).stdout)["members"]}
    assert rows["ana"]["stars"] == 6 and rows["ana"]["starred"] == 2 and rows["ana"]["triaged_assigned"] == 1
    assert rows["chen"]["triaged"] == 2 and rows["chen"]["shared"] == 1 and rows["chen"]["agreed"] == 0
    assert ids_of(run_cli, "--query", "split:", library=target) == [ana_first]
    assert len(ids_of(run_cli, "--query", "team-star:>=3", library=target)) == 6
    assert len(ids_of(run_cli, "--query", "star-by:ana:>=3", library=target)) == 2
    assert len(ids_of(run_cli, "--query", "by:chen", library=target)) == 4
    assert ids_of(run_cli, "--query", "by:me", library=target) == []
    shortlist = run_cli("export", "--team", "3", library=target).stdout
    assert "6 papers with 3+ stars" in shortlist and "ana says read it" in shortlist and "#pick-ben" in shortlist
    # importing the same files again changes nothing
    again = run_cli("import-annotations", *(str(f) for f in files.values()), library=target).stdout
    assert "changed 0" in again


@pytest.mark.slow
def test_team_file_of_another_library_is_refused_untouched(run_cli, lab, tmp_path):
    lead, clones, _ = lab
    ana = tmp_path / "ana.json"
    ana.write_text(run_cli("--as", "ana", "export", "--format", "team", library=clones["ana"]).stdout)
    other = tmp_path / "other"
    run_cli("import", str(DATA / "iclr_slice.jsonl"), library=other)
    before = (other / "annotations.json").read_bytes() if (other / "annotations.json").exists() else b""
    proc = run_cli("import-annotations", str(ana), library=other, check=False)
    assert proc.returncode == 1 and "another library" in proc.stderr and "carries marks, not papers" in proc.stderr
    after = (other / "annotations.json").read_bytes() if (other / "annotations.json").exists() else b""
    assert before == after
    bad = tmp_path / "bad.json"
    lines = ana.read_text().splitlines()
    bad.write_text("\n".join([lines[0], lines[1].replace('"member":"ana"', '"member":"ben"')]) + "\n")
    proc = run_cli("import-annotations", str(bad), library=lead, check=False)
    assert proc.returncode == 1 and "line 2" in proc.stderr and "bad.json" in proc.stderr


@pytest.mark.slow
def test_bad_member_names_and_empty_sets_are_refused(run_cli, tmp_path):
    lead = tmp_path / "lead"
    run_cli("import", str(DATA / "icml_slice.jsonl"), library=lead)
    for name in ("ana ben", "x" * 65, "-ana", "ana/../b"):
        proc = run_cli("--as", name, "list", library=lead, check=False)
        assert proc.returncode == 1 and "member name" in proc.stderr, name
    proc = run_cli("assign", "--to", "ana,b c", library=lead, check=False)
    assert proc.returncode == 1 and "member name 'b c'" in proc.stderr
    proc = run_cli("assign", "--to", "ana", "--query", '"no such phrase anywhere"', library=lead, check=False)
    assert proc.returncode == 1 and "nothing to assign" in proc.stderr
    proc = run_cli("list", "--query", "by:anaa", library=lead)
    run_cli("--as", "ana", "status", ids_of(run_cli, library=lead)[0], "read", library=lead)
    proc = run_cli("list", "--query", "by:anaa", library=lead)
    assert "did you mean ana?" in proc.stderr


_WRITER = """
import sys
from store.library import Library
folder, member, first, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
lib = Library(folder, member)
ids = [p.id for p in lib.corpus][first:first + count]
for i, pid in enumerate(ids):
    lib.marks.set_star([pid], 1 + i % 3)
    lib.marks.add_tags([pid], [member])
"""


@pytest.mark.slow
def test_three_members_writing_one_folder_at_once_lose_nothing(run_cli, tmp_path):
    lead = tmp_path / "lead"
    run_cli("import", str(DATA / "icml_slice.jsonl"), library=lead)
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(lead), m, str(k * 10), "25"])
             for k, m in enumerate(MEMBERS)]
    assert [p.wait(timeout=240) for p in procs] == [0, 0, 0]
    rows = {r["member"]: r for r in json.loads(run_cli("team", "--format", "json", library=lead).stdout)["members"]}
    assert all(rows[m]["starred"] == 25 for m in MEMBERS)
    overlap = ids_of(run_cli, "--query", "by:ana by:ben", library=lead)
    assert len(overlap) == 15  # papers 10-24: ana's and ben's ranges overlap, each kept their own marks
    for m in MEMBERS:
        assert len(ids_of(run_cli, "--as", m, "--query", f"tag:{m}", library=lead)) == 25
        assert len(ids_of(run_cli, "--query", f"star-by:{m}:>=1", library=lead)) == 25


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_names_that_would_start_a_member_by_mistake(run_cli, tmp_path, monkeypatch):
    lead = tmp_path / "lead"
    run_cli("import", str(DATA / "icml_slice.jsonl"), library=lead)
    first = ids_of(run_cli, library=lead)[0]
    run_cli("--as", "ana", "star", first, "2", library=lead)
    proc = run_cli("--as", "ANA", "star", first, "1", library=lead, check=False)
    assert proc.returncode == 1 and "only in case: --as ana" in proc.stderr
    proc = run_cli("--as", "anaa", "star", first, "1", library=lead)
    assert "anaa has no marks here yet: a new member" in proc.stderr and "did you mean ana?" in proc.stderr
    assert "has no marks" not in run_cli("--as", "anaa", "star", first, "3", library=lead).stderr  # known now
    run_cli("--as", "ben", "star", ids_of(run_cli, library=lead)[1], "1", library=lead)
    proc = run_cli("--as", "ebn", "star", first, "1", library=lead)  # (letters swapped: said too)
    assert "ebn has no marks here yet: a new member" in proc.stderr and "did you mean ben?" in proc.stderr
    for typo in ("bne", "benn", "bn"):  # a slip in --to would start a member
        proc = run_cli("assign", "--to", f"ana,{typo}", library=lead, check=False)
        assert proc.returncode == 1 and f"{typo} is no member here yet; did you mean ben?" in proc.stderr, proc.stderr
    assert ids_of(run_cli, "--query", "assigned:", library=lead) == []
    assert "assigned" in run_cli("assign", "--to", "ana,bne", "--new-members", library=lead).stdout  # meant it
    from store.team.members import usable_name
    assert usable_name("jdoe@CORP") == "jdoe-CORP" and usable_name("x" * 80) == "x" * 64 and usable_name("@@") == "me"


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_history_undo_and_show_in_a_lab(run_cli, tmp_path):
    lead = tmp_path / "lead"
    run_cli("import", str(DATA / "icml_slice.jsonl"), library=lead)
    first = ids_of(run_cli, library=lead)[0]
    run_cli("--as", "ana", "note", first, "ana says read it", library=lead)
    run_cli("--as", "ben", "status", first, "skipped", library=lead)
    said = run_cli("--as", "ana", "history", library=lead).stdout
    assert "note · " + first in said and "no longer in the library" not in said and "skipped" not in said
    shown = run_cli("show", first, library=lead).stdout
    assert "team ana “ana says read it” · ben skipped" in shown
    rec = json.loads(run_cli("show", first, "--format", "json", library=lead).stdout)
    assert {m["member"]: m["status"] for m in rec["team"]} == {"ana": "unread", "ben": "skipped"}
    long = " ".join(f"point{i}" for i in range(30))
    run_cli("--as", "ana", "note", first, long, library=lead)
    shown = " ".join(run_cli("show", first, library=lead).stdout.split())  # (a team line wraps at 160 columns)
    assert "team ana “point0 point1" in shown and " point10…” · ben skipped" in shown, shown  # (cut after a word, said)
    rec = json.loads(run_cli("show", first, "--format", "json", library=lead).stdout)
    assert {m["member"]: m["note"] for m in rec["team"]}["ana"] == long  # (whole)


@pytest.mark.slow
def test_exchange_mistakes_are_told(run_cli, lab, tmp_path):
    lead, clones, _ = lab
    run_cli("star", ids_of(run_cli, library=lead)[5], "1", library=lead)
    mine = tmp_path / "mine.json"
    mine.write_text(run_cli("export", "--format", "team", library=lead).stdout)  # the lead's own marks
    proc = run_cli("import-annotations", str(mine), library=lead)
    assert "holds" in proc.stdout and "did they forget --as NAME?" in proc.stdout
    proc = run_cli("import-annotations", str(tmp_path / "nope.json"), library=lead, check=False)
    assert proc.returncode == 1 and "nope.json: no such file" in proc.stderr
    proc = run_cli("export", "--team", "3", "--format", "csv", library=lead, check=False)
    assert proc.returncode == 1 and "--team writes the Markdown shortlist" in proc.stderr
    proc = run_cli("export", "--team", "0", library=lead, check=False)
    assert proc.returncode == 1 and "1 or more" in proc.stderr


@pytest.mark.slow  # (several processes)
def test_an_undo_on_a_paper_another_member_removed_waits_for_it_and_is_not_spent(run_cli, tmp_path):
    """ana starred a paper and ben removed it: ana's undo said "undone: star 3" and did nothing, then
    ben's undo brought the paper back with the star, and ana's step was gone from undo and redo.
    Refused now, named with who removed it; once it is back, her undo and redo work."""
    lib = tmp_path / "shared"
    run_cli("import", str(DATA / "icml_slice.jsonl"), library=lib)
    pid, other = ids_of(run_cli, library=lib)[:2]
    run_cli("--as", "ben", "status", other, "read", library=lib)
    run_cli("--as", "ana", "star", pid, "3", library=lib)
    run_cli("--as", "ben", "remove", pid, library=lib)
    proc = run_cli("--as", "ana", "undo", library=lib, check=False)
    assert proc.returncode == 1 and f"cannot undo 'star 3' now: its paper {pid} was removed or archived since by " \
                                   "ben (`papersift --as ben undo` brings it back)" in proc.stderr
    assert "star 3" in run_cli("--as", "ana", "history", library=lib).stdout
    run_cli("--as", "ben", "undo", library=lib)
    assert "undone: star 3" in run_cli("--as", "ana", "undo", library=lib).stdout
    assert "☆☆☆" in run_cli("--as", "ana", "show", pid, library=lib).stdout
    assert "redone: star 3" in run_cli("--as", "ana", "redo", library=lib).stdout
    assert "★★★" in run_cli("--as", "ana", "show", pid, library=lib).stdout


@pytest.mark.slow
def test_a_removal_says_the_other_members_marks_and_the_assignment_it_takes_and_undo_brings_them(run_cli, tmp_path):
    lead = tmp_path / "lead"
    run_cli("import", str(DATA / "icml_slice.jsonl"), library=lead)
    pid, other = ids_of(run_cli, library=lead)[:2]
    run_cli("--as", "ana", "star", pid, "2", library=lead)
    run_cli("--as", "ben", "tag", pid, "later", library=lead)
    run_cli("assign", "--to", "ana", "--query", f"id:{pid}", library=lead)
    dry = run_cli("remove", pid, "--dry-run", library=lead).stdout
    assert "would remove 1 paper (ana's and ben's marks too, and 1 assignment):" in dry
    assert "marks too" not in run_cli("remove", other, "--dry-run", library=lead).stdout  # (no one else's)
    said = run_cli("remove", pid, library=lead).stdout
    assert "removed 1 paper (ana's and ben's marks too, and 1 assignment); backed up first" in said
    run_cli("undo", library=lead)
    back = json.loads(run_cli("--as", "ana", "show", pid, "--format", "json", library=lead).stdout)
    assert back["star"] == 2 and back["assigned_to"] == "ana"


@pytest.mark.slow  # (several commands)
def test_the_shortlist_names_as_members_only_those_who_marked_or_have_a_share(run_cli, tmp_path):
    """Whoever only assigned papers, or runs the export having marked nothing, is no member: the
    shortlist listed them ("members: ana, ben, chen, lead") where the team screen did not."""
    folder = tmp_path / "lab"
    run_cli("--as", "lead", "import", str(DATA / "icml_slice.jsonl"), library=folder)
    run_cli("--as", "lead", "assign", "--to", "ana,ben,chen", library=folder)
    first = run_cli("list", "--format", "plain", library=folder).stdout.split("\t")[0]
    run_cli("--as", "ana", "star", first, "3", library=folder)
    run_cli("--as", "ben", "star", first, "2", library=folder)
    shortlist = run_cli("--as", "lead", "export", "--team", "3", library=folder).stdout
    assert "1 paper with 3+ stars from the team (members: ana, ben, chen)." in shortlist, shortlist
    team = json.loads(run_cli("--as", "lead", "team", "--format", "json", library=folder).stdout)
    assert sorted(r["member"] for r in team["members"]) == ["ana", "ben", "chen"]
