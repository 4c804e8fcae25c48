"""Rendering CLI results: Rich tables for people, plain lines, or JSON for scripts.

Every string that came from a file goes through ``display_safe`` (or, for
JSON, ``safe_json``) so an abstract carrying escape sequences cannot drive the
terminal.
"""

from __future__ import annotations

import argparse
import sys
from functools import lru_cache

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from store.choices import STATUS_GLYPH as GLYPH
from store.search.quick import Row
from store.wording import bar, counted, share
from store.safe_text import display_safe
from store.titles.kinds import EXCERPT_NOTE, is_excerpt, shown_title

if TYPE_CHECKING:
    from rich.console import Console

    from store import Library
    from store.models import Paper
    from store.records import Annotation

MIN_TITLE_WIDTH, MAX_TAGS_WIDTH = 20, 30  # columns, in `papersift list` and `search` tables


def console(stderr: bool = False) -> Console:
    return _console_class()(stderr=stderr, highlight=False, soft_wrap=True)


def say(text: str, stderr: bool = False) -> None:
    """A line of plain text: never read as Rich markup, since it quotes what people typed (a tag
    "[draft]", a query, a path) and markup would swallow the brackets; and display-safe, since
    a tag or a file name may hold escape sequences."""
    console(stderr=stderr).print(display_safe(text), markup=False)


@lru_cache(maxsize=1)
def _console_class() -> type[Console]:
    """Rich's Console, made once and only when output needs it (Rich is slow to import)."""
    from rich.console import Console

    class QuietPipeConsole(Console):
        def on_broken_pipe(self) -> None:
            # Rich exits with status 1 here; `papersift list | head` is not an error:
            # main() handles it the same way for every output format.
            self.quiet = True
            raise BrokenPipeError

    return QuietPipeConsole


def count_arg(text: str) -> int:
    """An argparse type for --limit and the like: a whole number, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number, 0 or more (got {text!r})")
    return value


def tag_arg(text: str) -> str:
    """An argparse type for --tag: the tag as papersift stores it (``"Deep RL"`` -> ``deep-rl``, as
    the tag command writes it), or a usage error for one that is no tag (``""``, which would have
    filtered nothing)."""
    from store.tags import normalize_tag, tag_problem
    tag = normalize_tag(text)
    if problem := tag_problem(tag):
        raise argparse.ArgumentTypeError(problem)
    return tag


def print_labelled(c: Console, sections: list[tuple[str, list[str]]]) -> None:
    """Report lines under a label each ("  problem  ...", "  conflict ..."), printed verbatim."""
    for label, lines in sections:
        for line in lines:
            c.print(display_safe(f"  {label}{line}", False), markup=False)


def escaped(text: object) -> str:
    """``text`` display-safe and with Rich markup escaped, for a line printed with markup of our own."""
    from rich.markup import escape
    from store.safe_text import display_safe
    return escape(display_safe(str(text)))


def emit_json(obj: object) -> None:
    from store.formats.records import safe_json

    sys.stdout.write(safe_json(obj, indent=True) + "\n")


def stars(n: int) -> str:
    return "★" * n + "☆" * (3 - n)


def print_papers(lib: Library, indices: Iterable[int], fmt: str, total: int | None = None, found: int | None = None,
                 full: int | None = None, beyond: bool = False) -> None:
    """Print papers (corpus indices) as a table, plain lines or JSON (``found``, ``full``: see
    print_rows; in JSON each paper of a search says whether it holds every word, ``all_words``)."""
    papers = [lib.corpus.papers[int(i)] for i in indices]
    if fmt == "json":
        from store.formats.records import paper_record

        emit_json([{**paper_record(p, lib.annotation(p.id)), **({"all_words": i < full} if full is not None else {})}
                   for i, p in enumerate(papers)])
        return
    print_rows([Row(p.id, p.title, p.derived_title, lib.annotations.get(p.id)) for p in papers], fmt, total, found,
               full, beyond)


def print_rows(rows: list[Row], fmt: str, total: int | None = None, found: int | None = None,
               full: int | None = None, beyond: bool = False) -> None:
    """Print papers as a table or plain lines (from a Library, or from store.search.quick).

    Args:
        total: the library's size, said under the table.
        found: how many papers the query found (its result set, before ``--limit``), said with it
            as the app's list title says it: "20 shown of 1,234 found"; 0 when the rows are partial
            matches only.
        full: how many of the rows hold every word of a search: the weaker matches after them are
            set below a divider in a table, as in the app (None: no search, no divider).
        beyond: weaker matches follow past the rows (``--limit`` cut them): said under the table.
    """
    if fmt == "plain":  # (for a pipe: a search's result set alone, the weaker matches being no result)
        _print_plain(rows[:full] if full else rows)
        return
    from rich.table import Table
    from rich.text import Text

    from ..render import plain_title  # (Rich and pylatexenc only when a table is printed)

    out = console()
    # The title takes the width the other columns leave, set here: with every column
    # no_wrap, Rich narrows a too-wide table by cutting all columns evenly, and at 80
    # columns (any pipe) the status and star columns were cut to nothing.
    tags = [display_safe(" ".join("#" + t for t in r.tags), False) for r in rows]
    tagged = any(tags)  # (no tags column over rows none of which has a tag: its width goes to the title)
    tags_width = max(min(max(map(len, tags)), MAX_TAGS_WIDTH, out.width // 4), len("tags")) if tagged else 0
    ids_width = max((len(r.id) for r in rows), default=12)
    title_width = max(MIN_TITLE_WIDTH, out.width - ids_width - 1 - 3 - tags_width - 2 * (3 + tagged))
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("id", style="dim", no_wrap=True, min_width=12)
    table.add_column("", no_wrap=True, width=1)
    table.add_column("★", no_wrap=True, style="yellow", width=3)
    table.add_column("title", overflow="ellipsis", no_wrap=True, max_width=title_width)
    if tagged:
        table.add_column("tags", style="cyan", overflow="ellipsis", no_wrap=True, max_width=tags_width)
    for i, (r, tag_text) in enumerate(zip(rows, tags)):
        if i == full and i > 0:  # (the result set above, the weaker matches below)
            table.add_row("", "", "", Text(WEAKER_DIVIDER, style="dim"), *[""] * tagged)
        title = Text(shown_title(plain_title(r.title), r.derived_title), style="italic" if r.derived_title else "")
        table.add_row(r.id, GLYPH[r.status], stars(r.star) if r.star else "", title, *[Text(tag_text)] * tagged)
    if rows:  # (no header over nothing: "none found" says it)
        out.print(table)
    if total is not None:
        out.print(f"[dim]{_under_table(len(rows), total, found, full, beyond)}[/dim]")


def _under_table(n_rows: int, total: int, found: int | None, full: int | None, beyond: bool) -> str:
    """The line under a table: how many are shown of how many found, the weaker matches below the
    divider (and past --limit), and the library's size."""
    found = None if found is not None and found >= total else found  # (every paper: nothing to count)
    weaker = max(0, n_rows - full) if full and found else 0  # (a search's rows below its divider)
    more = f" · {counted(weaker, 'weaker match', 'weaker matches')} below" if weaker > 0 else ""
    if beyond:
        more += " · more weaker matches past --limit"
    return f"{found_line(n_rows - weaker, found)}{more} · {counted(total, 'paper')} in the library"


