"""Note drafts (kept, got, dropped, a damaged file survived) and backups (rotated, a damaged copy kept once)."""





def test_note_drafts_keep_get_drop_and_survive_a_damaged_file(tmp_path):
    from store.annotations.drafts import NoteDrafts

    drafts = NoteDrafts(tmp_path / "drafts.json")
    assert drafts.get("p1") is None and drafts.count() == 0
    drafts.keep("p1", "half a thought")
    drafts.keep("p2", "another")
    assert drafts.get("p1")[0] == "half a thought" and drafts.count() == 2
    drafts.drop("p1")
    assert drafts.get("p1") is None and drafts.count() == 1
    drafts.drop("p2")
    assert not (tmp_path / "drafts.json").exists()
    (tmp_path / "drafts.json").write_text("{not json")
    assert drafts.count() == 0 and drafts.get("p1") is None  # damaged: no drafts, never a crash


def test_a_damaged_drafts_file_is_kept_in_backups_and_told_before_a_draft_replaces_it(tmp_path):
    """A drafts file papersift cannot read was written over by the next draft, with no copy and no
    word: its bytes now go to backups/ first, and the library tells it once."""
    from store import Library

    lib = Library.open(tmp_path / "lib")
    damaged = b'{"drafts": garbage, "p1": {"text": "a long thought'
    (lib.folder / "note-drafts.json").write_bytes(damaged)
    lib.drafts.keep("p2", "new")
    kept = [p for p in (lib.folder / "backups").iterdir() if p.name.startswith("note-drafts.json")]
    assert [p.read_bytes() for p in kept] == [damaged]
    told = lib.take_problems()
    assert len(told) == 1 and told[0].startswith("note-drafts.json: damaged") and kept[0].name in told[0]
    assert lib.drafts.get("p2")[0] == "new" and lib.take_problems() == []


def test_backups_rotate_but_keep_damaged_copies_once_per_content(tmp_path):
    from store.annotations.backups import KEEP, backup_file, damaged_copies, keep_damaged, list_backups

    path = tmp_path / "corpus.json"
    assert backup_file(path, "none") is None  # nothing to back up
    path.write_text("v0")
    for n in range(KEEP + 3):
        path.write_text(f"v{n}")
        assert backup_file(path, f"r{n}") is not None
    assert len(list_backups(path)) == KEEP
    path.write_text("garbage")
    copy, new = keep_damaged(path)
    assert new and copy.read_text() == "garbage"
    again, new = keep_damaged(path)
    assert again == copy and not new
    for n in range(KEEP + 2):  # rotation never drops a damaged copy
        backup_file(path, f"s{n}")
    assert damaged_copies(path) == [copy]


def test_a_corpus_backup_is_a_hard_link_that_keeps_the_old_bytes(tmp_path):
    """The corpus is only ever replaced by a rename, so its backup is a link to the file as it was
    (no copy of 430 MB at 300k papers) and holds the old bytes once the import replaced it."""
    import os

    from store.library import Library
    from ..conftest import DATA

    lib = Library.open(tmp_path / "lib", seed_if_new=False)
    lib.paper_changes.import_paths([DATA / "arxiv_days" / "day1.xml"])
    before = lib.corpus_path.read_bytes()
    inode = os.stat(lib.corpus_path).st_ino
    lib.paper_changes.import_paths([DATA / "arxiv_days" / "day2.xml"])
    backups = sorted((lib.folder / "backups").glob("corpus.jsonl.*.import.bak"))
    assert backups and backups[-1].read_bytes() == before
    assert os.stat(backups[-1]).st_ino == inode and os.stat(lib.corpus_path).st_ino != inode
    assert os.stat(backups[-1]).st_mode & 0o777 == 0o600
    assert lib.corpus_path.read_bytes() != before
