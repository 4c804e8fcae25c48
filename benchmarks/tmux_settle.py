"""Key -> the whole screen settled, in a real terminal: papersift in tmux, keys sent with send-keys,
the screen read with capture-pane each time tmux reports the app's output.

For each key the clock stops at the last change of the screen's text seen before it stayed the
same for QUIET seconds (longer than the reader's wait for a pause in typing, tui.limits.READER_DELAY,
plus a render): the list's rows, the reader's title and abstract, its more-like-this panel, the
search box. A second row for typed characters leaves the panel's filling out (a change of the
panel's rows alone, right of its heading).

The clock listens rather than polls: a control-mode client (``tmux -C``) is told of every write
the app makes to its terminal, stamped as it arrives; the screen is read after each, and a change
is dated by the write before the read. Reading the screen continuously instead (a tmux client
process per read, ~2 ms each) took ~0.8 of a core of two from the app it measured. The figures
include the terminal's own drawing, which the Pilot rows of run_all.py do not.

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
import threading
import time
from pathlib import Path

QUIET = 0.35  # seconds without a change: settled
READ_AFTER = 0.002  # seconds from a write to reading the screen (a frame comes in a few writes)
QUERIES = ["graph neural network", "diffusion models", "reinforcement learning", "language model reasoning"]
# Typed in bursts (a key every BURST_PACE seconds, the last one timed): other words than QUERIES',
# whose papers' panels the app keeps.
BURST_QUERIES = ["optimal transport", "contrastive learning", "federated learning", "protein structure"]
BURST_PACE = 0.1  # seconds between keys: brisk typing


class Pane:
    """A tmux server running one window, and a control-mode client stamping the app's writes."""

    def __init__(self, env: dict[str, str]) -> None:
        self.name = f"settle{os.getpid()}"
        self.env = env
        self.writes: list[float] = []  # when each write of the app reached tmux (perf_counter)
        self._client: subprocess.Popen[bytes] | None = None

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.name, *args], capture_output=True, text=True, check=True,
                              env=self.env).stdout

    def listen(self) -> None:
        """Attach the control-mode client (it does not resize the window) and stamp its ``%output`` lines."""
        client = subprocess.Popen(["tmux", "-L", self.name, "-C", "attach", "-t", self.name], env=self.env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._client = client

        def stamp() -> None:
            assert client.stdout is not None
            for line in client.stdout:
                if line.startswith(b"%output "):
                    self.writes.append(time.perf_counter())
        threading.Thread(target=stamp, daemon=True).start()

    def close(self) -> None:
        self.tmux("kill-server")
        if self._client is not None:
            self._client.wait(timeout=10)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name)

    def settle_after(self, key: str, literal: bool = False) -> float:
        """Seconds from sending ``key`` to the last change of the screen before QUIET."""
        return self.settle_parts(key, literal)[0]

    def settle_parts(self, key: str, literal: bool = False) -> tuple[float, float]:
        """Seconds from sending ``key`` to the last change of the screen before QUIET, and to the
        last change other than the more-like-this panel's (see :func:`panel_only`). The screen is
        read a moment (READ_AFTER) after writes arrive; a change is dated by the last write before
        the read."""
        shown = self.screen()
        read = len(self.writes)
        t0 = time.perf_counter()
        self.tmux("send-keys", "-t", self.name, *(["-l", key] if literal else [key]))
        last_change = last_other = None
        while True:
            now = time.perf_counter()
            if len(self.writes) > read:
                time.sleep(READ_AFTER)  # (the rest of the frame)
                read = len(self.writes)
                stamp = self.writes[-1]
                screen = self.screen()
                if screen != shown:
                    last_change = stamp
                    if not panel_only(shown, screen):
                        last_other = stamp
                    shown = screen
            elif now - (last_change or t0) > QUIET:
                return (last_change or t0) - t0, (last_other or t0) - t0
            else:
                time.sleep(0.001)
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
    pane.listen()
    typed: list[float] = []
    typed_text: list[float] = []  # the same keys, the more-like-this panel's filling left out
    moved: list[float] = []
    burst: list[float] = []  # the last key of a burst, and the same without the panel's filling
    burst_text: list[float] = []
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
        for q in BURST_QUERIES * args.repeat:
            pane.settle_after("/")
            for ch in q[:9]:
                pane.tmux("send-keys", "-t", pane.name, "-l", ch)
                time.sleep(BURST_PACE)
            whole, text = pane.settle_parts(q[9], literal=True)
            burst.append(whole)
            burst_text.append(text)
            pane.settle_after("Escape")
            pane.settle_after("Escape")
    finally:
        pane.close()
        shutil.rmtree(home, ignore_errors=True)
    print("| key -> whole screen settled, in tmux | median | p90 | keys |")
    print("|---|---|---|---|")
    print(f"| typed character | {stats(typed)} |")
    print(f"| typed character, list and reader (the more-like-this panel left out) | {stats(typed_text)} |")
    print(f"| last key of a burst, a key every {BURST_PACE} s | {stats(burst)} |")
    print(f"| last key of a burst, list and reader (the panel left out) | {stats(burst_text)} |")
    print(f"| up/down in the list | {stats(moved)} |")


if __name__ == "__main__":
    main()
