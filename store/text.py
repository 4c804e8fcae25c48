"""Text as search and dedup read it: normalization (LaTeX, markup, quotes and dashes folded) and
the tokenizer the index and the query share.

(Text shown on a terminal is made safe in :mod:`store.safe_text`; counts in messages are worded
in :mod:`store.wording`.)
"""

from __future__ import annotations

import html
import re
import unicodedata

from store.safe_text import ESCAPE_SEQUENCE, INVISIBLE_CHARS

# Words too common to search for: a result need not hold them (store.search.vocab.content_words),
# and OR does not join them (store.search.either).
STOP_WORDS = frozenset("""a an the of for to in on at by with from and or as via into onto over under
about towards toward between using use based is are be we our this that these those its it their
how what which when why can do does vs versus not no""".split())


_QUOTES = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-",
    "\u2212": "-", "\u00a0": " ",
})
_LATEX_CMD_ARG = re.compile(r"\\(?:text\w*|math\w*|emph|textbf|textit|operatorname|mbox|underline)\s*\{([^{}]*)\}")
_LATEX_CMD = re.compile(r"\\[a-zA-Z]+\*?")
_MARKUP = re.compile(r"<(?=https?:)|(?<=\S)>")
# Deleted in one str.translate pass: markup characters, control and invisible characters.
_DROP = str.maketrans("", "", "$*_`{}~^\\#" + "".join(map(chr, [*range(0, 9), *range(11, 32), *range(0x7f, 0xa0)]))
                      + INVISIBLE_CHARS)
_WS = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Canonical form of an abstract for ids and exact-duplicate detection.

    NFKC, HTML entities decoded, quotes and dashes folded, LaTeX commands and
    Markdown markup dropped (their arguments kept), case folded, control
    characters removed and white space collapsed. Re-wrapping, ``**bold**``
    versus ``$\\textbf{bold}$`` and curly versus straight quotes all normalize
    to the same string.
    """
    # Each pass runs only when the text can need it: this runs on every abstract of an import.
    if "&" in text:
        text = html.unescape(text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
        text = text.translate(_QUOTES)
    if "\x1b" in text:
        text = ESCAPE_SEQUENCE.sub("", text)
    if "\\" in text:
        text = strip_latex(text)
    if "<" in text or ">" in text:
        text = _MARKUP.sub("", text)
    text = text.translate(_DROP).casefold()
    return " ".join(text.split())


def fold_name(text: str) -> str:
    """A name for matching: case and accents dropped ("Schölkopf", "scholkopf" alike)."""
    text = text.casefold()
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def strip_latex(text: str) -> str:
    """LaTeX commands dropped, the arguments of text and font commands kept (``\\textbf{\\emph{x}}``
    -> x): for :func:`normalize` and the topic labels' phrases (``store.discovery.topic_labels``)."""
    for _ in range(3):  # nested \textbf{\emph{x}}
        new = _LATEX_CMD_ARG.sub(r"\1", text)
        if new == text:
            break
        text = new
    return _LATEX_CMD.sub(" ", text)


# After normalize() punctuation is ASCII (NFKC and the quote/dash table see to that),
# so splitting on it with str.translate + split matches \w+ tokens, several times faster.
_PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~…·•§¶°±×÷"
_PUNCT_TO_SPACE = str.maketrans({c: " " for c in _PUNCT})
_PUNCT_BUT_HYPHEN = str.maketrans({c: " " for c in _PUNCT.replace("-", "")})


def words(text: str) -> list[str]:
    """Word tokens of already-normalized text."""
    return text.translate(_PUNCT_TO_SPACE).split()


# Math that readers search for by name: normalize() drops LaTeX commands (and the index and the
# queries drop Greek letters, _without_greek), so `$\epsilon$-greedy`, `O(\sqrt{T})` and `ε-DP`
# would otherwise be unreachable from "epsilon greedy" or "sqrt regret".
_GREEK = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
          "sigma tau upsilon phi chi psi omega").split()
_MATH_NAMES = {**{g: g for g in _GREEK}, **{g.capitalize(): g for g in _GREEK},
               "varepsilon": "epsilon", "vartheta": "theta", "varphi": "phi", "varrho": "rho", "varsigma": "sigma",
               **{w: w for w in "sqrt log exp sin cos tan max min sup inf lim det infty ell nabla partial sum prod".split()}}
