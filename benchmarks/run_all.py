"""papersift benchmarks: import, cold start, keystroke latency, scrolling, triage, search vs fzf.

Prints one table per corpus size (median and p95 over repeated runs; --json for
machine-readable output). Corpora come from benchmarks/generate.py (made on
first use, deterministic). The fzf reference runs in the same process on the
same abstracts (one per line). Timings never fail anything: the targets live
in the README and the issues.

Usage: python benchmarks/run_all.py [--sizes 6000 30000] [--repeat 5] [--json] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out"
sys.path.insert(0, str(ROOT))
# Child processes (the timed `papersift` runs) import this tree's code, not whatever an editable
# install points at: two checkouts timed side by side then time their own code.
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)

QUERIES = ["graph neural network message passing", "diffusion models for image generation", "reinforcement learning policy",
           "large language model reasoning", "federated learning privacy"]
TYPO_QUERIES = ["trasnformer", "difusion", "reinforcment", "langauge", "optimzation"]
SEARCH_QUERIES = ["graph neural network", "diffusion", "transfomer attention"]


PARTS = ("import", "cold", "session", "keys", "settle", "fzf", "triage")


def stats(xs: list[float]) -> dict:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]
    return {"median": statistics.median(xs), "p95": p95, "n": len(xs)}


def corpus(n: int, real: bool = False) -> Path:
    path = OUT / (f"c{n}-real.txt" if real else f"c{n}.txt")
    if not path.exists():
        OUT.mkdir(exist_ok=True)
        # its progress line goes to stderr: stdout is the report (JSON with --json)
        subprocess.run([sys.executable, str(HERE / "generate.py"), str(n), str(path), *(["--real"] if real else [])],
                       check=True, stdout=sys.stderr)
    return path


def papersift_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("papersift")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "tui"]


def timed_process(cmd: list[str], stdin=None) -> tuple[float, int]:
    """Wall seconds and peak RSS (KB) of one child process (for a peak of its own: peak_process)."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - t
    if status:
        raise RuntimeError(f"{cmd} failed ({status})")
    return elapsed, usage.ru_maxrss


_PEAK = ("import json, os, subprocess, sys, time\n"
         "t = time.perf_counter()\n"
         "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
         "_, status, usage = os.wait4(p.pid, 0)\n"
         "print(json.dumps([time.perf_counter() - t, usage.ru_maxrss, status]))\n")


def peak_process(cmd: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (KB) of one child process (and the workers it waited for), started
    from a small process. The kernel's peak RSS of a process starts at the high-water mark of the
    memory it was exec'd from, and this process holds hundreds of MB once it has run the app
    benchmarks: a child started from here reported this process's peak when that was higher."""
    out = subprocess.run([sys.executable, "-c", _PEAK, *cmd], capture_output=True, text=True, check=True)
    elapsed, rss, status = json.loads(out.stdout.strip().splitlines()[-1])
    if status:
        raise RuntimeError(f"{cmd} failed ({status})")
    return float(elapsed), int(rss)


def bench_import(path: Path, repeat: int) -> tuple[dict, dict, Path, dict, float]:
    """The import of ``path`` into a fresh library, ``repeat`` times, each run after one of its floor
    (benchmarks/import_floor.py: read, split, shingle on one core), so that the ratio of the two sees
    the same machine. Returns the import's seconds and peak RSS (MB), the first run's library, the
    floor's seconds, and the share of the machine's CPU that other processes used in the second
    before each import (the import uses both cores, its floor one: a busy machine slows the import more)."""
    times, rss, floors, busy = [], [], [], []
    keep = None
    for _ in range(repeat):
        floors.append(import_floor_seconds(path))
        busy.append(machine_busy())
        lib = Path(tempfile.mkdtemp(prefix="psbench-"))
        t, r = peak_process(papersift_cmd() + ["--library", str(lib), "import", str(path)])
        times.append(t)
        rss.append(r / 1024)
        if keep is None:
            keep = lib
        else:
            shutil.rmtree(lib)
    assert keep is not None
    return stats(times), stats(rss), keep, stats(floors), max(busy)


def import_floor_seconds(path: Path) -> float:
    """Seconds of one benchmarks/import_floor.py run, in a fresh process."""
    out = subprocess.run([sys.executable, str(HERE / "import_floor.py"), str(path)], capture_output=True,
                         text=True, check=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1])["seconds"])


