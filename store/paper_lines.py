"""The corpus file's papers, one JSON line each, parsed on first access (store.corpus keeps the
header and the lookups): the file's bytes and line offsets, a paper's record when it is needed, and
scans of one field over every line (titles, authors, batches) that build no paper.
"""

from __future__ import annotations

import copy
import mmap
import re
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar, cast, overload

import numpy as np
import orjson

from store.files.nofollow import RELEASE_EVERY, release_pages
from store.errors import CorruptFileError
from store.models import Paper

_DEFAULTS = {k: v for k, v in vars(Paper("", "", "")).items()}  # a record's missing key (PaperList.fields)
_T = TypeVar("_T")
_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'  # a JSON string (the loop unrolled: ~3x faster in re than an alternation)
_COLUMN_PATTERNS: dict[str, re.Pattern[bytes]] = {}  # key -> its value's pattern in a corpus line (PaperList.column)


class PaperList:
    """A list of papers parsed on first access, from the corpus file's bytes.

    The file is kept as one bytes object (or, a big file, its read-only mapping: see
    store.files.nofollow.read_or_map) plus the offsets of its lines, not split into a
    bytes object per line: at 300k papers that split cost a second copy of a 400 MB file.
    """

    def __init__(self, data: bytes | mmap.mmap = b"", starts: np.ndarray | None = None, path: Path | None = None):
        self._data = data
        self._starts = starts if starts is not None else np.zeros(1, dtype=np.int64)  # n + 1 line starts
        self._papers: list[Paper | None] = [None] * (len(self._starts) - 1)
        self._path = path
        self._line_titles: tuple[list[str | None], list[bool]] | None = None  # (see titles)

    def __len__(self) -> int:
        return len(self._papers)

    def __deepcopy__(self, memo: dict[int, Any]) -> "PaperList":
        """A copy sharing the file's bytes (never changed: bytes, or a read-only mapping, which
        cannot be copied), and nothing else."""
        clone = copy.copy(self)
        memo[id(self)] = clone
        for name, value in vars(self).items():
            if name != "_data":
                setattr(clone, name, copy.deepcopy(value, memo))
        return clone

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

    def in_memory(self) -> int:
        """How many papers are held as objects (parsed, or added since the file was read)."""
        return len(self._papers) - self._papers.count(None)

    def unparsed_fields(self, keys: tuple[str, ...]) -> Iterator[list[Any]]:
        """Some fields of every paper, in order, as :meth:`fields` reads them, keeping no paper: a
        pass over every line (the index build's) leaves no Paper behind, and a mapped file's pages
        go back to the page cache as the pass leaves them (store.files.nofollow)."""
        released = 0
        n_lines = len(self._starts) - 1
        for i in range(len(self._papers)):
            yield self.fields(i, keys)
            if i < n_lines and self._starts[i] - released >= RELEASE_EVERY:
                released = release_pages(self._data, released, int(self._starts[i]))

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
            found = []
            for a, b in self._windows():
                found += [(m.start(), m.group(1), m.group(2)) for m in _TITLE_AT.finditer(self._data, a, b)]
                release_pages(self._data, a, b)  # (a mapped file's pages, read: back to the page cache)
            lines = np.searchsorted(self._starts, [pos for pos, _, _ in found], side="right") - 1
            values = orjson.loads(b"[" + b",".join([raw for _, raw, _ in found]) + b"]")  # one call for all
            for i, value, (_, _, flag) in zip(lines.tolist(), values, found):
                if 0 <= i < n and titles[i] is None:  # the line's first: its own key (see titles)
                    titles[i] = value
                    derived[i] = flag == b"true"
        return titles, derived

    def _windows(self) -> Iterator[tuple[int, int]]:
        """The file's papers' lines as spans of whole lines of about RELEASE_EVERY bytes (a scan
        by span gives a mapped file's pages back as it goes, not after a whole pass)."""
        starts = self._starts
        at, lines_end = int(starts[0]), int(starts[-1])
        while at < lines_end:
            k = int(np.searchsorted(starts, at + RELEASE_EVERY, side="left"))  # the first line from there
            end = int(starts[k]) if k < len(starts) else lines_end
            yield at, end
            at = end

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

    def record_chunks(self, written: list[np.ndarray] | None = None) -> Iterator[bytes | memoryview]:
        """Every paper's line with its newline, in order: a run of papers not parsed as one slice
        of the file's bytes (at 300k papers one write per paper took ~0.6 s), a parsed one
        re-serialized (it may have changed). ``written``, if given, receives where each line
        starts from the first (then where the last ends), as arrays to concatenate."""
        view = memoryview(self._data)
        starts = self._starts
        n_lines = len(starts) - 1
        run = -1  # the first line of the current run of unparsed lines
        at = 0  # where the next line starts in what was yielded
        for i, paper in enumerate(self._papers):
            if paper is None and i < n_lines:
                if run < 0:
                    run = i
                continue
            if run >= 0:
                if written is not None:
                    written.append(starts[run:i] - starts[run] + at)
                at += int(starts[i] - starts[run])
                yield view[starts[run]:starts[i]]
                run = -1
            line = self.record_bytes(i) + b"\n"
            if written is not None:
                written.append(np.array([at], dtype=np.int64))
            at += len(line)
            yield line
        if run >= 0:
            if written is not None:
                written.append(starts[run:n_lines] - starts[run] + at)
            at += int(starts[n_lines] - starts[run])
            yield view[starts[run]:starts[n_lines]]
        if written is not None:
            written.append(np.array([at], dtype=np.int64))

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
