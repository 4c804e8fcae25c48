"""``python -m store.prepare FOLDER``: build a library's similarity-model cache in its own process.

The app starts this after its first paint: the SVD then runs on another core,
and its working memory and the GIL stay out of the app's process; the app
loads the finished model from disk. Exit status 0 when the cache is ready.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from store import locations


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m store.prepare",
                                     description="Build a library's more-like-this model cache.")
    parser.add_argument("folder", metavar="LIBRARY_FOLDER", help="an existing library folder")
    folder = Path(parser.parse_args(argv).folder)
    if not locations.holds_library(folder):
        parser.error(f"{folder}: no papersift library there")
    from store import Library
    Library(folder).discovery.prepare_similarity_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
