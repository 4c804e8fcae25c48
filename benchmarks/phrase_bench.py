""""Phrase" filter: latency per keystroke and memory, narrowed by the index vs a scan of every paper.

A phrase is typed one character at a time (from its third character on), as in the search
box; each keystroke runs ``lib.search.find('"..."')``. Phrases are 2-3 words cut from random
abstracts, so each matches at least one paper. Three runs, on one library:

- papersift (see store.library.search: candidates from the index, read one at a time; or one
  bytes.find pass over every paper's folded text, built once);
- reference, in the same process: the previous filter, which parsed (and kept) every paper to
  fold its text into a list of str, then tested each paper's text per keystroke; both must find
  the same papers for every phrase;
- reference, outside: ``grep -i -F -c PHRASE`` over the dump (a whole process per phrase);
- and papersift again, typing one word as the app does (below).

"First phrase" is the whole typing of the first phrase: it pays for anything built once. RSS is
the process's peak, read after each run: papersift's run first, so its figure is its own.
"As the app types it" types one word of the first phrase (its longest: a one-word phrase is the
one the index cannot narrow) on a fresh library the way the app searches: a thread per keystroke,
8 keys a second, none waiting for the one before (a superseded search runs on to its end, but in
a big library first waits PHRASE_SETTLE and is dropped if a key came meanwhile); the time is from
the last key to its result. Twice: without the folded texts' disk cache (a library's
first phrase) and with the cache that run left (every later session). The first run, too, starts
without that cache.

Usage: python benchmarks/phrase_bench.py [N | LIBRARY_DIR] [--phrases 20]
       (N: a synthetic corpus of N abstracts, made and imported first; default 30000)
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import store.search.phrase_search as LS  # noqa: E402
from store import Library  # noqa: E402


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def summary(xs: list[float]) -> tuple[float, float]:
    xs = sorted(xs)
    return statistics.median(xs), xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]


def pick_phrases(lib: Library, n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        words = lib.corpus.papers.peek(rng.randrange(len(lib.corpus))).abstract.split()
        k = rng.choice((2, 3))
        if len(words) > k:
            start = rng.randrange(len(words) - k)
            phrase = " ".join(words[start:start + k])
            if phrase.isascii() and '"' not in phrase and len(phrase) >= 8:
                out.append(phrase)
    return out


def typed(search, phrases: list[str]) -> list[float]:
    times = []
    for phrase in phrases:
        for end in range(3, len(phrase) + 1):
            t = time.perf_counter()
            search(phrase[:end])
            times.append(time.perf_counter() - t)
    return times


def as_the_app_types(search, phrase: str, keys_per_second: float = 8.0, settle: float = 0.0) -> float:
    """Seconds from the last key to its result, a search thread started per key (the typing
    itself not counted). With ``settle``, each thread first waits that long and searches only if
    no key came meanwhile, as the app's search worker does for a phrase in a big library."""
    import threading
    threads = []
    typed = [""]

    def worker(text: str) -> None:
        if settle:
            time.sleep(settle)
            if typed[0] != text:
                return
        search(text)

    for end in range(1, len(phrase) + 1):
        if threads:
            time.sleep(1 / keys_per_second)
        last = time.perf_counter()
        typed[0] = phrase[:end]
        threads.append(threading.Thread(target=worker, args=(phrase[:end],)))
        threads[-1].start()
    threads[-1].join()
    waited = time.perf_counter() - last
    for t in threads:
        t.join()
    return waited


