"""Every file format papersift reads or writes, in one table: the first place to look, and the one
place to add a format.

A :class:`Format` names its reader (a function ``(text, path, name) -> records``, for import) and its
writer (``(pairs) -> text``, for export) as ``"module:function"`` strings, imported only when used:
this table is read by the command line to build its options, and a one-shot search must not pay for
the parsers. Import picks a reader by the file's suffix, then by what a file of another suffix
looks like (``sniff``); a file nothing claims is read as a dump (paragraphs of abstracts).

Each format is a module of this package holding its reader and/or writer (``bibtex``, ``ris``,
``jsonl`` for JSON and JSON Lines, ``delimited`` for CSV and TSV, ``markdown``, ``org``, ``csl``,
``atom``, ``dump``); ``textfile`` reads a file's text for all of them. The format modules never
import each other: what readers share is in :mod:`store.formats.raw_record`, what writers share in
:mod:`store.formats.records`. This is the one package where import and export meet.

To add a format: write its module, add a row here. The command line's ``--format``
choices, the export dialog, the suffixes a folder import takes and the error messages follow.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, NamedTuple


class Format(NamedTuple):
    name: str  # the --format value ("bibtex")
    label: str  # what a person calls it ("BibTeX")
    suffixes: tuple[str, ...] = ()  # read from files of these suffixes (the first is what an export writes)
    reader: str = ""  # "module:function" of its reader ('' : not imported)
    writer: str = ""  # "module:function" of its writer ('' : not exported)
    sniff: str = ""  # "module:function" telling a file of another suffix is one of these ('' : never)
    export_suffix: str = ""  # what an export writes, when not the first of ``suffixes``

    @property
    def extension(self) -> str:
        return self.export_suffix or (self.suffixes[0] if self.suffixes else "")


TABLE: tuple[Format, ...] = (
    Format("md", "Markdown reading list", writer="store.formats.markdown:to_markdown", export_suffix=".md"),
    Format("csv", "CSV", (".csv",), reader="store.formats.delimited:parse_csv",
           writer="store.formats.delimited:to_csv"),
    Format("tsv", "tab-separated values", (".tsv",), reader="store.formats.delimited:parse_tsv"),
    Format("json", "JSON", (".json",), reader="store.formats.jsonl:parse_json", writer="store.formats.jsonl:to_json",
           sniff="store.formats.jsonl:looks_like_json"),
    Format("jsonl", "JSON Lines", (".jsonl", ".ndjson"), reader="store.formats.jsonl:parse_jsonl",
           writer="store.formats.jsonl:to_jsonl"),
    Format("bibtex", "BibTeX", (".bib",), reader="store.formats.bibtex:parse_bibtex",
           writer="store.formats.bibtex:to_bibtex", sniff="store.formats.bibtex:looks_like_bibtex"),
    Format("org", "Org", writer="store.formats.org:to_org", export_suffix=".org"),
    Format("csl-json", "CSL-JSON", writer="store.formats.csl:to_csl_json", export_suffix=".csl.json"),
    Format("ris", "RIS", (".ris",), reader="store.formats.ris:parse_ris", writer="store.formats.ris:to_ris",
           sniff="store.formats.ris:looks_like_ris"),
    Format("atom", "arXiv Atom", (".xml", ".atom"), reader="store.formats.atom:parse_atom",
           sniff="store.formats.atom:looks_like_atom"),
    Format("rss", "arXiv RSS", (".rss",), reader="store.formats.rss:parse_rss", sniff="store.formats.rss:looks_like_rss"),
    Format("oai", "arXiv OAI-PMH", (".oai",), reader="store.formats.oai:parse_oai",
           sniff="store.formats.oai:looks_like_oai"),
    Format("dump", "plain-text dump", (".txt", ".md", ".text", ".dump"), reader="store.formats.dump:parse_dump"),
)

BY_NAME = {f.name: f for f in TABLE}
EXPORTS = tuple(f.name for f in TABLE if f.writer)  # the --format choices of `export`, in this order
EXTENSIONS = {f.name: f.extension for f in TABLE if f.writer}
IMPORTABLE_SUFFIXES = frozenset(s for f in TABLE if f.reader for s in f.suffixes)
STRUCTURED_SUFFIXES = frozenset(s for f in TABLE if f.reader and not f.sniff and f.name != "dump"
                                for s in f.suffixes)  # their content is never sniffed as another format
JSON_FORMATS = ("json", "jsonl", "csl-json")  # every character kept, written as an escape


def importable_list() -> str:
    """The suffixes a folder import takes, for messages (".bib, .csv, …")."""
    return ", ".join(sorted(IMPORTABLE_SUFFIXES))


def load(spec: str) -> Callable[..., Any]:
    """The function a ``"module:function"`` string names (imported now)."""
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


SNIFFED_FIRST = frozenset({".xml"})  # arXiv's Atom, RSS and OAI-PMH all come as .xml: told apart by their look


def reader_for(suffix: str, text: str) -> Format:
    """The format a file is read as: by its suffix (an ``.xml`` file by its look first), else by its
    look, else a dump."""
    if suffix in SNIFFED_FIRST:
        for f in TABLE:
            if f.sniff and suffix in f.suffixes + (".xml",) and f.name in ("atom", "rss", "oai") \
                    and load(f.sniff)(text):
                return f
    for f in TABLE:
        if f.reader and suffix in f.suffixes and f.name != "dump":
            return f
    if suffix not in STRUCTURED_SUFFIXES:
        for f in TABLE:
            if f.sniff and load(f.sniff)(text):
                return f
    return BY_NAME["dump"]
