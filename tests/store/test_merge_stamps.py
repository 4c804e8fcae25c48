"""Merges read time as time: malformed, offset, naive and future stamps; reports that say what
happens to each field; duplicate records of one paper; a file whose papers are not here."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from store import Library
from store.exchange.merge import plan_merge
from store.exchange.stamps import Clock, canonical
from store.records import RecordKey

from .test_merge import fork


def iso(dt: datetime) -> str:
    return dt.isoformat(timespec="milliseconds")


def their_file(tmp_path, records: list[dict]) -> list[dict]:
    path = tmp_path / "theirs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    from store.exchange.annotation_files import read_annotation_records
    return read_annotation_records(path)


def record(lib: Library, pid: str, **fields) -> dict:
    ann = lib.annotation(pid)
    rec = {"id": pid, "status": ann.status, "star": ann.star, "tags": ann.tags, "note": ann.note,
           "created": ann.created, "updated": ann.updated, "stamps": dict(ann.stamps)}
    rec.update(fields)
    return rec


@pytest.mark.parametrize("bad", ["zzzz", "9", "2026-13-45T99:99:99"])
def test_a_malformed_stamp_counts_as_no_change_and_is_named(lib, tmp_path, bad):
    pid = lib.corpus.papers[0].id
    lib.marks.set_note(pid, "mine, written just now")
    rec = record(lib, pid, note="theirs", stamps={"note": bad})
    changes, report = plan_merge(lib, their_file(tmp_path, [rec]), "theirs.jsonl")
    assert RecordKey(pid, lib.member) not in changes and any(f"{bad!r}" in w and "not a time" in w for w in report.warnings)
    assert not any("(newer)" in c or "kept" in c for c in report.conflicts)


def test_an_offset_stamp_is_read_as_its_instant(lib, tmp_path):
    pid = lib.corpus.papers[0].id
    lib.marks.set_note(pid, "mine")
    mine = datetime.fromisoformat(lib.annotation(pid).stamps["note"])
    earlier = (mine - timedelta(hours=2)).astimezone(timezone(timedelta(hours=5)))  # later as text, earlier in time
    assert earlier.isoformat() > mine.isoformat()
    rec = record(lib, pid, note="theirs, older", stamps={"note": earlier.isoformat()})
    changes, report = plan_merge(lib, their_file(tmp_path, [rec]), "theirs.jsonl")
    assert RecordKey(pid, lib.member) not in changes or changes[RecordKey(pid, lib.member)].note == "mine"


def test_a_stamp_far_ahead_counts_as_now_at_most_and_is_reported(lib, tmp_path):
    pid = lib.corpus.papers[0].id
    lib.marks.set_note(pid, "mine")
    future = iso(datetime.now(timezone.utc) + timedelta(days=3650))
    rec = record(lib, pid, note="from the future", stamps={"note": future}, created="", updated="")
    changes, report = plan_merge(lib, their_file(tmp_path, [rec]), "theirs.jsonl")  # (no sound time: now)
    assert any("ahead of this machine's clock" in w for w in report.warnings)
    stored = datetime.fromisoformat(changes[RecordKey(pid, lib.member)].stamps["note"])
    assert stored < datetime.now(timezone.utc) + timedelta(minutes=1)  # it cannot block later changes


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_the_same_file_with_future_stamps_merged_again_does_not_beat_a_change_made_since(lib, tmp_path, run_cli):
    """A far-future stamp counts as the file's newest sound change time, not as each merge's now:
    the star set here after the first merge stays when the unchanged file is merged again, even
    copied or touched."""
    import os
    pid, other = lib.corpus.papers[0].id, lib.corpus.papers[1].id
    lib.marks.set_status([other], "read")  # an export holds the other papers' real change times too
    path = tmp_path / "theirs.jsonl"
    path.write_text(json.dumps(record(lib, pid, star=1, stamps={"star": "9999-12-31T23:59:59"})) + "\n"
                    + json.dumps(record(lib, other)) + "\n")
    an_hour_ago = datetime.now(timezone.utc).timestamp() - 3600
    os.utime(path, (an_hour_ago, an_hour_ago))
    first = run_cli("import-annotations", str(path), library=lib.folder)
    assert "ahead of this machine's clock: counted as the file's newest sound one" in first.stdout + first.stderr
    assert Library(lib.folder).annotation(pid).star == 1
    run_cli("star", pid, "3", library=lib.folder)
    run_cli("import-annotations", str(path), library=lib.folder)
    assert Library(lib.folder).annotation(pid).star == 3  # mine, made after the file was written
    os.utime(path)  # copied, downloaded again or touched: the same content
    run_cli("import-annotations", str(path), library=lib.folder)
    assert Library(lib.folder).annotation(pid).star == 3


def test_a_stamp_whose_instant_does_not_exist_is_no_change_not_a_crash(lib, tmp_path, run_cli):
    pid = lib.corpus.papers[0].id
    path = tmp_path / "theirs.jsonl"
    path.write_text(json.dumps(record(lib, pid, star=2, stamps={"star": "0001-01-01T00:00:00+14:00"})) + "\n")
    proc = run_cli("import-annotations", str(path), library=lib.folder, check=False)
    assert "Traceback" not in proc.stderr and "is not a time" in proc.stdout + proc.stderr


def test_naive_stamps_are_utc_with_a_warning():
    warnings: list[str] = []
    clock = Clock()
    out = clock.read({"note": "2026-01-02T03:04:05"}, "p", warnings)
    assert out == {"note": "2026-01-02T03:04:05.000+00:00"} and "read as UTC" in clock.warnings("f")[0]
    assert canonical("2026-12-01T20:00+05:00") == "2026-12-01T15:00:00.000+00:00"


def test_the_report_says_exactly_what_happens_to_each_field(lib, tmp_path):
    pid = lib.corpus.papers[1].id
    lib.marks.add_tags([pid], ["alpha"])
    lib.marks.set_note(pid, "my note")
    lib.marks.set_star([pid], 2)
    other = fork(lib, tmp_path)
    other.marks.remove_tags([pid], ["alpha"])
    other.marks.set_note(pid, "their note instead")
    changes, report = plan_merge(lib, their_file(tmp_path, [record(other, pid)]), "theirs.jsonl")
    said = report.changes[0]
    assert "#alpha removed (theirs)" in said and "note replaced (theirs)" in said
    assert "star" not in said and "timestamps" not in said
    assert report.conflicts == []  # only they changed these: no conflict


def test_duplicate_records_of_one_paper_are_merged_as_one(lib, tmp_path):
    pid = lib.corpus.papers[2].id
    now = datetime.now(timezone.utc)
    first = {"id": pid, "status": "read", "tags": [], "note": "", "star": 0,
             "stamps": {"status": iso(now - timedelta(minutes=2))}}
    second = {"id": pid, "status": "skipped", "tags": [], "note": "", "star": 0,
              "stamps": {"status": iso(now - timedelta(minutes=1))}}
    changes, report = plan_merge(lib, their_file(tmp_path, [first, second]), "theirs.jsonl")
    assert changes[RecordKey(pid, lib.member)].status == "skipped" and report.conflicts == [] and len(report.changes) == 1
    assert any("2 records" in w and "merged as one" in w for w in report.warnings)


def test_a_file_of_papers_this_library_lacks_says_so_once_and_exits_1(lib, run_cli, tmp_path):
    recs = [{"id": f"{i:012x}", "title": "elsewhere", "status": "read"} for i in range(20)]
    (tmp_path / "theirs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    proc = run_cli("import-annotations", str(tmp_path / "theirs.jsonl"), library=lib.folder, check=False)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "import the papers first" in proc.stderr
    empty = tmp_path / "no-library"
    proc = run_cli("import-annotations", str(tmp_path / "theirs.jsonl"), "--dry-run", library=empty, check=False,
                   seed=False)
    assert proc.returncode == 1 and not empty.exists()


def test_a_tag_whose_stamp_is_malformed_is_not_taken_and_stamps_follow_the_tags_name(lib, tmp_path):
    pid = lib.corpus.papers[3].id
    lib.marks.set_note(pid, "mine")
    rec = record(lib, pid, tags=["orig0", "dupA"], stamps={"#orig0": "zzzz", "#dupA": iso(datetime.now(timezone.utc))})
    changes, report = plan_merge(lib, their_file(tmp_path, [rec]), "theirs.jsonl")
    merged = changes[RecordKey(pid, lib.member)]
    assert "orig0" not in merged.tags and "dupa" in merged.tags and "#dupa" in merged.stamps
    assert "#orig0 added" not in report.changes[0] and "#dupa added (theirs)" in report.changes[0]
