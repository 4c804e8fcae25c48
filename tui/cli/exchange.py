"""The ``papersift`` commands that take the library elsewhere: export, import-annotations (a
colleague's triage merged field by field) and serve (the app in a browser)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
import sys
from pathlib import Path

from typing import TYPE_CHECKING

from store.errors import PapersiftError
from store.choices import MARKDOWN_GROUPS, STATUSES
from store.formats import EXPORTS as FORMATS
from store.wording import counted

from . import output as out

if TYPE_CHECKING:
    from .opened import Opened
    from store import Library


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    """Add this module's subcommands to the parser (``add`` is build_parser's helper)."""
    p = add("export", "export papers and annotations (Markdown, CSV, JSON, JSONL, BibTeX, Org, CSL-JSON, RIS)", None,
            run=export)
    p.add_argument("--format", choices=(*FORMATS, "team"), default="md", type=lambda v: _ALIASES.get(v.lower(), v.lower()),
                   help="output format (default: md; team: your marks as a file for your lab, see --as)")
    p.add_argument("--team", type=int, metavar="N",
                   help="a team shortlist: papers the members' stars add up to N or more for, with everyone's marks")
    p.add_argument("--status", action="append", default=[], choices=STATUSES, help="only this status (repeatable: any of them)")
    p.add_argument("--tag", action="append", default=[], type=out.tag_arg, help="only papers with this tag (repeatable: "
                   "papers with all of them)")
    p.add_argument("--star", type=int, choices=range(1, 4), metavar="N", help="only papers with at least N stars")
    p.add_argument("--query", default="", help="only papers matching this search (same syntax as the app)")
    p.add_argument("--group-by", choices=MARKDOWN_GROUPS, default="status",
                   help="Markdown grouping: status, tag, venue (and year) or area")
    p.add_argument("--abstracts", action="store_true", help="Markdown: include abstracts")
    p.add_argument("--output", "-o", metavar="FILE", help="write here (atomically) instead of standard output ('-': "
                   "standard output)")
    p = add("serve", "run the app in a web browser (on this computer only, behind a secret URL)", None, run=serve,
            creates=True)
    p.add_argument("--host", default="127.0.0.1",
                   help="interface to listen on (default: 127.0.0.1; anything else is reachable by others)")
    p.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    p.add_argument("--token", help="a fixed secret for the URL, for bookmarks (default: a fresh one each run; "
                   "`ps` shows it: prefer $PAPERSIFT_SERVE_TOKEN or --token-file)")
    p.add_argument("--token-file", metavar="FILE", help="read the fixed secret from this file")
    p.add_argument("--max-sessions", type=int, default=4, metavar="N",
                   help="browser sessions at once (each runs an app process; default: 4)")
    p.add_argument("--exports", metavar="DIR",
                   help="the folder the browser's import and export dialogs may use besides the library "
                        "(default: LIBRARY/exports)")
    p.add_argument("--keymap", metavar="FILE", help="a keymap.toml overriding the default keys")
    p = add("import-annotations", "merge annotations from papersift exports or members' team files", ("text", "json"),
            run=import_annotations)
    p.add_argument("files", nargs="+", metavar="FILE", help="papersift exports (JSON, JSONL, CSV) or team files")
    p.add_argument("--dry-run", action="store_true", help="show what would change; change nothing")


# The names a person may give a format (the dialog says "Markdown"; BibTeX files end in .bib).
_ALIASES = {"markdown": "md", "bib": "bibtex", "csl": "csl-json", "csljson": "csl-json"}


def export(lib: Library, args: argparse.Namespace, opened: Opened | None = None) -> int:
    from store.exchange.export import export_text, selection_query

    from .query import whole_query
    query = selection_query(args.status, args.tag, args.star, whole_query(args.query) if args.query else "")
    if args.format == "team":
        from store.exchange.team_file import team_text
        anns = lib.member_records(lib.member)  # (a mark taken back travels too: the lead takes it back)
        if query:
            chosen = {p.id for p, _ in lib.pairs(query)}
            anns = {pid: a for pid, a in anns.items() if pid in chosen}
        return _write(args, team_text(lib.member, anns.values()), sum(1 for a in anns.values() if a.marked))
    if args.team is not None:
        if args.team < 1:
            raise PapersiftError(f"--team {args.team}: the shortlist's bar is a number of stars, 1 or more")
        if args.format != "md":
            raise PapersiftError(f"--team writes the Markdown shortlist; --format {args.format} has no team "
                                 "shortlist (every format carries every member's marks: drop --team)")
        from store.exchange.shortlist import team_shortlist
        return _write(args, *team_shortlist(lib, args.team, query, abstracts=args.abstracts))
    pairs = lib.pairs(query)
    bar = None
    if len(pairs) >= 2000 and args.output:
        from rich.progress import Progress
        bar = Progress(transient=True, console=out.console(stderr=True))
        bar.start()
        task = bar.add_task("exporting", total=len(pairs))
    try:
        text = export_text(pairs, args.format, group_by=args.group_by, abstracts=args.abstracts,
                           library_name=lib.name,
                           progress=(lambda d, t: bar.update(task, completed=d)) if bar else None)
    finally:
        if bar:
            bar.stop()
    return _write(args, text, len(pairs))


def _write(args: argparse.Namespace, text: str, papers: int) -> int:
    """An export's text to ``--output`` (atomically) or standard output."""
    from store.files.atomic import atomic_write_text
    if args.output and args.output != "-":  # ("-": standard output, as every tool reads it)
        path = Path(args.output).expanduser()
        if not path.parent.is_dir():
            raise PapersiftError(f"{path.parent}: no such folder for the export")
        if path.is_dir() and not path.is_symlink():
            raise PapersiftError(f"{path}: a folder: give the export a file name (e.g. {path / ('papers.' + args.format)})")
        from store.locations import a_librarys_own
        if a_librarys_own(Path(os.path.abspath(path))):  # (no export ever takes a library's own file's place)
            raise PapersiftError(f"{path}: a library's own file: an export never writes over it (nothing was "
                                 f"written); name another file, e.g. reading-list.md outside the library's folder")
        was_link = path.is_symlink()
        from store.locations import in_a_library
        # a new file renamed over the target: never through a link; made to be handed on (the
        # umask's permissions), but private in a library's folder, as its files are
        atomic_write_text(path, text, shared=not in_a_library(Path(os.path.abspath(path))))
        through = " (it replaced a link there; what the link led to is unchanged)" if was_link else ""
        out.say(f"exported {counted(papers, 'paper')} to {path}{through}", stderr=True)
    else:
        sys.stdout.write(text)
    return 0


