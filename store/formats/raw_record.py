"""One abstract as read, before deduplication, and how a record of any format becomes one.

Every reader (one module a format in :mod:`store.formats`) turns its entries into field dictionaries in papersift's names and
hands them to :func:`record_from_obj`, which checks them and names the file and line at fault.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from store.choices import TITLE_MARKS
from store.errors import InputError
from store.formats.arxiv_snapshot import snapshot_fields
from store.formats.openreview import is_note, note_fields
from store.search.keywords import clean_label, keywords_of

MAX_ABSTRACT_CHARS = 100_000


class Records(list["RawRecord"]):
    """Parsed records, plus what was passed over: dump paragraphs too short to be abstracts, and
    references without an abstract (BibTeX, RIS, CSL-JSON, Atom, OpenReview), by key or line."""

    skipped: int = 0
    first_skipped_line: int | None = None

    def __init__(self, *args: Iterable[RawRecord]) -> None:
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


_LINE_END = re.compile(r"\r\n|\n|\r")


def text_lines(text: str) -> list[str]:
    """A text's lines as :func:`store.formats.textfile.mapped_lines` splits them, at newlines only (CRLF and a lone CR
    each ending a line). Not ``str.splitlines()``: it also ends a line at U+2028, U+2029, U+0085
    and the form feed, which JSON holds raw inside a string (a note pasted from a PDF), so one such
    character made a JSON line two broken ones."""
    return _LINE_END.split(text)


_WEB_LINK = re.compile(r"https?://[^\s/?#]", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def web_link(value: object) -> str:
    """A link as papersift keeps and writes it: an http(s) address (white space around it trimmed),
    else ''. A feed or a shared file may carry a ``javascript:``, ``file:`` or ``data:`` link, which a
    click in a reference manager or a rendered export would follow; every reader's records and every
    exported url pass through here."""
    link = value.strip() if isinstance(value, str) else ""
    return link if _WEB_LINK.match(link) and not _CONTROL.search(link) else ""


_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")


def year_of(value: object) -> str:
    """The first plausible year in a field (2024, "2024", "2024-07-21", "Jul 2024"), or ''."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    m = _YEAR.search(value) if isinstance(value, str) else None
    return m.group(1) if m else ""


def check_length(path: Path, abstract: str, line: int | None, where: str | None) -> None:
    if len(abstract) > MAX_ABSTRACT_CHARS:
        raise InputError(path, f"an abstract is at most {MAX_ABSTRACT_CHARS:,} characters, and this one is longer "
                               "(is this really one abstract?)", line=line, where=where)


MAX_TITLE_CHARS = 10_000  # (as a team file's title)
MAX_FIELD_CHARS = MAX_ABSTRACT_CHARS  # the authors together (a collaboration of 3,000 names is ~60,000), keywords, ...


def check_fields(path: Path, line: int | None, where: str | None, fields: dict[str, str]) -> None:
    """Every field of a paper bounded, not only its abstract: a 50 MB author list in a BibTeX or
    RIS file was stored, and the app laid it out on every repaint (it hung, past 3 GB)."""
    for name, value in fields.items():
        limit = MAX_TITLE_CHARS if name == "title" else MAX_FIELD_CHARS
        if len(value) > limit:
            said = (f"the {name} are at most {limit:,} characters together, and these are {len(value):,}"
                    if name.endswith("s") else f"a paper's {name} is at most {limit:,} characters, and this one is {len(value):,}")
            raise InputError(path, said + " (is this really one paper?)", line=line, where=where)


def record_from_obj(obj: object, path: Path, name: str, pos: int, line: int | None, where: str | None) -> RawRecord:
    """A record read from a JSON object: papersift's own export, OpenReview's notes, arXiv's
    metadata snapshot, CSL-JSON (Zotero's), or any object with an "abstract". A field of the wrong
    kind is an InputError naming the file and line."""
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
    title, authors = _title(obj, path, line, where), _authors(obj, path, line, where)
    ext = obj.get("id", "")
    if not isinstance(ext, (str, int)):
        raise InputError(path, f"\"id\" must be a string or number, not {type(ext).__name__}", line=line, where=where)
    venue = obj.get("venue") or obj.get("container-title") or ""  # CSL-JSON: container-title
    if isinstance(venue, list):  # CSL-JSON allows a list
        venue = next((v for v in venue if isinstance(v, str)), "")
    # JSON: "keywords" (OpenReview, ICLR dumps; papersift's own export); CSL-JSON: "keyword";
    # arXiv's snapshot: "categories" (via snapshot_fields). The area: OpenReview's "primary_area".
    keywords = keywords_of(obj.get("keywords"), obj.get("keyword"))
    area = obj.get("area") or obj.get("primary_area")  # one label, commas and all
    abstract = abstract.strip()
    check_length(path, abstract, line, where)
    venue = " ".join(venue.split()) if isinstance(venue, str) else ""
    area = clean_label(area) if isinstance(area, str) else ""
    check_fields(path, line, where, {"title": title, "authors": "; ".join(authors), "keywords": "; ".join(keywords),
                                     "venue": venue, "area": area, "id": str(ext)})
    return RawRecord(abstract=abstract, file=name, position=pos, title=" ".join(title.split()),
                     authors=authors, external_id=str(ext), url=web_link(_url(obj)),
                     venue=venue, year=_year(obj), keywords=keywords, area=area)


