"""The path of a keystroke and of `r` through papersift's own modules, counted.

A profiler hook records every call into a function of store/ or tui/ while the app handles one
key (a letter typed in the search box, then `r` on the list), on the bundled sample, in the main
thread, up to the moment the key's work is done: the list is given its new rows
(``ResultsList.set_results``) for the keystroke, the journal line is appended and fsynced
(``append_durably``) for `r`. The calls' files, in order, with repeats of the same file in a row folded, are the path;
its moves are the steps from one file to the next, and a climb is a step from store/ back up into
tui/ (a callback or a message: what a reader must follow back up a layer).

The table in docs/architecture.md is this script's output (``--write`` puts it there;
tests/test_benchmarks.py checks the two agree).

Usage: python benchmarks/hops.py [--json] [--show] [--write]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OURS = (str(ROOT / "store"), str(ROOT / "tui"))
DOC = ROOT / "docs" / "architecture.md"
START, END = "<!-- hops.py: start -->", "<!-- hops.py: end -->"


def traced_path(events: list[str]) -> list[str]:
    path: list[str] = []
    for f in events:
        if not path or path[-1] != f:
            path.append(f)
    return path


def summary(path: list[str]) -> dict[str, object]:
    climbs = sum(1 for a, b in zip(path, path[1:]) if a.startswith("store/") and b.startswith("tui/"))
    return {"moves": max(len(path) - 1, 0), "files": len(set(path)), "climbs": climbs, "path": path}


async def measure() -> dict[str, dict[str, object]]:
    sys.path.insert(0, str(ROOT))
    from store import Library
    from tui.app import make_app

    folder = Path(tempfile.mkdtemp()) / "lib"
    lib = Library.open(folder)
    lib.marks.set_status([lib.corpus.papers[-1].id], "skipped")  # a snapshot on disk: the next change appends
    app = make_app(lib, keymap_path=None, settings_path=None)
    out: dict[str, dict[str, object]] = {}
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause(0.5)

        async def one(name: str, key: str, until: str) -> None:
            seen: list[str] = []
            done = [False]

            def hook(frame, event, arg):  # noqa: ANN001 - sys.setprofile's signature
                if event == "call" and not done[0]:
                    f = frame.f_code.co_filename
                    if f.startswith(OURS):
                        seen.append(str(Path(f).relative_to(ROOT)))
                        done[0] = frame.f_code.co_name == until
            sys.setprofile(hook)
            try:
                await pilot.press(key)
                await pilot.pause()
            finally:
                sys.setprofile(None)
            out[name] = summary(traced_path(seen))

        await pilot.press("slash", *"grap")
        await pilot.pause(0.3)
        await one("keystroke (h, typed in the search box) to the list's new rows", "h", "set_results")
        await pilot.press("enter")
        await pilot.pause(0.3)
        await one("r (mark read, on the list) to the fsync", "r", "append_durably")
    return out


def table(result: dict[str, dict[str, object]]) -> str:
    rows = [f"| {name} | {r['moves']} | {r['files']} | {r['climbs']} |" for name, r in result.items()]
    return "\n".join(["| path | moves between files | files | climbs back into tui/ |", "|---|---|---|---|", *rows])


def documented() -> str:
    """The table docs/architecture.md holds between its markers."""
    text = DOC.read_text(encoding="utf-8")
    return text[text.index(START) + len(START):text.index(END)].strip()


def write_doc(result: dict[str, dict[str, object]]) -> None:
    text = DOC.read_text(encoding="utf-8")
    head, tail = text[:text.index(START) + len(START)], text[text.index(END):]
    DOC.write_text(f"{head}\n{table(result)}\n{tail}", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help="print JSON")
    ap.add_argument("--show", action="store_true", help="print each path")
    ap.add_argument("--write", action="store_true", help="put the table in docs/architecture.md")
    args = ap.parse_args()
    result = asyncio.run(measure())
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(table(result))
    if args.write:
        write_doc(result)
    if args.show:
        for name, r in result.items():
            print(f"\n{name}:\n  " + "\n  ".join(r["path"]))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
