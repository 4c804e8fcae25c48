"""A smoke run of the benchmark suite at a tiny size: every measurement runs and reports.

Timings are never asserted (they live in docs/performance.md); this only
keeps the benchmark scripts working as the code changes.
"""

from __future__ import annotations

import pytest

import json
import shutil
import subprocess
import sys
from pathlib import Path

from .conftest import DATA

pytestmark = [pytest.mark.slow, pytest.mark.bench]


ROOT = Path(__file__).resolve().parent.parent


def test_benchmarks_run_at_small_n():
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run_all.py"), "--sizes", "300", "--quick",
                           "--json"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    row = json.loads(proc.stdout)["sizes"]["300"]
    for key in ("import", "import_peak_rss_mb", "cold_start", "session_memory", "key_1", "key_20", "key_typo",
                "page_down", "triage_10pct", "triage_100pct", "search_vs_fzf", "process_floor", "import_floor",
                "settle_type", "settle_down", "settle_similar", "settle_jump"):
        assert key in row, key
    assert 0 < row["settle_type"]["median"] <= row["settle_type"]["p90"] <= row["settle_type"]["p95"]
    for frac in ("triage_10pct", "triage_100pct"):  # (a status key: durable first, the screen settled after)
        assert 0 < row[frac]["durable"]["median"] and 0 < row[frac]["settled"]["median"] <= row[frac]["settled"]["p95"]
    assert row["session_memory"]["model_ready"] and row["import"]["median"] > 0
    assert 0 < row["import_floor"]["median"] and row["session_memory"]["private_mb"] > 0
    assert 0 <= row["busy_before_import"] <= 1  # (other processes' share of the CPU before the import)


def test_import_rows_say_when_the_machine_was_busy(capsys):
    """The ratio's row stands with its floor; a note follows when other processes used the CPU
    just before an import (it then reads slow)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("run_all", ROOT / "benchmarks" / "run_all.py")
    assert spec and spec.loader
    run_all = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_all)
    row = {"import": {"median": 9.0, "p95": 9.5}, "import_floor": {"median": 2.25, "p95": 2.3},
           "import_peak_rss_mb": {"median": 230.0, "p95": 240.0}, "busy_before_import": 0.02}
    run_all.print_import_rows(row, 30000)
    quiet = capsys.readouterr().out
    assert "| import + dedup / floor (budget ≤ 4.5x) | 4.00x |" in quiet and "other processes" not in quiet
    run_all.print_import_rows({**row, "busy_before_import": 0.4}, 30000)
    assert "other processes used 40% of the CPU just before an import" in capsys.readouterr().out


def test_search_quality_benchmark_reports_and_analyses():
    """benchmarks/search_quality.py on the test slice: the headline row and the --analyse rows."""
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "search_quality.py"),
                           str(ROOT / "tests" / "data" / "icml_slice.jsonl"), "--sample", "60", "--no-fzf",
                           "--analyse"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("| known-item:") and "papersift" in lines[0] and "fzf not run" in lines[0]
    shares = [int(line.split("|")[2].split("%")[0]) for line in lines if "abstract holds" in line]
    assert len(shares) >= 2 and 98 <= sum(shares) <= 102  # the groups split every query
    assert any("perfect speller" in line for line in lines)
    assert any("5+ other abstracts all hold" in line for line in lines)


def test_phrase_benchmark_runs_on_a_library(tmp_path):
    """benchmarks/phrase_bench.py on a small library: both rows, and it checks that the filter and
    the previous one find the same papers for every phrase (an assertion in the script)."""
    from store import Library
    Library(tmp_path / "lib").paper_changes.import_paths([ROOT / "tests" / "data" / "icml_slice.jsonl", ROOT / "seeds"])
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "phrase_bench.py"), str(tmp_path / "lib"),
                           "--phrases", "5"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| papersift") or line.startswith("| reference")]
    assert len(rows) == 4 and "the previous filter" in rows[1] and "as the app types it" in rows[2]
    assert "no disk cache" in rows[2] and "earlier session" in rows[3]
    assert all(float(row.split("|")[4].strip().rstrip(" s")) >= 0 for row in rows[2:])  # seconds, 0.00 when quick


def test_known_item_ceiling_benchmark_bounds_the_measure():
    """benchmarks/known_item_ceiling.py on both test slices: with the real titles indexed the
    queries find their papers far more often than from the abstracts alone, and leaving out the
    words a paper lacks never ranks it lower (its own score is unchanged, the others' can only fall)."""
    slices = [ROOT / "tests" / "data" / name for name in ("icml_slice.jsonl", "iclr_slice.jsonl")]
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "known_item_ceiling.py"), *map(str, slices),
                           "--seeds", "0"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| ") and "queries a seed" in line]
    assert len(rows) == 2
    for row in rows:
        shipped, titled, oracle = (float(cell.strip().rstrip("%")) for cell in row.strip(" |").split("|")[2:5])
        assert titled > shipped and titled >= 95 and oracle >= shipped, row
    # The re-ranker's table when lightgbm is installed; else the line that says it was not run.
    assert "| icml_slice.jsonl | iclr_slice.jsonl |" in proc.stdout or "not run: pip install lightgbm" in proc.stdout


