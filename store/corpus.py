"""The deduplicated corpus: papers in import order, looked up by id or alias.

Stored as one JSON Lines file (``corpus.jsonl``), written atomically. Line 1
is a header: format name and version, a generation token (the search-index
cache records it), the pairs that must never be merged, and every paper's id
and aliases. Each further line is one paper. Opening a library reads the file
and parses only the header; a paper is parsed when it is first used, so a
search over 30,000 papers does not build 30,000 objects to show twenty.

Format history: version 1 was a single JSON document (``corpus.json``);
:func:`migrate_v1` converts it, keeping the old file as a backup.
"""

from __future__ import annotations

import hashlib
import itertools
import mmap
import uuid
from pathlib import Path
from typing import Any, Iterator, TypeGuard

import numpy as np
import orjson

from store.files.atomic import atomic_write_chunks
from store.errors import CorruptFileError, NewerFormatError, UnknownPaperError
from store.paper_lines import READ_TITLE, PaperList
from store.versions import CORPUS_FORMAT, CORPUS_VERSION, TITLE_RULES
from store.models import Paper
from store.wording import counted


def paper_id(normalized: str) -> str:
    """Stable id of a normalized abstract: 12 hex digits of its SHA-1."""
    return hashlib.sha1(normalized.encode("utf-8")).hexdigest()[:12]


MIN_PREFIX = 2  # the shortest id prefix taken for a paper's id
PREFIX_CANDIDATES = 8  # the candidates an ambiguous prefix names


