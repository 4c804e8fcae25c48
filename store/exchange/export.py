"""Export annotated papers: Markdown, CSV, JSON, JSON Lines, BibTeX, Org, CSL-JSON, RIS.

Every exporter takes (Paper, Annotation) pairs and returns the file's text;
exporting never changes the library. The JSON/JSONL schema
(``papersift-export`` version 1; each paper a ``papersift-paper/1`` record as
in :mod:`store.exchange.records`) is what ``import-annotations`` reads back.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections import defaultdict
from datetime import datetime, timezone
from typing import Callable, Iterable

import orjson

from store import formats
from store.ingest.bibtex import BIB_MATH, balanced, bib_escape, bib_latex
from store.choices import DERIVED, FORMATS, FORMULA_START, MARKDOWN_GROUPS  # noqa: F401 (FORMATS, MARKDOWN_GROUPS re-exported)
from store.search.keywords import join_keywords, tags_and_keywords
from store.latex import plain_text
from store.ingest.repair import repair_escapes
from store.choices import STATUSES
from store.models import Annotation, Paper
from store.exchange.records import (RECORD_SCHEMA_VERSION, Pair, escape_unsafe_json, paper_record, title_of,
                                    triage_lines)
from store.text import counted, export_safe

# A title papersift derived is said to be one wherever it is shared (DERIVED, in every format): never
# passed off as the paper's own.
DERIVED_MD = f"*(title {DERIVED})*"

EXPORT_FORMAT = "papersift-export"
EXPORT_VERSION = 1
EXTENSIONS = formats.EXTENSIONS
STATUS_HEADINGS = {"to-read": "To read", "unread": "Unread", "read": "Read", "skipped": "Skipped"}

JSON_FORMATS = formats.JSON_FORMATS


def export_text(pairs: list[Pair], fmt: str, *, group_by: str = "status", abstracts: bool = False,
                library_name: str = "", progress: Callable[[int, int], None] | None = None) -> str:
    """Render papers in one of ``FORMATS``."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of: {', '.join(FORMATS)}")
    if progress:
        progress(0, len(pairs))
    if fmt == "md":
        out = to_markdown(pairs, group_by=group_by, abstracts=abstracts, library_name=library_name)
    else:
        out = formats.load(formats.BY_NAME[fmt].writer)(pairs)  # (the table's: store.formats)
    if progress:
        progress(len(pairs), len(pairs))
    # One gate for every format: nothing a dump, a colleague or a tag carried may run in the terminal
    # of whoever opens the file. JSON keeps every character, written as an escape.
    return escape_unsafe_json(out) if fmt in JSON_FORMATS else export_safe(out)


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
        heading = {k: (f"#{k}" if group_by == "tag" and k != _NO_GROUP["tag"] else _md_escape(k)) for k in order}
    else:
        order = [s for s in ("to-read", "unread", "read", "skipped") if s in groups]
        heading = STATUS_HEADINGS
    lines = [f"# Reading list{' — ' + library_name if library_name else ''}", "",
             f"{counted(len(pairs), 'paper')}, exported {datetime.now(timezone.utc):%Y-%m-%d}.", ""]
    for key in order:
        lines += [f"## {heading[key]} ({len(groups[key])})", ""]
        for paper, ann in groups[key]:
            stars = " " + "★" * ann.star if ann.star else ""
            tags = " " + " ".join(f"`#{t}`" for t in ann.tags) if ann.tags else ""
            derived = " " + DERIVED_MD if paper.derived_title else ""
            lines.append(f"- **{_md_escape(title_of(paper))}**{derived}{stars}{tags} (id `{paper.id}`)")
            byline = paper.byline(" — ")
            if byline:
                lines.append(f"  {_md_escape(byline)}")
            if ann.note:
                lines += ["  > " + _md_escape(line) if line.strip() else "  >" for line in ann.note.splitlines()]
            if abstracts:  # read by people (a group's shortlist): LaTeX as Unicode, as the app shows it
                lines += ["", "  " + _md_escape(" ".join(plain_text(paper.abstract).split()))]
        lines.append("")
    return "\n".join(lines)


def citation_line(paper: Paper, ann: Annotation) -> str:
    """One Markdown line to paste in a chat or a doc (the app's Y): title (marked when papersift
    derived it), authors, venue and year, id, link, tags and note."""
    line = f"- **{_md_escape(title_of(paper))}**"
    if paper.derived_title:
        line += " " + DERIVED_MD
    if paper.authors:
        names = paper.authors
        who = names[0] if len(names) == 1 else " and ".join(names) if len(names) == 2 else f"{names[0]} et al."
        line += f" — {_md_escape(who)}"
    if paper.published:
        line += (", " if paper.authors else " — ") + _md_escape(paper.published)
    line += f" (`{paper.id}`)"
    if paper.url:
        line += f" <{paper.url}>"
    if ann.tags:
        line += " " + " ".join(f"#{t}" for t in ann.tags)
    if ann.note:
        line += " — " + _md_escape(" ".join(ann.note.split()))
    return line


