"""Several colleagues' files merged as one step: ``papersift import-annotations a.json b.json c.json``.

Every file is read and checked first (:mod:`store.exchange.annotation_files`: a bad record names its
file and line), then merged in the order given, each into what the ones before it made
(:func:`store.exchange.merge.plan_merge` with ``planned``), and only then written: one durable
write, one undo entry, one backup. A bad file, a file of another library or a kill leaves the
library as it was; an import that returned has all of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store.errors import PapersiftError
from store.exchange.annotation_files import read_annotation_records
from store.wording import counted

if TYPE_CHECKING:
    from store.exchange.merge import MergeReport
    from store.library import Library
    from store.records import Annotation, RecordKey


@dataclass
class FileMerge:
    """One file of an import: its path and what merging it did (or would do)."""

    path: Path
    report: MergeReport


_Read = tuple[Path, list[dict[str, Any]], datetime]  # a file, its records, when it was written


def read_files(paths: list[Path], strict: bool = True) -> list[_Read]:
    """Every file's records, each checked, and when the file was written (what a change time ahead
    of this machine's clock counts as).

    Args:
        strict: a file with nothing in it is refused (a person's import: the wrong file, or one
            cut short); a lab's sync passes False (a member with no marks yet writes an empty one).

    Raises:
        PapersiftError: a path that is no file, or an empty one; InputError: a record that cannot
            be merged.
    """
    for path in paths:
        if not path.is_file():
            raise PapersiftError(f"{path}: no such file" if not path.exists() else f"{path}: not a file")
    read = []
    for path in paths:
        if strict and _blank(path):  # (before a parse, which says it in its format's words)
            raise PapersiftError(f"{path}: no annotations found (the file is empty): nothing changed")
        records = read_annotation_records(path)
        try:
            written = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
        except OSError as exc:
            raise PapersiftError(f"{path}: cannot be read ({exc.strerror or exc})") from None
        read.append((path, records, written))
    return read


def _blank(path: Path) -> bool:
    """Whether a file holds nothing but white space (its first 64 KB read, no further)."""
    try:
        with path.open("rb") as f:
            return not f.read(65_536).strip()
    except OSError:
        return False


def merge_files(lib: Library, paths: list[Path], dry_run: bool = False, strict: bool = True,
                from_lab: bool = False) -> list[FileMerge]:
    """Merge the files into the library as one change (nothing written with ``dry_run``).

    Args:
        strict: a file none of whose papers is here is refused (a file of another library); a
            lab's sync passes False (marks of papers this library lacks are counted, not merged).
        from_lab: a lab's sync: the change is no member's to undo (LibraryCore.replace_annotations).

    Raises:
        PapersiftError: a file that cannot be read or merged (nothing is changed).
    """
    read = read_files(paths, strict)
    changes, merged = _plan(lib, read, strict)
    if dry_run or not changes:
        return merged
    with lib.lock.held():
        if lib.refresh():  # another process wrote since: merged again into what it wrote
            changes, merged = _plan(lib, read, strict)
        names = ", ".join(p.name for p in paths)
        lib.replace_annotations(changes.values(), "import-annotations", f"import annotations from {names}", from_lab)
    return merged


def _plan(lib: Library, read: list[_Read], strict: bool = True) -> tuple[dict[RecordKey, Annotation], list[FileMerge]]:
    from store.exchange.merge import plan_merge  # (dedup's imports: only when merging)

    planned: dict[RecordKey, Annotation] = {}
    merged = []
    for path, records, written in read:
        changes, report = plan_merge(lib, records, source=path.name, written=written, planned=planned)
        if strict and records and len(report.unknown) == len(records):
            raise _another_library(path, records)
        if records and records[0].get("member") == lib.member:  # a colleague who forgot --as?
            report.warnings.insert(0, f"{path.name} holds {lib.member}'s marks, yours: merged into your own "
                                      "(a colleague's team file names them: did they forget --as NAME?)")
        planned.update(changes)
        merged.append(FileMerge(path, report))
    return planned, merged


def _another_library(path: Path, records: list[dict[str, Any]]) -> PapersiftError:
    """A file none of whose papers is here: refused, before anything is merged."""
    if any("member" in rec for rec in records):  # a team file: marks, no papers
        return PapersiftError(f"{path.name}: none of the papers of its {counted(len(records), 'record')} is "
                              "in this library (a team file from another library?); a team file carries "
                              "marks, not papers: import the file its library was made from first")
    return PapersiftError(f"{path.name}: none of the papers of its {counted(len(records), 'record')} is in "
                          f"this library (a file from another library?); import the papers first (a JSON "
                          f"export carries them: papersift import {path.name}), then the annotations")
