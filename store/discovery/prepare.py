"""``python -m store.discovery.prepare FOLDER``: build a library's similarity-model cache in its own process.

The app starts this after its first paint: the SVD then runs on another core,
and its working memory and the GIL stay out of the app's process; the app
loads the finished model from disk. Exit status 0 when the cache is ready.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m store.discovery.prepare LIBRARY_FOLDER", file=sys.stderr)
        return 2
    from store import Library
    Library(argv[0]).prepare_similarity_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
