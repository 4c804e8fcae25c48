"""Members' marks in one library (store.library.team, the record keys of store.records.RecordKey):
each member's own record, their own undo, the team filters and sort, removal and undo keeping
every member's marks, team files merged in any order, member names checked."""

from __future__ import annotations

import itertools
import json

import pytest

from store.errors import PapersiftError
from store.exchange.annotation_files import read_annotation_records
from store.exchange.team_file import team_text
from store.library import Library
from store.records import RecordKey
from store.team.members import default_member, member_problem


def test_member_records_sit_beside_the_owners(lib):
    pid = next(iter(lib.corpus)).id
    lib.marks.set_star([pid], 1)  # the owner's: the id every library had
    ana = Library(lib.folder, member="ana")
    ana.marks.set_star([pid], 3)
    assert RecordKey(pid).doc_id == int(pid, 16) and RecordKey(pid, "ana").doc_id >= 1 << 48
    step = ana.store.history(1)[0]  # the undo history names the record by its key's text
    assert list(step["after"]) == [f"{pid}@ana"] and RecordKey.parse(f"{pid}@ana") == RecordKey(pid, "ana")
    assert RecordKey.parse(pid) == RecordKey(pid) and RecordKey(pid).text == pid
    assert {RecordKey.of_record(rec) for rec in ana.store.storage.read()["annotations"].values()} == {
        RecordKey(pid), RecordKey(pid, "ana")}
    lib.refresh()
    assert lib.annotation(pid).star == 1 and ana.annotation(pid).star == 3
    assert {name: a[pid].star for name, a in lib.member_marks.items()} == {lib.member: 1, "ana": 3}
    # In memory the owner is a member like any other, by name; the file stores their records unnamed.
    assert lib.annotation(pid).key == RecordKey(pid, lib.member) == RecordKey(pid, lib.owner)
    assert ana.member_annotation(pid, lib.member).member == lib.member and ana.annotation(pid).member == "ana"
    assert "member" not in ana.store.storage.read()["annotations"][str(RecordKey(pid).doc_id)]
    assert RecordKey(pid, lib.owner).stored(lib.owner) == RecordKey(pid) and RecordKey(pid, "ana").stored(lib.owner).member == "ana"


def test_an_assignment_is_a_record_of_its_own_stored_as_an_older_library_stored_it(lib):
    """An assignment is read and written as an ``Assignment`` (no member's annotation): stored
    under the key and in the shape every library with assignments has (an older library's open
    unchanged), named by its key's text in the undo history, taken off with its time kept."""
    from store.annotations.database import ANN
    from store.records import Annotation, Assignment, read_record
    a, b = [p.id for p in lib.corpus][:2]
    data = lib.store.storage.read() or {}
    older = {"paper_id": a, "member": "@team", "assignee": "ana", "stamps": {"assignee": "2026-01-01T00:00:00.000Z"}}
    lib.store.storage.write({**data, ANN: {**(data.get(ANN) or {}), str(RecordKey.assignment(a).doc_id): older}})
    lib.reload_annotations()
    assert lib.assignments == {a: "ana"} and lib.assignment(a) == Assignment(a, "ana", older["stamps"])
    assert lib.team.clear_assignments([a]) == 1 and lib.team.assign(["ben"], [b], None, new_members=True).shares == {"ben": 1}
    stored = {RecordKey.of_record(r): r for r in lib.store.storage.read()[ANN].values()}
    taken_off, given = stored[RecordKey.assignment(a)], stored[RecordKey.assignment(b)]
    assert set(taken_off) == set(given) == {"paper_id", "member", "assignee", "stamps"} and taken_off["assignee"] == ""
    assert taken_off["stamps"]["assignee"] > older["stamps"]["assignee"]  # (taken off: its time kept, for a sync)
    assert read_record(given) == (Assignment(b, "ben", given["stamps"]), []) and lib.assignments == {b: "ben"}
    assert isinstance(read_record({"paper_id": a, "member": "ana", "star": 1})[0], Annotation)
    assert list(lib.store.history(1)[0]["after"]) == [f"{b}@@team"] == [RecordKey.assignment(b).text]
    assert RecordKey.parse(f"{b}@@team").is_assignment and not RecordKey(b, "ana").is_assignment
    assert lib.undo() and lib.undo() and lib.assignments == {a: "ana"}


def test_each_member_undoes_their_own_change(lib):
    a, b = [p.id for p in lib.corpus][:2]
    ana, ben = Library(lib.folder, member="ana"), Library(lib.folder, member="ben")
    ana.marks.set_status([a], "read")
    ben.marks.set_status([b], "skipped")
    assert ana.undo() == "status read"  # not ben's newer change
    ben.refresh()
    assert ben.annotation(b).status == "skipped" and ben.member_marks.get("ana", {}).get(a) is None
    assert ana.redo() == "status read" and ana.annotation(a).status == "read"


