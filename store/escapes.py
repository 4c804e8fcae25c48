"""Repair LaTeX whose backslash a JSON escape ate on the way into a dump, and HTML entities.

A dump written from JSON without decoding it properly reads ``\\textit{`` as a TAB
followed by ``extit{``, ``\\nabla`` as a newline followed by ``abla``, ``\\frac`` as a
form feed followed by ``rac{``: the backslash and the command's first letter became
one control character. The reader then showed "a extitlifelong model" and "imes".

:func:`repair_escapes` puts the command back where the pattern is unambiguous: the
control character is directly followed by the rest of a known command and then by
something that cannot continue a word. Remainders that are English words or
fragments ("o" of ``\\to``, "au" of ``\\tau``) are repaired only inside math or before
a brace, so a real tab before "or" stays a tab. The stored abstract keeps what came
in; every view (reader, plain text, titles, exports) reads it through this.
"""

from __future__ import annotations

import html
import re

# The control character a JSON escape makes of "\" + letter.
_EATEN = {"\t": "t", "\n": "n", "\r": "r", "\b": "b", "\f": "f", "\v": "v", "\a": "a"}

# Rests of commands that no English word starts a line or follows a tab with: repaired anywhere.
_ANYWHERE = {
    "t": "extit extbf exttt extsc extrm extsf extnormal extup extsl imes heta riangle ilde",
    "n": "abla ewline onumber oindent otin ewcommand",
    "r": "ightarrow ho angle ceil floor",
    "b": "oldsymbol egin eta inom ullet igl igr mathbf",
    "f": "rac orall ootnote",
    "v": "arepsilon artheta arphi arrho dots",
    "a": "lpha pprox",
}
# Short rests that are also words or word starts: repaired only in math or before "{".
_IN_MATH = {
    "t": "o op au ext t",
    "n": "e i u ot eg eq",
    "r": "m ight",
    "b": "ar ig f m ot",
    "f": "lat",
    "v": "ec ee ert",
    "a": "st rg ngle",
}


def _pattern(table: dict[str, str]) -> dict[str, re.Pattern[str]]:
    return {ch: re.compile("(" + "|".join(sorted(table[letter].split(), key=len, reverse=True)) + r")(?![A-Za-z])")
            for ch, letter in _EATEN.items()}


_ANYWHERE_RE = _pattern(_ANYWHERE)
_IN_MATH_RE = _pattern(_IN_MATH)
_CANDIDATE = re.compile("[\t\n\r\b\f\v\a](?=[a-z])")


def _in_math(text: str, at: int) -> bool:
    """Whether ``at`` lies inside a ``$...$`` span (an odd count of unescaped dollars before it)."""
    dollars = len(re.findall(r"(?<!\\)\$", text[:at]))
    return dollars % 2 == 1


# An HTML entity whole (named, with its semicolon, or a number): a dump scraped from a web page
# carries "ubiquitous&mdash;80%"; "&" alone (LaTeX's column mark, "R&D") and "&notation" stay.
_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")


def _entities_decoded(text: str) -> str:
    return _ENTITY.sub(lambda m: html.unescape(m.group()), text) if "&" in text and ";" in text else text


def repair_escapes(text: str) -> str:
    """``text`` with each unambiguous eaten backslash put back (see the module docstring), and its
    HTML entities as the characters they stand for (``&mdash;`` a dash, as the dedup reads it)."""
    text = _entities_decoded(text)
    # (seven substring tests: ~20x cheaper than the pattern's scan, and almost no text has one)
    if not ("\t" in text or "\n" in text or "\r" in text or "\b" in text or "\f" in text or "\v" in text
            or "\a" in text) or not _CANDIDATE.search(text):
        return text
    out: list[str] = []
    last = 0
    for m in _CANDIDATE.finditer(text):
        ch, at = m.group(), m.end()
        rest = _ANYWHERE_RE[ch].match(text, at)
        if rest is None:
            short = _IN_MATH_RE[ch].match(text, at)
            if short and (text.startswith("{", short.end()) or _in_math(text, m.start())):
                rest = short
        if rest is None:
            continue
        out.append(text[last:m.start()])
        out.append("\\" + _EATEN[ch])
        last = at
    out.append(text[last:])
    return "".join(out)