_GREEK_CHARS = {chr(0x3b1 + i): g for i, g in enumerate(_GREEK[:17])}  # α..ρ
_GREEK_CHARS.update({chr(0x3c3 + i): g for i, g in enumerate(_GREEK[17:])})  # σ..ω (ς skipped)
_GREEK_CHARS.update({"ϵ": "epsilon", "ϑ": "theta", "ϕ": "phi", "ς": "sigma"})
_GREEK_NAMES = frozenset(_GREEK)
_LATEX_NAME = re.compile(r"\\([A-Za-z]+)")
_GREEK_CHAR = re.compile("[" + "".join(_GREEK_CHARS) + "Α-Ω]")


def math_words(text: str) -> list[str]:
    """Names of the LaTeX math commands and Greek letters in a raw text (``\\sqrt`` -> sqrt, ε -> epsilon)."""
    found = [_MATH_NAMES[m] for m in _LATEX_NAME.findall(text) if m in _MATH_NAMES] if "\\" in text else []
    if not text.isascii():
        found += [_GREEK_CHARS.get(c) or _GREEK_CHARS[c.lower()] for c in _GREEK_CHAR.findall(text)]
    return found


def _without_greek(normalized: str) -> str:
    """A normalized text's Greek letters dropped, as :func:`normalize` drops a LaTeX letter
    (``$\\alpha$TC-VAE`` -> tc-vae): a letter is found by its name (:func:`math_words`), and the
    reader shows ``$\\alpha$`` as α, so what a reader copies finds what the papers write either way."""
    return normalized if normalized.isascii() else _GREEK_CHAR.sub("", normalized)


def _split_with_compounds(normalized: str) -> tuple[list[str], list[str]]:
    """The words of a normalized text (as :func:`words`) and its hyphenated words joined
    (``pre-trained`` -> pretrained), from one translate pass.

    Abstracts write both forms (ICML/ICLR 2024: 459 "pre-trained", 243 "pretrained"),
    and the tokenizer splits at the hyphen, so the index also holds the joined form.
    """
    text = normalized.translate(_PUNCT_BUT_HYPHEN)
    if "-" not in text:
        return text.split(), []
    found = []
    i = text.find("-")
    while i >= 0:  # str.find from hyphen to hyphen: ~5x faster than a regex over the whole text
        start = text.rfind(" ", 0, i) + 1
        end = text.find(" ", i)
        end = len(text) if end < 0 else end
        word = text[start:end]
        joined = word.replace("-", "")
        if word.strip("-").count("-") and not joined.isdigit():  # not ranges such as 3-5
            found.append(joined)
        i = text.find("-", end)
    return text.replace("-", " ").split(), found


def index_tokens(text: str, normalized: str | None = None) -> list[str]:
    """What the index holds for a text: its search tokens plus its hyphenated words joined."""
    toks, compounds = _split_with_compounds(_without_greek(normalize(text) if normalized is None else normalized))
    return toks + compounds + math_words(text)


def search_tokens(text: str) -> list[str]:
    """Tokens of a query, a tag or a note: normalized, case-folded words, then the names of
    the math in the raw text (the index holds these and more: :func:`index_tokens`)."""
    return words(_without_greek(normalize(text))) + math_words(text)


_PUNCT_BUT_JOINERS = str.maketrans({c: " " for c in _PUNCT.replace("-", "").replace("/", "")})
_DIGIT_JOIN = re.compile(r"(?<=[a-z]{2})2(?=[a-z]{2})")  # sim2real, seq2seq: "2" for "to"


def query_terms(text: str) -> list[str]:
    """The terms of a query token: its words, with a hyphenated, slashed or digit-joined word
    kept as one compound term, its parts joined by "-" (``sim-to-real``, ``sim/real`` ->
    ``sim-real``, ``sim2real`` -> ``sim-2-real``), then the names of the math in the raw text.

    A compound's parts must stand together in a paper (see ``store.search.vocab``), where
    :func:`search_tokens` would let each part match anywhere ("in-hand": every "in" and "hand").
    A Greek letter is its name (``α-divergence``: divergence, alpha), and a compound with a
    letter's name in it is its words (``epsilon-greedy``: epsilon, greedy), since the papers
    mostly write the letter in LaTeX (``$\\epsilon$-greedy``), which leaves no compound to find.
    """
    out = []
    for piece in _without_greek(normalize(text)).translate(_PUNCT_BUT_JOINERS).split():
        parts = [p for p in re.split(r"[-/]+", piece) if p]
        if len(parts) == 1 and _DIGIT_JOIN.search(parts[0]):
            parts = _DIGIT_JOIN.sub("-2-", parts[0]).split("-")
        if len(parts) > 1 and any(p in _GREEK_NAMES for p in parts) and all(p.isalpha() for p in parts):  # (not phi-3)
            out.extend(parts)
        elif parts:
            out.append("-".join(parts))
    return out + math_words(text)
