"""A colleague's team file, through the real `papersift` command: a mark cleared travels to the lead
as a change, a bad record of any field is refused by file and line before anything merges (the
library byte for byte as it was), several files merge as one step, and unknown papers are counted,
not listed by the hundred thousand."""

from __future__ import annotations

import hashlib
import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest


def ids_of(run_cli, *args: str, library: Path) -> list[str]:
    return [r["id"] for r in json.loads(run_cli("list", "--format", "json", *args, library=library).stdout)]


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file of a library folder (backups included) by its bytes' hash."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != "papersift.lock"}


def team_file(path: Path, member: str, records: list[dict]) -> Path:
    lines = [json.dumps({"format": "papersift-team", "member": member, "version": 1}, sort_keys=True)]
    lines += [json.dumps({"member": member, **rec}, sort_keys=True) for rec in records]
    path.write_text("\n".join(lines) + "\n")
    return path


def no_traceback(proc) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]


@pytest.fixture
def lead(run_cli, lib) -> Path:
    """The sample library (35 papers), as the lab's lead holds it."""
    return lib.folder


def test_a_cleared_star_and_tag_reach_the_lead(run_cli, lead, tmp_path):
    ana = tmp_path / "ana"
    shutil.copytree(lead, ana)
    pid, other = ids_of(run_cli, library=ana)[:2]
    run_cli("--as", "ana", "star", pid, "3", library=ana)
    run_cli("--as", "ana", "tag", pid, "rl", library=ana)
    run_cli("--as", "ana", "status", other, "read", library=ana)
    first = tmp_path / "ana1.json"
    run_cli("--as", "ana", "export", "--format", "team", "-o", str(first), library=ana)
    run_cli("import-annotations", str(first), library=lead)
    assert ids_of(run_cli, "--query", "star-by:ana", library=lead) == [pid]
    # ana takes both back: her record of the paper is at its defaults again
    run_cli("--as", "ana", "star", pid, "0", library=ana)
    run_cli("--as", "ana", "tag", pid, "rl", "--remove", library=ana)
    second = tmp_path / "ana2.json"
    run_cli("--as", "ana", "export", "--format", "team", "-o", str(second), library=ana)
    cleared = [json.loads(x) for x in second.read_text().splitlines()[1:] if json.loads(x)["id"] == pid]
    assert cleared and cleared[0]["star"] == 0 and cleared[0]["tags"] == [] and "star" in cleared[0]["stamps"]
    said = run_cli("import-annotations", str(second), library=lead).stdout
    assert "star 3 -> 0" in said and "#rl removed" in said
    assert ids_of(run_cli, "--query", "star-by:ana", library=lead) == []
    assert ids_of(run_cli, "--query", "by:ana", library=lead) == [other]
    # the older file again, or both in either order: the clearing is the newer change and stays
    run_cli("import-annotations", str(first), library=lead)
    run_cli("import-annotations", str(second), str(first), library=lead)
    assert ids_of(run_cli, "--query", "by:ana", library=lead) == [other]
    shown = json.loads(run_cli("show", pid, "--format", "json", library=lead).stdout)
    assert all(m["member"] != "ana" or (m["star"] == 0 and not m["tags"]) for m in shown.get("team", []))
    # a cleared record is a change time, never a mark: every count, filter and export says so
    for folder, member in ((lead, "ana"), (ana, "ana")):
        rows = {r["member"]: r for r in json.loads(run_cli("team", "--format", "json", library=folder).stdout)["members"]}
        assert rows["ana"]["stars"] == 0 and rows["ana"]["triaged"] == 1 and rows["ana"]["starred"] == 0
        mine = ["--as", member]
        stats = json.loads(run_cli(*mine, "stats", "--format", "json", library=folder).stdout)
        assert stats["status"]["read"] == 1 and stats["status"]["unread"] == 34 and not stats.get("tags")
        assert ids_of(run_cli, *mine, "--query", f"by:{member}", library=folder) == [other]
        assert ids_of(run_cli, *mine, "--query", "star:>=1", library=folder) == []
        assert ids_of(run_cli, *mine, "--query", "-status:unread", library=folder) == [other]
        md = run_cli(*mine, "export", "--team", "1", library=folder, check=False)
        assert pid not in md.stdout
    # the lead's own team file of ana's marks carries the clearing on (a third machine hears of it)
    relay = run_cli("--as", "ana", "export", "--format", "team", library=lead).stdout
    assert any(json.loads(x)["id"] == pid for x in relay.splitlines()[1:])