def machine_busy(seconds: float = 1.0) -> float:
    """The share (0-1) of all cores' time that was not idle over ``seconds`` (Linux /proc/stat; 0 elsewhere)."""
    def sample() -> tuple[int, int]:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        return sum(fields), fields[3] + fields[4]  # (all, idle + iowait)
    try:
        total0, idle0 = sample()
        time.sleep(seconds)
        total1, idle1 = sample()
    except (OSError, ValueError, IndexError):
        return 0.0
    return 1 - (idle1 - idle0) / max(1, total1 - total0)


def _probe_env() -> dict:
    """The app probes start with no user settings and leave none in the user's folder (they
    would note their temporary libraries as places to resume, and a user's sort choice would
    change the timing): each probe gets an empty config folder of its own."""
    return {**os.environ, "XDG_CONFIG_HOME": tempfile.mkdtemp(prefix="psbench-config-")}


def bench_cold_start(lib: Path, repeat: int) -> dict:
    xs = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, str(HERE / "startup_probe.py"), str(lib)], capture_output=True, text=True,
                             check=True, env=_probe_env())
        xs.append(float(out.stdout.strip().splitlines()[-1]))
    return stats(xs)


def bench_session_memory(lib: Path) -> dict:
    """Peak RSS of a whole app session (and of the helper that builds the model), fresh process."""
    out = subprocess.run([sys.executable, str(HERE / "session_probe.py"), str(lib)], capture_output=True, text=True,
                         check=True, env=_probe_env())
    return json.loads(out.stdout.strip().splitlines()[-1])


async def idle_workers(app) -> None:
    """Wait until no worker runs (exclusive workers may be cancelled by newer ones)."""
    for _ in range(4000):
        if not any(w.is_running for w in app.workers):
            return
        await asyncio.sleep(0.005)


# The whole screen is settled when no row was rendered for this long: a screen draws at most every
# 1/240 s (tui.compat.FRAME_PERIOD), but the reader's frame may come a few frames after the list's.
SETTLED_QUIET = 0.06


class PaintClock:
    """Benchmark-only hooks: when did the results list last render rows, and when did a write finish?

    A key event is posted exactly as the terminal driver posts it; the clock stops
    at the last row rendered by the first repaint after the change.
    """

    def __init__(self, results) -> None:
        self.stamps: list[float] = []
        self.t0 = 0.0  # when the key being measured was posted
        self._last: dict[int, float] = {}  # id(widget) -> when it last rendered a row
        self.watch(results)

    def watch(self, widget) -> None:
        """Stamp every row ``widget`` renders too."""
        original = widget.render_line

        def render_line(y):
            strip = original(y)
            now = time.perf_counter()
            self.stamps.append(now)
            self._last[id(widget)] = now
            return strip
        widget.render_line = render_line

    def drawn(self, widget) -> bool:
        """Whether ``widget`` rendered a row since the key was posted (a check that its state
        changed is not enough: the frame that draws it may come a tick later)."""
        return self._last.get(id(widget), 0.0) > self.t0

    async def measure(self, app, pilot, event, changed, quiet: float = 0.02) -> float:
        """Post ``event``; wait until ``changed()`` and the following repaint has finished (no row
        rendered for ``quiet`` seconds)."""
        from textual import events
        self.stamps.clear()
        t0 = self.t0 = time.perf_counter()
        app.post_message(events.Key(event, " " if event == "space" else event if len(event) == 1 else None))
        deadline = t0 + 10
        while not changed() and time.perf_counter() < deadline:
            # A sleep, not asyncio.sleep(0): a loop that never waits keeps the GIL from the app's
            # threads (a more-like-this lookup took twice as long while it spun). The clock reads
            # the rows' stamps, so polling every millisecond costs the figure nothing.
            await asyncio.sleep(0.001)
        while time.perf_counter() < deadline:  # the repaint after the change (it may already be done)
            await asyncio.sleep(0.002)
            if self.stamps and time.perf_counter() - self.stamps[-1] > quiet:
                return self.stamps[-1] - t0
        raise TimeoutError("the list never repainted for this key")