class Corpus:
    """Papers in import order with id / alias / prefix lookup."""

    def __init__(self, papers: list[Paper] | None = None, separate: list[list[str]] | None = None):
        self.papers = PaperList()
        self._by_id: dict[str, int] = {}
        self.separate: set[frozenset[str]] = {frozenset(p) for p in separate or []}
        self.generation = ""  # changes on every save; the search-index cache records it
        self.file_signature: tuple[int, int, int] | None = None  # of the file last read or written (file_signature())
        # Where each paper's line starts in that file (then where the last ends): the one-shot
        # search reads a few papers' text from there (store.search.quick). None: never written.
        self.line_starts: np.ndarray | None = None
        self.title_rules = TITLE_RULES  # the rules its derived titles were made with (see store.versions)
        # Every import that changed something, oldest first: {"n", "time", "new", "revised", "files"}
        # (store.ingest.batches); a paper's ``batch`` is the n of the one that added it.
        self.batches: list[dict[str, Any]] = []
        for paper in papers or []:
            self.add(paper)

    def __len__(self) -> int:
        return len(self.papers)

    def __iter__(self) -> Iterator[Paper]:
        return iter(self.papers)

    def add(self, paper: Paper) -> int:
        """Append a paper; returns its index."""
        idx = len(self.papers)
        self.papers.append(paper)
        self._by_id[paper.id] = idx
        for alias in paper.aliases:
            self._by_id.setdefault(alias, idx)
        return idx

    def has_derived_titles(self) -> bool:
        """Whether some paper's title was derived from its abstract (`papersift retitle` has work
        only then), found in the file's bytes for the papers not parsed yet (~0.1 s at 300k papers)."""
        papers = self.papers
        parsed = 0
        for paper in papers.parsed():
            if paper.derived_title:
                return True
            parsed += 1
        return len(papers.scan(READ_TITLE)) < len(papers) - parsed

    def add_alias(self, alias: str, idx: int) -> None:
        self.papers[idx].aliases.append(alias)
        self._by_id.setdefault(alias, idx)

    def index_of(self, key: str) -> int | None:
        """Index of the paper with this id or alias (exact), else None."""
        return self._by_id.get(key)

    def resolve(self, key: str) -> Paper:
        """The paper for an id, alias or unambiguous id prefix (>= 2 characters, as git takes one).

        Raises:
            UnknownPaperError: no paper, or the prefix is ambiguous (its candidates named).
        """
        key = key.strip().lower()
        idx = self._by_id.get(key)
        if idx is not None:
            return self.papers[idx]
        if len(key) >= MIN_PREFIX:
            hits = sorted({i for k, i in self._by_id.items() if k.startswith(key)})
            if len(hits) == 1:
                return self.papers[hits[0]]
            if len(hits) > 1:
                named = ", ".join(f"{self.papers[i].id} “{_short(self.papers[i].title)}”" for i in hits[:PREFIX_CANDIDATES])
                more = f" and {len(hits) - PREFIX_CANDIDATES:,} more" if len(hits) > PREFIX_CANDIDATES else ""
                raise UnknownPaperError(f"id prefix {key!r} is ambiguous: {counted(len(hits), 'paper')} start with it "
                                        f"({named}{more}); give more characters")
        elif key and any(k.startswith(key) for k in self._by_id):
            raise UnknownPaperError(f"id prefix {key!r} is too short: give {MIN_PREFIX} characters or more")
        raise UnknownPaperError(f"no paper with id {key!r} (see `papersift list`)")

    def starting_with(self, prefix: str) -> list[int]:
        """The positions of the papers whose id starts with ``prefix`` (of at least ``MIN_PREFIX``
        characters; none for a shorter one), in corpus order."""
        if len(prefix) < MIN_PREFIX:
            return []
        return sorted({i for k, i in self._by_id.items() if k.startswith(prefix)})

    def rebuild_lookup(self) -> None:
        self._by_id = {}
        for idx, paper in enumerate(self.papers):
            self._by_id[paper.id] = idx
        for idx, paper in enumerate(self.papers):
            for alias in paper.aliases:
                self._by_id.setdefault(alias, idx)

    def ids(self) -> list[str]:
        """Every paper's id in import order, from the lookup (no paper is parsed)."""
        primary = [""] * len(self.papers)
        for key, idx in self._by_id.items():
            if not primary[idx]:
                primary[idx] = key  # the paper id is always inserted before its aliases
        return primary

    def _header(self) -> dict[str, Any]:
        primary = [""] * len(self.papers)
        aliases = []
        for key, idx in self._by_id.items():
            if not primary[idx]:
                primary[idx] = key  # the paper id is always inserted before its aliases
            else:
                aliases.append([key, idx])
        return {"format": CORPUS_FORMAT, "version": CORPUS_VERSION, "generation": self.generation,
                "count": len(self.papers), "ids": primary, "aliases": aliases,
                "separate": sorted(sorted(pair) for pair in self.separate), "title_rules": self.title_rules,
                **({"batches": self.batches} if self.batches else {})}

    def save(self, path: Path) -> None:
        """Write the corpus atomically (streamed: no second copy in memory) under a new generation
        token: the header, then one paper per line, each ending in a newline."""
        self.generation = uuid.uuid4().hex
        header = orjson.dumps(self._header()) + b"\n"
        written: list[np.ndarray] = []
        atomic_write_chunks(path, itertools.chain([header], self.papers.record_chunks(written)))
        self.file_signature = file_signature(path)
        self.line_starts = np.concatenate(written) + len(header)

    @classmethod
    def load(cls, path: Path) -> "Corpus":
        """Read a corpus file (papers are parsed lazily).

        Raises:
            CorruptFileError: unparseable, truncated, foreign, or from a newer papersift.
        """
        from store.files.nofollow import read_or_map
        signature = file_signature(path)  # before reading: a file replaced meanwhile shows as changed later
        data = read_or_map(path)  # (never through a link a shared folder holds)
        if len(data) and data[-1:] != b"\n":
            data = bytes(data) + b"\n"  # (a file cut mid-line is caught by the count check below)
        starts = line_starts(data)  # line i is data[starts[i]:starts[i+1]]
        n_lines = len(starts) - 1
        try:
            header = orjson.loads(data[:starts[1] - 1]) if n_lines else None
        except orjson.JSONDecodeError as exc:
            raise CorruptFileError(path, f"line 1 is not a valid header ({exc})") from None
        if not isinstance(header, dict) or header.get("format") != CORPUS_FORMAT:
            raise CorruptFileError(path, "not a papersift corpus file")
        version = header.get("version")
        if type(version) is int and version > CORPUS_VERSION:
            raise NewerFormatError(path, version, CORPUS_VERSION)
        if not isinstance(version, int):
            raise CorruptFileError(path, f"line 1: the header's format version is {repr(version)[:40]}, "
                                         "not a number")
        if version < CORPUS_VERSION:
            raise CorruptFileError(path, f"format version {version} needs migrating (papersift does this on open)")
        ids, count = header.get("ids"), header.get("count")
        if not isinstance(ids, list) or count != len(ids) or n_lines - 1 != count:
            said = counted(count, "paper") if isinstance(count, int) else "a count of papers"
            guess = " (truncated?)" if isinstance(count, int) and n_lines - 1 < count else \
                " (a paper's line broken in two, or lines added?)" if isinstance(count, int) else ""
            raise CorruptFileError(path, f"expected {said} but found {counted(n_lines - 1, 'line')}{guess}")
        corpus = cls(separate=header.get("separate") or [])
        corpus.papers = PaperList(data, starts[1:], path)
        corpus._by_id = {pid: i for i, pid in enumerate(ids)}
        for alias, idx in header.get("aliases") or []:
            corpus._by_id.setdefault(alias, idx)
        corpus.generation = str(header.get("generation", ""))
        rules = header.get("title_rules")
        corpus.title_rules = rules if isinstance(rules, int) else 0  # absent: titles from before the numbering
        corpus.batches = checked_batches(header.get("batches"))
        corpus.file_signature = signature
        corpus.line_starts = starts[1:]
        return corpus


