"""Read abstracts from input files: the paths a command names (a folder's importable files), and
each file by the reader :mod:`store.formats` picks for it (by suffix, else by what it looks like,
else as a dump); each reader returns :class:`~store.formats.raw_record.RawRecord` objects in file
order. Any problem raises :class:`~store.errors.InputError` naming the file and line, before
anything is written to a library.
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path


from store.safe_text import file_name_text
from store import formats
from store.formats.dump import MIN_ABSTRACT_WORDS, dump_records
from store.formats.textfile import check_start, map_utf8, mapped_lines, read_text
from store.errors import InputError
from store.locations import is_library_dir
from store.formats.raw_record import (MAX_ABSTRACT_CHARS, RawRecord, Records)
from store.ingest.sizegate import refuse_early
from store.wording import counted, first_few

IMPORTABLE_SUFFIXES = formats.IMPORTABLE_SUFFIXES  # (the table's: store.formats)
MAP_DUMPS_FROM = 16 << 20  # bytes: a dump this big is read a line at a time from a mapping
SNIFF_BYTES = 1 << 20  # a big file's start that tells its format


# Files a folder of dumps holds that are not dumps: a folder walk passes them over (named alone,
# a README-like text is refused, said). A README's paragraphs would otherwise become papers.
NOT_DUMP_NAMES = ("readme", "changelog", "license", "licence", "copying", "contributing", "code_of_conduct")
OWN_EXPORT_HEADINGS = (b"# Reading list", b"# Team shortlist")  # papersift's Markdown exports
OWN_ORG_TITLE = b"#+title: papersift reading list"  # its Org export (store.formats.org)


def not_a_dump(path: Path) -> bool:
    """Whether a file found in a folder is a README-like file or one of papersift's own Markdown
    exports (its reading list or shortlist: its lines would come back as papers)."""
    return path.stem.lower().split(".")[0] in NOT_DUMP_NAMES or own_export(path) is not None


def own_export(path: Path) -> str | None:
    """Which of papersift's own reading lists a file is ("Markdown": its header and count line;
    "Org": its title line), else None. Read as a dump, each entry would become a paper."""
    suffix = path.suffix.lower()
    if suffix not in (".md", ".txt", ".markdown", ".org"):
        return None
    try:
        with path.open("rb") as fh:
            head = fh.read(400).lstrip(b"\xef\xbb\xbf")
    except OSError:
        return None
    if suffix == ".org":
        return "Org" if head.startswith(OWN_ORG_TITLE) else None
    lines = head.split(b"\n")
    return "Markdown" if (head.startswith(OWN_EXPORT_HEADINGS) and len(lines) > 2
                          and re.match(rb"[\d,]+ papers?, exported \d{4}-\d{2}-\d{2}", lines[2]) is not None) else None


def _folder_files(path: Path) -> tuple[list[Path], list[Path]]:
    """The importable files under a folder, sorted, and those of them that are not dumps
    (:func:`not_a_dump`). followlinks=False: a symlink loop cannot make the walk endless; a library
    folder inside (its corpus.jsonl and annotations.json) is not input, nor is a hidden name."""
    found: list[Path] = []
    skipped: list[Path] = []
    for root, dirs, names in os.walk(path, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not is_library_dir(Path(root) / d))
        for name in sorted(names):
            p = Path(root) / name
            if not name.startswith(".") and p.suffix.lower() in IMPORTABLE_SUFFIXES and p.is_file():
                (skipped if not_a_dump(p) else found).append(p)
    return found, skipped


def expand_paths(paths: list[Path | str], passed: list[Path] | None = None) -> list[Path]:
    """Files named, plus importable files under folders named (sorted, no link loops), less the
    files of a folder that are not dumps (:func:`not_a_dump`: added to ``passed``).

    Raises:
        InputError: a path does not exist, or a folder holds nothing importable.
    """
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            if is_library_dir(path):
                raise InputError(path, "is a papersift library folder, not a dump (open it with `papersift --library "
                                       "FOLDER`; merge its annotations into another with `papersift "
                                       "import-annotations`, from a `papersift export --format json`)")
            found, skipped = _folder_files(path)
            if not found:
                raise InputError(path, f"folder holds no importable files ({formats.importable_list()})"
                                 + (f"; passed over {', '.join(p.name for p in skipped[:3])} (not dumps)"
                                    if skipped else ""))
            if passed is not None:
                passed.extend(skipped)
            files.extend(found)
        elif path.is_file():
            if kind := own_export(path):  # named, it is still no dump: each entry would become a paper
                raise InputError(path, f"is a reading list papersift exported ({kind}), not a dump (its papers' "
                                       "marks travel as `papersift export --format json`, read back by "
                                       "`papersift import-annotations`)")
            if path.stem.lower().split(".")[0] in NOT_DUMP_NAMES and path.suffix.lower() in (".md", ".markdown", ".txt", ""):
                raise InputError(path, "is a README-like document, not a dump of abstracts (one abstract a "
                                       "paragraph): not imported (rename it to import it as a dump)")
            files.append(path)
        elif path.exists():
            raise InputError(path, "not a regular file")
        elif path.is_symlink():
            raise InputError(path, "a symbolic link that leads nowhere (" + _link_trouble(path) + ")")
        else:
            raise InputError(path, "no such file or folder")
    return files


def import_problem(path: Path) -> str | None:
    """Why an import of ``path`` would fail at once, as far as names and a file's first bytes tell
    (no parse): a missing path, a folder with nothing to import, a library folder, a README, a
    binary or empty file. The app's import dialog says it where the path was typed, so that a
    wrong path is put right there; what only a parse finds is said when the import runs."""
    try:
        expand_paths([path])
        if path.is_file():
            check_start(path)
    except InputError as exc:
        return str(exc)
    return None


def _link_trouble(path: Path) -> str:
    """Why a link cannot be followed: a loop, or a target that does not exist."""
    try:
        path.resolve(strict=True)
    except RuntimeError:  # Python 3.11 raises this for a loop
        return "its links lead in a loop"
    except OSError as exc:
        return "its links lead in a loop" if exc.errno == errno.ELOOP else f"{os.readlink(path)} does not exist"
    return "it cannot be read"


def parse_file(path: Path, display_name: str | None = None) -> list[RawRecord]:
    """Parse one file by its suffix; a dump is the fallback format.

    A big UTF-8 dump is read through a mapping of its bytes, a line at a time (see
    :func:`store.formats.textfile.mapped_lines`), the mapping's pages given back as it goes; any
    other file is decoded whole.

    Args:
        path: the file.
        display_name: the name recorded in each record's source (default: file name).
    """
    suffix = path.suffix.lower()
    refuse_early(path, suffix, MAX_ABSTRACT_CHARS)  # an oversized abstract, before the file is in memory
    name = display_name or file_name_text(path.name)
    records: list[RawRecord] | None = _parse_mapped_dump(path, suffix, name)
    text: str | None = None  # (a mapped dump's text is never held whole)
    if records is None:
        text = read_text(path)
        if not text.strip():  # (before any reader: a CSV reader would name its missing header instead)
            raise InputError(path, "no abstracts found " + ("(the file is empty)" if not text else "(the file holds only whitespace)"))
        records = formats.load(formats.reader_for(suffix, text).reader)(text, path, name)
    if not records:
        why = ""
        if isinstance(records, Records) and records.skipped:
            why = f" ({records.skipped} paragraphs, all shorter than {MIN_ABSTRACT_WORDS} words)"
        if isinstance(records, Records) and records.no_abstract:
            why = f" ({counted(len(records.no_abstract), 'entry', 'entries')}, none with an abstract: {first_few(records.no_abstract)})"
        raise InputError(path, "no abstracts found" + why)
    return records


def _parse_mapped_dump(path: Path, suffix: str, name: str) -> Records | None:
    """The records of a big UTF-8 file read as a dump (its first MiB says which format it is:
    every sniffer looks at a file's start), read through a mapping; None for any other file."""
    try:
        size = path.stat().st_size
    except OSError:
        return None  # (read_text says why)
    if size < MAP_DUMPS_FROM or suffix in formats.STRUCTURED_SUFFIXES:
        return None
    try:
        with open(path, "rb") as fh:
            head = fh.read(SNIFF_BYTES).decode("utf-8", "ignore")
    except OSError:
        return None
    if formats.reader_for(suffix, head).name != "dump":
        return None
    data = map_utf8(path)
    if data is None:
        return None
    with data:
        return dump_records(mapped_lines(data, path), path, name)
