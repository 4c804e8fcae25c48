"""The names an abstract claims as its own, in so many words.

"We introduce OpenVLA, a ...", "we propose a new framework, Foo, that ...", "a method called Foo",
"Foo, a ..., is proposed", "we call it Foo": a claim this plain outranks what the library says of the
name. A name that three or more abstracts use is the field's (:mod:`store.titles.library`)
unless the abstract claims it: the paper that introduces a method is cited by the others, and its
title is the one that should give the name.

:func:`store.titles.names.find_name` takes these as its strongest candidates.
"""

from __future__ import annotations

import re

from store.titles.names import _NAME, FIELD_TERMS, INTRO, NAMING_WORDS, has_naming_word, is_name, split_word

_MARKS = r"[\s*\"“`']*(?:\\textbf\{|\\textsc\{|\\emph\{|\\texttt\{|\{\\bf\s|\{\\sc\s|\$\\text\w*\{)?\s*"
# Plain capitalized words make a name only right after the verb and before an apposition:
# "we propose Audio Flamingo, a novel audio language model".
_WORDS_NAME = r"[A-Z][a-z]+(?:\s(?:[A-Z][a-z]+|[A-Z][A-Z0-9]+))?(?:\s[A-Z][a-z]+|\s[A-Z][A-Z0-9]+)"
# A name that is mathematics: "we present $\pi_{0.5}$, a ..."
_MATH_NAME = r"\$\\[A-Za-z]+_\{?[\w.]+\}?\$"
_AFTER = r"(?=[\s*}\"”'`$]*(?:[,:(—–]|\s(?:as|to|for|which|that|is)\b))"
_DIRECT = re.compile(_MARKS + r"(?:the\s+)?(?P<name>" + _NAME + "|" + _MATH_NAME + r")" + _AFTER)
_DIRECT_WORDS = re.compile(r"\s*(?P<name>" + _WORDS_NAME + r")(?P<alias>\s*\([^()]{1,12}\))?,\s+(?:an?|the)\s")
# In the "we propose" sentence, a name set off by commas: "a new framework, Foo, that ..."
# (not one of a list: "benchmarks: A, MMLU, HELM", "including OPT, LLaMA2, Falcon").
_APPOSED = re.compile(r"[,:]\s*" + _MARKS + r"(?P<name>" + _NAME + r")" + r"(?=[\s*}\"”'`$]*(?:,\s*(?:an?|the|which|that|whose|to|"
                      r"for|designed|built|based|consisting)\b|\s*[(:—–]|\s(?:that|which|to|for)\b|\.|$))")
_BOLD_ACRONYM = re.compile(r"\(\s*(?:\*\*|\\textbf\{)(?P<name>" + _NAME + r")(?:\*\*|\})\s*\)")
_SENTENCE_STOP = re.compile(r"[.;]\s")
# A cheap test before the pattern it stands for (one literal scan, not a match at every word).
_PASSIVE = re.compile(r"s (?:proposed|introduced|presented|developed)\b")
# A long form in capitals and its acronym, right after the verb or set off by a comma: "we propose
# Cross-Risk Minimization (XRM)", "we propose a novel algorithm, Scheduled Multi-Task Training (SMT), that".
_SPELLED_OUT = re.compile(r"(?:^\s*|[,:]\s*)(?:[*\s]*[A-Z][\w-]*\**\s+){1,6}\(\s*(?:\*\*)?(?P<name>" + _NAME + r")(?:\*\*)?\s*\)")
_LISTED = re.compile(r"(?::|\binclud\w*|\bsuch as|\blike|\be\.g\.)[^.;]*$")
# "called X" is a claim in a sentence of ours ("we propose a new approach called DG"), not in
# "Adam corresponds to a framework called FTRL".
_OURS_BEFORE = re.compile(r"\b(?:[Ww]e|[Tt]his (?:paper|work))\s+(?:\w+ly\s+)?(?:introduce|propose|present|develop|design|"
                          r"build|construct|curate|release|devise|create|offer)\w*\b[^.;]{0,160}$")
_CALLED = re.compile(r"\b(?:" + "|".join(NAMING_WORDS) + r")\s+(?:as\s+)?" + _MARKS + r"(?P<name>" + _NAME + ")")
_WE_CALL = re.compile(r"\b[Ww]e\s+(?:call|term|dub|name|coin)\s+(?:it|this|them|(?:our|the|this)\s[\w\s-]{1,30}?)\s+(?:as\s+)?"
                      + _MARKS + r"(?P<name>" + _NAME + ")")