MAX_BATCH = 1_000_000_000  # an import's number: far past any library's imports, far inside int64


def is_batch_number(value: object) -> TypeGuard[int]:
    """A batch's number: a whole number from 1 to MAX_BATCH (not a bool, a float or a string)."""
    return type(value) is int and 1 <= value <= MAX_BATCH


def checked_batches(records: object) -> list[dict[str, Any]]:
    """The corpus header's batch records, type-checked: the file may come from a colleague's library,
    or from anyone. A record that is not an object, or whose number is not a batch number (negative,
    ``true``, 10**30, "9") or repeats an earlier record's, is passed over; the rest keep their number,
    with their counts whole numbers from 0 (else 0), their time a string and their files strings."""
    kept: list[dict[str, Any]] = []
    seen: set[int] = set()
    for b in records if isinstance(records, list) else []:
        if not isinstance(b, dict) or not is_batch_number(n := b.get("n")) or n in seen:
            continue
        seen.add(n)
        files = b.get("files")
        kept.append({**b, "n": n, "time": b["time"] if isinstance(b.get("time"), str) else "",
                     "new": _count(b.get("new")), "revised": _count(b.get("revised")),
                     "files": [f for f in files if isinstance(f, str)][:20] if isinstance(files, list) else []})
    return kept


def _count(value: object) -> int:
    return value if type(value) is int and 0 <= value <= 1 << 53 else 0


def line_starts(data: bytes | mmap.mmap) -> np.ndarray:
    """0, then the offset after each newline (int64): line i is ``data[starts[i]:starts[i+1]]``
    for data that ends with a newline. ``bytes.find`` runs at memchr's speed: at 300k lines of 430 MB it takes a tenth of
    the time of a comparison over the whole buffer, and no buffer-sized temporary."""
    from store.files.nofollow import RELEASE_EVERY, release_pages
    starts = [0]
    append, find = starts.append, data.find
    at = find(b"\n")
    released, next_release = 0, RELEASE_EVERY
    while at >= 0:
        append(at + 1)
        if at > next_release:  # a mapped file's pages, read, go back to the page cache as the scan goes
            released = release_pages(data, released, at)
            next_release = at + RELEASE_EVERY
        at = find(b"\n", at + 1)
    release_pages(data, released, len(data))
    return np.fromiter(starts, dtype=np.int64, count=len(starts))


def file_signature(path: Path) -> tuple[int, int, int] | None:
    """(inode, size, mtime) of a file, None if it is missing: a cheap test for "written since".
    Saves replace the file (os.replace), so each gets a new inode."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def migrate_v1(old: Path, new: Path) -> Corpus:
    """Convert a version-1 ``corpus.json`` into ``corpus.jsonl``; the caller backs up the old file."""
    try:
        data = orjson.loads(old.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise CorruptFileError(old, f"not valid JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != CORPUS_FORMAT or data.get("version") != 1:
        raise CorruptFileError(old, "not a version-1 papersift corpus file")
    try:
        corpus = Corpus([Paper.from_record(r) for r in data["papers"]], data.get("separate") or [])
    except (KeyError, TypeError, ValueError) as exc:
        raise CorruptFileError(old, f"malformed paper record ({exc!r})") from None
    corpus.title_rules = 0  # its titles are as an old papersift derived them
    corpus.save(new)
    return corpus


def _short(title: str, width: int = 40) -> str:
    """A title cut to ``width`` characters, for naming candidates in one line."""
    title = " ".join(title.split())
    return title if len(title) <= width else title[:width - 1].rstrip() + "…"
