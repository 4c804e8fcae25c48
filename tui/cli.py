"""The ``papersift`` command line.

``papersift [FILE...]`` imports any files given and opens the app; the
subcommands work on the library without the app. Output is Rich for people or
``--format json`` for scripts. Errors name the file (and line) at fault, exit
with status 1, and leave the library untouched. Textual is imported only when
the app is opened, so scripted commands start fast.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from store import locations
from store.choices import STATUSES
from store.errors import PapersiftError
from store.models import normalize_tag
from store.text import counted

from . import cli_output as out

if TYPE_CHECKING:
    from store import Library


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, sized as argparse sizes it but without importing shutil
    (argparse builds one for every option it adds; the import cost a one-shot search ~3 ms)."""

    def __init__(self, prog: str, **kwargs) -> None:
        if kwargs.get("width") is None:
            try:
                columns = int(os.environ["COLUMNS"])
            except (KeyError, ValueError):
                columns = 0
            if columns <= 0:
                try:
                    columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
                except (AttributeError, ValueError, OSError):
                    columns = 80
            kwargs["width"] = columns - 2
        super().__init__(prog, **kwargs)


class _Unused:
    """Stands in for the parser of a command not being run (see build_parser's ``only``)."""

    def add_argument(self, *args, **kwargs) -> None:
        pass

    def add_mutually_exclusive_group(self, **kwargs) -> "_Unused":
        return self


def command_names() -> list[str]:
    """Every subcommand's name (no parser is built)."""
    names: list[str] = []
    build_parser(only="", names=names)
    return names


