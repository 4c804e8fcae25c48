"""Render an abstract for the reader: LaTeX to Unicode, Markdown emphasis, links.

``$\\mathcal{O}(\\sqrt{T\\log T})$`` becomes ``𝒪(√(T log T))``; ``\\emph{x}``,
``$\\textbf{X}$``, ``**x**`` and ``*x*`` become styled text; ``4{,}672``
becomes ``4,672``; ``<https://...>`` and Markdown links are shown and
collected so the reader can open them. Control characters are removed first
(:func:`store.safe_text.display_safe`), so nothing hostile reaches the terminal.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Callable

from rich.style import Style
from rich.text import Text

from store.latex import (BOLD, ITALIC, MATH_SPAN, MD_LINK, UNDERSCORE_ITALIC, WRAPPED_MATH, latex_to_text, plain_text,
                          text_to_unicode, undouble_escapes)
from store.escapes import repair_escapes
from store.safe_text import display_safe
from store.search.forms import form_keys

if TYPE_CHECKING:
    from store import Library

_SEGMENT = re.compile(
    r"(?P<math>" + MATH_SPAN + ")"
    r"|" + BOLD.replace(r"\*\*(", r"\*\*(?P<bold>", 1) + r"|__(?P<bold2>[^_\n]+?)__"
    r"|\\(?:textbf|mathbf)\{(?P<bold3>[^{}]*)\}"
    r"|\\(?:emph|textit|mathit)\{(?P<it3>[^{}]*)\}"
    r"|" + ITALIC.replace("*([", "*(?P<it>[", 1) + "|" + UNDERSCORE_ITALIC.replace("_([", "_(?P<it2>[", 1) +
    r"|(?<!`)(?P<tick>``?)(?P<code>[^`'\"\n]+)(?P=tick)(?!`)"  # `code`, ``code``; not TeX's `quotes' or ``quotes''"
    r"|" + MD_LINK.replace(r"\[(", r"\[(?P<ltext>", 1).replace(r"\((", r"\((?P<lurl>", 1) +
    r"|\\href\{(?P<hurl>https?://[^{}\s]+)\}(?:\{(?P<htext>[^{}]*)\})?|\\url\{(?P<uurl>https?://[^{}\s]+)\}"
    r"|<(?P<aurl>https?://[^>\s]+)>|\{(?P<burl>https?://[^{}\s]+)\}"
    r"|(?P<url>https?://[^\s<>)\]*{}]+[^\s<>)\].,;:*{}])"  # not Markdown's ** or TeX's braces around it
)
_ITALIC = re.compile(f"{ITALIC}|{UNDERSCORE_ITALIC}")  # inside bold: "**_perception_**" too
_FOOTNOTE = re.compile(r"\\footnote\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}")  # two levels of braces inside
_SPACES = re.compile(r"(?<=\S)[ \t]{2,}(?=\S)")
LINK_STYLE = "underline"
_WORD = re.compile(r"\w+")


def highlight_words(text: Text, matched: set[str], style: Style) -> Text:
    """Style every word of ``text`` that the search matched (``matched`` holds casefolded words),
    and every run of words it matched as one ("large language models", an acronym's expansion,
    "sim to real", a compound's parts: in any of their forms, only where they stand together, so
    that "learning" is not lit all over an abstract for RLHF)."""
    if not matched:
        return text
    words = list(_WORD.finditer(text.plain))
    for m in words:
        if m.group().casefold() in matched:
            text.stylize(style, m.start(), m.end())
    runs = [_run_keys(run) for run in matched if " " in run]
    if runs and words:
        keys = form_keys([m.group().casefold() for m in words])
        for run in runs:
            for i in range(len(keys) - len(run) + 1):
                if keys[i] == run[0] and tuple(keys[i:i + len(run)]) == run:
                    text.stylize(style, words[i].start(), words[i + len(run) - 1].end())
    return text


@lru_cache(maxsize=256)
def _run_keys(run: str) -> tuple[str, ...]:
    """A matched run's words as form keys (asked again for every row and paper drawn)."""
    return tuple(form_keys(run.split()))


def numbered_links(abstract_links: list[str], url: str) -> list[str]:
    """The links a paper's reader (and ``show``) number: the abstract's, then the paper's own
    address when the abstract does not hold it; a note's are numbered after (render_abstract)."""
    return abstract_links + ([url] if url and url not in abstract_links else [])


def render_abstract(abstract: str, links: list[str] | None = None) -> tuple[Text, list[str]]:
    """The abstract as styled Rich text, and the links it contains (in order). ``links``: the
    links shown above it, which its own continue; the list returned is that list, extended."""
    # Runs of spaces inside a line as one (299 of ICML's and ICLR's 4,870 abstracts hold some:
    # "by  Wiener-Khinchin"), as plain-text output has them; a line's indentation is kept.
    text = _SPACES.sub(" ", undouble_escapes(display_safe(repair_escapes(abstract))))
    if "\\footnote" in text:  # in brackets, as plain text has it, before math or a link splits it
        text = _FOOTNOTE.sub(r"[\1]", text)
    return _styled(text, links, text_to_unicode)


def render_note(note: str, links: list[str] | None = None) -> tuple[Text, list[str]]:
    """A person's note as :func:`render_abstract` shows an abstract, but for the text between its
    math, emphasis and links, which is shown as typed: a brace, a backslash or a run of spaces is
    the person's own (an abstract's LaTeX outside math, ``\\emph{x}``, is the source's markup)."""
    return _styled(display_safe(note), links, str)


