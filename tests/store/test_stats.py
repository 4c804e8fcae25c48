"""The dashboard's triage over time (store.library.stats.triage_timeline): a sitting's marks,
seconds apart, are one bar; marks days apart are spread over the buckets, first and last named."""

from __future__ import annotations

from store.models import Annotation


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
