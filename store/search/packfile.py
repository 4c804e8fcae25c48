"""Named binary sections in one file: the search-index cache's format.

A text header line (``papersift-pack VERSION BYTEORDER`` then ``name:kind:offset:length:crc32``
per section) is followed by the raw sections, each aligned to 8 bytes. The CRC-32 of each
section lets a reader of a whole section know its bytes are the ones written: a cache is
untrusted input, and a garbled posting list would otherwise point past the corpus. A kind is an
``array`` typecode (``i`` int32, ``q`` int64, ``f`` float32, ``b`` int8, ``H`` uint16) or ``s`` for
UTF-8 text. The app reads the whole file and views the sections with numpy without
copying; a one-shot ``papersift search`` (:mod:`store.search.quick`) seeks to the few slices
it needs with the standard library alone. Nothing here needs numpy.
"""

from __future__ import annotations

import io
import mmap
import os
import sys
import zlib
from array import array
from itertools import accumulate
from typing import Any, BinaryIO, Callable, cast

from store.files import nofollow

MAGIC = "papersift-pack"
VERSION = 2
ITEM_SIZE = {"i": 4, "q": 8, "f": 4, "b": 1, "H": 2, "s": 1}


def pack(sections: list[tuple[str, str, object]]) -> list[bytes | memoryview]:
    """The file's chunks for ``(name, kind, data)`` sections; data is bytes-like
    (an ``array``, a contiguous numpy array, ``bytes``), a list of such pieces written one after
    another (a section spliced from an older file's), or, for kind ``s``, a str."""
    body: list[bytes | memoryview] = []
    entries = []
    pos = 0
    for name, kind, data in sections:
        pieces = data if isinstance(data, list) else [data]
        raws = [p.encode("utf-8") if isinstance(p, str) else memoryview(p).cast("B") for p in pieces]  # type: ignore[arg-type]
        crc = size = 0
        for raw in raws:
            crc, size = zlib.crc32(raw, crc), size + len(raw)
        entries.append(f"{name}:{kind}:{pos}:{size}:{crc:08x}")
        body.extend(raws)
        pad = -size % 8
        if pad:
            body.append(b"\0" * pad)
        pos += size + pad
    header = f"{MAGIC} {VERSION} {sys.byteorder} " + " ".join(entries) + "\n"
    return [header.encode("ascii"), *body]


def stamped(generation: str, chunks: list[bytes | memoryview]) -> list[bytes | memoryview]:
    """A cache file's chunks: the corpus generation it was made from, on a line of its own, then
    the pack (the index cache and the phrase cache are such files)."""
    return [generation.encode("ascii") + b"\n", *chunks]


def stamp_matches(handle: BinaryIO, generation: str | bytes) -> bool:
    """Whether a :func:`stamped` file, open at its start, is of this generation (it is then
    positioned at the pack)."""
    want = generation if isinstance(generation, bytes) else generation.encode("ascii", "replace")
    return handle.readline(len(want) + 2).rstrip(b"\n") == want


HEADER_MAX = 1 << 16  # a header line longer than this is not a pack's (ours are ~1 KB)


class PackReader:
    """Sections of a pack read from an open binary file positioned at its header.

    A cache file is untrusted input (a library folder may come from someone else, or be cut
    short): every section must lie within the file, with a known kind and a whole number of
    items, before anything is allocated for it; reads stay inside their section.

    Raises ValueError for a file that is not a sound pack of this version and byte order.
    """

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        line = handle.readline(HEADER_MAX)
        if not line.endswith(b"\n"):
            raise ValueError("not a papersift pack (no header line)")
        words = line.decode("ascii").split()
        if len(words) < 3 or words[0] != MAGIC or words[1] != str(VERSION) or words[2] != sys.byteorder:
            raise ValueError("not a papersift pack of this version")
        self.base = handle.tell()
        try:
            size = os.fstat(handle.fileno()).st_size - self.base
        except (OSError, AttributeError, io.UnsupportedOperation):  # (an in-memory file)
            size = None
        self.sections: dict[str, tuple[str, int, int]] = {}
        self.crcs: dict[str, int] = {}
        for entry in words[3:]:
            name, kind, offset_text, length_text, crc_text = entry.split(":")
            offset, length, self.crcs[name] = int(offset_text), int(length_text), int(crc_text, 16)
            if kind not in ITEM_SIZE or offset < 0 or length < 0 or length % ITEM_SIZE[kind] \
                    or (size is not None and offset + length > size):
                raise ValueError(f"section {name!r} claims bytes the file does not hold")
            self.sections[name] = (kind, offset, length)

    def __contains__(self, name: str) -> bool:
        return name in self.sections

    def check(self, name: str, raw: bytes | bytearray | memoryview) -> None:
        """Raise ValueError unless ``raw`` is the whole of section ``name`` as it was written."""
        if zlib.crc32(raw) != self.crcs[name]:
            raise ValueError(f"section {name!r} is not as it was written (its CRC-32 differs)")

    def check_in(self, name: str, data: bytearray | memoryview) -> None:
        """:meth:`check` of section ``name`` where it lies in :func:`file_bytes`'s buffer, a window
        at a time: a mapped file's pages go back to the page cache once read (a search maps the
        postings it reads again), so checking a 265 MB index leaves none of it resident."""
        _, offset, length = self.sections[name]
        view, crc, at, end = memoryview(data), 0, offset, offset + length
        released = self.base + offset
        while at < end:
            stop = min(at + nofollow.RELEASE_EVERY, end)
            crc = zlib.crc32(view[at:stop], crc)
            released = nofollow.release_pages(data, released, self.base + stop)
            at = stop
        if crc != self.crcs[name]:
            raise ValueError(f"section {name!r} is not as it was written (its CRC-32 differs)")

    def count(self, name: str) -> int:
        kind, _, length = self.sections[name]
        return length // ITEM_SIZE[kind]

    def read(self, name: str, start: int = 0, stop: int | None = None) -> array[Any] | str:
        """Items ``start:stop`` of a section: an ``array`` (or str for text). A whole section is
        checked against its CRC-32 (ValueError if it differs); a slice, read for speed, is not."""
        kind, offset, length = self.sections[name]
        size = ITEM_SIZE[kind]
        count = length // size
        whole = start <= 0 and (stop is None or stop >= count)
        stop = count if stop is None else min(stop, count)
        start = max(0, min(start, stop))
        self.handle.seek(self.base + offset + start * size)
        raw = self.handle.read(max(0, stop - start) * size)
        if whole:
            self.check(name, raw)
        if kind == "s":
            return raw.decode("utf-8")
        out = array(kind)
        out.frombytes(raw)
        return out

    def lines(self, name: str) -> list[str]:
        """A text section of newline-separated words (empty section: no words)."""
        text = self.read(name)
        return text.split("\n") if text else []  # type: ignore[union-attr]