def _md_escape(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<>|])", r"\\\1", text)


# ----------------------------------------------------------------------- CSV
CSV_COLUMNS = ("id", "title", "status", "star", "tags", "note", "abstract", "authors", "sources", "url", "venue", "year",
               "derived_title", "keywords", "area")


def neutralize(cell: str) -> str:
    """Stop spreadsheets from running a cell as a formula (OWASP CSV injection)."""
    return "'" + cell if cell.startswith(FORMULA_START) else cell


def to_csv(pairs: list[Pair]) -> str:
    """One row per paper, UTF-8, RFC 4180 quoting, formula cells neutralised."""
    buf = io.StringIO()
    writer = csv.writer(buf, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for paper, ann in pairs:
        row = [paper.id, title_of(paper), ann.status, str(ann.star), "; ".join(ann.tags), ann.note,
               repair_escapes(paper.abstract), "; ".join(paper.authors), "; ".join(f"{s.file}#{s.position}" for s in paper.sources),
               paper.url, paper.venue, paper.year, "true" if paper.derived_title else "false",
               join_keywords(paper.keywords), paper.area]
        writer.writerow([neutralize(c) for c in row])
    return buf.getvalue()


# ---------------------------------------------------------------------- JSON
def export_record(paper: Paper, ann: Annotation) -> dict[str, object]:
    rec = paper_record(paper, ann)
    rec["schema"] = f"papersift-paper/{RECORD_SCHEMA_VERSION}"
    if ann.conflicts:
        rec["conflicts"] = ann.conflicts
    if ann.stamps:  # when each field changed: what import-annotations merges field by field with
        rec["stamps"] = ann.stamps
    return rec


def to_json(pairs: list[Pair]) -> str:
    doc = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION,
           "exported": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "count": len(pairs), "papers": [export_record(p, a) for p, a in pairs]}
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n"


def to_jsonl(pairs: list[Pair]) -> str:
    return "".join(orjson.dumps(export_record(p, a)).decode("utf-8") + "\n" for p, a in pairs)


# -------------------------------------------------------------------- BibTeX
_HELD = re.compile("\ue000(\\d+)\ue000")  # a placeholder (private-use characters) for held-back math


def bib_title(paper: Paper) -> str:
    """The title for BibTeX: its well-formed inline math as written, the rest plain Unicode, escaped;
    a derived title that was cut ("…") derived again whole.

    Plain text turns ``$\\ell_p$`` into "ℓ_p": a subscript lost, and a character pdflatex has
    no glyph for. The math is held back while the rest is made plain, then put back.
    """
    maths: list[str] = []

    def hold(m: re.Match[str]) -> str:
        if not balanced(m.group(1)):
            return m.group()
        maths.append(m.group())
        return f"\ue000{len(maths) - 1}\ue000"

    title = paper.title
    if paper.derived_title and title.rstrip().endswith("…"):  # a bibliography's title is whole: no "…"
        from store.ingest.titles import whole_title
        title = whole_title(paper.abstract)
    title = " ".join(title.replace("\ue000", "").split())  # the placeholder's character is ours alone
    held = " ".join(plain_text(BIB_MATH.sub(hold, title)).split())
    if not held:
        return bib_escape(paper.id)
    return _HELD.sub(lambda m: maths[int(m.group(1))], bib_escape(held))


_KEY_STOP = frozenset("a an the of on in for to and with by from via towards toward is are we our this "
                      "what how when why which can do does".split())


def _ascii_word(word: str) -> str:
    return re.sub(r"[^a-z0-9]", "", unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode().lower())


def citation_key(paper: Paper) -> str:
    """A key as people write them. With authors: first author's surname + paper id (stable as
    the library grows). Without: the title's first content word + the year ("diffusion2024"),
    which :func:`citation_keys` makes unique within one file."""
    if paper.authors:
        return f"{(_ascii_word(paper.authors[0].split()[-1]) or 'paper')[:20]}_{paper.id}"
    words = [_ascii_word(w) for w in title_of(paper).split()]
    word = next((w for w in words if w and w not in _KEY_STOP and not w.isdigit()), "") or next(
        (w for w in words if w), "paper")
    return f"{word[:20]}{paper.year if paper.year.isdigit() else ''}"


