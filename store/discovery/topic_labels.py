"""Topic labels that read as the papers write them: phrases, not loose index terms.

The index holds single words and hyphenated words joined, so a topic's most
over-represented terms came out as ``carlo · monte · bayesian``, ``black · box ·
blackbox`` or ``visionlanguage``. Here each chosen term is grown into the phrase
its papers use: the term's occurrences in a sample of the topic's abstracts are
extended one word left or right while most of them (half or more, in three or
more papers) share that word, up to three words (a hyphenated word counting as
one). ``carlo`` becomes "Monte Carlo" (as written), ``language`` "large language
models", ``selfattention`` "self-attention". A phrase that says what another label
says is dropped: its words, a plural, a hyphen, a second form of a word (graph /
graphs, robot / robotic) or an acronym (LLMs / large language models).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import lru_cache

from store.text import _DROP, _PUNCT, strip_latex

MAX_UNITS = 3     # words in a phrase, a hyphenated word counting as one
SHARE = 0.5       # of the current phrase's papers that must share an extension
MIN_PAPERS = 3

Span = tuple[int, int, int]  # (abstract, first unit, one past the last unit)


def fold(word: str) -> str:
    """A key under which a word's plural and singular meet (networks / network, gnns / gnn,
    policies / policy)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


class Sample:
    """Some of a topic's abstracts as units: words, or hyphenated words kept whole.

    ``docs[d]`` is an abstract's units as written, with ``BREAK`` where punctuation
    stood: no phrase crosses one, so "large language models (LLMs)" does not run on
    into "LLMs". A unit's key (:func:`unit_key`) is how units are compared.
    """

    def __init__(self, texts: Iterable[str]):
        """Args: texts: abstracts as written."""
        self.docs: list[list[str]] = []
        self.lower: list[list[str]] = []
        self.words: list[set[str]] = []  # to pass over the abstracts without a word at once
        self.hyphenated: list[dict[str, list[int]]] = []  # per abstract: part or joined word -> units
        for text in texts:
            text = _plain(text).translate(_TO_BREAK).replace(BREAK, f" {BREAK} ")
            units, lower = text.split(), text.lower().split()
            if len(lower) != len(units):  # a character whose lower case is a space: not seen
                lower = [u.lower() for u in units]
            hyphenated = [i for i, u in enumerate(units) if "-" in u] if "-" in text else []
            for i in hyphenated:
                units[i], lower[i] = units[i].strip("-") or BREAK, lower[i].strip("-") or BREAK
            self.docs.append(units)
            self.lower.append(lower)
            self.words.append(set(lower))
            parts: dict[str, list[int]] = defaultdict(list)
            for i in hyphenated:
                if units[i] != BREAK:
                    for part in {*lower[i].split("-"), lower[i].replace("-", "")}:
                        parts[part].append(i)
            self.hyphenated.append(parts)

    def places(self, term: str) -> list[Span]:
        """Where an index term occurs: a unit that is the term, or a hyphenated unit that has
        it as a part or joined (``fine`` and ``finetuning`` are both in "fine-tuning")."""
        out = []
        for d, lower in enumerate(self.lower):
            found = [i for i, u in enumerate(lower) if u == term] if term in self.words[d] else []
            found += self.hyphenated[d].get(term, [])
            out += [(d, i, i + 1) for i in found]
        return out

    def key(self, d: int, i: int) -> str:
        """Unit ``i`` of abstract ``d`` lower-cased, folded and without hyphens."""
        return unit_key(self.docs[d][i])

    def phrase(self, term: str, stop: frozenset[str]) -> tuple[str, tuple[str, ...]]:
        """The phrase ``term`` grows into, as most often written, and its units' keys.

        ``term`` itself when the sampled abstracts do not hold it (math names such as
        ``epsilon`` are not in the text at all), or when no one hyphenated word holds most of
        its occurrences (``multi`` in multi-task, multi-agent, multi-modal). A word becomes the
        hyphenated word it is part of, or grows, only from ``MIN_PAPERS`` abstracts on; a joined
        term is written as the papers write it from one ("humanlike": "human-like").
        """
        places = self.places(term)
        groups: dict[str, list[Span]] = defaultdict(list)
        for span in places:
            groups[self.key(span[0], span[1])].append(span)
        spans = max(groups.values(), key=_papers, default=[])
        if not spans or _papers(spans) < SHARE * _papers(places):
            return term, (fold(term),)
        if _papers(spans) < MIN_PAPERS and self.key(*spans[0][:2]) != unit_key(term):
            return term, (fold(term),)  # "log", in one "poly-log" here: too little to go by
        while (grown := self._extend(spans, stop)) is not None:
            spans = grown
        d, start, end = spans[0]
        return self._written(spans), tuple(self.key(d, i) for i in range(start, end))

    def _written(self, spans: list[Span]) -> str:
        """The phrase as most abstracts write it: hyphens and plurals as most write them
        ("fine-tuning", "neural networks"); a unit's capitals when most occurrences have
        them beyond the first letter ("GNNs"), or most of those not after punctuation start
        with one ("Monte Carlo"): a capital at a sentence's start is not the word's own."""
        forms: dict[str, list[tuple[list[str], bool]]] = defaultdict(list)
        for d, start, end in spans:
            written = self.docs[d][start:end]
            opens = start == 0 or self.docs[d][start - 1] == BREAK  # maybe a sentence's first word
            forms[" ".join(written).lower()].append((written, opens))
        shape, seen = max(forms.items(), key=lambda kv: len(kv[1]))
        out = []
        for k, unit in enumerate(shape.split(" ")):
            variants = [ws[k] for ws, _ in seen]
            inner = [w for w in variants if any(c.isupper() for c in w[1:])]
            mid = [ws[k] for ws, opens in seen if k or not opens]  # a capital here is the word's own
            if len(inner) * 2 > len(variants):
                out.append(Counter(inner).most_common(1)[0][0])
            elif mid and sum(w[:1].isupper() for w in mid) >= 0.7 * len(mid):
                out.append(unit[:1].upper() + unit[1:])
            else:
                out.append(unit)
        return " ".join(out)

    def _extend(self, spans: list[Span], stop: frozenset[str]) -> list[Span] | None:
        """The spans grown by the unit most of them share on one side, or None."""
        _, first, end = spans[0]
        if end - first >= MAX_UNITS:
            return None
        sides: dict[tuple[str, str], list[Span]] = defaultdict(list)
        for d, start, end in spans:
            units = self.docs[d]
            if start > 0 and units[start - 1] != BREAK:
                sides["left", self.key(d, start - 1)].append((d, start - 1, end))
            if end < len(units) and units[end] != BREAK:
                sides["right", self.key(d, end)].append((d, start, end + 1))
        need = max(MIN_PAPERS, SHARE * _papers(spans))
        stop = _stop_keys(stop)
        best = max(((_papers(g), g) for (_, key), g in sides.items() if key.isalpha() and key not in stop),
                   key=lambda ng: ng[0], default=(0, None))
        return best[1] if best[0] >= need else None


