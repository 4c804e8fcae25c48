"""Peak memory of an app session: start, first paint, a search, reading, more like this (asked for).

Run in a fresh process on a library; prints JSON, in MB: the session's peak RSS (the app
process's, plus the lookup helper's that a big library's app starts, store.discovery.lookups),
each of those, the most private memory the two held at once, and the peak RSS of the helper
that builds the model when it is not cached.

Usage: python benchmarks/session_probe.py LIBRARY_DIR
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import time
from collections.abc import Callable


def library_folder(text: str) -> str:
    """An argparse type: a folder that holds a papersift library (never one made here)."""
    from pathlib import Path

    from store import locations
    if not locations.holds_library(Path(text)):
        raise argparse.ArgumentTypeError(f"{text}: no papersift library there")
    return text


def status_mb(pid: int | str, field: str) -> float:
    """A field of /proc/PID/status in MB (0 when the process is gone)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class PrivatePeak:
    """The most private (anonymous) memory the app and its lookup helper held at once, sampled
    every 20 ms: the part of their RSS no other process shares and the kernel cannot drop (RSS
    counts the mapped caches' clean pages too, which the page cache holds anyway)."""

    def __init__(self) -> None:
        import threading
        self.mb = 0.0
        self.helper: Callable[[], int | None] = lambda: None
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self) -> None:
        while True:
            pid = self.helper()
            self.mb = max(self.mb, status_mb("self", "RssAnon") + (status_mb(pid, "RssAnon") if pid else 0.0))
            time.sleep(0.02)


def own_peak_mb() -> float:
    """This process's peak RSS since it started: VmHWM, of its own memory. (``ru_maxrss`` starts at
    the high-water mark of the process it was exec'd from: started by run_all.py after its app
    benchmarks, it reported run_all's peak, not this one's.)"""
    return status_mb("self", "VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def main(folder: str) -> dict:
    private = PrivatePeak()
    from store import Library
    from tui.app import make_app
    library = Library(folder)
    private.helper = lambda: library.discovery.helper_pid
    app = make_app(library, keymap_path=None, settings_path=None)
    lookup_mb = 0.0
    async with app.run_test(size=(160, 45)) as pilot:
        while not len(app.main_screen.results.indices):
            await pilot.pause(0.01)
        await pilot.press("slash", *"graph neural network")
        # Wait for the model while the app is getting it (a huge library builds it only on request).
        await pilot.pause(2.0)
        deadline = time.monotonic() + 600
        while not app.library.discovery.similarity_ready and time.monotonic() < deadline and any(
                w.group == "prepare" and w.is_running for w in app.main_screen.workers):
            await pilot.pause(0.2)
        await pilot.press("down", "down", "down", "enter", "J")  # read a paper, and the next
        await pilot.pause(0.5)
        await pilot.press("escape", "m")  # more like this, on request (a huge library builds the model now)
        await pilot.pause(2.0)
        while time.monotonic() < deadline and (not app.library.discovery.similarity_ready or any(
                w.is_running for w in app.main_screen.workers)):
            await pilot.pause(0.2)
        await pilot.pause(0.5)
        pid = library.discovery.helper_pid
        lookup_mb = status_mb(pid, "VmHWM") if pid else 0.0  # (read before the app ends it)
    app_mb = own_peak_mb()
    return {"session_mb": app_mb + lookup_mb, "app_mb": app_mb, "lookup_mb": lookup_mb,
            "private_mb": private.mb,
            "helper_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
            "model_ready": app.library.discovery.similarity_ready}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Peak memory of an app session on LIBRARY_DIR (JSON, MB).")
    parser.add_argument("library", type=library_folder, metavar="LIBRARY_DIR", help="an existing library folder")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.library))))
