"""Read RIS, the reference format Zotero, Mendeley, EndNote and publishers export (and papersift).

An RIS file is a run of entries, each a block of ``XX  - value`` lines from
``TY`` (the type) to ``ER`` (end of record). Readers differ in how forgiving
they are; this one accepts what exporters write in practice (one or two spaces
before the hyphen, a value continued on the following lines, blank lines
anywhere) and names the line of anything else, so a file that is not RIS, or a
truncated one, is refused instead of half read. (rispy, the usual library,
drops an entry without ``ER`` and lines it cannot place without a word.)

Mapping the tags to a paper's fields is :func:`store.ingest.parse.parse_ris`'s job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from store.errors import InputError

_TAG = re.compile(r"([A-Z][A-Z0-9]) {1,2}-(?: (.*)|\s*)$")


def looks_like_ris(text: str) -> bool:
    """True when the first non-blank line opens an RIS entry (``TY  - ``)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    m = _TAG.match(first.strip())
    return bool(m and m.group(1) == "TY")


@dataclass
class RisEntry:
    """One entry: its values per tag, in file order, and the line its ``TY`` is on."""

    line: int
    fields: dict[str, list[str]] = field(default_factory=dict)

    def first(self, *tags: str) -> str:
        """The first non-empty value of the first of ``tags`` present ('' if none)."""
        for tag in tags:
            for value in self.fields.get(tag, ()):
                if value:
                    return value
        return ""

    def all(self, *tags: str) -> list[str]:
        """Every non-empty value of ``tags``, tag by tag."""
        return [v for tag in tags for v in self.fields.get(tag, ()) if v]


def read_ris(text: str, path: Path) -> list[RisEntry]:
    """The entries of an RIS file.

    Raises:
        InputError: a line outside an entry that does not start one, an entry
            without ``ER``, or a ``TY`` inside an open entry, with its line.
    """
    entries: list[RisEntry] = []
    entry: RisEntry | None = None
    last: list[str] | None = None  # the values of the latest tag, which a continuation line extends
    for lineno, raw in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        m = _TAG.match(line)
        if entry is None:
            if not m or m.group(1) != "TY":
                raise InputError(path, f"expected an RIS entry to start here (\"TY  - \"), found {line[:40]!r}",
                                 line=lineno)
            entry = RisEntry(line=lineno)
            last = None
        elif m and m.group(1) == "TY":
            raise InputError(path, f"a new entry starts before the one from line {entry.line} ends "
                                   "(no \"ER  - \" line)", line=lineno)
        if m is None:  # a value continued on the next line (an entry's first line is its TY, so last is set)
            assert last is not None
            last[-1] = f"{last[-1]} {line}".strip()
            continue
        tag, value = m.group(1), (m.group(2) or "").strip()
        if tag == "ER":
            entries.append(entry)
            entry, last = None, None
            continue
        last = entry.fields.setdefault(tag, [])
        last.append(value)
    if entry is not None:
        raise InputError(path, "the file ends inside an entry (no \"ER  - \" line)", line=entry.line)
    return entries
