"""What a name is, in the phrases around it: its apposition (", a unified framework for X"), the
phrase before it ("a tree search algorithm ..., which we call NAME"), what it does ("that uses X",
"NAME performs X" in the next sentence) and its purpose ("NAME for X", "To improve X, we introduce
NAME"). Each returns "" when the abstract does not say it so.

:func:`store.titles.derive._named` tries them in turn.
"""

from __future__ import annotations

import re

from store.titles.text import clean_phrase, trim_words
from store.titles.phrases import (ADJECTIVE_LIST, ANAPHORA, BAD_START, LONE_WORD, WHOLE_TITLE_WORDS, gerund,
                                        informative, verb_as_gerund)


_APPOSITION = re.compile(r"[*}$]*\s*\)?\s*[,:(—–-]?\s*(?:which is\s+)?((?:an?|the)\s+(?:[^.;:()]|\([\w-]{1,12}\)){3,160})")


_ACRONYM_GROUP = re.compile(r"\s+\((?=[\w-]*[A-Za-z])[\w-]{1,12}\)")  # "Federated Learning (FL) platform" -> "Federated Learning platform", not SE(3) -> SE


_APPOSITION_END = re.compile(r",\s*(?:which|that|where|whose|and|consisting|built|designed|to|using|by)\b|;|, ")


def phrase_after(text: str, end: int) -> str:
    """What the name is: ", a unified framework for X," after the name."""
    m = _APPOSITION.match(text, end)
    if not m:
        return ""
    whole = _ACRONYM_GROUP.sub("", m.group(1))
    phrase = _APPOSITION_END.split(whole)[0]
    if LONE_WORD.match(phrase):  # "a general, efficient and scalable framework": on to the noun
        more = ADJECTIVE_LIST.match(whole, len(phrase))
        phrase = whole[:more.end()] if more else phrase
    return clean_phrase(phrase)


# What a name is, said before it: "a new architecture, HSTU, designed for X", "a tree search algorithm
# based on Y, which we call *Volume-MCTS*", "a ... framework, dubbed RoboFlamingo, built upon Z".
_NAMED_AS = re.compile(r",\s*(?:(?:which|that)\s+we\s+(?:call|term|dub|name|coin)|(?:dubbed|called|named|termed|coined))?"
                       r"\s*(?:as\s+)?[\s*{}$\\]*(?:emph\{|textbf\{|textsc\{)?$")


_INDEFINITE = re.compile(r"\b(?:an?)\s")


_GOES_ON = re.compile(r"[*}$\s]*,?\s*((?:designed|built|tailored|developed)\s+(?:for|to|upon|on)\s+[^,.;]+|to\s+[a-z]+\s+[^,.;]+)")


_FOR_PURPOSE = re.compile(r"[*}$\s]*\s+(for\s+[^,.;()]+)")


def phrase_before(abstract: str, name: str, end: int) -> str:
    """ "NAME: a tree search algorithm based on Y" from "a tree search algorithm based on Y, which we
    call NAME"; a phrase that says only "a new architecture" takes what follows the name too
    ("designed for X", "to learn X"). "" if the name is not set off so."""
    start = abstract.rfind(name, 0, end)
    if start < 0:
        return ""
    sentence = max(abstract.rfind(". ", 0, start), -2) + 2
    named = _NAMED_AS.search(abstract, sentence, start)
    if not named:
        return ""
    articles = list(_INDEFINITE.finditer(abstract, sentence, named.start()))
    if not articles:
        return ""
    begin = articles[-1].start()
    if len(articles) > 1 and abstract[:begin].endswith(" as ") and "," not in abstract[articles[-2].start():begin]:
        begin = articles[-2].start()  # "a novel formulation of SAM as a bilevel optimization problem"
    phrase = clean_phrase(abstract[begin:named.start()])
    if len(phrase.split()) < 2 or "(" in phrase and ")" not in phrase:
        return ""
    if not informative(phrase) or len(phrase.split()) < 4:
        more = _GOES_ON.match(abstract, end)
        if more and not BAD_START.match(more.group(1)) and not ANAPHORA.search(more.group(1)):
            phrase = f"{phrase} {clean_phrase(more.group(1))}"  # not "to address these issues"
    return f"{name}: {trim_words(phrase, WHOLE_TITLE_WORDS - 1)}" if informative(phrase) else ""


