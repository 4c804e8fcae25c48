"""Imports as batches, and arXiv papers seen again in a newer version.

Every import that adds or revises papers is a batch: a number (1, 2, …), its time, what it added and
revised, and the files it read, kept in the corpus file's header; each paper it added records the
batch's number and time (``Paper.batch``, ``Paper.added``), which the ``new:``, ``batch:`` and
``added:`` filters read. A paper seen before — the same arXiv id in any version, a cross-list
(the same id again), or a near duplicate — is not new. A newer version of an arXiv paper replaces
its text and title, keeps its id (so every member's marks stay on it), keeps the text it replaces
(``Paper.versions``) and records the batch that brought it (``Paper.revised``: the ``updated:``
filter).
"""

from __future__ import annotations

import re
from typing import Any

from store.corpus import Corpus, is_batch_number
from store.models import Paper

# An arXiv id as the feeds and the snapshot write it: new style (2401.12345, 2401.12345v2) or old
# style (cs/0601001v1), bare, prefixed "arXiv:", or as an abs page's address.
_ARXIV = re.compile(r"^(?:arxiv:|https?://arxiv\.org/abs/)?((?:\d{4}\.\d{4,5})|(?:[a-z\-]+(?:\.[a-z]{2})?/\d{7}))"
                    r"(?:v(\d+))?$", re.IGNORECASE)


def arxiv_key(external_id: str) -> tuple[str, int] | None:
    """(the id without its version, the version or 0) of an arXiv id; None for any other id."""
    m = _ARXIV.match(external_id.strip())
    return (m.group(1).lower(), int(m.group(2) or 0)) if m else None


class ArxivIndex:
    """The library's arXiv papers by id without version, read from the corpus file's column (no
    paper parsed), made when an import first holds an arXiv record."""

    def __init__(self, corpus: Corpus) -> None:
        self.rows: dict[str, int] = {}
        for i, ext in enumerate(corpus.papers.column("external_id")):
            key = arxiv_key(ext) if ext else None
            if key is not None:
                self.rows.setdefault(key[0], i)

    def add(self, external_id: str, row: int) -> None:
        key = arxiv_key(external_id)
        if key is not None:
            self.rows.setdefault(key[0], row)


def held_version(paper: Paper) -> int:
    """The arXiv version of the text a paper holds (its recorded one, else its id's, else 1)."""
    if paper.version:
        return paper.version
    key = arxiv_key(paper.external_id)
    return key[1] if key and key[1] else 1


def revise(paper: Paper, abstract: str, title: str, version: int, batch: int, external_id: str,
           url: str = "") -> None:
    """A newer version's text, title and link replace the paper's; the text replaced is kept."""
    paper.versions.append({"version": held_version(paper), "title": paper.title, "abstract": paper.abstract})
    paper.abstract = abstract
    if title:
        paper.title, paper.derived_title = title, False
    paper.version = version
    paper.revised = batch
    paper.external_id = external_id
    if url:
        paper.url = url


def next_batch(corpus: Corpus) -> int:
    """The number the next import takes: one past the highest kept (the corpus reads its records
    type-checked, :func:`store.corpus.checked_batches`; a number out of range is passed over here too)."""
    return max((b["n"] for b in corpus.batches if is_batch_number(b.get("n"))), default=0) + 1


def record_batch(corpus: Corpus, first_new: int, number: int, time: str, revised: int,
                 files: list[str], chosen: bool = False) -> dict[str, Any] | None:
    """Stamp the papers added from position ``first_new`` on with the batch, and keep the batch in
    the corpus (None, and nothing kept, when the import added and revised nothing). ``chosen``: a
    person's import (the command line's, the app's, a sync's), kept as ``"chosen": true``: papers
    of theirs, the sample's own files too, never the sample a first import replaces."""
    added = len(corpus) - first_new
    if not added and not revised:
        return None
    for i in range(first_new, len(corpus)):
        paper = corpus.papers[i]
        paper.batch, paper.added = number, time
    batch = {"n": number, "time": time, "new": added, "revised": revised, "files": files[:20], **({"chosen": True} if chosen else {})}
    corpus.batches.append(batch)
    return batch


def last_batch(corpus: Corpus) -> dict[str, Any] | None:
    """The newest batch that added papers (what ``new:`` lists): the highest number, wherever a
    corpus file's header put it."""
    return max((b for b in corpus.batches if is_batch_number(b.get("n")) and b.get("new")), key=lambda b: b["n"],
               default=None)