class SearchDriver:
    """Benchmark-only: the search box of an app under Pilot, and which query the list shows."""

    def __init__(self, app, pilot) -> None:
        self.app, self.pilot, self.screen = app, pilot, app.main_screen
        self.box = self.screen.query_one("#search")
        self.screen._shown_query = None
        original_show = self.screen.show_results

        def show(query, result, keep_paper=False):
            original_show(query, result, keep_paper)
            self.screen._shown_query = query
        self.screen.show_results = show

    def shown(self, q: str):
        """Whether the list shows the results for exactly this query (polled on every turn of the
        event loop the app runs on: cheap)."""
        return lambda: self.screen._shown_query == q and self.box.value == q

    async def reset(self, value: str, wait: float = 0.0) -> None:
        """The box holds ``value``, every worker is done (and ``wait`` seconds passed), the box has the focus."""
        self.box.value = value
        self.box.cursor_position = len(value)
        await idle_workers(self.app)
        await self.pilot.pause(wait or None)
        self.screen.set_focus(self.box)
        await self.pilot.pause()


async def _pilot_benches(lib_dir: Path, repeat: int) -> dict:
    from store import Library
    from tui.app import make_app

    results: dict[str, list[float]] = {"key_1": [], "key_3": [], "key_8": [], "key_20": [], "key_typo": [],
                                       "page_down": []}
    failures: list[str] = []
    app = make_app(Library(lib_dir), keymap_path=None, settings_path=Path(tempfile.mkdtemp()) / "s.json")
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.main_screen
        results_list = screen.results
        clock = PaintClock(results_list)
        typing = SearchDriver(app, pilot)
        reset, shown = typing.reset, typing.shown

        for q in (QUERIES * repeat)[: max(repeat, len(QUERIES))]:
            await reset("")
            for n, ch in enumerate(q[:20], start=1):
                try:
                    dt = await clock.measure(app, pilot, "space" if ch == " " else ch, shown(q[:n]))
                except TimeoutError:
                    failures.append(q[:n])
                    await reset(q[:n])
                    continue
                if n in (1, 3, 8, 20):
                    results[f"key_{n}"].append(dt)
        for q in (TYPO_QUERIES * repeat)[: max(repeat, len(TYPO_QUERIES))]:
            app.main_screen.library.index.vocabulary.forget_expansions()  # a typo is a word never typed before
            await reset(q[:-1])
            results["key_typo"].append(await clock.measure(app, pilot, q[-1], shown(q)))
        await reset("")
        screen.set_focus(screen.results)
        await pilot.pause()
        for _ in range(30):
            if results_list.cursor >= len(results_list.indices) - 1:  # a small library: back to the top
                await pilot.press("home")
                await pilot.pause()
            before = results_list.cursor
            results["page_down"].append(await clock.measure(app, pilot, "pagedown",
                                                            lambda b=before: results_list.cursor != b))
    if failures:
        print(f"warning: no repaint seen for {len(failures)} keystrokes: {failures[:5]}", file=sys.stderr)
    return {k: stats(v) for k, v in results.items() if v}


