"""The text a "phrase" search scans: each paper's title, keywords and abstract as the reader shows
them, case-folded; folded for the whole library at once when a phrase cannot be narrowed by the
index, and kept on disk for the next session.
"""

from __future__ import annotations

from array import array

from store.annotations.atomic import atomic_write_chunks
from store.errors import PapersiftError
from store.search.packfile import PackReader, pack, stamp_matches, stamped
from store.text import display_safe

# A phrase filter reads at most this many candidate papers one by one (or a tenth of the library);
# with more, it folds every paper's text once and keeps it (~350 MB at 300k papers).
PHRASE_READ_MAX = 2_000  # ~25 µs a paper read: ~50 ms
FOLD_VERSION = 1  # what fold_phrase_text makes of a paper: bump it when that changes (the cache is remade)


def phrase_text(paper) -> str:
    """What a "phrase" is looked for in: title, keywords and abstract as the reader shows them
    (control and invisible characters gone: "weight<form feed>decay" reads, and is indexed,
    as one word), case-folded, white space collapsed."""
    return fold_phrase_text(paper.title, paper.keywords, paper.abstract)


def fold_phrase_text(title: str, keywords: list[str], abstract: str) -> str:
    """:func:`phrase_text` of a paper's fields. Collapsing white space is most of the cost (at
    300k papers the first phrase folds every text), and a stored text rarely needs it: a
    printable text has no white space but ' ', so without two in a row or one at an end it is
    left as it is."""
    text = " ".join([part for part in (title, *keywords, abstract) if part])
    if not text.isprintable():
        text = " ".join(display_safe(text, keep_newlines=False).split())
    elif "  " in text or text.startswith(" ") or text.endswith(" "):
        text = " ".join(text.split())
    return text.casefold()


def fold_corpus(corpus) -> tuple[bytearray, array]:
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


def write_phrase_cache(path, generation: str, data: bytearray, starts: array) -> None:
    """Keep :func:`fold_corpus`'s texts for the next session (best effort: a cache is never precious)."""
    try:
        atomic_write_chunks(path, stamped(generation, pack(
            [("meta", "q", array("q", [FOLD_VERSION, len(starts) - 1])), ("starts", "q", starts), ("texts", "b", data)])))
    except (OSError, PapersiftError):
        pass


def read_phrase_cache(path, generation: str, n: int) -> tuple[bytearray, array] | None:
    """:func:`write_phrase_cache`'s texts when they are this corpus generation's (of ``n`` papers)
    and whole; else None (missing, stale, damaged or of another version)."""
    if not generation:
        return None
    try:
        with open(path, "rb") as fh:
            if not stamp_matches(fh, generation):
                return None
            reader = PackReader(fh)
            if list(reader.read("meta")) != [FOLD_VERSION, n]:
                return None
            starts = reader.read("starts")
            _, offset, length = reader.sections["texts"]
            data = bytearray(length)
            fh.seek(reader.base + offset)
            if fh.readinto(data) != length:
                return None
    except (OSError, ValueError, KeyError, UnicodeError):
        return None
    if len(starts) != n + 1 or starts[0] != 0 or starts[-1] != len(data) or (n and data[-1:] != b"\n"):
        return None
    return data, starts


def folded_for(folded: tuple | None, corpus) -> bool:
    """Whether folded phrase texts (``LibrarySearch._folded``) are this corpus's, as it is now."""
    return folded is not None and folded[0] is corpus and folded[1] == corpus.generation
