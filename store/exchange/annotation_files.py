"""Reading the triage back from every format papersift exports: what import-annotations merges.

A papersift JSON or JSON Lines export carries everything, change times included (a merge
field by field). The reference formats carry the triage where their readers keep it: BibTeX in
``papersift_*`` fields, RIS in ``N1  - papersift-status: …`` lines, CSL-JSON in ``custom`` (and
Zotero's "Extra" lines in ``note``), CSV in its columns, Org in a heading's keyword and
properties. They carry no change times, so they merge by whole records (see store.exchange.merge).
A Markdown reading list is for people and is not read back.

Each record: ``id`` (the paper's), ``abstract`` and ``title`` (to match a paper whose id
differs), ``status``, ``star``, ``tags``, ``note``; JSON also ``created``, ``updated``,
``stamps`` and ``conflicts``. Every record is validated; a bad one names the file and line.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import orjson

from store.choices import FORMULA_START
from store.errors import InputError
from store.formats.raw_record import text_lines
from store.formats.textfile import read_text
from store.formats.records import split_triage_lines
from store.exchange.checks import FIELD_CHECKS, record_problem
from store.exchange.team_file import TEAM_FORMAT, TEAM_VERSION, is_team_text
from store.team.members import member_problem
from store.wording import counted, first_few

_ORG_STATUS = {"UNREAD": "unread", "TOREAD": "to-read", "READ": "read", "SKIPPED": "skipped"}
_HEX_ID = re.compile(r"[0-9a-f]{12}")
_Found = tuple[object, int | None, str | None]  # a record as read (not yet checked), its line, where it is


def read_annotation_records(path: Path) -> list[dict[str, Any]]:
    """The triage records of an exported file, validated.

    Raises:
        InputError: not a format papersift exports (or not one it can read back), or a record
            that is not well-formed, with its line where the format has lines.
    """
    text = read_text(path)
    suffix = path.suffix.lower()
    if suffix in (".md", ".markdown"):
        raise InputError(path, "a Markdown reading list is for reading, not for reading back: export JSON "
                               "(everything, with change times), CSV, BibTeX, RIS, CSL-JSON or Org to share annotations")
    if is_team_text(text):
        found = _team(_jsonl(text.lstrip("\ufeff"), path), path)
    elif suffix in (".jsonl", ".ndjson"):
        found = _jsonl(text, path)
    elif suffix == ".json":
        found = _json(text, path)
    elif suffix == ".csv":
        found = _csv(text)
    elif suffix == ".bib":
        found = _bibtex(text, path)
    elif suffix == ".ris":
        found = _ris(text, path)
    elif suffix == ".org":
        found = _org(text)
    else:
        found = _by_look(text, path)
    return [_checked(rec, path, line, where) for rec, line, where in found]


def _by_look(text: str, path: Path) -> list[_Found]:
    """A file of another suffix (``out.bibtex``, ``all.csl-json``: named after `--format`) read as
    what it looks like, as `import` reads it: BibTeX, RIS, JSON or JSON Lines."""
    from store.formats import reader_for

    name = reader_for(path.suffix.lower(), text).name
    if name == "bibtex":
        return _bibtex(text, path)
    if name == "ris":
        return _ris(text, path)
    if name == "json":
        try:
            doc = orjson.loads(text)
        except orjson.JSONDecodeError:
            doc = None
        whole = isinstance(doc, list) or isinstance(doc, dict) and doc.get("format") == "papersift-export"
        return _json(text, path) if whole else _jsonl(text, path)  # (else one object a line)
    raise InputError(path, "not a file papersift exports (.json, .jsonl, .csv, .bib, .ris, .org, or a JSON, "
                           "BibTeX or RIS file of another name)")


def _checked(rec: object, path: Path, line: int | None, where: str | None) -> dict[str, Any]:
    """The record when every field is of its kind and size (store.exchange.checks), else the
    error naming the file, the line (or entry) and the field."""
    if not isinstance(rec, dict):
        raise InputError(path, "each paper's record is an object with a string \"id\"", line=line, where=where)
    for name in ("title", "abstract"):  # (a format without them reads None: no text to match by)
        if rec.get(name, "") is None:
            rec[name] = ""
    if problem := record_problem(rec):
        raise InputError(path, problem, line=line, where=where)
    return rec


def _jsonl(text: str, path: Path) -> list[_Found]:
    out: list[_Found] = []
    for n, line in enumerate(text_lines(text), start=1):
        if line.strip():
            try:
                out.append((orjson.loads(line), n, None))
            except orjson.JSONDecodeError as exc:
                raise InputError(path, f"invalid JSON: {exc}", line=n) from None
    return out


def _team(lines: list[_Found], path: Path) -> list[_Found]:
    """A team file's records (its lines after the header), each naming the header's member.

    Raises:
        InputError: a header that is not a team file's, a newer version, a bad member name, a line
            that is not an object, or a record of another member than the header names.
    """
    head = lines[0][0]
    if not isinstance(head, dict) or head.get("format") != TEAM_FORMAT:
        raise InputError(path, f"not a papersift team file (its first line names \"format\": \"{TEAM_FORMAT}\")", line=1)
    version = head.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= TEAM_VERSION:
        newer = isinstance(version, int) and not isinstance(version, bool) and version > TEAM_VERSION
        raise InputError(path, f"team file version {repr(version)[:40]} " + (
            "is newer than this papersift reads" if newer else "is no version number (1, 2, ...)"), line=1)
    member = head.get("member")
    if not isinstance(member, str) or (problem := member_problem(member)):
        raise InputError(path, f"the header's member: {problem if isinstance(member, str) else 'missing'}", line=1)
    for rec, n, _ in lines[1:]:
        if not isinstance(rec, dict):
            raise InputError(path, "each line is a paper's record (a JSON object)", line=n)
        if "member" in rec and (problem := FIELD_CHECKS["member"](rec["member"])):
            raise InputError(path, f"\"member\" {problem}", line=n)
        if rec.get("member", member) != member:
            raise InputError(path, f"a record of member {rec['member']!r} in {member}'s file", line=n)
        rec["member"] = member
    return lines[1:]


def _json(text: str, path: Path) -> list[_Found]:
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise InputError(path, f"invalid JSON: {exc}") from None
    if isinstance(doc, list):  # CSL-JSON
        return [(_csl(item), None, f"item {i}") for i, item in enumerate(doc, start=1)]
    if not isinstance(doc, dict) or doc.get("format") != "papersift-export":
        raise InputError(path, "not a papersift JSON export (expected \"format\": \"papersift-export\") "
                               "nor CSL-JSON (a list of items)")
    if not isinstance(doc.get("version"), int) or doc["version"] > 1:
        raise InputError(path, f"export format version {doc.get('version')!r} is newer than this papersift reads")
    papers = doc.get("papers") or []
    if not isinstance(papers, list):
        raise InputError(path, "\"papers\" must be a list of paper records")
    return [(r, None, f"paper {i}") for i, r in enumerate(papers, start=1)]


def _csl(item: object) -> object:
    if not isinstance(item, dict):
        return item
    custom = item["custom"] if isinstance(item.get("custom"), dict) else {}
    rec = {"id": item.get("id"), "abstract": item.get("abstract") or "", "title": item.get("title") or ""}
    if "papersift_status" in custom:  # papersift's own: exact
        rec.update(status=custom.get("papersift_status"), star=custom.get("papersift_star", 0),
                   tags=custom.get("papersift_tags", []), note=custom.get("papersift_note", ""))
        return rec
    fields, note = split_triage_lines(str(item.get("note") or "").split("\n"))  # Zotero's "Extra" lines
    return {**rec, **fields, "note": "\n".join(note).rstrip()}


def _cell(value: str | None) -> str:
    """A CSV cell as it was before the export neutralised a formula ('=x' written "'=x")."""
    value = value or ""
    return value[1:] if value.startswith("'") and value[1:2] and value[1] in FORMULA_START else value


def _csv(text: str) -> list[_Found]:
    reader = csv.DictReader(io.StringIO(text))
    out: list[_Found] = []
    for row in reader:
        star = _cell(row.get("star")) or "0"
        out.append(({"id": _cell(row.get("id")), "abstract": _cell(row.get("abstract")),
                     "title": _cell(row.get("title")), "status": _cell(row.get("status")) or "unread",
                     "star": int(star) if star.isdigit() else star,
                     "tags": [t.strip() for t in _cell(row.get("tags")).split(";") if t.strip()],
                     "note": _cell(row.get("note"))}, reader.line_num, None))
    return out


def _bibtex(text: str, path: Path) -> list[_Found]:
    from store.formats.bibtex import bib_unescape, read_entries
    from store.formats.bibtex import _check_braces

    _check_braces(text, path)  # (unbalanced or too deeply nested: named with its line)
    out: list[_Found] = []
    for entry in read_entries(text, path):
        key = entry.get("ID", "")
        pid = entry.get("papersift_id") or (key.rsplit("_", 1)[-1] if _HEX_ID.fullmatch(key.rsplit("_", 1)[-1]) else key)
        star = entry.get("papersift_star", "0").strip()
        out.append(({"id": pid, "abstract": bib_unescape(entry.get("abstract", "")),
                     "title": bib_unescape(entry.get("title", ""), strip_braces=True),
                     "status": entry.get("papersift_status", "unread").strip(),
                     "star": int(star) if star.isdigit() else star,
                     "tags": [t.strip() for t in bib_unescape(entry.get("papersift_tags", "")).split(",") if t.strip()],
                     "note": bib_unescape(entry.get("note", ""))}, None, f"entry {key or '?'}"))
    return out


def _ris(text: str, path: Path) -> list[_Found]:
    from store.formats.ris import html_note
    from store.formats.ris import read_ris

    out: list[_Found] = []
    for entry in read_ris(text, path):
        fields, note = split_triage_lines(entry.fields.get("N1", []))
        # One N1 in HTML (what papersift and Zotero write), or, from other tools, plain lines.
        text = "\n\n".join(html_note(n) for n in note) if note and note[0].startswith("<p>") else "\n".join(note)
        out.append(({"id": entry.first("ID"), "abstract": entry.first("AB", "N2"), "title": entry.first("TI", "T1"),
                     **fields, "note": text.rstrip()}, entry.line, None))
    return out


def _org(text: str) -> list[_Found]:
    """Headings ``* KEYWORD title :tags:`` with a properties drawer, the note indented below."""
    out: list[_Found] = []
    rec: dict[str, Any] | None = None
    in_drawer = False
    note: list[str] = []

    def close() -> None:
        if rec is not None:
            rec["note"] = "\n".join(note).strip("\n")
            out.append((rec, rec.pop("_line"), None))

    for lineno, line in enumerate(text_lines(text), start=1):
        if line.startswith("* "):
            close()
            word = line[2:].split(" ", 1)[0]
            rec, note, in_drawer = {"_line": lineno, "status": _ORG_STATUS.get(word, word)}, [], False
            continue
        if rec is None:
            continue
        stripped = line.strip()
        if stripped == ":PROPERTIES:":
            in_drawer = True
        elif stripped == ":END:" and in_drawer:
            in_drawer = False
        elif in_drawer:
            m = re.match(r":(\w+):\s*(.*)", stripped)
            if m and m.group(1) == "ID":
                rec["id"] = m.group(2)
            elif m and m.group(1) == "STAR":
                rec["star"] = int(m.group(2)) if m.group(2).isdigit() else m.group(2)
            elif m and m.group(1) == "PAPERSIFT_TAGS":
                rec["tags"] = m.group(2).split()
        else:
            note.append(line[2:] if line.startswith("  ") else line)
    close()
    return out


def others_not_taken(records: list[dict[str, Any]], member: str, source: str) -> str:
    """What is said when an export of a lab's library (JSON, JSON Lines: each record's ``team``
    list, every member's marks beside the exporter's) carries other members' marks, which an
    import of it does not take (those lists hold no change times to merge by): their team files
    bring them ("" when there are none)."""
    names: dict[str, int] = {}
    for rec in records:
        team = rec.get("team")
        own = _marks_of(rec)  # (the exporter's entry is the record's own marks: taken, never "also")
        for name in {t.get("member") for t in team if isinstance(t, dict) and _marks_of(t) != own} \
                if isinstance(team, list) else ():
            if isinstance(name, str) and name != member and member_problem(name) is None:
                names[name] = names.get(name, 0) + 1
    if not names:
        return ""
    first = sorted(names)[0]
    return (f"{source}: also holds the marks of {first_few(sorted(names), 4)} (beside its own, on "
            f"{counted(max(names.values()), 'paper')}), which an import does not take: each member's team file "
            f"brings theirs (`papersift --as {first} export --format team`, then import-annotations of that file)")


def exporter_of(records: list[dict[str, Any]]) -> str | None:
    """Whose marks an export of a lab's library holds: the member whose entry in each paper's
    ``team`` list is the record's own marks, when the records name one and the same (None: an
    export of a one-person library has no team lists, and a team file names its member itself)."""
    if any("member" in rec for rec in records):
        return None
    names: set[str] = set()
    for rec in records:
        team = rec.get("team")
        if isinstance(team, list):
            own = _marks_of(rec)
            names |= {t["member"] for t in team if isinstance(t, dict) and isinstance(t.get("member"), str)
                      and _marks_of(t) == own}
    return next(iter(names)) if len(names) == 1 and member_problem(next(iter(names))) is None else None


def _marks_of(rec: dict[str, Any]) -> tuple[object, ...]:
    """A record's marks as a team list entry gives them, to compare (values of any kind: untrusted)."""
    tags = rec.get("tags")
    return (rec.get("status"), rec.get("star"), sorted(map(str, tags)) if isinstance(tags, list) else tags, rec.get("note"))
