"""Reading the annotations file: a TinyDB JSON snapshot plus its journal of later changes.

Pure functions, apart from :class:`store.annotations.storage.JournaledJSONStorage` (which
also writes and caches) so a one-shot ``papersift search`` (:mod:`store.search.quick`)
reads annotations exactly as the storage does without importing TinyDB. The JSON
parser is passed in (orjson in the app; the standard library where start-up time
matters more than parsing speed); both raise ``ValueError`` subclasses.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from store.errors import CorruptFileError, NewerFormatError
from store.files.nofollow import read_no_link

ANNOTATIONS_FORMAT = "papersift-annotations"
ANNOTATIONS_VERSION = 1
JOURNAL_SUFFIX = ".journal"
ANN, HIST, META = "annotations", "history", "meta"
REDO = "redo"  # changes undone, newest last, until a new change is made


def journal_path_for(path: Path) -> Path:
    return path.with_name(path.name + JOURNAL_SUFFIX)


def read_snapshot(path: Path, loads: Callable[[bytes], object]) -> dict[str, dict[str, Any]]:
    """The snapshot file's tables, checked to be a papersift annotations file."""
    raw = read_no_link(path)
    if not raw.strip():
        raise CorruptFileError(path, "file is empty (truncated?)")
    try:
        data = loads(raw)
    except ValueError as exc:
        raise CorruptFileError(path, f"not valid JSON ({exc})") from None
    check_annotations_data(path, data)
    return data  # type: ignore[return-value]


@dataclass
class Replay:
    """What reading a journal found.

    Attributes:
        seq: the newest change now in ``data``.
        length: bytes up to the last whole change read (in sequence): the next append goes there.
        lines: the entries read (for compaction).
        torn: bytes after the last complete line (a writer killed mid-append leaves them).
        damage: what is wrong beyond the trusted prefix, or None. A torn tail alone is not damage
            when the acknowledged-change mark proves nothing saved is in it (see :func:`judge`).
    """

    seq: int
    length: int
    lines: int
    torn: int = 0
    damage: str | None = None
    lost: int = 0  # lines that are no entry: a change each, lost


def replay_journal(journal_path: Path, data: dict[str, dict[str, Any]], loads: Callable[[bytes], object],
                   acked: int | None = None) -> Replay:
    """Apply the journal's entries newer than the snapshot to ``data``, up to the first damage.

    Entries are numbered one after another from the snapshot's last (``journal_seq``). A line
    that is not an entry is damage that loses its own change only: the whole entries after it
    still apply (each holds the full records it wrote; the numbers may skip the lost ones). A
    number out of sequence, or a journal that ends before a change known to have been saved
    (``acked``, see :func:`read_acked`), stops the replay there. Either is reported as damage,
    for the caller to keep and tell. A torn last line (a crash mid-append)
    was never acknowledged when ``acked`` says so.
    """
    base = _journal_seq(data)
    try:
        raw = read_no_link(journal_path)
    except FileNotFoundError:
        raw = b""
    end = raw.rfind(b"\n") + 1
    seq, lines, length, newest, damage = base, 0, 0, None, None
    unread: list[int] = []  # lines that are no entry: each a change lost, or stray bytes (kept by the caller)
    after = 0  # whole changes read past them
    skipped = 0  # changes the numbers of the entries after them skip: the changes those lines held
    last_entry = 0  # the line of the last whole change
    offset = 0
    for lineno, line in enumerate(raw[:end].split(b"\n")[:-1], start=1):
        offset += len(line) + 1
        entry = _entry(line, loads)
        if entry is None:  # (a damaged line: the whole changes after it are still read, each a full record)
            unread.append(lineno)
            continue
        number, changes = entry
        before = seq if newest is None else newest
        if number > before + 1 + len(unread) and number > seq + 1:
            damage = f"line {lineno} is change {number}, after change {before}: changes are missing"
            break
        if newest is not None and number <= newest:
            damage = f"line {lineno} is change {number}, after change {newest}: the journal is out of sequence"
            break
        if number > seq:
            _apply(data, changes)
            seq = number
        skipped += max(0, number - before - 1)
        last_entry = lineno
        newest = number
        lines += 1
        after += bool(unread)
        length = offset  # (appends go after the last whole change read)
    if unread and damage is None:
        trailing = sum(1 for no in unread if no > last_entry)
        # the lines after the last whole change held saved changes only as far as the mark says
        tail = None if trailing and acked is None else max(0, (acked or 0) - seq) if trailing else 0
        damage = _unread_said(unread, after, None if tail is None else skipped + tail)
    if damage is None and newest is not None and newest < base:
        damage = f"the journal ends at change {newest}, before the snapshot's change {base}"
    if damage is None and acked is not None and acked > seq:
        missing = acked - seq
        damage = (f"the journal ends at change {seq}, but change {acked} was saved: "
                  f"{missing} saved change{'s' if missing != 1 else ''} missing (truncated?)")
    return Replay(seq, length, lines, torn=len(raw) - end, damage=damage, lost=len(unread))


