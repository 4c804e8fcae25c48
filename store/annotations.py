"""Annotations in a TinyDB file, written crash-safely, with a persistent undo history.

TinyDB's default ``JSONStorage`` rewrites its file in place (a kill mid-write
leaves a torn file) and ``CachingMiddleware`` loses unflushed writes on a
crash. :class:`AtomicJSONStorage` instead writes every change through
:func:`store.atomic.atomic_write_bytes` before the call returns, and notices
when another process replaced the file.

Each user action is one transaction: the changed annotation records and the
undo entry describing them are written together, with a single fsync.
Document ids are derived from paper ids, so two processes can never hand the
same id to different papers.
"""

from __future__ import annotations

import copy
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import orjson
from tinydb import TinyDB
from tinydb.storages import Storage

from .atomic import atomic_write_bytes
from .errors import CorruptFileError
from .models import Annotation

ANNOTATIONS_FORMAT = "papersift-annotations"
ANNOTATIONS_VERSION = 1
HISTORY_LIMIT = 500
ANN, HIST, META = "annotations", "history", "meta"


def now_iso() -> str:
    """Current UTC time, ISO 8601 with milliseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def doc_id_for(paper_id: str) -> int:
    """The TinyDB document id of a paper's annotation (paper ids are hex)."""
    return int(paper_id, 16)


class AtomicJSONStorage(Storage):
    """TinyDB storage: orjson, atomic durable writes, reload when the file changes.

    ``read`` returns a cached dict while the file's (inode, size, mtime) are
    unchanged, so a keystroke does not re-parse the file; another process's
    ``os.replace`` changes the inode and triggers a reload.
    """

    def __init__(self, path: str | Path, **_: object):
        self.path = Path(path)
        self._cache: dict | None = None
        self._sig: tuple | None = None

    def _stat_sig(self) -> tuple | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def changed_on_disk(self) -> bool:
        """True when the file differs from what this process last read or wrote."""
        return self._stat_sig() != self._sig

    def read(self) -> dict | None:
        sig = self._stat_sig()
        if sig is None:
            self._cache, self._sig = None, None
            return None
        if sig != self._sig or self._cache is None:
            raw = self.path.read_bytes()
            if not raw.strip():
                raise CorruptFileError(self.path, "file is empty (truncated?)")
            try:
                data = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                raise CorruptFileError(self.path, f"not valid JSON ({exc})") from None
            check_annotations_data(self.path, data)
            self._cache, self._sig = data, sig
        return self._cache

    def write(self, data: dict) -> None:
        try:
            atomic_write_bytes(self.path, orjson.dumps(data))
        except BaseException:
            self._cache, self._sig = None, None  # memory may be ahead of disk: reload next time
            raise
        self._cache, self._sig = data, self._stat_sig()

    def close(self) -> None:
        pass


def check_annotations_data(path: Path, data: object) -> None:
    """Refuse a file that is not ours or is from a newer papersift."""
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise CorruptFileError(path, "not a TinyDB annotations file")
    meta = data.get(META)
    if meta is None:
        if data.get(ANN) is None and data:
            raise CorruptFileError(path, "not a papersift annotations file (no meta table)")
        return
    info = next(iter(meta.values()), {})
    if info.get("format") != ANNOTATIONS_FORMAT:
        raise CorruptFileError(path, "not a papersift annotations file")
    version = info.get("version")
    if not isinstance(version, int) or version > ANNOTATIONS_VERSION:
        raise CorruptFileError(path, f"written by a newer papersift (format version {version}; "
                                     f"this one reads up to {ANNOTATIONS_VERSION}); upgrade papersift")


class AnnotationStore:
    """The annotations TinyDB: read all, apply changes transactionally, undo."""

    def __init__(self, path: Path):
        self.path = path
        self.db = TinyDB(path, storage=AtomicJSONStorage)
        self.storage: AtomicJSONStorage = self.db.storage  # type: ignore[assignment]

    def load_all(self) -> dict[str, Annotation]:
        """Every stored annotation, by paper id."""
        return {rec["paper_id"]: Annotation.from_record(rec) for rec in self.db.table(ANN).all()}

    def changed_on_disk(self) -> bool:
        return self.storage.changed_on_disk()

    def _transaction(self, mutate: Callable[[dict], object]) -> object:
        """Read the whole database, mutate it, write it once (one fsync)."""
        data = copy.copy(self.storage.read() or {})
        for name in (ANN, HIST, META):
            data[name] = dict(data.get(name) or {})
        if not data[META]:
            data[META] = {"1": {"format": ANNOTATIONS_FORMAT, "version": ANNOTATIONS_VERSION, "created": now_iso()}}
        result = mutate(data)
        self.storage.write(data)
        self.db.clear_cache()
        for table in self.db.tables():
            self.db.table(table).clear_cache()
        return result

    def apply(self, changes: dict[str, Annotation], action: str, label: str, history: bool = True) -> None:
        """Store new annotation states and (optionally) an undo entry, together.

        Args:
            changes: paper id -> its new annotation (a default annotation is removed).
            action: machine name of the action ("status", "star", "tag", ...).
            label: what a person would call it ("status read on 3 papers").
            history: record an undo entry.
        """
        def mutate(data: dict) -> None:
            ann = data[ANN]
            before = {}
            after = {}
            for pid, new in changes.items():
                key = str(doc_id_for(pid))
                before[pid] = ann.get(key)
                if new.is_default():
                    ann.pop(key, None)
                    after[pid] = None
                else:
                    ann[key] = new.to_record()
                    after[pid] = ann[key]
            if history:
                hist = data[HIST]
                seq = max((int(k) for k in hist), default=0) + 1
                hist[str(seq)] = {"seq": seq, "time": now_iso(), "action": action, "label": label,
                                  "before": before, "after": after}
                if len(hist) > HISTORY_LIMIT:
                    for k in sorted(hist, key=int)[: len(hist) - HISTORY_LIMIT]:
                        del hist[k]

        self._transaction(mutate)

    def undo(self) -> dict | None:
        """Revert the newest history entry; returns it, or None when there is nothing to undo."""
        def mutate(data: dict) -> dict | None:
            hist = data[HIST]
            if not hist:
                return None
            key = max(hist, key=int)
            entry = hist.pop(key)
            ann = data[ANN]
            for pid, rec in entry["before"].items():
                if rec is None:
                    ann.pop(str(doc_id_for(pid)), None)
                else:
                    ann[str(doc_id_for(pid))] = rec
            return entry

        if not (self.storage.read() or {}).get(HIST):
            return None
        return self._transaction(mutate)  # type: ignore[return-value]

    def history(self, limit: int = 20) -> list[dict]:
        """The newest undo entries, newest first."""
        hist = (self.storage.read() or {}).get(HIST) or {}
        return [hist[k] for k in sorted(hist, key=int, reverse=True)[:limit]]
