"""A library folder is untrusted input: a forged or damaged ``annotations.json`` (a status that is
no status, a star of 10**30, tags that are a string, a note that is a number, a record that is no
record, a history entry that is no entry) never crashes a read command nor reaches the terminal
raw. Each such field is read as its default in memory only (the file is left as found, said once),
``doctor`` names the records and ``doctor --repair`` resets the fields after a backup."""

from __future__ import annotations

import json
import re

import pytest

from store import Library
from store.annotations.journal import ANN, HIST, REDO
from store.records import RecordKey

CLEAR = "\x1b[2J"
TITLE = "\x1b]0;pwned\x07"
GOOD = {"status": "to-read", "star": 2, "tags": ["keepme"], "note": "a good note"}

# (case id, the record's fields as forged; None: the record is not a dict at all, see NOT_DICTS)
FORGED: list[tuple[str, dict]] = [
    ("status-escape", {"status": "read" + CLEAR}),
    ("status-int", {"status": 5}),
    ("star-str", {"star": "x"}),
    ("star-huge", {"star": 10**30}),
    ("star-seven", {"star": 7}),
    ("star-negative", {"star": -1}),
    ("star-bool", {"star": True}),
    ("star-float", {"star": 2.5}),
    ("tags-str", {"tags": "abc"}),
    ("tags-mixed", {"tags": ["keepme", 5, None, {"a": 1}, "x" * 5000]}),
    ("tags-100k", {"tags": ["keepme"] + [f"t{i}" for i in range(100_000)]}),
    ("tags-dict", {"tags": {"keepme": 1}}),
    ("note-int", {"note": 5}),
    ("note-list", {"note": [TITLE]}),
    ("note-huge", {"note": "big " * 13_000_000}),
    ("stamps-list", {"stamps": [1]}),
    ("stamps-values", {"stamps": {"status": 5, "star": CLEAR}}),
    ("paper-id-int", {"paper_id": 5}),
]
NOT_DICTS = [("record-int", 5), ("record-str", "read" + CLEAR), ("record-list", [1, 2])]


def forge(folder, fields: dict | None = None, whole: object = None) -> tuple[str, str]:
    """A library whose first paper's record is forged (``fields`` over a good record, or ``whole``
    in its place) and whose second paper has a good record; written straight into the file, as a
    colleague's forged folder would hold it. Returns the two paper ids."""
    lib = Library.open(folder)
    first, second = (p.id for p in lib.corpus.papers[:2])
    lib.marks.set_star([second], 1)  # (makes annotations.json)
    lib.store.compact()  # everything in annotations.json, nothing in the journal
    path = lib.annotations_path
    data = json.loads(path.read_bytes())
    data[ANN][str(RecordKey(second).doc_id)] = {"paper_id": second, "status": "read", "star": 1, "tags": ["other"],
                                          "note": ""}
    data[ANN][str(RecordKey(first).doc_id)] = whole if fields is None else {"paper_id": first, **GOOD, **fields}
    path.write_text(json.dumps(data))
    return first, second


def assert_clean(text: str) -> None:
    assert "Traceback" not in text, text[-3000:]
    assert "\x1b" not in text and "\x07" not in text, repr(text[:300])


def title_word(folder, pid: str) -> str:
    lib = Library.open(folder)
    title = lib.paper(pid).title
    return max(re.findall(r"[A-Za-z]{5,}", title), key=len)


READS = [("list",), ("list", "--format", "json"), ("list", "--format", "plain"), ("stats",), ("tags",),
         ("team",), ("export", "--format", "json"), ("export", "--format", "md"), ("export", "--format", "csv"),
         ("history",)]


