"""The ``papersift`` commands that find papers by what they are like: similar, recommend, topics."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from store.wording import counted

from . import output as out

if TYPE_CHECKING:
    from rich.text import Text

    from .opened import Opened
    from store import Library, Paper


def register(add: Callable[..., argparse.ArgumentParser]) -> None:
    """Add these commands to the parser (``add`` is tui.cli.build_parser's helper)."""
    p = add("similar", "papers most like this one (TF-IDF + LSA)", run=ranked)
    p.epilog = ("Each line: a paper's id, its similarity to ID from 0.00 (nothing in common) to 1.00 (the "
                "same words and topics: the mean of the two papers' word and topic cosines), its title. "
                "The order is the model's, which also weighs what the nearest papers share.")
    p.add_argument("id", metavar="ID", help="a paper: its id, a unique prefix of it (2 characters or more), or an arXiv id")
    p.add_argument("--limit", type=out.count_arg, default=10, help="at most this many papers (default 10)")
    p = add("recommend", "the triage queue: unread papers most likely wanted, learned from every mark "
            "(or, with --tag, like the papers of a tag)", run=ranked)
    p.add_argument("--tag", type=out.tag_arg, help="learn from this tag (default: every mark: stars, to-read, read and tags "
                   "for, skipped against)")
    p.add_argument("--limit", type=out.count_arg, default=20, help="at most this many papers (default 20)")
    p = add("topics", "cluster the library into topics with labels, counts and triage progress", ("table", "json"),
            run=topics)
    p.add_argument("--k", type=int, help="number of topics, 2 or more, at most one a paper (default: about "
                   "sqrt(papers / 2), kept between 2 and 50)")


def ranked(lib: Library, args: argparse.Namespace, opened: Opened | None = None) -> int:
    """``similar`` (papers like one) and ``recommend`` (papers like the ones you marked), with why."""
    from store.formats.records import paper_record
    rows: Sequence[tuple[Paper, float, list[str], list[str]]]  # (a Recommendation is one)
    if args.command == "similar":
        rows = [(p, score, [], []) for p, score in lib.discovery.similar(args.id, args.limit)]
    else:
        rows = lib.discovery.recommend(args.tag, args.limit)
    if args.format == "json":
        out.emit_json([{**paper_record(p, lib.annotation(p.id)), "score": round(score, 4), "because": terms,
                        "like": like} for p, score, terms, like in rows])
        return 0
    from store.safe_text import display_safe

    from ..render import like_names
    if args.format == "table":
        return _ranked_table(lib, rows, args.command, args.limit)
    for p, score, terms, like in rows:
        why = f"\t(because: {', '.join(terms)})" if terms else ""
        names = like_names(lib, like)
        near = f"\t(like {names})" if names else ""
        shown = f"{score:.2f}" if args.command == "similar" else f"{score:.3f}"  # (similar's: 0-1)
        sys.stdout.write(f"{p.id}\t{shown}\t{display_safe(p.title, False)}{why}{near}\n")
    return 0


def _ranked_table(lib: Library, rows: Sequence[tuple[Paper, float, list[str], list[str]]], command: str,
                  limit: int) -> int:
    """``similar`` and ``recommend`` as a table that fits the terminal: id, score, title (cut to
    fit), and why (the words it shares, the marked papers it is like)."""
    from rich.table import Table
    from rich.text import Text

    from store.safe_text import display_safe
    from store.titles.kinds import shown_title

    from ..render import like_names, plain_title
    console = out.console()
    # Widths set here (as the list's table does): with every column no_wrap, Rich narrows a wide
    # table by cutting all columns, and the id went first.
    rest = max(30, console.width - 12 - 5 - 2 * 3)
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("id", style="dim", no_wrap=True, width=12)
    table.add_column("score", justify="right", no_wrap=True, width=5)
    whys = ["; ".join(filter(None, [", ".join(terms), f"like {names}" if (names := like_names(lib, like)) else ""]))
            for _, _, terms, like in rows]
    why_width = rest - rest * 3 // 5
    table.add_column("title", overflow="ellipsis", no_wrap=True, max_width=rest - why_width if any(whys) else rest)
    if any(whys):
        # (wrapped, up to three lines: the marked papers it is like come last, and a line cut them off)
        table.add_column("why", style="dim", overflow="fold", max_width=why_width)
    for (p, score, _, _), why in zip(rows, whys):
        title = Text(shown_title(plain_title(p.title), p.derived_title), style="italic" if p.derived_title else "")
        table.add_row(p.id, f"{score:.2f}" if command == "similar" else f"{score:.3f}", title,
                      *([_why_lines(display_safe(why, False), why_width)] if any(whys) else []))
    if rows:
        console.print(table)
    elif limit:  # (--limit 0 asked for none: none is said of it)
        console.print("[dim]no unread paper is left to recommend[/dim]" if command == "recommend"
                      else "[dim]no paper is like it[/dim]")
    return 0


def topics(lib: Library, args: argparse.Namespace, opened: Opened | None = None) -> int:
    rows = lib.discovery.topic_summary(args.k)
    if args.format == "json":
        out.emit_json(rows)
        return 0
    for r in rows:
        sys.stdout.write(f"topic:{r['topic']:<3} {counted(r['papers'], 'paper'):>13}  {r['triaged']:>5} triaged  {r['label']}\n")
    return 0


def _why_lines(why: str, width: int, lines: int = 3) -> Text:
    """A recommendation's reason wrapped to ``width``, at most ``lines`` lines (the last cut with "…")."""
    import textwrap

    from rich.text import Text
    wrapped = textwrap.wrap(why, max(8, width))
    if len(wrapped) > lines:
        wrapped = wrapped[:lines - 1] + [textwrap.shorten(" ".join(wrapped[lines - 1:]), max(8, width), placeholder="…")]
    return Text("\n".join(wrapped))
