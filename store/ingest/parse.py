"""Read abstracts from input files: seed dumps, JSON / JSON Lines (OpenReview notes too), CSV, BibTeX,
RIS, arXiv.

Each parser returns :class:`RawRecord` objects in file order; ``position`` is
the 1-based index of the abstract in its file (a dump's header line is not
counted). Any problem raises :class:`~store.errors.InputError` naming the file
and line, before anything is written to a library.
"""

from __future__ import annotations

import codecs
import csv
import errno
import io
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from store.ingest.arxiv import looks_like_atom, read_atom, snapshot_fields
from store.choices import DERIVED, FORMULA_START
from store.errors import InputError
from store.search.keywords import clean_label, keywords_of
from store.locations import is_library_dir
from store.ingest.openreview import is_note, note_abstract, note_fields
from store.ingest.ris import looks_like_ris, read_ris
from store.ingest.sizegate import refuse_early
from store.text import counted, first_few

MAX_ABSTRACT_CHARS = 100_000
MAX_BRACE_DEPTH = 64  # BibTeX braces open at once; real entries nest a handful
MIN_ABSTRACT_WORDS = 8  # a shorter dump paragraph is a heading or stray line, not an abstract
MAX_FILE_BYTES = 2 * 1024**3
IMPORTABLE_SUFFIXES = {".txt", ".md", ".text", ".dump", ".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".bib", ".ris",
                       ".xml", ".atom"}


class Records(list):
    """Parsed records, plus what was passed over: dump paragraphs too short to be abstracts, and
    references without an abstract (BibTeX, RIS, CSL-JSON, Atom, OpenReview), by key or line."""

    skipped: int = 0
    first_skipped_line: int | None = None

    def __init__(self, *args):
        super().__init__(*args)
        self.no_abstract: list[str] = []


@dataclass
class RawRecord:
    """One abstract as read, before deduplication."""

    abstract: str
    file: str
    position: int
    title: str = ""
    authors: list[str] = field(default_factory=list)
    external_id: str = ""
    url: str = ""
    venue: str = ""
    year: str = ""
    keywords: list[str] = field(default_factory=list)
    area: str = ""


_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
# A dump's header names the venue just before the year: "NeurIPS 2026 Papers", "Accepted at ICML 2024".
# The venue is a word with two capitals or more (an acronym, as venues go), so "Top 2000 abstracts"
# names none.
_HEADER_VENUE = re.compile(r"(?<![\w&\-])((?=(?:[a-z0-9&\-]*[A-Z]){2})[A-Za-z][A-Za-z&]*(?:-[A-Za-z&]+)*)"
                           r"[\s'’_\-]*((?:19|20)\d\d)(?!\d)")


