"""Read OpenReview notes: how ICLR, NeurIPS, ICML and TMLR abstracts come out of OpenReview.

``openreview-py`` (``client.get_all_notes(...)``, dumped with ``json.dump``) and
the API (``api2.openreview.net/notes?invitation=...``) give one object per
submission with its fields under ``content``: in API v2 each field is wrapped
(``{"value": ...}``), in API v1 it is bare. :func:`note_fields` flattens a note
into papersift's field names for the JSON readers (:mod:`store.formats.jsonl`) and
:mod:`store.formats.raw_record`.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any

# "ICLR 2024 poster", "Submitted to ICLR 2024", "NeurIPS 2023 Datasets and Benchmarks Poster"
_VENUE_YEAR = re.compile(r"^(?:Submitted to\s+)?(.+?)\s+((?:19|20)\d\d)\b")


def is_note(obj: dict[str, Any]) -> bool:
    """An OpenReview note: its fields under ``content``, no abstract of its own."""
    return isinstance(obj.get("content"), dict) and "abstract" not in obj


def _value(field: object) -> object:
    return field.get("value") if isinstance(field, dict) and "value" in field else field


def note_abstract(obj: dict[str, Any]) -> object:
    """A note's abstract (its value, whatever its type), without flattening the rest."""
    return _value(obj["content"].get("abstract"))


def note_fields(obj: dict[str, Any]) -> dict[str, Any]:
    """A note's abstract, title, authors, keywords, primary area, id, link, venue and year, in
    papersift's names."""
    content = {k: _value(v) for k, v in obj["content"].items()}
    out = {k: content[k] for k in ("abstract", "title", "authors", "keywords", "primary_area") if k in content}
    note_id = obj.get("forum") or obj.get("id")
    if isinstance(note_id, str) and note_id:
        out["id"] = note_id
        out["url"] = f"https://openreview.net/forum?id={note_id}"
    venue = content.get("venue")
    if isinstance(venue, str) and venue.strip():
        m = _VENUE_YEAR.match(venue.strip())
        out["venue"], out["year"] = (m.group(1), m.group(2)) if m else (venue.strip(), "")
    stamp = obj.get("pdate") or obj.get("cdate")  # publication or creation time, in ms
    if not out.get("year") and isinstance(stamp, (int, float)) and stamp > 0:
        try:
            out["year"] = str(datetime.fromtimestamp(stamp / 1000, tz=timezone.utc).year)
        except (OverflowError, ValueError, OSError):  # not a time: no year, not a crash
            pass
    return out
