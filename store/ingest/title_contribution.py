"""What the paper contributes, read from any of its contribution sentences, for an abstract that
would otherwise be titled by its background opener.

"Coreset selection is powerful in reducing computational costs" says what the field knows; a later
"we propose an innovative method, which maintains optimization priority order over X" says what
the paper is. :func:`store.ingest.title_phrases.contribution` reads only the first "we propose"
and only a clause that says something by itself; this reads every such sentence (also "this work
develops", "we devise", "we propose for the first time") and compresses it to its object:

- "we present *neural surrogate compilation*, a technique for producing X" -> "Neural surrogate
  compilation: a technique for producing X" (a term and its gloss);
- "we propose an innovative method, which maintains X" -> "An innovative method maintaining X";
- "we propose to rectify this bias directly in X" -> "Rectifying this bias directly in X";
- "we propose a unified encoder-decoder training of binary linear block codes" as it is.

"We propose that ..." (a claim) and "we present empirical results ..." (evidence) say what the
paper argues or shows, not what it is, and are passed over.
"""

from __future__ import annotations

import re

from store.ingest.title_text import clean_phrase, trim_words
from store.ingest.title_phrases import PURPOSE_BACK, WHOLE_TITLE_WORDS, gerund, informative, verb_as_gerund

_CONTRIBUTES = re.compile(r"(?=[WwTt])\b(?:[Ww]e|[Tt]his (?:paper|work|study|article))\s+(?:\w+ly\s+)?"
                          r"(?:propose|introduce|present|develop|design|devise)s?\s+(?:and\s+[a-z]+\s+)?(?P<rest>[^.;]{0,300})")
_CUE_WORDS = re.compile(r"propos|introduc|present|develop|design|devis")
_LEAD = re.compile(r"^(?:(?:for the first time|in this (?:paper|work|article)|here(?:in)?|also|further|first|then|finally|"
                   r"novel(?=ly))\s*,?\s*)+")
_EVIDENCE = re.compile(r"(?:(?:extensive|comprehensive|numerical|empirical|experimental|theoretical|several|some|new)\s+)*"
                       r"(?:results|experiments|evaluations|evidence|analys[ie]s|simulations|findings)\b", re.I)
_OBJECT_END = re.compile(r"[,;:(]|\s[—–]\s|—|--")
_GLOSS = re.compile(r"\s*[*}$]*\s*(?:\([^()]{1,12}\)\s*)?,\s*((?:an?|the)\s[^,;:()]{6,160})")  # (an acronym may come first)
# "a novel self-attention mechanism, Linear Log-Normal Attention, designed to ...": the name it is given
_NAMED_AFTER = re.compile(r"\s*,\s+([A-Z][\w-]*(?:\s+[A-Z][\w-]*){1,4})\s*(?:\([^()]{1,12}\)\s*)?[,.]")
# "we propose instruments to measure these quantities and introduce X": the second object
_AND_ALSO = re.compile(r"\band\s+(?:we\s+)?(?:\w+ly\s+)?(?:propose|introduce|present|develop|design|devise)s?\s+(.+)")
_WHICH = re.compile(r"\s*,?\s*(?:which|that)\s+((?:[a-z]+ly\s+)?[a-z]+s\s[^,;:()]{4,160})")
_BY_MEANS = re.compile(r"to\s+[a-z]+\s+[^,;]{0,60}?\b(?:by|through|via)\s+(?:introducing|proposing|developing|designing|using|"
                       r"leveraging|presenting|building)\s+(.+)")
_REFERS_BACK = re.compile(r"\b(?:this|these|those|such|above|aforementioned|said)\b", re.I)
_POINTS_BACK = re.compile(r"to\s+[a-z]+\s+(?:them|it|this|these|those|such)\b")
_PURPOSE = re.compile(r"to\s+[a-z]+\s[^,;:()]{6,160}")


def _sentence_case(phrase: str) -> str:
    return phrase[:1].upper() + phrase[1:]


def _object_of(rest: str) -> str:
    """The title a contribution sentence gives (see the module docstring), or "": the first object
    that says something, or the one after "and introduce"."""
    title = _first_object(rest)
    also = _AND_ALSO.search(rest) if not title else None
    return _first_object(also.group(1)) if also else title


def _first_object(rest: str) -> str:
    rest = _LEAD.sub("", rest)
    if rest.startswith(("that ", "how ", "whether ")) or _EVIDENCE.match(rest):
        return ""
    means = _BY_MEANS.match(rest)  # "to address this problem by introducing a structured regularizer"
    if means:
        return _object_of(means.group(1))
    if _PURPOSE.match(rest):
        if _POINTS_BACK.match(rest):
            return ""  # "we propose to distill them": what "them" is was said before
        done = gerund("T" + clean_phrase(_PURPOSE.match(rest).group())[1:])  # type: ignore[union-attr]
        return done if not done.startswith("To ") and informative(done) else ""
    cut = _OBJECT_END.search(rest)
    obj = clean_phrase(rest[:cut.start()] if cut else rest)
    back = PURPOSE_BACK.search(obj)  # "algorithmic approaches to address these challenges"
    if back:
        obj = obj[:back.start()]
    if _REFERS_BACK.search(obj):
        return ""  # "a principled framework for assessing this assumption": what it is was said before
    after = rest[cut.start():] if cut else ""
    gloss = _GLOSS.match(after)
    if gloss and 1 <= len(obj.split()) <= 6 and not obj.lower().startswith(("a ", "an ", "the ")):
        return f"{_sentence_case(obj)}: {clean_phrase(gloss.group(1))}"  # a term, then what it is
    named = _NAMED_AFTER.match(after)
    if named and informative(obj):
        return f"{named.group(1)}: {obj}"  # what it is, then the name it is given
    if not informative(obj) or len(obj.split()) < 3:
        which = _WHICH.match(after)
        if which and len(obj.split()) >= 2:
            does = verb_as_gerund(clean_phrase(which.group(1)))
            return f"{_sentence_case(obj)} {does}" if does != clean_phrase(which.group(1)) else ""
        return ""
    return _sentence_case(obj)


def contribution_object(abstract: str) -> str:
    """The first contribution sentence's object as a title, or "" if no sentence gives one."""
    if not _CUE_WORDS.search(abstract):
        return ""  # (a cheap test: the full pattern tries every W and T of the abstract)
    for m in _CONTRIBUTES.finditer(abstract):
        title = _object_of(m.group("rest"))
        if title:
            return trim_words(title, WHOLE_TITLE_WORDS)
    return ""
