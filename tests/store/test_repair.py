"""doctor --repair never loses an acknowledged change without saying so: a cut snapshot is
rebuilt from the newest good backup, its own whole records and the journal replayed on top."""

from __future__ import annotations

import pytest

import json

from store import Library
from store.doctor import run_doctor


def many_changes(tmp_path, n: int = 600) -> Library:
    """A bulk change (a backup first), then ``n`` single tag changes: a fold at 500 rewrites the
    snapshot, and the rest stay in the journal."""
    lib = Library.open(tmp_path / "lib")
    ids = [p.id for p in lib.corpus.papers]
    lib.marks.set_status(ids[:12], "read")  # >= 10 papers: a backup of annotations.json first
    for i in range(n):
        lib.marks.add_tags([ids[i % len(ids)]], [f"t{i}"])
    return lib


def tags_of(folder) -> dict[str, set[str]]:
    lib = Library(folder)
    return {pid: set(a.tags) for pid, a in lib.annotations.items() if a.tags}


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_cut_snapshot_with_a_journal_behind_it_is_rebuilt_and_what_is_lost_is_counted(tmp_path):
    lib = many_changes(tmp_path)
    before = tags_of(lib.folder)
    snapshot = lib.annotations_path
    raw = snapshot.read_bytes()
    journal = lib.folder / "annotations.json.journal"
    assert journal.exists() and journal.stat().st_size > 0  # the changes after the fold
    snapshot.write_bytes(raw[: len(raw) // 2])
    assert not run_doctor(lib.folder).healthy
    report = run_doctor(lib.folder, repair=True)
    after = tags_of(lib.folder)
    lost_tags = sum(len(before[p] - after.get(p, set())) for p in before)
    said_lost = [p for p in report.problems if "could not be recovered" in p]
    if lost_tags:  # some records were in the cut half: counted, and the repair is no success
        assert said_lost and not report.healthy
    else:
        assert report.healthy
    # Every change of the journal (after the fold) is in effect: nothing the journal held is dropped.
    newest = {f"t{i}" for i in range(500, 600)}
    assert newest <= set().union(*after.values())
    assert any("rebuilt annotations.json" in r for r in report.repaired)
    assert list((lib.folder / "backups").glob("annotations.json.*damaged-*"))  # the file as found is kept
    assert run_doctor(lib.folder).problems == [] or said_lost  # a later doctor agrees with what was said


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_garbled_middle_keeps_the_whole_records_before_it(tmp_path):
    lib = many_changes(tmp_path, n=520)
    before = tags_of(lib.folder)
    raw = lib.annotations_path.read_bytes()
    cut = len(raw) * 3 // 4
    lib.annotations_path.write_bytes(raw[:cut] + b"\x00garbage" + raw[cut + 8:])
    report = run_doctor(lib.folder, repair=True)
    after = tags_of(lib.folder)
    kept = sum(len(before[p] & after.get(p, set())) for p in before)
    assert kept >= sum(len(t) for t in before.values()) // 2  # far more than the backup alone held
    assert json.loads(lib.annotations_path.read_bytes())  # a whole file again
    assert any("whole record" in r for r in report.repaired)


def marked_by_two(tmp_path, n: int = 5) -> tuple[Library, list[str]]:
    """A library whose first ``n`` papers carry the owner's tags and note, ana's stars and status,
    and an assignment to ben: every kind of record a removal clears."""
    lib = Library.open(tmp_path / "lib", member="olga")
    ids = [p.id for p in lib.corpus.papers][:n]
    lib.marks.add_tags(ids, ["keep"])
    lib.marks.set_note(ids[0], "my thoughts")
    ana = Library(lib.folder, member="ana")
    ana.marks.set_star(ids, 2)
    ana.marks.set_status(ids, "to-read")
    lib.team.assign(["ben"], ids)
    return Library(lib.folder, member="olga"), ids


def every_mark(folder, ids: list[str]) -> tuple:
    olga, ana = Library(folder, member="olga"), Library(folder, member="ana")
    return ([olga.annotation(i).tags for i in ids], olga.annotation(ids[0]).note,
            [(ana.annotation(i).star, ana.annotation(i).status) for i in ids], [olga.assignments.get(i) for i in ids])


def cut_between_writes(lib: Library, ids: list[str], monkeypatch, where: str = "_save_without",
                       archive: bool = False) -> None:
    """``lib.remove(ids)`` (or an archive of them) killed after its undo entry, before ``where``."""
    import store.library.removal as removal
    monkeypatch.setattr(removal, where, lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt))
    try:
        removal.archive_papers(lib, ids, "archive") if archive else lib.remove(ids)
    except KeyboardInterrupt:
        pass
    monkeypatch.undo()


def test_a_removal_cut_between_its_writes_is_finished_at_the_next_open_and_undo_brings_every_mark(
        tmp_path, monkeypatch):
    """The kill the fault sweep found: the undo entry written (every member's records cleared), the
    corpus not yet. The doctor names it; the next open finishes the removal and says so; undo puts
    back every member's marks and the assignment."""
    lib, ids = marked_by_two(tmp_path)
    before = every_mark(lib.folder, ids)
    cut_between_writes(lib, ids, monkeypatch)
    report = run_doctor(lib.folder)
    assert any("a removal was cut short" in p for p in report.problems) and not report.healthy
    fresh = Library(lib.folder, member="olga")
    said = fresh.take_problems()
    assert any("removal of 5 papers was cut short" in s and "finished" in s for s in said), said
    assert len(fresh) == 30 and all(fresh.corpus.index_of(i) is None for i in ids)  # finished, not half done
    assert Library(lib.folder).take_problems() == []  # said once: the step is whole now
    assert run_doctor(lib.folder).problems == []
    assert fresh.undo() is not None
    assert len(Library(lib.folder)) == 35 and every_mark(lib.folder, ids) == before


def test_doctor_repair_of_a_cut_removal_keeps_what_undo_restores(tmp_path, monkeypatch):
    """`doctor --repair` (before any open) finishes the step too, and leaves the undo entry that
    puts back every member's records: it never drops a record undo would restore."""
    lib, ids = marked_by_two(tmp_path)
    before = every_mark(lib.folder, ids)
    cut_between_writes(lib, ids, monkeypatch)
    report = run_doctor(lib.folder, repair=True)
    assert report.healthy and any("cut short" in r for r in report.repaired), report
    assert run_doctor(lib.folder).problems == []
    back = Library(lib.folder, member="olga")
    assert len(back) == 30 and back.undo() is not None
    assert every_mark(lib.folder, ids) == before


@pytest.mark.parametrize("where", ["_append_archive", "_save_without"])
def test_an_archive_cut_short_is_finished_with_its_lines_written_once(tmp_path, monkeypatch, where):
    """An archive killed after its undo entry, before its lines (or before the corpus): the next
    open writes what is missing, once, with every member's marks, and takes the papers out."""
    import orjson

    lib, ids = marked_by_two(tmp_path, n=3)
    cut_between_writes(lib, ids, monkeypatch, where=where, archive=True)
    fresh = Library(lib.folder, member="olga")
    assert any("cut short" in s for s in fresh.take_problems())
    assert all(fresh.corpus.index_of(i) is None for i in ids)
    lines = [orjson.loads(x) for x in (lib.folder / "archive.jsonl").read_bytes().splitlines()]
    assert sorted(x["paper"]["id"] for x in lines) == sorted(ids)  # each once
    first = next(x for x in lines if x["paper"]["id"] == ids[0])
    assert first["marks"]["olga"]["note"] == "my thoughts" and first["marks"]["ana"]["star"] == 2
    assert first["marks"]["@assignment"] == {"assignee": "ben"}
    Library(lib.folder)  # a second open writes nothing more
    assert len((lib.folder / "archive.jsonl").read_bytes().splitlines()) == 3


def test_an_undo_of_a_removal_cut_between_its_writes_is_finished_at_the_next_open(tmp_path, monkeypatch):
    import store.library as library_module
    lib = Library.open(tmp_path / "lib")
    ids = [p.id for p in lib.corpus.papers][:3]
    bare = [p.id for p in lib.corpus.papers][3:7]  # removed with them, never annotated
    lib.marks.add_tags(ids, ["keep"])
    lib.remove(ids + bare)
    assert len(Library(lib.folder)) == 28

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # the annotations are back; the papers not yet

    monkeypatch.setattr(library_module, "redo_corpus", killed)
    try:
        Library(lib.folder).undo()
    except KeyboardInterrupt:
        pass
    monkeypatch.undo()
    report = run_doctor(lib.folder)
    assert any("an undo of a removal was cut short" in p for p in report.problems)
    back = Library(lib.folder)
    assert any("undo of a removal was cut short" in s for s in back.take_problems())
    assert len(back) == 35 and all(back.annotation(i).tags == ["keep"] for i in ids)  # the bare ones too
    assert run_doctor(lib.folder).problems == []
    assert back.redo() is not None and len(Library(lib.folder)) == 28  # the step is whole: redo takes them out


def as_an_older_papersift_left_it(folder) -> None:
    """A cut removal as a papersift before the pending mark left it: no mark, no staged entry."""
    from store.annotations.storage import JournaledJSONStorage
    from store.annotations.journal import HIST, META

    storage = JournaledJSONStorage(folder / "annotations.json")
    data = storage.read()
    data[META].pop("pending")
    for entry in data[HIST].values():
        entry.pop("staged", None)
    storage.write(data)


def test_an_older_cut_removal_is_rolled_back_by_the_repair_with_every_members_records(tmp_path, monkeypatch):
    lib, ids = marked_by_two(tmp_path)
    before = every_mark(lib.folder, ids)
    cut_between_writes(lib, ids, monkeypatch)
    as_an_older_papersift_left_it(lib.folder)
    fresh = Library(lib.folder)
    assert len(fresh) == 35 and not any(fresh.annotation(i).tags for i in ids)  # the damage, as found
    report = run_doctor(lib.folder)
    assert any("a removal was cut short: 5 papers" in p for p in report.problems) and not report.healthy
    report = run_doctor(lib.folder, repair=True)
    assert report.healthy, report.problems
    assert every_mark(lib.folder, ids) == before  # ana's and the assignment too, not only the owner's
    assert run_doctor(lib.folder).problems == []
    back = Library(lib.folder, member="olga")
    back.marks.remove_tags([ids[1]], ["keep"])  # a change of the user's after the repair is not found again
    assert run_doctor(lib.folder).problems == [] and Library(lib.folder).annotation(ids[1]).tags == []


def test_a_paper_annotated_again_after_an_older_cut_removal_gets_back_what_it_had(tmp_path, monkeypatch):
    """The removal cut short (by an older papersift), then the user stars one of its papers before
    any doctor: the repair puts its status, tags and note back under the new star."""
    lib = Library.open(tmp_path / "lib")
    ids = [p.id for p in lib.corpus.papers][:5]
    lib.marks.set_status(ids, "read")
    lib.marks.add_tags(ids, ["keep"])
    cut_between_writes(lib, ids, monkeypatch)
    as_an_older_papersift_left_it(lib.folder)
    Library(lib.folder).marks.set_star([ids[0]], 3)
    report = run_doctor(lib.folder, repair=True)
    assert any("a removal was cut short: 5 papers" in p for p in report.problems) and report.healthy
    back = Library(lib.folder)
    assert (back.annotation(ids[0]).star, back.annotation(ids[0]).status, back.annotation(ids[0]).tags) == (3, "read", ["keep"])
    assert all(back.annotation(i).status == "read" for i in ids)
    assert run_doctor(lib.folder).problems == []


def test_a_change_to_the_default_after_an_older_cut_removal_is_kept(tmp_path, monkeypatch):
    """After the cut, the user sets a paper's star and then clears it, and clears a tag it got
    anew: the repair does not bring back the values the user has since set aside (in the order
    the changes were made, even within one millisecond)."""
    lib = Library.open(tmp_path / "lib")
    ids = [p.id for p in lib.corpus.papers][:3]
    lib.marks.set_star(ids, 2)
    lib.marks.add_tags(ids, ["keep"])
    cut_between_writes(lib, ids, monkeypatch)
    as_an_older_papersift_left_it(lib.folder)
    later = Library(lib.folder)
    later.marks.set_star([ids[0]], 3)
    later.marks.set_star([ids[0]], 0)  # set aside, after the cut
    later.marks.add_tags([ids[1]], ["keep"])
    later.marks.remove_tags([ids[1]], ["keep"])
    assert run_doctor(lib.folder, repair=True).healthy
    back = Library(lib.folder)
    assert back.annotation(ids[0]).star == 0 and back.annotation(ids[0]).tags == ["keep"]
    assert back.annotation(ids[1]).tags == [] and back.annotation(ids[1]).star == 2
    assert back.annotation(ids[2]).star == 2 and back.annotation(ids[2]).tags == ["keep"]


def test_a_cut_corpus_keeps_its_whole_lines_and_counts_the_papers_no_backup_holds(tmp_path, run_cli):
    """Papers imported after the newest backup, then the file cut: the repair keeps every whole
    line (not the older backup alone), fills in from the backup what it can, and counts the rest."""
    import json

    from ..surface import SLICE
    lib = Library.open(tmp_path / "lib")  # the 35 sample papers
    extra = tmp_path / "extra.jsonl"
    extra.write_text("".join(line + "\n" for line in SLICE.read_text().splitlines()[:300]))
    lib.paper_changes.import_paths([extra])  # backs the 35-paper corpus up first
    total = len(lib)
    starred = lib.corpus.papers[-100].id
    lib.marks.set_star([starred], 3)
    raw = lib.corpus_path.read_bytes()
    lines = raw.split(b"\n")
    lib.corpus_path.write_bytes(raw[: len(raw) - 20_000])  # the last papers cut, one mid-line
    cut_ids = {json.loads(l)["id"] for l in lines[1:] if l and l not in raw[: len(raw) - 20_000].split(b"\n")}
    assert cut_ids
    proc = run_cli("doctor", "--repair", library=lib.folder, check=False)
    back = Library(lib.folder)
    assert len(back) == total - len(cut_ids)  # every whole line kept (the cut ones came after the backup)
    assert back.annotation(starred).star == 3 and back.corpus.index_of(starred) is not None
    assert proc.returncode == 1 and f"{len(cut_ids)} papers could not be recovered (" in proc.stdout
    named = [pid for pid in cut_ids if pid in proc.stdout]  # (it said only how many)
    assert len(named) == min(len(cut_ids), 5), (named, proc.stdout)
    assert "rebuilt corpus.jsonl from" in proc.stdout
    assert list((lib.folder / "backups").glob("corpus.jsonl.*damaged-*"))
    # the imports the header records are kept (they were dropped: new: and batch: listed nothing)
    assert back.corpus.batches == lib.corpus.batches and len(back.search.find("new:")) > 0


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_corpus_whose_first_line_is_damaged_keeps_every_whole_paper(tmp_path, run_cli):

    lib, total = _with_papers_since_the_backup(tmp_path)
    raw = bytearray(lib.corpus_path.read_bytes())
    raw[40:42] = b'\x00"'  # inside the header line (its id list): it no longer parses
    lib.corpus_path.write_bytes(bytes(raw))
    proc = run_cli("doctor", "--repair", library=lib.folder, check=False)
    back = Library(lib.folder)
    assert len(back) == total, proc.stdout  # every paper line was whole: none lost, none from the backup only
    assert "first line (which lists its papers) was damaged" in proc.stdout
    assert list((lib.folder / "backups").glob("corpus.jsonl.*damaged-*"))
    assert run_doctor(lib.folder).healthy
    # the imports: the backup's, and the one since made again from its papers (new: lists it)
    newest = lib.corpus.batches[-1]
    assert [b["n"] for b in back.corpus.batches] == [b["n"] for b in lib.corpus.batches]
    assert {k: back.corpus.batches[-1][k] for k in ("n", "time", "new")} == {k: newest[k] for k in ("n", "time", "new")}
    assert len(back.search.find("new:")) == newest["new"]


def _with_papers_since_the_backup(tmp_path):
    from ..surface import SLICE
    lib = Library.open(tmp_path / "lib")  # the 35 sample papers
    extra = tmp_path / "extra.jsonl"
    extra.write_text("".join(line + "\n" for line in SLICE.read_text().splitlines()[:300]))
    lib.paper_changes.import_paths([extra])  # backs the 35-paper corpus up first
    return lib, len(lib)


def test_an_archive_killed_mid_line_is_finished_with_each_paper_once_and_the_cut_line_kept(tmp_path, monkeypatch):
    """A kill inside the archive's append leaves whole lines and a cut one: the next open writes the
    missing papers' lines (each paper once), after the last whole line; the cut bytes go to backups/."""
    import orjson

    lib, ids = marked_by_two(tmp_path, n=4)
    cut_between_writes(lib, ids, monkeypatch, where="_append_archive", archive=True)
    entry = next(e for e in lib.store.history(limit=50) if e.get("archived"))
    whole = orjson.dumps({"archived": entry["archived"], "paper": entry["papers"][0], "marks": {}}) + b"\n"
    torn = orjson.dumps({"archived": entry["archived"], "paper": entry["papers"][1], "marks": {}})[:40]
    (lib.folder / "archive.jsonl").write_bytes(whole + torn)
    fresh = Library(lib.folder, member="olga")
    said = fresh.take_problems()
    assert any("cut short" in s and "archive.jsonl" in s for s in said), said
    lines = (lib.folder / "archive.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b""
    listed = [orjson.loads(x)["paper"]["id"] for x in lines[:-1]]
    assert sorted(listed) == sorted(ids)  # each paper once, every line whole
    assert any(torn in b.read_bytes() for b in (lib.folder / "backups").glob("archive.jsonl*"))


def test_a_new_archive_starts_on_a_line_of_its_own(tmp_path):
    lib, ids = marked_by_two(tmp_path, n=2)
    (lib.folder / "archive.jsonl").write_bytes(b'{"archived": "2026-01-01T00:00:00Z", "paper": {"id": "x"')
    from store.library.removal import archive_papers

    archive_papers(lib, ids, "archive")
    import orjson
    lines = (lib.folder / "archive.jsonl").read_bytes().split(b"\n")
    assert [orjson.loads(x)["paper"]["id"] for x in lines[:-1]] == ids


def test_doctor_names_a_cut_archive_line_and_the_repair_keeps_it(tmp_path):
    lib, ids = marked_by_two(tmp_path, n=2)
    from store.library.removal import archive_papers

    archive_papers(lib, ids, "archive")
    path = lib.folder / "archive.jsonl"
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"archived": "x", "pap')
    assert any("archive.jsonl ends in a line cut short" in p for p in run_doctor(lib.folder).problems)
    assert run_doctor(lib.folder, repair=True).healthy
    assert path.read_bytes() == whole and run_doctor(lib.folder).problems == []
    assert any(b.read_bytes().endswith(b'"pap') for b in (lib.folder / "backups").glob("archive.jsonl*"))


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
@pytest.mark.parametrize("which", ["corpus", "annotations"])
def test_a_newer_papersifts_library_is_left_alone_by_the_repair(run_cli, which):
    """A file a newer papersift wrote (a higher format version, a field this one does not know) is
    refused by every command, and `doctor --repair` says so and changes nothing: it once rebuilt
    the corpus in this version's format, dropping the field, and advised the repair in a circle."""
    import json as _json

    folder = run_cli.library
    run_cli("status", Library.open(folder).corpus.papers[0].id, "read")
    if which == "corpus":
        path = folder / "corpus.jsonl"
        lines = path.read_text().splitlines()
        header = _json.loads(lines[0])
        header["version"] += 1
        lines[0], lines[1] = _json.dumps(header), _json.dumps({**_json.loads(lines[1]), "future_field": 1})
        path.write_text("\n".join(lines) + "\n")
    else:
        Library(folder).store.compact()  # (the journal folded into the snapshot)
        path = folder / "annotations.json"
        data = _json.loads(path.read_text())
        data["meta"]["1"]["version"] += 1
        path.write_text(_json.dumps(data))
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    for args in (["list"], ["doctor"], ["doctor", "--repair"]):
        proc = run_cli(*args, check=False)
        said = proc.stdout + proc.stderr
        assert proc.returncode == 1 and "written by a newer papersift" in said and "upgrade papersift" in said, said
        assert "run `papersift doctor --repair`" not in said and "set the damaged file aside" not in said, said
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before