def stats90(xs: list[float]) -> dict:
    """:func:`stats` with the 90th percentile beside (the whole screen's budget is a p90's)."""
    out = stats(xs)
    ordered = sorted(xs)
    out["p90"] = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    return out


async def _settle_benches(lib_dir: Path, repeat: int) -> dict:
    """Key -> the whole screen settled: the list repainted with the key's results, the reader showing
    the highlighted paper (its title and abstract rendered), and, when the more-like-this model is
    ready, the reader's panel of similar papers filled for it; the clock stops at the last row any
    of them rendered. Typed characters (each waits for the screen to settle, so each comes after a
    pause: the reader comes with the list; in a burst of keys, tui.limits.TYPING_BURST, a library of
    more than 2,000 papers would wait for the pause, tui.limits.READER_DELAY) and down in the list
    (the reader follows the cursor at once)."""
    from store import Library
    from tui.app import make_app

    out: dict[str, list[float]] = {"settle_type": [], "settle_down": [], "settle_similar": [], "settle_jump": []}
    missed: list[str] = []
    app = make_app(Library(lib_dir), keymap_path=None, settings_path=Path(tempfile.mkdtemp()) / "s.json")
    async with app.run_test(size=(160, 45)) as pilot:
        screen = app.main_screen
        reader, reading = screen.reader, screen.reading
        clock = PaintClock(screen.results)
        body, similar = reader.query_one("#reader-body"), reader.query_one("#reader-similar")
        clock.watch(body)
        clock.watch(similar)
        filled: list[int | None] = [None]  # the paper the similar panel was last filled for
        original_similar = reader.show_similar

        def show_similar(paper_index, titles):
            original_similar(paper_index, titles)
            if paper_index == reader.paper_index:  # (a paper looked up ahead is not shown)
                filled[0] = paper_index
        reader.show_similar = show_similar
        typing = SearchDriver(app, pilot)

        def settled(q: str | None, panel: bool):
            was = reader.paper_index  # (before the key)

            def check() -> bool:
                if q is not None and not typing.shown(q)():
                    return False
                idx = screen.results.current_index
                if reading._timer is not None or reader.paper_index != idx:
                    return False
                if idx != was and not clock.drawn(body):  # another paper, not yet drawn
                    return False
                # (the panel below a long abstract may be out of the reader's view: not drawn at all)
                return not panel or idx is None or (filled[0] == idx and (clock.drawn(similar) or not similar.region))
            return check

        async def reset(value: str) -> None:
            await typing.reset(value, wait=0.4)  # (the reader's and the panel's timers)

        for q in (QUERIES * repeat)[: max(repeat, len(QUERIES))]:
            await reset("")
            for n, ch in enumerate(q[:12], start=1):
                try:
                    out["settle_type"].append(await clock.measure(app, pilot, "space" if ch == " " else ch,
                                                                  settled(q[:n], False), SETTLED_QUIET))
                except TimeoutError:
                    await reset(q[:n])
        await reset("")
        screen.set_focus(screen.results)
        await pilot.pause()
        for k in range(max(12, 4 * repeat)):
            filled[0] = None
            out["settle_down"].append(await clock.measure(app, pilot, "down" if k % 8 < 4 else "up", settled(None, False),
                                                          SETTLED_QUIET))
            await pilot.pause(0.4)
        if screen.library.discovery.similarity_ready:  # the panel too: down the list (the next paper's neighbours
            # are looked up while the cursor rests, as when reading down the list), and page down (a
            # paper nothing was looked up for)
            for name, key in (("settle_similar", "down"), ("settle_jump", "pagedown")):
                for _ in range(max(6, 2 * repeat)):
                    filled[0] = None
                    try:
                        out[name].append(await clock.measure(app, pilot, key, settled(None, True), SETTLED_QUIET))
                    except TimeoutError:  # (said below: a key whose panel was never seen filled)
                        missed.append(name)
                    await pilot.pause(0.4)
    if missed:
        print(f"warning: the panel was never seen filled for {len(missed)} keys: {missed}", file=sys.stderr)
    return {k: stats90(v) for k, v in out.items() if v}


