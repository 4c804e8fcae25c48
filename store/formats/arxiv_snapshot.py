"""arXiv's metadata snapshot (the JSON Lines dump of every arXiv paper): its fields in papersift's
names, and what an arXiv id looks like (the Atom reader checks its entries' ids with it)."""

from __future__ import annotations

import re
from typing import Any


ARXIV_ID = re.compile(r"(?:arxiv\.org/abs/)?((?:\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?)$")


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
    if isinstance(ident, str) and ARXIV_ID.fullmatch(ident.strip()):
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
