"""The journal (store/annotations/journal.py): replay in order, damage, a torn tail, the acknowledged mark."""

import json
from pathlib import Path


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
    assert "line 2 is no journal entry (its change is lost)" in replay_journal(path, {}, json.loads).damage

    # A damaged line loses its own change only: the whole changes after it (full records, their
    # numbers past the lost one) still apply, and are counted.
    path = _journal(tmp_path, [_line(1, "1", {"status": "read"}), b"not json\n", _line(3, "2", {"status": "read"}),
                               _line(4, "1", {"status": "skipped"})])
    data = {}
    replay = replay_journal(path, data, json.loads)
    assert replay.seq == 4 and replay.lines == 3 and replay.lost == 1
    assert data == {"_default": {"1": {"status": "skipped"}, "2": {"status": "read"}}}
    assert "line 2 is no journal entry (1 saved change lost; the 2 whole changes after it are in effect)" in replay.damage
    # stray bytes that held no change: the numbers around them run on, or the mark says the last
    # whole change was the newest saved (it said "its change is lost")
    path = _journal(tmp_path, [_line(1, "1", {"status": "read"}), b"stray\n", _line(2, "2", {"status": "read"})])
    assert "line 2 is no journal entry (no saved change is missing: stray bytes; the 1 whole change after it is in " \
           "effect)" in replay_journal(path, {}, json.loads).damage
    path = _journal(tmp_path, [_line(1, "1", {"status": "read"}), b"stray\n"])
    assert "line 2 is no journal entry (no saved change is missing: stray bytes)" in replay_journal(
        path, {}, json.loads, acked=1).damage
    assert "(1 saved change lost)" in replay_journal(path, {}, json.loads, acked=2).damage


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


def test_a_damaged_acked_mark_is_told_kept_and_written_whole_again(tmp_path):
    """A mark holding no number made every journal cut short pass unseen, and silently: it is told
    (once), kept in backups/, and the next change writes it whole (a longer damaged mark's tail
    once stayed after the number, so it read as damaged for ever)."""
    from store.annotations.journal import acked_path_for, read_acked
    from store.library import Library

    lib = Library.open(tmp_path / "lib")
    pid = lib.corpus.papers[0].id
    lib.marks.set_status([pid], "read")
    mark = acked_path_for(lib.annotations_path)
    mark.write_bytes(b"garbage" * 8)
    again = Library(lib.folder)
    told = again.take_problems()
    assert any(p.startswith("annotations.json.acked: the mark of the newest saved change is damaged") for p in told)
    assert [p.name for p in (lib.folder / "backups").iterdir() if p.name.startswith("annotations.json.acked")]
    assert again.take_problems() == []  # told once
    from store.doctor import run_doctor
    report = run_doctor(lib.folder, repair=True)  # (the journal itself is whole: no copy of it is claimed)
    assert any("wrote the mark of the newest saved change anew" in r for r in report.repaired), report.repaired
    assert not any("journal as found" in r or "file as found" in r for r in report.repaired), report.repaired
    assert report.healthy and mark.read_bytes().strip().isdigit()
    mark.write_bytes(b"garbage" * 8)
    again = Library(lib.folder)
    again.marks.set_status([pid], "to-read")
    assert read_acked(lib.annotations_path) is not None and mark.read_bytes().strip().isdigit()
    assert Library(lib.folder).take_problems() == []