def citation_keys(papers: list[Paper]) -> list[str]:
    """:func:`citation_key` for each paper, unique within the list: where two papers would share
    one, each gets the first letters of its id that tell it apart ("diffusion2024_b7b9")."""
    keys = [citation_key(p) for p in papers]
    seen: dict[str, list[int]] = defaultdict(list)
    for i, key in enumerate(keys):
        seen[key].append(i)
    for key, where in seen.items():
        if len(where) > 1:
            for i in where:
                keys[i] = f"{key}_{papers[i].id[:4]}"
            if len({keys[i] for i in where}) < len(where):  # four letters alike: the whole id
                for i in where:
                    keys[i] = f"{key}_{papers[i].id}"
    return keys


def to_bibtex(pairs: list[Pair]) -> str:
    """One @misc entry a paper: the abstract's LaTeX as written (:func:`store.ingest.bibtex.bib_latex`),
    the triage in papersift_* fields, which import-annotations reads back."""
    out = []
    for (paper, ann), key in zip(pairs, citation_keys([p for p, _ in pairs])):
        fields = [("title", "{" + bib_title(paper) + "}")]
        if paper.authors:
            fields.append(("author", " and ".join(bib_escape(a) for a in paper.authors)))
        if paper.venue:
            fields.append(("howpublished", bib_escape(paper.venue)))
        if paper.year:
            fields.append(("year", paper.year))
        fields.append(("abstract", bib_latex(repair_escapes(paper.abstract))))
        labels = tags_and_keywords(ann.tags, paper.keywords, paper.area)
        if labels:
            fields.append(("keywords", bib_escape(join_keywords(labels))))
        if ann.note:
            fields.append(("note", bib_escape(ann.note, fold=False)))
        if paper.url:
            fields.append(("url", bib_escape(paper.url)))
        if paper.derived_title:
            fields.append(("papersift_title", DERIVED))
        fields += [("papersift_id", paper.id), ("papersift_status", ann.status)]
        if ann.star:
            fields.append(("papersift_star", str(ann.star)))
        if ann.tags:  # the keywords field mixes them with the source's keywords: these alone are the tags
            fields.append(("papersift_tags", bib_escape(", ".join(ann.tags))))
        body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields)
        out.append(f"@misc{{{key},\n{body}\n}}\n")
    return "\n".join(out)


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
        title = title_of(paper).replace("\n", " ")
        lines.append(f"* {ORG_KEYWORDS[ann.status]} {title}" + (f" {tags}" if tags else ""))
        lines += ["  :PROPERTIES:", f"  :ID: {paper.id}", f"  :STAR: {ann.star}", f"  :STATUS: {ann.status}"]
        if ann.tags:  # Org tags cannot hold "-": the tags as they are, for import-annotations
            lines.append(f"  :PAPERSIFT_TAGS: {' '.join(ann.tags)}")
        if paper.authors:
            lines.append(f"  :AUTHORS: {', '.join(paper.authors)}")
        if paper.published:
            lines.append(f"  :VENUE: {paper.published}")
        lines.append("  :END:")
        # Body lines are indented, so a note line starting with "*" cannot become a heading.
        for line in ann.note.splitlines():
            lines.append("  " + line if line.strip() else "")
        lines.append("")
    return "\n".join(lines)


# ------------------------------------------------------------------ CSL-JSON
def csl_name(name: str) -> dict[str, str]:
    parts = name.rsplit(" ", 1)
    return {"family": parts[-1], "given": parts[0]} if len(parts) == 2 else {"literal": name}


def to_csl_json(pairs: list[Pair]) -> str:
    items = []
    for paper, ann in pairs:
        item: dict[str, object]
        item = {"id": paper.id, "type": "article", "title": title_of(paper),
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
            custom["papersift_title"] = DERIVED
        item["custom"] = custom
        if paper.venue:
            item["container-title"] = paper.venue
        if paper.year:
            item["issued"] = {"date-parts": [[int(paper.year)]]} if paper.year.isdigit() else {"raw": paper.year}
        items.append(item)
    return orjson.dumps(items, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n"


def to_ris(pairs: list[Pair]) -> str:
    """RIS: store.exchange.ris (a module of its own: its note encoding is read back there too)."""
    from store.exchange.ris import to_ris as write
    return write(pairs)


def selection_query(status: Iterable[str] = (), tags: Iterable[str] = (), star: int | None = None,
                    query: str = "") -> str:
    """The search query for export filters (same syntax as the app)."""
    parts = [query] if query else []
    parts += [f"status:{s}" for s in status if s in STATUSES]
    parts += [f"tag:{t}" for t in tags]
    if star:
        parts.append(f"star:>={star}")
    return " ".join(parts)