def test_a_cleared_mark_is_no_annotation_of_the_untouched_sample(run_cli, tmp_path):
    """Star a sample paper and take the star back: the sample is still untouched, and the first
    import of one's own papers replaces it as it always did."""
    from ..conftest import DATA
    folder = tmp_path / "fresh"
    pid = ids_of(run_cli, library=folder)[0]
    run_cli("star", pid, "2", library=folder)
    run_cli("star", pid, "0", library=folder)
    run_cli("import", str(DATA / "iclr_slice.jsonl"), library=folder)
    assert pid not in ids_of(run_cli, library=folder)  # the sample went: nothing of it was annotated


BAD = {  # a field of a record -> a value of the wrong kind, and the word the error names
    "conflicts": (5, "conflicts"),
    "created": (5, "created"),
    "updated": ([1], "updated"),
    "title": (5, "title"),
    "status": (5, "status"),
    "star": ("3", "star"),
    "tags": ("rl", "tags"),
    "note": (5, "note"),
    "stamps": (5, "stamps"),
    "member": (5, "member"),
    "assignee": (5, "assignee"),
    "id": (5, "id"),
}


def test_a_bad_field_of_any_kind_is_refused_by_file_and_line_and_changes_nothing(run_cli, lead, tmp_path):
    pid, other = ids_of(run_cli, library=lead)[:2]
    run_cli("--as", "ana", "star", pid, "1", library=lead)  # the lead has ana's record: a merge compares with it
    good = {"id": other, "status": "read", "star": 0, "tags": [], "note": "", "created": "2026-01-01T00:00:00.000+00:00",
            "updated": "2026-01-01T00:00:00.000+00:00", "stamps": {"status": "2026-01-01T00:00:00.000+00:00"}}
    later = datetime.now(timezone.utc).isoformat(timespec="milliseconds")  # (after the lead's star)
    bad_rec = {**good, "id": pid, "star": 2, "stamps": {"star": later}}
    cases = {name: {**bad_rec, name: value} for name, (value, _) in BAD.items()}
    cases["conflicts item"] = {**bad_rec, "conflicts": [{"field": 5}]}
    cases["stamp value"] = {**bad_rec, "stamps": {"star": 5}}
    cases["long note"] = {**bad_rec, "note": "x" * 10_000_000}
    cases["many tags"] = {**bad_rec, "tags": [f"t{i}" for i in range(100_000)]}
    cases["NUL"] = {**bad_rec, "note": "a\u0000b"}
    words = {**{k: w for k, (_, w) in BAD.items()}, "conflicts item": "conflicts", "stamp value": "stamps",
             "long note": "note", "many tags": "tags", "NUL": "note"}
    before = fingerprint(lead)
    for name, rec in cases.items():
        path = team_file(tmp_path / "ana.json", "ana", [good, rec])
        proc = run_cli("import-annotations", str(path), library=lead, check=False)
        no_traceback(proc)
        assert proc.returncode == 1, (name, proc.stdout[-300:])
        said = proc.stderr.strip()
        assert "\n" not in said and "ana.json, line 3" in said and words[name] in said, (name, said[:300])
        assert fingerprint(lead) == before, name
    # a JSON Lines export (not a team file) is checked the same way
    plain = tmp_path / "theirs.jsonl"
    plain.write_text(json.dumps(good) + "\n" + json.dumps({**bad_rec, "created": 5}) + "\n")
    proc = run_cli("import-annotations", str(plain), library=lead, check=False)
    no_traceback(proc)
    assert proc.returncode == 1 and "theirs.jsonl, line 2" in proc.stderr and "created" in proc.stderr
    assert fingerprint(lead) == before
    # and a good file still merges afterwards
    run_cli("import-annotations", str(team_file(tmp_path / "ok.json", "ana", [good, bad_rec])), library=lead)
    assert ids_of(run_cli, "--query", "star-by:ana:>=2", library=lead) == [pid]


