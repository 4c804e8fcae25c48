"""Peak memory of an app session: start, first paint, a search, reading, more like this (asked for).

Run in a fresh process on a library; prints JSON: the app process's peak RSS and
the peak RSS of its children (the helper that builds the model when it is not
cached), in MB.

Usage: python benchmarks/session_probe.py LIBRARY_DIR
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import time


def library_folder(text: str) -> str:
    """An argparse type: a folder that holds a papersift library (never one made here)."""
    from pathlib import Path

    from store import locations
    if not locations.holds_library(Path(text)):
        raise argparse.ArgumentTypeError(f"{text}: no papersift library there")
    return text


class PrivatePeak:
    """The most private (anonymous) memory the process held, sampled every 20 ms: the part of
    its RSS no other process shares and the kernel cannot drop (RSS counts the mapped caches'
    clean pages too, which the page cache holds anyway)."""

    def __init__(self) -> None:
        import threading
        self.mb = 0.0
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self) -> None:
        while True:
            with open("/proc/self/status") as fh:
                for line in fh:
                    if line.startswith("RssAnon:"):
                        self.mb = max(self.mb, int(line.split()[1]) / 1024)
            time.sleep(0.02)


def own_peak_mb() -> float:
    """This process's peak RSS since it started: VmHWM, of its own memory. (``ru_maxrss`` starts at
    the high-water mark of the process it was exec'd from: started by run_all.py after its app
    benchmarks, it reported run_all's peak, not this one's.)"""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def main(folder: str) -> dict:
    private = PrivatePeak()
    from store import Library
    from tui.app import make_app
    app = make_app(Library(folder), keymap_path=None, settings_path=None)
    async with app.run_test(size=(160, 45)) as pilot:
        while not len(app.main_screen.results.indices):
            await pilot.pause(0.01)
        await pilot.press("slash", *"graph neural network")
        # Wait for the model while the app is getting it (a huge library builds it only on request).
        await pilot.pause(2.0)
        deadline = time.monotonic() + 600
        while not app.library.similarity_ready and time.monotonic() < deadline and any(
                w.group == "prepare" and w.is_running for w in app.main_screen.workers):
            await pilot.pause(0.2)
        await pilot.press("down", "down", "down", "enter", "J")  # read a paper, and the next
        await pilot.pause(0.5)
        await pilot.press("escape", "m")  # more like this, on request (a huge library builds the model now)
        await pilot.pause(2.0)
        while time.monotonic() < deadline and (not app.library.similarity_ready or any(
                w.is_running for w in app.main_screen.workers)):
            await pilot.pause(0.2)
        await pilot.pause(0.5)
    return {"app_mb": own_peak_mb(),
            "private_mb": private.mb,
            "helper_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
            "model_ready": app.library.similarity_ready}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Peak memory of an app session on LIBRARY_DIR (JSON, MB).")
    parser.add_argument("library", type=library_folder, metavar="LIBRARY_DIR", help="an existing library folder")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.library))))
