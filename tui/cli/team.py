"""The ``papersift`` commands of a lab triaging one library together: ``assign`` (split the papers
among members, by topic), ``team`` (each member's progress, stars and agreement) and ``sync``
(everyone's marks and papers through a git repository: store.sync.library_sync)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from store.errors import PapersiftError
from store.team.members import check_weights, member_list
from store.wording import counted

from . import output as out

if TYPE_CHECKING:
    from .opened import Opened
    from store import Library

def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    """Add this module's subcommands to the parser (``add`` is build_parser's helper)."""
    p = add("assign", "split the papers no member has triaged (or a query's) among members, by topic",
            ("text", "json"), run=assign)
    p.add_argument("--to", metavar="NAMES", help="the members, comma-separated: --to ana,ben,chen")
    p.add_argument("--query", default="", help="split this search's papers instead (same syntax as the app)")
    p.add_argument("--weights", metavar="W", help="relative shares, one per member: --weights 2,1,1")
    p.add_argument("--clear", action="store_true", help="take the assignment off the papers (all, or --query's)")
    p.add_argument("--new-members", action="store_true",
                   help="a name close to a member's (bne beside ben) is a new member, not a typo")
    p.add_argument("--by-interest", action="store_true",
                   help="each paper to the member whose stars and to-reads it is most like (shares kept; "
                        "by topic where interest says nothing)")
    p.add_argument("--seed", action="append", default=[], metavar="NAME=WORDS",
                   help="what a member with no marks yet cares about, as search words: --seed ben=\"legged "
                        "locomotion\" (with --by-interest; repeat for more members)")
    p = add("team", "each member's share, progress, stars given and agreement (with IDs: whom each paper went to, "
                    "and why)", ("table", "json"), run=team)
    p.add_argument("ids", nargs="*", metavar="ID", help="papers: whom each is assigned to, and the paper of theirs "
                                                        "it is most like")
    p = add("sync", "bring the lab's marks and papers in and send yours, through a git repository (each member "
                    "writes only their own file); in a new folder it makes the lab's library", ("text", "json"),
            run=sync, creates=True)
    p.add_argument("remote", nargs="?", help="the lab's git repository: an address, or a bare repository's folder "
                                             "(kept: later syncs use it)")


def _weights(text: str | None) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(w) for w in text.split(",")]
    except ValueError:
        raise PapersiftError(f"--weights {text!r}: numbers, comma-separated (e.g. 2,1,1)") from None


SEED_PAPERS = 10  # the papers a seed phrase stands for: its search's first ten


def _seed_papers(lib: Library, given: list[str], members: list[str]) -> tuple[dict[str, list[str]], dict[str, str]]:
    """--seed NAME=WORDS, each read as the first papers a search for WORDS lists; and the words."""
    seeds: dict[str, list[str]] = {}
    phrases: dict[str, str] = {}
    for text in given:
        name, sep, words = text.partition("=")
        name, words = name.strip(), words.strip()
        if not sep or not words:
            raise PapersiftError(f"--seed {text!r}: a member and search words, e.g. --seed ben=\"legged locomotion\"")
        if name not in members:
            raise PapersiftError(f"--seed {text!r}: {name} is not among --to {','.join(members)}")
        if name in seeds:
            raise PapersiftError(f"--seed {text!r}: {name} has a seed already; one a member (put the words together)")
        found = lib.search.find(words, limit=SEED_PAPERS)
        if not len(found.indices):
            raise PapersiftError(f"--seed {text!r}: no paper here holds these words")
        seeds.setdefault(name, []).extend(lib.corpus.papers[int(i)].id for i in found.indices[:SEED_PAPERS])
        phrases[name] = words
    return seeds, phrases


def assign(lib: Library, args: argparse.Namespace, opened: Opened | None = None) -> int:
    from .query import whole_query
    ids = [p.id for p, _ in lib.pairs(whole_query(args.query))] if args.query else None
    if args.clear:
        n = lib.team.clear_assignments(ids)
        out.say(f"cleared the assignment of {counted(n, 'paper')}" if n else "no paper here is assigned")
        return 0
    if not args.to:
        raise PapersiftError("whom to? --to ana,ben,chen (or --clear to take assignments off)")
    members = member_list(args.to)
    weights = _weights(args.weights)
    if weights is not None:  # (checked before anything else: "nothing to assign" never hides a bad value)
        check_weights(members, weights)
    if args.seed and not args.by_interest:
        raise PapersiftError("--seed says what a member cares about for --by-interest: add --by-interest")
    seeds, phrases = _seed_papers(lib, args.seed, members)  # (checked before "nothing to assign", as the weights are)
    todo = ids if ids is not None else lib.team.untriaged()
    if not todo and ids is None:  # (not a mistake: every paper has its member; said, and nothing changes)
        again = " (to split them again by interest: papersift assign --clear, then this again)" if args.by_interest else ""
        out.say("nothing to assign: every paper no member has marked is assigned already" + (again or
                " (--query Q re-splits a set; --clear takes assignments off)"))
        return 0
    done = lib.team.assign(members, todo, weights, by_interest=args.by_interest, seed_papers=seeds,
                          new_members=args.new_members, seed_phrases=phrases)
    if args.format == "json":
        out.emit_json({"assigned": done.shares, "total": done.total, "reassigned": done.moved})
        return 0
    from store.safe_text import display_safe
    shares = ", ".join(f"{name} {n:,}" + (f" (seed “{display_safe(phrases[name], False)}”: "
                                          f"{counted(len(seeds[name]), 'paper')} found)" if name in phrases else "")
                       for name, n in done.shares.items())
    moved = f" ({counted(done.moved, 'paper')} had another member before)" if done.moved else ""
    left = len(lib) - len(todo) if ids is None else 0  # (papers a member has marked keep their place)
    kept = f"; {counted(left, 'paper')} left as they are (marked by a member, or assigned already)" if left else ""
    out.say(f"assigned {counted(done.total, 'paper')}: {shares}{moved}{kept}; `papersift undo` takes it back")
    return 0


def team(lib: Library, args: argparse.Namespace, opened: Opened | None = None) -> int:
    if args.ids:
        return _why(lib, args)
    rows = lib.team.progress()
    if args.format == "json":
        out.emit_json({"members": [r.to_dict() for r in rows], "you": lib.member})
        return 0
    from ..team_view import team_table
    out.console().print(f"team · {lib.name}: {counted(len(rows), 'member')}, {len(lib.assignments):,} of "
                        f"{counted(len(lib), 'paper')} assigned", markup=False)
    out.console().print(team_table(lib, rows))
    return 0


def sync(lib: Library, args: argparse.Namespace, opened: Opened | None = None) -> int:
    from store.sync.library_sync import sync as run_sync

    report = run_sync(lib, args.remote)
    if args.format == "json":
        out.emit_json(report.to_dict())
    else:
        out.say(report.line())
    return 0


def sync_on_quit(lib: Library) -> None:
    """A lab's library with a git remote: the session's marks go up as the app quits (one line)."""
    from store.sync.git_remote import SyncError
    from store.sync.library_sync import remembered, sync as run_sync

    if not remembered(lib).get("remote"):
        return
    try:
        out.say(run_sync(lib).line(), stderr=True)
    except SyncError as exc:
        out.say(f"warning: {exc}", stderr=True)


def _why(lib: Library, args: argparse.Namespace) -> int:
    """``team ID...``: each paper's member, and the paper of theirs it is most like."""
    from store.safe_text import display_safe

    from ..render import like_names
    found: list[dict[str, Any]] = []
    for key in args.ids:
        pid = lib.paper(key).id
        member = lib.assignments.get(pid)
        why = lib.team.why_assigned(pid)
        found.append({"id": pid, "assigned": member, "like": why.like or None if why else None,
                      "seed": why.seed if why and why.seed else None,
                      "closer_to": why.closer if why and why.closer else None,
                      "marked_by": [name for name, _ in lib.team.marks_of(pid)] if member is None else []})
    if args.format == "json":
        out.emit_json(found)
        return 0
    for row in found:
        if row["assigned"] is None:
            marked = f" (marked by {display_safe(', '.join(row['marked_by']), False)})" if row["marked_by"] else ""
            out.say(f"{row['id']}  assigned to no one{marked}")
            continue
        seed = f", found by the seed “{display_safe(row['seed'], False)}”" if row["seed"] else ""
        if row["closer_to"]:  # (an honest reason: not the member it is most like)
            like = f" (to keep the shares even: it is more like {display_safe(row['closer_to'], False)}'s papers)"
        elif row["like"]:
            like = f" (like {like_names(lib, [row['like']])}{seed})"
        elif row["seed"]:
            like = f" (one of the papers the seed “{display_safe(row['seed'], False)}” found)"
        else:
            like = " (a split by topic put it there)"
        out.say(f"{row['id']}  → {display_safe(str(row['assigned']), False)}{like}")
    return 0
