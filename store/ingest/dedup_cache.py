"""What an import keeps of a library's papers for the next one: each paper's LSH band keys
(store.ingest.dedup) and title hash, and how many papers use each name-shaped word
(store.titles.library), in ``dedup.cache`` beside the corpus, stamped with the corpus
generation it was made from.

With it, an import shingles only its own abstracts and reads no title of the library's: a day's
500 papers into 30k no longer normalize and shingle the 30k again (~3 s). The cache is disposable: one of another generation,
cut short or garbled (its CRC-32s say) is ignored, and the import computes what it needs.
"""

from __future__ import annotations

from array import array
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np

from store.files.atomic import atomic_write_chunks, open_reading
from store.ingest.dedup import BANDS
from store.search.packfile import PackReader, pack, stamp_matches, stamped

CACHE_VERSION = 2


@dataclass
class KnownPapers:
    """Per paper of the corpus, in its order, LSH band keys (rows of ``keys``) and title hashes;
    over them all, each name-shaped word's count of papers."""

    keys: np.ndarray  # (papers, BANDS) uint64
    name_df: Counter[str]
    titles: np.ndarray  # (papers,) uint64: store.titles.library.title_hash

    def __len__(self) -> int:
        return len(self.keys)


def load(path: Path, generation: str, n_papers: int) -> KnownPapers | None:
    """The cache, if it was made from the corpus of ``generation`` holding ``n_papers`` papers."""
    try:
        with open_reading(path) as fh:  # (a link is no cache)
            if not generation or not stamp_matches(fh, generation):
                return None
            reader = PackReader(fh)
            meta = reader.read("meta")
            if list(cast("array[int]", meta)) != [CACHE_VERSION, n_papers, BANDS]:
                return None
            keys = np.frombuffer(cast("array[int]", reader.read("keys")), dtype=np.uint64)
            titles = np.frombuffer(cast("array[int]", reader.read("titles")), dtype=np.uint64)
            text = cast(str, reader.read("names"))
            name_df = Counter({name: int(n) for name, n in (line.split("\t") for line in text.split("\n") if line)})
    except (OSError, ValueError, KeyError, UnicodeDecodeError):
        return None
    if len(keys) != n_papers * BANDS or len(titles) != n_papers:
        return None
    return KnownPapers(keys.reshape(n_papers, BANDS), name_df, titles.copy())


def save(path: Path, generation: str, known: KnownPapers) -> None:
    """Write the cache for the corpus of ``generation`` (best effort: a cache is never precious)."""
    if any("\n" in name or "\t" in name for name in known.name_df):
        return
    keys = np.ascontiguousarray(known.keys, dtype=np.uint64).view(np.int64).reshape(-1)
    titles = np.ascontiguousarray(known.titles, dtype=np.uint64).view(np.int64)
    chunks = pack([("meta", "q", array("q", [CACHE_VERSION, len(known), BANDS])), ("keys", "q", keys),
                   ("titles", "q", titles), ("names", "s", "\n".join(f"{name}\t{n}" for name, n in known.name_df.items()))])
    try:
        atomic_write_chunks(path, stamped(generation, chunks), durable=False)
    except OSError:
        pass
