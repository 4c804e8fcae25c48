"""The phrases of an abstract a derived title is made of: what the "we propose" clause says a name
is, what the paper studies, its contribution, the question it asks, its first clause; and a purpose
read in the gerund, as titles write it ("To reduce X" -> "Reducing X").

:mod:`store.titles.glosses` has the other phrases that say what a name is;
:mod:`store.titles.derive` chooses among them.
"""

from __future__ import annotations

import re

from store.titles.names import NAMING_WORDS
from store.titles.text import CLAUSE_END, clean_phrase, trim_words

WHOLE_TITLE_WORDS = 40  # no phrase the rules take runs longer; a bibliography takes it whole


MAX_QUESTION_WORDS = 14  # a longer question reads as a sentence, not a title


SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z$\\*])")


_CLAUSE_BREAK = re.compile(r"[,;:]\s|\s[—–]\s|—")


# A sentence opening with one of these starts with a side clause ("As their size grows, LLMs ..."):
# a short one says less than the main clause after it.
_SUBORDINATE = re.compile(r"(?:as|despite|while|although|though|since|because|when|whereas|given|unlike|inspired|"
                          r"motivated|in (?:the )?(?:pursuit|light|context|contrast|order)|with the|after|before|if|"
                          r"once|by|for (?:many|decades|years|the first time)|in (?:many|most|recent)|recently)\b", re.I)


_WE_VERB = re.compile(r"(?:(?:(?:in this|this) (?:paper|work|study),?\s+)?we\s+(?:\w+ly\s+)?(?:study|analy[sz]e|investigate|"
                      r"consider|examine|explore|address|revisit|tackle|introduce|propose|present|develop|"
                      r"design|provide|focus on|(?:show|prove|find|demonstrate|argue|observe|establish) that|"
                      r"derive|prove|establish|give|describe|pioneer|utilize|characterize|quantify|formulate|"
                      r"take (?:a|the first) steps? towards?|aim(?:\s+at)?)|"
                      r"this (?:paper|work|study)\s+(?:\w+ly\s+)?(?:studies|analy[sz]es|investigates|considers|examines|"
                      r"explores|addresses|revisits|tackles|focuses on|describes|presents|provides|offers))\s+", re.I)


LONE_WORD = re.compile(r"(?:an?|the)\s+[\w-]+$")
_ARTICLE_WORD = re.compile(r"\b(?:an?|the)\s+[\w-]+$", re.I)
# Adjectives in a row, set off by commas, up to the noun and its phrase: ", high-quality, and
# diversified AI feedback dataset" after "a large-scale".
ADJECTIVE_LIST = re.compile(r"(?:,\s+(?:(?:and|or|yet|but)\s+)?(?:(?:still|yet|also|[a-z]+ly)\s+)?[\w-]+)+[^,.;:()]*")


def first_clause(abstract: str) -> str:
    first = SENTENCE_END.split(abstract.strip(), maxsplit=1)[0]
    clauses = _CLAUSE_BREAK.split(first, maxsplit=1)
    clause = clauses[0]
    while len(clauses) > 1 and _ARTICLE_WORD.search(clause):  # "the simple, long-studied, yet unsolved problem"
        more = ADJECTIVE_LIST.match(first, len(clause))
        if not more:
            break
        clause = first[:more.end()]
        clauses = [clause, first[more.end():]] if more.end() < len(first) else [clause]
    if len(clauses) > 1 and _SUBORDINATE.match(clause) and len(clause.split()) <= 6 and len(clauses[1].split()) >= 4:
        clause = _CLAUSE_BREAK.split(clauses[1], maxsplit=1)[0]  # the main clause
        clause = clause[:1].upper() + clause[1:]
    if len(clause.split()) < 4:
        clause = first
    said = _WE_VERB.match(clause)  # "In this paper, we study the X of Y" -> "The X of Y"
    if said and len(clause[said.end():].split()) >= 3:
        clause = clause[said.end()].upper() + clause[said.end() + 1:]
    return trim_words(clean_phrase(clause), WHOLE_TITLE_WORDS)


_NAMING_TAIL = re.compile(r"(?:\s+(?:" + "|".join(NAMING_WORDS) + r"|as|is|by|of|for|to|in|the|and|we|our|or|,|:|\())+\s*$")


# Phrases that do not say what a paper is: fragments and purpose clauses ("to address this gap").
BAD_START = re.compile(r"(?:and|which|that|for|by|of|in|with|on|from|as|is|are|it|this|these|its|their)\b|"
                        r"to (?:address|tackle|solve|overcome|bridge|fill|mitigate|alleviate|resolve|handle|remedy|"
                        r"close|this|these|that|do so)\b", re.I)


