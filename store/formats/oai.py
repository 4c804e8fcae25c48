"""arXiv's OAI-PMH records in its ``arXiv`` metadata format (``oai_dc`` has no abstract field of
its own): read.

A harvest (``ListRecords`` with ``metadataPrefix=arXiv``) holds ``<record>``s whose ``<metadata>``
is an ``<arXiv>`` element: ``<id>`` (no version), ``<title>``, ``<abstract>``, ``<authors>`` (each
``<author>`` a ``<keyname>`` and ``<forenames>``), ``<categories>`` (space-separated),
``<created>``. A deleted record (its header's status) has no metadata and is passed over.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from store.errors import InputError
from store.formats.raw_record import Records, record_from_obj

OAI = "{http://www.openarchives.org/OAI/2.0/}"
ARXIV = "{http://arxiv.org/OAI/arXiv/}"


def looks_like_oai(text: str) -> bool:
    """True when the text is an OAI-PMH response."""
    head = text.lstrip()[:800]
    return head.startswith("<") and "<OAI-PMH" in head


def _text(el: ET.Element | None) -> str:
    return " ".join("".join(el.itertext()).split()) if el is not None else ""


def parse_oai(text: str, path: Path, name: str) -> Records:
    """The ``arXiv``-format records of an OAI-PMH response (those without an abstract in ``no_abstract``).

    Raises:
        InputError: not well-formed XML (with its line), not OAI-PMH, or an OAI-PMH error answer.
    """
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise InputError(path, f"invalid XML: {str(exc).split(': line')[0]} (column {exc.position[1] + 1})",
                         line=exc.position[0]) from None
    if root.tag != f"{OAI}OAI-PMH":
        raise InputError(path, f"expected an OAI-PMH response, found <{root.tag.split('}')[-1]}>")
    if (error := root.find(f"{OAI}error")) is not None:
        raise InputError(path, f"the OAI-PMH answer is an error: {error.get('code', '')} {_text(error)}".strip())
    papers: list[dict[str, object]] = []
    no_abstract: list[str] = []
    for n, record in enumerate(root.iter(f"{OAI}record"), start=1):
        meta = record.find(f"{OAI}metadata/{ARXIV}arXiv")
        if meta is None:  # a deleted record, or another metadata format
            continue
        ident = _text(meta.find(f"{ARXIV}id"))
        abstract = _text(meta.find(f"{ARXIV}abstract"))
        if not abstract:
            no_abstract.append(ident or f"record {n}")
            continue
        authors = [" ".join(x for x in (_text(a.find(f"{ARXIV}forenames")), _text(a.find(f"{ARXIV}keyname"))) if x)
                   for a in meta.findall(f"{ARXIV}authors/{ARXIV}author")]
        papers.append({
            "abstract": abstract, "title": _text(meta.find(f"{ARXIV}title")), "id": ident,
            "authors": [a for a in authors if a], "url": f"https://arxiv.org/abs/{ident}" if ident else "",
            "venue": "arXiv", "year": _text(meta.find(f"{ARXIV}created")),
            "keywords": _text(meta.find(f"{ARXIV}categories")).split(),
        })
    records = Records(record_from_obj(obj, path, name, n, None, f"record {obj['id'] or n}")
                      for n, obj in enumerate(papers, start=1))
    records.no_abstract = no_abstract
    return records
