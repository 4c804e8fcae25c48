"""Words joined by OR in a query: ``diffusion OR flow`` (either does), ``rlhf OR dpo OR kto``, and a
phrase as one alternative, ``diffusion OR "flow matching"`` (its words standing together, found as
the compound ``flow-matching`` is: in any of its spellings and forms).

:class:`Joiner` reads the groups as :func:`store.search.query.parse_query` reads the tokens, into
``Query.either``. An OR that joins nothing usable (at an end, beside a filter, beside a word too
common to search for) refuses the query (``Query.refused``, said in ``errors``): it lists no paper,
never the papers holding every word, which is not what was asked.
"""

from __future__ import annotations

from typing import Protocol

from store.text import STOP_WORDS, math_words, query_terms


class Filter(Protocol):
    """What is read of a query's filter (store.search.query.Filter)."""

    value: str
    negated: bool


class Query(Protocol):
    """What the OR groups change of a query being parsed (store.search.query.Query)."""

    text: str
    words: list[str]
    either: list[list[str]]
    errors: list[str]
    refused: bool

    def drop(self, f: object) -> None: ...


OR_BETWEEN_WORDS = 'OR needs a word or a phrase on each side (diffusion OR "flow matching")'


def or_not_filters(asked: str) -> str:
    """What is said of an OR beside a filter: ``asked`` is the query without that OR."""
    return f"OR joins words and phrases, not filters: leave it out ({asked})"


def too_common(word: str) -> str:
    return f"OR joins words that count: '{word}' is too common to search for"


class Joiner:
    """The OR groups of one query, read token by token."""

    def __init__(self, q: Query) -> None:
        self.q = q
        self.last: str | None = None       # the last word of the token just read (None: no word)
        self.phrase: Filter | None = None  # the phrase just read: an alternative if an OR follows it
        self.pending = False               # an OR follows ``last``: the next word or phrase joins it
        self.filter_before = False         # the token just read was a filter (an OR after it: said so)
        self.at = (0, 0)                   # where the last OR stands in the query (what is said drops it)

    def operator(self, at: tuple[int, int]) -> None:
        """An OR (typed whole: the app's word being typed is never one, it may become "ORPO"),
        standing at ``at`` in the query."""
        self.at = at
        if self.last is None and self.phrase is not None:
            self.last = self._as_term(self.phrase)
        if self.last is None or self.pending:
            self._refuse(self._beside_filter() if self.filter_before and not self.pending else OR_BETWEEN_WORDS)
        self.pending, self.phrase = self.last is not None, None

    def words(self, terms: list[str]) -> None:
        """A token of words (a compound is one)."""
        if self.pending and self.last is not None:
            self._join(self.last, terms[0])
        self.pending, self.last, self.phrase, self.filter_before = False, terms[-1], None, False

    def joins_phrase(self, f: Filter) -> bool:
        """A phrase: True when it is an OR's alternative (then it is a term, not a filter)."""
        joined = self.pending and not f.negated
        if joined:
            term = _phrase_term(f.value)
            if term is not None:
                self.q.words.append(term)
                self.words([term])
                return True
        self.other()
        self.phrase = f if not f.negated else None
        return False

    def other(self, why: str | None = None) -> None:
        """A token that is no word (a filter, an id, -word; an empty phrase: ``why`` then says so):
        an OR before it joins nothing."""
        if self.pending:
            self._refuse(why or self._beside_filter())
        self.pending, self.last, self.phrase = False, None, None
        self.filter_before = why is None

    def _beside_filter(self) -> str:
        """What is said of the last OR, beside a filter, with the query as it reads without it."""
        text, (start, end) = self.q.text, self.at
        return or_not_filters(" ".join(f"{text[:start]} {text[end:]}".split()))

    def end(self, done: bool) -> None:
        """The query's end: an OR there joins nothing, unless its next word is still to be typed."""
        if self.pending and done:
            self._refuse(OR_BETWEEN_WORDS)

    def _as_term(self, f: Filter) -> str | None:
        """The phrase before an OR, taken out of the filters as the term it stands for."""
        term = _phrase_term(f.value)
        if term is not None:
            self.q.drop(f)
            self.q.words.append(term)
        return term

    def _join(self, word: str, other: str) -> None:
        """Put ``word`` and ``other`` in one OR group (theirs, merged, or a new one of the two)."""
        for w in (word, other):
            if w in STOP_WORDS:
                self._refuse(too_common(w))
        groups = self.q.either
        mine = next((g for g in groups if word in g), None)
        theirs = next((g for g in groups if other in g), None)
        if mine is not None and mine is theirs:
            return
        if mine is None:
            mine = [word]
            groups.append(mine)
        if theirs is None:
            mine.append(other)
        else:
            mine.extend(theirs)
            groups.remove(theirs)

    def _refuse(self, why: str) -> None:
        self.q.refused = True
        if why not in self.q.errors:
            self.q.errors.append(why)


def _phrase_term(text: str) -> str | None:
    """A phrase's words as one compound term ("flow matching" -> ``flow-matching``; None: no word)."""
    terms = query_terms(text)
    words = terms[:len(terms) - len(math_words(text))]
    return "-".join(words) or None