def test_daily_import_benchmark_compares_with_a_full_rebuild():
    """benchmarks/daily_import.py at its smoke size: both imports timed, and the same library from both."""
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "daily_import.py"), "--smoke"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "| import, whole process: median / p95 |" in proc.stdout
    assert "the same corpus and index from both: yes" in proc.stdout


@pytest.mark.slow
@pytest.mark.xdist_group("e2e")  # (a real terminal: timing-sensitive, beside the e2e tests)
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")
def test_the_tmux_settle_benchmark_types_and_moves_in_a_real_terminal(tmp_path):
    """benchmarks/tmux_settle.py on a small library: papersift in tmux, rows for typing (a key at a
    time, and the last key of a burst) and for moving, the screen's changes told by tmux's
    control-mode client."""
    from store import Library

    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([DATA / "icml_slice.jsonl"])
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "tmux_settle.py"), str(lib.folder)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = {line.split("|")[1].strip(): line.split("|")[2:5] for line in proc.stdout.splitlines()
            if line.startswith(("| typed", "| up/down", "| last key"))}
    assert set(rows) == {"typed character", "typed character, list and reader (the more-like-this panel left out)",
                         "last key of a burst, a key every 0.1 s",
                         "last key of a burst, list and reader (the panel left out)", "up/down in the list"}
    assert rows["typed character"][2].strip() == "40" and rows["up/down in the list"][2].strip() == "12"
    assert rows["last key of a burst, a key every 0.1 s"][2].strip() == "4"
    assert all(float(row[0].split()[0].replace(",", "")) > 0 for row in rows.values())  # (each key changed the screen)


def test_the_tmux_benchmark_tells_the_panel_filling_from_other_changes():
    """tmux_settle.panel_only: the panel's rows changing right of its heading is the panel filling;
    a change in the list beside them, or below them, is not."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("tmux_settle", ROOT / "benchmarks" / "tmux_settle.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rows = [f"list row {i:02d}   | abstract line {i}" for i in range(12)]
    blank = rows[:5] + [f"list row {i:02d}   | " for i in range(5, 11)] + rows[11:]
    filled = rows[:5] + ["list row 05   | More like this (m lists more)"] + [f"list row {i:02d}   |   · title {i}"
                                                                          for i in range(6, 11)] + rows[11:]
    assert bench.panel_only("\n".join(blank), "\n".join(filled))
    moved_list = [r.replace("list row 07", "LIST ROW 07") for r in filled]
    assert not bench.panel_only("\n".join(blank), "\n".join(moved_list))
    below = filled[:11] + ["list row 11   | another abstract line"]
    assert not bench.panel_only("\n".join(blank), "\n".join(below))
    assert not bench.panel_only("\n".join(rows), "\n".join(rows[:3] + ["x"] + rows[4:]))


def test_a_child_s_peak_memory_is_its_own_not_the_benchmark_process_s():
    """The kernel's peak RSS of an exec'd child starts at the high-water mark of the process that
    started it: run_all.py, hundreds of MB after its app benchmarks, made every child report at
    least that. peak_process starts the child from a small process."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_run_all", ROOT / "benchmarks" / "run_all.py")
    assert spec is not None and spec.loader is not None
    run_all = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_all)
    held = bytearray(300 << 20)
    for i in range(0, len(held), 4096):
        held[i] = 1
    _, inherited = run_all.timed_process([sys.executable, "-c", "pass"])
    _, own = run_all.peak_process([sys.executable, "-c", "x = bytearray(60 << 20); x[::4096] = b'1' * len(x[::4096])"])
    assert inherited / 1024 > 290  # (what the kernel reports for a child started from here)
    assert 60 < own / 1024 < 150, own / 1024
    del held


def test_the_architecture_page_s_walks_are_what_hops_measures_now():
    """docs/architecture.md's table of a keystroke's and `r`'s path is hops.py's output, not written
    by hand: a change to either path shows here until `python benchmarks/hops.py --write` is run."""
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "hops.py")], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    import importlib.util

    spec = importlib.util.spec_from_file_location("hops_script", ROOT / "benchmarks" / "hops.py")
    assert spec is not None and spec.loader is not None
    hops = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hops)  # (the script's own reader of the page: the table between its markers)
    assert proc.stdout.strip() == hops.documented()
