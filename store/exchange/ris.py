"""RIS: papers and their annotations as reference managers (Zotero, EndNote) read them, and the
note's encoding read back (``import-annotations``)."""

from __future__ import annotations

from store.choices import DERIVED
from store.exchange.records import Pair, title_of, triage_lines
from store.ingest.repair import repair_escapes
from store.latex import plain_text
from store.search.keywords import tags_and_keywords


def _ris_value(text: str) -> str:
    return " ".join(text.split())


def note_html(note: str) -> str:
    """A note on one line, as the HTML a Zotero note is: a paragraph per blank-line-separated block,
    ``<br>`` for a line break, the text escaped (so a note that holds "<p>" reads back as written)."""
    import html
    blocks = [b for b in note.strip().split("\n\n") if b.strip()]
    return "".join("<p>" + "<br>".join(html.escape(line.rstrip(), quote=False) for line in b.strip("\n").split("\n"))
                   + "</p>" for b in blocks)


def html_note(text: str) -> str:
    """:func:`note_html` read back (a note Zotero wrote is HTML of the same shape)."""
    import html
    import re
    blocks = re.findall(r"<p>(.*?)</p>", text, flags=re.S) or [text]
    return "\n\n".join(html.unescape(re.sub(r"<br\s*/?>", "\n", b)) for b in blocks)


def to_ris(pairs: list[Pair]) -> str:
    """RIS (``TY  - GEN``): the abstract as the reader shows it (Unicode); the note one N1 field."""
    out = []
    for paper, ann in pairs:
        rec = ["TY  - GEN", f"ID  - {paper.id}", f"TI  - {_ris_value(title_of(paper))}"]
        if paper.derived_title:
            rec.append(f"U1  - title {DERIVED}")
        rec += [f"AU  - {_ris_value(a)}" for a in paper.authors]
        if paper.year:
            rec.append(f"PY  - {paper.year}")
        if paper.venue:
            rec.append(f"T2  - {_ris_value(paper.venue)}")
        rec.append(f"AB  - {_ris_value(plain_text(repair_escapes(paper.abstract)))}")
        rec += [f"KW  - {_ris_value(t)}" for t in tags_and_keywords(ann.tags, paper.keywords, paper.area)]
        # The note as one N1 (Zotero makes a note of each), its line breaks kept as Zotero's notes keep
        # them, in HTML; then the triage as papersift-… lines.
        if ann.note.strip():
            rec.append(f"N1  - {note_html(ann.note)}")
        rec += [f"N1  - {line}" for line in triage_lines(ann)]
        if paper.url:
            rec.append(f"UR  - {_ris_value(paper.url)}")
        rec.append("ER  - ")
        out.append("\n".join(rec))
    return "\n\n".join(out) + "\n"