def _check_reads(folder, run_cli, first: str, second: str, shows_good: str | None, warned: bool = True) -> None:
    before = (folder / "annotations.json").read_bytes()
    word = title_word(folder, first)
    outputs = {}
    for args in [*READS, ("show", first), ("show", first, "--format", "json"), ("show", second),
                 ("search", word), ("search", word), ("search", word, "--format", "json")]:
        proc = run_cli(*args, library=folder, check=False)
        assert proc.returncode == 0, (args, proc.stdout[-2000:], proc.stderr[-3000:])
        assert_clean(proc.stdout + proc.stderr)
        if "json" not in args and args[0] != "export":  # (data for scripts and files is whole)
            assert len(proc.stdout) < 3_000_000, (args, len(proc.stdout))  # a 50 MB note is bounded on a terminal
        outputs[args] = proc
    proc = run_cli("doctor", library=folder, check=False)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert_clean(proc.stdout + proc.stderr)
    assert (folder / "annotations.json").read_bytes() == before  # nothing read was written back
    # the other paper's good record is still read, and so are the forged record's good fields
    assert "#other" in outputs[("show", second)].stdout
    if shows_good:
        assert shows_good in outputs[("show", first)].stdout, outputs[("show", first)].stdout[:2000]
        assert shows_good in outputs[("export", "--format", "json")].stdout
    said = outputs[("list",)].stderr
    assert said.count("papersift cannot read") == warned, said  # said once, on stderr


def _good_field(fields: dict) -> str | None:
    """A field of GOOD the forged record still shows (its tag, or its note when the tags are forged)."""
    if "paper_id" in fields:
        return None
    return "a good note" if "tags" in fields else "keepme"


@pytest.mark.parametrize("case, fields", FORGED, ids=[c for c, _ in FORGED])
def test_a_forged_field_never_crashes_a_read_command(tmp_path, run_cli, case, fields):
    folder = tmp_path / "lib"
    first, second = forge(folder, fields)
    # (a note of 50 MB is a string: read as it is, bounded where a terminal shows it, and not said)
    _check_reads(folder, run_cli, first, second, _good_field(fields), warned=case != "note-huge")


@pytest.mark.parametrize("case, whole", NOT_DICTS, ids=[c for c, _ in NOT_DICTS])
def test_a_record_that_is_no_record_is_skipped(tmp_path, run_cli, case, whole):
    folder = tmp_path / "lib"
    first, second = forge(folder, whole=whole)
    _check_reads(folder, run_cli, first, second, None)


@pytest.mark.parametrize("case, fields", [FORGED[0], FORGED[3], FORGED[8], FORGED[10], FORGED[13], FORGED[15]],
                         ids=["status", "star", "tags", "tags-100k", "note", "stamps"])
def test_doctor_names_them_and_repair_resets_the_fields(tmp_path, run_cli, case, fields):
    folder = tmp_path / "lib"
    first, _ = forge(folder, fields)
    proc = run_cli("doctor", library=folder, check=False)
    assert proc.returncode == 1
    assert_clean(proc.stdout + proc.stderr)
    field = next(iter(fields))
    assert re.search(rf"1 annotation with .*{field}", proc.stdout), proc.stdout
    proc = run_cli("doctor", "--repair", library=folder, check=False)
    assert_clean(proc.stdout + proc.stderr)
    assert "annotations.json" in proc.stdout and "reset" in proc.stdout, proc.stdout
    assert list((folder / "backups").glob("annotations.json.*forged*"))  # the file as it was
    rec = json.loads((folder / "annotations.json").read_bytes())[ANN][str(RecordKey(first).doc_id)]
    assert rec["paper_id"] == first and rec["status"] in ("to-read", "unread")
    assert rec["note"] == "a good note" or field == "note"
    assert "keepme" in rec["tags"] or field == "tags" and fields["tags"] == "abc"
    proc = run_cli("doctor", library=folder, check=False)
    assert "cannot read" not in proc.stdout, proc.stdout
    proc = run_cli("list", library=folder)
    assert "cannot read" not in proc.stderr


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_the_repair_puts_back_what_the_newest_backup_holds_readable(tmp_path, run_cli):
    """A status that is no status, and a record replaced by a list, where a backup (a tag rename's)
    holds them as the user had them: the repair puts those back (it reset them to their defaults,
    and dropped the record, though the backup held both)."""
    from store import Library

    folder = tmp_path / "lib"
    lib = Library.open(folder)
    a, b, c = (p.id for p in lib.corpus.papers[:3])
    lib.marks.set_status([a, b, c], "read")
    lib.marks.set_star([a, b, c], 3)
    lib.marks.add_tags([a], ["x"])
    lib.marks.rename_tag("x", "y")  # (a backup of the annotations, the journal folded in)
    lib.store.compact()  # (the rename's own journal line folded too: the snapshot holds every record)
    path = folder / "annotations.json"
    data = json.loads(path.read_bytes())
    data[ANN][str(RecordKey(a).doc_id)]["status"] = "bogus"
    data[ANN][str(RecordKey(b).doc_id)] = [1, 2]
    path.write_text(json.dumps(data))
    proc = run_cli("doctor", "--repair", library=folder, check=False)
    assert proc.returncode == 0, proc.stdout
    assert "reset status of 1 annotation in annotations.json, the rest of each kept: as the newest backup" in proc.stdout
    assert "1 value that is no annotation record: 1 put back from the newest backup holding it" in proc.stdout
    back = Library(folder)
    assert [(back.annotation(p).status, back.annotation(p).star) for p in (a, b, c)] == [("read", 3)] * 3
    assert back.annotation(a).tags == ["y"]
    assert run_cli("doctor", library=folder, check=False).returncode == 0