def _print_plain(rows: list[Row]) -> None:
    """One tab-separated line a paper: id, status, stars, title (as the app shows it: PixArt-α, not
    PixArt-$\\alpha$), tags."""
    from ..render import plain_title
    for r in rows:
        tag_line = display_safe(" ".join("#" + t for t in r.tags), False)
        sys.stdout.write(f"{r.id}\t{r.status}\t{r.star}\t{display_safe(plain_title(r.title), False)}\t{tag_line}\n")


WEAKER_DIVIDER = "── weaker matches: most but not all words ──"  # (the app's list says it so too)


def found_line(shown: int, found: int | None) -> str:
    """What a list of papers under a query is: "1,234 found", "20 shown of 1,234 found", or the
    partial matches shown when the query found none."""
    if found is None:
        return f"{shown:,} shown"
    if found == 0:
        return f"none found; {counted(shown, 'partial match', 'partial matches')} shown" if shown else "none found"
    return f"{found:,} found" if shown >= found else f"{shown:,} shown of {found:,} found"


def print_paper(lib: Library, key: str, fmt: str) -> None:
    """Print one paper in full."""
    p = lib.paper(key)
    a = lib.annotation(p.id)
    others = [(name, ann) for name, ann in lib.team.marks_of(p.id) if name != lib.member]
    assignee = lib.assignments.get(p.id, "")
    if fmt == "json":
        from store.formats.records import paper_record

        rec = paper_record(p, a)
        if others or assignee:  # a lab's library: everyone's marks, as the reader shows them
            rec["assigned_to"] = assignee
            rec["team"] = [{"member": name, "status": m.status, "star": m.star, "tags": m.tags, "note": m.note}
                           for name, m in others]
        emit_json(rec)
        return
    from ..render import numbered_links, render_abstract

    out = console()
    _print_paper_head(out, p, a, others, assignee)
    out.print()
    abstract, found = render_abstract(p.abstract)  # LaTeX as Unicode, emphasis styled (JSON keeps the source)
    out.print(abstract)
    links = numbered_links(found, p.url)  # (as the reader numbers them; the note's follow)
    if a.note:
        _print_note(out, a.note, links)
    if len(links) > (1 if p.url else 0):  # (a note's "the code [2]" names its address here)
        from rich.markup import escape
        out.print()
        out.print("[dim]links[/dim] " + escape("  ".join(f"[{i}] {display_safe(u, False)}" for i, u in enumerate(links, 1))))


