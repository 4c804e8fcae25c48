"""Reading the annotations file: a TinyDB JSON snapshot plus its journal of later changes.

Pure functions, apart from :class:`store.annotations.JournaledJSONStorage` (which
also writes and caches) so a one-shot ``papersift search`` (:mod:`store.quick`)
reads annotations exactly as the storage does without importing TinyDB. The JSON
parser is passed in (orjson in the app; the standard library where start-up time
matters more than parsing speed); both raise ``ValueError`` subclasses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from .errors import CorruptFileError

ANNOTATIONS_FORMAT = "papersift-annotations"
ANNOTATIONS_VERSION = 1
JOURNAL_SUFFIX = ".journal"
ANN, HIST, META = "annotations", "history", "meta"
REDO = "redo"  # changes undone, newest last, until a new change is made


def journal_path_for(path: Path) -> Path:
    return path.with_name(path.name + JOURNAL_SUFFIX)


def read_snapshot(path: Path, loads: Callable[[bytes], object]) -> dict:
    """The snapshot file's tables, checked to be a papersift annotations file."""
    raw = path.read_bytes()
    if not raw.strip():
        raise CorruptFileError(path, "file is empty (truncated?)")
    try:
        data = loads(raw)
    except ValueError as exc:
        raise CorruptFileError(path, f"not valid JSON ({exc})") from None
    check_annotations_data(path, data)
    return data  # type: ignore[return-value]


def replay_journal(journal_path: Path, data: dict, loads: Callable[[bytes], object]) -> tuple[int, int, int]:
    """Apply the journal's entries newer than the snapshot to ``data``.

    Returns:
        (newest entry, bytes of complete lines, entries), for the next append.
    """
    base = _journal_seq(data)
    try:
        raw = journal_path.read_bytes()
    except FileNotFoundError:
        return base, 0, 0
    end = raw.rfind(b"\n") + 1  # a torn last line was never acknowledged: not applied
    seq, lines = base, 0
    for lineno, line in enumerate(raw[:end].split(b"\n")[:-1], start=1):
        lines += 1
        try:
            entry = loads(line)
            number, changes = entry["seq"], entry["set"]  # type: ignore[index]
            if not isinstance(number, int) or not isinstance(changes, dict) \
                    or not all(isinstance(t, dict) for t in changes.values()):
                raise ValueError
        except (KeyError, TypeError, ValueError):
            raise CorruptFileError(journal_path, f"line {lineno} is not a journal entry") from None
        if number <= seq:
            continue  # already in the snapshot (a kill between compaction's two steps)
        for table, records in changes.items():
            target = data.setdefault(table, {})
            for key, record in records.items():
                if record is None:
                    target.pop(key, None)
                else:
                    target[key] = record
        seq = number
    return seq, end, lines


def _journal_seq(data: dict) -> int:
    meta = data.get(META) or {}
    info = next(iter(meta.values()), {}) if meta else {}
    seq = info.get("journal_seq", 0) if isinstance(info, dict) else 0
    return seq if isinstance(seq, int) else 0


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
