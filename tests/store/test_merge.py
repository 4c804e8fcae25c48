"""import-annotations merges field by field: nothing the colleague did not touch overwrites yours.

Two people start from the same library (a copy of its folder), triage apart, and one merges
the other's export: through the store, and through the real CLI with --dry-run first.
"""

from __future__ import annotations

import json
import shutil
import time

import pytest

from store import Library
from store.exchange.merge import plan_merge, read_annotation_records
from store.exchange.export import export_text


def fork(lib: Library, tmp_path, name: str = "colleague") -> Library:
    """The colleague: a copy of the library as it is now."""
    lib.store.compact()
    shutil.copytree(lib.folder, tmp_path / name)
    return Library(tmp_path / name)


def merge(lib: Library, other: Library, tmp_path, strip_stamps: bool = False):
    path = tmp_path / "theirs.jsonl"
    text = export_text(other.pairs(""), "jsonl")
    if strip_stamps:  # a file from an older papersift
        text = "".join(json.dumps({k: v for k, v in json.loads(line).items() if k != "stamps"}) + "\n"
                       for line in text.splitlines())
    path.write_text(text)
    changes, report = plan_merge(lib, read_annotation_records(path), "theirs.jsonl")
    lib.replace_annotations(changes.values(), "import-annotations", "merge")
    return report


def tick() -> None:
    time.sleep(0.003)  # change times have millisecond resolution


def star_here_skip_there(lib, tmp_path) -> tuple[str, Library]:
    """From the same start: ★2 on a paper here, then the colleague marks it skipped."""
    a = lib.corpus.papers[0].id
    theirs = fork(lib, tmp_path)
    lib.marks.set_star([a], 2)
    tick()
    theirs.marks.set_status([a], "skipped")
    return a, theirs


def test_your_star_and_their_status_are_both_kept(lib, tmp_path):
    """The reported case: ★2 here, 'skipped' there, from the same start: both stay, no conflict."""
    a, theirs = star_here_skip_there(lib, tmp_path)
    report = merge(lib, theirs, tmp_path)
    ann = Library(lib.folder).annotation(a)
    assert (ann.status, ann.star) == ("skipped", 2)
    assert not report.conflicts and not ann.conflicts and not report.warnings


def test_a_field_both_changed_is_a_conflict_the_newer_wins_and_it_is_listed(lib, tmp_path):
    a = lib.corpus.papers[0].id
    theirs = fork(lib, tmp_path)
    lib.marks.set_note(a, "my reading of it")
    tick()
    theirs.marks.set_note(a, "their reading of it")
    report = merge(lib, theirs, tmp_path)
    ann = Library(lib.folder).annotation(a)
    assert ann.note == "their reading of it"
    assert len(report.conflicts) == 1 and "note: kept 'their reading of it' (theirs, newer)" in report.conflicts[0]
    assert ann.conflicts == [{"field": "note", "kept": "their reading of it", "other": "my reading of it",
                              "other_updated": ann.conflicts[0]["other_updated"], "source": "local"}]
    again = merge(lib, theirs, tmp_path)  # the same file twice: nothing more
    assert not again.changes and not again.conflicts


def test_a_state_we_had_before_our_change_is_not_a_conflict(lib, tmp_path):
    """★1 before the fork; we set ★2 after it; they left the star alone: ours stays, silently."""
    a = lib.corpus.papers[0].id
    lib.marks.set_star([a], 1)
    tick()
    theirs = fork(lib, tmp_path)
    lib.marks.set_star([a], 2)
    tick()
    theirs.marks.set_status([a], "read")
    report = merge(lib, theirs, tmp_path)
    ann = Library(lib.folder).annotation(a)
    assert (ann.star, ann.status) == (2, "read") and not report.conflicts