_GENERIC = {"a", "an", "the", "novel", "new", "simple", "generic", "general", "framework", "approach", "method",
            "methods", "algorithm", "model", "technique", "paradigm", "variant", "alternative", "effective",
            "efficient", "unified", "strategy", "system", "tool", "scheme", "solution", "procedure", "our",
            "and", "yet", "innovative", "powerful", "principled", "practical", "straightforward", "improved",
            "improvement", "module", "mechanism", "architecture", "network", "pipeline", "family", "version",
            "extension", "modification", "way", "idea", "concept", "one", "such", "this", "that", "called"}


_NAMING_WORD_END = re.compile(r"\s*\b(?:" + "|".join(NAMING_WORDS) + r")?\s*\(?$")


_AND_THEN = re.compile(r"^(?:and|then)\s+")


_LEADING_ALIAS = re.compile(r"^[*}$\s]*(?:\([^()]{1,20}\)\s*)?(?:as\s+)?")


_WHICH = re.compile(r",\s*(?:which|that)\s+")  # "we introduce WebNavigator, which reframes X" -> "reframes X"


def _to_clause_end(text: str) -> str:
    """``text`` up to its first comma, period or semicolon outside math ("under $(\\epsilon,\\delta)$-privacy"
    is one clause)."""
    if "$" not in text:
        return CLAUSE_END.split(text, maxsplit=1)[0]
    inside = False
    for i, ch in enumerate(text):
        if ch == "$":
            inside = not inside
        elif ch in ",.;" and not inside:
            return text[:i]
    return text


def informative(phrase: str) -> bool:
    """Says something: 2+ words, not a fragment, not only "a novel framework"."""
    words = phrase.lower().split()
    return len(words) >= 2 and not BAD_START.match(phrase) and any(w.strip(",()") not in _GENERIC for w in words)


def intro_phrase(name: str, intros: list[re.Match[str]]) -> str:
    """What "we propose/introduce ..." says the name is: the words before it ("a
    low-rank estimation method called *LowPopArt*") or, if they say nothing, after
    it ("WebNavigator, which reframes ..."); else the first such clause with the
    name taken out."""
    for m in intros:
        rest = m.group("rest")
        clause = _to_clause_end(rest)
        if name not in clause:
            continue
        before, after = clause.split(name, 1)
        if not after.strip(" *}$)"):
            which = _WHICH.match(rest, len(clause))
            after = verb_as_gerund(_to_clause_end(rest[which.end():])) if which else ""
        after = _LEADING_ALIAS.sub("", after)  # "Prompting4Debugging (P4D) as a debugging tool"
        for part in (_NAMING_TAIL.sub("", " " + clean_phrase(before)).strip(), clean_phrase(after)):
            if informative(part):
                return part
        break
    if not intros:
        return ""
    clause = clean_phrase(_to_clause_end(intros[0].group("rest")))
    shown = clean_phrase(name) if "$" in name or "\\" in name else name  # (the clause is cleaned: $\partial$-CROWN is ∂-CROWN)
    at = clause.find(shown)
    if at >= 0:  # take the name out, with a "called" before it and its parentheses
        clause = (_NAMING_WORD_END.sub("", clause[:at]) + " " + clause[at + len(shown):].lstrip(")").lstrip(": ")).strip()
    return _AND_THEN.sub("", clause)


# A purpose that points back at the sentence before: what precedes it is the contribution.
PURPOSE_BACK = re.compile(r"\s+(?:to\s+\w+|(?:for|by)\s+\w+ing)\s+(?:this|these|those|such|the above)\b")


_WE_FIRST = re.compile(r"\s*(?:We|This (?:paper|work)|In this (?:paper|work))\b")


_FOCUS_VERBS = (r"(?:stud(?:y|ies)|investigates?|delves? into|examines?|explores?|considers?|address(?:es)?|analy[sz]es?|"
                r"tackles?|revisits?|focus(?:es)? on|characteri[sz]es?)")


# "In this work, we study X", "This paper explores X", "We take the first step to study X": the
# sentence that says what the paper is about, often after a sentence or two of background.
_FOCUS = re.compile(  # tried at sentence starts only: a search with a lookbehind costs 4x more
    r"(?:(?:[Ii]n this|[Tt]his|[Oo]ur) (?:paper|work|study),?\s+(?:we\s+)?|[Hh]ere,?\s+we\s+|[Ww]e\s+)"
    r"(?:\w+ly\s+)?(?:take the first step (?:to|towards)\s+)?" + _FOCUS_VERBS + r"\s+(?P<rest>[^.;]{0,200})")


