"""The plain-text dump: abstracts as paragraphs, an optional header line naming the venue."""

from __future__ import annotations

import mmap
import re
from pathlib import Path
from typing import Iterable, Iterator

from store.ingest.raw_record import RawRecord, Records, check_length

BOM = b"\xef\xbb\xbf"
MIN_ABSTRACT_WORDS = 8  # a shorter dump paragraph is a heading or stray line, not an abstract


# A dump's header names the venue just before the year: "NeurIPS 2026 Papers", "Accepted at ICML 2024".
# The venue is a word with two capitals or more (an acronym, as venues go), so "Top 2000 abstracts"
# names none.
_HEADER_VENUE = re.compile(r"(?<![\w&\-])((?=(?:[a-z0-9&\-]*[A-Z]){2})[A-Za-z][A-Za-z&]*(?:-[A-Za-z&]+)*)"
                           r"[\s'’_\-]*((?:19|20)\d\d)(?!\d)")


def venue_of_header(header: str) -> tuple[str, str]:
    """(venue, year) named by a dump's header line, or ('', '')."""
    m = _HEADER_VENUE.search(header)
    return (m.group(1), m.group(2)) if m else ("", "")


_BLANK = re.compile(r"[ \t\f\v\u00a0]*$")


def _looks_like_header(lines: list[str]) -> bool:
    """A dump's optional header: one short line that is not a sentence."""
    if len(lines) != 1:
        return False
    line = lines[0].strip()
    return len(line) <= 120 and len(line.split()) <= 12 and not line.endswith((".", "?", "!"))


def parse_dump(text: str, path: Path, name: str) -> Records:
    """Seed dump: optional header line, then one abstract per blank-line-separated paragraph.

    CRLF, BOM, hard-wrapped paragraphs and trailing spaces are handled.
    """
    return dump_records(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), path, name)


def parse_dump_mapped(data: bytes | mmap.mmap, path: Path, name: str) -> Records:
    """:func:`parse_dump` of a file's mapped UTF-8 bytes (see store.formats.textfile.map_utf8),
    decoded a line at a time: only the abstracts are ever held, not the file's text or its lines.
    The mapping's pages are given back as the scan passes them (store.annotations.nofollow)."""
    return dump_records(_mapped_lines(data, path), path, name)


def _mapped_lines(data: bytes | mmap.mmap, path: Path) -> Iterator[str]:
    """The lines :func:`parse_dump` splits its text into, decoded one by one: a leading BOM
    dropped, CRLF and a lone CR each ending a line. A byte that is not UTF-8 is an InputError
    with its offset in the file and its line."""
    from store.annotations.nofollow import RELEASE_EVERY, release_pages
    from store.formats.textfile import not_utf8

    pos, end = 0, len(data)
    while data[pos:pos + 3] == BOM:
        pos += 3
    released = 0
    while True:
        nl = data.find(b"\n", pos)
        stop = end if nl == -1 else nl
        raw = data[pos:stop]
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise not_utf8(path, data, pos + exc.start) from None
        if "\r" in line:
            yield from line.removesuffix("\r").split("\r") if nl != -1 else line.split("\r")
        else:
            yield line
        if nl == -1:
            return
        pos = nl + 1
        if pos - released >= RELEASE_EVERY:
            released = release_pages(data, released, pos)


def dump_records(lines: Iterable[str], path: Path, name: str) -> Records:
    """A dump's records from its lines (newlines taken off)."""
    paragraphs: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 0
    venue = year = ""
    records = Records()
    first = True
    for lineno, line in enumerate(lines, start=1):
        if _BLANK.match(line):
            if current:
                paragraphs.append((start, current))
                current = []
        else:
            if not current:
                start = lineno
            current.append(line.strip())
        if len(paragraphs) > 1 or (paragraphs and not first):
            if first:  # the header is told from the first paragraph once a second one exists
                first = False
                if _looks_like_header(paragraphs[0][1]):
                    venue, year = venue_of_header(paragraphs[0][1][0])
                    paragraphs = paragraphs[1:]
            for para in paragraphs:
                _add(records, para, path, name, venue, year)
            paragraphs = []
    if current:
        paragraphs.append((start, current))
    if first and paragraphs and _looks_like_header(paragraphs[0][1]) \
            and (len(paragraphs) > 1 or len(paragraphs[0][1][0]) < 60):
        venue, year = venue_of_header(paragraphs[0][1][0])
        paragraphs = paragraphs[1:]
    for para in paragraphs:
        _add(records, para, path, name, venue, year)
    return records


def _add(records: Records, paragraph: tuple[int, list[str]], path: Path, name: str, venue: str, year: str) -> None:
    lineno, lines = paragraph
    abstract = " ".join(lines)
    if len(abstract.split()) < MIN_ABSTRACT_WORDS:
        records.skipped += 1
        records.first_skipped_line = records.first_skipped_line or lineno
        return
    check_length(path, abstract, lineno, f"paragraph {len(records) + 1}")
    records.append(RawRecord(abstract=abstract, file=name, position=len(records) + 1, venue=venue, year=year))
