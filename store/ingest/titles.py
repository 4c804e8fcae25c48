"""Derive a display title for an abstract that came without one.

Dumps carry no titles. The most useful short handle for a paper is the name of
the method, model or benchmark it introduces ("We propose **EverAnimate**, an
efficient post-training method ..." -> "EverAnimate: an efficient
post-training method ..."), when the abstract presents the name as its own
(see :func:`store.ingest.title_names.own_name`: "Sharpness-Aware Minimization (SAM) is a popular method"
defines the field's name, not the paper's). An acronym's own long form is the
best gloss, since real titles are so often "NAME: Long Form ..." ("Evolving
Subnetwork Training (EST)" -> "EST: Evolving Subnetwork Training"). Without a
name, the contribution ("we propose a simple method for X" -> "A simple method
for X"), else the question the abstract asks ("Is DPO truly superior to PPO?"),
else the first clause of the first sentence; but an abstract that opens on
background and says later what it studies ("This work explores how to X", "we
tackle these challenges through X") is titled by that. The phrase is then fitted
to a list row as a whole phrase (:func:`fit_title`). A real title always wins.

:mod:`store.ingest.title_names` finds the name, :mod:`store.ingest.title_phrases` the phrases
this module chooses among; :mod:`store.ingest.title_library` settles titles across a library (a
field's acronym, duplicates). ``benchmarks/title_quality.py`` measures them; ``store.versions.TITLE_RULES``
numbers the rules (bump it with any change: a test pins the titles to it).
"""

from __future__ import annotations

import re

from store.escapes import repair_escapes
from store.ingest.title_phrases import (WHOLE_TITLE_WORDS, capitalized, contribution, first_clause, focus_of, gerund,
                                        informative, intro_phrase, phrase_after, phrase_before, purpose_after,
                                        question_of, what_it_does)
from store.ingest.title_names import (INTRO, clean_phrase, expansion, find_name, own_name,
                                      trim_words)

MAX_TITLE_CHARS = 90  # a list row's title: the longest complete phrase that fits (see fit_title)
WHOLE_SLACK = 6  # a whole phrase a few characters longer is kept whole rather than cut


_DANGLING = frozenset("a an the of in on at to for with by from as and or but that which whose where when "
                      "such than into onto via".split())


def _without_dangling(text: str) -> str:
    """``text`` without the words at its end that lead into something ("a method for", "X of the")."""
    words = text.split()
    kept = len(words)
    while kept > 1 and words[kept - 1].lower() in _DANGLING and not words[kept - 2].endswith(":"):
        kept -= 1
    return " ".join(words[:kept]).rstrip(" ,;:–—-")


def _tidy_end(title: str) -> str:
    """No title ends on a word that leads into what was cut away ("LESS: a simple integration of a",
    where a parenthesis followed; "A scheduling strategy that", where a comma did): such words
    go, and "…" says something did."""
    kept = _without_dangling(title.rstrip("…"))
    return title if len(kept.split()) == len(title.rstrip("…").split()) else kept + "…"


def whole_title(abstract: str) -> str:
    """:func:`derive_title` before it is fitted to a list row: the whole phrase (up to
    WHOLE_TITLE_WORDS words), for a bibliography."""
    return _tidy_end(gerund(_derive(repair_escapes(abstract)))).rstrip("…").rstrip(" ,;:–—-")


def derive_title(abstract: str, not_names: frozenset[str] = frozenset()) -> str:
    """A short display title for an abstract that came without one.

    Args:
        abstract: the abstract as read.
        not_names: names the library uses too widely to be this paper's own (a field's
            acronym: see :mod:`store.ingest.title_library`); the abstract is titled without them.

    Returns:
        "Name: what it is" when the abstract introduces a named method or
        benchmark as its own (what it is: the acronym's long form, the apposition after
        the name, or what the "we propose" clause says of it); without a name, what the
        paper studies, the contribution clause, the question it asks, or else
        the first clause. The longest complete phrase of it within MAX_TITLE_CHARS
        characters (see :func:`fit_title`). Never empty.
    """
    return fit_title(_tidy_end(gerund(_derive(repair_escapes(abstract), not_names))))


