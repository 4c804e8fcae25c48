"""store/library/removal.py: a removal and its undo keep the import order."""

from __future__ import annotations

from store import Library
from store.library.removal import REMOVE_ACTION, redo_corpus


def _order(lib: Library) -> list[str]:
    return [p.id for p in lib.corpus]


def test_an_undone_removal_puts_papers_back_in_their_places(lib):
    before = _order(lib)
    gone = [before[3], before[0], before[20], before[-1]]
    lib.marks.add_tags([before[20]], ["keep"])
    assert lib.remove(gone) == 4
    assert _order(lib) == [i for i in before if i not in gone]
    assert lib.undo()
    assert _order(lib) == before
    assert _order(Library.open(lib.corpus_path.parent)) == before  # on disk too, not only in memory
    assert lib.annotation(before[20]).tags == ["keep"]
    assert lib.redo()
    assert _order(lib) == [i for i in before if i not in gone]


def test_a_redone_removal_leaves_no_record_of_its_papers_and_the_doctor_is_clean(lib, run_cli):
    """A redo of a removal cleared its papers' records and kept them (a mark taken back keeps its
    times): `doctor` then counted 400 "annotations pointing at no paper" that --repair could not mend."""
    import orjson

    from store.doctor import run_doctor
    ids = _order(lib)[:5]
    lib.marks.set_status(ids, "skipped")
    lib.marks.set_star(ids[:1], 2)
    lib.remove(ids)
    assert lib.undo() and lib.redo()
    report = run_doctor(lib.folder)
    assert not report.problems, report.problems
    assert not [k for k, a in lib.store.load_records().items() if a.paper_id in ids]
    assert lib.undo() and lib.annotation(ids[0]).star == 2 and lib.annotation(ids[4]).status == "skipped"
    assert lib.redo()
    lib.store.compact()  # (the journal folded into the file)
    data = orjson.loads(lib.annotations_path.read_bytes())
    data["annotations"]["999"] = {"paper_id": "ffffffffffff", "status": "unread", "stamps": {"star": "2026-01-01"}}
    lib.annotations_path.write_bytes(orjson.dumps(data))  # (one an older papersift left behind)
    said = run_cli("doctor", library=lib.folder)
    assert said.returncode == 0 and "1 cleared record of papers no longer here" in said.stdout
    assert "dropped" in run_cli("doctor", "--repair", library=lib.folder).stdout
    assert "cleared record" not in run_cli("doctor", library=lib.folder).stdout


def test_a_removal_recorded_without_places_comes_back_at_the_end(lib):
    """An undo entry written before places were kept still brings its papers back."""
    before = _order(lib)
    record = lib.paper(before[2]).to_record()
    lib.remove([before[2]])
    redo_corpus(lib, {"action": REMOVE_ACTION, "papers": [record]}, undone=True)
    assert _order(lib) == [i for i in before if i != before[2]] + [before[2]]


def test_a_mark_made_by_a_process_that_had_not_seen_a_removal_does_not_block_undo(lib):
    """The app, open, marks a paper the command line removed a moment before (it had not read the
    removal yet): the mark lands on a record of no paper. Undo takes that mark back, then the
    removal, whose paper comes back with its marks as they were; nothing is left to block."""
    pid = lib.corpus.papers[3].id
    lib.marks.set_status([pid], "read")
    app = Library.open(lib.folder)  # open before the removal
    Library.open(lib.folder).remove([pid])
    assert app.marks.set_status([pid], "to-read") == 1
    cli = Library.open(lib.folder)
    assert cli.undo() == "status to-read"
    cli = Library.open(lib.folder)
    assert cli.undo() == "remove 1 paper"
    back = Library.open(lib.folder)
    assert back.corpus.index_of(pid) == 3 and back.annotation(pid).status == "read"
