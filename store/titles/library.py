"""Titles settled across a library: no field acronym as a paper's own name, no title twice.

:func:`store.titles.derive.derive_title` reads one abstract. Two things only the whole library
shows:

- **A field's acronym.** A name that three or more abstracts of the library use (SAM,
  MCMC, OPE) belongs to the field, not to one paper, even where an abstract's wording
  makes it look introduced. Such a paper is titled again without it, unless it claims the
  name in so many words ("we introduce OpenVLA, a ...": :mod:`store.titles.claims`):
  the paper that introduces a method is the one the others cite.
- **Duplicates.** Two papers with the same title cannot be told apart in the list.
  A later paper keeps the title's start and adds the phrase of its own abstract that
  tells it apart ("… — with adaptive step sizes"); the first keeps its title.

An import settles its new papers against the titles already in the library; ``papersift
retitle`` settles the whole library.
"""

from __future__ import annotations

import zlib

import re
from collections import Counter
from itertools import islice
from typing import Iterable, Iterator

from store.escapes import repair_escapes
from store.titles.claims import claimed_names
from store.titles.text import clean_phrase
from store.titles.phrases import SENTENCE_END, verb_as_gerund
from store.titles.derive import MAX_TITLE_CHARS, derive_title, fit_title
from store.parallel import map_list

FIELD_DF = 3  # abstracts that use a name before it is the field's, not a paper's
# Runs that start with a capital; the names among them (an inner capital or digit) are what counts.
# Without a word-boundary test the scan costs half as much; the stray runs it adds ("Up" of "mixUp")
# are not names a title gives.
_CAPITALIZED = re.compile(r"[A-Z][\w-]*")
_LEADING_NAME = re.compile(r"^([A-Za-z0-9][\w+-]*)(?::\s| — |$)")
_CLAUSE = re.compile(r"[;:]\s|,\s|\s[—–]\s|—|\s\(|\)\s?")
_WORD = re.compile(r"[a-z][a-z0-9]+(?:-[a-z0-9]+)*")
_WE_SAY = re.compile(r"^(?:(?:in this|this|our) (?:paper|work|study),?\s*)?(?:we|this (?:paper|work))\s+(?:\w+ly\s+)?"
                     r"(?:propose|introduce|present|develop|design|study|investigate|consider|explore|address|"
                     r"show|demonstrate|prove|find|provide)s?\s+(?:that\s+)?", re.I)
_FILLER = frozenset("a an the of for and in on with to via by from as at is are its their our we this that be or into "
                    "using which these those it can also".split())
BASE_CHARS = 60  # a title that must add a distinguishing phrase keeps this much of itself
SETTLED_CHARS = MAX_TITLE_CHARS + 10  # a title and what tells it apart


def name_tokens(abstract: str) -> str:
    """The name-shaped words of an abstract (an inner capital or digit: SAM, GPT-4, NeRF), with a few
    other capitalized words, which no title's name matches; each once, joined by spaces. (A string,
    not a set: an import holds one per paper, and a set each cost 0.8 KB, 250 MB at 300k papers.)"""
    return " ".join({w for w in _CAPITALIZED.findall(abstract) if not w[1:].islower()})


def field_names(token_lists: Iterable[str]) -> frozenset[str]:
    """Names that FIELD_DF or more of the abstracts use (from each abstract's :func:`name_tokens`)."""
    df: Counter[str] = Counter()
    for tokens in token_lists:
        df.update(tokens.split())
    return frozenset(name for name, n in df.items() if n >= FIELD_DF)


def title_hash(title: str) -> int:
    """A title's hash, the same in every process (casefolded; two CRC-32s: 64 bits), kept for
    every paper between imports (store.ingest.dedup_cache). A collision only makes a new paper's
    title longer than it needed to be."""
    raw = title.casefold().encode("utf-8")
    return zlib.crc32(raw) | zlib.crc32(raw, 0x9E3779B9) << 32


class TakenTitles:
    """The titles a new one must not repeat, casefolded: as strings, and as :func:`title_hash`
    values (a library's, kept between imports, so its titles are not read for an import)."""

    def __init__(self, titles: Iterable[str] = (), hashes: Iterable[int] = ()) -> None:
        self._titles = {t.casefold() for t in titles}
        self._hashes = set(hashes)

    def __contains__(self, folded: object) -> bool:
        return isinstance(folded, str) and (folded in self._titles or bool(self._hashes) and title_hash(folded) in self._hashes)

    def add(self, folded: str) -> None:
        self._titles.add(folded)


def leading_name(title: str) -> str | None:
    """The name a title gives as the paper's own: "NAME: …", "NAME — …" or the name alone."""
    m = _LEADING_NAME.match(title)
    return m.group(1) if m and any(c.isupper() or c.isdigit() for c in m.group(1)[1:]) else None