async def _triage_bench(lib_dir: Path, fraction: float, presses: int) -> dict:
    """Status key -> the store's fsync'd atomic write has returned (durable), as the app runs it;
    and the same key -> the whole screen settled (the row repainted, the cursor moved on as the
    app's default setting does, the reader showing the next paper): the clock stops at the last row
    the list or the reader rendered (see :func:`_settle_benches`)."""
    from store import Library
    from store.records import Annotation
    from tui.app import make_app

    lib = Library(lib_dir)
    ids = [p.id for p in lib.corpus][: int(len(lib) * fraction)]
    lib.replace_annotations([Annotation(pid, status="read", tags=["bench"], updated="2026-01-01") for pid in ids],
                            "bench", "benchmark setup")
    durable: list[float] = []
    original = lib.store.apply

    def apply(*args, **kwargs):
        original(*args, **kwargs)
        durable.append(time.perf_counter())
    lib.store.apply = apply
    app = make_app(lib, keymap_path=None, settings_path=Path(tempfile.mkdtemp()) / "s.json")
    xs, settled_xs = [], []
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        screen = app.main_screen
        reader, reading = screen.reader, screen.reading
        screen.set_focus(screen.results)
        await pilot.pause()
        clock = PaintClock(screen.results)
        clock.watch(reader.query_one("#reader-body"))
        for i in range(presses):
            key = "a" if i % 2 else "s"
            n = len(durable)

            def settled(n: int = n) -> bool:
                idx = screen.results.current_index
                return (len(durable) > n and reading._timer is None and reader.paper_index == idx
                        and clock.drawn(screen.results))
            settled_xs.append(await clock.measure(app, pilot, key, settled, SETTLED_QUIET))
            xs.append(durable[-1] - clock.t0)
            await pilot.pause(0.4)
    return {"durable": stats(xs), "settled": stats90(settled_xs)}


def bench_process_floor(repeat: int) -> dict:
    """What any Python command costs before its own work: the interpreter's start, and with numpy
    imported. A `papersift search` process cannot be faster than these (the 6k fzf ratio's limit)."""
    runs = max(repeat, 5)
    return {label: stats([timed_process([sys.executable, "-c", code])[0] for _ in range(runs)])
            for label, code in (("interpreter start", "pass"), ("interpreter + numpy import", "import numpy"))}


def bench_search_vs_fzf(lib: Path, path: Path, repeat: int) -> dict:
    fzf = shutil.which("fzf")
    lines = OUT / (path.stem + ".lines")
    if not lines.exists():
        text = path.read_text(encoding="utf-8")
        paras = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)[1:] if p.strip()]
        lines.write_text("\n".join(paras) + "\n", encoding="utf-8")
    out = {}
    timed_process(papersift_cmd() + ["--library", str(lib), "search", "warm", "up"])  # caches: bytecode, index, files
    for q in SEARCH_QUERIES:
        ours = [timed_process(papersift_cmd() + ["--library", str(lib), "search", q, "--limit", "20",
                                                  "--format", "plain"])[0] for _ in range(repeat)]
        row = {"papersift": stats(ours)}
        if fzf:
            theirs = []
            for _ in range(repeat):
                with lines.open("rb") as fh:
                    theirs.append(timed_process([fzf, "--filter", q], stdin=fh)[0])
            row["fzf"] = stats(theirs)
            row["ratio"] = row["papersift"]["median"] / row["fzf"]["median"]
        out[q] = row
    return out


# The budgets docs/performance.md holds these figures to, by corpus size (printed beside them).
BUDGETS = {30000: {"ratio": "≤ 4.5x"}, 300000: {"import_mb": "≤ 1.5 GB", "app_mb": "≤ 600 MB"}}


