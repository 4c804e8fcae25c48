"""What an acronym an abstract introduces stands for: its long form written before it ("Long Form
(NAME)", by Schwartz & Hearst's rule, or by its initials), or after it in parentheses or
apposition ("ERP, Entropy-Reinforced Planning, ...") — for a derived title's gloss.
"""

from __future__ import annotations

import re

from store.titles.text import clean_phrase

_MATH = re.compile(r"\$[^$]*\$?")
_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")


def _short_form(name: str) -> str:
    """The letters and digits of a name, without LaTeX ("EMC$^2$" -> "EMC")."""
    return _NOT_ALNUM.sub("", _MATH.sub("", name))


def _long_form(short: str, text: str) -> str | None:
    """Schwartz & Hearst (2003), "A simple algorithm for identifying abbreviation
    definitions in biomedical text": the shortest ending of ``text`` that holds
    the short form's characters in order (read backwards), its first character
    at the start of a word. None if there is none."""
    s, i = len(short) - 1, len(text) - 1
    while s >= 0:
        c = short[s].lower()
        while i >= 0 and (text[i].lower() != c or (s == 0 and i > 0 and text[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return None
        i -= 1
        s -= 1
    return text[text.rfind(" ", 0, i + 1) + 1:]


def _acronym_like(short: str) -> bool:
    return 2 <= len(short) <= 10 and sum(c.isupper() for c in short) >= 2


def _defined_before(name: str, before: str) -> str | None:
    """The long form in "Long Form (NAME)", given the text up to the parenthesis:
    searched in the last few words (Schwartz & Hearst's limit: min(|NAME| + 5, 2|NAME|))."""
    short = _short_form(name)
    if not _acronym_like(short):
        return None
    words = before.split()[-min(len(short) + 5, 2 * len(short)):]
    return _long_form(short, " ".join(words)) or _initials_form(_REPEATED.sub(_repeat, short), words)


# "M3C" for "Minorize-Maximization Matching and Clustering": a digit repeats the letter before it.
_REPEATED = re.compile(r"([A-Za-z])([2-4])(?![0-9])")


def _repeat(m: re.Match[str]) -> str:
    return m.group(1) * int(m.group(2))


def _initials_form(letters: str, words: list[str]) -> str | None:
    """The shortest ending of ``words`` whose initials (hyphenated parts count as words) hold
    ``letters`` in order, starting with the first: "A2PR" is "Adaptive Advantage-guided Policy
    Regularization", not the "Advantage-guided ..." that a letter inside a word would allow."""
    for start in range(len(words) - 1, -1, -1):
        initials = [p[:1].lower() for w in words[start:] for p in w.split("-") if p]
        if not initials or initials[0] != letters[0].lower():
            continue
        it = iter(initials)
        if all(c.lower() in it for c in letters):
            return " ".join(words[start:])
    return None


_CAPITALIZED_RUN = re.compile(r"(?<![\w-])((?:[A-Z][\w-]*\s+){1,5}[A-Z][\w-]*)$")
_OPEN_PAREN = re.compile(r"\([*\\{}$\s]*(?:textbf\{|textsc\{|mathrm\{|text\{|emph\{)?$")
_CLOSE_PAREN = re.compile(r"[}*$\s]*\)")
_PAREN_AFTER = re.compile(r"[}*$\s]*\(([^()]{5,120})\)")
_COMMA_AFTER = re.compile(r"[}*$\s]*,\s+([A-Z][^,.;()]{4,120})")  # "ERP, Entropy-Reinforced Planning, ..."


def expansion(abstract: str, name: str) -> str:
    """What an acronym-like name stands for, where the abstract defines it:
    "Long Form (NAME)" or "NAME (Long Form)"; "" if it does not."""
    short = _short_form(name)
    if not _acronym_like(short):
        return ""
    start = abstract.find(name, 0, 3000)
    while start >= 0:
        end = start + len(name)
        before = abstract[max(0, start - 160):start]
        opened = _OPEN_PAREN.search(before)
        if opened and _CLOSE_PAREN.match(abstract, end, end + 8):
            text = clean_phrase(before[:opened.start()])
            long = _defined_before(name, text)
            if not long:  # "Cross-Risk Minimization (XRM)": words in capitals, whatever their letters
                run = _CAPITALIZED_RUN.search(text)
                long = run.group(1) if run else None
            if long and len(long.split()) >= 2:
                return long.lstrip("'\"“‘")  # 'Prolongation Upsampling Tensor Train (PuTT)'
        after = _PAREN_AFTER.match(abstract, end, end + 130) or _COMMA_AFTER.match(abstract, end, end + 130)
        start = abstract.find(name, end, 3000)
        if after:
            inner = clean_phrase(after.group(1)).strip("“”\"")  # SDS (``See it, Do it, Sorted'')
            if inner[:1].lower() == short[0].lower() and len(inner.split()) >= 2 and _long_form(short, inner) == inner:
                return inner
    return ""


# A name is the paper's own when the abstract presents it so: "we propose NAME", "we introduce Long
# Form (NAME)", "a method called NAME", "**NAME**", "NAME, a framework ..." in a sentence of ours.
# "Sharpness-Aware Minimization (SAM) is a popular method" or "we modify one step of GD" use a
# field's name: SAM had titled seven papers of one conference.
