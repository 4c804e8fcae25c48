"""A compound's parts standing apart in a paper: ``sim-to-real`` written "sim to real" (or
"sim 2 real", "multi task", "vision language action").

The index holds a hyphenated word's parts and its joined spelling (sim, to, real, simtoreal),
and a word written together as itself (multitask, sim2real); those the vocabulary finds
(``Vocabulary._expand_compound``). Where the parts stand apart, only the text says whether they
stand next to each other: the papers holding every part are read, and the pattern built here
tells. The last part may take its forms ("fine tuned" for fine-tuning), and while the
compound is typed, any word it begins.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from store.search.forms import form_key
from store.search.joined import alternatives

if TYPE_CHECKING:
    from store.search.index import SearchIndex

# Between two parts: white space, a hyphen or dash, or a slash (at least one: written together,
# the index holds the compound as one term).
_APART = r"[\s\-\u2010-\u2015/]+"
_APART_BYTES = rb"(?:[\s\-/]|\xe2\x80[\x90-\x95])+"


def _last_spellings(index: SearchIndex, part: str, typing: bool) -> tuple[list[int], list[str]]:
    """The term ids and spellings the last part may take: its forms (or, typed while it is no word
    here, its completions)."""
    vocabulary = index.vocabulary
    ids: dict[int, None] = {}
    for spelled in alternatives(part):
        tid = vocabulary.terms.find(spelled)
        if tid is not None:
            ids[tid] = None
        ids.update(dict.fromkeys(vocabulary.with_stem(form_key(spelled))))
    if typing and not ids:  # a fragment being typed: the words it begins ("in-cont"; not "in-context": contextual)
        for spelled in alternatives(part):
            ids.update(dict.fromkeys(list(vocabulary.terms.completions(spelled))[:200]))
    return list(ids), [index.vocab[i] for i in ids]


def candidates_and_pattern(index: SearchIndex, word: str, typing: bool
                           ) -> tuple[np.ndarray, re.Pattern[str], re.Pattern[bytes]] | None:
    """The papers holding every part of the compound ``word`` (a mask), and the pattern finding
    the parts next to each other in a folded text (a str one and a bytes one); None when some part
    is in no paper."""
    parts = word.split("-")
    mask = np.ones(index.n_docs, dtype=bool)
    texts: list[list[str]] = []
    for k, part in enumerate(parts):
        if k == len(parts) - 1:
            ids, spellings = _last_spellings(index, part, typing)
        else:
            spellings = [s for s in alternatives(part) if index.vocabulary.terms.find(s) is not None]
            ids = [i for i in (index.vocabulary.terms.find(s) for s in spellings) if i is not None]
        if not ids:
            return None
        has = np.zeros(index.n_docs, dtype=bool)
        for tid in ids:
            has[index.docs[index.offsets[tid]:index.offsets[tid + 1]]] = True
        mask &= has
        texts.append(sorted(spellings, key=len, reverse=True))
    body = [("(?:" + "|".join(re.escape(s) for s in spellings) + ")") for spellings in texts]
    source = r"(?<!\w)" + _APART.join(body) + r"(?!\w)"
    source_bytes = rb"(?<![\w])" + _APART_BYTES.join(b.encode() for b in body) + rb"(?![\w])"
    return mask, re.compile(source), re.compile(source_bytes)
