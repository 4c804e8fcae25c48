"""Phrase search: the text a "phrase" is looked for in (each paper's title, keywords and abstract as
the reader shows them, case-folded), folded for the whole library at once when the index cannot
narrow a phrase and kept on disk for the next session, and :class:`PhraseSearch`, which finds the
papers holding a phrase.
"""

from __future__ import annotations

import bisect
import re
import threading
from array import array
from typing import TYPE_CHECKING, Protocol, TypeGuard, cast

import numpy as np

from store.files.atomic import atomic_write_chunks, open_reading
from store.errors import PapersiftError
from store.locations import PHRASE_CACHE_FILE
from store.search.packfile import PackReader, pack, stamp_matches, stamped
from store.safe_text import display_safe

if TYPE_CHECKING:
    from pathlib import Path

    from store.corpus import Corpus
    from store.models import Paper
    from store.search.index import SearchIndex

    # (corpus, its generation, texts, starts): see PhraseSearch._folded_corpus
    Folded = tuple[Corpus, str, bytearray, array[int]]

# A phrase filter reads at most this many candidate papers one by one (or a tenth of the library);
# with more, it folds every paper's text once and keeps it (~350 MB at 300k papers).
PHRASE_READ_MAX = 2_000  # ~25 µs a paper read: ~50 ms
FOLD_VERSION = 3  # what fold_phrase_text makes of a paper: bump it when that changes (the cache is remade)
# A hyphen or dash reads as a space, in a phrase and in the text it is looked for in: "fine tuning"
# finds "fine-tuning" (164 ICML papers, where it found none), "sharpness-aware minimization" finds the
# words written apart, and "Kullback-Leibler" the en dash LaTeX's "--" makes. A curly apostrophe
# reads as the one a keyboard types: "model's ability" finds "model’s ability" too (85 ICML abstracts
# write ’, 553 ').
_TYPED_AS = tuple((c, " ") for c in "\u2010\u2011\u2012\u2013\u2014\u2015") + tuple((c, "'") for c in "\u2018\u2019\u02bc")


def _typed_marks(text: str) -> str:
    """``text`` with each dash a space and each curly apostrophe a straight one. (A search for
    each mark, and a replace for the few a text holds: a regular expression's pass, or
    ``str.translate``, doubled the cost of folding a text that is not ASCII.)"""
    text = text.replace("-", " ")
    if not text.isascii():
        for mark, typed in _TYPED_AS:
            if mark in text:
                text = text.replace(mark, typed)
    return text


def fold_phrase(text: str) -> str:
    """A phrase (or a note it is looked for in) as phrases are compared: case-folded, a hyphen or
    dash read as a space, a curly apostrophe as a straight one, white space collapsed."""
    return " ".join(_typed_marks(text).casefold().split())


def phrase_runs(phrases: list[str]) -> set[str]:
    """The phrases' words, each phrase's as one run for the reader and the list to light where the
    words stand together ("fine tuning" lights "fine-tuning"; a phrase cut inside a word lights
    nothing)."""
    return {run for p in phrases if (run := " ".join(re.findall(r"\w+", fold_phrase(p))))}


def phrase_text(paper: Paper) -> str:
    """What a "phrase" is looked for in: title, keywords and abstract as the reader shows them
    (control and invisible characters gone: "weight<form feed>decay" reads, and is indexed,
    as one word), case-folded, a hyphen or dash read as a space, a curly apostrophe as a straight
    one, white space collapsed."""
    return fold_phrase_text(paper.title, paper.keywords, paper.abstract)


def fold_phrase_text(title: str, keywords: list[str], abstract: str) -> str:
    """:func:`phrase_text` of a paper's fields. Collapsing white space is most of the cost (at
    300k papers the first phrase folds every text), and a stored text rarely needs it: a
    printable text has no white space but ' ', so without two in a row or one at an end it is
    left as it is."""
    text = _typed_marks(" ".join([part for part in (title, *keywords, abstract) if part]))
    if not text.isprintable():
        text = " ".join(display_safe(text, keep_newlines=False).split())
    elif "  " in text or text.startswith(" ") or text.endswith(" "):
        text = " ".join(text.split())
    return text.casefold()


def fold_corpus(corpus: Corpus) -> tuple[bytearray, array[int]]:
    """Every paper's :func:`phrase_text`, UTF-8, a newline after each, and where each starts
    (n + 1 offsets, the last the end)."""
    data = bytearray()
    starts = array("q", [0])  # indexed per paper in Python: plain ints, not numpy scalars
    fields = corpus.papers.fields
    for i in range(len(corpus)):
        data += fold_phrase_text(*fields(i, ("title", "keywords", "abstract"))).encode()
        data += b"\n"
        starts.append(len(data))
    return data, starts