def _title(obj: dict[str, Any], path: Path, line: int | None, where: str | None) -> str:
    """The record's title; "" where papersift's own export says it derived it (derived again)."""
    title = obj.get("title") or ""
    custom = obj.get("custom")  # CSL-JSON
    if obj.get("derived_title") in (True, "true") or (isinstance(custom, dict) and custom.get("papersift_title") in TITLE_MARKS):
        return ""
    if not isinstance(title, str):
        raise InputError(path, f"\"title\" must be a string, not {type(title).__name__}", line=line, where=where)
    return title


def name_in_order(name: str) -> str:
    """A person's name as a bibliography lists it, "Last, First" (BibTeX, RIS, Zotero), in the order
    the reader and the other formats write it: "Smith, John" -> "John Smith", "Smith, Jr., John" ->
    "John Smith Jr."; a name without a comma stays as it is. (Kept as listed, the reader showed
    "Smith, John, Müller, Anna" and CSL-JSON made John a family name.)"""
    parts = [p.strip() for p in name.split(",")]
    if len(parts) == 2 and all(parts):
        return f"{parts[1]} {parts[0]}"
    if len(parts) == 3 and parts[0] and parts[2]:
        return " ".join(p for p in (parts[2], parts[0], parts[1]) if p)
    return name


def _authors(obj: dict[str, Any], path: Path, line: int | None, where: str | None) -> list[str]:
    """The authors: "authors" as a list or one string ("A; B", "A and B"; "Lee, Ann; Ray, Bob", as
    Zotero's CSV lists them, in reading order), or CSL-JSON's "author" names."""
    authors = obj.get("authors") or []
    if not authors and isinstance(obj.get("author"), list):  # CSL-JSON, as Zotero (and papersift) export it
        authors = [a for a in (_csl_name(a, path, line, where) for a in obj["author"]) if a]
    if isinstance(authors, str):
        authors = [name_in_order(a.strip()) for a in re.split(r";| and ", authors) if a.strip()]
    if not isinstance(authors, list) or not all(isinstance(a, str) for a in authors):
        raise InputError(path, "\"authors\" must be a list of strings or one string", line=line, where=where)
    return [" ".join(a.split()) for a in authors if a.strip()]  # (one line each: a name's newline made an Org heading)


def _year(obj: dict[str, Any]) -> str:
    """The year: "year", or CSL-JSON's "issued" date."""
    issued = obj.get("issued")
    return year_of(obj.get("year")) or (year_of(str(issued.get("date-parts") or issued.get("raw") or ""))
                                        if isinstance(issued, dict) else "")


def _url(obj: dict[str, Any]) -> object:
    """The link: "url" (or "URL"), else the DOI's address."""
    doi = obj.get("DOI") or obj.get("doi")
    return obj.get("url") or obj.get("URL") or (f"https://doi.org/{doi.strip()}" if isinstance(doi, str) and doi.strip() else "")


def _csl_name(name: object, path: Path, line: int | None, where: str | None) -> str:
    """A CSL-JSON name ({"given", "family"} or {"literal"}) as one string: "Ann Lee"."""
    if not isinstance(name, dict):
        raise InputError(path, f"\"author\" entries must be CSL names ({{\"given\", \"family\"}} or "
                               f"{{\"literal\"}}), not {type(name).__name__}", line=line, where=where)
    if isinstance(literal := name.get("literal"), str):
        return literal.strip()
    return " ".join(str(name[k]).strip() for k in ("given", "family") if isinstance(name.get(k), str)).strip()
