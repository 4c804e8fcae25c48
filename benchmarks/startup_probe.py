"""Cold-start probe: run in a fresh process; prints seconds from process start to first paint.

"First paint" = the results list mounted, populated and rendered once (headless
Textual, so the terminal's own speed is not measured). Process start time comes
from /proc, so interpreter start-up and imports are included.

Usage: python benchmarks/startup_probe.py LIBRARY_DIR
"""

from __future__ import annotations

import asyncio
import os
import sys
import time


def process_start_epoch() -> float:
    with open("/proc/self/stat") as fh:
        start_ticks = int(fh.read().rsplit(")", 1)[1].split()[19])
    with open("/proc/stat") as fh:
        btime = next(int(l.split()[1]) for l in fh if l.startswith("btime"))
    return btime + start_ticks / os.sysconf("SC_CLK_TCK")


async def main(folder: str) -> float:
    from store import Library
    from tui.app import make_app
    app = make_app(Library(folder), keymap_path=None, settings_path=None)
    async with app.run_test(size=(160, 45)) as pilot:
        while not len(app.main_screen.results.indices):
            await pilot.pause(0.005)
        await pilot.pause()
        return time.time()


if __name__ == "__main__":
    painted = asyncio.run(main(sys.argv[1]))
    print(f"{painted - process_start_epoch():.4f}")
