"""Query words that stand close together in a paper rank above the same words scattered.

``language model task planning``: a paper on "language models for task planning" and one that
mentions a language model in one sentence and a planning task in another both hold every word,
and BM25 cannot tell them apart. After the ranking, the first ``PROXIMITY_DEPTH`` papers of the
result set are read again, and each gains ``PHRASE_WEIGHT`` times n / span, where span is the
fewest consecutive words of its title (with keywords) or abstract that hold all n query words
(each in one of its forms, "models" for "model", or the word a typo surely stands for; never a
mere look-alike): 1 where the words stand
together, in any order, less as they scatter, 0 where no one text holds them all. So this
reorders the papers the index found, never adds or drops one.

The span, not word pairs in the order typed: on the known-item queries (title words in a random
order) pairs lost papers a span found, and on multi-word phrase queries the two were alike (see
docs/quality.md, "Words standing together").

Pure Python, shared by the full search (store.library.search) and the one-shot search
(store.search.quick), which must order the same papers the same way: the keys are float64 in
both, the bonus the same Python float, the sort stable.
"""

from __future__ import annotations

from typing import Callable, Sequence

from store.search.vocab import content_words
from store.text import normalize, words as text_words

PROXIMITY_DEPTH = 30  # papers of the result set read again (~3-5 ms: docs/performance.md)
PHRASE_WEIGHT = 2.0   # the bonus of a paper holding the words side by side (a key is ~3 per word plus BM25)
TEXT_FIELDS = ("title", "keywords", "abstract")  # what is read again of a paper, as the index holds it


def word_groups(words: Sequence[str], forms: Callable[[str], frozenset[str]],
                either: Sequence[Sequence[str]] = ()) -> list[frozenset[str]]:
    """Per content word typed, its forms in the library (``forms``: Vocabulary.forms), the words of
    an OR group (``either``) together as one; a word with none, and a compound (its parts already
    have to stand together), left out, and a group holding one."""
    groups = []
    grouped = {w for group in either for w in group}
    alone = [[w] for w in content_words(list(words)) if w not in grouped]
    for members in [*alone, *either]:
        if any("-" in w for w in members):
            continue
        found = frozenset().union(*(forms(w) for w in members))
        if found:
            groups.append(found)
    return groups


def texts_of(fields: Sequence[object]) -> list[str]:
    """A paper's title with its keywords, and its abstract (its ``TEXT_FIELDS``): a span never
    crosses from one to the other."""
    title, keywords, abstract = fields
    return [" ".join([str(title), *map(str, keywords if isinstance(keywords, list) else [])]), str(abstract)]


def tokens_of(texts: Sequence[str]) -> list[list[str]]:
    """Each text's words as the index reads them (normalized, case-folded): what :func:`min_span` scans."""
    return [text_words(normalize(text)) for text in texts]


def min_span(token_lists: Sequence[list[str]], groups: Sequence[frozenset[str]]) -> int:
    """The fewest consecutive words of one token list (:func:`tokens_of`) holding a term of
    every group (0: no list does)."""
    n = len(groups)
    owner: dict[str, list[int]] = {}
    for g, terms in enumerate(groups):
        for term in terms:
            owner.setdefault(term, []).append(g)
    best = 0
    for tokens in token_lists:
        last = [-1] * n  # where each group was last seen
        seen = 0
        for at, token in enumerate(tokens):
            hit = owner.get(token)
            if hit is None:
                continue
            for g in hit:
                if last[g] < 0:
                    seen += 1
                last[g] = at
            if seen == n:
                span = at - min(last) + 1
                if not best or span < best:
                    best = span
                    if best == n:
                        return best
    return best


def reordered(keys: Sequence[float], spans: Sequence[int], n: int) -> list[int]:
    """New positions of the first papers of a result set (``keys``: their ranking keys, best
    first; ``spans``: each one's :func:`min_span` of ``n`` words): key plus bonus, best first,
    ties in their old order."""
    bonus = [key + (PHRASE_WEIGHT * n / span if span else 0.0) for key, span in zip(keys, spans)]
    return sorted(range(len(bonus)), key=lambda i: -bonus[i])