def test_team_filters_and_sort(lib):
    ids = [p.id for p in lib.corpus]
    ana, ben = Library(lib.folder, member="ana"), Library(lib.folder, member="ben")
    ana.marks.set_star(ids[:2], 2)
    ben.marks.set_star(ids[1:2], 3)
    ben.marks.set_status([ids[0]], "skipped")
    lib.refresh()

    def found(q: str) -> list[str]:
        return [p.id for p, _ in lib.pairs(q)]
    assert found("team-star:>=4") == [ids[1]]
    assert found("star-by:ana:>=2") == ids[:2] and found("star-by:ben") == [ids[1]]
    assert found("split:") == [ids[0]] and found("by:ben") == ids[:2]
    assert len(found("-by:ana")) == len(ids) - 2
    order = lib.search.find("", sort="team-stars").indices
    assert [lib.corpus.papers[int(i)].id for i in order[:2]] == [ids[1], ids[0]]
    result = lib.search.find("by:benn")
    assert any("did you mean ben?" in e for e in result.errors)


def test_assign_balances_and_clear_is_one_undo_step(lib):
    ids = [p.id for p in lib.corpus]
    done = lib.team.assign(["ana", "ben", "chen"], ids)
    assert sorted(done.shares.values()) == [11, 12, 12] and len(lib.assignments) == len(ids)
    assert lib.team.clear_assignments() == len(ids) and not lib.assignments
    assert lib.undo() is not None and len(lib.assignments) == len(ids)
    with pytest.raises(PapersiftError, match="nothing to assign"):
        lib.team.assign(["ana"], [])
    with pytest.raises(PapersiftError, match="one positive number per member"):
        lib.team.assign(["ana", "ben"], ids, weights=[1.0])


def test_removal_takes_and_undo_brings_back_every_members_marks(lib):
    pid = next(iter(lib.corpus)).id
    ana = Library(lib.folder, member="ana")
    ana.marks.set_star([pid], 2)
    lib.team.assign(["ana"], [pid])
    lib.marks.set_status([pid], "read")
    lib.remove([pid])
    assert not any(pid in a for a in lib.member_marks.values()) and pid not in lib.assignments
    lib.undo()
    assert lib.member_marks["ana"][pid].star == 2 and lib.assignments[pid] == "ana" and lib.annotation(pid).status == "read"


def test_team_files_merge_in_any_order(lib, tmp_path):
    ids = [p.id for p in lib.corpus]
    files = {}
    for k, name in enumerate(("ana", "ben", "chen")):
        member = Library(lib.folder, member=name)
        member.marks.set_star(ids[k:k + 2], k + 1)
        member.marks.add_tags([ids[k]], [name])
        files[name] = team_text(name, member.annotations.values())
        member.marks.set_star(ids[k:k + 2], 0)  # gone from the library: only the files carry them now
        member.marks.remove_tags([ids[k]], [name])
    results = set()
    from store.exchange.merge import plan_merge
    for order in itertools.permutations(files):
        copy = Library(lib.folder, member="lead")
        for name in order:
            path = tmp_path / f"{name}.json"
            path.write_text(files[name])
            changes, _ = plan_merge(copy, read_annotation_records(path), path.name)
            copy.replace_annotations(changes.values(), "import-annotations", name)
        results.add(json.dumps({n: {p: (a.star, a.tags) for p, a in sorted(anns.items())}
                                for n, anns in sorted(copy.member_marks.items())}))
        for _ in order:
            copy.undo()
    assert len(results) == 1


def test_member_names():
    assert member_problem("ana") is None and member_problem("a.b_c-1") is None
    for bad in ("", "a b", "-x", "x" * 65, "@team", "ana/ben", "é"):
        assert member_problem(bad) is not None, bad


def test_a_bad_papersift_user_is_an_error(monkeypatch):
    monkeypatch.setenv("PAPERSIFT_USER", "no good")
    with pytest.raises(PapersiftError, match="PAPERSIFT_USER"):
        default_member()
    monkeypatch.setenv("PAPERSIFT_USER", "ana")
    assert default_member() == "ana"


@pytest.mark.parametrize("fmt, expected", [("md", "team: ana ★★; ben skipped"), ("csv", "ana ★★; ben skipped"),
                                           ("bibtex", "papersift_team = {ana ★★; ben skipped}"),
                                           ("ris", "N1  - papersift-team: ana ★★; ben skipped"),
                                           ("org", ":TEAM: ana ★★; ben skipped"),
                                           ("jsonl", '"team":[{"member":"ana","status":"unread","star":2'),
                                           ("csl-json", '"papersift_team"')])
