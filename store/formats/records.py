"""Paper + annotation as one flat JSON-ready record (CLI ``--format json``, exports).

Schema (``papersift-paper`` version 1): id, title, derived_title, abstract,
authors, status, star, tags, note, created, updated, sources, url,
external_id, aliases, venue, year, keywords, area (venue, year, keywords and
area added within version 1: readers of the schema ignore fields they do not know).
"""

from __future__ import annotations

import copy
import re
from dataclasses import replace

import orjson

from store.latex import plain_text
from store.titles.kinds import is_excerpt
from store.models import Paper
from store.records import Annotation
from store.safe_text import ESCAPE_SEQUENCE

RECORD_SCHEMA_VERSION = 1

Pair = tuple[Paper, Annotation]  # what every exporter takes: a paper and its annotation


def without_sequences(pair: Pair) -> Pair:
    """A paper and annotation without terminal escape sequences, whole, before a text format
    writes them: the gate after the writer removes what is left of one, but a writer's escaping
    (Markdown's ``\\[``) splits a sequence first, so its tail was written ("[31mRed"), and a
    BibTeX key was made of it (the app's copied citation line likewise). JSON keeps every
    character (written as an escape)."""
    paper, ann = pair
    texts = (paper.title, paper.abstract, paper.venue, paper.area, *paper.authors, *paper.keywords)
    if any("\x1b" in t for t in texts):
        gone = ESCAPE_SEQUENCE.sub
        paper = replace(paper, title=gone("", paper.title), abstract=gone("", paper.abstract),
                        venue=gone("", paper.venue), area=gone("", paper.area),
                        authors=[gone("", a) for a in paper.authors], keywords=[gone("", k) for k in paper.keywords])
    if "\x1b" in ann.note:
        ann = copy.copy(ann)
        ann.note = ESCAPE_SEQUENCE.sub("", ann.note)
    return paper, ann


def title_of(paper: Paper) -> str:
    """The display title as one line of plain Unicode."""
    return " ".join(plain_text(paper.title).split()) or paper.id


def in_proceedings(paper: Paper) -> bool:
    """Whether a paper is exported as a conference paper: it has a venue, and no preprint server's
    (arXiv). BibTeX writes it as ``@inproceedings``, RIS as ``CPAPER`` and CSL-JSON as
    ``paper-conference``, each with the venue as the proceedings; any other paper as ``@misc``,
    ``GEN`` and ``article`` (CSL's preprint or working paper), so a reference manager files a
    paper alike from any of the three."""
    return bool(paper.venue) and not paper.venue.casefold().startswith("arxiv")


NAME_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})


def family_name(name: str) -> str:
    """The family name of a stored author: the part before a comma ("Smith, John", as a library
    imported before names were put in order holds it), else the last word but a suffix ("John
    Smith Jr.": Smith)."""
    head = name.split(",")[0].strip() if "," in name else name
    words = head.split()
    if len(words) > 1 and words[-1].casefold() in NAME_SUFFIXES:
        words = words[:-1]
    return words[-1] if words else name


# JSON escapes C0 controls itself; these would otherwise reach a terminal raw.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u00ad\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
                             "\U000e0000-\U000e007f]")


def paper_record(paper: Paper, ann: Annotation) -> dict[str, object]:
    """The flat record of one annotated paper."""
    return {
        "id": paper.id,
        "title": paper.title,
        "derived_title": paper.derived_title,
        "abstract": paper.abstract,
        "authors": paper.authors,
        "status": ann.status,
        "star": ann.star,
        "tags": ann.tags,
        "note": ann.note,
        "created": ann.created,
        "updated": ann.updated,
        "sources": [s.to_record() for s in paper.sources],
        "url": paper.url,
        "external_id": paper.external_id,
        "aliases": paper.aliases,
        "venue": paper.venue,
        "year": paper.year,
        "keywords": paper.keywords,
        "area": paper.area,
        # When it arrived and which version it holds (store.ingest.batches): only where known, so
        # a record of a library without batches reads as before.
        **{key: value for key, value in (("batch", paper.batch), ("added", paper.added), ("version", paper.version),
                                         ("revised", paper.revised)) if value},
        # A derived title that is the abstract's first words, no title (store.titles.kinds): said.
        **({"title_excerpt": True} if is_excerpt(paper.title, paper.derived_title) else {}),
    }


