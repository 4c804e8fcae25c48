"""Markdown: the reading list (grouped by status, tag, venue or area) and the one-line citation the
app's copy-citation key puts on the clipboard."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import datetime, timezone

from store.choices import DERIVED
from store.formats.records import Pair, team_line, title_of, without_sequences
from store.latex import plain_text
from store.models import Paper
from store.records import Annotation
from store.titles.kinds import EXCERPT_NOTE, is_excerpt, shown_title
from store.wording import counted

# A title papersift derived is said to be one wherever it is shared (DERIVED, in every format): never
# passed off as the paper's own.
DERIVED_MD = f"*(title {DERIVED})*"
EXCERPT_MD = f"*({EXCERPT_NOTE})*"


def _title_mark(paper: Paper) -> str:
    """What a derived title is marked with: derived, or an excerpt (store.titles.kinds)."""
    return EXCERPT_MD if is_excerpt(paper.title, paper.derived_title) else DERIVED_MD


STATUS_HEADINGS = {"to-read": "To read", "unread": "Unread", "read": "Read", "skipped": "Skipped"}


# ------------------------------------------------------------------ Markdown
_NO_GROUP = {"tag": "(untagged)", "venue": "(no venue)", "area": "(no area)"}


def _groups_of(paper: Paper, ann: Annotation, group_by: str) -> list[str]:
    if group_by == "tag":
        return ann.tags or [_NO_GROUP["tag"]]
    if group_by in ("venue", "area"):
        return [(paper.published if group_by == "venue" else paper.area) or _NO_GROUP[group_by]]
    return [ann.status]


def to_markdown(pairs: list[Pair], group_by: str = "status", abstracts: bool = False, library_name: str = "") -> str:
    """A reading list grouped by status (to-read first), tag, venue ("ICLR 2024") or area (a
    paper in several tags is listed under each)."""
    groups: dict[str, list[Pair]] = defaultdict(list)
    for paper, ann in pairs:
        for key in _groups_of(paper, ann, group_by):
            groups[key].append((paper, ann))
    if group_by in _NO_GROUP:
        order = sorted(groups, key=lambda k: (k == _NO_GROUP[group_by], k.casefold()))
        heading = {k: (f"#{k}" if group_by == "tag" and k != _NO_GROUP["tag"] else md_escape(k)) for k in order}
    else:
        order = [s for s in ("to-read", "unread", "read", "skipped") if s in groups]
        heading = STATUS_HEADINGS
    lines = [f"# Reading list{' — ' + library_name if library_name else ''}", "",
             f"{counted(len(pairs), 'paper')}, exported {datetime.now(timezone.utc):%Y-%m-%d}.", ""]
    for key in order:
        lines += [f"## {heading[key]} ({len(groups[key]):,})", ""]
        for paper, ann in groups[key]:
            lines += _entry(paper, ann, abstracts)
        lines.append("")
    return "\n".join(lines)


def _entry(paper: Paper, ann: Annotation, abstract: bool) -> list[str]:
    """One paper's lines of a reading list: its title with marks, stars, tags and id; the byline,
    the note quoted, the team's marks; and its abstract when asked."""
    stars = " " + "★" * ann.star if ann.star else ""
    tags = " " + " ".join(f"`#{t}`" for t in ann.tags) if ann.tags else ""
    derived = " " + _title_mark(paper) if paper.derived_title else ""
    lines = [f"- **{md_escape(shown_title(title_of(paper), paper.derived_title))}**{derived}{stars}{tags} "
             f"(id `{paper.id}`)"]
    byline = paper.byline(" — ")
    if byline:
        lines.append(f"  {md_escape(byline)}")
    if ann.note:
        lines += ["  > " + note_markdown(line) if line.strip() else "  >" for line in ann.note.splitlines()]
    if team := team_line(ann):
        lines.append(f"  team: {md_escape(team)}")
    if abstract:  # read by people (a group's shortlist): LaTeX as Unicode, as the app shows it
        lines += ["", "  " + md_escape(" ".join(plain_text(paper.abstract).split()))]
    return lines


def citation_line(paper: Paper, ann: Annotation) -> str:
    """One Markdown line to paste in a chat or a doc (the app's Y): title (marked when papersift
    derived it), authors, venue and year, id, link, tags and note; no escape sequence (a paste
    into a terminal would run it)."""
    paper, ann = without_sequences((paper, ann))
    line = f"- **{md_escape(shown_title(title_of(paper), paper.derived_title))}**"
    if paper.derived_title:
        line += " " + _title_mark(paper)
    if paper.authors:
        names = paper.authors
        who = names[0] if len(names) == 1 else " and ".join(names) if len(names) == 2 else f"{names[0]} et al."
        line += f" — {md_escape(' '.join(who.split()))}"  # (one line: a stored name's newline)
    if paper.published:
        line += (", " if paper.authors else " — ") + md_escape(" ".join(paper.published.split()))
    line += f" (`{paper.id}`)"
    if paper.url:
        line += f" <{paper.url}>"
    if ann.tags:
        line += " " + " ".join(f"#{t}" for t in ann.tags)
    if ann.note:
        line += " — " + note_markdown(" ".join(ann.note.split()))  # (the person's Markdown, as the export keeps it)
    return line


def md_escape(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<>|])", r"\\\1", text)


_NOT_AUTOLINK = re.compile(r"<(?!https?://[^\s<>]+>)")


def note_markdown(line: str) -> str:
    """A line of one's own note as Markdown: written in Markdown (links, emphasis, ``$math$``), it
    is kept so (escaped, ``[the code](…)`` read ``\\[the code\\](…)`` and ``$\\alpha$`` a TeX
    line break); only a ``<`` that opens no ``<https://…>`` link is escaped, so no HTML is written."""
    return _NOT_AUTOLINK.sub(r"\\<", line)