def build_parser(only: str | None = None, names: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser.

    Args:
        only: build just this subcommand's parser (argparse spends ~0.5 ms per
            subparser, most of it looking for message translations; a one-shot
            search should not pay for twenty). None: all of them, for help.
        names: if given, every subcommand's name is appended to it.
    """
    parser = argparse.ArgumentParser(
        prog="papersift", formatter_class=_Formatter,
        description="Triage and annotate research abstracts from the keyboard. "
                    "With no command, opens the app (importing any FILEs given first).")
    parser.add_argument("--library", metavar="DIR", help="library folder (default: $PAPERSIFT_LIBRARY or the user data folder)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_: str, fmt: tuple[str, ...] | None = ("table", "plain", "json")) -> argparse.ArgumentParser:
        if names is not None:
            names.append(name)
        if only is not None and name != only:
            return _Unused()  # type: ignore[return-value]
        p = sub.add_parser(name, help=help_, description=help_, formatter_class=_Formatter)
        if fmt:
            p.add_argument("--format", choices=fmt, default=fmt[0], help=f"output format (default: {fmt[0]})")
        return p

    p = add("open", "open the app (importing FILEs first; a library folder given alone is opened)", None)
    p.add_argument("files", nargs="*", metavar="FILE")
    p.add_argument("--keymap", metavar="FILE", help="a keymap.toml overriding the default keys")
    p.add_argument("--fresh", action="store_true",
                   help="start with an empty search at the top of the list, not where this library was left")
    # Set by `papersift serve` for each browser session: the dialogs reach files only inside these folders.
    p.add_argument("--confine", action="append", metavar="DIR", help=argparse.SUPPRESS)
    p = add("import", "import dumps, JSON/JSONL (OpenReview too), CSV, BibTeX, RIS or arXiv files (or folders of them)", ("text", "json"))
    p.add_argument("paths", nargs="+", metavar="PATH")
    p = add("list", "list papers, optionally filtered")
    p.add_argument("--status", choices=STATUSES)
    p.add_argument("--tag", action="append", default=[])
    p.add_argument("--query", default="", help="a search query (same syntax as the app)")
    p.add_argument("--sort", choices=("import", "status", "star", "random"), default="import")
    p.add_argument("--limit", type=out.count_arg)
    p = add("search", "fuzzy, ranked search (any word order, typos forgiven)")
    p.add_argument("query", nargs="+", help="words, and filters such as status:unread tag:rl -tag:maybe star:>=2 "
                   "author:peyre file:day2 \"exact phrase\"")
    p.add_argument("--limit", type=out.count_arg, default=20)
    p = add("show", "show one paper in full", ("text", "json"))
    p.add_argument("id")
    p = add("status", "set the reading status of papers", ("text", "json"))
    p.add_argument("ids", nargs="+", metavar="ID")
    p.add_argument("status", choices=STATUSES)
    p = add("star", "set a star rating 0-3", ("text", "json"))
    p.add_argument("id")
    p.add_argument("stars", type=int, choices=range(0, 4), metavar="N")
    p = add("tag", "add (or --remove) tags on a paper", ("text", "json"))
    p.add_argument("id")
    p.add_argument("tags", nargs="+", metavar="TAG")
    p.add_argument("--remove", action="store_true")
    p = add("tags", "list tags with counts, or rename/merge them across the library", ("table", "json"))
    p.add_argument("action", nargs="?", choices=("list", "rename", "merge"), default="list")
    p.add_argument("names", nargs="*", metavar="TAG", help="rename: OLD NEW; merge: TAG... --into TAG")
    p.add_argument("--into", metavar="TAG", help="merge: the tag the others become")
    p = add("note", "set a paper's note (TEXT '-' reads standard input; '' clears it)", ("text", "json"))
    p.add_argument("id")
    p.add_argument("text")
    p = add("remove", "remove papers and their annotations (a backup first; `papersift undo` brings them back)",
            ("text", "json"))
    p.add_argument("ids", nargs="*", metavar="ID")
    p.add_argument("--query", help="remove the papers of this search's result set (same syntax as the app)")
    p.add_argument("--sample", action="store_true", help="remove the bundled sample papers")
    p.add_argument("--dry-run", action="store_true", help="list what would be removed; remove nothing")
    add("undo", "undo the last change (repeatable; survives restarts)", ("text", "json"))
    add("redo", "make again what the last undo reverted (until a new change is made)", ("text", "json"))
    add("retitle", "derive again, with this version's rules, the titles of papers imported without one",
        ("text", "json"))
    p = add("history", "the recent changes that undo would revert", ("text", "json"))
    p.add_argument("--limit", type=out.count_arg, default=20)
    add("stats", "counts by status, star, tag, venue and area; the commonest keywords", ("text", "json"))
    p = add("dedup", "near-duplicate merges: --report lists them, --split ID undoes one", ("text", "json"))
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--report", action="store_true")
    g.add_argument("--split", metavar="ID")
    p = add("doctor", "check the library; --repair fixes what can be fixed safely (from backups)", ("text", "json"))
    p.add_argument("--repair", action="store_true")
    from .cli_extra import register
    register(add)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    names = command_names()
    argv = with_default_command(argv, names)
    command = _command_in(argv)
    missing_id = None
    if command in ("status", "star"):
        argv, missing_id = _value_last(argv, command)
    parser = build_parser(only=command if command in names else None)
    if missing_id:
        subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        subparsers.choices[command].error(  # exits 2 with the subcommand's usage, like argparse's own errors
            f"which paper? give its id: papersift {command} ID{' [ID ...]' if command == 'status' else ''} {missing_id}")
    args, extra = parser.parse_known_args(argv)
    if extra and args.command == "search" and all(_NEGATED_FILTER.fullmatch(x) for x in extra):
        args.query += extra  # `papersift search robots -tag:maybe`: a query filter, not an option
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return run(args)
    except PapersiftError as exc:
        out.console(stderr=True).print(f"[bold red]error:[/bold red] {_escape(exc)}")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `papersift list | head`: the reader went away; not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _value_last(argv: list[str], command: str) -> tuple[list[str], str | None]:
    """`papersift status read ID...` and `papersift star 3 ID` read as naturally as the documented
    `status ID... read` and `star ID 3`: a status word (or a 0-3 rating) given first moves last.

    Returns:
        The arguments, and the status (rating) if it was the only one given (no paper id).
    """
    start = argv.index(command) + 1
    positions, i = [], start
    while i < len(argv):
        if argv[i] == "--format":
            i += 2
            continue
        if not argv[i].startswith("-"):
            positions.append(i)
        i += 1
    value = STATUSES if command == "status" else ("0", "1", "2", "3")
    if len(positions) == 1 and argv[positions[0]] in value:
        return argv, argv[positions[0]]
    if len(positions) < 2:
        return argv, None
    first, last = argv[positions[0]], argv[positions[-1]]
    if first in value and last not in value:
        argv = argv[:positions[0]] + argv[positions[0] + 1:] + [first]
    return argv, None


_NEGATED_FILTER = re.compile(r"-[A-Za-z]+:\S*")
_QUERY_OPTIONS = ("--query",)  # their value may start with "-" (`--query -tag:maybe`)


def with_default_command(argv: list[str], commands) -> list[str]:
    """The arguments with the global ``--library`` first and ``open`` named when no command is.

    ``papersift``, ``papersift FILE...``, ``papersift --library DIR`` and
    ``papersift --keymap K`` all mean ``papersift open ...``; ``--library`` is
    accepted anywhere (before a ``--``), since it belongs to every command; a
    ``--query`` value may start with a dash (``--query -tag:maybe``).
    """
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            rest.extend(argv[i:])
            break
        if a == "--library":
            if i + 1 == len(argv):
                return [a]  # no value: let argparse say "expected one argument"
            front += argv[i:i + 2]
            i += 2
            continue
        if a in _QUERY_OPTIONS and i + 1 < len(argv):
            rest.append(f"{a}={argv[i + 1]}")  # argparse would take `-tag:x` for an option
            i += 2
            continue
        (front if a.startswith("--library=") else rest).append(a)
        i += 1
    if not rest or (rest[0] not in commands and rest[0] not in ("-h", "--help")):
        rest.insert(0, "open")
    return front + rest


def _command_in(argv: list[str]) -> str | None:
    """The command word of :func:`with_default_command`'s output (after any ``--library``)."""
    i = 0
    while i < len(argv):
        if argv[i] == "--library":
            i += 2
        elif argv[i].startswith("--library="):
            i += 1
        else:
            return argv[i]
    return None