def settle(abstracts: list[str], titles: list[str], fields: frozenset[str], taken: "Iterable[str] | TakenTitles" = (),
           nameless: list[str | None] | None = None) -> list[str]:
    """Derived titles settled against the library.

    Args:
        abstracts, titles: the papers' abstracts and derived titles, index by index.
        fields: the field's names (:func:`field_names` over the library's abstracts).
        taken: the titles the library's other papers have (they keep them), or a :class:`TakenTitles`.
        nameless: each title without its leading name, if the caller has them
            (:func:`store.titles.derive.derive_titles`: the title itself where the abstract claims
            the name); else derived again where needed.

    Returns:
        New titles: none leads with a field's name its abstract does not claim, none repeats a taken title or another.
    """
    out = list(titles)
    for i, title in enumerate(out):
        name = leading_name(title)
        if not name or name not in fields:
            continue
        alternative = nameless[i] if nameless is not None else None
        if alternative is not None:
            out[i] = alternative  # (the title itself when the abstract claims the name)
        elif not any(name == c[0] for c in claimed_names(repair_escapes(abstracts[i]))):
            out[i] = derive_title(abstracts[i], not_names=fields)
    seen = taken if isinstance(taken, TakenTitles) else TakenTitles(taken)
    # The titles that repeat a taken or an earlier one get their tails made first, on the cores (a
    # dump with many near-identical openings repeats a third of its titles); a title that repeats
    # one of the tails chosen has them made as it comes.
    first: dict[str, int] = {}
    repeats = [i for i, title in enumerate(out) if title.casefold() in seen or first.setdefault(title.casefold(), i) != i]
    ready = dict(zip(repeats, map_list(_first_tails, [(abstracts[i], out[i]) for i in repeats])))
    for i, title in enumerate(out):
        if title.casefold() in seen:
            out[i] = distinguished(abstracts[i], title, seen, ready.get(i))
        seen.add(out[i].casefold())
    return out


def _clauses(abstract: str) -> list[tuple[int, str]]:
    """The abstract's clauses in order, as written (position, text)."""
    parts = []
    for sentence in SENTENCE_END.split(repair_escapes(abstract)[:4000].strip())[:10]:
        parts += [part.strip() for part in _CLAUSE.split(sentence) if len(part.split()) >= 3]
    return list(enumerate(parts))


def _as_phrase(clause: str) -> str:
    """A clause as a title phrase: "we propose X" read as X."""
    said = _WE_SAY.match(clause)
    return clean_phrase(clause[said.end():] if said else clause)


_LEAD_WORDS = frozenset("our its their this these it we the a an".split())


def _fresh_start(phrase: str, have: set[str]) -> str:
    """The phrase from its first word that says something new: "our ZephyrNet adds diffusion
    sampling" after "ZephyrNet: …" reads "adding diffusion sampling" (a verb as titles write it)."""
    words = phrase.split()
    start = 0
    while start < len(words) - 1 and (words[start].lower() in _LEAD_WORDS or words[start].lower() in have):
        start += 1
    return verb_as_gerund(" ".join(words[start:]))


def _tails(abstract: str, title: str) -> tuple[str, Iterator[str]]:
    """The title's kept start and, lazily, the titles that would tell it apart, best first: with
    the clause holding the most words the title lacks and the abstract repeats (its subject),
    earliest first (see :func:`distinguished`)."""
    tf = Counter(_WORD.findall(abstract.lower()))
    have = set(_WORD.findall(title.lower()))
    repeated = {w for w, n in tf.items() if n > 1} - have - _FILLER  # (a set operation in C per clause)

    def new_words(phrase: str) -> int:
        return len(repeated.intersection(_WORD.findall(phrase.lower())))

    base = title if len(title) <= BASE_CHARS else fit_title(title, BASE_CHARS)

    def tails() -> Iterator[str]:
        room = SETTLED_CHARS - len(base) - 3
        # Ranked on the clauses as written (cheap); only the ones tried are cleaned into phrases.
        ranked = sorted(((new_words(text), at, text) for at, text in _clauses(abstract)), key=lambda c: (-c[0], c[1]))
        for count, _, text in ranked:
            if not count:
                break
            phrase = _fresh_start(_as_phrase(text), have)
            if len(phrase.split()) < 2 or not new_words(phrase):
                continue
            tail = fit_title(phrase, room)
            yield f"{base} — {tail[0].lower() + tail[1:] if tail[1:2].islower() else tail}"
    return base, tails()


def distinguished(abstract: str, title: str, seen: "set[str] | TakenTitles",
                  ready: "tuple[str, list[str], bool] | None" = None) -> str:
    """``title`` with the phrase of ``abstract`` that tells it apart: the clause with the most words
    the title lacks and the abstract repeats (its subject), earliest first; a number if none does.

    Args:
        ready: :func:`_first_tails`' answer for this abstract and title, if made beforehand.
    """
    base, first, complete = ready if ready is not None else (None, [], False)
    for candidate in first:
        if candidate.casefold() not in seen:
            return candidate
    if not complete:
        base, rest = _tails(abstract, title)
        for candidate in islice(rest, len(first), None):
            if candidate.casefold() not in seen:
                return candidate
    n = 2
    while f"{base} ({n})".casefold() in seen:
        n += 1
    return f"{base} ({n})"


FIRST_TAILS = 1  # the tails made beforehand, on the cores, for each title that repeats another


def _first_tails(pairs: list[tuple[str, str]]) -> list[tuple[str, list[str], bool]]:
    """For (abstract, title): the kept start, the first :data:`FIRST_TAILS` tails, and whether
    those are all there are (fewer were found)."""
    out = []
    for abstract, title in pairs:
        base, tails = _tails(abstract, title)
        first = list(islice(tails, FIRST_TAILS))
        out.append((base, first, len(first) < FIRST_TAILS))
    return out
