"""Annotations: durable writes, persistent undo, tags, crash safety, two processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from store import Library, PapersiftError
from store.errors import CorruptFileError


def first_ids(lib, n=3):
    return [p.id for p in lib.corpus.papers[:n]]


def test_every_write_is_on_disk_before_return(lib):
    a, b, _ = first_ids(lib)
    lib.set_status([a], "read")
    lib.bump_star([a], 1)
    lib.bump_star([a], 1)
    lib.add_tags([a, b], ["Deep RL", "vision"])
    lib.set_note(b, "line one\nline two")
    fresh = Library(lib.folder)  # a new process would see exactly this
    assert fresh.annotation(a).status == "read" and fresh.annotation(a).star == 2
    assert fresh.annotation(a).tags == ["deep-rl", "vision"]
    assert fresh.annotation(b).note == "line one\nline two"
    assert fresh.annotation(a).created and fresh.annotation(a).updated


def test_star_is_clamped_and_bad_values_refused(lib):
    a = first_ids(lib, 1)[0]
    lib.bump_star([a], 1); lib.bump_star([a], 1); lib.bump_star([a], 1); lib.bump_star([a], 1)
    assert lib.annotation(a).star == 3
    with pytest.raises(PapersiftError):
        lib.set_star([a], 4)
    with pytest.raises(PapersiftError):
        lib.set_status([a], "done")


def test_undo_is_repeatable_and_survives_restart(lib):
    a, b, c = first_ids(lib)
    lib.set_status([a], "read")
    lib.set_status([a, b, c], "skipped")
    lib.add_tags([b], ["x"])
    reopened = Library(lib.folder)
    assert reopened.undo() == "tag +x"
    assert reopened.undo() == "status skipped on 3 papers"
    assert [reopened.annotation(i).status for i in (a, b, c)] == ["read", "unread", "unread"]
    assert reopened.undo() == "status read"
    assert reopened.undo() is None
    assert Library(lib.folder).annotations == {}


def test_default_annotations_are_not_stored(lib):
    a = first_ids(lib, 1)[0]
    lib.set_status([a], "read")
    lib.set_status([a], "unread")
    data = json.loads(lib.annotations_path.read_text())
    assert data["annotations"] == {}
    assert data["meta"]["1"]["format"] == "papersift-annotations"


def test_tag_rename_merge_and_counts(lib):
    a, b, c = first_ids(lib)
    lib.add_tags([a, b], ["rl"])
    lib.add_tags([b, c], ["reinforcement"])
    assert lib.tag_counts() == {"rl": 2, "reinforcement": 2}
    lib.merge_tags(["reinforcement"], "rl")
    assert lib.tag_counts() == {"rl": 3}
    assert lib.annotation(b).tags == ["rl"]
    lib.rename_tag("rl", "reinforcement-learning")
    assert lib.tag_counts() == {"reinforcement-learning": 3}
    assert list((lib.folder / "backups").glob("annotations.json.*rename-tag.bak"))


def test_corrupt_annotations_file_is_refused_not_overwritten(lib):
    a = first_ids(lib, 1)[0]
    lib.set_status([a], "read")
    lib.annotations_path.write_text('{"annotations": {"1": {"paper_id"')  # truncated
    with pytest.raises(CorruptFileError, match="annotations.json: not valid JSON"):
        Library(lib.folder)
    assert lib.annotations_path.read_text() == '{"annotations": {"1": {"paper_id"'


def test_newer_schema_is_refused(lib):
    lib.set_status(first_ids(lib, 1), "read")
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
        lib.set_star([ids[i % len(ids)]], (i // len(ids)) % 4)
        print(i, flush=True)
        i += 1
""")


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
        lib.add_tags([ids[i % len(ids)]], [sys.argv[2] + str(i)])
""")


def test_two_processes_lose_no_update(lib, tmp_path):
    script = tmp_path / "two.py"
    script.write_text(TWO)
    procs = [subprocess.Popen([sys.executable, str(script), str(lib.folder), tag]) for tag in ("a", "b")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    counts = Library(lib.folder).tag_counts()
    assert sum(counts.values()) == 80 and len(counts) == 80