def write_phrase_cache(path: Path, generation: str, data: bytearray, starts: array[int]) -> None:
    """Keep :func:`fold_corpus`'s texts for the next session (best effort: a cache is never precious)."""
    try:
        atomic_write_chunks(path, stamped(generation, pack(
            [("meta", "q", array("q", [FOLD_VERSION, len(starts) - 1])), ("starts", "q", starts), ("texts", "b", data)])))
    except (OSError, PapersiftError):
        pass


def read_phrase_cache(path: Path, generation: str, n: int) -> tuple[bytearray, array[int]] | None:
    """:func:`write_phrase_cache`'s texts when they are this corpus generation's (of ``n`` papers)
    and whole; else None (missing, stale, damaged or of another version)."""
    if not generation:
        return None
    try:
        with open_reading(path) as fh:  # (a link is no cache)
            if not stamp_matches(fh, generation):
                return None
            reader = PackReader(fh)
            if list(reader.read("meta")) != [FOLD_VERSION, n]:
                return None
            starts = cast("array[int]", reader.read("starts"))  # a "q" section
            _, offset, length = reader.sections["texts"]
            data = bytearray(length)
            fh.seek(reader.base + offset)
            if fh.readinto(data) != length:
                return None
            reader.check("texts", data)
    except (OSError, ValueError, KeyError, UnicodeError):
        return None
    if len(starts) != n + 1 or starts[0] != 0 or starts[-1] != len(data) or (n and data[-1:] != b"\n"):
        return None
    return data, starts


def folded_for(folded: Folded | None, corpus: Corpus) -> TypeGuard[Folded]:
    """Whether folded phrase texts (``LibrarySearch._folded``) are this corpus's, as it is now."""
    return folded is not None and folded[0] is corpus and folded[1] == corpus.generation


class PhraseHost(Protocol):
    """What :class:`PhraseSearch` reads of the library it serves."""

    @property
    def folder(self) -> Path: ...
    @property
    def corpus(self) -> Corpus: ...
    @property
    def index(self) -> SearchIndex: ...


