"""Direct tests of small store modules that the end-to-end tests reach only through the Library:
the query parser, the vocabulary helpers, the journal's replay, the lock (its timeout too), RIS,
arXiv Atom and OpenReview readers, note drafts and backups."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from store.errors import InputError, LibraryLockedError


# ------------------------------------------------------------------ query
def test_parse_query_splits_words_phrases_and_filters():
    from store.search.query import parse_query

    q = parse_query('graph "message passing" status:unr tag:rl -tag:maybe author:Peyré star:>=2 year:2024 '
                    'kw:"federated learning" -venue:iclr file:day2 topic:3 ')
    assert q.words == ["graph"] and q.phrases == ["message passing"]
    assert q.statuses == {"unread"} and q.tags == ["rl"] and q.not_tags == ["maybe"]
    assert q.authors == ["peyre"] and q.keywords == ["federated learning"] and q.not_venues == ["iclr"]
    assert q.files == ["day2"] and q.topics == {3} and q.star[1] == 2 and q.year[1] == 2024
    assert q.star_ok(3) and not q.star_ok(1) and q.has_filters and q.trailing_space
    assert not q.errors


def test_parse_query_reports_bad_filters_and_waits_for_half_typed_ones():
    from store.search.query import parse_query

    q = parse_query("status:zzz star:x topic:a year:20245")
    assert len(q.errors) == 4 and "unknown status 'zzz'" in q.errors[0]
    half = parse_query("tag: year:20 star:")  # still being typed: no filter and no error
    assert not half.errors and not half.tags and half.year is None and half.star is None
    assert parse_query("star:5").errors == ["star filter '5': stars go 0-3"]


def test_parse_query_similar_and_recommend():
    from store.search.query import parse_query

    assert parse_query("similar:ABC123").similar == "abc123"
    assert parse_query("rec:").recommend == "stars" and parse_query("rec:RL").recommend == "rl"


# ------------------------------------------------------------------ vocabulary
def test_vocab_stems_word_forms_together_and_keeps_content_words():
    from store.search.vocab import STOP_WORDS, SortedWords, content_words, stem

    assert stem("networks") == stem("network") and stem("learning") == stem("learned")
    assert content_words(["the", "graph", "of", "networks"]) == ["graph", "networks"]
    assert "the" in STOP_WORDS and "graph" not in STOP_WORDS
    words = SortedWords(sorted(["apple", "applet", "banana", "band"]))
    assert words.find("banana") is not None and words.find("bandana") is None
    assert words.chunk("b") == (2, ["banana", "band"])
    assert len(words.completions("app")) == 2 and len(words.completions("ban")) == 2


# ------------------------------------------------------------------ journal
def _journal(tmp_path: Path, lines: list[bytes]) -> Path:
    path = tmp_path / "annotations.json.journal"
    path.write_bytes(b"".join(lines))
    return path


def _line(seq: int, key: str, value) -> bytes:
    return json.dumps({"seq": seq, "set": {"_default": {key: value}}}).encode() + b"\n"


def test_journal_replays_in_sequence_and_stops_at_damage(tmp_path):
    from store.annotations.journal import judge, replay_journal

    path = _journal(tmp_path, [_line(1, "1", {"status": "read"}), _line(2, "2", {"status": "skipped"}),
                               _line(3, "1", None)])
    data: dict = {}
    replay = replay_journal(path, data, json.loads)
    assert replay.seq == 3 and replay.lines == 3 and not replay.damage and judge(replay, 3) is None
    assert data == {"_default": {"2": {"status": "skipped"}}}  # 1 was written, then deleted

    path = _journal(tmp_path, [_line(1, "1", {"status": "read"}), _line(3, "2", {"status": "read"})])
    replay = replay_journal(path, {}, json.loads)
    assert replay.seq == 1 and "changes are missing" in replay.damage

    path = _journal(tmp_path, [_line(1, "1", {"status": "read"}), b"not json\n"])
    assert "line 2 is not a journal entry" in replay_journal(path, {}, json.loads).damage


def test_journal_torn_tail_and_a_saved_change_missing(tmp_path):
    from store.annotations.journal import judge, replay_journal

    path = _journal(tmp_path, [_line(1, "1", {"status": "read"}), b'{"seq": 2, "chan'])
    replay = replay_journal(path, {}, json.loads, acked=1)
    assert replay.seq == 1 and replay.torn == len(b'{"seq": 2, "chan') and judge(replay, 1) is None  # never acked
    assert "unfinished change" in judge(replay_journal(path, {}, json.loads), None)  # no mark: told
    replay = replay_journal(path, {}, json.loads, acked=2)  # change 2 was acknowledged, and is not there
    assert "1 saved change missing" in replay.damage


def test_journal_acked_mark_round_trips(tmp_path):
    from store.annotations.journal import acked_path_for, forget_acked, read_acked, write_acked

    snapshot = tmp_path / "annotations.json"
    assert read_acked(snapshot) is None
    write_acked(snapshot, 7)
    assert read_acked(snapshot) == 7 and acked_path_for(snapshot).exists()
    forget_acked(snapshot)
    assert read_acked(snapshot) is None


# ------------------------------------------------------------------ lock
def test_the_lock_times_out_naming_the_library_when_another_process_holds_it(tmp_path):
    from store.annotations.lock import LibraryLock

    path = tmp_path / ".lock"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(path)!r}, os.O_RDWR | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(30)\n")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        lock = LibraryLock(path, timeout=0.3)
        started = time.monotonic()
        with pytest.raises(LibraryLockedError, match="another papersift process has held the library lock"):
            with lock.held():
                pass
        assert 0.3 <= time.monotonic() - started < 3
        with lock.attempt() as got:  # the UI thread's way: no wait at all
            assert got is False
    finally:
        holder.kill()
        holder.wait()
    with LibraryLock(path, timeout=0.3).held():  # free again
        pass


def test_the_lock_is_reentrant_in_one_process(tmp_path):
    from store.annotations.lock import LibraryLock

    lock = LibraryLock(tmp_path / ".lock")
    with lock.held():
        with lock.held():
            with lock.attempt() as got:
                assert got is True


# ------------------------------------------------------------------ RIS, arXiv, OpenReview
def test_ris_reads_entries_and_names_the_line_of_a_bad_one(tmp_path):
    from store.ingest.ris import looks_like_ris, read_ris

    text = "TY  - JOUR\nTI  - A title\nAU  - Lee, A.\nAU  - Ray, B.\nAB  - First line\n  continued\nER  - \n"
    assert looks_like_ris(text) and not looks_like_ris("title,abstract\n")
    [entry] = read_ris(text, tmp_path / "a.ris")
    assert entry.first("TI", "T1") == "A title" and entry.all("AU") == ["Lee, A.", "Ray, B."]
    assert "continued" in entry.first("AB")
    with pytest.raises(InputError) as err:
        read_ris("TY  - JOUR\nTI  - x\nER  - \ngarbage here\n", tmp_path / "b.ris")
    assert err.value.line == 4
    with pytest.raises(InputError):
        read_ris("TY  - JOUR\nTI  - never closed\n", tmp_path / "c.ris")


def test_arxiv_atom_reads_papers_and_names_bad_xml(tmp_path):
    from store.ingest.arxiv import looks_like_atom, read_atom

    from ..conftest import DATA

    text = (DATA / "arxiv_api.xml").read_text()
    assert looks_like_atom(text)
    papers, missing = read_atom(text, DATA / "arxiv_api.xml")
    assert papers and all(p["abstract"] and p["url"].startswith("https://") for p in papers)
    with pytest.raises(InputError) as err:
        read_atom('<feed xmlns="http://www.w3.org/2005/Atom">\n<entry></feed>', tmp_path / "bad.xml")
    assert err.value.line == 2
    with pytest.raises(InputError, match="expected an Atom feed"):
        read_atom("<rss></rss>", tmp_path / "rss.xml")


def test_openreview_notes_in_papersift_names():
    from store.ingest.openreview import is_note, note_fields

    note = {"id": "abc", "forum": "abc", "pdate": 1700000000000,
            "content": {"title": {"value": "T"}, "abstract": {"value": "A."}, "authors": {"value": ["X Y"]},
                        "venue": {"value": "ICLR 2024 poster"}, "keywords": {"value": ["rl"]}}}
    assert is_note(note) and not is_note({"abstract": "x", "content": {}})
    fields = note_fields(note)
    assert fields["title"] == "T" and fields["abstract"] == "A." and fields["authors"] == ["X Y"]
    assert fields["venue"] == "ICLR" and fields["year"] == "2024"
    assert fields["url"] == "https://openreview.net/forum?id=abc"
    del note["content"]["venue"]
    assert note_fields(note)["year"] == "2023"  # from the publication time
    note["pdate"] = 10 ** 20  # not a time: no year, no crash
    assert "year" not in note_fields(note)


# ------------------------------------------------------------------ drafts, backups
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