def _apply(data: dict[str, dict[str, Any]], changes: dict[str, Any]) -> None:
    """One journal entry's records put into ``data`` (None: the record deleted)."""
    for table, records in changes.items():
        target = data.setdefault(table, {})
        for key, record in records.items():
            if record is None:
                target.pop(key, None)
            else:
                target[key] = record


def _unread_said(unread: list[int], after: int, lost: int | None) -> str:
    """The damage of lines that are no entry: which (up to five), how many saved changes they held
    (None: cannot be told, no mark of the newest saved change), and the whole changes read past them."""
    one = len(unread) == 1
    where = f"{'line' if one else 'lines'} {', '.join(map(str, unread[:5]))}{'' if len(unread) <= 5 else ', …'}"
    what = "is no journal entry" if one else "are no journal entries"
    if lost is None:
        what += " (its change is lost" if one else " (their changes are lost"
    elif lost:
        what += f" ({lost} saved change{'s' if lost != 1 else ''} lost"
    else:
        what += " (no saved change is missing: stray bytes"
    past = (f"; the {after} whole {'change' if after == 1 else 'changes'} after {'it' if one else 'them'} "
            f"{'is' if after == 1 else 'are'} in effect" if after else "")
    return f"{where} {what}{past})"


def judge(replay: Replay, acked: int | None) -> str | None:
    """What must be kept and told about a replayed journal: its damage, or a torn tail that no
    acknowledged-change mark clears (a library last written by an older papersift)."""
    if replay.damage:
        return replay.damage
    if replay.torn and acked is None:
        return (f"the journal ends in {replay.torn} bytes of an unfinished change (papersift killed while "
                "saving?); it is not applied")
    return None


def _entry(line: bytes, loads: Callable[[bytes], object]) -> tuple[int, dict[str, dict[str, Any]]] | None:
    """(sequence number, changes) of a well-formed journal line, else None."""
    try:
        entry = loads(line)
        number, changes = entry["seq"], entry["set"]  # type: ignore[index]
    except (KeyError, TypeError, ValueError):
        return None
    if not isinstance(number, int) or not isinstance(changes, dict) \
            or not all(isinstance(t, dict) for t in changes.values()):
        return None
    return number, changes


def acked_path_for(path: Path) -> Path:
    """The acknowledged-change mark beside the annotations file: the number of the newest change
    whose journal append was fsynced. Written after that fsync, so it can lag the journal (a
    crash) but never lead it: a journal that ends before it lost saved changes."""
    return path.with_name(path.name + ".acked")


def read_acked(path: Path) -> int | None:
    """The mark, or None when there is none (or it cannot be read: then nothing is judged by it)."""
    from store.files.atomic import open_reading
    try:
        with open_reading(acked_path_for(path)) as fh:
            text = fh.read(64).strip()
    except OSError:  # (a link too: LinkRefusedError is an OSError)
        return None
    return int(text) if text.isdigit() else None


def acked_damaged(path: Path) -> bool:
    """Whether the mark is there but holds no number (damaged, or not papersift's): a journal cut
    short cannot be told by it until the next change writes it anew."""
    from store.files.atomic import open_reading
    try:
        with open_reading(acked_path_for(path)) as fh:
            return not fh.read(64).strip().isdigit()
    except FileNotFoundError:
        return False
    except OSError:
        return True


def write_acked(path: Path, seq: int) -> None:
    """Record ``seq`` as acknowledged. Not fsynced: the mark may lag after a power cut, which only
    makes the check lenient, never wrong. A failure to write it is not a failed change."""
    from store.files.atomic import open_private
    try:
        fd = open_private(acked_path_for(path), os.O_WRONLY)  # 0600, never through a link
    except OSError:
        return
    try:
        record = b"%020d\n" % seq
        os.pwrite(fd, record, 0)  # one fixed-size record: never torn into another number
        if os.fstat(fd).st_size > len(record):
            os.ftruncate(fd, len(record))  # (a longer damaged mark's tail would follow the number)
    except OSError:
        pass
    finally:
        os.close(fd)


def forget_acked(path: Path) -> None:
    """Drop the mark (a snapshot restored from a backup is older than it, on purpose)."""
    try:
        acked_path_for(path).unlink()
    except OSError:
        pass


def _journal_seq(data: dict[str, dict[str, Any]]) -> int:
    meta = data.get(META) or {}
    info: object = next(iter(meta.values()), {}) if meta else {}
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
    info: Any = next(iter(meta.values()), {})  # as read: checked below
    if info.get("format") != ANNOTATIONS_FORMAT:
        raise CorruptFileError(path, "not a papersift annotations file")
    version = info.get("version")
    if type(version) is int and version > ANNOTATIONS_VERSION:
        raise NewerFormatError(path, version, ANNOTATIONS_VERSION)
    if not isinstance(version, int):
        raise CorruptFileError(path, f"the meta table's format version is {repr(version)[:40]}, "
                                     "not a number")
