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
from typing import TYPE_CHECKING, Any, Callable, NoReturn

from store import locations
from store.errors import PapersiftError

from . import output as out
from .argv import command_in, value_last, with_default_command
from .mistakes import closest, library_option_problem, unknown_command

if TYPE_CHECKING:
    from store import Library

class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, sized as argparse sizes it but without importing shutil
    (argparse builds one for every option it adds; the import cost a one-shot search ~3 ms)."""

    def __init__(self, prog: str, **kwargs: Any) -> None:
        if kwargs.get("width") is None:
            try:
                columns = int(os.environ["COLUMNS"])
            except (KeyError, ValueError):
                columns = 0
            if columns <= 0:
                try:
                    stdout = sys.__stdout__  # (None without a stdout: 80 columns)
                    columns = os.get_terminal_size(stdout.fileno()).columns if stdout is not None else 80
                except (AttributeError, ValueError, OSError):
                    columns = 80
            kwargs["width"] = columns - 2
        super().__init__(prog, **kwargs)


class _Unused:
    """Stands in for the parser of a command not being run (see build_parser's ``only``)."""

    def add_argument(self, *args: Any, **kwargs: Any) -> None:
        pass

    def set_defaults(self, **kwargs: Any) -> None:
        pass

    def add_mutually_exclusive_group(self, **kwargs: Any) -> "_Unused":
        return self


def command_names() -> list[str]:
    """Every subcommand's name (no parser is built)."""
    names: list[str] = []
    build_parser(only="", names=names)
    return names


def build_parser(only: str | None = None, names: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser; each subcommand's ``func`` is the function that runs it.

    Args:
        only: build just this subcommand's parser (argparse spends ~0.5 ms per
            subparser, most of it looking for message translations; a one-shot
            search should not pay for twenty). None: all of them, for help.
        names: if given, every subcommand's name is appended to it.
    """
    parser = _Parser(
        prog="papersift", formatter_class=_Formatter,
        description="Triage and annotate research abstracts from the keyboard. "
                    "With no command, opens the app (importing any FILEs given first).")
    parser.add_argument("--library", metavar="DIR", help="library folder (default: $PAPERSIFT_LIBRARY or the user data folder)")
    parser.add_argument("--as", dest="member", metavar="NAME",
                        help="who is triaging, in a lab's library (default: $PAPERSIFT_USER or the login name)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def add(name: str, help_: str, fmt: tuple[str, ...] | None = ("table", "plain", "json"), *,
            run: Callable[..., int], library: bool = True, creates: bool = False) -> argparse.ArgumentParser:
        """One subcommand: ``run(library, args, opened)`` runs it (``run(args)`` when ``library`` is
        False: it works on the folder, as doctor must when the library cannot be opened). Only a
        command that ``creates`` makes a library where there is none; the others say there is none."""
        if names is not None:
            names.append(name)
        if only is not None and name != only:
            return _Unused()  # type: ignore[return-value]
        p = sub.add_parser(name, help=help_, description=help_, formatter_class=_Formatter)
        if fmt:
            p.add_argument("--format", choices=fmt, default=fmt[0], help=f"output format (default: {fmt[0]})")
        p.set_defaults(func=run, needs_library=library, creates_library=creates)
        return p

    from . import daily as cli_daily, discovery as cli_discovery, exchange as cli_exchange, library as cli_commands
    from . import history as cli_history, team as cli_team
    for group in (cli_commands, cli_history, cli_daily, cli_discovery, cli_exchange, cli_team):
        group.register(add)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    names = command_names()
    mistake = library_option_problem(argv, names) or unknown_command(argv, names) or _not_text(argv)
    if mistake:
        build_parser(only="").error(mistake)  # exits 2 with the usage line, as argparse's own errors do
    args = _parsed_args(with_default_command(argv, names), names)
    try:
        if args.member is not None:
            from store.team.members import checked_member
            checked_member(args.member)
        return run(args)
    except PapersiftError as exc:
        out.console(stderr=True).print(f"[bold red]error:[/bold red] {out.escaped(exc)}")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `papersift list | head`: the reader went away; not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # a file that cannot be read or written (a folder in its place, no permission)
        from store.errors import shown_path
        where = f"{shown_path(exc.filename)}: " if exc.filename is not None else ""
        out.console(stderr=True).print(f"[bold red]error:[/bold red] {out.escaped(where + (exc.strerror or str(exc)))} "
                                       "(`papersift doctor` checks the library)")
        return 1


def _not_text(argv: list[str]) -> str | None:
    """An argument that is not UTF-8 text (bytes typed in another encoding: ``caf\\xe9``) and names
    no file: a note, a tag or a query papersift cannot store or search; said, never a traceback."""
    from store.safe_text import file_name_text

    for arg in argv:
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            if not os.path.lexists(arg.rpartition("=")[2]):  # (a file's name is any bytes: it is read as given)
                return f"argument {file_name_text(arg)!r} is not UTF-8 text (is the terminal set to another encoding?)"
    return None


def _parsed_args(argv: list[str], names: list[str]) -> argparse.Namespace:
    """The arguments parsed, a mistake said with its command's usage (argparse's exit 2): a status
    or star without a paper, an option the command does not have (a search's ``-tag:x`` is a
    filter), a search for nothing."""
    command = command_in(argv)
    missing_id = None
    if command in ("status", "star"):
        argv, missing_id = value_last(argv, command)
    parser = build_parser(only=command if command in names else None)
    if missing_id and command is not None:  # (missing_id: a status or star command only)
        subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        subparsers.choices[command].error(  # exits 2 with the subcommand's usage, like argparse's own errors
            f"which paper? give its id: papersift {command} ID{' [ID ...]' if command == 'status' else ''} {missing_id}")
    args, extra = parser.parse_known_args(argv)
    if extra and args.command == "search" and all(_NEGATED_FILTER.fullmatch(x) for x in extra):
        args.query += extra  # `papersift search robots -tag:maybe`: a query filter, not an option
    elif extra:  # (said with the command's own usage, where its options are)
        _command_parser(parser, args.command).error(f"unrecognized arguments: {' '.join(extra)}"
                                                    + _option_hint(parser, args.command, extra))
    if args.command == "search" and not " ".join(args.query).strip():  # (`papersift search ""`)
        _command_parser(parser, "search").error("what to search for? give words or filters "
                                                "(`papersift list` lists every paper)")
    return args


# A negated filter, phrase or word given to `search` after its words (argparse takes it for an option).
# (A word of one letter, `-x`, is taken for an option.)
_NEGATED_FILTER = re.compile(r'-[A-Za-z]+:\S*|-"[^"]*"?|-[^\W\d_][\w-]+')



class _Parser(argparse.ArgumentParser):
    """argparse's parser, with a did-you-mean for a value no choice is (``status ID readd``)."""

    def error(self, message: str) -> NoReturn:
        found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if found and (best := closest(found.group(1), re.findall(r"'([^']*)'", found.group(2)))):
            message += f" — did you mean '{best}'?"
        super().error(message)


