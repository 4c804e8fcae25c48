"""The vocabulary's sorted tables: the words in order, handed out one first-character chunk at a
time (:class:`SortedWords`), and each form key's term ids (:func:`stem_tables`).

Kept apart from :mod:`store.search.vocab` (which reads them) because the index builder and the
one-shot search's file reader make them without a vocabulary.
"""

from __future__ import annotations

import bisect
from array import array
from typing import Callable

from store.search.forms import form_keys


def stem_tables(terms: list[str]) -> tuple[list[str], array[int], array[int]]:
    """For sorted ``terms``: the sorted distinct form keys (:func:`store.search.forms.form_keys`),
    and each key's term ids (``members[offsets[k]:offsets[k + 1]]``, ascending). Computed once
    per index build and saved with it."""
    pairs = sorted(zip(form_keys(terms), range(len(terms))))
    stems: list[str] = []
    offsets = array("i")
    members = array("i", [i for _, i in pairs])
    for k, (st, _) in enumerate(pairs):
        if not stems or stems[-1] != st:
            stems.append(st)
            offsets.append(k)
    offsets.append(len(pairs))
    return stems, offsets, members


LAST_CHAR = "\U0010ffff"  # sorts after every character: word + LAST_CHAR bounds word's completions


class SortedWords:
    """A sorted word list, handed out one first-character chunk at a time.

    Every lookup here (a word, its completions, typo candidates) stays within the
    words sharing its first character. In memory (the app) a chunk is a slice of the
    whole list; from an index file (:mod:`store.search.quick`) only the chunks a query
    touches are read, through ``loader``.

    Args:
        words: the whole sorted list, or None with ``loader(first) -> (start, words)``.
    """

    def __init__(self, words: list[str] | None = None,
                 loader: Callable[[str], tuple[int, list[str]]] | None = None) -> None:
        self.words = words
        self._loader = loader
        self._chunks: dict[str, tuple[int, list[str]]] = {}

    def chunk(self, first: str) -> tuple[int, list[str]]:
        """The position of the first word starting with ``first``, and those words."""
        hit = self._chunks.get(first)
        if hit is None:
            if self.words is not None:
                lo = bisect.bisect_left(self.words, first)
                hit = (lo, self.words[lo:bisect.bisect_left(self.words, first + LAST_CHAR, lo)])
            else:
                assert self._loader is not None  # given when the words are not
                hit = self._loader(first)
            self._chunks[first] = hit
        return hit

    def find(self, word: str) -> int | None:
        """The word's position, if it is in the list."""
        start, words = self.chunk(word[0])
        i = bisect.bisect_left(words, word)
        return start + i if i < len(words) and words[i] == word else None

    def word_at(self, i: int) -> str:
        """The word at position ``i``, in a chunk already read (every id a lookup handed out is)."""
        if self.words is not None:
            return self.words[i]
        for start, words in self._chunks.values():
            if start <= i < start + len(words):
                return words[i - start]
        raise IndexError(f"word {i} is in no chunk read")

    def completions(self, prefix: str) -> range:
        """Positions of the words starting with ``prefix`` (itself included)."""
        start, words = self.chunk(prefix[0])
        lo = bisect.bisect_left(words, prefix)
        return range(start + lo, start + bisect.bisect_left(words, prefix + LAST_CHAR, lo))
