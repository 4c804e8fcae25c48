"""Read RIS, the reference format Zotero, Mendeley, EndNote and publishers export (and papersift).

An RIS file is a run of entries, each a block of ``XX  - value`` lines from
``TY`` (the type) to ``ER`` (end of record). Readers differ in how forgiving
they are; this one accepts what exporters write in practice (one or two spaces
before the hyphen, a value continued on the following lines, blank lines
anywhere) and names the line of anything else, so a file that is not RIS, or a
truncated one, is refused instead of half read. (rispy, the usual library,
drops an entry without ``ER`` and lines it cannot place without a word.)

Mapping the tags to a paper's fields is :func:`parse_ris`'s job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from store.choices import TITLE_MARKS
from store.errors import InputError
from store.escapes import repair_escapes
from store.formats.records import Pair, in_proceedings, title_of, triage_lines
from store.formats.raw_record import Records, name_in_order, record_from_obj, text_lines, web_link
from store.latex import plain_text
from store.search.keywords import tags_and_keywords
from store.titles.kinds import title_mark

_TAG = re.compile(r"([A-Z][A-Z0-9]) {1,2}-(?: (.*)|\s*)$")


def looks_like_ris(text: str) -> bool:
    """True when the first non-blank line opens an RIS entry (``TY  - ``)."""
    first = next((line for line in text_lines(text) if line.strip()), "")
    m = _TAG.match(first.strip())
    return bool(m and m.group(1) == "TY")


@dataclass
class RisEntry:
    """One entry: its values per tag, in file order, and the line its ``TY`` is on."""

    line: int
    fields: dict[str, list[str]] = field(default_factory=dict)

    def first(self, *tags: str) -> str:
        """The first non-empty value of the first of ``tags`` present ('' if none)."""
        for tag in tags:
            for value in self.fields.get(tag, ()):
                if value:
                    return value
        return ""

    def all(self, *tags: str) -> list[str]:
        """Every non-empty value of ``tags``, tag by tag."""
        return [v for tag in tags for v in self.fields.get(tag, ()) if v]


def read_ris(text: str, path: Path) -> list[RisEntry]:
    """The entries of an RIS file.

    Raises:
        InputError: a line outside an entry that does not start one, an entry
            without ``ER``, or a ``TY`` inside an open entry, with its line.
    """
    entries: list[RisEntry] = []
    entry: RisEntry | None = None
    last: list[str] | None = None  # the values of the latest tag, which a continuation line extends
    for lineno, raw in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        m = _TAG.match(line)
        if entry is None:
            if not m or m.group(1) != "TY":
                raise InputError(path, f"expected an RIS entry to start here (\"TY  - \"), found {line[:40]!r}",
                                 line=lineno)
            entry = RisEntry(line=lineno)
            last = None
        elif m and m.group(1) == "TY":
            raise InputError(path, f"a new entry starts before the one from line {entry.line} ends "
                                   "(no \"ER  - \" line)", line=lineno)
        if m is None:  # a value continued on the next line (an entry's first line is its TY, so last is set)
            assert last is not None
            last[-1] = f"{last[-1]} {line}".strip()
            continue
        tag, value = m.group(1), (m.group(2) or "").strip()
        if tag == "ER":
            entries.append(entry)
            entry, last = None, None
            continue
        last = entry.fields.setdefault(tag, [])
        last.append(value)
    if entry is not None:
        raise InputError(path, "the file ends inside an entry (no \"ER  - \" line)", line=entry.line)
    return entries


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
        derived = entry.first("U1") in [f"title {mark}" for mark in TITLE_MARKS]  # papersift's own export
        obj = {"abstract": abstract, "title": "" if derived else entry.first("TI", "T1", "CT"),
               "authors": [name_in_order(a) for a in entry.all("AU", "A1")],
               "id": entry.first("ID"), "url": entry.first("UR").split(";")[0].strip(), "doi": entry.first("DO"),
               "venue": entry.first("T2", "JO", "JF", "BT"),
               "year": entry.first("PY", "Y1", "DA"), "keywords": entry.all("KW")}
        records.append(record_from_obj(obj, path, name, len(records) + 1, entry.line, f"entry {n}"))
    return records


def _ris_value(text: str) -> str:
    return " ".join(text.split())


def note_html(note: str) -> str:
    """A note on one line, as the HTML a Zotero note is: a paragraph per blank-line-separated block,
    ``<br>`` for a line break, the text escaped (so a note that holds "<p>" reads back as written)."""
    import html
    blocks = [b for b in note.strip().split("\n\n") if b.strip()]
    return "".join("<p>" + "<br>".join(html.escape(line.rstrip(), quote=False) for line in b.strip("\n").split("\n"))
                   + "</p>" for b in blocks)


def html_note(text: str) -> str:
    """:func:`note_html` read back (a note Zotero wrote is HTML of the same shape)."""
    import html
    import re
    blocks = re.findall(r"<p>(.*?)</p>", text, flags=re.S) or [text]
    return "\n\n".join(html.unescape(re.sub(r"<br\s*/?>", "\n", b)) for b in blocks)


def to_ris(pairs: list[Pair]) -> str:
    """RIS (``TY  - CPAPER`` for a conference's paper, else ``GEN``: :func:`in_proceedings`): the
    abstract as the reader shows it (Unicode); the note one N1 field."""
    out = []
    for paper, ann in pairs:
        rec = [f"TY  - {'CPAPER' if in_proceedings(paper) else 'GEN'}", f"ID  - {paper.id}", f"TI  - {_ris_value(title_of(paper))}"]
        if paper.derived_title:
            rec.append(f"U1  - title {title_mark(paper)}")
        rec += [f"AU  - {_ris_value(a)}" for a in paper.authors]
        if paper.year:
            rec.append(f"PY  - {paper.year}")
        if paper.venue:
            rec.append(f"T2  - {_ris_value(paper.venue)}")
        rec.append(f"AB  - {_ris_value(plain_text(repair_escapes(paper.abstract)))}")
        rec += [f"KW  - {_ris_value(t)}" for t in tags_and_keywords(ann.tags, paper.keywords, paper.area)]
        # The note as one N1 (Zotero makes a note of each), its line breaks kept as Zotero's notes keep
        # them, in HTML; then the triage as papersift-… lines.
        if ann.note.strip():
            rec.append(f"N1  - {note_html(ann.note)}")
        rec += [f"N1  - {line}" for line in triage_lines(ann)]
        if link := web_link(paper.url):  # (a corpus from elsewhere may hold any link: only http(s) is written)
            rec.append(f"UR  - {_ris_value(link)}")
        rec.append("ER  - ")
        out.append("\n".join(rec))
    return "\n\n".join(out) + "\n"