def budget(n: int, key: str) -> str:
    held = BUDGETS.get(n, {}).get(key)
    return f" (budget {held})" if held else ""


BUSY = 0.1  # other processes' share of the CPU before an import above which the table says so


def print_import_rows(row: dict, n: int = 0) -> None:
    """The import's rows: its time, its floor and their ratio, its peak memory, with their budgets."""
    print(f"| import + dedup (whole process) | {ms(row['import']['median'])} | {ms(row['import']['p95'])} |")
    if "import_floor" in row:
        floor = row["import_floor"]
        print(f"| floor of an import: read, split, shingle on one core (benchmarks/import_floor.py) | "
              f"{ms(floor['median'])} | {ms(floor['p95'])} |")
        print(f"| import + dedup / floor{budget(n, 'ratio')} | {row['import']['median'] / floor['median']:.2f}x | |")
    if row.get("busy_before_import", 0) > BUSY:
        print(f"| (other processes used {row['busy_before_import']:.0%} of the CPU just before an import: "
              f"it reads slow) | | |")
    print(f"| import peak RSS{budget(n, 'import_mb')} | {row['import_peak_rss_mb']['median']:,.0f} MB | "
          f"{row['import_peak_rss_mb']['p95']:,.0f} MB |")


def print_settle_rows(row: dict, n: int) -> None:
    """Key -> whole screen settled: typing, moving in the list, and with the similar panel."""
    for k, label in (("settle_type", "typed character"), ("settle_down", "up/down in the list"),
                     ("settle_similar", "down in the list, more-like-this panel filled"),
                     ("settle_jump", "page down, more-like-this panel filled")):
        if k in row:
            held = " (budget ≤ 100 ms median, p90 ≤ 200 ms)" if n == 300000 else ""
            print(f"| key -> whole screen settled ({label}){held} | {ms(row[k]['median'])} | "
                  f"{ms(row[k]['p95'])} (p90 {ms(row[k]['p90'])}) |")


def ms(x: float) -> str:
    return f"{x * 1000:,.1f} ms" if x < 1 else f"{x:,.2f} s"


def app_benches(lib: Path, parts: set[str], repeat: int) -> dict:
    """The app's rows: cold start, a session's memory, keystrokes, the whole screen settling."""
    row: dict = {}
    if "cold" in parts:
        row["cold_start"] = bench_cold_start(lib, repeat)
    if "session" in parts:
        row["session_memory"] = bench_session_memory(lib)
    if "keys" in parts:
        row.update(asyncio.run(_pilot_benches(lib, repeat)))
    if "settle" in parts:
        row.update(asyncio.run(_settle_benches(lib, repeat)))
    return row


