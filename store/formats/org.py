"""Org: a heading a paper, its status as an Org workflow state, its star, tags and note as properties."""

from __future__ import annotations

import re

from store.formats.records import Pair, team_line, title_of

# ----------------------------------------------------------------------- Org
# Org workflow states named after papersift's statuses, declared in the file header
# (open states | closed states). In-buffer keywords are case-insensitive in Org; the
# header is written in the lower case Org 9 writes itself (#+title:, #+seq_todo:).
ORG_KEYWORDS = {"unread": "UNREAD", "to-read": "TOREAD", "read": "READ", "skipped": "SKIPPED"}


ORG_STATES = f"{ORG_KEYWORDS['to-read']} {ORG_KEYWORDS['unread']} | {ORG_KEYWORDS['read']} {ORG_KEYWORDS['skipped']}"


def org_tag(tag: str) -> str:
    """Org tags allow letters, digits, _ @ # %."""
    return re.sub(r"[^\w@#%]", "_", tag)


def to_org(pairs: list[Pair]) -> str:
    lines = ["#+title: papersift reading list", f"#+seq_todo: {ORG_STATES}", ""]
    for paper, ann in pairs:
        tags = ":" + ":".join(org_tag(t) for t in ann.tags) + ":" if ann.tags else ""
        title = " ".join(title_of(paper).split())  # (one line: a CR or newline in it would start a heading)
        lines.append(f"* {ORG_KEYWORDS[ann.status]} {title}" + (f" {tags}" if tags else ""))
        lines += ["  :PROPERTIES:", f"  :ID: {paper.id}", f"  :STAR: {ann.star}", f"  :STATUS: {ann.status}"]
        if ann.tags:  # Org tags cannot hold "-": the tags as they are, for import-annotations
            lines.append(f"  :PAPERSIFT_TAGS: {' '.join(ann.tags)}")
        if team := team_line(ann):
            lines.append(f"  :TEAM: {team}")
        if paper.authors:
            lines.append(f"  :AUTHORS: {' '.join(', '.join(paper.authors).split())}")
        if paper.published:
            lines.append(f"  :VENUE: {' '.join(paper.published.split())}")
        lines.append("  :END:")
        # Body lines are indented, so a note line starting with "*" cannot become a heading.
        for line in ann.note.splitlines():
            lines.append("  " + line if line.strip() else "")
        lines.append("")
    return "\n".join(lines)
