"""Cold-start probe: run in a fresh process; prints seconds from process start to first paint.

"First paint" = the results list mounted, populated and rendered once (headless
Textual, so the terminal's own speed is not measured). Process start time comes
from /proc, so interpreter start-up and imports are included.

Usage: python benchmarks/startup_probe.py LIBRARY_DIR
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time


def since_process_start() -> float:
    """Seconds since this process started, both clocks counted from boot.

    (/proc/stat's btime is whole seconds: adding the start ticks to it, as this
    probe once did, is off by a constant of up to a second.)
    """
    with open("/proc/self/stat") as fh:
        start_ticks = int(fh.read().rsplit(")", 1)[1].split()[19])
    return time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / os.sysconf("SC_CLK_TCK")


def library_folder(text: str) -> str:
    """An argparse type: a folder that holds a papersift library (never one made here)."""
    from pathlib import Path

    from store import locations
    if not locations.holds_library(Path(text)):
        raise argparse.ArgumentTypeError(f"{text}: no papersift library there")
    return text


async def main(folder: str) -> float:
    from store import Library
    from tui.app import make_app
    app = make_app(Library(folder), keymap_path=None, settings_path=None)
    async with app.run_test(size=(160, 45)) as pilot:
        while not len(app.main_screen.results.indices):
            await pilot.pause(0.005)
        await pilot.pause()
        return since_process_start()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Seconds from process start to the app's first paint on LIBRARY_DIR.")
    parser.add_argument("library", type=library_folder, metavar="LIBRARY_DIR", help="an existing library folder")
    args = parser.parse_args()
    print(f"{asyncio.run(main(args.library)):.4f}")