def _members_files(run_cli, lead: Path, tmp_path: Path) -> tuple[list[Path], list[str]]:
    ids = ids_of(run_cli, library=lead)
    files = []
    for k, member in enumerate(("ana", "ben", "chen")):
        recs = [{"id": pid, "status": "read", "star": 1 + k, "tags": [member], "note": "", "created": "2026-01-01T00:00:00.000+00:00",
                 "updated": "2026-01-0%dT00:00:00.000+00:00" % (k + 1),
                 "stamps": {"status": "2026-01-01T00:00:00.000+00:00", "star": "2026-01-01T00:00:00.000+00:00",
                            "#" + member: "2026-01-01T00:00:00.000+00:00"}} for pid in ids[k * 5:k * 5 + 5]]
        files.append(team_file(tmp_path / f"{member}.json", member, recs))
    return files, ids


def test_several_files_are_one_step_all_or_none(run_cli, lead, tmp_path):
    files, ids = _members_files(run_cli, lead, tmp_path)
    # a third file that goes wrong only once the first two are merged: ana's record the first
    # file made, met by a creation time that is no time
    bad = team_file(tmp_path / "bad.json", "ana", [{"id": ids[0], "status": "read", "star": 3, "tags": [],
                                                     "note": "", "created": 5, "updated": "",
                                                     "stamps": {"star": "2026-02-01T00:00:00.000+00:00"}}])
    before = fingerprint(lead)
    proc = run_cli("import-annotations", str(files[0]), str(files[1]), str(bad), library=lead, check=False)
    no_traceback(proc)
    assert proc.returncode == 1 and "bad.json" in proc.stderr
    assert fingerprint(lead) == before
    assert ids_of(run_cli, "--query", "by:ana", library=lead) == []
    # three good files: one undo step takes all of them back
    run_cli("import-annotations", *map(str, files), library=lead)
    assert len(ids_of(run_cli, "--query", "by:ana by:ben by:chen", library=lead)) == 0
    assert all(len(ids_of(run_cli, "--query", f"by:{m}", library=lead)) == 5 for m in ("ana", "ben", "chen"))
    history = json.loads(run_cli("history", "--format", "json", library=lead).stdout)
    imports = [h for h in history if "import annotations" in json.dumps(h)]
    assert len(imports) == 1, imports
    run_cli("undo", library=lead)
    assert all(ids_of(run_cli, "--query", f"by:{m}", library=lead) == [] for m in ("ana", "ben", "chen"))


def test_an_empty_file_is_refused_by_name_and_changes_nothing(run_cli, lead, tmp_path):
    """An empty file (the wrong one, or one cut short) was read as 0 records, exit 0, where `import`
    refuses it."""
    files, _ = _members_files(run_cli, lead, tmp_path)
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "blank.jsonl").write_text("\n  \n")
    (tmp_path / "empty.json").write_bytes(b"")  # (said "invalid JSON: Input is a zero-length, empty document")
    before = fingerprint(lead)
    for name in ("empty.jsonl", "blank.jsonl", "empty.json"):
        proc = run_cli("import-annotations", str(files[0]), str(tmp_path / name), library=lead, check=False)
        no_traceback(proc)
        assert proc.returncode == 1 and f"{name}: no annotations found (the file is empty)" in proc.stderr, proc.stderr
    assert fingerprint(lead) == before


def test_unknown_papers_are_counted_and_a_few_named(run_cli, lead, tmp_path):
    known = ids_of(run_cli, library=lead)[0]
    recs = [{"id": known, "status": "read", "stamps": {"status": "2026-01-01T00:00:00.000+00:00"}}]
    recs += [{"id": f"{i:012x}", "status": "read", "stamps": {"status": "2026-01-01T00:00:00.000+00:00"}}
             for i in range(5000)]
    path = team_file(tmp_path / "ana.json", "ana", recs)
    proc = run_cli("import-annotations", str(path), library=lead)
    lines = proc.stdout.splitlines()
    assert len(lines) < 30, len(lines)
    assert "5,000 unknown" in proc.stdout or "5000 unknown" in proc.stdout
    assert "and 4,990 more" in proc.stdout
    assert ids_of(run_cli, "--query", "by:ana", library=lead) == [known]