def test_tags_merge_as_sets_with_additions_and_removals_from_both_sides(lib, tmp_path):
    a = lib.corpus.papers[0].id
    lib.marks.add_tags([a], ["x", "y"])
    tick()
    theirs = fork(lib, tmp_path)
    lib.marks.remove_tags([a], ["x"])
    lib.marks.add_tags([a], ["mine"])
    tick()
    theirs.marks.remove_tags([a], ["y"])
    theirs.marks.add_tags([a], ["theirs"])
    merge(lib, theirs, tmp_path)
    assert sorted(Library(lib.folder).annotation(a).tags) == ["mine", "theirs"]
    # and the other way round: they take our removal of x and our addition
    lib.store.compact()
    merge(theirs, Library(lib.folder), tmp_path)
    assert sorted(Library(theirs.folder).annotation(a).tags) == ["mine", "theirs"]


def test_an_older_papersifts_file_merges_by_whole_records_with_a_warning(lib, tmp_path):
    a, theirs = star_here_skip_there(lib, tmp_path)
    theirs.marks.add_tags([a], ["theirs"])
    report = merge(lib, theirs, tmp_path, strip_stamps=True)
    ann = Library(lib.folder).annotation(a)
    assert any("no per-field change times" in w for w in report.warnings)
    assert ann.status == "skipped" and "theirs" in ann.tags  # their record is newer as a whole
    assert ann.star == 0 and ann.conflicts[-1]["other"] == 2  # (the old rule; recorded, not lost)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_cli_dry_run_lists_the_conflict_first_and_changes_nothing(run_cli, tmp_path):
    papers = json.loads(run_cli("list", "--format", "json", "--limit", "2").stdout)
    a = papers[0]["id"]
    run_cli("status", a, "read")
    shutil.copytree(run_cli.library, tmp_path / "theirs")
    run_cli("star", a, "3")
    time.sleep(0.01)
    run_cli("star", a, "1", library=tmp_path / "theirs")
    run_cli("status", a, "skipped", library=tmp_path / "theirs")
    exported = tmp_path / "theirs.json"
    run_cli("export", "--format", "json", "-o", str(exported), library=tmp_path / "theirs")
    dry = run_cli("import-annotations", str(exported), "--dry-run")
    assert "would change 1" in dry.stdout and "conflict" in dry.stdout and "star: kept 1 (theirs, newer), recorded 3" in dry.stdout
    assert json.loads(run_cli("show", a, "--format", "json").stdout)["star"] == 3  # dry run: nothing written
    run_cli("import-annotations", str(exported))
    shown = json.loads(run_cli("show", a, "--format", "json").stdout)
    assert (shown["status"], shown["star"]) == ("skipped", 1)
    assert run_cli("undo").stdout.startswith("undone: ")
    assert json.loads(run_cli("show", a, "--format", "json").stdout)["star"] == 3


# ------------------------------------------------------------------ every format back
def _triaged(lib):
    ids = [p.id for p in lib.corpus]
    lib.marks.set_status(ids[:4], "to-read")
    lib.marks.set_status(ids[4:6], "skipped")
    lib.marks.set_status([ids[6]], "read")
    lib.marks.set_star([ids[0]], 3)
    lib.marks.set_star([ids[4]], 1)
    lib.marks.add_tags([ids[0], ids[6]], ["deep-rl", "to-discuss"])
    lib.marks.add_tags([ids[5]], ["a[b"])
    lib.marks.set_note(ids[0], "first line, 50% sure & #1\n\nthird line with $x_1$ and ~tilde")
    lib.marks.set_note(ids[6], "=SUM(A1) looks like a formula")
    return ids


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_every_reference_format_round_trips_the_triage(lib, tmp_path, seeds_dir):
    from store.exchange.export import export_text
    ids = _triaged(lib)
    for fmt, ext in (("json", "json"), ("jsonl", "jsonl"), ("csv", "csv"), ("bibtex", "bib"), ("ris", "ris"),
                     ("csl-json", "json"), ("org", "org")):
        path = tmp_path / f"out-{fmt}.{ext}"
        path.write_text(export_text(lib.pairs(""), fmt))
        fresh = Library(tmp_path / f"fresh-{fmt}")
        fresh.paper_changes.import_paths([seeds_dir])
        changes, report = plan_merge(fresh, read_annotation_records(path), path.name)
        fresh.replace_annotations(changes.values(), "import-annotations", "merge")
        assert report.by_id == 35 and not report.unknown, fmt
        for pid in ids:
            mine, theirs = lib.annotation(pid), Library(fresh.folder).annotation(pid)
            assert (theirs.status, theirs.star, theirs.tags, theirs.note) == \
                   (mine.status, mine.star, mine.tags, mine.note), (fmt, pid)


