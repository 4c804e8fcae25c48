"""TinyDB's storage for the annotations file, written crash-safely: a JSON snapshot and an
append-only journal beside it (see :mod:`store.annotations.journal`), every change durable before
the call returns, and another process's writes noticed. :mod:`store.annotations.database` builds
the annotation store on it."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson
from tinydb.storages import Storage

from store.files.atomic import append_durably, atomic_write_bytes
from store.annotations.backups import keep_damaged
from store.annotations.journal import (META, Replay, acked_damaged, acked_path_for, journal_path_for, judge, read_acked,
                                      read_snapshot, replay_journal, write_acked)

COMPACT_LINES = 500        # journal entries before they are folded into a new snapshot
COMPACT_BYTES = 4 << 20

_Sig = tuple[int, int, int] | None  # (inode, size, mtime) of a file, None when it does not exist


def now_iso() -> str:
    """Current UTC time, ISO 8601 with milliseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class JournaledJSONStorage(Storage):
    """TinyDB storage: a JSON snapshot plus an append-only journal of changes.

    The snapshot (``annotations.json``, TinyDB's format) is replaced atomically;
    each transaction in between appends one line to ``annotations.json.journal``
    with the records it changed, and fsyncs it. A triage key therefore costs an
    append of a few hundred bytes whatever the library's size (a rewrite of 30k
    annotations took ~28 ms). Every ``COMPACT_LINES`` entries the journal is
    folded into a new snapshot, which records the last entry it includes
    (``journal_seq`` in the meta table), so a kill between the two steps
    replays nothing twice.

    ``read`` returns a cached dict while neither file changed (inode, size,
    mtime); another process's append or snapshot triggers a reload.
    """

    def __init__(self, path: str | Path, **_: object):
        self.path = Path(path)
        self.journal_path = journal_path_for(self.path)
        self._cache: dict[str, dict[str, Any]] | None = None
        self._sig: tuple[_Sig, _Sig] | None = None
        self._seq = 0            # the newest journal entry in _cache
        self._journal_len = 0    # bytes of complete journal lines read
        self._journal_lines = 0  # entries in the journal (for compaction)
        self.reports: list[str] = []  # damage found in the journal, kept in backups/, not yet told
        self.journal_lost = 0  # the journal's lines that are no entry (a change each, lost), at the last read
        self._told: set[tuple[str, str | None]] = set()

    def _stat_sig(self) -> tuple[_Sig, _Sig]:
        def one(p: Path) -> _Sig:
            try:
                st = os.stat(p)
            except FileNotFoundError:
                return None
            return (st.st_ino, st.st_size, st.st_mtime_ns)
        return one(self.path), one(self.journal_path)

    def changed_on_disk(self) -> bool:
        """True when either file differs from what this process last read or wrote."""
        return self._stat_sig() != self._sig

    def read(self) -> dict[str, dict[str, Any]] | None:
        sig = self._stat_sig()
        if sig == (None, None):
            self._cache, self._sig, self._seq, self._journal_len, self._journal_lines = None, sig, 0, 0, 0
            return None
        if sig != self._sig or self._cache is None:
            acked = read_acked(self.path)
            if acked is None and acked_damaged(self.path):
                self._keep_damaged_mark()
            for _ in range(20):  # another process may replace the snapshot while we read
                data = self._read_snapshot() if sig[0] is not None else {}
                replay = self._replay(data, acked)
                now = self._stat_sig()
                if now == sig:
                    break
                sig = now
            if (verdict := judge(replay, acked)) is not None:
                self._keep(verdict)
            self._cache, self._sig = data, sig
            self._seq, self._journal_len, self._journal_lines = replay.seq, replay.length, replay.lines
            self.journal_lost = replay.lost
        return self._cache

    def _keep(self, verdict: str) -> None:
        """Damage found: the journal as found goes to backups/ (once per distinct content) before the
        next append cuts it back to its trusted prefix, and the user is to be told (``reports``)."""
        kept, _new = keep_damaged(self.journal_path)
        key = (verdict, kept.name if kept else None)
        if key not in self._told:  # each damage told once per process; every start tells it again
            self._told.add(key)
            where = f"kept in {kept.parent.name}/{kept.name}" if kept else "could not be copied to backups/"
            self.reports.append(f"{self.journal_path.name}: {verdict}; the changes before it are in effect, "
                                f"and the journal as found is {where}")

    def _keep_damaged_mark(self) -> None:
        """The acknowledged-change mark holds no number: kept as found in backups/ and told once (a
        journal cut short cannot be told by it until the next change, or `doctor --repair`, writes it)."""
        mark = acked_path_for(self.path)
        kept, _new = keep_damaged(mark)
        key = ("mark", kept.name if kept else None)
        if key not in self._told:
            self._told.add(key)
            where = f"kept in {kept.parent.name}/{kept.name}" if kept else "could not be copied to backups/"
            self.reports.append(f"{mark.name}: the mark of the newest saved change is damaged ({where}): a journal "
                                "cut short since cannot be told until the next change writes the mark anew")

    def take_reports(self) -> list[str]:
        """Damage not yet told, each said once."""
        said, self.reports = self.reports, []
        return said

    def _read_snapshot(self) -> dict[str, dict[str, Any]]:
        return read_snapshot(self.path, orjson.loads)

    def _replay(self, data: dict[str, dict[str, Any]], acked: int | None) -> Replay:
        return replay_journal(self.journal_path, data, orjson.loads, acked)

    def write(self, data: dict[str, dict[str, Any]]) -> None:
        """A full snapshot (TinyDB's own writes, new files, compaction); empties the journal."""
        meta = data.get(META)
        if meta:
            key = next(iter(meta))
            meta[key] = {**meta[key], "journal_seq": self._seq}
        try:
            atomic_write_bytes(self.path, orjson.dumps(data))
            if self._journal_len or self.journal_path.exists():
                atomic_write_bytes(self.journal_path, b"")
        except BaseException:
            self._cache, self._sig = None, None  # memory may be ahead of disk: reload next time
            raise
        write_acked(self.path, self._seq)
        self._cache, self._sig = data, self._stat_sig()
        self._journal_len = self._journal_lines = 0

    def write_changes(self, data: dict[str, dict[str, Any]], changes: dict[str, dict[str, Any]]) -> None:
        """Make ``data`` durable by journaling only ``changes`` (table -> key -> record or None)."""
        if self._sig is None or self._sig[0] is None or self._cache is None or self.journal_lost:
            # No snapshot yet: start one. Or the journal holds damaged lines (kept in backups/ when read):
            # folded away with this change, every whole change read with it.
            self.write(data)
            self.journal_lost = 0
            return
        entry = orjson.dumps({"seq": self._seq + 1, "time": now_iso(), "set": changes}) + b"\n"
        try:
            self._journal_len = append_durably(self.journal_path, entry, self._journal_len)
        except BaseException:
            self._cache, self._sig = None, None
            raise
        self._seq += 1
        write_acked(self.path, self._seq)
        self._journal_lines += 1
        self._cache, self._sig = data, self._stat_sig()
        if self._journal_lines >= COMPACT_LINES or self._journal_len >= COMPACT_BYTES:
            # The change is saved (the append above was fsynced): a fold that fails now postpones the
            # fold, it does not undo the change. Said as a warning, never as "nothing was changed".
            try:
                self.write(data)
            except OSError as exc:
                self.reports.append(f"saved; folding the journal into {self.path.name} is postponed "
                                    f"({getattr(exc, 'reason', None) or exc.strerror or exc}): it is tried again "
                                    "at the next change")

    def compact(self) -> None:
        """Fold the journal into the snapshot (before a backup copies the snapshot)."""
        data = self.read()
        if data is not None and (self._journal_lines or self.journal_path.exists()):
            self.write(data)

    def close(self) -> None:
        pass
