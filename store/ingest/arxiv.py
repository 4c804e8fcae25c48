"""Read arXiv: an Atom feed from the arXiv API, and the fields of arXiv's metadata snapshot.

The API (``export.arxiv.org/api/query?search_query=cat:cs.LG&max_results=2000``)
answers with an Atom feed, one ``<entry>`` per paper: ``<title>``,
``<summary>`` (the abstract, hard-wrapped), ``<author><name>``, ``<id>`` (the
abs page, version included), ``<published>``, ``<category term="cs.LG">``. The metadata snapshot (Kaggle's
``arxiv-metadata-oai-snapshot.json``, JSON Lines) names the same things
differently; :func:`snapshot_fields` maps them for :mod:`store.ingest.parse`.

The standard library's XML parser is used: the expat it ships (2.4.1 and later)
refuses entity expansion bombs, and ElementTree never fetches external entities.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from store.errors import InputError

ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV_ID = re.compile(r"(?:arxiv\.org/abs/)?((?:\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?)$")


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
        m = _ARXIV_ID.search(ident)
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


def snapshot_fields(obj: dict[str, Any]) -> dict[str, Any]:
    """Fields of an arXiv metadata snapshot record, in papersift's names (only those it lacks).

    The snapshot writes authors as one string ("A. Lee, B. Ray and C. Kim") and parsed
    (``authors_parsed``: [last, first, suffix]); its ``id`` is an arXiv id; the year of the
    first version is in ``versions[0].created`` ("Mon, 2 Apr 2007 19:18:42 GMT"); its
    ``categories`` ("cs.LG stat.ML") become keywords.
    """
    out: dict[str, Any] = {}
    if isinstance(obj.get("abstract"), str):  # hard-wrapped, as in the feed
        out["abstract"] = " ".join(obj["abstract"].split())
    parsed = obj.get("authors_parsed")
    if isinstance(parsed, list) and all(isinstance(a, list) for a in parsed):
        out["authors"] = [" ".join(str(x).strip() for x in (a[1:2] + a[:1] + a[2:3]) if str(x).strip()) for a in parsed]
    ident = obj.get("id")
    if isinstance(ident, str) and _ARXIV_ID.fullmatch(ident.strip()):
        if not obj.get("url"):
            out["url"] = f"https://arxiv.org/abs/{ident.strip()}"
        if not obj.get("venue"):
            out["venue"] = "arXiv"
    if isinstance(obj.get("categories"), str) and not obj.get("keywords"):
        out["keywords"] = obj["categories"].split()  # "cs.LG stat.ML"
    versions = obj.get("versions")
    if not obj.get("year") and isinstance(versions, list) and versions and isinstance(versions[0], dict):
        out["year"] = str(versions[0].get("created", ""))  # "Mon, 2 Apr 2007 19:18:42 GMT": record.year_of reads it
    return out
