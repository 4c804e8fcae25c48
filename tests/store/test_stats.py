"""The dashboard's triage over time (store.library.stats.triage_timeline): a sitting's marks,
seconds apart, are one bar; marks days apart are spread over the buckets, first and last named."""

from __future__ import annotations

import json

from store.records import Annotation


def test_marks_of_one_sitting_are_one_bar(lib):
    ids = [p.id for p in lib.corpus][:5]
    lib.marks.set_status(ids, "read")
    counts, first, last = lib.stats.triage_timeline()
    assert sum(counts) == 5 and counts[0] == 5 and first[:10] == last[:10]


def test_marks_days_apart_are_spread_and_dated(lib):
    ids = [p.id for p in lib.corpus][:3]
    when = ["2026-11-01T09:00:00+00:00", "2026-11-15T12:00:00+00:00", "2026-12-01T18:30:00+00:00"]
    lib.replace_annotations([Annotation(pid, status="read", created=t, updated=t) for pid, t in zip(ids, when)],
                            "test", "marks days apart")
    counts, first, last = lib.stats.triage_timeline(buckets=30)
    assert counts[0] == 1 and counts[-1] == 1 and sum(counts) == 3 and 0 < counts.index(1, 1) < 29
    assert (first, last) == ("2026-11-01 09:00", "2026-12-01 18:30")
    assert lib.stats.triage_timeline() == (counts, first, last)


def test_nothing_triaged_is_said_as_such(lib):
    assert lib.stats.triage_timeline() == ([0] * 30, "", "")


def test_stats_counts_a_keyword_written_two_ways_once(run_cli, tmp_path):
    """`stats` counts papers per keyword with case ignored and a plural beside its singular as one
    keyword ("Diffusion models", "diffusion model"), written as most of its papers write it; a
    paper listing both forms counts once, and "process" is no plural of "proces"."""
    papers = [("We denoise images with a diffusion model in four steps.", ["Diffusion models"]),
              ("Score matching trains generative samplers for audio.", ["Diffusion models", "Policies"]),
              ("A cascaded sampler upsamples video frames quickly.", ["diffusion model", "Diffusion models"]),
              ("Offline agents learn a policy from logged data only.", ["policy", "process"]),
              ("Gaussian processes model smooth functions of time.", ["processes", "policy"])]
    src = tmp_path / "k.jsonl"
    src.write_text("".join(json.dumps({"title": f"P{i}", "abstract": a, "keywords": k}) + "\n"
                           for i, (a, k) in enumerate(papers)))
    run_cli("import", str(src), seed=False)
    stats = json.loads(run_cli("stats", "--format", "json").stdout)
    assert stats["keywords"] == {"Diffusion models": 3, "policy": 3, "process": 2}
    assert stats["distinct_keywords"] == 3