def _escape(exc: Exception) -> str:
    from rich.markup import escape
    from store.text import display_safe
    return escape(display_safe(str(exc)))


def _import(lib: Library, paths: list[str]):
    state: dict = {}

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
        return lib.import_paths(paths, progress=progress, replace_sample=True)
    finally:
        if "bar" in state:
            state["bar"].stop()


def _say_what_the_session_kept(lib: Library, opened_with) -> None:
    """After the app closes: what the sitting changed, and where it is kept (nothing if nothing)."""
    from store.session import session_line, snapshot
    try:
        lib.refresh()  # as saved, another terminal's changes included
    except PapersiftError:
        return  # the app has already said what is wrong with the file
    line = session_line(opened_with, snapshot(lib.annotations))
    if line:
        out.say(f"{line}; saved in {lib.folder}", stderr=True)


def print_unsaved_notes(notes: dict[str, str]) -> None:
    """The last resort for notes the app could neither save nor keep as a draft (a full disk):
    their text on the terminal, where it can still be copied."""
    for pid, text in notes.items():
        out.say(f"the note on {pid} could not be saved; its text:\n{text}\n", stderr=True)


def _ack(args: argparse.Namespace, message: str, lib: Library, ids: list[str]) -> int:
    if getattr(args, "format", "text") == "json":
        from store.records import paper_record
        out.emit_json([paper_record(lib.paper(i), lib.annotation(lib.paper(i).id)) for i in ids])
    else:
        out.say(message)  # tags and ids as typed: "[draft]" is not markup
    return 0


def _doctor(args: argparse.Namespace) -> int:
    """Runs on the folder itself, so it works when the library cannot be opened."""
    from store import Library
    from store.doctor import check_index_cache, run_doctor

    folder = locations.library_dir(args.library)
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
        if report.problems and not args.repair:
            c.print("run `papersift doctor --repair` to repair what can be repaired safely", markup=False)
    return 0 if report.healthy else 1


def run(args: argparse.Namespace) -> int:
    cmd = args.command
    if cmd == "doctor":
        return _doctor(args)
    if cmd == "search" and args.format != "json" and _quick_search(args):
        return 0
    from store import Library  # numpy and the rest: not needed by a quick search

    if cmd == "open" and len(args.files) == 1 and args.library is None and locations.is_library_dir(Path(args.files[0])):
        args.library, args.files = args.files[0], []  # `papersift ~/papers/neurips`: open that library
    seed = cmd not in ("import",) and not (cmd == "open" and args.files)
    new_library = not (locations.library_dir(args.library) / locations.CORPUS_FILE).exists()
    lib = Library.open(args.library, seed_if_new=seed)
    problems = lib.take_problems()  # damage found (and kept in backups/) while opening: said first
    if cmd != "open":
        for problem in problems:
            out.say(f"warning: {problem}", stderr=True)
    try:
        return _command(args, lib, problems, new_library)
    finally:  # what the command's writes found (a fold postponed by a full disk): said after its outcome
        for problem in lib.take_problems():
            out.say(f"warning: {problem}", stderr=True)


