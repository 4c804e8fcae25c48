"""The ``papersift`` commands that curate the library as a whole: ``remove``, ``retitle``,
``tags`` (list, rename, merge) and ``dedup``; registered with their arguments by
:func:`tui.cli.library.register`, beside the commands on single papers.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from store.errors import PapersiftError
from store.tags import normalize_tag
from store.safe_text import display_safe
from store.wording import counted

from . import output as out

if TYPE_CHECKING:
    from store import Library

    from .opened import Opened


def remove(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    from store.library.removal import sample_ids
    if bool(args.ids) + bool(args.query) + args.sample != 1:
        raise PapersiftError("name what to remove: papersift remove ID... | --query QUERY | --sample")
    if args.sample:
        ids, what = sample_ids(lib), "the bundled sample"
    elif args.query:
        from .query import whole_query
        ids, what = [p.id for p, _ in lib.pairs(whole_query(args.query))], f"those a search for {args.query!r} finds"
    else:
        ids, what = [lib.paper(i).id for i in args.ids], ""
    annotated = sum(1 for i in ids if i in lib.annotations)
    if args.dry_run or not ids:
        if args.format == "json":
            out.emit_json({"would_remove": ids, "annotated": annotated, "dry_run": True})
        else:
            out.say(f"would remove {counted(len(ids), 'paper')}" + (f" ({what})" if what else "")
                    + (f", {annotated:,} of them annotated" if annotated else "") + lib.team.also_held(ids)
                    + (":" if ids else ""))
            _list_some(lib, ids)
        return 0
    also = lib.team.also_held(ids)  # (what the removal takes of the others', said before it is gone)
    n = lib.remove(ids, f"remove {counted(len(ids), 'paper')}" + (f" ({what})" if what else ""))
    if args.format == "json":
        out.emit_json({"removed": ids, "annotated": annotated})
    else:
        out.say(f"removed {counted(n, 'paper')}" + (f" with their annotations ({annotated:,} annotated)" if annotated else "")
                + also + "; backed up first, and `papersift undo` brings them back")
    return 0


def retitle(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    done = lib.paper_changes.retitle(dry_run=args.dry_run, again=args.again)
    if args.format == "json":
        out.emit_json({"changed": len(done.changes), "derived": done.derived, "papers": len(lib),
                       "dry_run": done.dry_run, "current": done.current,
                       "backup": str(done.backup) if done.backup else None,
                       "changes": [{"id": pid, "old": old, "new": new} for pid, old, new in done.changes]})
        return 0
    console = out.console()
    if not done.derived:  # every paper came with its title: nothing to derive, said plainly
        console.print("every paper came with a title of its own: no title to derive", highlight=False)
        return 0
    if done.current:
        made = f"the {counted(done.derived, 'derived title')} " + ("is" if done.derived == 1 else "are")
        console.print(f"{made} this version's already, and stay as they "
                      "are while the library grows; --again derives them anew against today's papers "
                      "(--again --dry-run shows what would change)", highlight=False, markup=False)
        return 0
    verb = "would be derived anew" if done.dry_run else "derived anew"
    console.print(f"{counted(len(done.changes), 'title')} {verb}, of {counted(done.derived, 'paper')} without a "
                  f"title of its own; titles that came with a paper are left as they are", highlight=False)
    for pid, old, new in done.changes:
        console.print(f"  {pid}  {display_safe(old, False)}\n  {' ' * len(pid)}→ {display_safe(new, False)}",
                      highlight=False, markup=False)
    if done.backup:
        console.print(f"the titles before are kept in {done.backup}", highlight=False, markup=False)
    elif done.dry_run and done.changes:
        console.print("nothing was changed (--dry-run)", highlight=False)
    return 0


def tags(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    if args.action == "rename":
        if len(args.names) != 2:
            raise PapersiftError("usage: papersift tags rename OLD NEW")
        old, new = (normalize_tag(t) for t in args.names)
        held = lib.tag_counts().get(new, 0) if new != old else 0  # (papers tagged so already: a merge)
        n = lib.marks.rename_tag(*args.names)
        out.say(f"merged #{old} into the existing #{new} (which {counted(held, 'paper')} had already) on "
                f"{counted(n, 'paper')}; `papersift undo` takes it back" if held
                else f"renamed #{old} to #{new} on {counted(n, 'paper')}")
        return 0
    if args.action == "merge":
        if not args.into or not args.names:
            raise PapersiftError("usage: papersift tags merge TAG... --into TAG (the tags named become the "
                                 "--into tag; one undo reverts it)")
        n = lib.marks.merge_tags(args.names, args.into)
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


def dedup(lib: Library, args: argparse.Namespace, opened: Opened) -> int:
    if args.split:
        new = lib.paper_changes.split(args.split)
        if args.format == "json":
            out.emit_json([p.id for p in new])
        else:
            marked = bool(new) and lib.annotation(new[0].id).marked
            out.console().print(f"split off {counted(len(new), 'paper')}: {', '.join(p.id for p in new)}"
                                + (" (with your marks on the merged paper; `papersift undo` takes back those marks, not "
                                   "the split: the corpus as it was is in backups/)" if marked else
                                   " (no undo step: the corpus as it was is in backups/)"))
        return 0
    report = lib.paper_changes.dedup_report()
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


DRY_RUN_SHOWN = 20  # papers a dry run lists by id and title (the rest counted)


def _list_some(lib: Library, ids: list[str]) -> None:
    """The first papers of ``ids``, a line each (id, title), and how many more."""
    for pid in ids[:DRY_RUN_SHOWN]:
        out.say(f"  {pid}  {display_safe(lib.paper(pid).title, False)[:100]}")
    if len(ids) > DRY_RUN_SHOWN:
        out.say(f"  … and {len(ids) - DRY_RUN_SHOWN:,} more (`--format json` lists every id)")
