"""BibTeX values: escaping any text into one (exports) and reading one back as text (imports).

Kept together so the two stay inverses: what papersift's BibTeX export escapes,
its BibTeX import (and any other tool's BibTeX, which escapes the same way)
turns back into the characters. Well-formed inline math is left as written both
ways.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from pathlib import Path
from typing import Callable

from store.choices import TITLE_MARKS
from store.errors import InputError
from store.escapes import repair_escapes
from store.formats.records import Pair, family_name, in_proceedings, team_line, title_of
from store.formats.raw_record import Records, name_in_order, record_from_obj, web_link
from store.latex import plain_text
from store.titles.kinds import title_mark
from store.models import Paper
from store.search.keywords import join_keywords, tags_and_keywords

_BIB_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}", "$": r"\$", "&": r"\&", "%": r"\%",
                "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
# A special already escaped in the source ("3\\%" in an abstract) is kept: it prints as intended.
_BIB_RE = re.compile(r"\\[%&#_$]|[\\{}$&%#_~^]")


# Inline math kept as written ("$\\ell_p$" in an abstract), as Zotero and Google Scholar do: it
# starts and ends next to a non-space (so "$5 and $10" is money), holds no %, # or & (a
# comment or an alignment tab in LaTeX), and its braces balance.
BIB_MATH = re.compile(r"(?<!\\)\$(?=\S)([^$%#&\n]{1,200}?)(?<=[^\s\\])\$")


def balanced(text: str) -> bool:
    """Braces balance both as BibTeX counts them (every brace) and as LaTeX does (\\{ is literal)."""
    for skip_escaped in (False, True):
        depth = 0
        for i, ch in enumerate(text):
            if skip_escaped and ch in "{}" and i and text[i - 1] == "\\":
                continue
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if depth < 0:
                return False
        if depth:
            return False
    return True


def _escape_plain(text: str) -> str:
    return _BIB_RE.sub(lambda m: m.group() if len(m.group()) == 2 else _BIB_SPECIAL[m.group()], text)


def bib_escape(text: str, fold: bool = True) -> str:
    """Escape LaTeX specials so any text is a valid, balanced BibTeX value.

    BibTeX counts an escaped brace as a brace too, so literal braces become
    textbraceleft and textbraceright commands, which keep values balanced.
    Well-formed inline math (``$\\mathcal{O}(\\sqrt{T})$``) is kept as it is,
    so an abstract's math typesets as its authors wrote it.

    Args:
        fold: fold a one-line value's runs of white space (titles, names); a note keeps its own.
    """
    text = " ".join(text.split()) if fold and "\n" not in text else text
    return _outside_math(text, _escape_plain)


# What is already TeX in a LaTeX-bearing text: a command, an escaped character, a line break.
_TEX_OR_SPECIAL = re.compile(r"\\[A-Za-z@]+\*?|\\.|[%&#_^$]")


def bib_latex(text: str) -> str:
    """A value that is LaTeX already (an abstract: ``\\textit{…}``, ``$\\sqrt{n}$``, ``~\\cite{…}``)
    for BibTeX: written as it is, so it typesets as its authors wrote it and reads back byte for
    byte. Only what is not TeX there is escaped: a bare ``%``, ``&`` or ``#``, and ``_``, ``^``
    or a lone ``$`` outside well-formed math. Text whose braces do not balance (BibTeX would
    misread the entry) is escaped whole, as :func:`bib_escape` does."""
    if not balanced(text):
        return bib_escape(text, fold=False)

    def outside(part: str) -> str:
        return _TEX_OR_SPECIAL.sub(lambda m: m.group() if m.group().startswith("\\") else _BIB_SPECIAL[m.group()], part)
    return _outside_math(text, outside)


def _outside_math(text: str, change: Callable[[str], str]) -> str:
    """``change`` applied to the text outside well-formed inline math, the math kept as written."""
    out, last = [], 0
    for m in BIB_MATH.finditer(text):
        if balanced(m.group(1)):
            out += [change(text[last:m.start()]), m.group()]
            last = m.end()
    out.append(change(text[last:]))
    return "".join(out)


_BIB_UNESCAPE = {v: k for k, v in _BIB_SPECIAL.items()}
_NAMED = {"textbackslash": "\\", "textbraceleft": "{", "textbraceright": "}", "textasciitilde": "~",
          "textasciicircum": "^"}
# An accented letter as BibTeX from Google Scholar, DBLP or Zotero writes it: {\\"o}, \\"{o}, \\H{o},
# \\c c, {\\ss}, \\o ("Sch{\\"o}lkopf", "Erd\\H{o}s"); bibtexparser's table turns one into Unicode.
_ACCENT = (r"\{\\[`'^\"~=.][ ]?(?:\{\w\}|\w)\}|\{\\[uvHckrdb](?:\{\w\}|[ ]\w)\}"
           r"|\\[`'^\"~=.][ ]?(?:\{\w\}|\w)|\\[uvHckrdb](?:\{\w\}|[ ]\w)"
           r"|\{\\(?:ss|o|O|ae|AE|oe|OE|aa|AA|l|L|i)\}|\\(?:ss|o|O|ae|AE|oe|OE|aa|AA|l|L|i)(?![A-Za-z])(?:\{\})?")
# An escape as bib_escape writes it, a named one without its {} (other tools), an accent, or a bare brace.
_BIB_ESCAPED = re.compile("|".join(re.escape(v) for v in sorted(_BIB_UNESCAPE, key=len, reverse=True))
                          + r"|\\(?:" + "|".join(_NAMED) + r")\b|" + _ACCENT + r"|[{}]")


def _accent(tok: str) -> str:
    from pylatexenc.latex2text import LatexNodes2Text  # (a BibTeX import's alone)
    try:
        text = LatexNodes2Text().latex_to_text(tok).strip()
    except Exception:  # noqa: BLE001 - a token pylatexenc cannot read stays as it was
        return tok
    return tok if "\\" in text or not text else text


_MONTHS = {m: m.capitalize() for m in ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")}


def _concatenated(value: str, strings: dict[str, str]) -> str:
    """A value joined with ``#`` (``a # " and " # c``), its ``@string`` macros resolved: bibtexparser
    2 resolves a value that is one macro, and leaves a concatenation as written."""
    if not isinstance(value, str) or "#" not in value:
        return value
    parts = _hash_parts(value)
    if parts is None:
        return value  # not a concatenation after all (a "#" inside a value written bare)
    out = [_part_value(part, strings) for part in parts]
    if any(v is None for v in out):
        return value  # an undefined macro: kept as written, as BibTeX would warn
    return "".join(v for v in out if v is not None)


def _hash_parts(value: str) -> list[str] | None:
    """The parts of a value between its ``#`` outside braces and quotes; None when it is no
    concatenation (unbalanced, one part, or an empty part)."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(value):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == '"' and depth == 0:
            quoted = not quoted
        elif ch == "#" and depth == 0 and not quoted:
            parts.append(value[start:i].strip())
            start = i + 1
    parts.append(value[start:].strip())
    return None if depth or quoted or len(parts) < 2 or not all(parts) else parts


def _part_value(part: str, strings: dict[str, str]) -> str | None:
    """One part of a concatenation: a braced or quoted text, a number, a macro (``@string`` or a
    month's); None for a macro no one defined."""
    if len(part) >= 2 and ((part[0] == "{" and part[-1] == "}") or (part[0] == '"' and part[-1] == '"')):
        return part[1:-1]
    if part.isdigit():
        return part
    if part.lower() in strings:
        return strings[part.lower()]
    return _MONTHS.get(part.lower())


def read_entries(text: str, path: Path) -> list[dict[str, str]]:
    """The entries of a BibTeX file as dicts: ``ID``, ``ENTRYTYPE`` and each field (lower-cased
    name -> its value as written, outer braces or quotes removed), by bibtexparser 2.

    Raises:
        InputError: a block bibtexparser could not parse, with the line it starts on.
    """
    import logging

    import bibtexparser  # (a BibTeX import's alone)

    from store.errors import InputError

    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)  # its failures are said below, once
    try:
        library = bibtexparser.parse_string(text)
    except Exception as exc:  # noqa: BLE001 - the parser's own errors, of many kinds
        raise InputError(path, f"invalid BibTeX: {exc}") from None
    for block in library.failed_blocks:
        reason = str(getattr(block, "error", "") or "").strip() or "cannot be read as a BibTeX entry"
        assert block.start_line is not None  # set for every block parse_string reads
        raise InputError(path, f"invalid BibTeX entry: {reason}", line=block.start_line + 1)
    strings = {m.key.lower(): m.value for m in library.strings}
    entries = []
    for entry in library.entries:
        fields = {f.key.lower(): _MONTHS.get(f.value, f.value) if f.key.lower() == "month"
                  else _concatenated(f.value, strings) for f in entry.fields}
        entries.append({**fields, "ID": entry.key, "ENTRYTYPE": entry.entry_type.lower()})
    return entries