def derive_titles(abstract: str) -> tuple[str, str | None]:
    """:func:`derive_title`, and the title the abstract would get without the name that leads it
    (None when no name leads): what a library falls back on when the name turns out to be the
    field's (store.ingest.title_library). One pass: the second costs a few clauses, not a derivation."""
    named, nameless = _derive_both(repair_escapes(abstract))
    title = fit_title(_tidy_end(gerund(named)))
    return title, fit_title(_tidy_end(gerund(nameless))) if nameless is not None else None


# Where a phrase may end: before a clause ("that", "which", a comma) or a phrase that qualifies what
# came before ("for X", "with Y", "in Z"). Before "of", "on" or "to" the words complete the one before
# ("rests on", "the compliance of"): a phrase ends there only when no other place leaves half a title.
_CUT_AT = re.compile(r",\s|;\s|\s[—–]\s|\s(?=(?:by|with|for|in|via|using|through|that|which|and|from|under|"
                     r"across|without|where|while|whose|beyond|towards?)\s)")
_CUT_LATE = re.compile(r"\s(?=(?:of|on|to|at|into|over|as|between|among|against)\s)")


def fit_title(title: str, limit: int = MAX_TITLE_CHARS) -> str:
    """The longest complete phrase of ``title`` within ``limit`` characters: cut where a clause or
    a phrase starts ("X for Y in Z" -> "X for Y"), never inside parentheses nor before the third word.
    "…" only when no such place fits (a 90-character run without one)."""
    title = title.rstrip("…").strip(" ,;:")
    if len(title) <= limit + WHOLE_SLACK:
        return title

    def places(pattern: re.Pattern[str]) -> list[int]:
        return [m.start() for m in pattern.finditer(title) if m.start() <= limit
                and len(title[:m.start()].split()) >= 3 and title.count("(", 0, m.start()) == title.count(")", 0, m.start())]

    cuts = places(_CUT_AT)
    if not cuts or cuts[-1] < limit // 2:
        cuts = sorted(cuts + [at for at in places(_CUT_LATE) if at >= limit // 2])
    if cuts:
        return _without_dangling(title[:cuts[-1]])
    return _without_dangling(title[:title.rfind(" ", 0, limit)]) + "…"


def _derive(abstract: str, not_names: frozenset[str] = frozenset()) -> str:
    """:func:`derive_title`'s choice, before its end is tidied."""
    return _derive_both(abstract, not_names)[0]


def _derive_both(abstract: str, not_names: frozenset[str] = frozenset()) -> tuple[str, str | None]:
    """The choice, and (when it is titled by a name) the title the abstract gets without that name."""
    intros = list(INTRO.finditer(abstract))
    found = find_name(abstract, intros)
    long = expansion(abstract, found[0]) if found and found[0] not in not_names else ""
    if found and (found[0] in not_names or not own_name(abstract, *found, intros, long)):
        found = None
    focus = focus_of(abstract, [m for m in intros if not m.group().startswith(("and", "then"))])
    nameless = capitalized(focus) if focus else (
        contribution(abstract, intros) or question_of(abstract) or first_clause(abstract)
        or trim_words(clean_phrase(abstract), WHOLE_TITLE_WORDS) or "(empty abstract)")
    if not found:
        return nameless, None
    name, end = found
    return _named(abstract, name, end, long, focus, intros), nameless


def _named(abstract: str, name: str, end: int, long: str, focus: str, intros: list[re.Match[str]]) -> str:
    """The title of an abstract that presents ``name`` as its own: the name and what it is."""
    if long:
        return f"{name}: {trim_words(long, WHOLE_TITLE_WORDS - 1)}"
    if focus:  # "This paper studies the use of NAME for X" names it already, if not cut away
        titled = capitalized(focus)
        return titled if name in titled else f"{name}: {trim_words(focus, WHOLE_TITLE_WORDS - 1)}"
    for phrase in (phrase_after(abstract, end), intro_phrase(name, intros)):
        if informative(phrase):
            return f"{name}: {trim_words(phrase, WHOLE_TITLE_WORDS - 1)}"
    phrase = (phrase_before(abstract, name, end) or purpose_after(abstract, name, end)
              or what_it_does(abstract, name, end))
    if phrase:
        return phrase
    clause = first_clause(abstract)
    if len(clause.replace(name, "").split()) < 4:  # not "SparseTSF — This paper introduces SparseTSF"
        return name
    return f"{name} — {trim_words(clause, WHOLE_TITLE_WORDS - 1)}"


