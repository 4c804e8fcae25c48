"""arXiv's Atom feed, as the arXiv API answers: read.

The API (``export.arxiv.org/api/query?search_query=cat:cs.LG&max_results=2000``)
answers with an Atom feed, one ``<entry>`` per paper: ``<title>``,
``<summary>`` (the abstract, hard-wrapped), ``<author><name>``, ``<id>`` (the
abs page, version included), ``<published>``, ``<category term="cs.LG">``. (The metadata
snapshot, JSON Lines, is read as JSON Lines: :mod:`store.formats.arxiv_snapshot`.)

The standard library's XML parser is used: the expat it ships (2.4.1 and later)
refuses entity expansion bombs, and ElementTree never fetches external entities.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from store.errors import InputError
from store.formats.arxiv_snapshot import ARXIV_ID
from store.formats.raw_record import Records, record_from_obj

ATOM = "{http://www.w3.org/2005/Atom}"


def looks_like_atom(text: str) -> bool:
    """True when the text is XML whose root is an Atom ``<feed>``."""
    head = text.lstrip()[:500]
    return head.startswith("<") and "<feed" in head and "http://www.w3.org/2005/Atom" in head


def _text(el: ET.Element | None) -> str:
    return " ".join((el.text or "").split()) if el is not None else ""


def read_atom(text: str, path: Path) -> tuple[list[dict[str, object]], list[str]]:
    """The papers of an Atom feed, as objects with papersift's field names, and the ids of the
    entries without an abstract.

    Raises:
        InputError: not well-formed XML (with its line), or XML that is not an Atom feed.
    """
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:  # "mismatched tag: line 2, column 19": the line goes in front
        raise InputError(path, f"invalid XML: {str(exc).split(': line')[0]} (column {exc.position[1] + 1})",
                         line=exc.position[0]) from None
    if root.tag != f"{ATOM}feed":
        raise InputError(path, f"expected an Atom feed (<feed>, as the arXiv API returns), found <{root.tag.split('}')[-1]}>")
    papers: list[dict[str, object]] = []
    no_abstract: list[str] = []
    for n, entry in enumerate(root.iter(f"{ATOM}entry"), start=1):
        ident = _text(entry.find(f"{ATOM}id"))
        m = ARXIV_ID.search(ident)
        abstract = _text(entry.find(f"{ATOM}summary"))
        if not abstract:
            no_abstract.append((m.group(1) if m else ident) or f"entry {n}")
            continue
        link = next((ln.get("href", "") for ln in entry.findall(f"{ATOM}link") if ln.get("rel") == "alternate"), "")
        link = link or (ident if ident.startswith(("http://", "https://")) else "")
        papers.append({
            "abstract": abstract,
            "title": _text(entry.find(f"{ATOM}title")),
            "authors": [_text(a.find(f"{ATOM}name")) for a in entry.findall(f"{ATOM}author") if _text(a.find(f"{ATOM}name"))],
            "id": m.group(1) if m else ident,
            "url": link.replace("http://", "https://", 1) if "arxiv.org/" in link else link,
            "venue": "arXiv" if m else "",
            "year": _text(entry.find(f"{ATOM}published")),  # "2024-01-02T18:59:59Z": record.year_of reads it
            "keywords": [c.get("term", "") for c in entry.findall(f"{ATOM}category")],  # cs.LG, stat.ML
        })
    return papers, no_abstract


def parse_atom(text: str, path: Path, name: str) -> Records:
    """An Atom feed from the arXiv API: entries with a summary (the others in ``no_abstract``)."""
    papers, no_abstract = read_atom(text, path)
    records = Records(record_from_obj(obj, path, name, n, None, f"entry {obj['id'] or n}")
                      for n, obj in enumerate(papers, start=1))
    records.no_abstract = no_abstract
    return records