@lru_cache(maxsize=4)
def _stop_keys(stop: frozenset[str]) -> frozenset[str]:
    """Function words as unit keys ("this" -> thi), so "This position" does not grow from "position"."""
    return frozenset(unit_key(w) for w in stop) | stop


def _papers(spans: list[Span]) -> int:
    return len({d for d, _, _ in spans})


BREAK = "\x00"
_TO_BREAK = str.maketrans({c: BREAK for c in _PUNCT.replace("-", "")})  # one character each: fast


@lru_cache(maxsize=65536)
def unit_key(unit: str) -> str:
    """How units compare: lower case, plural folded, hyphens dropped (Fine-tuning -> finetuning)."""
    return fold(unit.lower().replace("-", ""))


def _plain(text: str) -> str:
    """An abstract without LaTeX commands and Markdown, case kept (normalize() folds it)."""
    return (strip_latex(text) if "\\" in text else text).translate(_DROP)


def _initials(written: str) -> str:
    """"large language models" -> llm, "out-of-distribution" -> ood."""
    return fold("".join(w[0] for w in re.split(r"[ -]+", written.lower()) if w))


def label(sample: Sample, terms: Iterable[str], stop: frozenset[str], top: int = 3) -> list[str]:
    """Up to ``top`` phrases for a topic from its terms, best first (see the module docstring)."""
    chosen: list[tuple[str, tuple[str, ...]]] = []
    for term in terms:
        written, key = sample.phrase(term, stop)
        if any(_same(written, key, w, k) for w, k in chosen):
            continue
        chosen.append((written, key))
        if len(chosen) == top:
            break
    return [w for w, _ in chosen]


def _same(written: str, key: tuple[str, ...], other: str, other_key: tuple[str, ...]) -> bool:
    """Whether two phrases say the same: one's words hold the other's (monte / Monte Carlo,
    graph / graphs, box / black-box), they differ by hyphens (time series / time-series),
    one is a form of the other's word (perception / perceptual, robot / robotic), or an acronym of it
    (LLMs / large language models, OOD / out-of-distribution)."""
    units, others = set(key), set(other_key)
    if units <= others or others <= units or "".join(key) == "".join(other_key):
        return True
    if len(key) == len(other_key) == 1:
        short, long = sorted((key[0], other_key[0]), key=len)
        if (len(short) >= 6 and short[:6] == long[:6]) or (len(short) >= 4 and long.startswith(short)):
            return True
    return bool(units & {_initials(other)} or others & {_initials(written)})
