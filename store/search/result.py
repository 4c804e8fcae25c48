"""What a search returns: the papers it found, the result set first."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class SearchResult:
    """Papers (corpus indices) for a query: the result set first, then weaker matches.

    The result set is what every command that acts on "the results" acts on (the count, select
    all, ``list --query``, ``export --query``): for words, the papers holding every content word
    (typos and word forms forgiven as the ranking forgives them, stop words not required; tags,
    notes, keywords and titles count). After it come up to ``store.search.quick.WEAKER_SHOWN`` weaker matches, shown
    apart and never counted: those holding most of the words, or, when no paper holds them all,
    the best partial matches.
    """

    indices: np.ndarray
    total: int
    matched_terms: set[str] = field(default_factory=set)  # words, and runs of words ("sim to real") to highlight
    errors: list[str] = field(default_factory=list)
    full: int | None = None  # the result set's size (the head of indices); None: all of indices
    widened: list[str] = field(default_factory=list)  # a compound's other spellings it counted: "sim-to-real (also sim2real)"
    read_as: list[str] = field(default_factory=list)  # a word no paper holds, and the one it was read as: "reinforcment → reinforcement"
    found: int | None = None  # the result set's size before a limit cut it (None: not counted, as for similar:)
    sorted: bool = False  # in the sort asked for (no words ranked it, no similar: or rec: ordered it)

    def __post_init__(self) -> None:
        if self.full is None:
            self.full = len(self.indices)


    @property
    def matches(self) -> np.ndarray:
        """The result set."""
        return self.indices[:self.full]

    @property
    def weaker(self) -> int:
        """How many weaker matches follow the set."""
        assert self.full is not None  # set by __post_init__
        return len(self.indices) - self.full

    def __len__(self) -> int:
        return len(self.indices)
