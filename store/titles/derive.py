"""Derive a display title for an abstract that came without one.

Dumps carry no titles. The most useful short handle for a paper is the name of
the method, model or benchmark it introduces ("We propose **EverAnimate**, an
efficient post-training method ..." -> "EverAnimate: an efficient
post-training method ..."), when the abstract presents the name as its own
(see :func:`store.titles.names.own_name`: "Sharpness-Aware Minimization (SAM) is a popular method"
defines the field's name, not the paper's). An acronym's own long form is the
best gloss, since real titles are so often "NAME: Long Form ..." ("Evolving
Subnetwork Training (EST)" -> "EST: Evolving Subnetwork Training"). Without a
name, the contribution ("we propose a simple method for X" -> "A simple method
for X"), else the question the abstract asks ("Is DPO truly superior to PPO?"),
else the first clause of the first sentence; but an abstract that opens on
background and says later what it studies ("This work explores how to X", "we
tackle these challenges through X") is titled by that. The phrase is then fitted
to a list row as a whole phrase (:func:`fit_title`). A real title always wins.

:mod:`store.titles.names` and :mod:`store.titles.claims` find the name,
:mod:`store.titles.glosses` what the abstract says it is, :mod:`store.titles.phrases` and
:mod:`store.titles.contribution` the phrases of a paper titled without one, :mod:`store.titles.ends` how
a title ends; :mod:`store.titles.library` settles titles across a library (a
field's acronym, duplicates). ``benchmarks/title_quality.py`` measures them; ``store.versions.TITLE_RULES``
numbers the rules (bump it with any change: a test pins the titles to it).
"""

from __future__ import annotations

import re

from store.escapes import repair_escapes
from store.safe_text import ESCAPE_SEQUENCE
from store.titles.kinds import EXCERPT_START
from store.titles.claims import claimable, claimed_names
from store.titles.contribution import contribution_object, own_sentence_object
from store.titles.glosses import phrase_after, phrase_before, purpose_after, purpose_before, what_it_does
from store.titles.expansion import expansion
from store.titles.names import INTRO, find_name, own_name
from store.titles.ends import (DANGLING, balanced, complete, lone_adjective,
                                     noun_end, through_adjectives, tidy_end, without_dangling)
from store.titles.text import clean_phrase, trim_words
from store.titles.phrases import (ANAPHORA, SENTENCE_END, WHOLE_TITLE_WORDS, capitalized,
                                        contribution, first_clause, focus_of, gerund, informative, intro_phrase,
                                        question_of, verb_as_gerund)

MAX_TITLE_CHARS = 90  # a list row's title: the longest complete phrase that fits (see fit_title)
WHOLE_SLACK = 6  # a whole phrase a few characters longer is kept whole rather than cut


def whole_title(abstract: str) -> str:
    """:func:`derive_title` before it is fitted to a list row: the whole phrase (up to
    WHOLE_TITLE_WORDS words), for a bibliography."""
    return tidy_end(balanced(gerund(_derive(_readable(abstract))))).rstrip("…").rstrip(" ,;:–—-")


def _readable(abstract: str) -> str:
    """The abstract as the reader reads it: its eaten backslashes put back, and no terminal escape
    sequence (dropped whole: its tail "[41m" was read as words, "41mBadName: 0m")."""
    return repair_escapes(ESCAPE_SEQUENCE.sub("", abstract) if "\x1b" in abstract else abstract)


def derive_title(abstract: str, not_names: frozenset[str] = frozenset()) -> str:
    """A short display title for an abstract that came without one.

    Args:
        abstract: the abstract as read.
        not_names: names the library uses too widely to be this paper's own (a field's
            acronym: see :mod:`store.titles.library`); the abstract is titled without them.

    Returns:
        "Name: what it is" when the abstract introduces a named method or
        benchmark as its own (what it is: the acronym's long form, the apposition after
        the name, or what the "we propose" clause says of it); without a name, what the
        paper studies, the contribution clause, the question it asks, or else
        the first clause. The longest complete phrase of it within MAX_TITLE_CHARS
        characters (see :func:`fit_title`). Never empty.
    """
    return derive_titles(abstract, not_names)[0]