# "two self-attention mechanisms: ...", "a new perspective: ...": what comes next says what they are.
VAGUE = re.compile(r"(?:two|three|four|five|several|some|various|many|multiple|different|a few|a (?:new|novel)|"
                    r"an? (?:\w+ )?(?:and \w+ )?(?:phenomenon|question|challenge|perspective|dilemma|problem))\b",
                    re.I)


_SENTENCE_BREAK = re.compile(r"[.!?]\s")
_FOCUS_FIRST = "IiTtOoHhWw"  # the letters _FOCUS can start with


_FOCUS_LEAD = re.compile(r"(?:the (?:problem|question|task|issue|challenge) of)\s+", re.I)


# "... we revisit DST algorithms and argue that ...", "we address X by developing Y": the focus
# ends where the next verb starts.
_FOCUS_END = re.compile(r"\s+by\s+\w+ing\b|,?\s+and\s+(?:then\s+)?(?:we\s+)?(?:\w+ly\s+)?"
                        r"(?:argue|propose|show|find|introduce|present|develop|demonstrate|prove|provide|design|"
                        r"identify|establish|use|derive|offer)\b")


# "we tackle these challenges through adaptive environment design", "we study this through the lens of
# Goodhart's law": what comes after says what the paper is.
_BY_MEANS = re.compile(r"\b(?:by\s+(?:proposing|introducing|developing|presenting|designing)|through|via)\s+(.+)")


_LENS = re.compile(r"^(?:the\s+)?(?:lens|perspective|prism|viewpoint|scope)\s+of\s+", re.I)


# What points back at an earlier sentence ("the problem from a new perspective", "these
# decisions", "both the ...") names nothing by itself.
ANAPHORA = re.compile(r"(?:\S+\s+){0,5}?(?:this|these|those|such|both|above|aforementioned|it|its|them|our|"
                       r"the (?:problem|issue|question|task|challenge|model|method|setting|phenomenon|approach)(?! of)\b)\b",
                       re.I)


def focus_of(abstract: str, intros: list[re.Match[str]]) -> str:
    """What "we study / this paper explores ..." says the paper is about, when that sentence comes
    before any "we propose" ("LLMs excel at X. This work explores how to repurpose LLMs for
    specialized domains" -> "How to repurpose LLMs for specialized domains"); "" if none.

    On ICML 2024 these phrases share more words with the real titles than the background
    sentence that opens such abstracts, or a later "we construct tests for each ..." does.
    """
    end = intros[0].start() if intros else len(abstract)
    m = _FOCUS.match(abstract, 0, end)
    for brk in () if m else _SENTENCE_BREAK.finditer(abstract, 0, end):
        # (a sentence can match only if it starts with one of _FOCUS's first letters: tested first)
        if abstract[brk.end():brk.end() + 1] in _FOCUS_FIRST and (m := _FOCUS.match(abstract, brk.end(), end)):
            break
    if not m:
        return ""
    clause = _to_clause_end(m.group("rest"))
    named = ": " in clause  # "we study risk-controlled post-processing: given a ...": a term, then its gloss
    rest = clean_phrase(_FOCUS_END.split(clause.split(": ", 1)[0], maxsplit=1)[0])
    rest = _FOCUS_LEAD.sub("", rest, count=1) if _FOCUS_LEAD.match(rest) else rest
    if ANAPHORA.match(rest):  # "we address this issue by proposing prompt sketching, a new ...": that
        means = _BY_MEANS.search(clause)
        rest = _LENS.sub("", clean_phrase(means.group(1)), count=1) if means else ""
        named = True  # a name, however short
    if (len(rest.split()) < (2 if named else 4) or not informative(rest) or ANAPHORA.match(rest)
            or VAGUE.match(rest)):
        return ""
    return rest


def contribution(abstract: str, intros: list[re.Match[str]]) -> str:
    """ "We propose a simple method for X, ..." -> "A simple method for X"; "" if none."""
    intro = next((m for m in intros if not m.group().startswith(("and", "then"))), None)
    if not intro:
        return ""
    if _WE_FIRST.match(abstract) and abstract[:intro.start()].strip():
        return ""  # "We argue that ..." (a contribution later): the first clause says it best
    clause = clean_phrase(_to_clause_end(intro.group("rest")))
    purpose = PURPOSE_BACK.search(clause)  # "online speculative decoding to address this challenge"
    if purpose and len(clause[:purpose.start()].split()) >= 3 and informative(clause[:purpose.start()]):
        clause = clause[:purpose.start()]
    if len(clause.split()) < (2 if purpose else 4) or not informative(clause) or ANAPHORA.match(clause):
        return ""  # "a rigorous understanding of this phenomenon" names nothing by itself
    return trim_words(clause[0].upper() + clause[1:], WHOLE_TITLE_WORDS)