class PhraseSearch:
    """The papers holding a "phrase": the index's candidates read one at a time while they are few,
    else every paper's folded text, built once (kept on disk too) and looked up from then on. Owns
    those texts and the last phrase's papers; the library drops them (:meth:`invalidate`) when its
    corpus changes."""

    def __init__(self, library: PhraseHost) -> None:
        self._lib = library
        self._lock = threading.Lock()
        self._folded: Folded | None = None  # phrase texts (see _folded_corpus)
        self._phrase_memo: tuple[Folded, str, np.ndarray] | None = None  # the last phrase's papers (_phrase_hits)

    def invalidate(self) -> None:
        self._folded = None
        self._phrase_memo = None

    def _folded_corpus(self) -> Folded:
        """(corpus, its generation, texts, starts): every paper's phrase text (see
        :func:`phrase_text`), UTF-8, one after another with a newline between (a phrase never
        holds one), and where each starts (n + 1 offsets). Kept: for phrases the index cannot
        narrow (see :meth:`_phrase_candidates`).

        Papers are read one at a time and not kept, and the texts are bytes: at 300k papers a
        list of parsed papers and str texts grew the session by 1.2 GB, and one str with a
        single astral character (𝒪) would take four bytes a character. UTF-8 substring search
        finds exactly what str search finds. They are kept on disk too (a disposable cache, for
        this corpus generation): folding them takes ~9 s at 300k papers, reading them back ~0.3 s.
        """
        corpus = self._lib.corpus  # a search thread may build this while the app installs a new corpus
        folded = self._folded
        if not folded_for(folded, corpus):
            # Typing '"diffusion' starts a worker a keystroke: each folded every text at once
            # (8 keystrokes at 30k papers: 7 s and +230 MB, where one fold takes 1 s).
            with self._lock:
                folded = self._folded
                if not folded_for(folded, corpus):
                    # An import changes this corpus in place, then saves it under a new generation:
                    # texts folded meanwhile are for the generation they started from, never later.
                    generation = corpus.generation
                    read = read_phrase_cache(self._lib.folder / PHRASE_CACHE_FILE, generation, len(corpus))
                    if read is None:
                        read = fold_corpus(corpus)
                        if generation and corpus.generation == generation:
                            write_phrase_cache(self._lib.folder / PHRASE_CACHE_FILE, generation, *read)
                    folded = self._folded = (corpus, generation, *read)
        return folded

    def _scan_folded(self, phrase: str, folded: Folded) -> np.ndarray:
        """A mask of the papers whose phrase text holds the (folded) phrase: bytes.find over all
        of them (``folded``: :meth:`_folded_corpus`), one find per paper that holds it."""
        _, _, data, starts = folded
        needle = phrase.encode()
        found = []
        pos = data.find(needle)
        while pos >= 0:
            d = bisect.bisect_right(starts, pos) - 1  # a third of np.searchsorted's cost per call
            found.append(d)
            pos = data.find(needle, starts[d + 1])
        hit = np.zeros(len(starts) - 1, dtype=bool)
        hit[found] = True
        return hit

    def _phrase_candidates(self, phrase: str) -> np.ndarray | None:
        """A mask of the papers that can hold a folded phrase, from the index; None when no
        word of it narrows the search.

        A phrase matches inside a text, so its first word may end a longer word and its last
        may begin one; the words between are whole words of the text, and the index holds each
        of them as a term (an ASCII word of letters and digits is a term of its own). The last
        word narrows by its completions (3+ characters: a shorter prefix is in most papers).
        """
        words = phrase.split(" ")
        if len(words) < 2:
            return None
        vocabulary, offsets, docs = self._lib.index.vocabulary, self._lib.index.offsets, self._lib.index.docs
        mask = None
        for k, word in enumerate(words[1:], start=1):
            last = k == len(words) - 1
            if not (word.isascii() and word.isalnum()) or (last and len(word) < 3):
                continue
            if last:
                terms = vocabulary.terms.completions(word)
            else:
                tid = vocabulary.terms.find(word)
                terms = range(0) if tid is None else range(tid, tid + 1)
            has = np.zeros(len(self._lib.corpus), dtype=bool)
            for tid in terms:
                has[docs[offsets[tid]:offsets[tid + 1]]] = True
            mask = has if mask is None else mask & has
        return mask

    def mask(self, phrase: str, mask: np.ndarray, notes: dict[int | None, str]) -> np.ndarray:
        """The papers of ``mask`` whose title, keywords, abstract or note hold the phrase (case and
        white space ignored). Before every paper's text is folded, the index's candidates (or the
        few papers other filters leave) are read one at a time and not kept; when there are many,
        every paper's text is folded once and kept (as bytes), and looked up there from then on."""
        ph = fold_phrase(phrase)
        if not ph:  # (a phrase of dashes only: no text holds one now)
            return np.zeros(len(mask), dtype=bool)
        candidates = self._phrase_candidates(ph)
        folded = folded_for(self._folded, self._lib.corpus)
        check = np.flatnonzero(mask if candidates is None else mask & candidates)
        # A paper read costs ~25 µs, a folded text tested ~1 µs, a pass over all of them ~0.5 ns a byte.
        if not folded and len(check) <= max(PHRASE_READ_MAX, len(mask) // 10):
            keep = np.zeros(len(mask), dtype=bool)
            peek = self._lib.corpus.papers.peek
            keep[[i for i in check.tolist() if ph in phrase_text(peek(i))]] = True
        else:
            keep = self._phrase_hits(ph, candidates) & mask
        for i, note in notes.items():
            if i is not None and mask[i] and ph in note:
                keep[i] = True
        return keep

    def matching(self, pattern: re.Pattern[str], pattern_bytes: re.Pattern[bytes], candidates: np.ndarray) -> np.ndarray:
        """A mask of the ``candidates`` (a mask) whose phrase text the pattern finds (``pattern``
        over a paper read, ``pattern_bytes`` the same over its folded UTF-8 text): few are read one
        at a time, many in the folded texts (built once, as for a phrase)."""
        check = np.flatnonzero(candidates)
        keep = np.zeros(len(candidates), dtype=bool)
        if not folded_for(self._folded, self._lib.corpus) and len(check) <= max(PHRASE_READ_MAX, len(candidates) // 10):
            peek = self._lib.corpus.papers.peek
            keep[[i for i in check.tolist() if pattern.search(phrase_text(peek(i)))]] = True
        else:
            _, _, data, starts = self._folded_corpus()
            search = pattern_bytes.search
            keep[[i for i in check.tolist() if search(data, starts[i], starts[i + 1])]] = True
        return keep

    def _phrase_hits(self, ph: str, candidates: np.ndarray | None) -> np.ndarray:
        """Every paper whose folded text holds a folded phrase (a mask), remembered for the next
        phrase: typing extends a phrase, and a longer one is only in the papers that hold the
        shorter, so only those are tested again (at 300k papers ~1 µs each, where a pass over
        every text costs ~150 ms)."""
        folded = self._folded_corpus()
        _, _, data, starts = folded
        memo = self._phrase_memo  # kept with the texts it was found in: never another corpus's, or generation's
        if memo is not None and memo[0] is folded and memo[1] in ph:
            pool = memo[2] if candidates is None else memo[2] & candidates
        elif candidates is not None and np.count_nonzero(candidates) <= len(candidates) // 4:
            pool = candidates
        else:
            pool = None
        if pool is None:
            hits = self._scan_folded(ph, folded)
        else:
            needle = ph.encode()
            hits = np.zeros(len(starts) - 1, dtype=bool)
            hits[[i for i in np.flatnonzero(pool).tolist() if data.find(needle, starts[i], starts[i + 1]) >= 0]] = True
        self._phrase_memo = (folded, ph, hits)
        return hits
