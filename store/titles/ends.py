"""How a derived title ends: on a whole phrase, never on a word that leads into what a cut took
away ("a method for", "EquiBot: a robust", "a model trained"), with its brackets and quotes
paired. Used by :mod:`store.titles.derive` as it fits a phrase to a list row."""

from __future__ import annotations

import re

from store.titles.phrases import ADJECTIVE_LIST, WHOLE_TITLE_WORDS
from store.titles.text import clean_phrase, trim_words

_SPACES = re.compile(r"\s+")
DANGLING = frozenset("called named termed dubbed coined namely under during towards toward over between among "
                      "across within without through whether against about upon beyond simply is are was were be "
                      "a an the of in on at to for with by from as and or but that which whose where when "
                      "such than into onto via".split())


# An article and an adjective with no noun after them ("EquiBot: a robust"): the head noun was cut away.
_LONE_ADJECTIVE = re.compile(r"(?:novel|new|simple|general|first|robust|unified|large|small|deep|neural|low-cost|"
                             r"[\w-]+(?:ive|ous|able|ible|ful|al|ic)|[\w-]+-(?:free|based|scale|aware|cost|level|driven|specific|agnostic|"
                             r"like|[a-z]+ed))$")
NOT_ADJECTIVES = frozenset("objective alternative representative incentive derivative initiative variable table "
                            "signal interval retrieval proposal potential manual trial metric logic topic critic "
                            "heuristic arithmetic".split())
ARTICLES = frozenset(("a", "an", "the"))


def lone_adjective(words: list[str], kept: int) -> bool:
    """Whether ``words[:kept]`` ends on an article and an adjective (``kept`` -1: all the words)."""
    kept = len(words) if kept < 0 else kept
    last = words[kept - 1].lower().rstrip(",;:")
    return (kept > 2 and words[kept - 2].lower() in ARTICLES and last not in NOT_ADJECTIVES
            and _LONE_ADJECTIVE.match(last) is not None)


def without_dangling(text: str) -> str:
    """``text`` without the words at its end that lead into something ("a method for", "X of the",
    "NAME: a robust")."""
    words = text.split()
    kept = len(words)
    while kept > 1 and not words[kept - 2].endswith(":"):
        if words[kept - 1].lower() in DANGLING:
            kept -= 1
        elif lone_adjective(words, kept):
            kept -= 2
        else:
            break
    return " ".join(words[:kept]).rstrip(" ,;:–—-")


_ORDINALS = frozenset("first second most".split())
_NOT_AN_ADJECTIVE = re.compile(r",\s+(?:(?:and|or|but|yet)\s+)?(?:a|an|the|which|that|where|whose|we|it|this|these|while|"
                               r"i\.e|e\.g|including|such|as|to|for|with|by|in|on|of)\b", re.I)


def through_adjectives(abstract: str, phrase: str) -> str:
    """``phrase`` carried on to its head noun when a comma between adjectives cut it ("a novel,
    brain-inspired architecture for X" had become "a novel"); as it is otherwise."""
    words = phrase.rstrip("…").split()
    if len(words) < 2:
        return phrase
    if not lone_adjective(words, len(words)):
        # Any word after an article ("an efficient", "the slow", "the first open-sourced") when the
        # abstract goes on with a comma and another single word that is no clause: a cut list.
        lead = words[-3].lower() if len(words) > 2 and words[-2].lower() in _ORDINALS else words[-2].lower()
        if lead not in ARTICLES:
            return phrase
    tail = " ".join(words[-2:])
    at = abstract.find(tail)
    more = ADJECTIVE_LIST.match(abstract, at + len(tail)) if at >= 0 else None
    if not more or len(more.group().split()) < 2 or _NOT_AN_ADJECTIVE.match(more.group()):
        return phrase
    return trim_words(clean_phrase(" ".join(words) + more.group()), WHOLE_TITLE_WORDS)


_ENUMERATOR = re.compile(r"(?:^|(?<=\s))\(?(?:[1-9]|[a-h]|i{1,3}|iv)\)\s+")  # "(1) X", "of 1) X and 2) Y"
_APOSTROPHE = re.compile(r"(?<=\w)’(?=\w)|(?<=s)’(?=\s|$)")  # Parkinson’s, models’
_PAIRS = (("(", ")"), ("[", "]"), ("“", "”"), ("‘", "’"))
_PAIRED_CHARS = re.compile(r"[()\[\]“”‘’\"`]|''")
_TEX_QUOTED = re.compile(r"(?:``|'')(.+?)(?:''|”|\")")
_OPENING_PAIR = re.compile(r'^(["“‘(\[])([^"”’)\]]{1,60})(["”’)\]])')