def items_sections(name: str, texts: list[str]) -> list[tuple[str, str, object]]:
    """Strings that may hold any character, for random access: a text blob and
    the int64 offsets of each string in it (in UTF-8 bytes)."""
    blobs = [t.encode("utf-8") for t in texts]
    offsets = array("q", [0])
    offsets.extend(accumulate(map(len, blobs)))
    return [(name, "s", b"".join(blobs)), (name + "_offsets", "q", offsets)]


def read_item(reader: PackReader, name: str, i: int) -> str:
    """String ``i`` of an :func:`items_sections` pair."""
    a, b = cast("array[int]", reader.read(name + "_offsets", i, i + 2))  # a "q" section
    _, offset, length = reader.sections[name]
    if not 0 <= a <= b <= length:
        raise ValueError(f"item {i} of {name!r} lies outside its section")
    reader.handle.seek(reader.base + offset + a)
    return reader.handle.read(b - a).decode("utf-8")


def words_sections(name: str, words: list[str]) -> list[tuple[str, str, object]]:
    """A sorted list of words without newlines, readable one first-character chunk at a
    time (:func:`chunk_loader`): the words, newline-separated, and a table of chunks
    (``first<TAB>position<TAB>start byte<TAB>end byte`` per line)."""
    rows: list[list[str | int]] = []  # [first character, position, start byte, end byte]
    pos = 0
    for i, w in enumerate(words):
        size = len(w.encode("utf-8")) + 1
        if not rows or rows[-1][0] != w[0]:
            rows.append([w[0], i, pos, pos])
        pos += size
        rows[-1][3] = pos - 1  # without the newline
    table = "\n".join(f"{f}\t{i}\t{a}\t{b}" for f, i, a, b in rows)
    return [(name, "s", "\n".join(words)), (name + "_chunks", "s", table)]


def chunk_loader(reader: PackReader, name: str) -> Callable[[str], tuple[int, list[str]]]:
    """``first -> (position, words)`` for a :func:`words_sections` pair, reading only that chunk."""
    table: dict[str, tuple[int, int, int]] = {}
    for line in reader.lines(name + "_chunks"):
        first, i, a, b = line.split("\t")
        table[first] = (int(i), int(a), int(b))
    _, offset, length = reader.sections[name]
    if any(not 0 <= a <= b <= length for _, a, b in table.values()):
        raise ValueError(f"a chunk of {name!r} lies outside its section")

    def load(first: str) -> tuple[int, list[str]]:
        if first not in table:
            return 0, []
        i, a, b = table[first]
        reader.handle.seek(reader.base + offset + a)
        return i, reader.handle.read(b - a).decode("utf-8").split("\n")

    return load


def file_bytes(handle: io.BufferedReader, start: int) -> bytearray | memoryview | None:
    """An open file's bytes from ``start`` on: a big file mapped read-only (the page cache's own
    pages, no private copy: 265 MB at 300k papers; caches are only ever replaced by a rename, so
    a mapping stays whole), a small one read into one allocation of its size (read() after the
    header line had joined the buffered rest with the remainder, holding the file twice). None
    if the file is shorter than it said."""
    size = os.fstat(handle.fileno()).st_size
    if size >= nofollow.MAP_FROM:
        return memoryview(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ))[start:]
    data = bytearray(size - start)
    handle.seek(start)
    return data if handle.readinto(data) == len(data) else None