def derive_titles(abstract: str, not_names: frozenset[str] = frozenset()) -> tuple[str, str | None]:
    """:func:`derive_title`, and the title the abstract would get without the name that leads it
    (None when no name leads; the title itself when the abstract claims the name, which no library
    takes away): what a library falls back on when the name turns out to be the field's
    (store.titles.library). One pass: the second costs a few clauses, not a derivation."""
    text = _readable(abstract)
    named, nameless, claimed = _derive_both(text, not_names)
    title = _fitted(named)
    if _GENERIC_GLOSS.match(title):  # (fitted down to "NAME: a novel approach": what it does, shorter)
        title = _fitted(_extended(text, title, title.partition(": ")[0]))
    if EXCERPT_START.match(title):  # no rule found a phrase: said honestly (store.titles.kinds)
        return excerpt(text), None
    if nameless is not None and " " not in title and not claimable(title) and not _set_off(text, title):
        return _fitted(nameless), None  # tidied down to a plain word ("Active: the Geometric"): no name
    return title, title if claimed else _fitted(nameless) if nameless is not None else None


# "NAME: (P4D) as a debugging tool", "NAME: - a technique": an alias or a dash is no start of a gloss.
_GLOSS_LEAD = re.compile(r"^([^:]{1,60}): (?:\([^()]{1,12}\)\s*(?:as\s+)?|[-–—]\s*)")
_TO_GLOSS = re.compile(r"^([^:]{1,60}): to ([a-z]+ .+)$")
# "a clustering principle to overcome these challenges": what those are was said before; the title stops.
_BACK_AT_END = re.compile(r"\s+(?:to|for|of|in|on|with)\s+(?:[\w-]+\s+){0,2}?(?:this|these|those|such|the above(?:-mentioned)?|"
                          r"the aforementioned|above-mentioned|aforementioned)\s+\w+$")


# A phrase that ends on a number or a web address after a lower-case word was cut at a dot inside it
# ("by an average of 2" of "2.9%", "containing 14" of "14.7B", "with 1" of a list's "1)", "at
# https://github" of the address): the number goes, with the words that led to it.
_CUT_NUMBER = re.compile(r"(?<![\w-])[a-z]+:?\s+(?:\d+-?|https?://\S*)$")
_NUMBER_LEADS = DANGLING | frozenset("containing including over average approximately nearly around roughly".split())


_OWN_SENTENCE = re.compile(r"(?:^|(?<=[.!?])\s+)((?:(?:In this (?:position )?(?:paper|work|study)|Here|In (?:this|our) work)"
                           r",?\s+we|We|This (?:position )?(?:paper|work|study)|Our (?:work|paper|study))\s[^.!?]{12,})")
EXCERPT_WORDS = 14


def excerpt(abstract: str) -> str:
    """The first words of the abstract's first sentence of the paper's own ("In this paper, we
    address this question in the canonical case of binary predictions"), else of its first
    sentence: what a paper no rule could title shows, marked (store.titles.kinds). At most
    EXCERPT_WORDS words and a list row's width; stored without "…" (the views add it)."""
    own = _OWN_SENTENCE.search(abstract)
    sentence = own.group(1) if own else SENTENCE_END.split(abstract.strip(), maxsplit=1)[0]
    words = clean_phrase(sentence).split()[:EXCERPT_WORDS]
    while len(" ".join(words)) > MAX_TITLE_CHARS and len(words) > 3:
        words.pop()
    return without_dangling(" ".join(words)) or "(empty abstract)"