def year_of(value: object) -> str:
    """The first plausible year in a field (2024, "2024", "2024-07-21", "Jul 2024"), or ''."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    m = _YEAR.search(value) if isinstance(value, str) else None
    return m.group(1) if m else ""


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
                raise InputError(path, "folder holds no importable files (.txt, .md, .json, .jsonl, .csv, .bib, .ris, .xml)")
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
    if suffix in (".jsonl", ".ndjson"):
        records = parse_jsonl(text, path, name)
    elif suffix == ".json":
        records = parse_json(text, path, name)
    elif suffix in (".csv", ".tsv"):
        records = parse_csv(text, path, name, delimiter="\t" if suffix == ".tsv" else None)
    elif suffix == ".bib" or (suffix not in _STRUCTURED and _BIBTEX_START.match(text)):
        records = parse_bibtex(text, path, name)
    elif suffix == ".ris" or (suffix not in _STRUCTURED and looks_like_ris(text)):
        records = parse_ris(text, path, name)
    elif suffix in (".xml", ".atom") or (suffix not in _STRUCTURED and looks_like_atom(text)):
        records = parse_atom(text, path, name)
    else:
        records = parse_dump(text, path, name)
    if not records:
        why = " (the file is empty)" if not text.strip() else ""
        if getattr(records, "skipped", 0):
            why = f" ({records.skipped} paragraphs, all shorter than {MIN_ABSTRACT_WORDS} words)"
        if getattr(records, "no_abstract", None):
            why = f" ({counted(len(records.no_abstract), 'entry', 'entries')}, none with an abstract: {first_few(records.no_abstract)})"
        raise InputError(path, "no abstracts found" + why)
    return records


# A file of another suffix (a dump's .txt, say) is read as BibTeX or RIS when its content is:
# read as a dump, every entry became a paragraph of field syntax.
_STRUCTURED = {".json", ".jsonl", ".ndjson", ".csv", ".tsv"}
_BIBTEX_START = re.compile(r"\s*(%[^\n]*\n\s*)*@[A-Za-z]+\s*[{(]")


def _check_length(path: Path, abstract: str, line: int | None, where: str) -> None:
    if len(abstract) > MAX_ABSTRACT_CHARS:
        raise InputError(path, f"abstract is {len(abstract):,} characters; the limit is {MAX_ABSTRACT_CHARS:,} "
                               "(is this really one abstract?)", line=line, where=where)


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
    for line, lines in paragraphs:
        abstract = " ".join(lines)
        if len(abstract.split()) < MIN_ABSTRACT_WORDS:
            records.skipped += 1
            records.first_skipped_line = records.first_skipped_line or line
            continue
        _check_length(path, abstract, line, f"paragraph {len(records) + 1}")
        records.append(RawRecord(abstract=abstract, file=name, position=len(records) + 1, venue=venue, year=year))
    return records


def _record_from_obj(obj: object, path: Path, name: str, pos: int, line: int | None, where: str) -> RawRecord:
    if not isinstance(obj, dict):
        raise InputError(path, f"expected an object with an \"abstract\", found {type(obj).__name__}", line=line, where=where)
    if "authors_parsed" in obj or "versions" in obj:  # arXiv's metadata snapshot
        obj = {**obj, **snapshot_fields(obj)}
    elif is_note(obj):  # an OpenReview note: its fields under "content"
        obj = note_fields(obj)
    abstract = obj.get("abstract", obj.get("summary"))
    if not isinstance(abstract, str) or not abstract.strip():
        got = "missing" if abstract is None else ("empty" if isinstance(abstract, str) else f"a {type(abstract).__name__}")
        raise InputError(path, f"\"abstract\" must be a non-empty string ({got})", line=line, where=where)
    title = obj.get("title") or ""
    custom = obj.get("custom")  # CSL-JSON
    if obj.get("derived_title") in (True, "true") or (isinstance(custom, dict) and custom.get("papersift_title") == DERIVED):
        title = ""  # papersift's own export said it derived this title: derive it again, marked as derived
    if not isinstance(title, str):
        raise InputError(path, f"\"title\" must be a string, not {type(title).__name__}", line=line, where=where)
    authors = obj.get("authors") or []
    if not authors and isinstance(obj.get("author"), list):  # CSL-JSON, as Zotero (and papersift) export it
        authors = [_csl_name(a, path, line, where) for a in obj["author"]]
        authors = [a for a in authors if a]
    if isinstance(authors, str):
        authors = [a.strip() for a in re.split(r";| and ", authors) if a.strip()]
    if not isinstance(authors, list) or not all(isinstance(a, str) for a in authors):
        raise InputError(path, "\"authors\" must be a list of strings or one string", line=line, where=where)
    ext = obj.get("id", "")
    if not isinstance(ext, (str, int)):
        raise InputError(path, f"\"id\" must be a string or number, not {type(ext).__name__}", line=line, where=where)
    venue = obj.get("venue") or obj.get("container-title") or ""  # CSL-JSON: container-title
    if isinstance(venue, list):  # CSL-JSON allows a list
        venue = next((v for v in venue if isinstance(v, str)), "")
    issued = obj.get("issued")
    year = year_of(obj.get("year")) or (year_of(str(issued.get("date-parts") or issued.get("raw") or ""))
                                        if isinstance(issued, dict) else "")
    doi = obj.get("DOI") or obj.get("doi")
    url = obj.get("url") or obj.get("URL") or (f"https://doi.org/{doi.strip()}" if isinstance(doi, str) and doi.strip() else "")
    # JSON: "keywords" (OpenReview, ICLR dumps; papersift's own export); CSL-JSON: "keyword";
    # arXiv's snapshot: "categories" (via snapshot_fields). The area: OpenReview's "primary_area".
    keywords = keywords_of(obj.get("keywords"), obj.get("keyword"))
    area = obj.get("area") or obj.get("primary_area")  # one label, commas and all
    abstract = abstract.strip()
    _check_length(path, abstract, line, where)
    return RawRecord(abstract=abstract, file=name, position=pos, title=" ".join(title.split()),
                     authors=authors, external_id=str(ext), url=url if isinstance(url, str) else "",
                     venue=" ".join(venue.split()) if isinstance(venue, str) else "", year=year,
                     keywords=keywords, area=clean_label(area) if isinstance(area, str) else "")


def _csl_name(name: object, path: Path, line: int | None, where: str | None) -> str:
    """A CSL-JSON name ({"given", "family"} or {"literal"}) as one string: "Ann Lee"."""
    if not isinstance(name, dict):
        raise InputError(path, f"\"author\" entries must be CSL names ({{\"given\", \"family\"}} or "
                               f"{{\"literal\"}}), not {type(name).__name__}", line=line, where=where)
    if isinstance(name.get("literal"), str):
        return name["literal"].strip()
    return " ".join(str(name[k]).strip() for k in ("given", "family") if isinstance(name.get(k), str)).strip()


def _json_error(path: Path, exc: Exception) -> InputError:
    msg = str(exc)
    m = re.search(r"line (\d+)", msg)
    return InputError(path, f"invalid JSON: {msg}", line=int(m.group(1)) if m else None)


def parse_json(text: str, path: Path, name: str) -> Records:
    """A JSON array of paper objects, or an object with a ``papers`` array (papersift's export).

    A reference without an abstract (see :func:`_reference_key`) is listed in ``no_abstract``, as
    BibTeX's are; any other object without one is an error."""
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        if _first_line_is_an_object(text):  # JSON Lines named .json (arXiv's metadata snapshot is)
            return parse_jsonl(text, path, name)
        raise _json_error(path, exc) from None
    if isinstance(data, dict) and isinstance(data.get("papers"), list):
        data = data["papers"]
    elif isinstance(data, dict):  # one paper (or a one-line JSON Lines file)
        data = [data]
    if not isinstance(data, list):
        raise InputError(path, "expected a JSON array of papers (or an object with a \"papers\" array)")
    records = Records()
    for i, obj in enumerate(data, start=1):
        key = _reference_key(obj, f"entry {i}")
        if key:
            records.no_abstract.append(key)
            continue
        records.append(_record_from_obj(obj, path, name, i, None, f"entry {i}"))
    return records


def _reference_key(obj: object, fallback: str) -> str | None:
    """The id of an object that is a reference without an abstract, not a broken paper: a CSL-JSON
    item (it has a ``type``: Zotero exports books and web pages too) or an OpenReview note (a
    withdrawn submission may have none). None for anything else."""
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("type"), str) and not obj.get("abstract"):
        return str(obj.get("id") or fallback)
    if is_note(obj) and not note_abstract(obj):
        return str(obj.get("id") or fallback)
    return None


