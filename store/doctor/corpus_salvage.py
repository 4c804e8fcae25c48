"""A damaged ``corpus.jsonl`` rebuilt without dropping what it still holds: every whole paper line
of the file as found, then, from the newest backup that reads, the papers its header still names
that no whole line held. A paper in neither is counted, never passed over: the header's id list
says which papers the file held when it was written, so a paper removed after the backup is not
brought back. A damaged header keeps every whole line and takes every paper of the backup they
lack. Used by :mod:`store.doctor`'s repair."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from store.files.nofollow import read_no_link
from store.corpus import Corpus, checked_batches, is_batch_number
from store.versions import CORPUS_FORMAT
from store.models import Paper


@dataclass
class Salvaged:
    corpus: Corpus
    whole: int  # papers read from the file's own whole lines
    from_backup: int  # papers the header names that came from the backup
    lost: int  # papers the header names that neither held
    header_lost: bool = False  # the header was damaged: the backup's papers were all taken
    lost_ids: list[str] = field(default_factory=list)  # the ids of the papers lost (the header's)


def salvage(path: Path, backup: Corpus | None) -> Salvaged:
    """The rebuilt corpus. When the header itself is damaged, nothing says which papers the file
    held: every whole line is kept, and every paper of the backup that no line holds is added
    (``header_lost``; a paper removed since that backup may come back, never one lost)."""
    lines = read_no_link(path).split(b"\n")
    head = _header(lines[0])
    sound = head is not None
    named = [i for i in head["ids"] if isinstance(i, str)] if head is not None else None
    found = _whole_lines(lines[1 if sound else 0:], set(named) if named is not None else None)
    whole = len(found)
    from_backup = _from_backup(found, named, backup) if backup is not None else 0
    order = named if named is not None else list(found)
    if head is not None:
        separate = [list(p) for p in head.get("separate") or [] if isinstance(p, list)]
    else:
        separate = [list(p) for p in backup.separate] if backup is not None else []
    corpus = Corpus([found[pid] for pid in order if pid in found], separate)
    rules = head.get("title_rules", 0) if head is not None else backup.title_rules if backup is not None else 0
    corpus.title_rules = rules if isinstance(rules, int) else 0
    corpus.batches = _batches(head, backup, corpus)
    missing = [pid for pid in named if pid not in found] if named is not None else []
    return Salvaged(corpus, whole, from_backup, len(missing), header_lost=not sound, lost_ids=missing)


def _batches(head: dict[str, Any] | None, backup: Corpus | None, corpus: Corpus) -> list[dict[str, Any]]:
    """The imports the file recorded (``new:`` and ``batch:`` read them; a repair without them
    left every paper of no import): the header's, else the backup's, with an import since the
    backup made again from its papers' numbers and times (its file names and counts are gone)."""
    if head is not None:
        return checked_batches(head.get("batches"))
    kept = list(backup.batches) if backup is not None else []
    known = {b["n"] for b in kept}
    since: dict[int, list[str]] = {}
    for paper in corpus:
        if is_batch_number(paper.batch) and paper.batch not in known:
            since.setdefault(paper.batch, []).append(paper.added)
    kept += [{"n": n, "time": min(times), "new": len(times), "revised": 0, "files": []} for n, times in sorted(since.items())]
    return kept


def _header(line: bytes) -> dict[str, Any] | None:
    """The file's header, if it is a corpus header still naming its papers."""
    try:
        header = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if isinstance(header, dict) and header.get("format") == CORPUS_FORMAT and isinstance(header.get("ids"), list):
        return header
    return None


def _whole_lines(lines: list[bytes], named: set[str] | None) -> dict[str, Paper]:
    """The papers of the lines that read whole (the first line of an id kept), those the header
    names only when it names any."""
    found: dict[str, Paper] = {}
    for line in lines:
        try:
            paper = Paper.from_record(orjson.loads(line))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            continue  # a cut or garbled line
        if named is None or paper.id in named:
            found.setdefault(paper.id, paper)
    return found


def _from_backup(found: dict[str, Paper], named: list[str] | None, backup: Corpus) -> int:
    """Add to ``found`` the papers of ``backup`` no whole line held (those the header names, or
    with no header every one); how many came."""
    taken = 0
    for pid in named if named is not None else [p.id for p in backup.papers]:
        idx = backup.index_of(pid)
        if pid not in found and idx is not None and backup.papers[idx].id == pid:
            found[pid] = backup.papers[idx]
            taken += 1
    return taken
