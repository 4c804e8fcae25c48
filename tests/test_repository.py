"""The repository itself: no stray run's output is committed, and every script in benchmarks/
parses its arguments (--help answers and creates nothing)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from .conftest import ROOT


def test_no_stray_run_output_is_committed():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    stray = [f for f in files if f.startswith("-") or f.endswith(".cache") or f.endswith("papersift.log")]
    assert stray == []


@pytest.mark.parametrize("script", sorted(p.name for p in (ROOT / "benchmarks").glob("*.py")))
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_every_benchmark_answers_help_and_creates_nothing(script, tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), "--help"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "usage:" in proc.stdout, proc.stderr[-2000:]
    assert list(tmp_path.iterdir()) == []


def test_the_model_helper_answers_help_and_refuses_a_folder_without_a_library(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "store.prepare", "--help"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "usage:" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "store.prepare", str(tmp_path / "none")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "no papersift library there" in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_count_and_its_noun_agree():
    """No message says "1 papers": a number written before a plural noun in an f-string goes through
    store.wording.counted, which picks the singular for one."""
    import re
    nouns = ("papers", "members", "tags", "files", "notes", "records", "entries", "matches", "abstracts", "requests",
             "lines", "annotations", "changes", "batches", "authors", "keywords")
    placeholder = re.compile(r"\{[^{}]*\}\s+(?:" + "|".join(nouns) + r")\b")
    found = []
    for folder in ("store", "tui"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if 'f"' in line or "f'" in line:
                    found += [f"{path.relative_to(ROOT)}:{no}: {m.group()}" for m in placeholder.finditer(line)
                              if "counted(" not in m.group() and "{pid}" not in m.group()]  # ("ID tags: #x")
    assert not found, "use store.wording.counted:\n" + "\n".join(found)