def bib_unescape(value: str, strip_braces: bool = False) -> str:
    """A BibTeX value read back as text: ``\\&`` -> ``&``, ``\\textbraceleft{}`` -> ``{``, outside
    well-formed inline math (kept as written, as :func:`bib_escape` keeps it).

    Args:
        strip_braces: drop bare braces outside math too (a title's case protection, ``{BERT}``).
    """
    def plain(text: str) -> str:
        def one(m: re.Match[str]) -> str:
            tok = m.group()
            if tok in "{}":
                return "" if strip_braces else tok
            return _BIB_UNESCAPE.get(tok) or _NAMED.get(tok[1:]) or _accent(tok)
        return _BIB_ESCAPED.sub(one, text)

    return _outside_math(value, plain)


MAX_BRACE_DEPTH = 64  # BibTeX braces open at once; real entries nest a handful


# A file of another suffix (a dump's .txt, say) is read as BibTeX or RIS when its content is
# (store.formats' sniff): read as a dump, every entry became a paragraph of field syntax.
_BIBTEX_START = re.compile(r"\s*(%[^\n]*\n\s*)*@[A-Za-z]+\s*[{(]")


def looks_like_bibtex(text: str) -> bool:
    """True when a file's text starts as BibTeX does (an @entry, after % comments)."""
    return _BIBTEX_START.match(text) is not None


