"""Read abstracts from input files: seed dumps, JSON / JSON Lines (OpenReview notes too), CSV, BibTeX,
RIS, arXiv.

The dump, BibTeX, RIS and Atom readers are here, JSON, JSON Lines and CSV in
:mod:`store.ingest.structured`; each returns :class:`~store.ingest.record.RawRecord` objects
(built by :func:`~store.ingest.record.record_from_obj`) in file order; ``position`` is
the 1-based index of the abstract in its file (a dump's header line is not
counted). Any problem raises :class:`~store.errors.InputError` naming the file
and line, before anything is written to a library.
"""

from __future__ import annotations

import codecs
import errno
import os
import re
from pathlib import Path


from store.ingest.arxiv import read_atom
from store import formats
from store.choices import DERIVED
from store.errors import InputError
from store.locations import is_library_dir
from store.ingest.ris import read_ris
from store.ingest.record import (MAX_ABSTRACT_CHARS, RawRecord, Records, check_length,
                                 record_from_obj)
from store.ingest.sizegate import refuse_early
from store.ingest.structured import parse_csv
from store.text import counted, first_few

MAX_BRACE_DEPTH = 64  # BibTeX braces open at once; real entries nest a handful
MIN_ABSTRACT_WORDS = 8  # a shorter dump paragraph is a heading or stray line, not an abstract
MAX_FILE_BYTES = 2 * 1024**3
IMPORTABLE_SUFFIXES = formats.IMPORTABLE_SUFFIXES  # (the table's: store.formats)


# A dump's header names the venue just before the year: "NeurIPS 2026 Papers", "Accepted at ICML 2024".
# The venue is a word with two capitals or more (an acronym, as venues go), so "Top 2000 abstracts"
# names none.
_HEADER_VENUE = re.compile(r"(?<![\w&\-])((?=(?:[a-z0-9&\-]*[A-Z]){2})[A-Za-z][A-Za-z&]*(?:-[A-Za-z&]+)*)"
                           r"[\s'’_\-]*((?:19|20)\d\d)(?!\d)")


def venue_of_header(header: str) -> tuple[str, str]:
    """(venue, year) named by a dump's header line, or ('', '')."""
    m = _HEADER_VENUE.search(header)
    return (m.group(1), m.group(2)) if m else ("", "")


def expand_paths(paths: list[Path | str]) -> list[Path]:
    """Files named, plus importable files under folders named (sorted, no link loops).

    Raises:
        InputError: a path does not exist, or a folder holds nothing importable.
    """
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            if is_library_dir(path):
                raise InputError(path, "is a papersift library folder, not a dump (open it with `papersift --library "
                                       "FOLDER`; merge its annotations into another with `papersift "
                                       "import-annotations`, from a `papersift export --format json`)")
            found = []
            # followlinks=False: a symlink loop cannot make the walk endless. A library
            # folder inside (its corpus.jsonl and annotations.json) is not input.
            for root, dirs, names in os.walk(path, followlinks=False):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not is_library_dir(Path(root) / d))
                for name in sorted(names):
                    p = Path(root) / name
                    if not name.startswith(".") and p.suffix.lower() in IMPORTABLE_SUFFIXES and p.is_file():
                        found.append(p)
            if not found:
                raise InputError(path, f"folder holds no importable files ({formats.importable_list()})")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        elif path.exists():
            raise InputError(path, "not a regular file")
        elif path.is_symlink():
            raise InputError(path, "a symbolic link that leads nowhere (" + _link_trouble(path) + ")")
        else:
            raise InputError(path, "no such file or folder")
    return files


def _link_trouble(path: Path) -> str:
    """Why a link cannot be followed: a loop, or a target that does not exist."""
    try:
        path.resolve(strict=True)
    except RuntimeError:  # Python 3.11 raises this for a loop
        return "its links lead in a loop"
    except OSError as exc:
        return "its links lead in a loop" if exc.errno == errno.ELOOP else f"{os.readlink(path)} does not exist"
    return "it cannot be read"