def _command_parser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser:
    """The parser of ``command`` (``parser`` itself for none, or one it does not know)."""
    subparsers = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    if subparsers is None or command not in subparsers.choices:
        return parser
    found: argparse.ArgumentParser = subparsers.choices[command]
    return found


def _option_hint(parser: argparse.ArgumentParser, command: str | None, extra: list[str]) -> str:
    """ " — did you mean '--format'?" for a mistyped option (``--fromat``), the command's own options
    and the global ones compared; "" when no option is near."""
    typed = next((x.split("=", 1)[0] for x in extra if x.startswith("--")), None)
    if typed is None:
        return ""
    options = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
    subparsers = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    if subparsers is not None and command in subparsers.choices:
        options += [o for a in subparsers.choices[command]._actions for o in a.option_strings if o.startswith("--")]
    best = closest(typed, options)
    return f" — did you mean '{best}'?" if best else ""


def run(args: argparse.Namespace) -> int:
    """Open the library (unless the command works without it) and run the command's function."""
    if not args.needs_library:
        return int(args.func(args))
    if not args.creates_library:
        locations.require_library(locations.library_dir(args.library))
    if args.command == "search" and args.format != "json" and args.member is None and _quick_search(args):
        return 0
    from store import Library  # numpy and the rest: not needed by a quick search

    from .opened import Opened

    cmd = args.command
    if cmd == "open" and len(args.files) == 1 and args.library is None and locations.is_library_dir(Path(args.files[0])):
        args.library, args.files = args.files[0], []  # `papersift ~/papers/neurips`: open that library
    seed = cmd not in ("import", "fetch", "sync") and not (cmd == "open" and args.files)
    new_library = not (locations.library_dir(args.library) / locations.CORPUS_FILE).exists()
    made = not locations.library_dir(args.library).exists()  # (a command that fails leaves no folder it made)
    lib = Library.open(args.library, seed_if_new=seed, member=getattr(args, "member", None))
    problems = _opening_problems(lib, args)
    if cmd != "open":
        for problem in problems:
            out.say(f"warning: {problem}", stderr=True)
    files = _library_files(lib)
    failed = True
    try:
        code = int(args.func(lib, args, Opened(problems, new_library)))
        failed = code != 0
        return code
    except KeyboardInterrupt:  # (Ctrl-C: the workers ignore it and are stopped; what became of the library is said)
        out.say(_interrupted(lib, cmd, files), stderr=True)
        return 130
    finally:  # what the command's writes found (a fold postponed by a full disk): said after its outcome
        for problem in lib.take_problems():
            out.say(f"warning: {problem}", stderr=True)
        if made and failed:
            _unmake(lib.folder)


