"""Rebuild a damaged annotations snapshot without losing an acknowledged change silently.

A snapshot (``annotations.json``) cut short or garbled is rebuilt from three sources, oldest
first: the newest backup that reads, the complete records of the damaged file itself (a record
read whole is newer than the backup's), and the journal replayed on top (the changes since the
last fold, which a damaged snapshot does not touch). What could not be recovered is counted:
the changes between the backup and the damaged snapshot whose records did not survive.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from store.annotations.journal import (ANN, ANNOTATIONS_FORMAT, ANNOTATIONS_VERSION, HIST, META, REDO,
                                      journal_path_for)
from store.files.nofollow import read_no_link

_DECODER = json.JSONDecoder()


@dataclass
class Salvage:
    """What a rebuild found: the tables, and how far each source carried them."""

    data: dict[str, dict[str, Any]]
    salvaged: int  # records read whole from the damaged file
    whole: bool  # the damaged file's annotations all read (every paper's state as it had it)
    history_lost: bool  # part of its undo history did not read
    replayed: int  # journal entries applied on top
    lost: int  # acknowledged changes that could not be recovered (0: none)
    newest: int  # the newest change now in the data


def salvage_records(raw: bytes) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """The complete ``key: record`` pairs of each table of a (possibly cut or garbled) snapshot,
    in file order until the first that does not read, and the tables read to their end."""
    text = raw.decode("utf-8", "replace")
    tables: dict[str, dict[str, Any]] = {}
    closed: set[str] = set()
    pos = _skip(text, 0)
    if not text.startswith("{", pos):
        return tables, closed
    pos += 1
    while True:
        pos = _skip(text, pos)
        if text.startswith("}", pos):
            return tables, closed
        try:
            name, pos = _DECODER.raw_decode(text, pos)
            pos = _expect(text, pos, ":")
            pos = _expect(text, pos, "{")
        except ValueError:
            return tables, closed
        table = tables.setdefault(str(name), {})
        while True:
            pos = _skip(text, pos)
            if text.startswith("}", pos):
                pos += 1
                closed.add(str(name))
                break
            try:
                key, after = _DECODER.raw_decode(text, pos)
                after = _expect(text, after, ":")
                value, after = _DECODER.raw_decode(text, _skip(text, after))
            except ValueError:
                return tables, closed
            table[str(key)] = value
            pos = _skip(text, after)
            if text.startswith(",", pos):
                pos += 1
        pos = _skip(text, pos)
        if text.startswith(",", pos):
            pos += 1


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _expect(text: str, pos: int, char: str) -> int:
    pos = _skip(text, pos)
    if not text.startswith(char, pos):
        raise ValueError(f"expected {char!r} at {pos}")
    return pos + 1


def first_journal_change(journal: Path) -> int | None:
    """The number of the journal's first entry: the damaged snapshot held every change before it."""
    try:
        raw = read_no_link(journal)
    except OSError:
        return None
    line = raw.split(b"\n", 1)[0]
    try:
        number = orjson.loads(line)["seq"]
    except (ValueError, KeyError, TypeError):
        return None
    return number if isinstance(number, int) else None


def rebuild(damaged: Path, backup: dict[str, dict[str, Any]] | None, acked: int | None) -> Salvage:
    """The snapshot rebuilt from a backup's tables (None: no good backup), the damaged file's
    whole records and the journal; see the module's docstring."""
    data: dict[str, dict[str, Any]] = {name: dict(table) for name, table in (backup or {}).items()}
    base = _seq(data)
    try:
        raw = read_no_link(damaged)
    except OSError:
        raw = b""
    found, closed = salvage_records(raw)
    whole = ANN in closed
    salvaged = 0
    for name in (ANN, HIST, REDO):
        for key, record in found.get(name, {}).items():
            data.setdefault(name, {})[key] = record
            salvaged += 1
    if META in closed and found.get(META):
        data[META] = found[META]
    journal = journal_path_for(damaged)
    start = first_journal_change(journal)
    snapshot_seq = _seq(found) if META in closed else (start - 1 if start else base)
    replayed, newest = _replay_over(journal, data, after=min(base, snapshot_seq))
    newest = max(newest, snapshot_seq if whole else base)
    # The changes the damaged snapshot alone held (after the backup, before the journal): lost
    # unless its records all read.
    between = max(0, snapshot_seq - base)
    lost = 0 if whole else between
    if acked is not None and acked > max(newest, snapshot_seq):
        lost += acked - max(newest, snapshot_seq)  # (the journal itself ended early)
    meta = data.setdefault(META, {})
    if not meta:
        meta["1"] = {"format": ANNOTATIONS_FORMAT, "version": ANNOTATIONS_VERSION}
    info = next(iter(meta.values()))
    if isinstance(info, dict):
        info["journal_seq"] = max(newest, snapshot_seq)
    history_lost = bool(found) and HIST not in closed
    return Salvage(data, salvaged, whole, history_lost, replayed, lost, max(newest, snapshot_seq))


def _seq(data: dict[str, dict[str, Any]]) -> int:
    meta = data.get(META) or {}
    info: Any = next(iter(meta.values()), {}) if meta else {}
    seq = info.get("journal_seq", 0) if isinstance(info, dict) else 0
    return seq if isinstance(seq, int) else 0


def _replay_over(journal: Path, data: dict[str, dict[str, Any]], after: int) -> tuple[int, int]:
    """Apply every whole journal entry numbered above ``after``, in order, a gap allowed (the
    damaged snapshot's changes sit in it); returns (entries applied, the newest number)."""
    try:
        raw = read_no_link(journal)
    except OSError:
        return 0, after
    applied, newest = 0, after
    for line in raw.split(b"\n"):
        try:
            entry = orjson.loads(line)
            number, changes = entry["seq"], entry["set"]
        except (ValueError, KeyError, TypeError):
            break  # (a torn or garbled line ends what the journal vouches for)
        if not isinstance(number, int) or not isinstance(changes, dict) or number <= newest:
            continue
        for table, records in changes.items():
            target = data.setdefault(table, {})
            for key, record in (records or {}).items():
                if record is None:
                    target.pop(key, None)
                else:
                    target[key] = record
        applied, newest = applied + 1, number
    return applied, newest
