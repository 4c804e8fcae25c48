"""JSON and JSON Lines: read (an array, an object of papers, OpenReview notes; one record a line)
and written (``papersift-export`` version 1, each paper a ``papersift-paper/1`` record as in
:mod:`store.formats.records`, which ``import-annotations`` reads back)."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

import orjson

from store.errors import InputError
from store.formats.records import RECORD_SCHEMA_VERSION, Pair, paper_record, team_records
from store.formats.openreview import is_note, note_abstract
from store.formats.raw_record import Records, record_from_obj, text_lines
from store.models import Paper
from store.records import Annotation


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
        records.append(record_from_obj(obj, path, name, i, None, f"entry {i}"))
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


def looks_like_json(text: str) -> bool:
    """A file of another suffix (``all.csl-json``, as `--format csl-json` suggests naming it) whose
    text is JSON: an array of objects, or an object (JSON, or JSON Lines). Read from its start
    alone (a big file is sniffed by its first MiB): ``[{`` or ``{"``, which no dump opens with."""
    start = text.lstrip("\ufeff \t\r\n")
    return start[:1] in ("[", "{") and start[1:].lstrip(" \t\r\n")[:1] in (("{", "]") if start[0] == "[" else ('"', "}"))


def _first_line_is_an_object(text: str) -> bool:
    first = next((line for line in text_lines(text) if line.strip()), "")
    try:
        return isinstance(orjson.loads(first), dict)
    except orjson.JSONDecodeError:
        return False


def parse_jsonl(text: str, path: Path, name: str) -> Records:
    """JSON Lines: one paper object per non-blank line (references without an abstract, as in
    :func:`parse_json`, listed in ``no_abstract``)."""
    records = Records()
    for lineno, line in enumerate(text_lines(text), start=1):
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
        records.append(record_from_obj(obj, path, name, len(records) + 1, lineno, None))
    return records


EXPORT_FORMAT = "papersift-export"


EXPORT_VERSION = 1


# ---------------------------------------------------------------------- JSON
def export_record(paper: Paper, ann: Annotation) -> dict[str, object]:
    rec = paper_record(paper, ann)
    rec["schema"] = f"papersift-paper/{RECORD_SCHEMA_VERSION}"
    if ann.conflicts:
        rec["conflicts"] = ann.conflicts
    if ann.stamps:  # when each field changed: what import-annotations merges field by field with
        rec["stamps"] = ann.stamps
    if team := team_records(ann):  # every member's marks, in a lab's library (team files carry them back)
        rec["team"] = team
    return rec


def to_json(pairs: list[Pair]) -> str:
    doc = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION,
           "exported": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "count": len(pairs), "papers": [export_record(p, a) for p, a in pairs]}
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n"


def to_jsonl(pairs: list[Pair]) -> str:
    return "".join(orjson.dumps(export_record(p, a)).decode("utf-8") + "\n" for p, a in pairs)
