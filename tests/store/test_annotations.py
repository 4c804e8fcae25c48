"""Annotations: durable writes, persistent undo, tags, crash safety, two processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from ..conftest import bib_entries
from store import Library, PapersiftError
from store.errors import CorruptFileError


def first_ids(lib, n=3):
    return [p.id for p in lib.corpus.papers[:n]]


def test_a_tag_keeps_out_the_characters_exports_separate_keywords_with(lib, tmp_path):
    """A tag with ';' came back from its own BibTeX export as two tags, one of them "b, c"."""
    from store.exchange.export import export_text
    a, _, _ = first_ids(lib)
    lib.marks.add_tags([a], ["to;read", "Deep RL, offline", "c"])
    assert lib.annotation(a).tags == ["to-read", "deep-rl-offline", "c"]
    (tmp_path / "out.bib").write_text(export_text(lib.pairs(ids=[a]), "bibtex"))
    other = Library(tmp_path / "other")
    other.paper_changes.import_paths([tmp_path / "out.bib"])
    entry = bib_entries((tmp_path / "out.bib").read_text())[0]
    assert entry["keywords"].startswith("to-read, deep-rl-offline, c")
    assert other.corpus.papers[0].keywords[:3] == ["to-read", "deep-rl-offline", "c"]


def test_every_write_is_on_disk_before_return(lib):
    a, b, _ = first_ids(lib)
    lib.marks.set_status([a], "read")
    lib.marks.bump_star([a], 1)
    lib.marks.bump_star([a], 1)
    lib.marks.add_tags([a, b], ["Deep RL", "vision"])
    lib.marks.set_note(b, "line one\nline two")
    fresh = Library(lib.folder)  # a new process would see exactly this
    assert fresh.annotation(a).status == "read" and fresh.annotation(a).star == 2
    assert fresh.annotation(a).tags == ["deep-rl", "vision"]
    assert fresh.annotation(b).note == "line one\nline two"
    assert fresh.annotation(a).created and fresh.annotation(a).updated


def test_star_is_clamped_and_bad_values_refused(lib):
    a = first_ids(lib, 1)[0]
    for _ in range(4):
        lib.marks.bump_star([a], 1)
    assert lib.annotation(a).star == 3
    with pytest.raises(PapersiftError):
        lib.marks.set_star([a], 4)
    with pytest.raises(PapersiftError):
        lib.marks.set_status([a], "done")


def test_undo_is_repeatable_and_survives_restart(lib):
    a, b, c = first_ids(lib)
    lib.marks.set_status([a], "read")
    lib.marks.set_status([a, b, c], "skipped")
    lib.marks.add_tags([b], ["x"])
    reopened = Library(lib.folder)
    assert reopened.undo() == "tag +x"
    assert reopened.undo() == "status skipped on 3 papers"
    assert [reopened.annotation(i).status for i in (a, b, c)] == ["read", "unread", "unread"]
    assert reopened.undo() == "status read"
    assert reopened.undo() is None
    assert Library(lib.folder).annotations == {}


def test_redo_puts_back_what_undo_took_until_a_new_change(lib):
    a, b, _ = first_ids(lib)
    lib.marks.set_status([a], "read")
    lib.marks.add_tags([a, b], ["x"])
    lib.marks.set_note(b, "see")
    assert [lib.undo(), lib.undo(), lib.undo()] == ["note", "tag +x on 2 papers", "status read"]
    reopened = Library(lib.folder)  # redo survives a restart, as undo does
    assert reopened.redo() == "status read" and reopened.redo() == "tag +x on 2 papers"
    assert Library(lib.folder).annotation(b).tags == ["x"] and Library(lib.folder).annotation(b).note == ""
    assert [e["label"] for e in reopened.store.history()] == ["tag +x on 2 papers", "status read"]
    assert reopened.undo() == "tag +x on 2 papers"  # redone changes undo again, in order
    assert reopened.redo() == "tag +x on 2 papers"
    reopened.marks.set_status([b], "skipped")  # a new change: the note undone before it is gone for good
    assert reopened.redo() is None and Library(lib.folder).redo() is None
    assert Library(lib.folder).annotation(b).note == "" and Library(lib.folder).annotation(b).status == "skipped"


def test_redo_never_overwrites_a_change_it_did_not_see(lib):
    """A papersift from before redo changes a paper but leaves the redo table: redo refuses
    (and drops the table) rather than put back a state from before that change."""
    import copy
    a = first_ids(lib, 1)[0]
    lib.marks.set_status([a], "read")
    lib.undo()
    data = copy.deepcopy(lib.store.storage.read())
    redo_table = data.pop("redo")
    lib.marks.set_status([a], "to-read")            # as the older version writes it: no redo table in its data
    data = copy.deepcopy(lib.store.storage.read())
    data["redo"] = redo_table                  # ... which it kept, untouched, in its snapshot
    lib.store.storage.write(data)
    reopened = Library(lib.folder)
    assert reopened.redo() is None and reopened.annotation(a).status == "to-read"
    assert Library(lib.folder).redo() is None and Library(lib.folder).annotation(a).status == "to-read"


def test_a_mark_taken_back_is_stored_as_its_change_times_alone(lib):
    """A record back at its defaults keeps when each mark was taken back (so a team file carries
    the clearing to the lead), and is no mark: no view of the marks holds it."""
    a = first_ids(lib, 1)[0]
    lib.marks.set_status([a], "read")
    lib.marks.set_status([a], "unread")
    lib.store.compact()  # fold the journal into annotations.json
    data = json.loads(lib.annotations_path.read_text())
    (rec,) = data["annotations"].values()
    assert rec["status"] == "unread" and set(rec["stamps"]) == {"status"}
    assert data["meta"]["1"]["format"] == "papersift-annotations"
    reopened = Library(lib.folder)
    assert reopened.annotations == {} and reopened.member_marks.get(reopened.member, {}) == {}
    assert reopened.annotation(a).stamps == rec["stamps"] and list(reopened.member_records(reopened.member)) == [a]
    reopened.remove([a])  # a removal takes it too (undo puts it back)
    assert reopened.member_records(reopened.member) == {}


def test_tag_rename_merge_and_counts(lib):
    a, b, c = first_ids(lib)
    lib.marks.add_tags([a, b], ["rl"])
    lib.marks.add_tags([b, c], ["reinforcement"])
    assert lib.tag_counts() == {"rl": 2, "reinforcement": 2}
    lib.marks.merge_tags(["reinforcement"], "rl")
    assert lib.tag_counts() == {"rl": 3}
    assert lib.annotation(b).tags == ["rl"]
    lib.marks.rename_tag("rl", "reinforcement-learning")
    assert lib.tag_counts() == {"reinforcement-learning": 3}
    assert list((lib.folder / "backups").glob("annotations.json.*rename-tag.bak"))


def test_a_merge_of_two_tags_is_one_change_and_one_undo(lib):
    a, b, c = first_ids(lib)
    lib.marks.add_tags([a], ["rl"])
    lib.marks.add_tags([b], ["reinforcement"])
    lib.marks.add_tags([c], ["deep-rl", "keep"])
    before = len(lib.store.history(100))
    assert lib.marks.merge_tags(["rl", "reinforcement", "deep-rl"], "reinforcement-learning") == 3
    assert len(lib.store.history(100)) == before + 1
    assert lib.tag_counts() == {"reinforcement-learning": 3, "keep": 1}
    assert lib.undo() == "merge tags rl, reinforcement, deep-rl -> reinforcement-learning on 3 papers"
    assert lib.tag_counts() == {"rl": 1, "reinforcement": 1, "deep-rl": 1, "keep": 1}   # all of it, at once


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_cli_tags_merge_needs_an_explicit_into(run_cli):
    pid = json.loads(run_cli("list", "--format", "json", "--limit", "1").stdout)[0]["id"]
    run_cli("tag", pid, "a", "b")
    proc = run_cli("tags", "merge", "a", "b", "INTO", check=False)
    assert proc.returncode == 1 and "--into" in proc.stderr
    assert "into" not in run_cli("tags").stdout       # no tag #into was made
    assert "merged #a, #b into #c on 1 paper" in run_cli("tags", "merge", "a", "b", "--into", "c").stdout
    assert run_cli("show", pid, "--format", "json").stdout.count('"c"') == 1
    run_cli("undo")
    assert json.loads(run_cli("show", pid, "--format", "json").stdout)["tags"] == ["a", "b"]


def test_unusable_tags_are_refused_and_nothing_changes(lib):
    a = first_ids(lib)[0]
    lib.marks.add_tags([a], ["Deep RL", "deep-rl", "标签"])
    before = lib.annotation(a).tags
    assert before == ["deep-rl", "标签"]
    for tags, says in ((["fine", "x" * 65], "at most 64"), (["fine", "!!!"], "no letter or digit"), (["#"], "no tag given")):
        bad = tags[-1]
        with pytest.raises(PapersiftError, match=says):
            lib.marks.add_tags([a], tags)
        with pytest.raises(PapersiftError):
            lib.marks.rename_tag("deep-rl", bad)
    assert lib.annotation(a).tags == before and lib.tag_counts() == {"deep-rl": 1, "标签": 1}


def test_corrupt_annotations_file_is_refused_not_overwritten(lib):
    a = first_ids(lib, 1)[0]
    lib.marks.set_status([a], "read")
    lib.annotations_path.write_text('{"annotations": {"1": {"paper_id"')  # truncated
    with pytest.raises(CorruptFileError, match="annotations.json: not valid JSON"):
        Library(lib.folder)
    assert lib.annotations_path.read_text() == '{"annotations": {"1": {"paper_id"'


def test_newer_schema_is_refused(lib):
    lib.marks.set_status(first_ids(lib, 1), "read")
    lib.store.compact()
    data = json.loads(lib.annotations_path.read_text())
    data["meta"]["1"]["version"] = 99
    lib.annotations_path.write_text(json.dumps(data))
    with pytest.raises(CorruptFileError, match="newer papersift"):
        Library(lib.folder)


WRITER = textwrap.dedent("""
    import sys
    from store import Library
    lib = Library(sys.argv[1])
    ids = [p.id for p in lib.corpus]
    i = 0
    while True:
        lib.marks.set_star([ids[i % len(ids)]], (i // len(ids)) % 4)
        print(i, flush=True)
        i += 1
""")


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_killed_writer_leaves_a_valid_file_with_every_acknowledged_write(lib, tmp_path):
    ids = [p.id for p in lib.corpus]
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    for round_ in range(5):
        proc = subprocess.Popen([sys.executable, str(script), str(lib.folder)], stdout=subprocess.PIPE, text=True)
        acked = -1
        for _ in range(20 + 13 * round_):
            acked = int(proc.stdout.readline())
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        reopened = Library(lib.folder)  # must parse
        last = acked  # every printed (acknowledged) write is on disk
        pid = ids[last % len(ids)]
        assert reopened.annotation(pid).star == (last // len(ids)) % 4


TWO = textwrap.dedent("""
    import sys
    from store import Library
    lib = Library(sys.argv[1])
    ids = [p.id for p in lib.corpus]
    for i in range(40):
        lib.marks.add_tags([ids[i % len(ids)]], [sys.argv[2] + str(i)])
""")


def test_two_processes_lose_no_update(lib, tmp_path):
    script = tmp_path / "two.py"
    script.write_text(TWO)
    procs = [subprocess.Popen([sys.executable, str(script), str(lib.folder), tag]) for tag in ("a", "b")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    counts = Library(lib.folder).tag_counts()
    assert sum(counts.values()) == 80 and len(counts) == 80


# ------------------------------------------------------------------ the journal
def _journal(lib):
    return lib.annotations_path.with_name("annotations.json.journal")


def test_a_triage_key_appends_to_the_journal_not_the_whole_file(lib):
    a, b, _ = first_ids(lib)
    lib.marks.set_status([a], "read")                      # the first write starts the snapshot
    snap = lib.annotations_path.stat()
    lib.marks.set_status([b], "to-read")
    lib.marks.add_tags([a], ["rl"])
    after = lib.annotations_path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (snap.st_ino, snap.st_size, snap.st_mtime_ns)
    lines = _journal(lib).read_bytes().splitlines()
    assert len(lines) == 2 and all(json.loads(l)["set"]["annotations"] for l in lines)
    fresh = Library(lib.folder)
    assert (fresh.annotation(a).tags, fresh.annotation(b).status) == (["rl"], "to-read")
    assert fresh.undo() == "tag +rl" and Library(lib.folder).annotation(a).tags == []


def test_the_journal_is_folded_into_a_new_snapshot(lib, monkeypatch):
    import store.annotations.storage as ann_mod
    monkeypatch.setattr(ann_mod, "COMPACT_LINES", 3)
    ids = first_ids(lib, 6)
    for pid in ids:
        lib.marks.set_status([pid], "read")
    # 1 snapshot write + 3 appends -> fold, then 2 appends
    assert len(_journal(lib).read_bytes().splitlines()) == 2
    data = json.loads(lib.annotations_path.read_text())
    assert len(data["annotations"]) == 4 and data["meta"]["1"]["journal_seq"] >= 3
    assert {a.status for a in Library(lib.folder).annotations.values()} == {"read"}
    assert len(Library(lib.folder).annotations) == 6


def test_a_torn_journal_tail_is_ignored_then_cut_off(lib):
    a, b, _ = first_ids(lib)
    lib.marks.set_status([a], "read")
    lib.marks.set_status([b], "read")
    with open(_journal(lib), "ab") as fh:                # a writer killed mid-append
        fh.write(b'{"seq": 99, "set": {"annotations": {"1": {"paper')
    fresh = Library(lib.folder)
    assert fresh.annotation(b).status == "read" and len(fresh.annotations) == 2
    fresh.marks.set_status([a], "skipped")                     # the next append cuts the torn bytes off
    assert all(json.loads(l) for l in _journal(lib).read_bytes().splitlines())
    assert Library(lib.folder).annotation(a).status == "skipped"


def test_a_damaged_journal_line_is_kept_told_and_repaired(lib):
    """A bad line in the middle: the changes before and after it stay in effect (its own is lost),
    the journal as found is copied to backups/ before anything is written, the user is told (once),
    doctor names the copy, and --repair folds the whole changes into the snapshot, counting the lost."""
    from store.doctor import run_doctor
    a, b, c = first_ids(lib)
    lib.marks.set_status([a], "read")                      # (the first change starts the snapshot)
    for pid in (b, c):
        lib.marks.set_status([pid], "read")
    lib.marks.set_star([a], 2)
    raw = _journal(lib).read_bytes().splitlines()
    damaged = raw[0] + b"\n" + b"not json at all\n" + raw[2] + b"\n"
    _journal(lib).write_bytes(damaged)
    opened = Library(lib.folder)
    problems = opened.take_problems()
    assert len(problems) == 1 and "annotations.json.journal: line 2 is no journal entry (1 saved change lost; " \
                                  "the 1 whole change after it is in effect)" in problems[0]
    assert "backups/annotations.json.journal." in problems[0] and opened.take_problems() == []
    assert opened.annotation(b).status == "read" and opened.annotation(c).status == "unread"
    assert opened.annotation(a).star == 2                # after the bad line: whole, applied
    kept = list((lib.folder / "backups").glob("annotations.json.journal.*.damaged-*.bak"))
    assert len(kept) == 1 and kept[0].read_bytes() == damaged
    report = run_doctor(lib.folder)
    assert any("line 2" in p and "backups/" in p for p in report.problems)
    report = run_doctor(lib.folder, repair=True)
    assert any("folded annotations.json.journal's 2 whole changes into annotations.json" in r for r in report.repaired)
    assert any("1 change in damaged lines of annotations.json.journal could not be recovered" in p
               for p in report.problems)
    assert run_doctor(lib.folder).healthy
    assert any("damaged journal kept as found" in line for line in run_doctor(lib.folder).ok)
    repaired = Library(lib.folder)
    assert repaired.take_problems() == [] and repaired.annotation(b).status == "read" and repaired.annotation(a).star == 2
    repaired.marks.set_status([c], "skipped")
    assert Library(lib.folder).annotation(c).status == "skipped"
    assert len(list((lib.folder / "backups").glob("annotations.json.journal.*.damaged-*.bak"))) == 1


def _twenty_changes(folder):
    """A library folder whose journal holds 20 acknowledged changes (no snapshot of them)."""
    from store.annotations.database import AnnotationStore
    from store.records import Annotation
    store = AnnotationStore(folder / "annotations.json")
    first = Annotation(paper_id="%012x" % 1, star=1)
    store.apply({first.key: first}, "star", "first")  # the snapshot
    for i in range(20):
        ann = Annotation(paper_id="%012x" % (i + 2), status="read")
        store.apply({ann.key: ann}, "status", f"change {i}")
    return store


@pytest.mark.slow
def test_a_journal_cut_at_any_offset_loses_nothing_unseen(tmp_path):
    """Truncate a 20-entry journal at every byte offset, then make a change. Either every
    acknowledged change is still in effect, or the journal as found sits in backups/ and the
    user was told."""
    import shutil

    from store.annotations.database import AnnotationStore
    from store.records import Annotation, RecordKey
    base = tmp_path / "base"
    base.mkdir()
    _twenty_changes(base)
    journal = base / "annotations.json.journal"
    full = journal.read_bytes()
    assert full.count(b"\n") == 20
    ends = {i + 1 for i, ch in enumerate(full) if ch == 10}
    told = 0
    for offset in range(len(full) + 1):
        case = tmp_path / "case"
        shutil.rmtree(case, ignore_errors=True)
        shutil.copytree(base, case)
        with open(case / "annotations.json.journal", "r+b") as fh:
            fh.truncate(offset)
        store = AnnotationStore(case / "annotations.json")
        after = Annotation(paper_id="%012x" % 99, star=3)
        store.apply({after.key: after}, "star", "after")
        reports = store.storage.take_reports()
        have = {a.paper_id for a in store.load_records().values() if a.status == "read"}
        if offset == len(full):
            assert len(have) == 20 and not reports
            continue
        assert len(have) < 20                              # something acknowledged is gone ...
        assert reports and "saved change" in reports[0]    # ... and the user is told
        kept = list((case / "backups").glob("annotations.json.journal.*.damaged-*.bak"))
        assert len(kept) == 1 and kept[0].read_bytes() == full[:offset]  # ... and the bytes are kept
        told += 1
        assert AnnotationStore(case / "annotations.json").load_records()[RecordKey("%012x" % 99)].star == 3  # the new change
    assert told == len(full)
    assert ends  # (a cut on a line boundary is caught too: the acknowledged-change mark)


def test_a_torn_tail_from_a_crash_is_cut_silently(lib):
    """A writer killed mid-append leaves a torn last line that was never acknowledged: cut with no
    message and no copy (the mark proves nothing saved is in it)."""
    a, b, _ = first_ids(lib)
    lib.marks.set_status([a], "read")
    with open(_journal(lib), "ab") as fh:
        fh.write(b'{"seq": 3, "time": "x", "set": {"annotations": {"1": {"paper_id"')
    fresh = Library(lib.folder)
    assert fresh.take_problems() == []
    fresh.marks.set_status([b], "read")
    assert not (lib.folder / "backups").exists() or not list((lib.folder / "backups").glob("*damaged*"))


def test_a_sequence_gap_and_an_old_journal_are_damage(lib):
    a, b, c = first_ids(lib)
    for pid in (a, b, c):
        lib.marks.set_status([pid], "read")
    lib.marks.set_star([a], 1)
    lines = _journal(lib).read_bytes().splitlines(keepends=True)
    _journal(lib).write_bytes(lines[0] + lines[2])              # change 2 missing in the middle
    problems = Library(lib.folder).take_problems()
    assert problems and "changes are missing" in problems[0]


def test_a_kill_between_snapshot_and_journal_reset_replays_nothing_twice(lib, monkeypatch):
    import store.annotations.storage as ann_mod
    a, b, c = first_ids(lib)
    lib.marks.set_status([a], "read")
    lib.marks.set_status([b], "read")
    lib.marks.add_tags([b], ["x"])
    real = ann_mod.atomic_write_bytes

    def die_on_journal(path, data):
        if str(path).endswith(".journal"):
            raise KeyboardInterrupt("killed")
        real(path, data)
    monkeypatch.setattr(ann_mod, "atomic_write_bytes", die_on_journal)
    with pytest.raises(KeyboardInterrupt):
        lib.store.compact()                              # snapshot written, journal not emptied
    monkeypatch.setattr(ann_mod, "atomic_write_bytes", real)
    assert len(_journal(lib).read_bytes().splitlines()) == 2   # still there, and already in the snapshot
    fresh = Library(lib.folder)
    assert fresh.annotation(b).tags == ["x"] and len(fresh.store.history(50)) == 3
    fresh.marks.set_status([c], "skipped")                     # appends after the snapshot's sequence number
    again = Library(lib.folder)
    assert again.annotation(c).status == "skipped" and len(again.store.history(50)) == 4
    assert again.undo() == "status skipped" and Library(lib.folder).annotation(c).status == "unread"


def test_the_session_line_says_what_a_sitting_changed(lib):
    from store.annotations.session import session_line, snapshot
    a, b, c = first_ids(lib)
    lib.marks.set_status([c], "skipped")
    opened = snapshot(lib.annotations)
    assert session_line(opened, snapshot(lib.annotations)) == ""  # nothing changed: nothing said
    lib.marks.set_status([a, b], "read")
    lib.marks.set_status([c], "unread")            # back to unread: a change of status too
    lib.marks.bump_star([a], 1)
    lib.marks.add_tags([a, b], ["rl"])
    lib.marks.set_note(b, "ask Ana")
    lib.marks.set_status([a], "to-read")
    assert session_line(opened, snapshot(Library(lib.folder).annotations)) == (
        "this session: 3 papers marked (1 read, 1 to-read, 1 unread) · stars on 1 paper · tags on 2 papers · 1 note")
    lib.marks.bump_star([a], -1)                   # undone by hand: no longer a change
    assert "stars" not in session_line(opened, snapshot(lib.annotations))


def test_the_session_line_counts_only_this_sessions_changes(lib):
    """Another process's marks read meanwhile (a second terminal, a colleague) are not this
    session's; an undo made here is."""
    from store.annotations.session import session_line, snapshot
    ids = [p.id for p in lib.corpus]
    opened = snapshot(lib.annotations)
    lib.marks.set_status([ids[0]], "read")
    other = Library(lib.folder)
    other.marks.set_status(ids[1:4], "skipped")
    other.marks.add_tags([ids[5]], ["theirs"])
    lib.refresh()
    assert len(lib.annotations) == 5  # what the other process wrote, read here
    assert session_line(opened, snapshot(lib.annotations), only=lib.touched) == "this session: 1 paper marked (1 read)"
    lib.marks.bump_star([ids[6]], 1)
    lib.undo()  # the star: as the paper was
    assert session_line(opened, snapshot(lib.annotations), only=lib.touched) == "this session: 1 paper marked (1 read)"
    lib.redo()  # the star again, by a redo made here
    assert session_line(opened, snapshot(lib.annotations), only=lib.touched) == \
        "this session: 1 paper marked (1 read) · stars on 1 paper"


def test_the_session_line_says_removed_papers_and_imports_as_such(lib):
    """A removed paper read "2 papers marked (2 unread)": its marks went with it. It is said as
    removed (an undo takes it back), and this session's imports come first."""
    from store.annotations.session import session_line, snapshot
    ids = [p.id for p in lib.corpus]
    lib.marks.set_status(ids[:2], "read")
    opened = snapshot(lib.annotations)
    lib.marks.set_status([ids[5]], "to-read")
    lib.remove(ids[:3])

    def line(imported=()):
        return session_line(opened, snapshot(lib.annotations), only=lib.touched, removed=lib.removed,
                            imported=imported)
    assert line() == "this session: 1 paper marked (1 to-read) · 3 papers removed"
    assert line([(120, 5), (0, 0), (3, 6)]) == (
        "this session: 123 papers imported (batches 5, 6) · 1 paper marked (1 to-read) · 3 papers removed")
    assert line([(0, 7)]) == "this session: 1 paper marked (1 to-read) · 3 papers removed"  # none new
    lib.undo()
    assert line() == "this session: 1 paper marked (1 to-read)" and lib.removed == set()
    lib.redo()
    assert line() == "this session: 1 paper marked (1 to-read) · 3 papers removed"


def test_the_session_line_says_an_undo_of_an_earlier_sessions_change_as_what_it_did(lib):
    """Undone here, a note, star and tag written in an earlier session read "1 note · stars on
    1 paper · tags on 1 paper", as if added; an earlier removal undone said nothing, and undone
    then redone said "1 paper removed"."""
    from store.annotations.session import session_line, snapshot
    ids = [p.id for p in lib.corpus]
    lib.marks.set_note(ids[0], "ask Ana")
    lib.marks.bump_star([ids[1]], 2)
    lib.marks.add_tags([ids[2]], ["rl"])
    lib.marks.set_status([ids[3]], "read")
    removed_text = lib.paper(ids[3]).abstract
    lib.remove([ids[3]])
    here = Library(lib.folder)  # the next session
    opened = snapshot(here.annotations)

    def line():
        return session_line(opened, snapshot(here.annotations), only=here.touched, removed=here.removed,
                            restored=here.restored)
    here.undo()
    assert line() == "this session: 1 paper restored"
    for _ in range(4):  # its status, the tag, the star, the note
        here.undo()
    assert line() == ("this session: stars lowered on 1 paper · tags taken off 1 paper · 1 note cleared · "
                      "1 paper restored")
    for _ in range(5):
        here.redo()
    assert line() == ""  # as it opened
    back_in = Library(lib.folder)  # the removed paper imported again, then the removal undone
    (lib.folder.parent / "again.jsonl").write_text(json.dumps({"abstract": removed_text}) + "\n")
    back_in.paper_changes.import_paths([lib.folder.parent / "again.jsonl"])
    opened = snapshot(back_in.annotations)
    assert back_in.undo() == "remove 1 paper (the paper was back already, imported again: its marks are back)"
    assert "restored" not in session_line(opened, snapshot(back_in.annotations), only=back_in.touched,
                                          removed=back_in.removed, restored=back_in.restored)


def test_a_change_never_edits_the_annotations_a_reader_holds(lib):
    """Copy on write: a worker's snapshot stays as it was while the UI thread triages."""
    a, b, _ = first_ids(lib)
    lib.marks.set_status([a], "read")
    held = lib.annotations
    frozen = dict(held)
    lib.marks.set_status([b], "read")
    lib.marks.add_tags([a], ["x"])
    lib.marks.set_status([a], "unread")
    lib.undo()
    assert held == frozen and held[a].tags == [] and b not in held
    assert lib.annotations is not held and lib.annotation(b).status == "read"


def test_searches_in_a_thread_while_changes_land_never_fail(lib):
    import threading
    ids = [p.id for p in lib.corpus]
    stop, errors, runs = threading.Event(), [], [0]

    def searcher():
        while not stop.is_set():
            try:
                for query, sort in (("tag:hot", "import"), ("status:read", "import"), ("", "status"), ("agent", "star")):
                    lib.search.find(query, sort=sort)
                runs[0] += 1
            except Exception as exc:  # noqa: BLE001 (any failure is the finding)
                errors.append(exc)
    worker = threading.Thread(target=searcher)
    worker.start()
    try:
        for i in range(80):
            lib.marks.add_tags([ids[i % 35]], ["hot"])
            lib.marks.set_status([ids[(i * 7) % 35]], "read" if i % 2 else "skipped")
    finally:
        stop.set()
        worker.join()
    assert not errors and runs[0] > 0


def test_a_long_note_is_kept_in_the_undo_history_as_its_edits(lib):
    """Five edits of a long note: the history holds the edits, not ten copies; undo and redo
    rebuild every version exactly."""
    from store.tags import MAX_NOTE_CHARS
    a = first_ids(lib)[0]
    versions = ["x" * 90_000]
    for i in range(5):
        versions.append(versions[-1][:40_000] + f" edit {i} " + versions[-1][40_000:])
    for v in versions:
        lib.marks.set_note(a, v)
    lib.store.compact()
    assert lib.annotations_path.stat().st_size < 3 * 90_000  # the note, once, and its small edits
    for v in reversed(versions[:-1]):
        lib.undo()
        assert Library(lib.folder).annotation(a).note == v
    lib.undo()
    assert lib.annotation(a).note == ""
    for v in versions:
        assert lib.redo()
        assert Library(lib.folder).annotation(a).note == v
    with pytest.raises(PapersiftError, match="at most 100,000"):
        lib.marks.set_note(a, "y" * (MAX_NOTE_CHARS + 1))
    assert lib.annotation(a).note == versions[-1]


def test_an_undo_step_names_the_papers_it_changed(tmp_path):
    """Library.undo_step / redo_step: the label undo prints, and the papers the step changed (the
    app moves its cursor to the first the list shows)."""
    from ..conftest import DATA
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([DATA / "iclr_slice.jsonl"])
    a, b, c = (p.id for p in list(lib.corpus)[:3])
    lib.marks.add_tags([b, a], ["speech"])
    lib.marks.set_status([c], "read")
    step = lib.undo_step()
    assert step is not None and step.papers == [c] and "read" in step.label
    step = lib.undo_step()
    assert step is not None and sorted(step.papers) == sorted([a, b]) and lib.annotation(a).tags == []
    redone = lib.redo_step()
    assert redone is not None and sorted(redone.papers) == sorted([a, b]) and lib.annotation(b).tags == ["speech"]
    assert lib.undo() == redone.label and lib.undo() is None  # (the status's undo was made before)
    d, e = (p.id for p in list(lib.corpus)[3:5])
    lib.remove([e, d])  # (unmarked papers: the removal's record names them)
    step = lib.undo_step()
    assert step is not None and step.papers == [e, d] and len(lib) == 200


def test_the_first_change_after_a_damaged_journal_line_folds_the_journal(lib):
    """The damaged line is in backups/ once read: the next change writes a snapshot with every whole
    change (the ones after the line too), so the damage is told once, not at every start."""
    a, b, c = first_ids(lib)
    lib.marks.set_status([a], "read")
    for pid in (b, c):
        lib.marks.set_status([pid], "read")
    lib.marks.set_star([a], 2)
    raw = _journal(lib).read_bytes().splitlines()
    _journal(lib).write_bytes(raw[0] + b"\n" + b"not json at all\n" + raw[2] + b"\n")
    opened = Library(lib.folder)
    assert len(opened.take_problems()) == 1
    opened.marks.set_status([c], "skipped")
    again = Library(lib.folder)
    assert again.take_problems() == [] and b"not json" not in _journal(lib).read_bytes()
    assert (again.annotation(a).star, again.annotation(b).status, again.annotation(c).status) == (2, "read", "skipped")