def test_a_markdown_list_is_not_read_back(lib, tmp_path):

    from store.errors import InputError
    from store.exchange.export import export_text
    path = tmp_path / "list.md"
    path.write_text(export_text(lib.pairs(""), "md"))
    with pytest.raises(InputError, match="Markdown reading list is for reading"):
        read_annotation_records(path)


@pytest.mark.slow  # (a few processes)
def test_ones_own_older_export_read_back_changes_nothing(run_cli, tmp_path):
    """An older CSV, RIS or Org export of one's own (no change times) read back appended the old note
    to the new one ("— from old.csv (undated): v1") and recorded the old star as a conflict: its
    values are states this library had, not news."""
    a = json.loads(run_cli("list", "--format", "json", "--limit", "1").stdout)[0]["id"]
    run_cli("star", a, "2")
    run_cli("note", a, "v1")
    for fmt in ("csv", "ris", "org"):
        run_cli("export", "--format", fmt, "-o", str(tmp_path / f"old.{fmt}"))
    run_cli("star", a, "3")
    run_cli("note", a, "v2")
    for fmt in ("csv", "ris", "org"):
        assert "changed 0" in run_cli("import-annotations", str(tmp_path / f"old.{fmt}")).stdout
    shown = json.loads(run_cli("show", a, "--format", "json").stdout)
    assert (shown["star"], shown["note"]) == (3, "v2") and not shown.get("conflicts")


def test_a_cleared_record_of_a_paper_merged_here_into_another_takes_back_none_of_its_marks(tmp_path):
    """ana split a near-duplicate off in her copy, undid it (her copied marks cleared) and synced:
    in ben's copy, where the duplicate is merged into the paper kept, her cleared record of the
    duplicate took back her marks on the kept paper (★★, read, #rl and her note gone). A record
    that takes marks back, arriving for a paper merged here into another, takes back none of that
    paper's; one that brings marks still brings them."""
    from store.corpus import paper_id
    from store.exchange.import_files import merge_files
    from store.exchange.team_file import team_text
    from store.records import Annotation
    from store.text import normalize

    from .test_dedup import BASE
    typos = BASE.replace("optical", "opitcal").replace("benchmarks", "benchmakrs").replace("single", "singel")
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "v0.txt").write_text(BASE)
    (folder / "v1.txt").write_text(typos)
    lib = Library(tmp_path / "lib", member="ben")
    lib.paper_changes.import_paths(sorted(folder.iterdir()))
    kept, dup = lib.corpus.papers[0].id, paper_id(normalize(typos))
    assert len(lib) == 1 and dup != kept and lib.paper(dup).id == kept
    early, late = "2026-12-01T10:00:00.000+00:00", "2026-12-02T10:00:00.000+00:00"
    marks = Annotation(kept, status="read", star=2, tags=["rl"], note="read with the group", member="ana",
                       stamps={"status": early, "star": early, "note": early, "#rl": early})
    cleared = Annotation(dup, member="ana", stamps={"status": late, "star": late, "note": late, "#rl": late})
    both, alone = tmp_path / "ana.jsonl", tmp_path / "ana-later.jsonl"
    both.write_text(team_text("ana", [marks, cleared]))
    alone.write_text(team_text("ana", [cleared]))
    for path in (both, alone):
        merge_files(lib, [path])
        got = Library(lib.folder, member="ben").member_annotation(kept, "ana")
        assert (got.status, got.star, got.tags, got.note) == ("read", 2, ["rl"], "read with the group"), path.name
    brings = tmp_path / "ana-dup.jsonl"  # (marks made on the duplicate still reach the paper kept)
    brings.write_text(team_text("ana", [Annotation(dup, star=3, member="ana", stamps={"star": "2026-12-03T10:00:00.000+00:00"})]))
    merge_files(lib, [brings])
    assert Library(lib.folder, member="ben").member_annotation(kept, "ana").star == 3