def previous_filter(lib: Library):
    """The filter as it was (through commit db3b65d): every paper parsed (and kept) to fold its
    text once into a list of str, then each paper's text tested per keystroke (texts and phrases
    folded as papersift folds them now: a dash reads as a space)."""
    folded: list[str] = []

    def search(phrase: str) -> list[int]:
        if not folded:
            folded.extend(LS.phrase_text(p) for p in lib.corpus)
        ph = LS.fold_phrase(phrase)
        return [i for i, text in enumerate(folded) if ph in text]
    return search


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("target", nargs="?", default="30000")
    ap.add_argument("--phrases", type=int, default=20)
    args = ap.parse_args()
    dump = None
    if args.target.isdigit():
        from run_all import corpus
        dump = corpus(int(args.target))
        folder = Path(tempfile.mkdtemp(prefix="psphrase-"))
        subprocess.run([sys.executable, "-m", "tui", "--library", str(folder), "import", str(dump)], check=True,
                       stdout=subprocess.DEVNULL)
    else:
        folder = Path(args.target)
    phrases = pick_phrases(Library(folder), args.phrases)
    cache = folder / "phrases.cache"
    cache.unlink(missing_ok=True)
    lib = Library(folder)  # nothing parsed or cached but the index
    _ = lib.index
    base = rss_mb()
    first = time.perf_counter()
    ours = typed(lambda ph: lib.search.find(f'"{ph}"'), phrases[:1])
    first = time.perf_counter() - first
    ours += typed(lambda ph: lib.search.find(f'"{ph}"'), phrases[1:])
    ours_rss = rss_mb() - base
    old = Library(folder)
    _ = old.index
    base = rss_mb()
    old_search = previous_filter(old)
    old_first = time.perf_counter()
    scan = typed(old_search, phrases[:1])
    old_first = time.perf_counter() - old_first
    scan += typed(old_search, phrases[1:])
    scan_rss = rss_mb() - base
    for phrase in phrases:  # the same papers, both ways
        assert lib.search.find(f'"{phrase}"').indices.tolist() == old_search(phrase), phrase
    del old, old_search
    word = max(phrases[0].split(), key=len)
    try:  # the app's wait before a phrase search in a big library (none before this version)
        from tui.screens.main import BIG_LIBRARY, PHRASE_SETTLE
        settle = PHRASE_SETTLE if len(lib.corpus) > BIG_LIBRARY else 0.0
    except ImportError:
        settle = 0.0
    app_typed = []
    for keep in (False, True):
        if not keep:
            cache.unlink(missing_ok=True)
        fresh = Library(folder)
        _ = fresh.index
        # (the library bound now: the threads the typing starts may run after the loop moved on)
        app_typed.append(as_the_app_types(lambda ph, lib=fresh: lib.search.find(f'"{ph}"'), word, settle=settle))
        del fresh
    grep = []
    if dump is not None and shutil.which("grep"):
        for phrase in phrases:
            t = time.perf_counter()
            subprocess.run(["grep", "-i", "-F", "-c", phrase, str(dump)], stdout=subprocess.DEVNULL)
            grep.append(time.perf_counter() - t)
    (om, op), (sm, sp) = summary(ours), summary(scan)
    print(f"{len(lib.corpus):,} papers, {len(phrases)} phrases typed a character at a time ({len(ours)} keystrokes)\n")
    print("| phrase filter, per keystroke | median | p95 | first phrase, typed | session growth (peak RSS) |")
    print("|---|---|---|---|---|")
    print(f"| papersift | {om * 1000:.1f} ms | {op * 1000:.1f} ms | {first:.2f} s | +{ours_rss:.0f} MB |")
    print(f"| reference, same process: the previous filter (every paper parsed and folded, each tested) "
          f"= **{om / sm:.2g}x** | {sm * 1000:.1f} ms | {sp * 1000:.1f} ms | {old_first:.2f} s | +{scan_rss:.0f} MB |")
    for label, seconds in zip(("no disk cache", "the cache from an earlier session"), app_typed):
        print(f"| papersift, a word typed as the app types it (`\"{word}`: a worker per key, 8 keys/s; {label}): "
              f"last key → its result | | | {seconds:.2f} s | |")
    if grep:
        gm, gp = summary(grep)
        print(f"| reference, outside: `grep -i -F -c` over the dump, whole process = **{om / gm:.2g}x** "
              f"| {gm * 1000:.1f} ms | {gp * 1000:.1f} ms | | |")
    if dump is not None:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