def read_text(path: Path) -> str:
    """Decode a file: UTF-8 (BOM optional) or UTF-16 with a BOM.

    Raises:
        InputError: unreadable, binary, or invalid UTF-8 (with the byte offset).
    """
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError(path, f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}")
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(path, "file disappeared while importing") from None
    except IsADirectoryError:
        raise InputError(path, "is a folder, not a file") from None
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    for bom, enc in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                     (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            try:
                return data.decode(enc).lstrip("\ufeff")
            except UnicodeDecodeError as exc:
                raise InputError(path, f"invalid {enc.upper()} at byte offset {exc.start}") from None
    nul = data.find(b"\x00")
    if nul != -1:
        raise InputError(path, f"binary data (NUL byte at byte offset {nul}); expected a text file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(path, f"not valid UTF-8: byte 0x{data[exc.start]:02x} at byte offset {exc.start}", line=line) from None
    return text.lstrip("\ufeff")


def parse_file(path: Path, display_name: str | None = None) -> list[RawRecord]:
    """Parse one file by its suffix; a dump is the fallback format.

    Args:
        path: the file.
        display_name: the name recorded in each record's source (default: file name).
    """
    suffix = path.suffix.lower()
    refuse_early(path, suffix, MAX_ABSTRACT_CHARS)  # an oversized abstract, before the file is in memory
    text = read_text(path)
    name = display_name or path.name
    records: list[RawRecord] = formats.load(formats.reader_for(suffix, text).reader)(text, path, name)
    if not records:
        why = " (the file is empty)" if not text.strip() else ""
        if isinstance(records, Records) and records.skipped:
            why = f" ({records.skipped} paragraphs, all shorter than {MIN_ABSTRACT_WORDS} words)"
        if isinstance(records, Records) and records.no_abstract:
            why = f" ({counted(len(records.no_abstract), 'entry', 'entries')}, none with an abstract: {first_few(records.no_abstract)})"
        raise InputError(path, "no abstracts found" + why)
    return records


# A file of another suffix (a dump's .txt, say) is read as BibTeX or RIS when its content is
# (store.formats' sniff): read as a dump, every entry became a paragraph of field syntax.
_BIBTEX_START = re.compile(r"\s*(%[^\n]*\n\s*)*@[A-Za-z]+\s*[{(]")


def looks_like_bibtex(text: str) -> bool:
    """True when a file's text starts as BibTeX does (an @entry, after % comments)."""
    return _BIBTEX_START.match(text) is not None


def parse_tsv(text: str, path: Path, name: str) -> list[RawRecord]:
    """A tab-separated file: read as CSV with tabs."""
    return parse_csv(text, path, name, delimiter="\t")


_BLANK = re.compile(r"[ \t\f\v\u00a0]*$")


def _looks_like_header(lines: list[str]) -> bool:
    """A dump's optional header: one short line that is not a sentence."""
    if len(lines) != 1:
        return False
    line = lines[0].strip()
    return len(line) <= 120 and len(line.split()) <= 12 and not line.endswith((".", "?", "!"))


def parse_dump(text: str, path: Path, name: str) -> list[RawRecord]:
    """Seed dump: optional header line, then one abstract per blank-line-separated paragraph.

    CRLF, BOM, hard-wrapped paragraphs and trailing spaces are handled.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    paragraphs: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 0
    for lineno, line in enumerate(text.split("\n"), start=1):
        if _BLANK.match(line):
            if current:
                paragraphs.append((start, current))
                current = []
        else:
            if not current:
                start = lineno
            current.append(line.strip())
    if current:
        paragraphs.append((start, current))
    venue = year = ""
    if paragraphs and _looks_like_header(paragraphs[0][1]) and (len(paragraphs) > 1 or len(paragraphs[0][1][0]) < 60):
        venue, year = venue_of_header(paragraphs[0][1][0])
        paragraphs = paragraphs[1:]
    records = Records()
    for lineno, lines in paragraphs:
        abstract = " ".join(lines)
        if len(abstract.split()) < MIN_ABSTRACT_WORDS:
            records.skipped += 1
            records.first_skipped_line = records.first_skipped_line or lineno
            continue
        check_length(path, abstract, lineno, f"paragraph {len(records) + 1}")
        records.append(RawRecord(abstract=abstract, file=name, position=len(records) + 1, venue=venue, year=year))
    return records


def _check_braces(text: str, path: Path) -> None:
    """Report the innermost unclosed '{' (or a stray '}') with its line."""
    stack: list[int] = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        escaped = False
        for ch in line:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == "{":
                stack.append(lineno)
                if len(stack) > MAX_BRACE_DEPTH:  # the parser recurses per level: refuse before it does
                    raise InputError(path, f"BibTeX nested too deeply (more than {MAX_BRACE_DEPTH} braces open)",
                                     line=lineno)
            elif ch == "}":
                if not stack:
                    raise InputError(path, "unbalanced braces: '}' with no matching '{'", line=lineno)
                stack.pop()
    if stack:
        raise InputError(path, f"unbalanced braces: '{{' is never closed (its entry starts on line {stack[0]})",
                         line=stack[-1])


def parse_bibtex(text: str, path: Path, name: str) -> Records:
    """BibTeX entries that carry an ``abstract`` field (the others are listed in ``no_abstract``)."""
    from store.ingest.bibtex import bib_unescape, read_entries

    _check_braces(text, path)
    records = Records()
    for entry in read_entries(text, path):
        abstract = (entry.get("abstract") or "").strip()
        if not abstract:
            records.no_abstract.append(entry.get("ID") or f"entry {len(records) + len(records.no_abstract) + 1}")
            continue
        obj = {
            "abstract": bib_unescape(abstract),
            "title": "" if entry.get("papersift_title") == DERIVED else bib_unescape(entry.get("title", ""), strip_braces=True),
            "authors": [bib_unescape(a, strip_braces=True).strip() for a in re.split(r"\s+and\s+", entry.get("author", ""))
                        if a.strip()],
            "id": entry.get("ID", ""),
            "url": entry.get("url", ""),
            "doi": entry.get("doi", ""),
            "venue": bib_unescape(entry.get("booktitle") or entry.get("journal") or entry.get("howpublished") or "",
                                  strip_braces=True),
            "year": entry.get("year", ""),
            "keywords": bib_unescape(entry.get("keywords", ""), strip_braces=True),
        }
        records.append(record_from_obj(obj, path, name, len(records) + 1, None, f"entry {entry.get('ID', '?')}"))
    return records


def parse_ris(text: str, path: Path, name: str) -> Records:
    """RIS entries that carry an abstract (``AB``, or ``N2`` as EndNote writes it); the others
    are listed in ``no_abstract``. Title ``TI``/``T1``, authors ``AU``/``A1``, link ``UR`` (or
    the ``DO`` DOI), id ``ID``."""
    records = Records()
    for n, entry in enumerate(read_ris(text, path), start=1):
        abstract = entry.first("AB", "N2")
        if not abstract:
            records.no_abstract.append(entry.first("ID") or f"line {entry.line}")
            continue
        derived = entry.first("U1") == f"title {DERIVED}"  # papersift's own export
        obj = {"abstract": abstract, "title": "" if derived else entry.first("TI", "T1", "CT"), "authors": entry.all("AU", "A1"),
               "id": entry.first("ID"), "url": entry.first("UR").split(";")[0].strip(), "doi": entry.first("DO"),
               "venue": entry.first("T2", "JO", "JF", "BT"),
               "year": entry.first("PY", "Y1", "DA"), "keywords": entry.all("KW")}
        records.append(record_from_obj(obj, path, name, len(records) + 1, entry.line, f"entry {n}"))
    return records


def parse_atom(text: str, path: Path, name: str) -> Records:
    """An Atom feed from the arXiv API: entries with a summary (the others in ``no_abstract``)."""
    papers, no_abstract = read_atom(text, path)
    records = Records(record_from_obj(obj, path, name, n, None, f"entry {obj['id'] or n}")
                      for n, obj in enumerate(papers, start=1))
    records.no_abstract = no_abstract
    return records