# The question an abstract asks, where it names no contribution: real titles often ask it.
_QUESTION = re.compile(r"(?:^|[.:;]\s+|\?\s+)((?:When|How|What|Why|Which|Can|Could|Does|Do|Is|Are|Should|Will|Would|"
                       r"To what extent|In what)\b[^.?:;]{10,140}\?|(?<=: )(?:when|how|what|why|which|can|could|does|do|is|"
                       r"are|should|will|would)\b[^.?:;]{10,140}\?)")  # (after a colon, lower-case: "a question is: will X?")


_POINTS_BACK = re.compile(r"\b(?:this|that|these|those|it|them)\?$", re.I)


def question_of(abstract: str) -> str:
    """ "... raises a question: how do LLMs handle such trade-offs?" -> "How do LLMs handle such
    trade-offs?"; "" if the abstract asks none that stands alone ("would it be encountered in practice?",
    "what prevents us from doing this?")."""
    m = _QUESTION.search(abstract) if "?" in abstract else None  # (the search tries every position)
    if not m:
        return ""
    q = clean_phrase(m.group(1)).rstrip("?") + "?"
    if not 4 <= len(q.split()) <= MAX_QUESTION_WORDS or _POINTS_BACK.search(q) or ANAPHORA.match(q):
        return ""
    return q[0].upper() + q[1:]


_NOT_ACTIONS = frozenset("is has was does gives lies".split())


def verb_as_gerund(phrase: str) -> str:
    """ "uses X to Y" -> "using X to Y" (what follows "which"/"that" reads as a title in the gerund, as
    real titles write it: "ReDiffuser: utilizing confidence estimation …"; "prunes and tunes X" ->
    "pruning and tuning X"); other phrases as they are."""
    verb, _, rest = phrase.partition(" ")
    if rest.startswith("and "):
        second = verb_as_gerund(rest[4:])
        if second != rest[4:]:
            first = verb_as_gerund(f"{verb} X")
            return f"{first[:-2]} and {second}" if first != f"{verb} X" else phrase
    if not (verb.isalpha() and verb.islower() and verb.endswith("s")) or verb in _NOT_ACTIONS or verb.endswith("ss"):
        return phrase
    if verb.endswith("ies"):
        base = verb[:-3] + "y"
    elif verb.endswith(("sses", "shes", "ches", "xes", "zes")):
        base = verb[:-2]
    else:
        base = verb[:-1]
    purpose = f"To {base} {rest}".rstrip()
    done = gerund(purpose)
    return done[0].lower() + done[1:] if done != purpose else phrase


# "To reduce the balancing error ..." (a purpose clause taken as the contribution) reads as a
# title in the gerund, as real titles write it: "Reducing the balancing error ...".
_TO_VERB = re.compile(r"To (?:([a-z]+ly) )?([a-z]+)\b(?!-)")


_NOT_VERBS = frozenset("date this that these those the a an our its their what which whom such some all each "
                       "one be".split())


_PARTICLES = frozenset("on upon to in into out up down off with for from of about the a an".split())


_DOUBLED = frozenset("embed submit commit admit omit permit transmit refer prefer infer occur control compel "
                     "propel regret forget begin equip".split())


def gerund(title: str) -> str:
    """ "To reduce X" -> "Reducing X", "To thoroughly diagnose X" -> "Thoroughly diagnosing X";
    any other title as it is."""
    m = _TO_VERB.match(title)
    if m and m.group(1) and m.group(2) in _PARTICLES:  # "To rely on X": "rely" is the verb
        m = _TO_VERB.match(title, 0, m.end(1))
    if not m or m.group(2) in _NOT_VERBS:
        return title
    verb = m.group(2)
    if verb.endswith("ie"):
        ing = verb[:-2] + "ying"
    elif verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        ing = verb[:-1] + "ing"
    elif verb in _DOUBLED or re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", verb):
        ing = verb + verb[-1] + "ing"
    else:
        ing = verb + "ing"
    lead = f"{m.group(1)} {ing}" if m.group(1) else ing
    return lead[0].upper() + lead[1:] + title[m.end():]


def capitalized(phrase: str) -> str:
    return trim_words(phrase[0].upper() + phrase[1:], WHOLE_TITLE_WORDS)
