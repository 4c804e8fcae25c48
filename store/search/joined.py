"""Compounds and their joined spellings: "sim-to-real" is also "simtoreal" and "sim2real", and a
word written together ("multitask") may stand for a compound a library writes apart.

Pure string rules over a :class:`store.search.vocab.Vocabulary`; the vocabulary expands a compound
with :func:`joined_spellings`, the searches decide with :func:`joined_compound` and
:func:`worth_reading` whether to read a joined word's parts apart (:mod:`store.search.compounds`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Sized
from typing import TYPE_CHECKING, Protocol

from store.search.forms import form_key
from store.search.sorted_words import SortedWords

if TYPE_CHECKING:
    import numpy as np


class Vocabulary(Protocol):
    """What these rules read of a :class:`store.search.vocab.Vocabulary` (which imports this
    module: named here by its shape, not imported)."""

    terms: SortedWords
    offsets: Sequence[int] | np.ndarray  # postings offsets

    def with_stem(self, st: str) -> Sequence[int]: ...


def alternatives(part: str) -> tuple[str, ...]:
    """The spellings a compound's part may take: "to" and "2" are one (sim-to-real, sim2real)."""
    return ("to", "2") if part in ("to", "2") else (part,)


def joined_spellings(word: str) -> list[str]:
    """A compound's parts spelled together, in each of their alternatives (sim-to-real: simtoreal, sim2real)."""
    spellings = [""]
    for part in word.split("-"):
        spellings = [s + alt for s in spellings for alt in alternatives(part)]
    return spellings


# Prefixes a word written together may have been written apart with (multitask: multi-task,
# multi task). Chosen on ICML and ICLR 2024: the ones whose apart spelling is the compound's
# (not "re", "un", "de", "out", "co", "inter": their joined words are mostly words of their own,
# "recent", "design"; not "over", "under": words of their own, next to any word).
JOINED_PREFIXES = ("pseudo", "cross", "hyper", "multi", "super", "meta", "non", "post", "pre", "self",
                   "semi", "sub", "bi")
JOINED_REST_MIN = 4  # letters after the prefix: "biased" (bi + ased) stays one word
# The parts apart are read only where the papers holding both parts are at least this share of
# those holding the word joined: "multitask" (most papers with "multi" and "task" wrote
# "multi-task") is read, "prediction" (one paper in 463 holds "pre" and "diction") is not.
JOINED_SHARE = 0.05


def joined_compound(word: str, vocabulary: Vocabulary) -> str | None:
    """The compound a word written together may stand for where a library writes it apart
    ("multitask" -> "multi-task"), or None: the word begins with one of ``JOINED_PREFIXES``, the
    prefix is a word of the library on its own, and the rest is one of its words in some form.
    Whether its parts apart are read then depends on how often they meet (:func:`worth_reading`)."""
    if "-" in word or not word.isalpha():
        return None
    for prefix in JOINED_PREFIXES:
        if word.startswith(prefix) and len(word) - len(prefix) >= JOINED_REST_MIN:
            rest = word[len(prefix):]
            if vocabulary.terms.find(prefix) is None or not compound_part_ids(rest, vocabulary):
                return None
            return f"{prefix}-{rest}"
    return None


def compound_part_ids(part: str, vocabulary: Vocabulary) -> list[int]:
    """The term ids a compound's last part (or a joined word) stands for: itself and its forms."""
    ids = dict.fromkeys(vocabulary.with_stem(form_key(part)))
    exact = vocabulary.terms.find(part)
    if exact is not None:
        ids[exact] = None
    return list(ids)


def worth_reading(word: str, vocabulary: Vocabulary, together: int) -> bool:
    """Whether a joined word's parts apart are read: ``together`` (papers holding both parts) is
    at least ``JOINED_SHARE`` of the papers holding the word joined (counted per form)."""
    joined = sum(vocabulary.offsets[i + 1] - vocabulary.offsets[i] for i in compound_part_ids(word, vocabulary))
    return together > 0 and together >= JOINED_SHARE * joined


def widened_notes(apart: Mapping[str, tuple[str, Sized]], vocabulary: Vocabulary) -> list[str]:
    """Per compound, what else it counted: its other spellings in the library, written as a
    reader would (sim2real, sim-to-real) and the parts apart ("sim to real"):
    ``sim-to-real (also sim2real, sim to real)``; a word written together that counted its
    compound's parts apart says so the other way round: ``multi-task (also multitask)``.
    ``apart`` maps each word typed to its compound and the papers holding its parts apart."""
    notes = []
    for word, (compound, docs) in apart.items():
        parts = compound.split("-")
        if word != compound:  # what was typed, and the parts apart it counted too
            if len(docs):
                notes.append(f"{_written(parts)} (also {word}, {' '.join(parts)})")
            continue
        typed = "".join(parts)
        shown = []
        for spelled in joined_spellings(word):
            if spelled != typed and vocabulary.terms.find(spelled) is not None:
                shown.append(_written(_spelled_parts(parts, spelled)))
        if len(docs):
            shown.append(" ".join(parts))
        if shown:
            notes.append(f"{_written(parts)} (also {', '.join(dict.fromkeys(shown))})")
    return notes


def _spelled_parts(parts: list[str], spelled: str) -> list[str]:
    """The parts of a joined spelling, in the alternatives it took (simtoreal -> sim, to, real)."""
    out, at = [], 0
    for part in parts:
        for alt in alternatives(part):
            if spelled.startswith(alt, at):
                out.append(alt)
                at += len(alt)
                break
    return out


def _written(parts: list[str]) -> str:
    """A compound as a reader writes it: sim-to-real, sim2real (a "2" joins its neighbours)."""
    out = parts[0]
    for before, part in zip(parts, parts[1:]):
        out += part if "2" in (before, part) else "-" + part
    return out