def what_it_does(abstract: str, name: str, end: int) -> str:
    """ "DistillSpec: using knowledge distillation to better align …" from "we propose {\\em DistillSpec}
    that uses knowledge distillation to better align …" (also "that, for the first time, extends X",
    "that adaptively *prunes* X"); "" if no "which/that <verb>" follows the name."""
    m = _DOES.match(clean_phrase(abstract[end:end + 400]))
    if not m and ")" in abstract[end - 1:end + 1]:  # "Our algorithm (ICLCA) allows for exact conversion"
        m = _DOES_DIRECT.match(clean_phrase(abstract[end:end + 400]))
    if not m:  # "... SafeCoder to address this gap. SafeCoder performs security-centric fine-tuning"
        at = abstract.find(f". {name} ", end)
        m = _DOES_DIRECT.match(clean_phrase(abstract[at + len(name) + 3:at + 400])) if at >= 0 else None
    if not m:
        return ""
    said = m.group(2)
    phrase = verb_as_gerund(said)
    if phrase == said or not informative(phrase):
        return ""
    if m.group(1):
        phrase = f"{m.group(1).lower()} {phrase}"
    return f"{name}: {trim_words(phrase, WHOLE_TITLE_WORDS - 1)}"


# After the name, cleaned: "which uses X", "that, for the first time, extends X", "that adaptively prunes X".
_DOES = re.compile(r"(?:which|that)\s*(?:,[^,.;]{1,40},\s*)?(?:([a-z]+ly)\s+)?([a-z]+s\s+[^,.;]+)")


_DOES_DIRECT = re.compile(r"(?:([a-z]+ly)\s+)?([a-z]+s\s+[^,.;]+)")


def purpose_after(abstract: str, name: str, end: int) -> str:
    """ "REMEDI for efficient and accurate estimation of differential entropy" from "we introduce REMEDI
    for efficient and accurate estimation of ..."; "" if the name is not followed by such a purpose."""
    m = _FOR_PURPOSE.match(abstract, end)
    if not m:
        return ""
    purpose = clean_phrase(m.group(1))
    return f"{name} {trim_words(purpose, WHOLE_TITLE_WORDS - 1)}" if len(purpose.split()) >= 3 and informative(purpose[4:]) else ""


_POINTS_AT = re.compile(r"To\s+(?:\w+ly\s+)?\w+\s+(?:this|these|those|such|that|it|them|the (?:above|aforementioned|"
                        r"issues?|problems?|challenges?|gaps?|limitations?))\b")


_PRONOUN = re.compile(r"\b(?:they|them|their|it|its)\b")  # "To verify the extent to which they hold"


_PURPOSE_FIRST = re.compile(r"To\s+(?:[a-z]+ly\s+)?[a-z]+\s[^,;.]{8,160}(?=,\s*(?:we|this (?:paper|work))\b)")


def purpose_before(abstract: str, name: str, end: int) -> str:
    """ "APT: improving both training and inference efficiency" from "To improve both training and
    inference efficiency, we introduce APT"; "" if the name's sentence opens on no such purpose
    (or on one that points back: "To address this issue, we ...")."""
    start = abstract.rfind(name, 0, end)
    sentence = max(abstract.rfind(". ", 0, start), -2) + 2
    m = _PURPOSE_FIRST.match(abstract, sentence, start)
    if not m:
        return ""
    purpose = clean_phrase(m.group())
    if BAD_START.match(purpose) or _POINTS_AT.match(purpose) or _PRONOUN.search(purpose) or not informative(purpose[3:]):
        return ""
    done = gerund(purpose)
    return f"{name}: {trim_words(done[0].lower() + done[1:], WHOLE_TITLE_WORDS - 1)}" if done != purpose else ""
