"""A lab's shortlist: the papers whose stars, every member's added up, reach a bar, with what each
member said of them (``papersift export --team N``), as a Markdown page for the group's meeting."""

from __future__ import annotations

from typing import TYPE_CHECKING

from store.formats.records import marks_line, title_of
from store.formats.markdown import md_escape
from store.wording import counted

if TYPE_CHECKING:
    from store.library import Library


def team_shortlist(lib: Library, at_least: int, query: str = "", abstracts: bool = False) -> tuple[str, int]:
    """The shortlist's Markdown and how many papers it lists: most team stars first, each with
    every member's marks and notes."""
    totals = lib.team.team_stars()
    wanted = {p.id for p, _ in lib.pairs(query)} if query else None
    chosen = sorted((pid for pid, n in totals.items() if n >= at_least and (wanted is None or pid in wanted)),
                    key=lambda pid: (-totals[pid], lib.corpus.index_of(pid) or 0))
    lines = [f"# Team shortlist — {lib.name}", "",
             f"{counted(len(chosen), 'paper')} with {at_least}+ stars from the team (members: {', '.join(lib.team.active())}).", ""]
    for pid in chosen:
        paper = lib.paper(pid)
        lines.append(f"## {md_escape(title_of(paper))} — ★{totals[pid]}")
        lines.append("")
        if paper.byline():
            lines += [md_escape(paper.byline()), ""]
        for name, ann in lib.team.marks_of(pid):
            lines.append(f"- {md_escape(marks_line(name, ann))}")
            lines += [f"  > {md_escape(row)}" for row in ann.note.splitlines() if row.strip()]
        lines.append(f"- id: `{pid}`")
        if abstracts:
            lines += ["", md_escape(paper.abstract)]
        lines.append("")
    return "\n".join(lines), len(chosen)
