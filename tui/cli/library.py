"""The ``papersift`` commands that work on the library itself: open, import, list and search,
triage (status, star, tag, note), stats and doctor; the whole-library curation commands (remove,
retitle, tags, dedup) are in :mod:`tui.cli.curation`, registered here in their place in the help.

Each command is a function of (library, arguments, what opening the library found), registered
with its arguments by :func:`register`; :mod:`tui.cli` parses and dispatches.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store import locations
from store.choices import STATUSES
from store.errors import PapersiftError
from store.wording import counted

from . import curation
from .opened import Opened
from . import output as out

if TYPE_CHECKING:
    from store.ingest.summary import ImportSummary
    from store import Library
    from store.annotations.session import Snapshot
    from store.search.result import SearchResult

    from ..app import PapersiftApp


# store.library.search.SORTS, written out: the parser is built for every command, a one-shot
# search too, which must not import numpy (a test keeps the two the same).
LIST_SORTS = ("import", "status", "star", "team-stars", "random", "recommended")

def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    """Add these commands to the parser (``add`` is tui.cli.build_parser's helper)."""
    p = add("open", "open the app (importing FILEs first; a library folder given alone is opened)", None, run=open_app,
            creates=True)
    p.add_argument("files", nargs="*", metavar="FILE", help="files to import first (any format import reads), or a "
                   "library folder to open")
    p.add_argument("--keymap", metavar="FILE", help="a keymap.toml overriding the default keys")
    p.add_argument("--fresh", action="store_true",
                   help="start with an empty search at the top of the list, not where this library was left")
    # Set by `papersift serve` for each browser session: the dialogs reach files only inside these folders.
    p.add_argument("--confine", action="append", metavar="DIR", help=argparse.SUPPRESS)
    p = add("import", "import dumps, JSON/JSONL (OpenReview too), CSV, BibTeX, RIS or arXiv files (or folders of them)",
            ("text", "json"), run=import_files, creates=True)
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, or folders of them; the format is read from each file")
    p = add("list", "list papers, optionally filtered", run=list_papers)
    p.add_argument("--status", choices=STATUSES, help="only papers with this reading status")
    p.add_argument("--tag", action="append", default=[], type=out.tag_arg,
                   help="only papers with this tag (repeatable: papers with all of them)")
    p.add_argument("--query", default="", help="a search query (same syntax as the app)")
    p.add_argument("--sort", choices=LIST_SORTS, default="import",
                   help="the order of a list without search words (recommended: the triage queue, learned from every mark)")
    p.add_argument("--limit", type=out.count_arg, help="at most this many papers (default: all)")
    p = add("search", "fuzzy, ranked search (any word order, typos forgiven)", run=list_papers)
    p.add_argument("query", nargs="*", help="words (diffusion OR flow: either), and filters such as status:unread "
                   "tag:rl -tag:maybe star:>=2 author:peyre file:day2 \"exact phrase\"")
    p.add_argument("--limit", type=out.count_arg, default=20, help="at most this many papers (default 20)")
    p = add("show", "show one paper in full", ("text", "json"), run=show)
    p.add_argument("id", metavar="ID", help="a paper: its id, a unique prefix of it (2 characters or more), or an arXiv id")
    p = add("status", "set the reading status of papers", ("text", "json"), run=set_status)
    p.add_argument("ids", nargs="+", metavar="ID", help="papers: ids or unique prefixes")
    p.add_argument("status", choices=STATUSES, help="the status to give them")
    p = add("star", "set a star rating 0-3 on papers", ("text", "json"), run=set_star)
    p.add_argument("ids", nargs="+", metavar="ID", help="papers: ids or unique prefixes")
    p.add_argument("stars", type=int, choices=range(0, 4), metavar="N", help="0 (no star) to 3")
    p = add("tag", "add (or --remove) tags on a paper", ("text", "json"), run=tag)
    p.add_argument("id", metavar="ID", help="a paper: its id, a unique prefix of it (2 characters or more), or an arXiv id")
    p.add_argument("tags", nargs="+", metavar="TAG", help="tags, with or without their #")
    p.add_argument("--remove", action="store_true", help="take these tags off instead")
    p = add("tags", "list tags with counts, or rename/merge them across the library", ("table", "json"), run=curation.tags)
    p.add_argument("action", nargs="?", choices=("list", "rename", "merge"), default="list",
                   help="list (the default), rename OLD NEW, or merge TAG... --into TAG")
    p.add_argument("names", nargs="*", metavar="TAG", help="rename: OLD NEW; merge: TAG... --into TAG")
    p.add_argument("--into", metavar="TAG", help="merge: the tag the others become")
    p = add("note", "set a paper's note (TEXT '-' reads standard input; '' clears it)", ("text", "json"), run=note)
    p.add_argument("id", metavar="ID", help="a paper: its id, a unique prefix of it (2 characters or more), or an arXiv id")
    p.add_argument("text", help="the note ('-': read from standard input; '': clear it)")
    p = add("remove", "remove papers and their annotations (a backup first; `papersift undo` brings them back)",
            ("text", "json"), run=curation.remove)
    p.add_argument("ids", nargs="*", metavar="ID", help="papers: ids or unique prefixes (or --query, --sample)")
    p.add_argument("--query", help="remove the papers of this search's result set (same syntax as the app)")
    p.add_argument("--sample", action="store_true", help="remove the bundled sample papers")
    p.add_argument("--dry-run", action="store_true", help="list what would be removed; remove nothing")
    p = add("retitle", "derive again, with this version's rules, the titles of papers imported without one "
                       "(titles this version made stay, unless --again)",
            ("text", "json"), run=curation.retitle)
    p.add_argument("--dry-run", action="store_true", help="list the titles that would change; change nothing")
    p.add_argument("--again", action="store_true",
                   help="derive anew titles this version already made (a grown library can name a paper "
                        "differently; without it they stay as they are)")
    add("stats", "counts by status, star, tag, venue and area; the commonest keywords", ("text", "json"), run=stats)
    p = add("dedup", "near-duplicate merges: --report lists them, --split ID undoes one", ("text", "json"), run=curation.dedup)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--report", action="store_true", help="list the merges an import made")
    g.add_argument("--split", metavar="ID", help="split a merged paper back into the papers it was made of")
    p = add("doctor", "check the library; --repair fixes what can be fixed safely (from backups)", ("text", "json"),
            run=doctor, library=False)
    p.add_argument("--repair", action="store_true", help="fix what can be fixed safely (a backup first)")


def open_app(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    if args.keymap and not Path(args.keymap).is_file():
        raise PapersiftError(f"{args.keymap}: no such keymap file")
    imported = import_with_progress(lib, args.files).line() if args.files else None
    from ..app import make_app
    app = make_app(lib, keymap_path=Path(args.keymap) if args.keymap else None, resume=not args.fresh,
                   confine=[Path(d) for d in args.confine or []])
    if imported:  # said in the app, where the person is looking, and left on the terminal after it
        app.startup_notices.append(imported)
    app.startup_notices += opened.problems
    if drafted := _drafts_kept(lib):
        app.startup_notices.append(drafted)
    app.first_start = opened.new_library and not imported and len(lib) > 0  # the seeds: say so, and how to import
    from store.annotations.session import snapshot
    opened_with = snapshot(lib.annotations)
    app.run()
    crashed = app.return_code not in (None, 0)  # Textual has printed the traceback
    if imported:
        out.say(imported, stderr=True)
    for problem in opened.problems:
        out.say(f"warning: {problem}", stderr=True)
    _after_session(lib, app, opened_with)
    if not crashed:
        from .team import sync_on_quit
        sync_on_quit(lib)
    return (app.return_code or 1) if crashed else 0


def _drafts_kept(lib: Library) -> str:
    """What to say at start of the note drafts a session left unsaved ("" for none)."""
    drafted = [pid for pid in lib.drafts.papers() if lib.corpus.index_of(pid) is not None]
    if not drafted:
        return ""
    from ..render import plain_title
    first = plain_title(lib.paper(drafted[0]).title)
    return (f"{counted(len(drafted), 'unsaved note draft')} kept, on “{first[:60]}”"
            + (f" and {len(drafted) - 1:,} more" if len(drafted) > 1 else "")
            + ": the note editor offers it again there")


def _after_session(lib: Library, app: PapersiftApp, opened_with: Snapshot) -> None:
    """Said on the terminal after the app: changes that waited for another papersift's lock and
    failed, what the session kept, and the notes that could not be saved."""
    if app.main_screen.writes is not None:  # changes that waited for another papersift's lock
        for failure in app.main_screen.writes.drain(lambda line: out.say(line, stderr=True)):
            out.say(f"error: {failure}", stderr=True)
    _say_what_the_session_kept(lib, opened_with, app.main_screen.sync.imports)
    print_unsaved_notes(app.main_screen.unsaved_notes)



def import_files(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    summary = import_with_progress(lib, args.paths)
    if args.format == "json":
        out.emit_json({**summary.to_dict(), "papers": len(lib)})
    else:
        out.say(summary.line() + f"; the library now holds {counted(len(lib), 'paper')}")
    return 0


def list_papers(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    """``list`` (filters and a sort) and ``search`` (a ranked query): the result set, or, when no
    paper holds every word, a note and (for search) the best partial matches."""
    searching = args.command == "search"
    from .query import whole_query
    whole_query(" ".join(args.query) if searching else args.query)
    if searching:  # (one more than the limit: whether weaker matches go on past it)
        result = lib.search.find(" ".join(args.query), limit=None if args.limit is None else args.limit + 1)
    else:
        parts = [args.query] + [f"status:{args.status}"] * bool(args.status) + [f"tag:{t}" for t in args.tag]
        result = lib.search.find(" ".join(p for p in parts if p), sort=args.sort, limit=args.limit)
        if args.sort == "recommended" and not any(a.status != "unread" or a.star or a.tags
                                                   for a in lib.annotations.values()):
            out.say("nothing to learn from yet (no paper marked: read, to-read, skipped, a star or a tag): "
                    "in import order", stderr=True)
    _say_how_read(result)
    shown = result.matches
    full = None  # (a search shows the weaker matches after the result set, as the app does below its divider)
    if not len(shown) and result.weaker:  # no paper holds every word: say so
        out.say("no paper holds every word of the query" + ("; the best partial matches:" if searching
                                                              else " (`papersift search` shows partial matches)"),
                stderr=True)
    beyond = False
    if searching:
        shown, full = result.indices, len(result.matches)
        if args.limit is not None and len(shown) > args.limit:
            beyond, shown, full = full <= args.limit, shown[:args.limit], min(full, args.limit)
    out.print_papers(lib, shown, args.format, total=len(lib), found=result.found, full=full, beyond=beyond)
    return 0


def _say_how_read(result: SearchResult) -> None:
    """On stderr: the query's problems, compounds counted in their other spellings, and words no
    paper holds read as others."""
    for err in result.errors:
        out.console(stderr=True).print(f"[yellow]warning:[/yellow] {out.escaped(err)}")  # a query may hold "[x]"
    for note in result.widened:  # a compound counted in its other spellings
        out.say(f"counted: {note}", stderr=True)
    if result.read_as:  # a word no paper holds
        out.say(f"read as: {', '.join(result.read_as)}", stderr=True)


def _stdin_text() -> str:
    """A note from standard input, read as UTF-8 (at most a note's length and a little more).

    Raises:
        PapersiftError: bytes that are not UTF-8 text (nothing is changed).
    """
    from store.tags import MAX_NOTE_CHARS
    data = sys.stdin.buffer.read(MAX_NOTE_CHARS * 4 + 1)
    if len(data) > MAX_NOTE_CHARS * 4:
        raise PapersiftError(f"standard input: over {MAX_NOTE_CHARS * 4:,} bytes; a note holds at most "
                             f"{MAX_NOTE_CHARS:,} characters: the note is not changed")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PapersiftError(f"standard input, byte {exc.start + 1}: not UTF-8 text: the note is not changed") from None


def show(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    out.print_paper(lib, args.id, "json" if args.format == "json" else "table")
    return 0


def set_status(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    ids = list(dict.fromkeys(lib.paper(i).id for i in args.ids))  # (an id given twice, or whole and as a prefix: one paper)
    lib.marks.set_status(ids, args.status)
    return _ack(args, f"{ids[0] if len(ids) == 1 else counted(len(ids), 'paper')} marked {args.status}", lib, ids)


def set_star(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    ids = list(dict.fromkeys(lib.paper(i).id for i in args.ids))
    lib.marks.set_star(ids, args.stars)
    return _ack(args, f"{ids[0] if len(ids) == 1 else counted(len(ids), 'paper')} starred {out.stars(args.stars)}",
                lib, ids)


def tag(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    from store.tags import normalize_tag
    pid = lib.paper(args.id).id
    had = set(lib.annotation(pid).tags)
    (lib.marks.remove_tags if args.remove else lib.marks.add_tags)([pid], args.tags)
    absent = [t for t in dict.fromkeys(normalize_tag(t) for t in args.tags) if t and t not in had] if args.remove else []
    return _ack(args, f"{pid} tags: {' '.join('#' + t for t in lib.annotation(pid).tags) or '(none)'}"
                + (f" (it had no {', '.join('#' + t for t in absent)})" if absent else ""), lib, [pid])


def note(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    pid = lib.paper(args.id).id
    text = _stdin_text() if args.text == "-" else args.text
    lib.marks.set_note(pid, text)
    return _ack(args, f"{pid} note {'saved' if lib.annotation(pid).note else 'cleared'}", lib, [pid])


def stats(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    out.print_stats(lib.stats.summary(), args.format)
    return 0


def doctor(args: argparse.Namespace) -> int:
    """Runs on the folder itself, so it works when the library cannot be opened."""
    from store import Library
    from store.doctor import check_index_cache, run_doctor

    folder = locations.library_dir(args.library)
    locations.require_library(folder)
    report = run_doctor(folder, repair=args.repair)
    if report.healthy and (folder / locations.CORPUS_FILE).exists():
        check_index_cache(Library(folder), args.repair, report)
    if args.format == "json":
        out.emit_json({"library": str(folder), **report.to_dict()})
    else:
        c = out.console()
        c.print(f"library {folder}", markup=False)
        out.print_labelled(c, [("ok       ", report.ok), ("problem  ", report.problems),
                               ("repaired ", report.repaired)])
        if report.problems and not args.repair and not report.newer:
            c.print("run `papersift doctor --repair` to repair what can be repaired safely", markup=False)
    return 0 if report.healthy else 1


def import_with_progress(lib: Library, paths: list[str]) -> ImportSummary:
    state: dict[str, Any] = {}

    def progress(done: int, total: int) -> None:
        if total < 2000 or not sys.stderr.isatty():  # a bar is for a person watching a terminal
            return
        if "bar" not in state:
            from rich.progress import Progress
            state["bar"] = Progress(transient=True, console=out.console(stderr=True))
            state["bar"].start()
            state["task"] = state["bar"].add_task("deduplicating", total=total)
        state["bar"].update(state["task"], completed=done)

    try:
        return lib.paper_changes.import_paths(paths, progress=progress, replace_sample=True)
    finally:
        if "bar" in state:
            state["bar"].stop()


def _say_what_the_session_kept(lib: Library, opened_with: Snapshot, imported: list[tuple[int, int]]) -> None:
    """After the app closes: what the sitting changed, and where it is kept (nothing if nothing)."""
    from store.annotations.session import session_line, snapshot
    try:
        lib.refresh()  # as saved, another terminal's changes included
        lib.refresh_corpus()  # (and its removals)
    except PapersiftError:
        return  # the app has already said what is wrong with the file
    # a paper another process removed took its marks with it: not this session's doing
    mine = {pid for pid in lib.touched if pid in lib.removed or lib.corpus.index_of(pid) is not None}
    line = session_line(opened_with, snapshot(lib.annotations), only=mine, removed=lib.removed,
                        imported=imported, restored=lib.restored)
    if line:
        out.say(f"{line}; saved in {lib.folder}", stderr=True)
    drafts = lib.drafts.count()  # (the app quit with a note being written: its text is kept)
    if drafts:
        out.say(f"{counted(drafts, 'unsaved note draft')} kept: the note editor offers "
                f"{'it' if drafts == 1 else 'each'} again on its paper", stderr=True)


def print_unsaved_notes(notes: dict[str, str]) -> None:
    """The last resort for notes the app could neither save nor keep as a draft (a full disk):
    their text on the terminal, where it can still be copied."""
    for pid, text in notes.items():
        out.say(f"the note on {pid} could not be saved; its text:\n{text}\n", stderr=True)


def _ack(args: argparse.Namespace, message: str, lib: Library, ids: list[str]) -> int:
    if getattr(args, "format", "text") == "json":
        from store.formats.records import paper_record
        out.emit_json([paper_record(lib.paper(i), lib.annotation(lib.paper(i).id)) for i in ids])
    else:
        out.say(message)  # tags and ids as typed: "[draft]" is not markup
    return 0
