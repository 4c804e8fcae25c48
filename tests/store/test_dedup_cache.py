"""The papers' band keys and names kept between imports (store.ingest.dedup_cache): a second import
reads them instead of shingling the library again, merges exactly as without them, and a cache that
is stale, damaged or a link is ignored."""

from __future__ import annotations

import os
import stat
from collections import Counter

import numpy as np
import pytest

from store import locations
from store.ingest import dedup_cache, merge_prep
from store.ingest.dedup import shingles
from store.titles.library import name_tokens, title_hash
from store.library import Library
from store.text import normalize

from ..conftest import DATA

DAYS = [DATA / "arxiv_days" / f"day{n}.xml" for n in (1, 2, 3)]
SLICE = DATA / "icml_slice.jsonl"


def keys_of(text: str) -> np.ndarray:
    return merge_prep.fingerprints([shingles(normalize(text))])[0]


def cache_of(lib: Library) -> dedup_cache.KnownPapers | None:
    return dedup_cache.load(lib.folder / locations.DEDUP_CACHE_FILE, lib.corpus.generation, len(lib.corpus))


def test_the_cache_holds_every_papers_keys_titles_and_names(tmp_path):
    lib = Library.open(tmp_path / "lib", seed_if_new=False)
    lib.paper_changes.import_paths([SLICE])
    known = cache_of(lib)
    assert known is not None and len(known) == len(lib.corpus)
    for i in (0, 17, len(lib.corpus) - 1):
        paper = lib.corpus.papers[i]
        assert np.array_equal(known.keys[i], keys_of(paper.abstract))
        assert known.titles[i] == title_hash(paper.title)
    assert known.name_df == Counter(w for p in lib.corpus for w in name_tokens(p.abstract).split())
    assert stat.S_IMODE(os.stat(lib.folder / locations.DEDUP_CACHE_FILE).st_mode) == 0o600


def near_copies(tmp_path) -> list:
    """A dump of near-duplicates of the slice's first papers (a sentence appended), and new text."""
    lib = Library.open(tmp_path / "probe", seed_if_new=False)
    lib.paper_changes.import_paths([SLICE])
    dump = tmp_path / "day.txt"
    dump.write_text("\n\n".join([p.abstract + " We release our code." for p in lib.corpus.papers[:5]]
                                + ["An abstract about quokkas, which index themselves rarely and only on "
                                   "Tuesdays, in a study of forty marsupials over ten years of field work."]))
    return [dump]


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_second_import_reads_the_cache_and_merges_as_without_it(tmp_path, monkeypatch):
    day = near_copies(tmp_path)
    with_cache = Library.open(tmp_path / "a", seed_if_new=False)
    without = Library.open(tmp_path / "b", seed_if_new=False)
    for lib in (with_cache, without):
        lib.paper_changes.import_paths([SLICE])
    (without.folder / locations.DEDUP_CACHE_FILE).unlink()
    shingled = []
    real = merge_prep._known_paper_chunk
    monkeypatch.setattr(merge_prep, "_known_paper_chunk", lambda abstracts: shingled.append(len(abstracts)) or real(abstracts))
    a = Library.open(with_cache.folder, seed_if_new=False).paper_changes.import_paths(day)
    assert shingled == []  # the library's papers were not shingled again
    b = Library.open(without.folder, seed_if_new=False).paper_changes.import_paths(day)
    assert sum(shingled) == len(without.corpus)
    assert (a.new, a.near, a.exact) == (b.new, b.near, b.exact) == (1, 5, 0)
    one, two = Library.open(with_cache.folder), Library.open(without.folder)
    assert [(p.id, [v.id for v in p.variants]) for p in one.corpus] == [(p.id, [v.id for v in p.variants]) for p in two.corpus]
    assert cache_of(one) is not None and cache_of(two) is not None  # each import leaves the cache of its corpus
    assert np.array_equal(cache_of(one).keys, cache_of(two).keys)


def test_a_new_versions_text_gets_its_keys_title_and_names_anew(tmp_path):
    lib = Library.open(tmp_path / "daily", seed_if_new=False)
    lib.paper_changes.import_paths([DAYS[0]])
    summary = Library.open(lib.folder, seed_if_new=False).paper_changes.import_paths([DAYS[1]])
    assert summary.revised == 1
    lib = Library.open(lib.folder, seed_if_new=False)
    known = cache_of(lib)
    assert known is not None
    revised = [i for i, p in enumerate(lib.corpus) if p.revised]
    assert len(revised) == 1
    paper = lib.corpus.papers[revised[0]]
    assert np.array_equal(known.keys[revised[0]], keys_of(paper.abstract))
    assert known.titles[revised[0]] == title_hash(paper.title)  # its new title
    assert known.name_df == Counter(w for p in lib.corpus for w in name_tokens(p.abstract).split())


@pytest.mark.parametrize("damage", ["stale", "garbled", "short", "link"])
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_bad_cache_is_ignored(tmp_path, damage):
    lib = Library.open(tmp_path / "lib", seed_if_new=False)
    lib.paper_changes.import_paths([SLICE])
    path = lib.folder / locations.DEDUP_CACHE_FILE
    data = path.read_bytes()
    if damage == "stale":
        path.write_bytes(b"f" * 32 + data[32:])
    elif damage == "garbled":
        path.write_bytes(data[:-40] + bytes(40))
    elif damage == "short":
        path.write_bytes(data[: len(data) // 2])
    else:
        elsewhere = tmp_path / "elsewhere.cache"
        elsewhere.write_bytes(data)
        path.unlink()
        path.symlink_to(elsewhere)
    assert cache_of(lib) is None
    summary = Library.open(lib.folder, seed_if_new=False).paper_changes.import_paths(near_copies(tmp_path))
    assert (summary.new, summary.near) == (1, 5)
