"""store.ingest.daily: what the app offers to fetch again is read from the newest feed kept, and
only when its name says it without guessing."""

from __future__ import annotations

import pytest

from store.errors import PapersiftError
from store.ingest.daily import check_folder, last_categories


def test_the_newest_kept_feed_names_the_categories(tmp_path):
    kept = tmp_path / "fetched"
    kept.mkdir()
    assert last_categories(tmp_path) == []
    (kept / "arxiv-cs.LG-20261201T070000Z.xml").write_text("")
    (kept / "arxiv-cs.LG-cs.RO-stat.ML-20261205T070000Z.xml").write_text("")
    (kept / "notes.txt").write_text("")
    assert last_categories(tmp_path) == ["cs.LG", "cs.RO", "stat.ML"]


@pytest.mark.parametrize("name", ["arxiv-hep-th-cs.LG-20261206T070000Z.xml",  # (hep-th: a dash of its own)
                                  "arxiv-cs.LG-c s.RO-20261206T070000Z.xml"])
def test_a_name_that_could_be_read_two_ways_offers_nothing(tmp_path, name):
    (tmp_path / "fetched").mkdir()
    (tmp_path / "fetched" / name).write_text("")
    assert last_categories(tmp_path) == []


def test_a_file_where_the_feeds_go_is_named(tmp_path):
    (tmp_path / "fetched").write_text("not a folder")
    with pytest.raises(PapersiftError, match="is a file"):
        check_folder(tmp_path / "fetched")
    check_folder(tmp_path / "elsewhere")  # (not there yet: fine)