def _print_paper_head(out: Console, p: Paper, a: Annotation, others: list[tuple[str, Annotation]],
                      assignee: str) -> None:
    """A paper's title, byline, marks, team, version, sources, keywords, area and link."""
    from rich.markup import escape

    from ..render import plain_title

    marker = (f"… [dim]({EXCERPT_NOTE})[/dim]" if is_excerpt(p.title, p.derived_title)
              else " [dim](derived title)[/dim]" if p.derived_title else "")
    out.print(f"[bold]{escape(plain_title(p.title))}[/bold]{marker}")
    byline = p.byline()
    if byline:
        out.print(escape(display_safe(byline, False)))
    out.print(f"[dim]id[/dim] {p.id}   [dim]status[/dim] {a.status}   [dim]star[/dim] {stars(a.star)}"
              f"   [dim]tags[/dim] {escape(display_safe(' '.join('#' + t for t in a.tags), False)) or '-'}")
    if others or assignee:
        from store.formats.records import marks_line

        from ..render import note_start
        team = [("assigned to " + assignee)] * bool(assignee) + [
            marks_line(n, m) + (f" “{note_start(m.note)}”" if m.note else "") for n, m in others]
        out.print(f"[dim]team[/dim] {escape(display_safe(' · '.join(team), False))}")
    if p.revised:
        out.print(f"[dim]updated[/dim] v{p.version} (in batch {p.revised}; the earlier text is kept)")
    out.print("[dim]sources[/dim] " + ", ".join(f"{escape(display_safe(s.file, False))}#{s.position}" for s in p.sources))
    for label, value in (("keywords", " · ".join(p.keywords)), ("area", p.area), ("url", p.url)):
        if value:
            out.print(f"[dim]{label}[/dim] {escape(display_safe(value, False))}")


def _print_note(out: Console, note: str, links: list[str]) -> None:
    """A paper's note, as much of it as a note can hold (a forged folder's note may be 50 MB: a
    terminal gets what a note can hold, JSON all of it)."""
    from store.tags import MAX_NOTE_CHARS

    from ..render import render_note

    out.print()
    out.print("[bold]Note[/bold]")
    out.print(render_note(note[:MAX_NOTE_CHARS], links)[0])  # (its math as Unicode, as the abstract's; JSON keeps it as typed)
    if len(note) > MAX_NOTE_CHARS:
        out.print(f"[dim]… and {len(note) - MAX_NOTE_CHARS:,} more characters (more than a note holds; "
                  "`--format json` prints it whole)[/dim]")


def print_stats(stats: dict[str, Any], fmt: str) -> None:
    if fmt == "json":
        emit_json(stats)
        return
    out = console()
    n = stats["papers"] or 1
    out.print(f"[bold]{counted(stats['papers'], 'paper')}[/bold] from {counted(stats['sources'], 'source file')}, "
              f"{stats['triaged']:,} triaged ({share(stats['triaged'], stats['papers'])}), "
              f"{counted(stats['near_duplicate_merges'], 'near-duplicate merge')}")
    for status, count in stats["status"].items():
        out.print(f"  {GLYPH[status]} {status:<8} {count:>6,}  [green]{bar(count / n, 30)}[/green]")
    if stats["stars"]:
        out.print("  " + "   ".join(f"{stars(int(k))} {v}" for k, v in stats["stars"].items()))
    from rich.markup import escape
    if any(stats["venues"]):
        out.print("  venues: " + escape(display_safe(", ".join(f"{v or '(none)'} ({c:,})" for v, c in stats["venues"].items()), False)))
    if stats["tags"]:
        out.print("  tags: " + escape(display_safe(", ".join(f"#{t} ({c})" for t, c in stats["tags"].items()), False)))
    if stats["areas"]:
        out.print("  areas: " + escape(display_safe(" · ".join(f"{a} ({c:,})" for a, c in stats["areas"].items()), False)))
    if stats["keywords"]:
        more = stats["distinct_keywords"] - len(stats["keywords"])
        out.print(f"  keywords ({stats['distinct_keywords']:,}): "
                  + escape(display_safe(" · ".join(f"{k} ({c:,})" for k, c in stats["keywords"].items()), False)
                           + (" · …" if more else "")))
