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
import re
import uuid
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar, cast, overload

import numpy as np
import orjson

from store.annotations.atomic import atomic_write_chunks
from store.errors import CorruptFileError, UnknownPaperError
from store.versions import CORPUS_FORMAT, CORPUS_VERSION, TITLE_RULES
from store.models import Paper


def paper_id(normalized: str) -> str:
    """Stable id of a normalized abstract: 12 hex digits of its SHA-1."""
    return hashlib.sha1(normalized.encode("utf-8")).hexdigest()[:12]


_DEFAULTS = {k: v for k, v in vars(Paper("", "", "")).items()}  # a record's missing key (PaperList.fields)
_T = TypeVar("_T")
_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'  # a JSON string (the loop unrolled: ~3x faster in re than an alternation)
_COLUMN_PATTERNS: dict[str, re.Pattern[bytes]] = {}  # key -> its value's pattern in a corpus line (PaperList.column)


class PaperList:
    """A list of papers parsed on first access, from the corpus file's bytes.

    The file is kept as one bytes object plus the offsets of its lines (found
    with numpy), not split into a bytes object per line: at 300k papers that
    split cost a second copy of a 400 MB file.
    """

    def __init__(self, data: bytes = b"", starts: np.ndarray | None = None, path: Path | None = None):
        self._data = data
        self._starts = starts if starts is not None else np.zeros(1, dtype=np.int64)  # n + 1 line starts
        self._papers: list[Paper | None] = [None] * (len(self._starts) - 1)
        self._path = path
        self._line_titles: tuple[list[str | None], list[bool]] | None = None  # (see titles)

    def __len__(self) -> int:
        return len(self._papers)

    def _line(self, i: int) -> bytes | None:
        if i >= len(self._starts) - 1:
            return None
        return self._data[self._starts[i]:self._starts[i + 1] - 1]  # without its newline

    def _parse(self, i: int) -> Paper:
        return self._record(i, Paper.from_record)

    @overload
    def _record(self, i: int) -> dict[str, Any]: ...
    @overload
    def _record(self, i: int, convert: Callable[[dict[str, Any]], _T]) -> _T: ...

    def _record(self, i: int, convert: Callable[[dict[str, Any]], object] = lambda rec: rec) -> object:
        """Paper ``i``'s line read as JSON and given to ``convert``; a line that is not a valid
        paper is a CorruptFileError naming it."""
        try:
            rec = orjson.loads(self._line(i))  # type: ignore[arg-type]
            if not isinstance(rec, dict):
                raise TypeError("not an object")
            return convert(rec)
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise CorruptFileError(self._path or "corpus", f"line {i + 2} is not a valid paper ({exc})") from None

    def fields(self, i: int, keys: tuple[str, ...]) -> list[Any]:
        """Some fields of a paper, from its object when parsed, else from its record without
        making a Paper (a third of :meth:`peek`'s cost: the sources and variants are not built).
        A key the record lacks gives the field's default."""
        paper = self._papers[i]
        if paper is not None:
            return [getattr(paper, key) for key in keys]
        rec = self._record(i)
        return [rec.get(key) or _DEFAULTS[key] for key in keys]

    def peek(self, i: int) -> Paper:
        """The paper, parsed if need be but not kept: for a look at many papers once (a phrase
        filter's candidates) without holding them all."""
        paper = self._papers[i]
        return self._parse(i) if paper is None else paper

    def _get(self, i: int) -> Paper:
        paper = self._papers[i]
        if paper is None:
            paper = self._papers[i] = self._parse(i)
        return paper

    @overload
    def __getitem__(self, i: int) -> Paper: ...
    @overload
    def __getitem__(self, i: slice) -> list[Paper]: ...

    def __getitem__(self, i: int | slice) -> Paper | list[Paper]:
        if isinstance(i, slice):
            return [self._get(j) for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        return self._get(i)

    def __iter__(self) -> Iterator[Paper]:
        for i in range(len(self)):
            yield self._get(i)

    def append(self, paper: Paper) -> None:
        self._papers.append(paper)

    def column(self, key: str) -> list[Any]:
        """One field of every paper (``"authors"``, ``"venue"``, ``"year"``, ``"batch"``: a string, a list
        or a whole number), without parsing the
        papers not parsed yet: their values are found in the corpus file's bytes by key.

        The author:, venue: and year: filters need a field of every paper; parsing every paper for
        it took ~0.25 s and ~70 MB at 30k papers (ten times that at 300k), this ~0.05 s a field and
        keeps no paper.
        Inside a JSON string a quote is escaped, so ``"key":`` matches only the record's own key.
        """
        default = getattr(Paper("", "", ""), key)
        values = [default if p is None else getattr(p, key) for p in self._papers]
        pattern = _COLUMN_PATTERNS.get(key)
        if pattern is None:
            pattern = _COLUMN_PATTERNS[key] = re.compile(
                rb'"' + key.encode() + rb'":(' + _STRING + rb'|\[(?:[^\]"]|' + _STRING + rb')*\]|-?\d+)')
        seen = set()
        for i, raw in self.scan(pattern):
            if i not in seen:  # the record's own key comes first (a kept version's "title" comes after)
                seen.add(i)
                values[i] = orjson.loads(raw)
        return values

    def titles(self) -> tuple[list[str], list[bool]]:
        """Every paper's title and whether it was derived, without parsing the papers not parsed
        yet: a line written by Paper.to_record holds its title right after its abstract (inside a
        JSON string every quote is escaped, so ``,"title":`` there is the record's own key); a line
        of another shape is parsed. The file is scanned once (~0.05 s at 30k papers)."""
        if self._line_titles is None:  # the file's bytes do not change: scanned once
            self._line_titles = self._scan_titles()
        titles, derived = list(self._line_titles[0]), list(self._line_titles[1])
        titles += [None] * (len(self._papers) - len(titles))
        derived += [True] * (len(self._papers) - len(derived))
        for i, paper in enumerate(self._papers):
            if paper is not None:
                titles[i], derived[i] = paper.title, paper.derived_title
            elif titles[i] is None:  # a line of another shape
                rec = self._record(i)
                titles[i], derived[i] = str(rec.get("title", "")), bool(rec.get("derived_title", True))
        return cast("list[str]", titles), derived

    def _scan_titles(self) -> tuple[list[str | None], list[bool]]:
        """Title and derived flag per line of the file (None where the line is of another shape)."""
        n = len(self._starts) - 1
        titles: list[str | None] = [None] * n
        derived = [True] * n
        if self._data:
            found = [(m.start(), m.group(1), m.group(2)) for m in _TITLE_AT.finditer(self._data)]
            lines = np.searchsorted(self._starts, [pos for pos, _, _ in found], side="right") - 1
            values = orjson.loads(b"[" + b",".join([raw for _, raw, _ in found]) + b"]")  # one call for all
            for i, value, (_, _, flag) in zip(lines.tolist(), values, found):
                if 0 <= i < n and titles[i] is None:  # the line's first: its own key (see titles)
                    titles[i] = value
                    derived[i] = flag == b"true"
        return titles, derived

    def as_read(self, i: int) -> Paper | None:
        """Paper ``i`` as its line in the file reads, whatever its object holds now (None for a
        paper added since the file was read)."""
        return self._parse(i) if i < len(self._starts) - 1 else None

    def scan(self, pattern: re.Pattern[bytes]) -> list[tuple[int, bytes]]:
        """(paper index, the match's first group, or the whole match) for every match of a bytes
        pattern in the lines of the papers not parsed yet; a parsed paper is read from its object
        (see :meth:`parsed`), which may have changed since the file was read."""
        if not self._data:
            return []
        found = [(m.start(), m.group(1) if pattern.groups else m.group()) for m in pattern.finditer(self._data)]
        if not found:
            return []
        lines = np.searchsorted(self._starts, [pos for pos, _ in found], side="right") - 1
        n_lines = len(self._starts) - 1
        return [(i, raw) for i, (_, raw) in zip(lines.tolist(), found) if 0 <= i < n_lines and self._papers[i] is None]

    def parsed(self) -> Iterator[Paper]:
        """The papers parsed (or added) so far."""
        return (p for p in self._papers if p is not None)

    def parsed_items(self) -> Iterator[tuple[int, Paper]]:
        """(index, paper) for the papers parsed (or added) so far: what :meth:`scan` leaves out."""
        return ((i, p) for i, p in enumerate(self._papers) if p is not None)

    def record_chunks(self) -> Iterator[bytes | memoryview]:
        """Every paper's line with its newline, in order: a run of papers not parsed as one slice
        of the file's bytes (at 300k papers one write per paper took ~0.6 s), a parsed one
        re-serialized (it may have changed)."""
        view = memoryview(self._data)
        starts = self._starts
        n_lines = len(starts) - 1
        run = -1  # the first line of the current run of unparsed lines
        for i, paper in enumerate(self._papers):
            if paper is None and i < n_lines:
                if run < 0:
                    run = i
                continue
            if run >= 0:
                yield view[starts[run]:starts[i]]
                run = -1
            yield self.record_bytes(i) + b"\n"
        if run >= 0:
            yield view[starts[run]:starts[n_lines]]

    def record_bytes(self, i: int) -> bytes:
        """The paper's line: untouched raw bytes, or the (possibly changed) object re-serialized."""
        paper = self._papers[i]
        return self._line(i) if paper is None else orjson.dumps(paper.to_record())  # type: ignore[return-value]


# In a corpus line written by Paper.to_record: the title and the derived-title flag after it.
_TITLE_AT = re.compile(rb',"title":(' + _STRING + rb'),"derived_title":(true|false)')
# In a corpus line: a paper whose title was read, not derived (a line without it has a derived one:
# a record without the key is read so, see Paper.from_record). Inside a JSON string a quote is escaped.
READ_TITLE = re.compile(rb'"derived_title":false')
# In a corpus line: a source's file name (a paper's, or a merged variant's), as a JSON string. Inside
# a JSON string a quote is escaped, so the pattern matches only the records' own "file" keys.
SOURCE_FILE = re.compile(rb'"file":("(?:[^"\\]|\\.)*")')


class Corpus:
    """Papers in import order with id / alias / prefix lookup."""

    def __init__(self, papers: list[Paper] | None = None, separate: list[list[str]] | None = None):
        self.papers = PaperList()
        self._by_id: dict[str, int] = {}
        self.separate: set[frozenset[str]] = {frozenset(p) for p in separate or []}
        self.generation = ""  # changes on every save; the search-index cache records it
        self.file_signature: tuple[int, int, int] | None = None  # of the file last read or written (file_signature())
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
        """The paper for an id, alias or unambiguous id prefix (>= 4 chars).

        Raises:
            UnknownPaperError: no paper, or the prefix is ambiguous.
        """
        key = key.strip().lower()
        idx = self._by_id.get(key)
        if idx is not None:
            return self.papers[idx]
        if len(key) >= 4:
            hits = {i for k, i in self._by_id.items() if k.startswith(key)}
            if len(hits) == 1:
                return self.papers[hits.pop()]
            if len(hits) > 1:
                raise UnknownPaperError(f"id prefix {key!r} matches {len(hits)} papers; give more characters")
        raise UnknownPaperError(f"no paper with id {key!r} (see `papersift list`)")

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

    def to_lines(self) -> Iterator[bytes | memoryview]:
        """The file's lines (header, then one paper per line), each ending in a newline."""
        yield orjson.dumps(self._header()) + b"\n"
        yield from self.papers.record_chunks()

    def save(self, path: Path) -> None:
        """Write the corpus atomically (streamed: no second copy in memory) under a new generation token."""
        self.generation = uuid.uuid4().hex
        atomic_write_chunks(path, self.to_lines())
        self.file_signature = file_signature(path)

    @classmethod
    def load(cls, path: Path) -> "Corpus":
        """Read a corpus file (papers are parsed lazily).

        Raises:
            CorruptFileError: unparseable, truncated, foreign, or from a newer papersift.
        """
        from store.annotations.nofollow import read_no_link
        signature = file_signature(path)  # before reading: a file replaced meanwhile shows as changed later
        data = read_no_link(path)  # (never through a link a shared folder holds)
        if data and not data.endswith(b"\n"):
            data += b"\n"  # (a file cut mid-line is caught by the count check below)
        ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10) + 1  # after each newline
        starts = np.concatenate(([0], ends)).astype(np.int64)  # line i is data[starts[i]:starts[i+1]]
        n_lines = len(ends)
        try:
            header = orjson.loads(data[:starts[1] - 1]) if n_lines else None
        except orjson.JSONDecodeError as exc:
            raise CorruptFileError(path, f"line 1 is not a valid header ({exc})") from None
        if not isinstance(header, dict) or header.get("format") != CORPUS_FORMAT:
            raise CorruptFileError(path, "not a papersift corpus file")
        version = header.get("version")
        if not isinstance(version, int) or version > CORPUS_VERSION:
            raise CorruptFileError(path, f"written by a newer papersift (format version {version}; "
                                         f"this one reads up to {CORPUS_VERSION}); upgrade papersift")
        if version < CORPUS_VERSION:
            raise CorruptFileError(path, f"format version {version} needs migrating (papersift does this on open)")
        ids, count = header.get("ids"), header.get("count")
        if not isinstance(ids, list) or count != len(ids) or n_lines - 1 != count:
            raise CorruptFileError(path, f"expected {count} papers but found {n_lines - 1} lines (truncated?)")
        corpus = cls(separate=header.get("separate") or [])
        corpus.papers = PaperList(data, starts[1:], path)
        corpus._by_id = {pid: i for i, pid in enumerate(ids)}
        for alias, idx in header.get("aliases") or []:
            corpus._by_id.setdefault(alias, idx)
        corpus.generation = str(header.get("generation", ""))
        rules = header.get("title_rules")
        corpus.title_rules = rules if isinstance(rules, int) else 0  # absent: titles from before the numbering
        batches = header.get("batches")
        corpus.batches = [b for b in batches if isinstance(b, dict) and isinstance(b.get("n"), int)] \
            if isinstance(batches, list) else []
        corpus.file_signature = signature
        return corpus


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