def _without_cut_number(phrase: str) -> str:
    """``phrase`` without a number or web address it was cut inside (see _CUT_NUMBER), and the words
    that led to it; as it is otherwise ("k ≥ 0", "Llama 2")."""
    # (most phrases end on a letter: tested before the pattern's scan)
    m = _CUT_NUMBER.search(phrase) if phrase[-1:].isdigit() or phrase.endswith("-") or "://" in phrase else None
    if not m:
        return phrase
    words = phrase[:m.end() - len(m.group().split()[-1])].split()
    while len(words) > 2 and words[-1].lower().rstrip(":") in _NUMBER_LEADS:
        words.pop()
    return " ".join(words).rstrip(" ,;:")


def _fitted(choice: str) -> str:
    """The chosen phrase as a list row: in the gerund, paired, whole, fitted (and paired again, as a
    cut may fall between two quotes)."""
    choice = _without_cut_number(_GLOSS_LEAD.sub(r"\1: ", choice))
    purpose = _TO_GLOSS.match(choice)  # "SelfExtend: to extend the context window" -> "SelfExtend: extending …"
    if purpose:
        done = gerund("To " + purpose.group(2))
        if not done.startswith("To "):
            choice = f"{purpose.group(1)}: {done[0].lower()}{done[1:]}"
    back = _BACK_AT_END.search(choice)
    if back and len(choice[:back.start()].split()) >= 3:
        choice = choice[:back.start()]
    whole = complete(tidy_end(balanced(gerund(choice))))
    fitted = fit_title(whole)
    if fitted == whole:
        return fitted
    again = balanced(fitted)
    fitted = fitted if again == fitted else tidy_end(again)
    # A short clause the cut ran into says half of what it would ("a framework that has the
    # flexibility", "a model that sheds light"): the phrase ends before it.
    clause = _CUT_CLAUSE.search(fitted)
    after = whole[len(fitted):].split()[:1] if whole.startswith(fitted) else []
    kept = without_dangling(fitted[:clause.start()]) if clause else ""
    if clause and after and after[0].lower() in _COMPLEMENT and len(kept.split()) >= 3 \
            and not _GENERIC_GLOSS.match(kept) and not kept.endswith("ed"):
        fitted = kept
    return complete(fitted)


# Where a phrase may end: before a clause ("that", "which", a comma) or a phrase that qualifies what
# came before ("for X", "with Y", "in Z"). Before "of", "on" or "to" the words complete the one before
# ("rests on", "the compliance of"): a phrase ends there only when no other place leaves half a title.
_CUT_AT = re.compile(r",\s|;\s|\s[—–]\s|\s(?=(?:by|with|for|in|via|using|through|that|which|and|from|under|"
                     r"across|without|where|while|whose|beyond|towards?)\s)")
# "using a diverse | and high-quality dataset", "the first open-sourced|, large-scale dataset":
# adjectives joined before their noun.
_ARTICLE_AND_WORD = re.compile(r"\b(?:a|an|the)\s+(?:first\s+|most\s+)?[\w-]+(?:,\s+(?:and\s+|or\s+)?[\w-]+)*$")
# "a platform designed | for X": a participle that needs what follows it is no place to end.
_LEADS_ON = re.compile(r"\b(?:designed|built|tailored|aimed|based|developed|used|applied|intended|dedicated|suited|"
                       r"optimi[sz]ed|due|according)$")
# "a framework to explore | X", "a method for representing | X", "a model that is able | to X": a verb
# still waiting for its object.
_VERB_OPEN = re.compile(r"\bto\s+[a-z]+$|\b(?:for|by|of|in)\s+[a-z]+ing$|\b(?:is|are|be)\s+(?:able|[a-z]+ed)$")
# The nouns a title's phrase is headed by ("a physics-based differentiable tactile simulation system"):
# where a phrase too long for a row, with no other place to end, still ends whole.
_HEAD_NOUN = re.compile(r"\b(?:framework|method|approach|algorithm|model|system|platform|benchmark|dataset|simulator|"
                        r"agents?|network|technique|module|library|toolkit|architecture|pipeline|loss|objective|"
                        r"estimator|metric|attack|defen[cs]e|paradigm|strategy|scheme|mechanism|policy|policies|"
                        r"representations?|learning|optimi[sz]ation|inference|generation|prediction|detection|"
                        r"models|methods|algorithms|networks|frameworks|datasets|benchmarks|tasks?|problems?|"
                        r"analysis|theory|bounds?|guarantees?|regret|complexity|distributions?|structures?)\b(?![\w-])")