def _command(args: argparse.Namespace, lib: Library, problems: list[str], new_library: bool) -> int:  # noqa: C901 (a command a branch)
    cmd = args.command
    if cmd == "open":
        if args.keymap and not Path(args.keymap).is_file():
            raise PapersiftError(f"{args.keymap}: no such keymap file")
        imported = _import(lib, args.files).line() if args.files else None
        from .app import make_app
        app = make_app(lib, keymap_path=Path(args.keymap) if args.keymap else None, resume=not args.fresh,
                       confine=[Path(d) for d in args.confine or []])
        if imported:  # said in the app, where the person is looking, and left on the terminal after it
            app.startup_notices.append(imported)
        app.startup_notices += problems
        app.first_start = new_library and not imported and len(lib) > 0  # the seeds: say so, and how to import
        from store.session import snapshot
        opened_with = snapshot(lib.annotations)
        app.run()
        if imported:
            out.say(imported, stderr=True)
        for problem in problems:
            out.say(f"warning: {problem}", stderr=True)
        if app.main_screen.writes is not None:  # changes that waited for another papersift's lock
            for failure in app.main_screen.writes.drain(lambda line: out.say(line, stderr=True)):
                out.say(f"error: {failure}", stderr=True)
        _say_what_the_session_kept(lib, opened_with)
        print_unsaved_notes(app.main_screen.unsaved_notes)
        return 0
    if cmd == "import":
        summary = _import(lib, args.paths)
        if args.format == "json":
            out.emit_json({**summary.to_dict(), "papers": len(lib)})
        else:
            out.say(summary.line() + f"; the library now holds {counted(len(lib), 'paper')}")
        return 0
    if cmd in ("list", "search"):
        if cmd == "list":
            parts = [args.query] + [f"status:{args.status}"] * bool(args.status) + [f"tag:{t}" for t in args.tag]
            result = lib.search(" ".join(p for p in parts if p), sort=args.sort, limit=args.limit)
        else:
            result = lib.search(" ".join(args.query), limit=args.limit)
        for err in result.errors:
            out.console(stderr=True).print(f"[yellow]warning:[/yellow] {_escape(err)}")  # a query may hold "[x]"
        shown = result.matches
        if not len(shown) and result.weaker:  # no paper holds every word: say so
            out.say("no paper holds every word of the query" + ("; the best partial matches:" if cmd == "search"
                                                                  else " (`papersift search` shows partial matches)"),
                    stderr=True)
            if cmd == "search":
                shown = result.indices
        out.print_papers(lib, shown, args.format, total=len(lib))
        return 0
    if cmd == "show":
        out.print_paper(lib, args.id, "json" if args.format == "json" else "table")
        return 0
    if cmd == "status":
        ids = [lib.paper(i).id for i in args.ids]
        lib.set_status(ids, args.status)
        return _ack(args, f"{counted(len(ids), 'paper')} marked {args.status}", lib, ids)
    if cmd == "star":
        pid = lib.paper(args.id).id
        lib.set_star([pid], args.stars)
        return _ack(args, f"{pid} starred {out.stars(args.stars)}", lib, [pid])
    if cmd == "tag":
        pid = lib.paper(args.id).id
        (lib.remove_tags if args.remove else lib.add_tags)([pid], args.tags)
        return _ack(args, f"{pid} tags: {' '.join('#' + t for t in lib.annotation(pid).tags) or '(none)'}", lib, [pid])
    if cmd == "note":
        pid = lib.paper(args.id).id
        lib.set_note(pid, sys.stdin.read() if args.text == "-" else args.text)
        return _ack(args, f"{pid} note saved", lib, [pid])
    if cmd == "retitle":
        changed, derived = lib.retitle()
        if args.format == "json":
            out.emit_json({"changed": changed, "derived": derived, "papers": len(lib)})
        else:
            out.console().print(f"{counted(changed, 'title')} derived anew, of {counted(derived, 'paper')} "
                                f"without a title of its own; read titles are left as they are")
        return 0
    if cmd == "remove":
        return _remove(lib, args)
    if cmd in ("undo", "redo"):
        label = lib.undo() if cmd == "undo" else lib.redo()
        if args.format == "json":
            out.emit_json({f"{cmd}ne": label})
        else:
            out.say(f"{cmd}ne: {label}" if label else f"nothing to {cmd}")
        return 0
    if cmd == "history":
        entries = lib.store.history(args.limit)
        if args.format == "json":
            out.emit_json(entries)
        else:
            for e in entries:
                out.say(f"{e['time'][:19]}  {e['label']}{_changed_paper(lib, e)}")
            if not entries:
                out.console().print("no changes to undo")
        return 0
    if cmd == "stats":
        out.print_stats(lib.stats(), args.format)
        return 0
    if cmd == "tags":
        return _tags(lib, args)
    if cmd == "dedup":
        return _dedup(lib, args)
    from .cli_extra import run_extra
    return run_extra(lib, args)