def safe_json(obj: object, indent: bool = False, sort_keys: bool = False) -> str:
    """JSON text with every terminal-unsafe character escaped as a JSON unicode escape (still valid
    JSON; a line separator inside a string escaped too, so no reader splitting lines at it breaks
    a JSON line in two)."""
    option = (orjson.OPT_INDENT_2 if indent else 0) | (orjson.OPT_SORT_KEYS if sort_keys else 0)
    return escape_unsafe_json(orjson.dumps(obj, option=option).decode("utf-8"))


def json_line(obj: object, sort_keys: bool = False) -> bytes:
    """One JSON line, its line and paragraph separators and U+0085 escaped (JSON holds them raw in
    a string; a reader splitting lines at them, an older papersift's among them, broke the line
    in two). For big files: three byte replacements, where :func:`safe_json` runs a regex over
    the text (8x orjson's time; a sync's papers file at 300k papers)."""
    raw = orjson.dumps(obj, option=orjson.OPT_SORT_KEYS if sort_keys else 0)
    if b"\xe2\x80\xa8" in raw or b"\xe2\x80\xa9" in raw or b"\xc2\x85" in raw:
        raw = raw.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029").replace(b"\xc2\x85", b"\\u0085")
    return raw + b"\n"


def escape_unsafe_json(text: str) -> str:
    """JSON text (orjson escapes C0 controls) with C1 controls, DEL and invisible or bidi-override
    characters escaped too: the same value when parsed, inert when the file is printed."""
    return _UNSAFE_IN_JSON.sub(_json_escape, text)


def _json_escape(m: re.Match[str]) -> str:
    """A character as JSON writes it escaped (past U+FFFF: its UTF-16 surrogate pair)."""
    code = ord(m.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


# The triage, as "key: value" lines where a format has no field of its own for it (RIS notes, CSL-JSON's
# note, which Zotero keeps as "Extra"): import-annotations reads them back.
TRIAGE_PREFIX = "papersift-"


def marks_line(name: str, ann: Annotation) -> str:
    """One member's marks in a few characters: ``ana ★★ read #rl #to-discuss``."""
    parts = [name]
    if ann.star:
        parts.append("★" * ann.star)
    if ann.status != "unread":
        parts.append(ann.status)
    parts += ["#" + t for t in ann.tags]
    return " ".join(parts)


def team_marks(ann: Annotation) -> list[tuple[str, Annotation]]:
    """Every member's marks an export carries beside the paper ([] outside a lab's library)."""
    return list(getattr(ann, "others", None) or [])


def team_line(ann: Annotation) -> str:
    """Every member's marks on one line: ``ana ★★ read #rl; ben skipped`` ('' when none)."""
    return "; ".join(marks_line(name, a) for name, a in team_marks(ann))


def team_records(ann: Annotation) -> list[dict[str, object]]:
    """Every member's marks as JSON records (notes included)."""
    return [{"member": name, "status": a.status, "star": a.star, "tags": list(a.tags), "note": a.note}
            for name, a in team_marks(ann)]


def triage_lines(ann: Annotation) -> list[str]:
    """``papersift-status: to-read``, ``papersift-star: 3``, ``papersift-tags: rl, to-discuss``
    (a default field is left out: no line means unread, no star, no tags)."""
    lines = [] if ann.status == "unread" else [f"{TRIAGE_PREFIX}status: {ann.status}"]
    if ann.star:
        lines.append(f"{TRIAGE_PREFIX}star: {ann.star}")
    if ann.tags:  # (a tag holds no comma: see normalize_tag)
        lines.append(f"{TRIAGE_PREFIX}tags: {', '.join(ann.tags)}")
    if team := team_line(ann):  # (read by people: import-annotations takes a team's marks from team files)
        lines.append(f"{TRIAGE_PREFIX}team: {team}")
    return lines


def split_triage_lines(lines: list[str]) -> tuple[dict[str, object], list[str]]:
    """The triage fields a run of lines holds ({"status": …, "star": …, "tags": […]}), and the
    other lines (the note's)."""
    fields: dict[str, object] = {}
    rest = []
    for line in lines:
        key, sep, value = line.partition(":")
        name = key.strip()[len(TRIAGE_PREFIX):] if key.strip().startswith(TRIAGE_PREFIX) else ""
        if sep and name == "team":
            continue  # every member's marks, for people: team files carry them back
        if not sep or name not in ("status", "star", "tags"):
            rest.append(line)
            continue
        value = value.strip()
        if name == "star":
            fields["star"] = int(value) if value.isdigit() else value
        elif name == "tags":
            fields["tags"] = [t.strip() for t in value.split(",") if t.strip()]
        else:
            fields["status"] = value
    return fields, rest
