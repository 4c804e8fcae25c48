"""BibTeX values: escaping any text into one (exports) and reading one back as text (imports).

Kept together so the two stay inverses: what papersift's BibTeX export escapes,
its BibTeX import (and any other tool's BibTeX, which escapes the same way)
turns back into the characters. Well-formed inline math is left as written both
ways.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

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
    if depth or quoted or len(parts) < 2 or not all(parts):
        return value  # not a concatenation after all (a "#" inside a value written bare)
    out = []
    for part in parts:
        if len(part) >= 2 and ((part[0] == "{" and part[-1] == "}") or (part[0] == '"' and part[-1] == '"')):
            out.append(part[1:-1])
        elif part.isdigit():
            out.append(part)
        elif part.lower() in strings:
            out.append(strings[part.lower()])
        elif part.lower() in _MONTHS:
            out.append(_MONTHS[part.lower()])
        else:
            return value  # an undefined macro: kept as written, as BibTeX would warn
    return "".join(out)


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
