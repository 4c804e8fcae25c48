"""The ``papersift`` commands of a corpus that grows every morning: ``fetch`` (arXiv's newest
papers, imported as a batch) and ``archive`` (old skipped papers out of the way, one undo step)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
import sys
from typing import TYPE_CHECKING

from store import locations
from store.wording import counted

from . import output as out
from .library import import_with_progress
from .opened import Opened

if TYPE_CHECKING:
    from store import Library


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    """Add this module's subcommands to the parser (``add`` is build_parser's helper)."""
    p = add("fetch", "fetch the newest papers of arXiv categories and import them (as one batch: search new: to list it)",
            ("text", "json"), run=fetch, creates=True)
    p.add_argument("source", choices=("arxiv",), help="where from (arxiv: its API)")
    p.add_argument("categories", nargs="+", metavar="CATEGORY", help="arXiv categories: cs.LG cs.RO stat.ML")
    p.add_argument("--since", metavar="DATE", help="papers submitted since this date (default: the last day)")
    p.add_argument("--limit", type=out.count_arg, default=5000, help="at most this many papers (default 5000)")
    p.add_argument("--api", default=None, metavar="URL",
                   help="a mirror of arXiv's API (redirects only on its host; answers capped in size and time)")
    p.add_argument("--delay", type=float, default=None, help=argparse.SUPPRESS)  # (tests: no 3 s wait)
    # (tests: a dripping server met in seconds; store.ingest.arxiv_fetch names the defaults)
    p.add_argument("--request-deadline", type=float, default=None, help=argparse.SUPPRESS)
    p.add_argument("--fetch-deadline", type=float, default=None, help=argparse.SUPPRESS)
    p = add("archive", "move old skipped papers out of the way (kept, with every mark, in archive.jsonl; one undo step)",
            ("text", "json"), run=archive)
    p.add_argument("--skipped-before", metavar="DATE", required=True,
                   help="papers you skipped before this date (2026-11-01) that no member starred, means to read "
                        "or has assigned")
    p.add_argument("--dry-run", action="store_true", help="say what would be archived; change nothing")


def fetch(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    """Download (every page, or nothing), keep the feed in LIBRARY/fetched/, import it as a batch."""
    from store.ingest.arxiv_names import since_date
    from store.ingest.daily import fetch_into

    since = since_date(args.since)
    got = fetch_into(lib.folder, args.categories, since, api=args.api, delay=args.delay, limit=args.limit,
                     say=lambda line: out.say(line, stderr=True) if sys.stderr.isatty() else None,
                     note=lambda line: out.say(line, stderr=True),  # (every wait, said wherever stderr goes)
                     request_deadline=args.request_deadline, fetch_deadline=args.fetch_deadline)
    if got.saved is None:
        if args.format == "json":
            out.emit_json({"fetched": 0, "requests": got.requests, "new": 0, "batch": 0, "papers": len(lib)})
        else:
            out.say(f"nothing new on arXiv in {', '.join(args.categories)} since {since:%Y-%m-%d} "
                    f"({counted(got.requests, 'request')}); the library is unchanged")
        return 0
    summary = import_with_progress(lib, [str(got.saved)])
    if args.format == "json":
        out.emit_json({**summary.to_dict(), "papers": len(lib), "fetched": got.entries, "requests": got.requests,
                       "saved": str(got.saved)})
        return 0
    out.say(f"fetched {counted(got.entries, 'entry', 'entries')} since {since:%Y-%m-%d} ({counted(got.requests, 'request')}; kept in "
            f"{locations.FETCHED_DIR}/{got.saved.name})")
    out.say(summary.line() + f"; the library now holds {counted(len(lib), 'paper')}"
            + (f" — `new:` lists batch {summary.batch}" if summary.batch else ""))
    return 0


def archive(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    from store.library.removal import archive_papers, skipped_before
    ids = skipped_before(lib, args.skipped_before)
    if args.dry_run or not ids:
        if args.format == "json":
            out.emit_json({"would_archive" if args.dry_run else "archived": ids, "dry_run": args.dry_run})
        else:
            out.say(f"{'would archive' if args.dry_run else 'nothing to archive:'} {counted(len(ids), 'paper')} "
                    f"skipped before {args.skipped_before}" + ("" if ids else " (that no member starred, means to read or has assigned)"))
            from ..render import plain_title
            for pid in ids[:20]:
                out.say(f"  {pid} {plain_title(lib.paper(pid).title)[:90]}")
            if len(ids) > 20:
                out.say(f"  … and {len(ids) - 20:,} more (--format json lists every id)")
        return 0
    n = archive_papers(lib, ids, f"archive {counted(len(ids), 'paper')} skipped before {args.skipped_before}")
    if args.format == "json":
        out.emit_json({"archived": ids, "dry_run": False})
    else:
        out.say(f"archived {counted(n, 'paper')} skipped before {args.skipped_before}: kept with every mark in "
                f"{locations.ARCHIVE_FILE}; `papersift undo` brings them back")
    return 0
