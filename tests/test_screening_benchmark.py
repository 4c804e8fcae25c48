"""A smoke run of benchmarks/screening.py on the ICLR test slice: every method reports every metric."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import DATA

ROOT = Path(__file__).resolve().parent.parent


def _screening():
    spec = importlib.util.spec_from_file_location("screening", ROOT / "benchmarks" / "screening.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_labels_from_a_field_a_value_or_a_substring():
    s = _screening()
    records = [{"primary_area": "generative models", "keywords": ["Diffusion Models", "GAN"], "flag": 1},
               {"primary_area": "optimization", "keywords": ["SGD"], "flag": 0}]
    assert s.make_labels(records, "primary_area=generative models").tolist() == [True, False]
    assert s.make_labels(records, "keywords~diffusion").tolist() == [True, False]
    assert s.make_labels(records, "keywords=SGD").tolist() == [False, True]
    assert s.make_labels(records, "flag").tolist() == [True, False]


@pytest.mark.slow
@pytest.mark.bench
def test_screening_benchmark_runs_on_the_slice():
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "screening.py"), "--corpus",
                           str(DATA / "iclr_slice.jsonl"), "--label", "primary_area=reinforcement learning",
                           "--seeds", "1", "--methods", "papersift", "random", "tfidf_lr", "--json"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert set(out) == {"papersift", "random", "tfidf_lr"}
    for row in out.values():
        for key in ("recall10", "recall20", "wss95", "read_to_95", "stop_recall", "ms_per_rerank"):
            assert key in row, key
        assert 0 <= row["recall10"] <= row["recall20"] <= 1 and 0 < row["stop_recall"] <= 1
    assert out["papersift"]["wss95"] > out["random"]["wss95"]
