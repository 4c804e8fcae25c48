"""A library folder is untrusted input: its links are never followed (before or during a write),
every file papersift makes in it is private whatever the umask, and a library is never made in a
folder of other files."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np

import pytest

from store import Library, PapersiftError
from store.files.atomic import atomic_write_bytes
from store.doctor import run_doctor
from store.errors import LinkRefusedError

from ..conftest import SEEDS


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.fixture
def victim(tmp_path):
    """A file of the user's outside the library, that a shared folder's link points at."""
    target = tmp_path / "victim" / "bashrc"
    target.parent.mkdir()
    target.write_text("export PATH=$HOME/bin:$PATH\n")
    return target


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_every_file_and_folder_made_in_a_library_is_private(tmp_path, umask_022):
    lib = Library.open(tmp_path / "lib")
    ids = [p.id for p in lib.corpus.papers]
    lib.marks.set_note(ids[0], "my private thoughts")  # the journal holds every note's text
    lib.marks.set_status(ids[:12], "read")  # a bulk change: a backup first
    lib.search.find("graph")
    made = [lib.folder, *lib.folder.iterdir(), *(lib.folder / "backups").iterdir()]
    names = {p.name for p in made}
    assert {"annotations.json.journal", ".lock", "corpus.jsonl", "index.cache"} <= names
    assert any(n.endswith(".acked") for n in names)
    loose = {p.name: oct(mode(p)) for p in made if mode(p) & 0o077}
    assert loose == {}
    assert run_doctor(lib.folder).ok.count("files private to their owner (0600, folders 0700)") == 1


def test_doctor_repair_tightens_an_older_librarys_modes(tmp_path):
    lib = Library.open(tmp_path / "lib")
    lib.marks.set_note(lib.corpus.papers[0].id, "n")
    journal = next(lib.folder.glob("annotations.json*"))
    os.chmod(journal, 0o644)
    os.chmod(lib.folder, 0o755)
    report = run_doctor(lib.folder)
    assert any("other users can read" in p for p in report.problems) and not report.healthy
    report = run_doctor(lib.folder, repair=True)
    assert report.healthy and mode(journal) == 0o600 and mode(lib.folder) == 0o700


def test_a_cache_linked_out_of_the_library_is_never_written_through(tmp_path, victim, run_cli):
    """The attack: index.cache replaced by a link to ../victim/bashrc, then a read-only search."""
    lib = Library.open(tmp_path / "lib")
    before = victim.read_bytes()
    lib.index_path.unlink()
    lib.index_path.symlink_to(victim)
    proc = run_cli("search", "graph", "--format", "json", library=lib.folder)
    assert proc.returncode == 0 and victim.read_bytes() == before
    assert not lib.index_path.is_symlink()  # the link was replaced by the cache itself


@pytest.mark.parametrize("name", ["corpus.jsonl", "annotations.json", "annotations.json.journal", ".lock",
                                  "backups"])
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_data_file_that_is_a_link_is_refused_by_name(tmp_path, victim, name, run_cli):
    lib = Library.open(tmp_path / "lib")
    lib.marks.set_note(lib.corpus.papers[0].id, "n")
    path = lib.folder / name
    if path.is_dir():
        import shutil
        shutil.rmtree(path)
        path.symlink_to(victim.parent, target_is_directory=True)
    else:
        path.unlink(missing_ok=True)
        path.symlink_to(victim)
    before = victim.read_bytes()
    with pytest.raises(LinkRefusedError, match=f"{name} is a link; papersift does not follow links"):
        Library(lib.folder)
    proc = run_cli("status", lib.corpus.papers[1].id, "read", library=lib.folder, check=False)
    assert proc.returncode == 1 and f"{name} is a link" in proc.stderr and "Traceback" not in proc.stderr
    assert victim.read_bytes() == before and sorted(victim.parent.iterdir()) == [victim]
    report = run_doctor(lib.folder)
    assert any(f"{name} is a link" in p for p in report.problems)
    report = run_doctor(lib.folder, repair=True)  # a data file's link is left for the user, and never read
    assert report.healthy == (name == ".lock") and victim.read_bytes() == before  # (a lock link is removed)
    if name != ".lock":  # (the repair said two problems and nothing of what to do)
        assert any(f"{name} is a link" in p and "replace it with a copy of what it leads to" in p for p in report.problems)
    assert not any(b"export PATH" in f.read_bytes() for f in (lib.folder / "backups").glob("*")
                   if f.is_file() and not f.is_symlink()) if (lib.folder / "backups").is_dir() else True


def test_a_link_swapped_in_during_a_session_is_replaced_not_written_through(tmp_path, victim):
    lib = Library.open(tmp_path / "lib")
    lib.marks.set_note(lib.corpus.papers[0].id, "something to back up")
    lib.search.find("graph")
    before = victim.read_bytes()
    lib.index_path.unlink()
    lib.index_path.symlink_to(victim)  # while the library is open
    lib.index_cache.build()
    assert victim.read_bytes() == before and not lib.index_path.is_symlink()
    backups = lib.folder / "backups"
    import shutil
    shutil.rmtree(backups, ignore_errors=True)
    backups.symlink_to(victim.parent, target_is_directory=True)
    with pytest.raises(LinkRefusedError):
        lib.marks.set_status([p.id for p in lib.corpus.papers][:12], "read")  # a bulk change backs up first
    assert sorted(victim.parent.iterdir()) == [victim]


def test_an_atomic_write_replaces_a_link_and_keeps_its_target(tmp_path, victim):
    link = tmp_path / "export.md"
    link.symlink_to(victim)
    atomic_write_bytes(link, b"# reading list\n")
    assert victim.read_text().startswith("export PATH") and link.read_bytes() == b"# reading list\n"
    assert not link.is_symlink() and mode(link) == 0o600


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_library_is_never_made_in_a_folder_of_other_files(tmp_path, run_cli):
    home = tmp_path / "home"
    home.mkdir()
    (home / "thesis.tex").write_text("x")
    with pytest.raises(PapersiftError, match="holds other files .* no papersift library"):
        Library.open(home)
    proc = run_cli("import", str(SEEDS), library=home, check=False)
    assert proc.returncode == 1 and "a library is made only in a new or empty folder" in proc.stderr
    assert sorted(p.name for p in home.iterdir()) == ["thesis.tex"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert len(Library.open(empty)) == 35  # an empty folder is fine


@pytest.mark.parametrize("claim", ["9999999999999999", "-8", "7"])
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_cache_claiming_absurd_lengths_is_rebuilt_not_believed(tmp_path, run_cli, claim):
    """An index.cache whose sections claim more bytes than the file holds (or negative, or not a
    whole number of items): the one-shot search, the full search and doctor rebuild it."""
    import re
    lib = Library.open(tmp_path / "lib")
    raw = lib.index_path.read_bytes()
    stamp, _, rest = raw.partition(b"\n")
    header, _, body = rest.partition(b"\n")
    forged = re.sub(rb"(meta:q:\d+:)\d+", rb"\g<1>" + claim.encode(), header)
    forged = re.sub(rb"(docs:i:\d+:)\d+", rb"\g<1>" + claim.encode(), forged)
    assert forged != header
    lib.index_path.write_bytes(stamp + b"\n" + forged + b"\n" + body)
    for args in (["search", "graph", "--format", "json"], ["list", "--query", "graph", "--format", "json"],
                 ["doctor"], ["doctor", "--repair"]):
        proc = run_cli(*args, library=lib.folder, check=False)
        assert proc.returncode == 0 and "MemoryError" not in proc.stderr and "Traceback" not in proc.stderr, args
    assert Library(lib.folder).index_cache.read_cache() is not None  # rebuilt


@pytest.mark.parametrize("section", ["docs", "tf", "norms", "titles", "terms"])
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_cache_garbled_under_a_sound_header_is_rebuilt_not_believed(tmp_path, run_cli, section):
    """Bytes of one section replaced, every length still true: the full search checks each
    section's CRC-32 and rebuilds, so its results are the true ones and nothing crashes."""
    import random

    from store.search.packfile import PackReader, stamp_matches
    lib = Library.open(tmp_path / "lib")
    truth = run_cli("list", "--query", "graph neural", "--format", "json", library=lib.folder).stdout
    with open(lib.index_path, "rb") as fh:
        assert stamp_matches(fh, lib.corpus.generation)
        reader = PackReader(fh)
        _, offset, length = reader.sections[section]
        start = reader.base + offset
    raw = bytearray(lib.index_path.read_bytes())
    rng = random.Random(7)
    for i in range(start, start + length, max(1, length // 200)):
        raw[i] = rng.randrange(256)
    lib.index_path.write_bytes(bytes(raw))
    assert Library(lib.folder).index_cache.read_cache() is None  # not believed
    assert "search index cache: damaged, not used" in run_cli("doctor", library=lib.folder).stdout
    proc = run_cli("list", "--query", "graph neural", "--format", "json", library=lib.folder, check=False)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr and proc.stdout == truth
    assert Library(lib.folder).index_cache.read_cache() is not None  # rebuilt by that search


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_the_export_dialogs_replace_never_writes_through_a_link_swapped_in(tmp_path, victim, monkeypatch):
    """The file exists, "Replace it?" is open, and meanwhile the file becomes a link to another
    file of the user's: yes replaces the link, and that file stays as it was."""
    from tui.app import make_app
    from tui.screens.confirm import ConfirmScreen
    from tui.screens.export import ExportScreen

    from ..conftest import wait_workers
    monkeypatch.setenv("PAPERSIFT_NO_SYSTEM_CLIPBOARD", "1")
    monkeypatch.setenv("HOME", str(tmp_path))
    lib = Library.open(tmp_path / "lib")
    dest = tmp_path / "list.md"
    dest.write_text("an earlier list")
    before = victim.read_bytes()
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    async with app.run_test(size=(160, 45)) as pilot:
        await wait_workers(app, pilot)
        await pilot.press("x")
        await pilot.pause()
        export = app.screen
        assert isinstance(export, ExportScreen)
        export.query_one("#scope-all").value = True
        export.query_one("#dest").value = str(dest)
        await pilot.pause()
        export.action_run()
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        dest.unlink()
        dest.symlink_to(victim)  # swapped in while the question is open
        await pilot.press("y")
        await pilot.pause()
    assert victim.read_bytes() == before
    assert not dest.is_symlink() and dest.read_text().startswith("# Reading list")


@pytest.mark.parametrize("name", ["annotations.json.journal", "annotations.json.acked"])
def test_a_hard_link_in_the_library_is_never_written_in_place(tmp_path, victim, name):
    """The journal and the ack mark are written in place: one that is a hard link to a file of
    the user's is first made a file of its own, and the other name keeps its bytes and mode."""
    lib = Library.open(tmp_path / "lib")
    lib.marks.set_note(lib.corpus.papers[0].id, "n")
    path = lib.folder / name
    path.unlink(missing_ok=True)
    os.link(victim, path)
    before, before_mode = victim.read_bytes(), mode(victim)
    Library(lib.folder).marks.add_tags([lib.corpus.papers[1].id], ["bar"])
    run_doctor(lib.folder, repair=True)
    assert victim.read_bytes() == before and mode(victim) == before_mode
    assert os.stat(path).st_nlink == 1
    assert "bar" in Library(lib.folder).annotation(lib.corpus.papers[1].id).tags


def test_a_folder_holding_only_dot_files_is_not_empty(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("x")
    with pytest.raises(PapersiftError, match="holds other files"):
        Library.open(home)


def test_a_link_in_backups_is_no_backup_and_repair_removes_only_the_link(tmp_path, victim):
    lib = Library.open(tmp_path / "lib")
    lib.marks.set_status([p.id for p in lib.corpus.papers][:12], "read")  # a backup of annotations.json
    lib.marks.set_status([p.id for p in lib.corpus.papers][:12], "to-read")  # (now there is a file to back up)
    link = lib.folder / "backups" / "annotations.json.20990101T000000Z.bulk-status.bak"
    link.symlink_to(victim)
    from store.annotations.backups import list_backups
    assert link not in list_backups(lib.annotations_path)
    report = run_doctor(lib.folder)
    assert any("1 link in backups/" in p for p in report.problems)
    before = victim.read_bytes()
    repaired = run_doctor(lib.folder, repair=True)
    assert repaired.healthy and not link.is_symlink() and victim.read_bytes() == before


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_big_corpus_is_mapped_and_reads_saves_and_imports_as_one_read(tmp_path, monkeypatch):
    """A corpus file past nofollow.MAP_FROM is mapped, not read (no private copy at 300k papers):
    the same papers, a triage, an import and its save, and the old mapping stays whole while the
    file is replaced by the save (papersift only ever renames a new file over it)."""
    import mmap

    from store.files import nofollow
    from store.corpus import Corpus
    lib = Library.open(tmp_path / "read")
    want = [p.to_record() for p in lib.corpus]
    monkeypatch.setattr(nofollow, "MAP_FROM", 0)
    mapped = Corpus.load(lib.corpus_path)
    assert isinstance(mapped.papers._data, mmap.mmap)
    assert [p.to_record() for p in mapped] == want
    again = Library.open(tmp_path / "read", seed_if_new=False)
    assert isinstance(again.corpus.papers._data, mmap.mmap)
    again.marks.set_status([want[3]["id"]], "read")
    (tmp_path / "day.txt").write_text("DAY\n\n" + "A mapped corpus takes new papers as a read one does, "
                                      "and every paper before them stays exactly as it was written.\n")
    summary = again.paper_changes.import_paths([tmp_path / "day.txt"])
    assert summary.new == 1
    assert [p.to_record() for p in mapped] == want  # the file under it was replaced, not rewritten
    fresh = Library.open(tmp_path / "read", seed_if_new=False)
    assert [p.to_record() for p in fresh.corpus][:len(want)] == want and len(fresh.corpus) == len(want) + 1
    assert fresh.annotation(want[3]["id"]).status == "read"
    lib.corpus_path.write_bytes(lib.corpus_path.read_bytes().rstrip(b"\n"))  # cut before its last newline
    assert len(Corpus.load(lib.corpus_path)) == len(want) + 1


def _rss_file_mb() -> float:
    """This process's resident pages of mapped files (Linux), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssFile:"):
            return int(line.split()[1]) / 1024
    pytest.skip("no RssFile in /proc/self/status")


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_whole_file_scan_of_a_mapping_leaves_its_pages_to_the_page_cache(tmp_path, monkeypatch):
    """Finding a corpus's lines and checking an index's sections read every page of a mapped
    file: at 300k papers that left 700 MB counted as the app's memory for the session. The pages
    go back as the scan goes, and the papers and postings read the same afterwards."""
    import mmap

    from store.files import nofollow
    from store.corpus import line_starts
    from store.search.packfile import PackReader, file_bytes, pack

    monkeypatch.setattr(nofollow, "RELEASE_EVERY", 4 << 20)
    lines = [b"%08d " % i + b"x" * 120 + b"\n" for i in range(400_000)]  # ~52 MB
    (tmp_path / "big").write_bytes(b"".join(lines))
    with open(tmp_path / "big", "rb") as fh:
        data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    before = _rss_file_mb()
    starts = line_starts(data)
    assert _rss_file_mb() - before < 10  # (it was the file's 52 MB)
    assert len(starts) == 400_001 and data[starts[123_456]:starts[123_457]] == lines[123_456]

    section = np.arange(12_000_000, dtype=np.int32)  # 48 MB
    (tmp_path / "pack").write_bytes(b"".join(pack([("a", "i", section), ("b", "s", "tail")])))
    with open(tmp_path / "pack", "rb") as fh:
        reader = PackReader(fh)
        mapped = file_bytes(fh, reader.base)
    before = _rss_file_mb()
    reader.check_in("a", mapped)
    reader.check_in("b", mapped)
    assert _rss_file_mb() - before < 10
    _, offset, length = reader.sections["a"]
    assert np.array_equal(np.frombuffer(mapped, np.int32, length // 4, offset), section)
    broken = bytearray(mapped)
    broken[offset + 5] ^= 1
    with pytest.raises(ValueError, match="CRC-32"):
        reader.check_in("a", broken)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
@pytest.mark.parametrize("name", ["annotations.json.journal", "annotations.json", "corpus.jsonl"])
@pytest.mark.parametrize("kind", ["folder", "pipe"])
def test_a_folder_or_a_pipe_in_place_of_a_library_file_is_named_never_a_traceback_or_a_wait(run_cli, name, kind):
    """A folder (or a named pipe, whose open waited for a writer for ever) where a library file
    belongs: every command says which file and exits 1, and doctor names it, in bounded time."""
    folder = run_cli.library
    run_cli("status", Library.open(folder).corpus.papers[0].id, "read")
    (folder / name).unlink(missing_ok=True)
    if kind == "folder":
        (folder / name).mkdir()
    else:
        os.mkfifo(folder / name)
    for args in (["list"], ["stats"]):
        proc = run_cli(*args, check=False)
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert f"{name}: " in proc.stderr and ("a folder, not a file" in proc.stderr if kind == "folder"
                                               else "a pipe" in proc.stderr), proc.stderr
    doctor = run_cli("doctor", check=False)
    assert doctor.returncode == 1 and "Traceback" not in doctor.stderr and f"{name}: cannot be read" in doctor.stdout
    # the repair leaves it, says so, and rewrites nothing beside it (it said "could not repair: Is a
    # directory" and kept the sound annotations.json "as damaged")
    files = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    repair = run_cli("doctor", "--repair", check=False)
    assert repair.returncode == 1 and f"{name} is a " in repair.stdout and "the repair leaves it" in repair.stdout
    assert "could not repair" not in repair.stdout and not list((folder / "backups").glob("*damaged*"))
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == files