def main() -> None:
    # Child processes keep compiled bytecode as an installed copy does (pip writes it). Some
    # environments set PYTHONDONTWRITEBYTECODE, and an editable install then recompiles every
    # module of papersift in every process (~30-50 ms measured here).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[6000, 30000])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--real", action="store_true", help="corpora of real text only (generate.py --real)")
    ap.add_argument("--quick", action="store_true", help="smoke run: one repeat, fewer presses")
    ap.add_argument("--parts", default=",".join(PARTS),
                    help=f"comma-separated subset of {','.join(PARTS)} (e.g. import,cold,session,keys,fzf for 300k)")
    ap.add_argument("--all", action="store_true",
                    help="the README's tables in one run: 6k and 30k with --repeat 3, then 300k with one repeat")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    unknown = parts - set(PARTS)
    if unknown:
        ap.error(f"unknown parts: {', '.join(sorted(unknown))}")
    if args.all:
        jobs = [(6000, 3, parts), (30000, 3, parts), (300000, 1, parts)]
    else:
        jobs = [(n, 1 if args.quick else args.repeat, parts) for n in args.sizes]
    report = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0],
                          "fzf": subprocess.run(["fzf", "--version"], capture_output=True, text=True).stdout.strip()
                          if shutil.which("fzf") else None}, "sizes": {}}
    for n, repeat, parts in jobs:
        path = corpus(n, args.real)
        imp, rss, lib, floor, busy = bench_import(path, max(1, min(repeat, 3)) if "import" in parts else 1)
        row: dict = {"import": imp, "import_peak_rss_mb": rss, "import_floor": floor, "busy_before_import": busy}
        row.update(app_benches(lib, parts, repeat))
        if "fzf" in parts:
            row["search_vs_fzf"] = bench_search_vs_fzf(lib, path, repeat)
            row["process_floor"] = bench_process_floor(repeat)
        for frac in (0.1, 0.5, 1.0) if "triage" in parts else ():
            trial = Path(tempfile.mkdtemp(prefix="pstriage-"))
            shutil.copytree(lib, trial, dirs_exist_ok=True)
            row[f"triage_{int(frac * 100)}pct"] = asyncio.run(_triage_bench(trial, frac, 10 if args.quick else 40))
            shutil.rmtree(trial)
        report["sizes"][n] = row
        shutil.rmtree(lib)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    m = report["machine"]
    print(f"machine: {m['cpus']} cores, Python {m['python']}, fzf {m['fzf']}")
    for n, row in report["sizes"].items():
        print(f"\n### {n:,} abstracts\n")
        print("| measure | median | p95 |")
        print("|---|---|---|")
        print_import_rows(row, n)
        if "cold_start" in row:
            print(f"| cold start -> list painted | {ms(row['cold_start']['median'])} | {ms(row['cold_start']['p95'])} |")
        if "session_memory" in row:
            mem = row["session_memory"]
            model = "more like this" if mem["model_ready"] else "more like this not ready"
            lookup = f"app {mem['app_mb']:,.0f} + lookup helper {mem['lookup_mb']:,.0f} MB; " if mem["lookup_mb"] else ""
            print(f"| app session peak RSS (start, search, read, {model}){budget(n, 'app_mb')} | {mem['session_mb']:,.0f} MB | "
                  f"({lookup}private {mem.get('private_mb', 0):,.0f} MB; model helper {mem['helper_mb']:,.0f} MB) |")
        for k, label in (("key_1", "1 char"), ("key_3", "3 chars"), ("key_8", "8 chars"), ("key_20", "20 chars"),
                         ("key_typo", "typo")):
            if k in row:
                print(f"| keystroke -> results repainted ({label}) | {ms(row[k]['median'])} | {ms(row[k]['p95'])} |")
        print_settle_rows(row, n)
        if "page_down" in row:
            print(f"| page down | {ms(row['page_down']['median'])} | {ms(row['page_down']['p95'])} |")
        for frac in (10, 50, 100):
            if f"triage_{frac}pct" in row:
                r = row[f"triage_{frac}pct"]["durable"]
                print(f"| triage key -> durable on disk ({frac}% annotated) | {ms(r['median'])} | {ms(r['p95'])} |")
        for frac in (10, 50, 100):
            if f"triage_{frac}pct" in row:
                r = row[f"triage_{frac}pct"]["settled"]
                print(f"| triage key -> whole screen settled ({frac}% annotated) | {ms(r['median'])} | "
                      f"{ms(r['p95'])} (p90 {ms(r['p90'])}) |")
        for q, r in row.get("search_vs_fzf", {}).items():
            extra = f" vs fzf {ms(r['fzf']['median'])} = **{r['ratio']:.2f}x**" if "fzf" in r else ""
            print(f"| `papersift search \"{q}\"` (whole process){extra} | {ms(r['papersift']['median'])} | {ms(r['papersift']['p95'])} |")
        for label, r in row.get("process_floor", {}).items():
            print(f"| floor of any Python command: {label} | {ms(r['median'])} | {ms(r['p95'])} |")


if __name__ == "__main__":
    main()