def import_annotations(lib: Library, args: argparse.Namespace, opened: Opened | None = None) -> int:
    """Every file is read and checked before any is merged, and all are merged as one write: a bad
    one changes nothing (store.exchange.import_files)."""
    from store.exchange.import_files import merge_files
    merged = merge_files(lib, [Path(f) for f in args.files], dry_run=args.dry_run)
    if args.format == "json":
        rows = [{**m.report.to_dict(), "unknown_count": len(m.report.unknown)} for m in merged]
        if len(rows) == 1:
            out.emit_json({**rows[0], "dry_run": args.dry_run})
        else:
            out.emit_json({"files": [{"file": m.path.name, **row} for m, row in zip(merged, rows)],
                           "dry_run": args.dry_run})
        return 0
    c = out.console()
    verb = "would change" if args.dry_run else "changed"
    for m in merged:
        report = m.report
        head = f"{m.path.name}: " if len(merged) > 1 else ""
        c.print(f"{head}{counted(report.records, 'record')}: {report.by_id:,} matched by id, {report.by_text:,} by "
                f"text, {len(report.unknown):,} unknown; {verb} {len(report.changes):,}, {report.unchanged:,} already "
                "up to date", markup=False)
        out.print_labelled(c, [("", report.changes), ("conflict ", report.conflicts),
                               ("unknown paper ", _first(report.unknown)), ("warning ", report.warnings)])
    return 0


SHOWN_UNKNOWN = 10  # unknown papers named one a line; the rest counted (a file of another library names 478k)


def _first(lines: list[str], shown: int = SHOWN_UNKNOWN) -> list[str]:
    """The first ``shown`` lines, and how many more there are."""
    if len(lines) <= shown:
        return lines
    return [*lines[:shown], f"… and {len(lines) - shown:,} more"]


def serve(lib: Library, args: argparse.Namespace, opened: Opened | None = None) -> int:
    from ..serve import serve as serve_app
    return serve_app(lib, args.host, args.port, args.keymap, token=args.token, exports=args.exports,
                     token_file=args.token_file, max_sessions=args.max_sessions)
