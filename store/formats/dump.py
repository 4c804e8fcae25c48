"""The plain-text dump: abstracts as paragraphs, an optional header line naming the venue."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from store.formats.raw_record import RawRecord, Records, check_length

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


def dump_records(lines: Iterable[str], path: Path, name: str) -> Records:
    """A dump's records from its lines (newlines taken off): :func:`parse_dump` splits its text, a
    big file's are decoded one at a time from its mapped bytes (store.formats.textfile.mapped_lines),
    so that only the abstracts are ever held, not the file's text or its lines."""
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