def test_a_library_holding_a_bad_creation_time_still_merges(run_cli, lead, tmp_path):
    """A record an older papersift stored unchecked (``"created": 5``) no longer stops the next
    legitimate import with a traceback."""
    from store import Library
    pid = ids_of(run_cli, library=lead)[0]
    run_cli("--as", "ana", "star", pid, "1", library=lead)
    lib = Library(lead)
    lib.store.compact()
    data = json.loads(lib.annotations_path.read_text())
    for rec in data["annotations"].values():
        rec.update(created=5, updated=[1], conflicts=7)
    lib.annotations_path.write_text(json.dumps(data))
    later = datetime.now(timezone.utc).isoformat(timespec="milliseconds")  # (after ana's star here)
    path = team_file(tmp_path / "ana.json", "ana", [{"id": pid, "star": 3, "created": later, "updated": later,
                                                      "stamps": {"star": later}}])
    proc = run_cli("import-annotations", str(path), library=lead, check=False)
    no_traceback(proc)
    assert proc.returncode == 0 and ids_of(run_cli, "--query", "star-by:ana:>=3", library=lead) == [pid]


def test_a_members_own_newer_change_is_no_conflict(run_cli, lead, tmp_path):
    """ana starred a paper before the lead copied the library, then took the star back: the lead's
    import takes it back without a conflict (only ana changes ana's marks), in either order."""
    pid = ids_of(run_cli, library=lead)[0]
    run_cli("--as", "ana", "star", pid, "3", library=lead)
    ana = tmp_path / "ana"
    shutil.copytree(lead, ana)
    old = tmp_path / "ana-old.json"
    run_cli("--as", "ana", "export", "--format", "team", "-o", str(old), library=ana)
    run_cli("--as", "ana", "star", pid, "0", library=ana)
    new = tmp_path / "ana-new.json"
    run_cli("--as", "ana", "export", "--format", "team", "-o", str(new), library=ana)
    said = run_cli("import-annotations", str(new), library=lead).stdout + \
        run_cli("import-annotations", str(old), library=lead).stdout
    assert "conflict" not in said.lower(), said
    assert ids_of(run_cli, "--query", "star-by:ana", library=lead) == []
    shown = json.loads(run_cli("--as", "ana", "show", pid, "--format", "json", library=lead).stdout)
    assert not shown.get("conflicts"), shown.get("conflicts")


@pytest.mark.slow  # (several commands)
def test_a_colleagues_export_is_not_taken_as_your_marks(run_cli, lead, tmp_path):
    """ana's JSON export of a lab's library, imported by ben, made her skipped and read papers
    ben's, with no word said. Its records' team lists name whose marks they are: ben is told, and
    nothing changes; `--as ana` takes them as hers."""
    ids = ids_of(run_cli, library=lead)[:3]
    run_cli("--as", "ben", "star", ids[2], "1", library=lead)  # (a lab: ben is a member here)
    run_cli("--as", "ana", "status", ids[0], ids[1], "skipped", library=lead)
    run_cli("--as", "ana", "star", ids[0], "2", library=lead)
    export = tmp_path / "ana.json"
    run_cli("--as", "ana", "export", "--format", "json", "--query", "by:ana", "-o", str(export), library=lead)
    before = fingerprint(lead)
    proc = run_cli("--as", "ben", "import-annotations", str(export), library=lead, check=False)
    no_traceback(proc)
    assert proc.returncode == 1 and "holds ana's marks" in proc.stderr and "--as ana import-annotations" in proc.stderr
    assert fingerprint(lead) == before and ids_of(run_cli, "--query", "status-by:ben:skipped", library=lead) == []
    said = run_cli("--as", "ana", "import-annotations", str(export), library=lead).stdout
    assert "already up to date" in said