def balanced(title: str) -> str:
    """``title`` with its brackets and quotes paired: TeX quotes (``x'' and ''x'') as “x”, list
    numbers ("(1)", "2)") dropped, a quote or bracket left without its partner dropped (an
    unclosed "(" with what follows it, when enough is left before it), and no title opening on a
    bracket or quote: "“Forward-only” algorithms" reads "Forward-only algorithms"."""
    if not _PAIRED_CHARS.search(title):
        return title  # most titles: nothing to pair (the import derives one a paper)
    if "`" in title or "''" in title:
        title = _TEX_QUOTED.sub(r"“\1”", title).replace("``", "").replace("''", "")
    if ")" in title:
        title = _ENUMERATOR.sub("", title)
    for left, right in _PAIRS:
        if left in title or right in title:
            title = _paired(title, left, right)
    if title.count('"') % 2:
        at = title.rfind('"')
        title = title[:at] + title[at + 1:]
    opener = _OPENING_PAIR.match(title)
    if opener:
        title = opener.group(2) + title[opener.end():]
    title = title.lstrip("\"“‘([)]”’ ")
    return _SPACES.sub(" ", title).strip()


def _paired(title: str, left: str, right: str) -> str:
    """``title`` with each ``left`` and ``right`` left without its partner dropped (an unclosed "("
    with what follows it, when three words or more are left before it)."""
    text = _APOSTROPHE.sub("\0", title) if right == "’" else title  # apostrophes kept aside
    stray, opened = [], []
    for i, ch in enumerate(text):
        if ch == left:
            opened.append(i)
        elif ch == right:
            if opened:
                opened.pop()
            else:
                stray.append(i)  # a closer without its opener
    if opened and left == "(" and len(title[:opened[0]].split()) >= 3:
        return title[:opened[0]].rstrip(" ,;:–—-")
    if stray or opened:
        drop = set(stray) | set(opened)
        return "".join(ch for i, ch in enumerate(title) if i not in drop)
    return title


def tidy_end(title: str) -> str:
    """No title ends on a word that leads into what was cut away ("LESS: a simple integration of a",
    where a parenthesis followed; "A scheduling strategy that", where a comma did): such words
    go, and so do the adjectives and participles left before them ("a model trained")."""
    whole = title.rstrip("…")
    kept = without_dangling(whole)
    return whole if len(kept.split()) == len(whole.split()) else noun_end(kept)


# Words a phrase cut short may end on that wait for a noun or a complement: participles and adjectives.
_WAITING = re.compile(r"(?:trained|designed|based|built|tailored|aimed|developed|used|applied|intended|dedicated|"
                      r"suited|able|capable|due|prone|specifically|[a-z]+ly|" + _LONE_ADJECTIVE.pattern[3:-2] + r")$")


_PARTICIPLE_END = re.compile(r"\s+(?:trained|designed|based|built|tailored|developed|used|applied|able|capable)$")


def complete(title: str) -> str:
    """A phrase that ends on a participle waiting for its complement ("Transformers trained", "an
    environment based") or on an adjective after a preposition or an article ("a class of deep"):
    ended before them."""
    while True:
        m = _PARTICIPLE_END.search(title)
        words = title.split()
        if m and len(words) > 3 and not words[-2].endswith(":"):
            title = without_dangling(title[:m.start()])
            continue
        if len(words) > 3 and words[-2].lower() in DANGLING and not words[-2].endswith(":") \
                and _WAITING.match(words[-1].lower()) and words[-1].lower() not in NOT_ADJECTIVES \
                and not words[-1][:1].isupper():
            title = without_dangling(" ".join(words[:-1]))
            continue
        return title


def noun_end(text: str) -> str:
    """A phrase cut short, ended on the last word that can end it: what waits for a noun or a
    complement (see _WAITING and DANGLING) goes, down to three words or the name's colon."""
    words = text.split()
    while len(words) > 3 and not words[-2].endswith(":"):
        last = words[-1].lower().rstrip(",;:")
        if last in DANGLING or (_WAITING.match(last) and last not in NOT_ADJECTIVES):
            words.pop()
        else:
            break
    return " ".join(words).rstrip(" ,;:–—-")
