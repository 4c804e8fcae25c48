"""What the paper contributes, read from any of its contribution sentences, for an abstract that
would otherwise be titled by its background opener.

"Coreset selection is powerful in reducing computational costs" says what the field knows; a later
"we propose an innovative method, which maintains optimization priority order over X" says what
the paper is. :func:`store.titles.phrases.contribution` reads only the first "we propose"
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

from store.titles.text import clean_phrase, trim_words
from store.titles.phrases import ANAPHORA, PURPOSE_BACK, VAGUE, WHOLE_TITLE_WORDS, gerund, informative, verb_as_gerund

_CONTRIBUTES = re.compile(r"(?=[WwTt])\b(?:[Ww]e|[Tt]his (?:paper|work|study|article))\s+(?:\w+ly\s+)?"
                          r"(?:propose|introduce|present|develop|design|devise)s?\s+(?:and\s+[a-z]+\s+)?(?P<rest>[^.;]{0,300})")
_CUE_WORDS = re.compile(r"propos|introduc|present|develop|design|devis")
_LEAD = re.compile(r"^(?:(?:for the first time|in this (?:paper|work|article)|here(?:in)?|also|further|first|then|finally|"
                   r"novel(?=ly))\s*,?\s*)+")
_EVIDENCE = re.compile(r"(?:(?:extensive|comprehensive|numerical|empirical|experimental|theoretical|several|some|new)\s+)*"
                       r"(?:results|experiments|evaluations|evidence|analys[ie]s|simulations|findings)\b", re.I)
_OBJECT_END = re.compile(r"[,;:]|(?<!\S)\(|\s[—–]\s|—|--")  # (a "(" after a word: math, 𝒪(1/T))
_GLOSS = re.compile(r"\s*[*}$]*\s*(?:\([^()]{1,12}\)\s*)?,\s*((?:an?|the)\s[^,;:()]{6,160})")  # (an acronym may come first)
# ", an exact, parallel decoding algorithm that ...": a gloss whose adjectives are listed with commas, up
# to its noun (a clause after it is no part of it)
_LISTED_GLOSS = re.compile(r"\s*(?:\([^()]{1,12}\)\s*)?,\s*((?:an?|the)\s[\w-]+(?:,\s+(?:and\s+|or\s+)?[\w-]+)+"
                           r"(?:\s(?!(?:that|which|to|for|with|designed|based|where|by|in|on|of)\b)[\w-]+){1,4})")
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
    purpose = _PURPOSE.match(rest)
    if purpose:
        if _POINTS_BACK.match(rest):
            return ""  # "we propose to distill them": what "them" is was said before
        done = gerund("T" + clean_phrase(purpose.group())[1:])
        return done if not done.startswith("To ") and informative(done) else ""
    cut = _OBJECT_END.search(rest)
    obj = clean_phrase(rest[:cut.start()] if cut else rest)
    back = PURPOSE_BACK.search(obj)  # "algorithmic approaches to address these challenges"
    if back:
        obj = obj[:back.start()]
    if _REFERS_BACK.search(obj):
        return ""  # "a principled framework for assessing this assumption": what it is was said before
    return _object_titled(obj, rest[cut.start():] if cut else "")


def _object_titled(obj: str, after: str) -> str:
    """A contribution's object as a title, by what comes ``after`` it: a term with its gloss ("X: a
    way to Y"), the name it is given ("NAME: obj"), what it does ("Obj doing Y"); "" when it says
    too little."""
    gloss = _GLOSS.match(after) or _LISTED_GLOSS.match(after)
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


# "We obtain the first positive results for X", "This paper leverages the framework of X", "In this
# position paper, we argue that X is Y": a sentence of the paper's own whose verb is no "we propose".
_OWN = re.compile(r"(?:(?:[Ii]n this (?:position )?(?:paper|work|study),?\s+|[Hh]ere,?\s+|[Ii]n (?:this|our) work,?\s+)?[Ww]e"
                  r"|[Tt]his (?:position )?(?:paper|work|study|article)|[Oo]ur (?:work|paper|study))\s+"
                  r"(?:(?:\w+ly|also|further|first|then|now)\s+)?(?:(?:aims?|seeks?|attempts?|tries|try) to\s+)?"
                  r"(?:take (?:a|the first) (?:steps?|attempt) (?:in|to|towards?)\s+)?"
                  r"(?P<verb>[a-z]+)\s+(?P<rest>[^.;]{0,300})")
_OWN_START = re.compile(r"\b(?:[Ww]e|[Tt]his|[Oo]ur|[Ii]n|[Hh]ere)\b")
# Verbs whose object is what the paper is: titled by the object.
_GIVES = frozenset("obtain obtains give gives provide provides establish establishes derive derives prove proves "
                   "describe describes offer offers contribute contributes construct constructs build builds create "
                   "creates release releases curate curates put puts formulate formulates design designs develop develops "
                   "introduce introduces propose proposes present presents".split())
# Verbs of what the paper does: titled in the gerund ("Leveraging the framework of X").
_DOES = frozenset("study studies analyze analyzes analyse analyses investigate investigates explore explores "
                  "examine examines revisit revisits consider considers address addresses tackle tackles "
                  "characterize characterizes leverage leverages use uses utilize utilizes apply applies extend "
                  "extends generalize generalizes formalize formalizes quantify quantifies compare compares "
                  "evaluate evaluates benchmark benchmarks measure measures identify identifies rethink rethinks "
                  "bridge bridges connect connects unify unifies improve improves reduce reduces learn learns "
                  "model models adapt adapts train trains reimagine reimagines explain explains studying analyzing "
                  "investigating exploring understanding initiate initiates resolve resolves employ employs reveal "
                  "reveals approach approaches formalize formalizes solve solves discover discovers demonstrate "
                  "enhance enhances accelerate accelerates scale scales automate automates estimate estimates "
                  "detect detects uncover uncovers disentangle disentangles probe probes reassess reassesses "
                  "expose exposes".split())
_AND_VERB = re.compile(r"and\s+([a-z]{3,})\s+(.+)")
_CONCERNED = re.compile(r"(?:(?:is|are) (?:concerned with|about|devoted to|dedicated to)|deals? with)\s+(.+)")
# Words after "we" that are no action the paper is titled by ("we lack", "we posit that", "we find").
_NOT_ACTIONS = frozenset("lack lacks posit argue believe hypothesize note observe find show want need have has are "
                         "were was is can may will must should could would also then first further warn call "
                         "refer term dub name denote say ask think know see hope expect wish let make do does did "
                         "get got remark recall conclude conjecture".split())
_CLAIM = re.compile(r"(?:argue|show|posit|contend|claim|advocate|suggest)s?\s+(?:that\s+)?(?P<claim>[^.;]{8,200})")
_COPULA = re.compile(r"^(?P<subject>[^,]{3,80}?)\s+(?:is|are|should be|must be|can be|will be|represents?|"
                     r"constitutes?|remains?)\s+(?P<what>(?:an?|the|one of the)\s.{4,})$")  # (a noun phrase: "X is not Y" stays a claim)


_MEANS = re.compile(r"[^,;]{0,60}?\b(?:via|through|using|with|by (?:proposing|introducing|developing|designing|using))\s+"
                    r"((?:an?|the|our)\s.+)")


_PROPOSING = re.compile(r"\bby (?:proposing|introducing|developing|presenting|designing|constructing)\s+(.+)")


def _present(verb: str) -> str:
    """A past form as the present one the word lists hold ("curated" -> "curates", "studied" ->
    "studies"); an unknown one as it is."""
    for form in (verb[:-3] + "ies", verb[:-1] + "s", verb[:-2] + "s", verb[:-3] + "s"):
        if form in _DOES or form in _GIVES:
            return form
    return verb


def _doing(verb: str, obj: str) -> str:
    """The action as a title: "study" X -> "Studying X"; a verb already in -ing ("we take the first
    step in studying X") kept as it is, not "Studyinging" ("To X" when it cannot be said so)."""
    if verb.endswith("ing") and len(verb) > 5:
        return f"{verb[:1].upper()}{verb[1:]} {obj}"
    return gerund(f"To {_base(verb)} {obj}")


def _base(verb: str) -> str:
    """A verb's base form ("studies" -> "study", "addresses" -> "address", "uses" -> "use")."""
    if verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith(("ches", "shes", "sses", "xes", "zzes")):
        return verb[:-2]
    return verb[:-1] if verb.endswith("s") and not verb.endswith("ss") else verb


def own_sentence_object(abstract: str) -> str:
    """The first sentence of the paper's own that gives a title (see _OWN): its object, the
    action in the gerund, or a position paper's claim "X is Y" as "X as Y"; "" if none does."""
    for start in _OWN_START.finditer(abstract):  # (a match can start only at one of these words: tried there)
        said = _own_verb_and_rest(abstract, start.start())
        if said is None:
            continue
        verb, rest = said
        proposing = _PROPOSING.search(rest)
        if proposing and (obj := _first_object(proposing.group(1))):
            return trim_words(obj, WHOLE_TITLE_WORDS)  # "we extend X by proposing Y": Y is the paper
        means = _MEANS.match(rest) if _REFERS_BACK.match(rest) else None
        if means:  # "we address this issue via a novel error-feedback technique": the means is the paper
            rest, verb = means.group(1), "gives"
        both = _two_actions(verb, rest)
        if both:
            return both
        if rest.startswith(("that ", "how ", "whether ", "this ", "these ", "it ", "them ")) and verb not in _DOES:
            claim = _claim_title(verb, rest)
            if claim:
                return claim
            continue
        if ANAPHORA.match(rest) or VAGUE.match(rest):
            continue  # "we revisit the problem from X", "we study two key quantities": said before, or after
        title = _action_title(verb, rest)
        if title and not _EVIDENCE.match(title):
            return trim_words(title, WHOLE_TITLE_WORDS)
    return ""


def _own_verb_and_rest(abstract: str, at: int) -> tuple[str, str] | None:
    """The verb of a sentence of the paper's own starting at ``at`` (in the present: "we employed"
    and "we have employed" as "employs") and what follows it; None if none starts there."""
    m = _OWN.match(abstract, at)
    if not m or (m.start() and abstract[m.start() - 1] not in " \n"):
        return None
    verb, rest = m.group("verb"), _LEAD.sub("", m.group("rest"))
    if verb in ("have", "has") and (done := re.match(r"([a-z]+ed)\s+(.+)", rest)):
        verb, rest = done.group(1), done.group(2)  # "we have employed X": as "we employed X"
    if verb.endswith("ed") and verb not in _NOT_ACTIONS:
        verb = _present(verb)
    return verb, rest


def _two_actions(verb: str, rest: str) -> str:
    """"we define and explore X": "Defining and exploring X"; "" if the sentence is not so."""
    also = _AND_VERB.match(rest)
    if also and verb not in _NOT_ACTIONS and also.group(1) not in _NOT_ACTIONS:
        obj = _first_object(also.group(2))
        if obj and not ANAPHORA.match(obj):
            both = _doing(verb, obj).split(" ", 1)[0]
            second = _doing(also.group(1), obj).split(" ", 1)[0]
            if not both.startswith("To") and not second.startswith("To"):
                return trim_words(f"{both} and {second.lower()} {obj[:1].lower()}{obj[1:]}", WHOLE_TITLE_WORDS)
    return ""


def _claim_title(verb: str, rest: str) -> str:
    """A position paper's claim "we argue that X is Y" as "X as Y"; "" if there is none (or its
    subject refers back)."""
    claim = _CLAIM.match(f"{verb} {rest}")
    said = _COPULA.match(clean_phrase(claim.group("claim"))) if claim else None
    if said and not _REFERS_BACK.search(said.group("subject")):
        title = f"{_sentence_case(said.group('subject'))} as {said.group('what')}"
        return trim_words(_OBJECT_END.split(title, maxsplit=1)[0], WHOLE_TITLE_WORDS)
    return ""


def _action_title(verb: str, rest: str) -> str:
    """What the paper gives ("we propose X": X), deals with, or does ("we study X": "Studying X");
    "" where the verb is none of these or no object follows."""
    concerned = _CONCERNED.match(f"{verb} {rest}")
    if concerned:  # "This paper is concerned with the problem of X", "we deal with X"
        verb, rest = ("gives", concerned.group(1)) if concerned.group(0).startswith(("is ", "are ")) \
            else ("deals", f"with {concerned.group(1)}")
    if verb in _GIVES or verb == "gives":
        return _first_object(rest)
    if verb == "deals":
        obj = _first_object(rest[5:])
        return f"Dealing with {obj[:1].lower()}{obj[1:]}" if obj else ""
    if verb in _DOES or (verb not in _NOT_ACTIONS and len(verb) > 3 and not verb.endswith(("ly", "ed"))):
        obj = _first_object(rest)
        title = _doing(verb, f"{obj[:1].lower()}{obj[1:]}") if obj else ""
        return "" if title.startswith("To ") else title
    return ""
