"""Read JSON, JSON Lines (OpenReview notes and arXiv's metadata snapshot too) and CSV files."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import orjson

from store.choices import FORMULA_START
from store.errors import InputError
from store.ingest.openreview import is_note, note_abstract
from store.ingest.record import MAX_ABSTRACT_CHARS, RawRecord, Records, record_from_obj

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


def _first_line_is_an_object(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        return isinstance(orjson.loads(first), dict)
    except orjson.JSONDecodeError:
        return False


def parse_jsonl(text: str, path: Path, name: str) -> Records:
    """JSON Lines: one paper object per non-blank line (references without an abstract, as in
    :func:`parse_json`, listed in ``no_abstract``)."""
    records = Records()
    for lineno, line in enumerate(text.splitlines(), start=1):
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


# Column names other tools write: Zotero's CSV export has "Abstract Note", "Author" ("Lee, Ann; Ray, Bob").
_CSV_ALIASES = (("abstract note", "abstract"), ("author", "authors"), ("publication year", "year"),
                ("publication title", "venue"), ("manual tags", "keywords"))


def parse_csv(text: str, path: Path, name: str, delimiter: str | None = None) -> list[RawRecord]:
    """CSV/TSV with a header row naming at least an ``abstract`` column."""
    csv.field_size_limit(MAX_ABSTRACT_CHARS * 4)
    if delimiter is None:
        first = text.split("\n", 1)[0]
        delimiter = max([",", ";", "\t"], key=first.count)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        return []
    except csv.Error as exc:
        raise InputError(path, f"invalid CSV: {exc}", line=1) from None
    cols = {h.strip().lower(): i for i, h in enumerate(header)}
    for alias, key in _CSV_ALIASES:
        if alias in cols and key not in cols:
            cols[key] = cols.pop(alias)
    abstract_col = cols.get("abstract", cols.get("summary"))
    if abstract_col is None:
        raise InputError(path, f"no \"abstract\" column in the header (columns: {', '.join(header) or 'none'})", line=1)
    records: list[RawRecord] = []
    try:
        for row in reader:
            lineno = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise InputError(path, f"row has {len(row)} fields but the header has {len(header)}", line=lineno)
            row = [cell[1:] if cell.startswith("'") and cell[1:].startswith(FORMULA_START) else cell for cell in row]
            obj = {key: row[i] for key, i in cols.items()}
            obj["abstract"] = row[abstract_col]
            records.append(record_from_obj(obj, path, name, len(records) + 1, lineno, None))
    except csv.Error as exc:
        raise InputError(path, f"invalid CSV: {exc}", line=reader.line_num) from None
    return records
