"""The ``papersift`` commands that take the library elsewhere: export, import-annotations (a
colleague's triage merged field by field) and serve (the app in a browser)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from typing import TYPE_CHECKING

from store.errors import PapersiftError
from store.choices import FORMATS, MARKDOWN_GROUPS, STATUSES
from store.wording import counted

from . import output as out

if TYPE_CHECKING:
    from store import Library


def register(add) -> None:
    """Add this module's subcommands to the parser (``add`` is build_parser's helper)."""
    p = add("export", "export papers and annotations (Markdown, CSV, JSON, JSONL, BibTeX, Org, CSL-JSON, RIS)", None,
            run=export)
    p.add_argument("--format", choices=(*FORMATS, "team"), default="md",
                   help="output format (default: md; team: your marks as a file for your lab, see --as)")
    p.add_argument("--team", type=int, metavar="N",
                   help="a team shortlist: papers the members' stars add up to N or more for, with everyone's marks")
    p.add_argument("--status", action="append", default=[], choices=STATUSES, help="only this status (repeatable)")
    p.add_argument("--tag", action="append", default=[], help="only papers with this tag (repeatable)")
    p.add_argument("--star", type=int, choices=range(1, 4), metavar="N", help="only papers with at least N stars")
    p.add_argument("--query", default="", help="only papers matching this search (same syntax as the app)")
    p.add_argument("--group-by", choices=MARKDOWN_GROUPS, default="status",
                   help="Markdown grouping: status, tag, venue (and year) or area")
    p.add_argument("--abstracts", action="store_true", help="Markdown: include abstracts")
    p.add_argument("--output", "-o", metavar="FILE", help="write here (atomically) instead of standard output")
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
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--dry-run", action="store_true", help="show what would change; change nothing")


def export(lib: Library, args: argparse.Namespace, opened=None) -> int:
    from store.exchange.export import export_text, selection_query

    query = selection_query(args.status, args.tag, args.star, args.query)
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
    from store.annotations.atomic import atomic_write_text
    if args.output:
        path = Path(args.output).expanduser()
        if not path.parent.is_dir():
            raise PapersiftError(f"{path.parent}: no such folder for the export")
        was_link = path.is_symlink()
        atomic_write_text(path, text, shared=True)  # a new file renamed over the target: never through a link
        through = " (it replaced a link there; what the link led to is unchanged)" if was_link else ""
        out.say(f"exported {counted(papers, 'paper')} to {path}{through}", stderr=True)
    else:
        sys.stdout.write(text)
    return 0


def import_annotations(lib: Library, args: argparse.Namespace, opened=None) -> int:
    """Each file is read and checked before any is merged: a bad one changes nothing."""
    from datetime import datetime, timezone
    from store.exchange.annotation_files import read_annotation_records
    from store.exchange.merge import plan_merge  # (dedup's imports: only when merging)
    paths = [Path(f) for f in args.files]
    for path in paths:
        if not path.is_file():
            raise PapersiftError(f"{path}: no such file" if not path.exists() else f"{path}: not a file")
    read = [(path, read_annotation_records(path)) for path in paths]
    for path, records in read:  # a file of another library refuses the whole import, before any merge
        _, report = plan_merge(lib, records, source=path.name)
        if records and len(report.unknown) == len(records):
            if any("member" in rec for rec in records):  # a team file: marks, no papers
                raise PapersiftError(f"{path.name}: none of the papers of its {counted(len(records), 'record')} is "
                                     "in this library (a team file from another library?); a team file carries "
                                     "marks, not papers: import the file its library was made from first")
            raise PapersiftError(f"{path.name}: none of the papers of its {counted(len(records), 'record')} is in "
                                 f"this library (a file from another library?); import the papers first (a JSON "
                                 f"export carries them: papersift import {path.name}), then the annotations")
    reports = []
    for path, records in read:
        written = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
        changes, report = plan_merge(lib, records, source=path.name, written=written)
        if records and records[0].get("member") == lib.member:  # a colleague who forgot --as?
            report.warnings.insert(0, f"{path.name} holds {lib.member}'s marks, yours: merged into your own "
                                      "(a colleague's team file names them: did they forget --as NAME?)")
        if not args.dry_run:
            lib.replace_annotations(changes, "import-annotations", f"import annotations from {path.name}")
        reports.append((path, report))
    if args.format == "json":
        if len(reports) == 1:
            out.emit_json({**reports[0][1].to_dict(), "dry_run": args.dry_run})
        else:
            out.emit_json({"files": [{"file": p.name, **r.to_dict()} for p, r in reports], "dry_run": args.dry_run})
        return 0
    c = out.console()
    verb = "would change" if args.dry_run else "changed"
    for path, report in reports:
        head = f"{path.name}: " if len(reports) > 1 else ""
        c.print(f"{head}{counted(report.records, 'record')}: {report.by_id} matched by id, {report.by_text} by text, "
                f"{len(report.unknown)} unknown; {verb} {len(report.changes)}, {report.unchanged} already up to date",
                markup=False)
        out.print_labelled(c, [("", report.changes), ("conflict ", report.conflicts),
                               ("unknown paper ", report.unknown), ("warning ", report.warnings)])
    return 0


def serve(lib: Library, args: argparse.Namespace, opened=None) -> int:
    from ..serve import serve as serve_app
    return serve_app(lib, args.host, args.port, args.keymap, token=args.token, exports=args.exports,
                     token_file=args.token_file, max_sessions=args.max_sessions)
