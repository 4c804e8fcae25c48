"""Refusing an oversized abstract while reading the file, not after it is in memory.

The parsers check each abstract against MAX_ABSTRACT_CHARS once the file is read and
split; a 50 MB one-paragraph "dump" took the process to 700 MB before that check could run.
This gate streams the file in 1 MB pieces first and stops at the line where a paragraph (a
dump's abstract) or a JSON Lines record grows past twice what any abstract may be, so the
refusal costs a megabyte of memory. What passes it is still checked exactly by the parser.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from store.errors import InputError

CHUNK = 1 << 20
_STRUCTURED_START = (b"@", b"TY  -", b"TY -", b"<?xml", b"<feed", b"{", b"[")


def refuse_early(path: Path, suffix: str, max_chars: int) -> None:
    """Raise InputError (with the line) when a paragraph or a JSON Lines record passes
    ``2 * max_chars`` characters; files whose units are not lines or paragraphs (JSON, CSV,
    BibTeX, RIS, XML) pass untouched."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
            handle.seek(0)
            if suffix in (".jsonl", ".ndjson"):
                _scan(handle, path, 2 * max_chars * 6, per_line=True)  # a record's text JSON-escaped
            elif suffix in (".txt", ".md", ".text", ".dump", "") and not head.lstrip(b"\xef\xbb\xbf \t\r\n%").startswith(
                    _STRUCTURED_START):
                _scan(handle, path, 2 * max_chars, per_line=False)
    except OSError:
        return  # the read that follows says what is wrong with the file


def _scan(handle: BinaryIO, path: Path, limit: int, per_line: bool) -> None:
    line_no, start = 1, 1          # the current line, and the line its paragraph starts at
    para, line, blank = 0, 0, True  # characters of the paragraph so far and of the current line
    while chunk := handle.read(CHUNK):
        pos = 0
        while True:
            nl = chunk.find(b"\n", pos)
            piece = chunk[pos:] if nl == -1 else chunk[pos:nl]
            line += len(piece.decode("utf-8", "ignore"))
            blank = blank and not piece.strip()
            total = line if per_line else para + line
            if total > limit:
                unit = "record" if per_line else "paragraph"
                raise InputError(path, f"an abstract is at most {limit // (12 if per_line else 2):,} characters, and "
                                       f"the {unit} starting here is far longer (is this really one abstract?)",
                                 line=line_no if per_line else start)
            if nl == -1:
                break
            if blank:
                para, start = 0, line_no + 1
            else:
                para += line + 1
            line_no, line, blank, pos = line_no + 1, 0, True, nl + 1
