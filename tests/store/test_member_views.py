"""store.library.member_views: the records as every member's marks, cleared records and assignments."""

from __future__ import annotations

from store.library.member_views import MemberViews, read_views, unreadable_notice, with_changes
from store.records import Annotation, Assignment


def test_records_are_read_into_each_members_marks_and_the_assignments():
    records = [Annotation("p1", member="owner", star=2), Annotation("p1", member="ana", status="read"),
               Annotation("p2", member="ana", stamps={"status": "2026-12-01T00:00:00.000+00:00"}),  # cleared
               Assignment("p3", "ben", {"assignee": "2026-12-01T00:00:00.000+00:00"}),
               Assignment("p4", "\x1b[31mx"), Annotation("p5", member="bad name", star=1)]
    views, unusable = read_views(records)
    assert {name: sorted(anns) for name, anns in views.team.items()} == {"owner": ["p1"], "ana": ["p1"]}
    assert list(views.cleared["ana"]) == ["p2"] and views.assignments == {"p3": "ben"}
    assert set(views.stamps) == {"p3", "p4"} and unusable == ["\x1b[31mx", "bad name"]


def test_changes_make_new_views_and_leave_the_old_ones_as_they_were():
    views, _ = read_views([Annotation("p1", member="ana", star=1)])
    ana_before = views.team["ana"]
    after = with_changes(views, [Annotation("p1", member="ana"), Annotation("p2", member="ana", tags=["rl"]),
                                 Assignment("p2", "ana")])
    assert list(after.team["ana"]) == ["p2"] and after.assignments == {"p2": "ana"}
    assert ana_before == {"p1": Annotation("p1", member="ana", star=1)} and views.assignments == {}
    cleared = with_changes(after, [Annotation("p2", member="ana", stamps={"tags": "2026-12-02T00:00:00.000+00:00"})])
    assert cleared.team["ana"] == {} and list(cleared.cleared["ana"]) == ["p2"] and "p2" not in after.cleared.get("ana", {})
    assert isinstance(cleared, MemberViews)


def test_what_is_said_of_records_that_cannot_be_read():
    from collections import Counter
    from store.record_fields import CHECKED
    found = Counter({name: 0 for name in CHECKED}) + Counter(status=2, fields=2, record=1)
    said = unreadable_notice(found, "annotations.json")
    assert said.startswith("annotations.json: papersift cannot read 2 records with status of the wrong kind")
    assert "1 value that is no annotation record" in said
