"""A phrase of an abstract as title text: math as Unicode, markup and emphasis dropped, TeX's
quotes and dashes as the reader shows them, spaces folded; and a phrase cut to a number of words.

Every title rule (:mod:`store.titles.derive` and the ``title_*`` modules) hands its phrase through
these.
"""

from __future__ import annotations

import re
from functools import lru_cache

from store.latex import plain_text

# Patterns are compiled once here: re's own cache lookups cost more than the matching on short texts.
_TEXT_CMD = re.compile(r"\\text\w*\{([^{}]*)\}|\\emph\{([^{}]*)\}")
_MARKUP = re.compile(r"[*$_`{}]")  # braces too: "{E}fficient {M}arkov" -> "Efficient Markov"
# A command outside math: a paper's own macro reads as its name, as the reader shows it ("we
# introduce \foldflow, a model": foldflow); TeX's abbreviations as words; markup and references
# dropped.
_COMMAND = re.compile(r"\\([a-zA-Z]+)")
_COMMAND_WORDS = {"eg": "e.g.", "ie": "i.e.", "etal": "et al.", "etc": "etc.", "vs": "vs."}
_COMMAND_DROPPED = frozenset("cite citep citet citealp ref eqref autoref cref label footnote url href vspace hspace "
                             "noindent newline linebreak par bf it em rm tt sc sf small large Large centering item "
                             "emph".split())
_TEX_QUOTES = re.compile(r"(?:``|'')([^`'\n]{1,80}?)''")
_TEX_SINGLE = re.compile(r"(?<!`)`([^`'\n]{1,80}?)'(?!')")
_EMPTY_PARENS = re.compile(r"\(\s*\)")  # a parenthesis emptied by taking the name out of it
INLINE_MATH = re.compile(r"\$([^$]{1,120})\$")
_PLAIN_SPAN = re.compile(r"\$\s*[A-Za-z0-9]+\s*\$")
CLAUSE_END = re.compile(r"[,.;]")
_MATH_STAR = "\ue000"  # a math span's "*" while emphasis is dropped (a private-use character no text holds)


def _math_as_text(m: re.Match[str]) -> str:
    """One ``$...$`` span as Unicode ("$\\alpha$-tasks" -> "α-tasks", not "-tasks"), keeping the
    spaces at its edges: a span may be a misread pair ("$\\textit{$\\underline{G}$raph $...").
    """
    inner = m.group(1)
    # (a star in math is kept, as the reader shows it: the markup rule below takes "*" for emphasis,
    # and $C^*$ read "C^"; it stands in as _MATH_STAR until then)
    return inner[:len(inner) - len(inner.lstrip())] + _span_text(m.group()).replace("*", _MATH_STAR) + inner[len(inner.rstrip()):]


@lru_cache(maxsize=4096)
def _span_text(span: str) -> str:
    # Imports derive thousands of titles; "$k$" needs no LaTeX converter, and spans repeat.
    return span.strip("$ ") if _PLAIN_SPAN.fullmatch(span) else plain_text(span)


def clean_phrase(text: str) -> str:
    """A phrase of an abstract as title text: math as Unicode, markup and emphasis dropped, spaces folded."""
    if "`" in text or "''" in text:  # ``domains'' -> “domains”, `upsampling' -> ‘upsampling’ (the markup
        text = _TEX_SINGLE.sub(r"‘\1’", _TEX_QUOTES.sub(r"“\1”", text))  # below drops a backtick)
    # (each rule only where its first character is: a title is made of a few phrases of every abstract)
    if "$" in text:
        text = INLINE_MATH.sub(_math_as_text, text)
    if "\\" in text:
        text = _TEXT_CMD.sub(lambda m: m.group(1) or m.group(2) or "", text)
    if "\\" in text:  # (in math left as written, a command is a symbol: dropped)
        text = _COMMAND.sub("" if "$" in text else _command_as_text, text)
    text = _MARKUP.sub("", text)
    if _MATH_STAR in text:
        text = text.replace(_MATH_STAR, "*")
    if "(" in text:
        text = _EMPTY_PARENS.sub("", text)
    text = text.replace("---", "—").replace("--", "–")  # TeX's dashes, as the reader shows them
    return " ".join(text.split()).strip(" ,;:.").lstrip(")] –—")  # (str.split splits where \s matches)


def _command_as_text(m: re.Match[str]) -> str:
    name = m.group(1)
    return "" if name in _COMMAND_DROPPED or name.startswith(("text", "math")) else _COMMAND_WORDS.get(name, name)


def trim_words(text: str, max_words: int) -> str:
    """At most ``max_words`` words (… marks a cut), never ending inside an unclosed parenthesis."""
    parts = text.split()
    cut = len(parts) > max_words
    text = " ".join(parts[:max_words])
    if text.count("(") > text.count(")"):
        shorter = text[:text.rfind("(")].rstrip(" ,;:–—-")
        if len(shorter.split()) >= 2:
            text, cut = shorter, True
    return text + "…" if cut else text