HISTORY_FORGERIES = [
    ("entry-int", 5),
    ("entry-str", "undo" + CLEAR),
    ("before-list", {"time": "2026-01-01T00:00:00", "action": "star", "label": "star 3", "before": [1],
                     "after": {}}),
    ("label-int", {"time": "2026-01-01T00:00:00", "action": "star", "label": 5, "before": {}, "after": {}}),
    ("label-escape", {"time": "2026-01-01T00:00:00", "action": "star", "label": "star" + TITLE,
                      "before": {}, "after": {}}),
    ("before-record-int", {"time": "2026-01-01T00:00:00", "action": "star", "label": "star 1",
                           "before": {"PID": 5}, "after": {"PID": None}}),
    ("before-key-not-hex", {"time": 5, "action": "star", "label": "star 1",
                            "before": {"zz" + CLEAR: None}, "after": {"zz" + CLEAR: None}}),
]


@pytest.mark.parametrize("case, entry", HISTORY_FORGERIES, ids=[c for c, _ in HISTORY_FORGERIES])
def test_a_forged_history_entry_never_crashes_undo_redo_history(tmp_path, run_cli, case, entry):
    folder = tmp_path / "lib"
    lib = Library.open(folder)
    pid = lib.corpus.papers[0].id
    lib.marks.set_star([pid], 2)  # a real change under the forged one, to undo
    lib.store.compact()
    path = lib.annotations_path
    data = json.loads(path.read_bytes())
    if isinstance(entry, dict):
        entry = json.loads(json.dumps(entry).replace("PID", pid))
    data[HIST]["2"] = entry
    data[HIST]["x"] = entry  # a key that is no number, too
    data[REDO]["1"] = entry
    path.write_text(json.dumps(data))
    before = path.read_bytes()
    for args in [("history",), ("history", "--format", "json"), ("doctor",)]:
        proc = run_cli(*args, library=folder, check=False)
        assert proc.returncode in (0, 1) and (proc.returncode == 0 or args == ("doctor",)), proc.stderr[-3000:]
        assert_clean(proc.stdout + proc.stderr)
    assert path.read_bytes() == before
    assert "star 2" in run_cli("history", library=folder).stdout  # the real entry is listed
    for args in [("redo",), ("undo",), ("undo",), ("redo",)]:
        proc = run_cli(*args, library=folder, check=False)
        assert proc.returncode in (0, 1), proc.stderr[-3000:]
        assert_clean(proc.stdout + proc.stderr)
        assert len((proc.stdout + proc.stderr).strip().splitlines()) <= 3, proc.stdout + proc.stderr
    assert Library.open(folder).annotation(pid).star == 2  # the real change is in effect at the end
    proc = run_cli("doctor", "--repair", library=folder, check=False)
    assert "malformed undo entr" in proc.stdout and list((folder / "backups").glob("*malformed*")), proc.stdout
    assert "malformed" not in run_cli("doctor", library=folder, check=False).stdout
    assert "star 2" in run_cli("history", library=folder).stdout