def test_every_export_format_carries_every_members_marks(lib, fmt, expected, tmp_path):
    from store.exchange.export import export_text
    pid = next(iter(lib.corpus)).id
    Library(lib.folder, member="ana").marks.set_star([pid], 2)
    Library(lib.folder, member="ben").marks.set_status([pid], "skipped")
    lib.refresh()
    text = export_text(lib.pairs(f"id:{pid}"), fmt)
    assert expected in text
    alone = Library.open(tmp_path / "alone")  # one person's library: the formats are as they always were
    first = next(iter(alone.corpus)).id
    alone.marks.set_star([first], 2)
    marker = {"md": "team:", "csv": ",team", "bibtex": "papersift_team", "ris": "papersift-team", "org": ":TEAM:",
              "jsonl": '"team"', "csl-json": "papersift_team"}[fmt]
    assert marker in text and marker not in export_text(alone.pairs(f"id:{first}"), fmt)
    if fmt in ("ris", "csl-json"):  # the line is for people: reading the file back keeps it out of the note
        path = tmp_path / ("x.ris" if fmt == "ris" else "x.json")
        path.write_text(text)
        assert all("team" not in rec.get("note", "") for rec in read_annotation_records(path))
    if fmt == "jsonl":  # the others' marks are not taken from it, and an import says so (their team files bring them)
        from store.exchange.merge import plan_merge
        path = tmp_path / "lab.jsonl"
        path.write_text(text)
        fresh = Library.open(tmp_path / "fresh")
        fresh.paper_changes.import_paths([path])
        _, report = plan_merge(fresh, read_annotation_records(path), "lab.jsonl")
        assert any(w.startswith("lab.jsonl: also holds the marks of ana, ben (beside its own, on 1 paper), which an "
                                "import does not take") and "--as ana export --format team" in w
                   for w in report.warnings), report.warnings
        _, alone_report = plan_merge(fresh, [{"id": pid, "star": 1}], "mine.jsonl")
        assert not any("also holds" in w for w in alone_report.warnings)


def test_a_members_own_export_does_not_say_it_also_holds_that_members_marks(lib, tmp_path):
    """ben's JSON export (`papersift --as ben export`) holds his marks as its own and, in a lab's
    library, every member's beside them, his among them: its import said it "also holds the
    marks of ben (beside its own)", which are its own. Only a member whose marks differ is named."""
    from store.exchange.export import export_text
    from store.exchange.merge import plan_merge
    pid = next(iter(lib.corpus)).id
    ben = Library(lib.folder, member="ben")
    ben.marks.set_star([pid], 1)
    Library(lib.folder, member="ana").marks.set_star([pid], 3)
    ben.refresh()
    path = tmp_path / "ben.json"
    path.write_text(export_text(ben.pairs(f"id:{pid}"), "json"))
    fresh = Library.open(tmp_path / "fresh")
    _, report = plan_merge(fresh, read_annotation_records(path), "ben.json")
    said = [w for w in report.warnings if "also holds" in w]
    assert len(said) == 1 and said[0].startswith("ben.json: also holds the marks of ana (beside its own"), said


def test_a_seeded_members_papers_say_their_seed_and_a_forged_seed_reads_as_none(lib):
    """ben marked nothing: his papers went by his seed phrase's papers, and why_assigned says so
    (the phrase is kept with the assignment's undo step); a forged step's seed of the wrong kind
    is no seed."""
    ids = [p.id for p in lib.corpus]
    lib.team.assign(["ana", "ben"], ids[6:], by_interest=True, seed_papers={"ana": ids[:3], "ben": ids[3:6]},
                   seed_phrases={"ana": "graphs", "ben": "robots"})
    bens = [pid for pid, m in lib.assignments.items() if m == "ben"]
    why = lib.team.why_assigned(bens[0])
    assert why is not None and why.member == "ben" and why.like in ids[3:6] and why.seed == "robots"
    lib.store.compact()
    path = lib.folder / "annotations.json"
    data = json.loads(path.read_text())
    for entry in data["history"].values():
        if entry.get("action") == "assign":
            entry["seeds"] = {"ben": {"phrase": 7, "papers": "not a list"}, "ana": "robots"}
    path.write_text(json.dumps(data))
    forged = Library.open(lib.folder)
    assert forged.team.why_assigned(bens[0]) is None  # (ben has no paper of his own, and no sound seed)


