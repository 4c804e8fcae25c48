"""Key -> the whole screen settled, in a real terminal: papersift in tmux, keys sent with send-keys,
the screen read with capture-pane every few milliseconds.

For each key the clock stops at the last change of the screen's text seen before it stayed the
same for QUIET seconds (longer than the reader's wait for a pause in typing, tui.limits.READER_DELAY,
plus a render): the list's rows, the reader's title and abstract, its more-like-this panel, the
search box. While typing, the panel waits for a longer pause than the reader (tui.controllers.similar)
and fills within QUIET for some keys and not others: a second row for typed characters leaves the
panel's filling out (a change of the panel's rows alone, right of its heading). A capture takes
a few milliseconds (a tmux client process), so the figures carry that much error; they include the
terminal's own drawing, which the Pilot rows of run_all.py do not.

Usage: python benchmarks/tmux_settle.py LIBRARY [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUIET = 0.35  # seconds without a change: settled
QUERIES = ["graph neural network", "diffusion models", "reinforcement learning", "language model reasoning"]


class Pane:
    def __init__(self, env: dict[str, str]) -> None:
        self.name = f"settle{os.getpid()}"
        self.env = env

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.name, *args], capture_output=True, text=True, check=True,
                              env=self.env).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name)

    def settle_after(self, key: str, literal: bool = False) -> float:
        """Seconds from sending ``key`` to the last change of the screen before QUIET."""
        return self.settle_parts(key, literal)[0]

    def settle_parts(self, key: str, literal: bool = False) -> tuple[float, float]:
        """Seconds from sending ``key`` to the last change of the screen before QUIET, and to the
        last change other than the more-like-this panel's (see :func:`panel_only`)."""
        before = self.screen()
        t0 = time.perf_counter()
        self.tmux("send-keys", "-t", self.name, *(["-l", key] if literal else [key]))
        last_change = last_other = None
        shown = before
        while True:
            now = time.perf_counter()
            screen = self.screen()
            if screen != shown:
                last_change = time.perf_counter()
                if not panel_only(shown, screen):
                    last_other = last_change
                shown = screen
            if now - (last_change or t0) > QUIET:
                return (last_change or t0) - t0, (last_other or t0) - t0
            if now - t0 > 10:
                raise TimeoutError(f"the screen never settled after {key!r}")


PANEL_HEAD = "More like this ("
PANEL_ROWS = 6  # the heading and five titles (tui.controllers.similar looks up five)


def panel_only(old: str, new: str) -> bool:
    """Whether the change from ``old`` to ``new`` is the reader's more-like-this panel filling and
    nothing else: every changed row is one of the panel's, in the columns right of where its
    heading starts (the list shares those rows on the left)."""
    rows = new.splitlines()
    head = next((i for i, row in enumerate(rows) if PANEL_HEAD in row), None)
    if head is None:
        return False
    col = rows[head].index(PANEL_HEAD)
    before = old.splitlines()
    changed = [i for i in range(max(len(rows), len(before)))
               if (rows[i] if i < len(rows) else None) != (before[i] if i < len(before) else None)]
    return bool(changed) and all(head <= i < head + PANEL_ROWS and i < len(before)
                                 and rows[i][:col] == before[i][:col] for i in changed)


def stats(xs: list[float]) -> str:
    xs = sorted(xs)
    p90 = xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))]
    return f"{statistics.median(xs) * 1000:,.1f} ms | {p90 * 1000:,.1f} ms | {len(xs)}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("library", type=Path)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("tmux is not installed")
    home = Path(tempfile.mkdtemp(prefix="pssettle-"))
    env = {**{k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "ROWS")},
           "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"), "TERM": "xterm-256color",
           "PAPERSIFT_NO_SYSTEM_CLIPBOARD": "1"}
    exe = Path(sys.executable).with_name("papersift")
    cmd = f"{exe if exe.exists() else sys.executable + ' -m tui'} --library {args.library}"
    pane = Pane(env)
    pane.tmux("-f", "/dev/null", "new-session", "-d", "-s", pane.name, "-x", "160", "-y", "45", cmd)
    pane.tmux("set-option", "-g", "escape-time", "0")
    typed: list[float] = []
    typed_text: list[float] = []  # the same keys, the more-like-this panel's filling left out
    moved: list[float] = []
    try:
        deadline = time.monotonic() + 120
        while "papers" not in pane.screen() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2)
        for q in QUERIES * args.repeat:
            pane.settle_after("/")
            for ch in q[:10]:
                whole, text = pane.settle_parts(ch, literal=True)
                typed.append(whole)
                typed_text.append(text)
            pane.settle_after("Escape")  # the search box done: the list
            pane.settle_after("Escape")  # the filter cleared
        for k in range(12 * args.repeat):
            moved.append(pane.settle_after("Down" if k % 8 < 4 else "Up"))
    finally:
        pane.tmux("kill-server")
        shutil.rmtree(home, ignore_errors=True)
    print("| key -> whole screen settled, in tmux | median | p90 | keys |")
    print("|---|---|---|---|")
    print(f"| typed character | {stats(typed)} |")
    print(f"| typed character, list and reader (the more-like-this panel left out) | {stats(typed_text)} |")
    print(f"| up/down in the list | {stats(moved)} |")


if __name__ == "__main__":
    main()
