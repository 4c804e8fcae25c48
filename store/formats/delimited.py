"""CSV and tab-separated values: read (a header row names the columns, Zotero's and others' names
mapped to papersift's) and CSV written (a cell that a spreadsheet would run as a formula is
neutralized)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from store.choices import FORMULA_START
from store.errors import InputError
from store.escapes import repair_escapes
from store.formats.records import Pair, team_line, team_marks, title_of
from store.formats.raw_record import MAX_ABSTRACT_CHARS, RawRecord, record_from_obj
from store.search.keywords import join_keywords

# Column names other tools write: Zotero's CSV export has "Abstract Note", "Author" ("Lee, Ann; Ray, Bob").
_CSV_ALIASES = (("abstract note", "abstract"), ("author", "authors"), ("publication year", "year"),
                ("publication title", "venue"), ("manual tags", "keywords"))


def parse_csv(text: str, path: Path, name: str, delimiter: str | None = None) -> list[RawRecord]:
    """CSV/TSV with a header row naming at least an ``abstract`` column."""
    csv.field_size_limit(MAX_ABSTRACT_CHARS * 4)
    if delimiter is None:
        first = text.split("\n", 1)[0]
        delimiter = max([",", ";", "\t"], key=first.count)
    # strict: a quote that does not close a field ("Unclosed title,"an abstract",A) is an error
    # naming its line, not a row read with its columns shifted; a TSV's cells are rarely quoted,
    # and one that starts with a quote ("Attention" is all you need) stays readable there
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=delimiter != "\t")
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


def parse_tsv(text: str, path: Path, name: str) -> list[RawRecord]:
    """A tab-separated file: read as CSV with tabs."""
    return parse_csv(text, path, name, delimiter="\t")


# ----------------------------------------------------------------------- CSV
CSV_COLUMNS = ("id", "title", "status", "star", "tags", "note", "abstract", "authors", "sources", "url", "venue", "year",
               "derived_title", "keywords", "area")


def neutralize(cell: str) -> str:
    """Stop spreadsheets from running a cell as a formula (OWASP CSV injection)."""
    return "'" + cell if cell.startswith(FORMULA_START) else cell


def to_csv(pairs: list[Pair]) -> str:
    """One row per paper, UTF-8, RFC 4180 quoting, formula cells neutralised."""
    buf = io.StringIO()
    writer = csv.writer(buf, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    team = any(team_marks(ann) for _, ann in pairs)  # (a lab's library: one more column, every member's marks)
    writer.writerow(CSV_COLUMNS + (("team",) if team else ()))
    for paper, ann in pairs:
        row = [paper.id, title_of(paper), ann.status, str(ann.star), "; ".join(ann.tags), ann.note,
               repair_escapes(paper.abstract), "; ".join(paper.authors), "; ".join(f"{s.file}#{s.position}" for s in paper.sources),
               paper.url, paper.venue, paper.year, "true" if paper.derived_title else "false",
               join_keywords(paper.keywords), paper.area] + ([team_line(ann)] if team else [])
        writer.writerow([neutralize(c) for c in row])
    return buf.getvalue()