def _check_braces(text: str, path: Path) -> None:
    """Report the innermost unclosed '{' (or a stray '}') with its line."""
    stack: list[int] = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        escaped = False
        for ch in line:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == "{":
                stack.append(lineno)
                if len(stack) > MAX_BRACE_DEPTH:  # the parser recurses per level: refuse before it does
                    raise InputError(path, f"BibTeX nested too deeply (more than {MAX_BRACE_DEPTH} braces open)",
                                     line=lineno)
            elif ch == "}":
                if not stack:
                    raise InputError(path, "unbalanced braces: '}' with no matching '{'", line=lineno)
                stack.pop()
    if stack:
        raise InputError(path, f"unbalanced braces: '{{' is never closed (its entry starts on line {stack[0]})",
                         line=stack[-1])


def parse_bibtex(text: str, path: Path, name: str) -> Records:
    """BibTeX entries that carry an ``abstract`` field (the others are listed in ``no_abstract``)."""
    _check_braces(text, path)
    records = Records()
    for entry in read_entries(text, path):
        abstract = (entry.get("abstract") or "").strip()
        if not abstract:
            records.no_abstract.append(entry.get("ID") or f"entry {len(records) + len(records.no_abstract) + 1}")
            continue
        obj = {
            "abstract": bib_unescape(abstract),
            "title": "" if entry.get("papersift_title") in TITLE_MARKS else bib_unescape(entry.get("title", ""), strip_braces=True),
            "authors": [_author(a) for a in re.split(r"\s+and\s+", entry.get("author", "")) if a.strip()],
            "id": entry.get("ID", ""),
            "url": entry.get("url", ""),
            "doi": entry.get("doi", ""),
            "venue": bib_unescape(entry.get("booktitle") or entry.get("journal") or entry.get("howpublished") or "",
                                  strip_braces=True),
            "year": entry.get("year", ""),
            "keywords": bib_unescape(entry.get("keywords", ""), strip_braces=True),
        }
        records.append(record_from_obj(obj, path, name, len(records) + 1, None, f"entry {entry.get('ID', '?')}"))
    return records


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
        from store.titles.derive import whole_title
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


def _author(written: str) -> str:
    """One name of an ``author`` field in reading order ("Smith, John": John Smith); a name in
    braces is one as written ("{Google, Inc.}", a body's name)."""
    braced = written.strip().startswith("{") and written.strip().endswith("}")
    name = bib_unescape(written, strip_braces=True).strip()
    return name if braced else name_in_order(name)


def citation_key(paper: Paper) -> str:
    """A key as people write them. With authors: first author's surname + paper id (stable as
    the library grows). Without: the title's first content word + the year ("diffusion2024"),
    which :func:`citation_keys` makes unique within one file."""
    if paper.authors:
        return f"{(_ascii_word(family_name(paper.authors[0])) or 'paper')[:20]}_{paper.id}"
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
    """One entry a paper: @inproceedings with its venue as the booktitle (a conference's papers,
    as reference managers and LaTeX styles expect them), @misc for one without a venue or from
    arXiv; the abstract's LaTeX as written (:func:`bib_latex`), the triage in papersift_* fields,
    which import-annotations reads back."""
    out = []
    for (paper, ann), key in zip(pairs, citation_keys([p for p, _ in pairs])):
        fields = [("title", "{" + bib_title(paper) + "}")]
        if paper.authors:
            fields.append(("author", " and ".join(bib_escape(a) for a in paper.authors)))
        proceedings = in_proceedings(paper)
        if paper.venue:
            fields.append(("booktitle" if proceedings else "howpublished", bib_escape(paper.venue)))
        if paper.year:
            fields.append(("year", paper.year))
        fields.append(("abstract", bib_latex(repair_escapes(paper.abstract))))
        labels = tags_and_keywords(ann.tags, paper.keywords, paper.area)
        if labels:
            fields.append(("keywords", bib_escape(join_keywords(labels))))
        if ann.note:
            fields.append(("note", bib_escape(ann.note, fold=False)))
        if link := web_link(paper.url):  # (a corpus from elsewhere may hold any link: only http(s) is written)
            fields.append(("url", bib_escape(link)))
        if paper.derived_title:
            fields.append(("papersift_title", title_mark(paper)))
        fields += [("papersift_id", paper.id), ("papersift_status", ann.status)]
        if ann.star:
            fields.append(("papersift_star", str(ann.star)))
        if ann.tags:  # the keywords field mixes them with the source's keywords: these alone are the tags
            fields.append(("papersift_tags", bib_escape(", ".join(ann.tags))))
        if team := team_line(ann):  # every member's marks, in a lab's library
            fields.append(("papersift_team", bib_escape(team)))
        body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields)
        out.append(f"@{'inproceedings' if proceedings else 'misc'}{{{key},\n{body}\n}}\n")
    return "\n".join(out)