_PROPOSED = re.compile(r"(?:^|[.;]\s+)" + _MARKS + r"(?P<name>" + _NAME + r")[\s*}\"”']*,\s+(?:an?|the)\s[^.;]{3,120}?,\s+"
                       r"(?:is|was)\s+(?:proposed|introduced|presented|developed)\b")


def claimable(name: str) -> bool:
    """Name-shaped (store.titles.names.is_name), or a field term the abstract may yet claim
    (SGDM, CCA: each some other paper's name too)."""
    if name.startswith("$"):
        return True  # a math name (see _MATH_NAME)
    base = re.sub(r"\$[^$]*\$?", "", name) or name
    return is_name(base) or base in FIELD_TERMS


def claimed_names(abstract: str, intros: list[re.Match[str]] | None = None) -> list[tuple[str, int, int]]:
    """The names the abstract claims, with where each stands (name, start, end), in the order found."""
    if intros is None:
        intros = list(INTRO.finditer(abstract))
    found: list[tuple[str, int, int]] = []
    for m in intros:
        if not m.group().startswith(("and", "then")):
            found += _after_intro(abstract, m)
    found += _named_in_head(abstract[:3000])
    return [(name.rstrip(".-"), start, max(end - len(name) + len(name.rstrip(".-")), start + len(name.rstrip(".-"))))
            for name, start, end in found if not split_word(abstract, start, end)]  # (not "Fre" of \textbf{Fre}quency)


def _after_intro(abstract: str, m: re.Match[str]) -> list[tuple[str, int, int]]:
    """The names a "we propose/introduce" sentence claims: right after the verb, in words with an
    alias, a bold or spelled-out acronym, or set off by a comma or colon."""
    found: list[tuple[str, int, int]] = []
    rest, at = m.group("rest"), m.start("rest")
    # (read in the abstract, not in ``rest``: INTRO's rest ends at a period, as in $\pi_{0.5}$)
    direct = _DIRECT.match(abstract, at)
    if direct and claimable(direct.group("name")):
        found.append((direct.group("name"), direct.start("name"), direct.end("name")))
    words = _DIRECT_WORDS.match(abstract, at)
    if words:  # (its end after the alias: "Instructive Decoding (ID), a simple approach")
        found.append((words.group("name"), words.start("name"), words.end("alias" if words.group("alias") else "name")))
    sentence = _SENTENCE_STOP.split(rest, maxsplit=1)[0]
    if "(" in sentence:
        for pattern in (_BOLD_ACRONYM, _SPELLED_OUT):  # "… Transformer (**HEPT**)"; "…, Scheduled Multi-Task Training (SMT),"
            hit = pattern.search(sentence)
            if hit and claimable(hit.group("name")):
                found.append((hit.group("name"), at + hit.start("name"), at + hit.end("name")))
    for apposed in _APPOSED.finditer(sentence) if ("," in sentence or ":" in sentence) else ():
        if claimable(apposed.group("name")) and not _LISTED.search(sentence, 0, apposed.start()):
            found.append((apposed.group("name"), at + apposed.start("name"), at + apposed.end("name")))
    return found


def _named_in_head(head: str) -> list[tuple[str, int, int]]:
    """Names the abstract's head gives in so many words: "X, a …, is proposed", "called X" (after a
    sentence of the paper's own), "we call it X"."""
    passive = ("s proposed" in head or "s introduced" in head or "s presented" in head or "s developed" in head)
    patterns = [_PROPOSED] if passive and _PASSIVE.search(head) else []
    if has_naming_word(head):
        patterns.append(_CALLED)
    # ("we call it", "we term our method": substring tests, far cheaper than a scan for them)
    if "e call " in head or "e term " in head or "e dub " in head or "e name " in head or "e coin " in head:
        patterns.append(_WE_CALL)
    found: list[tuple[str, int, int]] = []
    for pattern in patterns:
        for m in pattern.finditer(head):
            if pattern is _CALLED and not _OURS_BEFORE.search(head, max(0, m.start() - 200), m.start()):
                continue
            if claimable(m.group("name")):
                found.append((m.group("name"), m.start("name"), m.end("name")))
    return found