def _styled(text: str, links: list[str] | None, plain: Callable[[str], str]) -> tuple[Text, list[str]]:
    """``text``'s math, emphasis, code and links styled; ``plain`` makes the text between them."""
    out = Text()
    links = [] if links is None else links
    pos = 0
    for m in _SEGMENT.finditer(text):
        if m.start() > pos:
            out.append(plain(text[pos:m.start()]))
        pos = m.end()
        g = m.groupdict()
        if g["math"]:
            _math(out, g["math"])
        elif g["bold"]:
            _bold(out, g["bold"])
        elif g["bold2"] or g["bold3"] is not None:
            out.append(_emphasised(g["bold2"] or g["bold3"] or ""), style="bold")
        elif g["it"] or g["it2"] or g["it3"] is not None:
            out.append(_emphasised(g["it"] or g["it2"] or g["it3"] or ""), style="italic")
        elif g["code"]:
            out.append(g["code"], style="reverse")
        else:
            _link(out, g, links)
    if pos < len(text):
        out.append(plain(text[pos:]))
    return out, links


def _math(out: Text, math: str) -> None:
    """``$...$``: a wrapped command's text in its style (\\textbf bold), else the math as Unicode, italic."""
    wrapped = WRAPPED_MATH.match(math)
    if wrapped:
        style = "bold" if wrapped.group(1) in ("textbf", "mathbf", "boldsymbol") else "italic"
        out.append(latex_to_text(wrapped.group(2)), style=style)
    else:
        out.append(latex_to_text(math.strip("$"), math=True), style="italic")


def _bold(out: Text, bold: str) -> None:
    """``**...**``, the italics inside it bold italic."""
    at = 0
    for inner in _ITALIC.finditer(bold):
        out.append(_emphasised(bold[at:inner.start()]), style="bold")
        out.append(_emphasised(inner.group(1) or inner.group(2)), style="bold italic")
        at = inner.end()
    out.append(_emphasised(bold[at:]), style="bold")


def _link(out: Text, g: dict[str, str | None], links: list[str]) -> None:
    """A link (Markdown, HTML, LaTeX \\url or a bare address): underlined, numbered when it has a label."""
    url = g["lurl"] or g["hurl"] or g["uurl"] or g["aurl"] or g["burl"] or g["url"] or ""
    links.append(url)
    text_label = g["ltext"] or (g["htext"] if g["htext"] and g["htext"] != url else None)
    label = text_to_unicode(text_label) if text_label else url
    out.append(f"{label} [{len(links)}]" if text_label else label, style=Style(underline=True, link=url))


def _emphasised(segment: str) -> str:
    """The inside of **bold** or _italic_, which may hold math ("**FUSH$^2$**")."""
    return " ".join(plain_text(segment).split()) if "$" in segment else text_to_unicode(segment)


@lru_cache(maxsize=4096)  # the list renders the visible rows' titles on every repaint
def plain_title(title: str) -> str:
    """A title as one line of plain, display-safe Unicode (real titles carry LaTeX too:
    ``Breaking the $\\mathcal{O}(\\sqrt{T})$ Barrier`` -> ``Breaking the 𝒪(√(T)) Barrier``)."""
    return " ".join(plain_text(title).split())  # (plain_text makes it display-safe)


def one_paper_said(library: Library, pids: list[str]) -> str:
    """" · ID Title" for the one paper a change touched, as history, undo and redo say it ('' for
    several: the change's label counts them)."""
    if len(pids) != 1:
        return ""
    idx = library.corpus.index_of(pids[0])
    if idx is None:
        return f" · {pids[0]} (no longer in the library)"
    title = plain_title(library.corpus.papers[idx].title)
    return f" · {pids[0]} {title[:70] + '…' if len(title) > 70 else title}"


def like_names(library: Library, ids: list[str]) -> str:
    """The marked papers a recommendation is like, each as what it is: ``★ TraceML`` (starred),
    ``→ ScrapeBench`` (to-read, no star), ``✓ DiffPO`` (read), ``# Dual RL`` (tagged only);
    papers since removed left out."""
    names = []
    for pid in ids:
        if library.corpus.index_of(pid) is None:
            continue
        ann = library.annotation(pid)
        mark = ("★ " if ann.star else "→ " if ann.status == "to-read" else "✓ " if ann.status == "read"
                else "# " if ann.tags else "")
        names.append(mark + display_safe(short_title(library.paper(pid).title), False))
    return ", ".join(names)


def note_start(note: str, most: int = 80) -> str:
    """A colleague's note on one line (the reader's and ``show``'s team line), at most ``most``
    characters: a longer one is cut after a whole word and ends in "…" (``show --format json``
    gives it whole)."""
    note = " ".join(note.split())
    if len(note) <= most:
        return note
    cut = note[:most - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > most // 2 else cut) + "…"


def short_title(title: str, words: int = 4) -> str:
    """A title as a reader refers to it: its name before a colon ("TraceML"), else its first words."""
    plain = plain_title(title)
    head, sep, _ = plain.partition(":")
    if sep and 0 < len(head.split()) <= 3:
        return head
    parts = plain.split()
    return " ".join(parts[:words]) + ("…" if len(parts) > words else "")
