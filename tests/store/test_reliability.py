"""Hostile input, corrupt or foreign files, doctor, migration: clear errors and nothing lost."""

from __future__ import annotations

import errno
import json
import os
import time
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from store import Library
from store.doctor import run_doctor
from store.errors import CorruptFileError, InputError
from store.ingest.parse import expand_paths, parse_file

ABS = "We study hostile inputs for importers and show that careful parsing keeps every stored annotation safe."


def snapshot(lib: Library) -> tuple[bytes, bytes]:
    return lib.corpus_path.read_bytes(), lib.annotations_path.read_bytes()


@pytest.fixture
def annotated(lib):
    pid = lib.corpus.papers[0].id
    lib.marks.set_status([pid], "read")
    lib.marks.add_tags([pid], ["keep"])
    return lib


HOSTILE = {
    "binary.txt": (b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4, "NUL byte"),
    "latin1.txt": (("Header\n\n" + ABS.replace("careful", "caf\xe9")).encode("latin-1"), "byte offset"),
    "empty.txt": (b"", "empty"),
    "header.txt": (b"NeurIPS 2026 Papers\n", "no abstracts"),
    "deep.json": (b"[" * 200_000 + b"]" * 200_000, "invalid JSON"),
    "types.json": (json.dumps([{"abstract": ABS}, {"abstract": ["not", "a", "string"]}]).encode(), "entry 2"),
    "ragged.csv": (f"title,abstract\nA,{ABS}\nB,{ABS},extra,more\n".encode(), "line 3"),
    "noabstract.csv": (b"title,summaryish\nA,B\n", "no \"abstract\" column"),
    "unbalanced.bib": (b"@article{x,\n title={Oops,\n abstract={" + ABS.encode() + b"}\n}\n", "never closed"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_file_gets_clear_error_and_library_untouched(annotated, tmp_path, name):
    content, needle = HOSTILE[name]
    path = tmp_path / name
    path.write_bytes(content)
    before = snapshot(annotated)
    t = time.perf_counter()
    with pytest.raises(InputError) as err:
        annotated.paper_changes.import_paths([path])
    assert time.perf_counter() - t < 20
    assert name in str(err.value) and needle in str(err.value)
    assert snapshot(annotated) == before
    assert Library(annotated.folder).annotation(annotated.corpus.papers[0].id).tags == ["keep"]


def test_utf16_with_bom_imports(lib, tmp_path):
    (tmp_path / "u16.txt").write_bytes(("Header\n\n" + ABS).encode("utf-16"))
    assert lib.paper_changes.import_paths([tmp_path / "u16.txt"]).new == 1


def test_fifty_megabyte_paragraph_is_refused_quickly(annotated, tmp_path):
    big = tmp_path / "big.txt"
    big.write_text("Header\n\n" + ("word " * 10_000_000))
    before = snapshot(annotated)
    t = time.perf_counter()
    with pytest.raises(InputError, match="big.txt, line 3: an abstract is at most 100,000 characters, and the paragraph starting here is far longer"):
        annotated.paper_changes.import_paths([big])
    assert time.perf_counter() - t < 20 and snapshot(annotated) == before


def test_hundred_thousand_tiny_paragraphs(annotated, tmp_path):
    tiny = tmp_path / "tiny.txt"
    tiny.write_text("\n\n".join(f"p{i} x" for i in range(100_000)))  # the first is taken as the header
    t = time.perf_counter()
    with pytest.raises(InputError, match=r"tiny.txt: no abstracts found \(99999 paragraphs, all shorter than 8 words\)"):
        annotated.paper_changes.import_paths([tiny])
    assert time.perf_counter() - t < 20


def test_short_lines_in_a_dump_are_passed_over_and_counted(lib, tmp_path):
    (tmp_path / "d.txt").write_text(f"Header\n\nOral session 1\n\n{ABS}\n\nPoster session\n\n{ABS} Twice.\n")
    s = lib.paper_changes.import_paths([tmp_path / "d.txt"])
    assert (s.new, s.skipped) == (1, 2) or (s.new + s.near, s.skipped) == (2, 2)
    assert "passed over 2 paragraphs" in s.line()


def test_formula_injection_csv_is_stored_faithfully(lib, tmp_path):
    (tmp_path / "f.csv").write_text(f'title,abstract\n"=HYPERLINK(""http://x"")","{ABS}"\n')
    lib.paper_changes.import_paths([tmp_path / "f.csv"])
    assert lib.corpus.papers[-1].title == '=HYPERLINK("http://x")'


def test_file_disappearing_mid_import(annotated, tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(ABS)
    b.write_text(ABS + " Again, differently.")
    files = expand_paths([tmp_path])
    b.unlink()
    with pytest.raises(InputError, match="b.txt: file disappeared"):
        for f in files:
            parse_file(f)
    before = snapshot(annotated)
    with pytest.raises(InputError):
        annotated.paper_changes.import_paths([a, b])
    assert snapshot(annotated) == before


def test_escape_sequences_are_stored_faithfully(lib, tmp_path):
    evil = "We \x1b[2J\x1b]52;c;ZXZpbA==\x07 ring the \x07 bell and more words to be an abstract here."
    (tmp_path / "e.txt").write_text(evil)
    lib.paper_changes.import_paths([tmp_path / "e.txt"])
    assert Library(lib.folder).corpus.papers[-1].abstract == evil


PARSER_SUFFIXES = [".txt", ".json", ".jsonl", ".csv", ".bib"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(st.binary(max_size=600), st.text(max_size=600).map(lambda t: t.encode("utf-8", "surrogatepass"))),
       suffix=st.sampled_from(PARSER_SUFFIXES))
def test_fuzz_every_parser_errors_cleanly(tmp_path, data, suffix):
    path = tmp_path / f"fuzz{suffix}"
    path.write_bytes(data)
    try:
        records = parse_file(path)
    except InputError as exc:
        assert str(path) in str(exc)
        return
    assert all(isinstance(r.abstract, str) and r.abstract for r in records)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(objs=st.lists(st.dictionaries(st.sampled_from(["abstract", "title", "authors", "id", "url"]),
                                     st.one_of(st.text(max_size=80), st.integers(), st.none(),
                                               st.lists(st.text(max_size=10), max_size=3)), max_size=5), max_size=5))
def test_fuzz_json_structures(tmp_path, objs):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(objs))
    try:
        parse_file(path)
    except InputError as exc:
        assert "s.json" in str(exc)


def test_truncated_corpus_is_refused_and_doctor_restores_it(annotated, tmp_path):
    (tmp_path / "x.txt").write_text(ABS)
    annotated.paper_changes.import_paths([tmp_path / "x.txt"])  # takes a backup of the previous corpus
    data = annotated.corpus_path.read_bytes()
    annotated.corpus_path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptFileError, match="corpus.jsonl.*truncated|corpus.jsonl: line"):
        Library(annotated.folder)
    report = run_doctor(annotated.folder)
    assert report.problems and not report.repaired
    report = run_doctor(annotated.folder, repair=True)
    assert any("rebuilt corpus.jsonl from" in r and "from the backup" in r for r in report.repaired)
    assert len(Library(annotated.folder)) == 35  # the whole lines, and the backup's papers for the cut half
    assert any("1 paper could not be recovered" in p for p in report.problems)  # the new one: said, not hidden
    assert list((annotated.folder / "backups").glob("corpus.jsonl.*damaged-*"))  # nothing deleted


def test_garbled_annotations_are_restored_from_backup(annotated):
    annotated.marks.rename_tag("keep", "kept")  # bulk op: backup of the previous annotations
    annotated.annotations_path.write_bytes(b'{"annotations": {"1": ')
    report = run_doctor(annotated.folder, repair=True)
    assert any("rebuilt annotations.json from the backup" in r for r in report.repaired), report.repaired
    # the backup holds "keep"; the rename after it is in the journal, which is replayed on top:
    # restoring the snapshot loses nothing that was acknowledged after the backup
    assert Library(annotated.folder).annotation(annotated.corpus.papers[0].id).tags == ["kept"]


def test_foreign_and_newer_files_are_refused(lib):
    lib.corpus_path.write_text('{"format": "something-else"}\n')
    with pytest.raises(CorruptFileError, match="not a papersift corpus"):
        Library(lib.folder)
    lib.corpus_path.write_text('{"format": "papersift-corpus", "version": 99}\n')
    with pytest.raises(CorruptFileError, match="newer papersift"):
        Library(lib.folder)


def test_doctor_on_a_healthy_library_and_orphans(annotated, run_cli):
    report = run_doctor(annotated.folder)
    assert not report.problems and any("every annotation points at a paper" in o for o in report.ok)
    data = orjson.loads(annotated.annotations_path.read_bytes())
    data["annotations"]["999"] = {"paper_id": "ffffffffffff", "status": "read"}
    annotated.annotations_path.write_bytes(orjson.dumps(data))
    report = run_doctor(annotated.folder)
    assert any("pointing at no paper" in p for p in report.problems)
    proc = run_cli("doctor", library=annotated.folder, check=False)
    assert proc.returncode == 1 and "pointing at no paper" in proc.stdout


def test_doctor_names_malformed_undo_and_redo_entries(annotated):
    annotated.undo()  # one entry in the redo table
    assert not run_doctor(annotated.folder).problems
    annotated.store.compact()  # the journal folded into the snapshot, edited below
    data = orjson.loads(annotated.annotations_path.read_bytes())
    for table in ("history", "redo"):
        bad = dict(data)
        bad[table] = {**data.get(table, {}), "9999": {"label": "no states"}}
        annotated.annotations_path.write_bytes(orjson.dumps(bad))
        annotated.annotations_path.with_name("annotations.json.journal").unlink(missing_ok=True)
        assert any("1 malformed undo entry" in p for p in run_doctor(annotated.folder).problems), table


def test_version_1_library_is_migrated_with_a_backup(tmp_path, seeds_dir):
    lib = Library(tmp_path / "new")
    lib.paper_changes.import_paths([seeds_dir])
    pid = lib.corpus.papers[0].id
    lib.marks.set_star([pid], 3)
    old = tmp_path / "old"
    old.mkdir()
    v1 = {"format": "papersift-corpus", "version": 1, "papers": [p.to_record() for p in lib.corpus], "separate": []}
    (old / "corpus.json").write_bytes(orjson.dumps(v1))
    (old / "annotations.json").write_bytes(lib.annotations_path.read_bytes())
    migrated = Library(old)
    assert len(migrated) == 35 and migrated.annotation(pid).star == 3
    assert not (old / "corpus.json").exists() and (old / "corpus.jsonl").exists()
    assert list((old / "backups").glob("corpus.json.*migrate-v1.bak"))


def test_bulk_changes_take_a_backup_first(lib):
    lib.marks.set_star([lib.corpus.papers[20].id], 1)  # an annotations file exists to be backed up
    lib.marks.set_status([p.id for p in lib.corpus][:12], "skipped")
    assert list((lib.folder / "backups").glob("annotations.json.*bulk-status.bak"))


def test_invalid_settings_file_falls_back_with_a_message(tmp_path):
    from tui.settings import Settings
    path = tmp_path / "settings.json"
    path.write_text("{not json")
    settings_, problem = Settings.load(path)
    assert settings_ == Settings() and "settings.json" in problem


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_doctor_command_on_a_healthy_library(lib, run_cli):
    """The CLI's doctor checks the index cache with the Library (imported only when needed)."""
    proc = run_cli("doctor", library=lib.folder, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "search index cache matches the corpus" in proc.stdout
    lib.index_path.write_bytes(b"damaged\n")
    proc = run_cli("doctor", "--repair", library=lib.folder, check=False)
    assert proc.returncode == 0 and "rebuilt the search index cache" in proc.stdout, proc.stdout + proc.stderr


def test_note_drafts_are_kept_dropped_and_never_block(lib):
    """Drafts of unsaved notes: kept per paper, listed by doctor, and a damaged drafts file
    counts as none (the app must open whatever state a crash left it in)."""
    a, b = lib.corpus.papers[0].id, lib.corpus.papers[1].id
    lib.drafts.keep(a, "half a thought")
    lib.drafts.keep(b, "another")
    assert Library(lib.folder).drafts.get(a)[0] == "half a thought"
    assert any("2 notes have unsaved drafts" in line for line in run_doctor(lib.folder).ok)
    lib.drafts.drop(b)
    assert lib.drafts.get(b) is None and lib.drafts.count() == 1
    lib.drafts.drop(a)
    assert not lib.drafts.path.exists()  # no drafts: no file
    lib.drafts.path.write_text('{"truncated": ')
    assert lib.drafts.get(a) is None and lib.drafts.count() == 0
    lib.drafts.keep(a, "fresh")  # and a new draft replaces the damaged file
    assert lib.drafts.get(a)[0] == "fresh"


def test_a_corpus_read_in_the_background_never_replaces_a_newer_one(lib, tmp_path):
    """The app reads another process's corpus in a thread and installs it afterwards. If this
    library wrote (or read) its own corpus meanwhile, the read is stale: installing it would lose
    papers, so it is refused and the next look reads the file again."""
    other = Library(lib.folder)
    (tmp_path / "a.txt").write_text("We study grokking in small transformers trained on modular arithmetic today.\n")
    other.paper_changes.import_paths([tmp_path / "a.txt"])
    read = lib.read_changed_corpus()
    assert read is not None and len(read[0]) == 36
    (tmp_path / "b.txt").write_text("A second new paper on protein folding with diffusion models, measured well.\n")
    lib.paper_changes.import_paths([tmp_path / "b.txt"])  # this library writes: 37 papers, the other's included
    assert not lib.install_corpus(*read) and len(lib) == 37
    assert lib.read_changed_corpus() is None and not lib.refresh_corpus()
    other.paper_changes.import_paths([tmp_path / "a.txt", tmp_path / "b.txt"])  # nothing new: same papers
    assert not lib.refresh_corpus()
    (tmp_path / "c.txt").write_text("A third paper about speech recognition for children in noisy classrooms.\n")
    other.paper_changes.import_paths([tmp_path / "c.txt"])
    assert lib.refresh_corpus() and len(lib) == 38


def _lock_is_free(folder: Path) -> bool:
    """Whether another process could take the library lock now (flock on a second open file
    conflicts as another process's would)."""
    import fcntl
    from store import locations
    fd = os.open(folder / locations.LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def test_an_import_holds_the_lock_only_to_merge_and_save(lib, monkeypatch):
    """The app saves a key press under the library lock, so an import (in-app or in another
    terminal) must not hold it through its long parts: the per-abstract work and the index build."""
    import store.corpus
    import store.ingest.importer
    import store.library
    import store.library.index_file
    seen = {}

    def watch(name, fn):
        def wrapped(*args, **kwargs):
            seen.setdefault(name, []).append(_lock_is_free(lib.folder))
            return fn(*args, **kwargs)
        return wrapped

    monkeypatch.setattr(store.library.index_file.IndexCache, "update", watch("index", store.library.index_file.IndexCache.update))
    monkeypatch.setattr(store.ingest.importer, "prepare_merge", watch("prepare", store.ingest.importer.prepare_merge))
    monkeypatch.setattr(store.ingest.importer, "_merge", watch("merge", store.ingest.importer._merge))
    monkeypatch.setattr(store.corpus.Corpus, "save", watch("save", store.corpus.Corpus.save))
    before = len(lib)
    summary = lib.paper_changes.import_paths([Path(__file__).resolve().parents[1] / "data" / "icml_slice.jsonl"])
    assert summary.new > 0 and len(lib) == before + summary.new
    assert seen == {"prepare": [True], "merge": [False], "save": [False], "index": [True]}
    assert [p.id for p in Library(lib.folder).corpus] == [p.id for p in lib.corpus]
    assert lib.search.find("graph").indices.size > 0


def test_an_import_prepared_for_a_corpus_that_changed_prepares_again(lib, tmp_path, monkeypatch):
    """Another process imports between this import's preparation and its merge: the merge sees
    the other's papers (no duplicate of them, none of them lost)."""
    import store.ingest.importer
    other = tmp_path / "other.txt"
    other.write_text("A completely different abstract about protein folding with equivariant networks, "
                     "measured on three new benchmarks of our own making.\n")
    mine = tmp_path / "mine.txt"
    mine.write_text(other.read_text() + "\nAnother abstract on sparse attention for long documents, with "
                    "a kernel that runs in linear time and memory on a single GPU.\n")
    real = store.ingest.importer.prepare_merge
    calls = []

    def prepare_then_other_writes(corpus, records, cached=None):
        prep = real(corpus, records, cached)
        calls.append(len(records))
        if len(calls) == 1:
            Library(lib.folder).paper_changes.import_paths([other])  # the other process, between prepare and merge
        return prep

    monkeypatch.setattr(store.ingest.importer, "prepare_merge", prepare_then_other_writes)
    summary = lib.paper_changes.import_paths([mine])
    assert calls == [2, 1, 2]  # mine, the other's, mine again (the corpus had changed)
    assert (summary.new, summary.known) == (1, 1)  # the other's paper: already in the library (this file its source too)
    assert len(Library(lib.folder).corpus) == len(lib.corpus) == 37


class _FullDisk:
    """Stands in for the os module inside store.files.atomic: every write finds the disk full."""

    def __getattr__(self, name):
        return getattr(os, name)

    @staticmethod
    def write(*_args):
        raise OSError(errno.ENOSPC, "No space left on device")

    fsync = write  # a file object's buffered bytes reach the disk at the fsync: it fails there


def test_a_full_disk_is_an_error_that_names_the_file_and_changes_nothing(lib, monkeypatch):
    import store.files.atomic
    from store.errors import WriteFailedError
    a, b = lib.corpus.papers[0].id, lib.corpus.papers[1].id
    lib.marks.set_star([a], 1)
    lib.marks.set_status([a], "to-read")  # a snapshot, then a journal
    before = (lib.annotations_path.read_bytes(), lib.store.storage.journal_path.read_bytes())
    monkeypatch.setattr(store.files.atomic, "os", _FullDisk())
    for write in (lambda: lib.marks.set_status([b], "read"), lambda: lib.undo(), lambda: lib.marks.set_note(b, "x"),
                  lambda: lib.store.compact()):
        with pytest.raises(WriteFailedError, match="could not be written .No space left on device.; nothing was changed"):
            write()
    assert isinstance(WriteFailedError("f", OSError(errno.ENOSPC, "full")), OSError)  # best-effort writers still catch it
    assert (lib.annotations_path.read_bytes(), lib.store.storage.journal_path.read_bytes()) == before
    assert lib.annotation(b).status == "unread" and lib.annotation(a).star == 1
    monkeypatch.setattr(store.files.atomic, "os", os)  # space again: the next change is saved as usual
    lib.marks.set_status([b], "read")
    assert Library(lib.folder).annotation(b).status == "read" and Library(lib.folder).annotation(a).star == 1


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_full_disk_does_not_stop_the_app(lib, tmp_path, monkeypatch):
    """A triage key, undo or a tag on a full disk: the app says which file could not be saved and
    stays up, with nothing changed; once there is room, the same key works."""
    import store.files.atomic
    from tui.app import make_app
    lib.marks.set_star([lib.corpus.papers[5].id], 1)
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    first = lib.corpus.papers[0].id
    async with app.run_test() as pilot:
        monkeypatch.setattr(store.files.atomic, "os", _FullDisk())
        for keys in (["r"], ["plus"], ["z"], ["t", "x", "enter", "escape"]):
            await pilot.press(*keys)
            await pilot.pause()
            assert app.is_running
            assert "annotations.json.journal: could not be written (No space left on device)" \
                in list(app._notifications)[-1].message, keys
        assert app.screen.results.cursor == 0  # no advance past a change that was not made
        await pilot.press("x")  # an export to a file: the dialog stays, the file named once
        await pilot.pause()
        app.screen.query_one("#scope-all").value = True  # the whole library
        app.screen.query_one("#dest").value = str(tmp_path / "list.md")
        await pilot.press("ctrl+s")
        await pilot.pause()
        said = list(app._notifications)[-1].message
        assert said.startswith(f"{tmp_path / 'list.md'}: could not be written (No space left on device)")
        assert said.count("list.md") == 1 and not (tmp_path / "list.md").exists()
        await pilot.press("escape")
        await pilot.pause()
        assert Library(lib.folder).annotation(first).status == "unread" and not app.library.annotation(first).tags
        monkeypatch.setattr(store.files.atomic, "os", os)
        await pilot.press("r")
        await pilot.pause()
        assert Library(lib.folder).annotation(first).status == "read" and app.screen.results.cursor == 1


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_note_that_cannot_be_saved_on_a_full_disk_is_never_lost(lib, tmp_path, monkeypatch, capsys):
    """Neither the note nor its draft can be written: the text stays in the app, the editor offers it
    again, it is saved once there is room, and were the app closed first, the terminal shows it."""
    import store.files.atomic
    from textual.widgets import TextArea
    from tui.app import make_app
    from tui.cli.library import print_unsaved_notes
    lib.marks.set_star([lib.corpus.papers[5].id], 1)
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    pid = lib.corpus.papers[0].id
    async with app.run_test() as pilot:
        monkeypatch.setattr(store.files.atomic, "os", _FullDisk())
        await pilot.press("e", *"ask Ana", "ctrl+s")
        await pilot.pause()
        assert "could not be written" in list(app._notifications)[-1].message
        assert app.main_screen.unsaved_notes == {pid: "ask Ana"} and not (lib.folder / "note-drafts.json").exists()
        await pilot.press("e")  # offered again, though no draft reached the disk
        await pilot.pause()
        assert app.screen.query_one(TextArea).text == "ask Ana"
        await pilot.press("escape", "y")  # discarded on purpose: gone
        await pilot.pause()
        assert app.main_screen.unsaved_notes == {}
        await pilot.press("e", *"ask Bo", "ctrl+s")
        await pilot.pause()
        monkeypatch.setattr(store.files.atomic, "os", os)  # room again
        await pilot.press("e")
        await pilot.pause()
        assert app.screen.query_one(TextArea).text == "ask Bo"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert Library(lib.folder).annotation(pid).note == "ask Bo" and app.main_screen.unsaved_notes == {}
    print_unsaved_notes({pid: "line one\nline two"})  # what the command line prints if the app closed first
    assert f"the note on {pid} could not be saved; its text:\nline one\nline two" in capsys.readouterr().err


def test_doctor_rebuilding_a_header_keeps_the_title_rules_its_titles_were_made_with(lib):
    """A header whose id list no longer matches its papers is rebuilt from them; the titles are
    still the old ones, so the rebuilt header must not claim this version's title rules."""
    lib.corpus.title_rules = 0
    lib.corpus.save(lib.corpus_path)
    head, rest = lib.corpus_path.read_bytes().split(b"\n", 1)
    header = orjson.loads(head)
    header["ids"][0], header["ids"][1] = header["ids"][1], header["ids"][0]
    lib.corpus_path.write_bytes(orjson.dumps(header) + b"\n" + rest)
    report = run_doctor(lib.folder, repair=True)
    assert any("rebuilt" in line for line in report.repaired), report
    assert Library(lib.folder).paper_changes.titles_outdated