def _opening_problems(lib: Library, args: argparse.Namespace) -> list[str]:
    """Damage found (and kept in backups/) while opening, said first; and a member name new here
    (a typo of a member's would start a new member silently), except in the library that member
    syncs: their own, marks or none."""
    from store.sync.library_sync import remembered

    problems = lib.take_problems()
    if getattr(args, "member", None) and (newcomer := lib.team.newcomer(lib.member)) \
            and remembered(lib).get("member") != lib.member:
        problems.append(newcomer)
    return problems


def _unmake(folder: Path) -> None:
    """Remove the folder a failed command made for a new library, when it holds nothing but its
    lock (an import of a bad file, a first sync that reached no repository: no empty library left)."""
    try:
        names = {p.name for p in folder.iterdir()}
        if names <= {locations.LOCK_FILE, locations.SYNC_LOCK_FILE}:
            for name in names:
                (folder / name).unlink()
            folder.rmdir()
    except OSError:
        pass  # (anything else there, or a folder another process uses: left as it is)


def _interrupted(lib: Library, cmd: str, files: list[tuple[int, int, int] | None]) -> str:
    """What became of the library when Ctrl-C stopped ``cmd`` (``files``: its files' signatures
    before): unchanged, the import saved, or whole with what was saved before."""
    now = _library_files(lib)
    if now == files:
        return "interrupted: the library is unchanged"
    if cmd in ("import", "fetch") and now[0] != files[0]:  # (the corpus saved: the import went in)
        from store.wording import counted

        return (f"interrupted after the import was saved: the library holds {counted(len(lib), 'paper')} "
                "(`papersift list --query new:` lists the new ones)")
    return ("interrupted: the library's files are whole, with the changes saved before the interrupt "
            "(`papersift history` lists them)")


def _library_files(lib: Library) -> list[tuple[int, int, int] | None]:
    """The (inode, size, mtime) of each of the library's data files: what an interrupted command
    compares to say whether it changed anything."""
    from store.corpus import file_signature

    return [file_signature(lib.folder / name) for name in (locations.CORPUS_FILE, locations.ANNOTATIONS_FILE,
                                                             locations.ANNOTATIONS_FILE + ".journal",
                                                             locations.ARCHIVE_FILE)]


def _quick_search(args: argparse.Namespace) -> bool:
    """Answer a plain word search from the index file alone (store.search.quick), as a
    one-shot process should; False when the Library is needed (filters, a stale cache)."""
    from store.search.quick import quick_search

    folder = locations.library_dir(args.library)
    found = quick_search(folder, " ".join(args.query), None if args.limit is None else args.limit + 1)
    if found is None:
        return False
    rows, total, full, read_as = found
    if read_as:  # a word no paper holds
        out.say(f"read as: {', '.join(read_as)}", stderr=True)
    beyond = args.limit is not None and len(rows) > args.limit and full <= args.limit  # (weaker ones past it)
    rows = rows if args.limit is None else rows[:args.limit]
    if not full and rows:
        out.say("no paper holds every word of the query; the best partial matches:", stderr=True)
    out.print_rows(rows, args.format, total=total, found=full, full=min(full, len(rows)), beyond=beyond)
    return True