def _changed_paper(lib: Library, entry: dict) -> str:
    """Which paper a history entry changed: " · ID Title" for one paper ('' for several: the
    label counts them)."""
    pids = list(dict.fromkeys([*(entry.get("after") or {}), *(entry.get("before") or {})]))
    if len(pids) != 1:
        return ""
    idx = lib.corpus.index_of(pids[0])
    if idx is None:
        return f" · {pids[0]} (no longer in the library)"
    from .render import plain_title
    title = plain_title(lib.corpus.papers[idx].title)
    return f" · {pids[0]} {title[:70] + '…' if len(title) > 70 else title}"


def _remove(lib: Library, args: argparse.Namespace) -> int:
    from store.removal import sample_ids
    if bool(args.ids) + bool(args.query) + args.sample != 1:
        raise PapersiftError("name what to remove: papersift remove ID... | --query QUERY | --sample")
    if args.sample:
        ids, what = sample_ids(lib), "the bundled sample"
    elif args.query:
        ids, what = [p.id for p, _ in lib.pairs(args.query)], f"the papers of {args.query!r}"
    else:
        ids, what = [lib.paper(i).id for i in args.ids], ""
    annotated = sum(1 for i in ids if i in lib.annotations)
    if args.dry_run or not ids:
        if args.format == "json":
            out.emit_json({"would_remove": ids, "annotated": annotated, "dry_run": True})
        else:
            out.say(f"would remove {counted(len(ids), 'paper')}" + (f" ({what})" if what else "")
                    + (f", {annotated:,} of them annotated" if annotated else ""))
        return 0
    n = lib.remove(ids, f"remove {counted(len(ids), 'paper')}" + (f" ({what})" if what else ""))
    if args.format == "json":
        out.emit_json({"removed": ids, "annotated": annotated})
    else:
        out.say(f"removed {counted(n, 'paper')}" + (f" with their annotations ({annotated:,} annotated)" if annotated else "")
                + "; backed up first, and `papersift undo` brings them back")
    return 0


def _quick_search(args: argparse.Namespace) -> bool:
    """Answer a plain word search from the index file alone (store.quick), as a
    one-shot process should; False when the Library is needed (filters, a stale cache)."""
    from store.quick import quick_search

    folder = locations.library_dir(args.library)
    found = quick_search(folder, " ".join(args.query), args.limit)
    if found is None:
        return False
    rows, total, full = found
    if not full and rows:
        out.say("no paper holds every word of the query; the best partial matches:", stderr=True)
    out.print_rows(rows[:full] if full else rows, args.format, total=total)
    return True


def _tags(lib: Library, args: argparse.Namespace) -> int:
    if args.action == "rename":
        if len(args.names) != 2:
            raise PapersiftError("usage: papersift tags rename OLD NEW")
        n = lib.rename_tag(*args.names)
        out.say(f"renamed on {counted(n, 'paper')}")
        return 0
    if args.action == "merge":
        if not args.into or not args.names:
            raise PapersiftError("usage: papersift tags merge TAG... --into TAG (the tags named become the "
                                 "--into tag; one undo reverts it)")
        n = lib.merge_tags(args.names, args.into)
        out.say(f"merged {', '.join('#' + normalize_tag(t) for t in args.names)} into "
                f"#{normalize_tag(args.into)} on {counted(n, 'paper')}")
        return 0
    counts = lib.tag_counts()
    if args.format == "json":
        out.emit_json(dict(counts.most_common()))
    else:
        for tag, count in counts.most_common():
            out.say(f"{count:>5}  #{tag}")
        if not counts:
            out.say("no tags yet (`papersift tag ID TAG`, or t in the app)")
    return 0


def _dedup(lib: Library, args: argparse.Namespace) -> int:
    if args.split:
        new = lib.split(args.split)
        if args.format == "json":
            out.emit_json([p.id for p in new])
        else:
            out.console().print(f"split off {counted(len(new), 'paper')}: {', '.join(p.id for p in new)}")
        return 0
    report = lib.dedup_report()
    if args.format == "json":
        out.emit_json(report)
        return 0
    c = out.console()
    if not report:
        c.print("no near-duplicate merges (exact duplicates are merged silently; see `papersift show ID` sources)")
    for r in report:
        srcs = ", ".join(f"{s['file']}#{s['position']}" for s in r["sources"])
        c.print(f"{r['paper']} <- {r['variant']}  similarity {r['similarity']:.2f}  from {srcs}", markup=False)
    return 0
