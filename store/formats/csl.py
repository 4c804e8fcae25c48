"""CSL-JSON (what Zotero and pandoc read): the triage in CSL 1.0.2's ``custom`` and as Zotero's
"Extra" lines in the note."""

from __future__ import annotations

import orjson

from store.escapes import repair_escapes
from store.formats.records import NAME_SUFFIXES, Pair, in_proceedings, team_records, title_of, triage_lines
from store.latex import plain_text
from store.search.keywords import join_keywords, tags_and_keywords
from store.titles.kinds import title_mark


# ------------------------------------------------------------------ CSL-JSON
def csl_name(name: str) -> dict[str, str]:
    """A stored author as CSL's family and given names ("Smith, John" as well as "John Smith")."""
    if name.count(",") == 1 and all(p.strip() for p in name.split(",")):
        family, given = (p.strip() for p in name.split(","))
        return {"family": family, "given": given}
    words = name.split()
    suffix = words.pop() if len(words) > 2 and words[-1].casefold() in NAME_SUFFIXES else ""
    if len(words) < 2:
        return {"literal": name}
    return {"family": words[-1], "given": " ".join(words[:-1]), **({"suffix": suffix} if suffix else {})}


def to_csl_json(pairs: list[Pair]) -> str:
    items = []
    for paper, ann in pairs:
        item: dict[str, object]
        item = {"id": paper.id, "type": "paper-conference" if in_proceedings(paper) else "article", "title": title_of(paper),
                "abstract": plain_text(repair_escapes(paper.abstract))}  # (as the reader shows it: Unicode)
        if paper.authors:
            item["author"] = [csl_name(a) for a in paper.authors]
        labels = tags_and_keywords(ann.tags, paper.keywords, paper.area)
        if labels:
            item["keyword"] = join_keywords(labels)
        # The triage: in "note" as Zotero's "Extra" lines (key: value), after the person's note,
        # and exactly in CSL 1.0.2's "custom" (what has no CSL field), which import-annotations reads.
        note = "\n".join([ann.note, *triage_lines(ann)] if ann.note else triage_lines(ann))
        if note:
            item["note"] = note
        if paper.url:
            item["URL"] = paper.url
        custom = {"papersift_status": ann.status, "papersift_star": ann.star, "papersift_tags": ann.tags,
                  "papersift_note": ann.note}
        if paper.derived_title:
            custom["papersift_title"] = title_mark(paper)
        if team := team_records(ann):
            custom["papersift_team"] = team
        item["custom"] = custom
        if paper.venue:
            item["container-title"] = paper.venue
        if paper.year:
            item["issued"] = {"date-parts": [[int(paper.year)]]} if paper.year.isdigit() else {"raw": paper.year}
        items.append(item)
    return orjson.dumps(items, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n"
