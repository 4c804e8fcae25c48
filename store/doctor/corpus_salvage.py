"""A damaged ``corpus.jsonl`` rebuilt without dropping what it still holds: every whole paper line
of the file as found, then, from the newest backup that reads, the papers its header still names
that no whole line held. A paper in neither is counted, never passed over: the header's id list
says which papers the file held when it was written, so a paper removed after the backup is not
brought back. Used by :mod:`store.doctor`'s repair."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

from store.annotations.nofollow import read_no_link
from store.corpus import Corpus
from store.locations import CORPUS_FORMAT
from store.models import Paper


@dataclass
class Salvaged:
    corpus: Corpus
    whole: int  # papers read from the file's own whole lines
    from_backup: int  # papers the header names that came from the backup
    lost: int  # papers the header names that neither held


def salvage(path: Path, backup: Corpus | None) -> Salvaged | None:
    """The rebuilt corpus, or None when the file's header cannot be read (nothing then says which
    papers it held: the caller restores a backup instead)."""
    lines = read_no_link(path).split(b"\n")
    try:
        header = orjson.loads(lines[0])
    except orjson.JSONDecodeError:
        return None
    if not isinstance(header, dict) or header.get("format") != CORPUS_FORMAT or not isinstance(header.get("ids"), list):
        return None
    named = [i for i in header["ids"] if isinstance(i, str)]
    found: dict[str, Paper] = {}
    for line in lines[1:]:
        try:
            paper = Paper.from_record(orjson.loads(line))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            continue  # a cut or garbled line
        if paper.id in named:
            found.setdefault(paper.id, paper)
    whole = len(found)
    from_backup = 0
    if backup is not None:
        for pid in named:
            idx = backup.index_of(pid)
            if pid not in found and idx is not None and backup.papers[idx].id == pid:
                found[pid] = backup.papers[idx]
                from_backup += 1
    separate = [list(p) for p in header.get("separate") or [] if isinstance(p, list)]
    corpus = Corpus([found[pid] for pid in named if pid in found], separate)
    rules = header.get("title_rules")
    corpus.title_rules = rules if isinstance(rules, int) else 0
    return Salvaged(corpus, whole, from_backup, len(named) - len(found))