def test_undoing_a_colleagues_team_file_puts_their_marks_back_as_they_were(lib, tmp_path):
    """The lead merges ben's team file and undoes it: ben's marks go, with the times they had, so
    the same file merged again brings them back (they are ben's: an undo takes back the lead's
    import, not ben's marks). The lead's own mark an undo takes away is a change of its time."""
    from store.annotations.storage import now_iso
    from store.exchange.import_files import merge_files
    ids = [p.id for p in lib.corpus][:2]
    ben = Library(lib.folder, member="ben")
    ben.marks.set_star(ids[:1], 2)
    ben.marks.add_tags(ids[1:], ["later"])
    path = tmp_path / "ben.jsonl"
    path.write_text(team_text("ben", ben.member_records("ben").values()))
    lead = Library.open(tmp_path / "lead", member="lead")
    assert {p.id for p in lead.corpus} >= set(ids)  # (the same bundled sample)
    lead.marks.set_status(ids[:1], "read")
    merge_files(lead, [path])
    assert lead.member_marks["ben"][ids[0]].star == 2 and (lead.undo() or "").startswith("import annotations")
    assert "ben" not in lead.member_marks and "ben" not in lead.cleared
    merge_files(lead, [path])
    assert lead.member_marks["ben"][ids[0]].star == 2 and lead.member_marks["ben"][ids[1]].tags == ["later"]
    assert (lead.undo() or "").startswith("import annotations")
    before = now_iso()
    assert (lead.undo() or "").startswith("status")
    assert lead.cleared["lead"][ids[0]].stamps["status"] >= before  # (one's own undo: a change of its time)


def test_a_member_filter_naming_no_member_offers_the_one_meant(lib):
    pid = next(iter(lib.corpus)).id
    Library(lib.folder, member="ben").marks.set_star([pid], 1)
    lib.refresh()
    for typed in ("Ben", "bne", "benn"):
        assert lib.search.find(f"star-by:{typed}").errors == [f"no member {typed} here; did you mean ben?"], typed
    assert lib.search.find("status-by:zed:read").errors[0].startswith("no member zed here") and "ben" not in \
        lib.search.find("status-by:zed:read").errors[0]


def test_an_undo_takes_back_only_what_its_step_changed(lib, tmp_path):
    """ana stars a paper; a sync then brings her own status of it from another copy of her
    library (no step of hers to undo); her undo takes the star back and leaves the status."""
    from store.exchange.import_files import merge_files
    pid = next(iter(lib.corpus)).id
    ana = Library(lib.folder, member="ana")
    ana.marks.set_star([pid], 2)
    elsewhere = Library.open(tmp_path / "desktop", member="ana")
    elsewhere.marks.set_status([pid], "to-read")
    elsewhere.marks.add_tags([pid], ["later"])
    path = tmp_path / "ana.jsonl"
    path.write_text(team_text("ana", elsewhere.member_records("ana").values()))
    merge_files(ana, [path], from_lab=True)
    assert (ana.annotation(pid).star, ana.annotation(pid).status) == (2, "to-read")
    assert (ana.undo() or "").startswith("star")
    kept = ana.annotation(pid)
    assert (kept.star, kept.status, kept.tags) == (0, "to-read", ["later"])
    assert (ana.redo() or "").startswith("star")
    assert (ana.annotation(pid).star, ana.annotation(pid).status) == (2, "to-read")


def test_an_undo_leaves_what_was_changed_again_since(lib, tmp_path):
    """The lead assigns the papers, a colleague's reassignment of one arrives by sync, the lead
    undoes the assignment: every paper but that one is unassigned (the later change stands); ben's
    newer marks that came after the lead imported his team file stay when the lead undoes the import."""
    from store.exchange.import_files import merge_files
    ids = [p.id for p in lib.corpus][:3]
    lead = Library(lib.folder, member="lead")
    lead.team.assign(["ana", "ben"], ids, None, new_members=True)
    moved = ids[0]
    other = "ana" if lead.assignments[moved] == "ben" else "ben"
    from store.records import Annotation, Assignment
    later = "2999-01-01T00:00:00.000Z"
    lead.replace_annotations([Assignment(moved, other, {"assignee": later})],
                             "sync", "sync: 1 assignment from the lab", from_lab=True)
    assert (lead.undo() or "").startswith("assign")
    assert lead.assignments == {moved: other}
    ben = Library(tmp_path / "ben", member="ben")
    ben.paper_changes.import_paths([])  # (an empty library: only for its team file's shape)
    path = tmp_path / "ben.jsonl"
    path.write_text(team_text("ben", [Annotation(ids[1], star=1, member="ben", stamps={"star": "2026-01-01T00:00:00.000Z"})]))
    merge_files(lead, [path])
    newer = tmp_path / "ben-newer.jsonl"
    newer.write_text(team_text("ben", [Annotation(ids[1], star=3, note="later", member="ben",
                                                  stamps={"star": later, "note": later})]))
    merge_files(lead, [newer], from_lab=True)
    assert (lead.undo() or "").startswith("import annotations")
    kept = lead.member_marks["ben"][ids[1]]
    assert (kept.star, kept.note) == (3, "later")
