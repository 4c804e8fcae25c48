"""The floor an import is measured against: read a dump, split it into abstracts, and take each
one's word 3-shingles (of its lower-cased text), one abstract after another on one core, in a
fresh process (interpreter and numpy included), writing nothing.

Every import does at least this much (it must read each abstract, and deduplicating needs its
shingles); what it does beyond (its own normalizing, MinHash and the near-duplicate search,
titles, the corpus and the index files) is what the ratio ``import / floor`` in run_all.py's
table weighs.

Usage: python benchmarks/import_floor.py DUMP   (prints the seconds it took, as JSON)
"""

from __future__ import annotations

import argparse
import json
import time


def main(path: str) -> dict:
    start = time.perf_counter()
    from pathlib import Path

    from store.ingest.dedup import shingles
    from store.ingest.parse import parse_file
    records = parse_file(Path(path))
    held = 0
    for record in records:
        held += len(shingles(record.abstract.lower()))
    return {"seconds": time.perf_counter() - start, "abstracts": len(records), "shingles": held}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="The floor of an import: read, split and shingle a dump on "
                                                 "one core (JSON: seconds, abstracts, shingles).")
    parser.add_argument("dump", help="a dump file (one abstract per paragraph)")
    print(json.dumps(main(parser.parse_args().dump)))
