"""arXiv's RSS listing (``rss.arxiv.org/rss/cs.LG``, a day's announcements): read.

Each ``<item>``: ``<title>``, ``<link>`` (the abs page), ``<description>`` ("arXiv:2412.01234v2
Announce Type: replace Abstract: …"), ``<dc:creator>`` (the authors, comma-separated), one
``<category>`` per category, and ``<arxiv:announce_type>`` (new, cross, replace, replace-cross). A
cross-list is the same paper (its id), a replacement a newer version (store.ingest.batches).
The standard library's XML parser is used, as for Atom: it refuses entity bombs and never fetches.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from store.errors import InputError
from store.formats.raw_record import Records, record_from_obj

DC = "{http://purl.org/dc/elements/1.1/}"
_HEAD = re.compile(r"^\s*arXiv:(\S+)\s+Announce Type:\s*\S+\s+Abstract:\s*", re.IGNORECASE)


def looks_like_rss(text: str) -> bool:
    """True when the text is XML whose root is an RSS ``<rss>`` (or an RDF listing of items)."""
    head = text.lstrip()[:600]
    return head.startswith("<") and ("<rss" in head or ("<rdf:RDF" in head and "purl.org/rss" in head))


def _text(el: ET.Element | None) -> str:
    return " ".join("".join(el.itertext()).split()) if el is not None else ""


def parse_rss(text: str, path: Path, name: str) -> Records:
    """The items of an arXiv RSS listing with an abstract (the others in ``no_abstract``).

    Raises:
        InputError: not well-formed XML (with its line), or XML that is not an RSS listing.
    """
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise InputError(path, f"invalid XML: {str(exc).split(': line')[0]} (column {exc.position[1] + 1})",
                         line=exc.position[0]) from None
    if not (root.tag == "rss" or root.tag.endswith("}RDF")):
        raise InputError(path, f"expected an RSS listing (<rss>, as arXiv's daily feed), found <{root.tag.split('}')[-1]}>")
    papers: list[dict[str, object]] = []
    no_abstract: list[str] = []
    for n, item in enumerate(root.iter("item"), start=1):
        link = _text(item.find("link"))
        description = _text(item.find("description"))
        head = _HEAD.match(description)
        ident = head.group(1) if head else link.rsplit("/abs/", 1)[-1] if "/abs/" in link else link
        abstract = description[head.end():] if head else description
        if not abstract.strip():
            no_abstract.append(ident or f"item {n}")
            continue
        creators = _text(item.find(f"{DC}creator"))
        papers.append({
            "abstract": abstract, "title": _text(item.find("title")), "id": ident,
            "authors": [a.strip() for a in creators.split(",") if a.strip()],
            "url": link.replace("http://", "https://", 1), "venue": "arXiv" if head else "",
            "keywords": [_text(c) for c in item.findall("category") if _text(c)],
        })
    records = Records(record_from_obj(obj, path, name, n, None, f"item {obj['id'] or n}")
                      for n, obj in enumerate(papers, start=1))
    records.no_abstract = no_abstract
    return records