_CUT_LATE = re.compile(r"\s(?=(?:of|on|to|at|into|over|as|between|among|against)\s)")
# "EEG analysis rests | on a feature catalog", "an approach that does not rely | on X": a verb that
# needs what follows it ends a sentence cut short, never a phrase.
_WAITS = re.compile(r"\b(?:rests?|rel(?:y|ies)|depends?|lies|hinges?|focus(?:es)?|consists?|refers?|belongs?|"
                    r"resides?|insists?|dwells?|capitali[sz]es?)$")


def fit_title(title: str, limit: int = MAX_TITLE_CHARS) -> str:
    """The longest complete phrase of ``title`` within ``limit`` characters: cut where a clause or
    a phrase starts ("X for Y in Z" -> "X for Y"), never inside parentheses nor before the third word;
    where no such place fits (a 90-character run without one), after the last head noun within it,
    else at its last word that can end a phrase. Never "…": a title is stored whole."""
    title = title.rstrip("…").strip(" ,;:")
    if len(title) <= limit + WHOLE_SLACK:
        return title

    def places(pattern: re.Pattern[str]) -> list[int]:
        # (read up to the limit only: no cut past it is kept, and a cut's lookahead reads at most ten
        # characters on: "\stowards\s")
        return [at for at in (m.start() for m in pattern.finditer(title, 0, limit + 16)) if at <= limit
                and len(title[:at].split()) >= 3 and title.count("(", 0, at) == title.count(")", 0, at)
                and not _LEADS_ON.search(title, 0, at) and not _VERB_OPEN.search(title, 0, at)
                and not _WAITS.search(title, 0, at) and not lone_adjective(title[:at].rsplit(None, 3)[-3:], -1) and not _GENERIC_GLOSS.match(title[:at])
                and not (title.startswith((" and ", " or ", ","), at) and _ARTICLE_AND_WORD.search(title, 0, at))]

    cuts = places(_CUT_AT)
    if not cuts or cuts[-1] < limit // 2:
        cuts = sorted(cuts + [at for at in places(_CUT_LATE) if at >= limit // 2])
    if cuts:
        return without_dangling(title[:cuts[-1]])
    nouns = [m.end() for m in _HEAD_NOUN.finditer(title, 0, limit) if len(title[:m.end()].split()) >= 3
             and title.count("(", 0, m.end()) == title.count(")", 0, m.end())
             and not _GENERIC_GLOSS.match(title[:m.end()])]
    if nouns:  # no phrase ends within the limit: the phrase up to its last head noun there is whole
        return title[:nouns[-1]]
    head = without_dangling(title[:title.rfind(" ", 0, limit)])
    while (_LEADS_ON.search(head) or _VERB_OPEN.search(head) or _WAITS.search(head)) and len(head.split()) > 3:
        head = without_dangling(head.rsplit(" ", 1)[0])
    return noun_end(head)


def _derive(abstract: str, not_names: frozenset[str] = frozenset()) -> str:
    """:func:`derive_title`'s choice, before its end is tidied."""
    return _derive_both(abstract, not_names)[0]


def _derive_both(abstract: str, not_names: frozenset[str] = frozenset()) -> tuple[str, str | None, bool]:
    """The choice; the title the abstract gets without the name that leads it (None when no name
    leads, or when the abstract claims it); and whether it claims it."""
    intros = list(INTRO.finditer(abstract))
    found, own, long = _leading_name(abstract, intros, not_names)
    focus = focus_of(abstract, [m for m in intros if not m.group().startswith(("and", "then"))])
    # (a claimed name is never taken away: its title needs no alternative)
    nameless = None if own else _nameless(abstract, intros, focus)
    if not found:
        assert nameless is not None
        return nameless, None, False
    name, end = found
    named = _named(abstract, name, end, long, focus, intros)
    if not named:  # a plain word with nothing to say of it: the paper is titled without it
        assert nameless is not None  # (only a claimed name has no alternative, and it is name-shaped)
        return nameless, None, False
    named = through_adjectives(abstract, _extended(abstract, named, name))
    if "$" in name or "\\" in name:  # a name's math reads as written, as the rest of the title: T²SQNet, π0.5
        named = named.replace(name, clean_phrase(name))
    return named, nameless, own


def _leading_name(abstract: str, intros: list[re.Match[str]],
                  not_names: frozenset[str]) -> tuple[tuple[str, int] | None, bool, str]:
    """The name that leads the title (and the offset after it), or None; whether the abstract
    claims it; and what it stands for ("" if nothing). A name the abstract claims leads however
    widely the library uses it; any other must be its own, and not one of ``not_names``."""
    claimed = claimed_names(abstract, intros)
    found = find_name(abstract, intros, claimed)
    own = found is not None and any(found[0] == c[0] for c in claimed)
    long = expansion(abstract, found[0]) if found and (own or found[0] not in not_names) else ""
    if found and not own and (found[0] in not_names or not own_name(abstract, *found, intros, long)):
        found = None
    return found, own, long


def _nameless(abstract: str, intros: list[re.Match[str]], focus: str | None) -> str:
    """The title without a name: the focus of the paper's own sentence, else what it contributes,
    the question it asks, its opening; a generic gloss extended by what the abstract says next."""
    nameless = through_adjectives(abstract, capitalized(focus) if focus else (
        contribution(abstract, intros) or question_of(abstract) or _opening(abstract, intros)
        or trim_words(clean_phrase(abstract), WHOLE_TITLE_WORDS) or "(empty abstract)"))
    return _extended(abstract, nameless) if _GENERIC_GLOSS.match(nameless) else nameless


# A first clause that is the sentence's start, not a title ("We initiate the study of X", "In this
# position paper", "This paper leverages X"): the paper's own sentence is read for its object instead.
_OPENER = re.compile(r"(?:We|Our|This (?:paper|work|study)|In this|Here)\b")
# A gloss that names only the kind of thing ("ROAD: a novel approach", "A principled framework"): what the
# abstract says next of it ("that leverages X", "for selecting a prompt", "tailored to node
# classification") makes it a title.
_GENERIC_GLOSS = re.compile(r"^(?:[^:]{1,60}: )?(?:an?|the)\s+(?:(?:novel|new|simple|general|generic|unified|effective|"
                            r"efficient|principled|flexible|powerful|innovative|practical|lightweight|first|hybrid|"
                            r"learning|generative|randomized|resulting|yet|and|,)\s*)*(?:[\w-]+\s+)?(?:framework|"
                            r"method|approach|algorithm|model|technique|strategy|paradigm|architecture|scheme|"
                            r"pipeline|system|module|solution|tool|mechanism)s?$", re.I)
_NEXT = re.compile(r"[\s*}\"'”`]*(?:\([^()]{1,20}\)\s*)?(?:,?\s*(?:called|named|dubbed|termed|referred to as)\s+"
                   r"(?:\$?\\text\w*\{[^{}]{1,40}\}\$?|[*\"“]*[^\s,.]+[*\"”]*)\s*(?:\([^()]{1,40}\))?\s*)?,?\s*"
                   r"(?:(?:which|that)\s+(?:(?:\w+ly|first|also|further|then|both)\s+)?(?:(?P<does>[a-z]+s\s[^,.;:()]{4,120})|(?:can|could|will)\s+"
                   r"(?:\w+ly\s+)?(?P<can>[a-z]+\s[^,.;:()]{4,120})|is\s+(?P<is>(?:capable of|able to|designed (?:to|for)|"
                   r"tailored (?:to|for)|particularly \w+ (?:to|for)|specifically \w+ (?:to|for))\s[^,.;:()]{4,120}))|"
                   r"(?P<purpose>(?:for|of|to|tailored (?:to|for)|designed (?:to|for)|based on|capable of|aimed at|"
                   r"featuring|supporting|enabling|leveraging|using|with)\s[^,.;:()]{4,120}))")


def _extended(abstract: str, title: str, name: str = "") -> str:
    """A generic gloss (see _GENERIC_GLOSS) with what the abstract says next of it, or of the name;
    the title as it is when the abstract says nothing more, or points back ("to address this")."""
    head, sep, gloss = title.rpartition(": ")
    if not _GENERIC_GLOSS.match(gloss or title):
        return title
    lower = abstract.lower()
    for anchor in (gloss, name):
        at = lower.find(anchor.lower()) if anchor else -1
        m = _NEXT.match(abstract, at + len(anchor)) if at >= 0 else None
        if not m:
            continue
        if m.group("does"):
            more = verb_as_gerund(m.group("does"))
            if more == m.group("does"):
                continue  # (no verb of the third person: "that is", "that has")
        elif m.group("can"):
            more = gerund("To " + m.group("can"))
            more = "" if more.startswith("To ") else more[0].lower() + more[1:]
        else:
            more = m.group("is") or m.group("purpose")
        more = clean_phrase(more)
        if not more or more.split()[0] in ("is", "are", "has", "was") or ANAPHORA.match(more.split(" ", 1)[-1]) \
                or _POINTS_BACK.search(more):
            continue
        return f"{title} {more}"
    return title


_CUT_CLAUSE = re.compile(r",?\s+(?:that|which|who)\s+(?:[\w-]+\s+){1,3}[\w-]+$")  # (a longer one says enough)
_COMPLEMENT = frozenset("to on of into about than as onto upon".split())  # what a cut clause's verb was waiting for
_POINTS_BACK = re.compile(r"\b(?:this|these|those|such|it|them|above|aforementioned)\b", re.I)


_ARGUED = re.compile(r"(?:In this (?:position )?paper,?\s+)?We (?:argue|posit|contend|claim|advocate)\b")
_OURS = re.compile(r"\b(?:we|our|us|this (?:paper|work|study|article))\b", re.I)


def _opening(abstract: str, intros: list[re.Match[str]]) -> str:
    """The first clause, when the first sentence is the paper's own; when it is background, what a
    later contribution sentence says the paper is (store.titles.contribution), if one does."""
    first = SENTENCE_END.split(abstract.strip(), maxsplit=1)[0]
    later = intros or "devis" in abstract or "his study" in abstract  # (contribution_object's cues, cheaply)
    if _OURS.search(first):
        clause = first_clause(abstract)
        if _ARGUED.match(first):  # "We argue that X is the next Y": the claim as a title ("X as the next Y")
            return own_sentence_object(first) or clause
        return (_OPENER.match(clause) and own_sentence_object(abstract)) or clause
    return (later and contribution_object(abstract)) or own_sentence_object(abstract) or first_clause(abstract)


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
              or what_it_does(abstract, name, end) or purpose_before(abstract, name, end))
    # A name with no gloss stands alone: "NAME — <the first sentence>" reads as two things glued. A
    # plain word is a name alone only when set off as one ("**Leddam**"), not when it is the start of
    # a term ("called *Active Exploration*", "the so-called Mapper graph"): "" lets the caller title
    # the paper without it.
    return phrase or (name if claimable(name) or " " in name or _set_off(abstract, name) else "")


_SET_OFF = re.compile(r"(?:\*\*?|\\textbf\{|\\emph\{|\\textsc\{|\\textit\{)$")
_SET_OFF_END = re.compile(r"\s*(?:\*\*?|\})")


def _set_off(abstract: str, name: str) -> bool:
    """Whether ``name`` is set in bold or emphasis of its own somewhere in the abstract."""
    start = abstract.find(name)
    while start >= 0:
        if _SET_OFF.search(abstract, max(0, start - 10), start) and _SET_OFF_END.match(abstract, start + len(name)):
            return True
        start = abstract.find(name, start + len(name))
    return False