def _first_line_is_an_object(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        return isinstance(orjson.loads(first), dict)
    except orjson.JSONDecodeError:
        return False


def parse_jsonl(text: str, path: Path, name: str) -> Records:
    """JSON Lines: one paper object per non-blank line (references without an abstract, as in
    :func:`parse_json`, listed in ``no_abstract``)."""
    records = Records()
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise InputError(path, f"invalid JSON: {exc}", line=lineno) from None
        key = _reference_key(obj, f"line {lineno}")
        if key:
            records.no_abstract.append(key)
            continue
        records.append(_record_from_obj(obj, path, name, len(records) + 1, lineno, None))
    return records


# Column names other tools write: Zotero's CSV export has "Abstract Note", "Author" ("Lee, Ann; Ray, Bob").
_CSV_ALIASES = (("abstract note", "abstract"), ("author", "authors"), ("publication year", "year"),
                ("publication title", "venue"), ("manual tags", "keywords"))


def parse_csv(text: str, path: Path, name: str, delimiter: str | None = None) -> list[RawRecord]:
    """CSV/TSV with a header row naming at least an ``abstract`` column."""
    csv.field_size_limit(MAX_ABSTRACT_CHARS * 4)
    if delimiter is None:
        first = text.split("\n", 1)[0]
        delimiter = max([",", ";", "\t"], key=first.count)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        return []
    except csv.Error as exc:
        raise InputError(path, f"invalid CSV: {exc}", line=1) from None
    cols = {h.strip().lower(): i for i, h in enumerate(header)}
    for alias, key in _CSV_ALIASES:
        if alias in cols and key not in cols:
            cols[key] = cols.pop(alias)
    abstract_col = cols.get("abstract", cols.get("summary"))
    if abstract_col is None:
        raise InputError(path, f"no \"abstract\" column in the header (columns: {', '.join(header) or 'none'})", line=1)
    records = []
    try:
        for row in reader:
            lineno = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise InputError(path, f"row has {len(row)} fields but the header has {len(header)}", line=lineno)
            row = [cell[1:] if cell.startswith("'") and cell[1:].startswith(FORMULA_START) else cell for cell in row]
            obj = {key: row[i] for key, i in cols.items()}
            obj["abstract"] = row[abstract_col]
            records.append(_record_from_obj(obj, path, name, len(records) + 1, lineno, None))
    except csv.Error as exc:
        raise InputError(path, f"invalid CSV: {exc}", line=reader.line_num) from None
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
        records.append(_record_from_obj(obj, path, name, len(records) + 1, None, f"entry {entry.get('ID', '?')}"))
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
        records.append(_record_from_obj(obj, path, name, len(records) + 1, entry.line, f"entry {n}"))
    return records


def parse_atom(text: str, path: Path, name: str) -> Records:
    """An Atom feed from the arXiv API: entries with a summary (the others in ``no_abstract``)."""
    papers, no_abstract = read_atom(text, path)
    records = Records(_record_from_obj(obj, path, name, n, None, f"entry {obj['id'] or n}")
                      for n, obj in enumerate(papers, start=1))
    records.no_abstract = no_abstract
    return records
