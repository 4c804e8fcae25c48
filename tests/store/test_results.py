"""What "the results" are, through the real CLI: one result set for list, export and search;
did-you-mean for filters; `remove` with undo; the bundled sample giving way to a first import;
history naming its papers."""

from __future__ import annotations

import pytest
import json


def _ids(run_cli, *args: str) -> list[str]:
    return [p["id"] for p in json.loads(run_cli("list", "--format", "json", "--limit", "1000", *args).stdout)]


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_list_and_export_act_on_the_same_result_set(run_cli):
    query = "language models agents"
    listed = _ids(run_cli, "--query", query)
    exported = json.loads(run_cli("export", "--format", "json", "--query", query).stdout)["papers"]
    assert len(listed) == 2 and [p["id"] for p in exported] == listed
    search = run_cli("search", query, "--format", "plain").stdout.splitlines()
    assert [line.split("\t")[0] for line in search] == listed  # search prints the set (its order)


def test_a_search_no_paper_fully_matches_says_so_and_shows_partial_matches(run_cli):
    proc = run_cli("search", "zyxwvut agents", "--format", "plain")
    assert "no paper holds every word of the query; the best partial matches" in proc.stderr
    assert proc.stdout.strip()
    listed = run_cli("list", "--query", "zyxwvut agents", "--format", "plain")
    assert listed.stdout == "" and "no paper holds every word" in listed.stderr


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_filter_that_matches_nothing_suggests_the_nearest_value(run_cli):
    pid = _ids(run_cli)[0]
    run_cli("tag", pid, "bandits")
    proc = run_cli("list", "--query", "tag:bandit")
    assert "no tag #bandit here; did you mean #bandits?" in proc.stderr
    assert "no venue 'neurps' here; did you mean 'neurips'?" in run_cli("list", "--query", "venue:neurps").stderr


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_remove_then_undo_brings_papers_back_with_their_annotations(run_cli):
    ids = _ids(run_cli)
    run_cli("tag", ids[0], "keep")
    run_cli("star", ids[1], "2")
    dry = run_cli("remove", ids[0], ids[1], "--dry-run")
    assert "would remove 2 papers, 2 of them annotated" in dry.stdout and len(_ids(run_cli)) == 35
    assert "removed 2 papers" in run_cli("remove", ids[0], ids[1]).stdout
    assert len(_ids(run_cli)) == 33 and ids[0] not in _ids(run_cli)
    assert list((run_cli.library / "backups").glob("corpus.jsonl.*.remove.bak"))
    assert "undone: remove 2 papers" in run_cli("undo").stdout
    assert _ids(run_cli) == ids  # back in their places in the import order, not at the end
    back = json.loads(run_cli("show", ids[0], "--format", "json").stdout)
    assert back["tags"] == ["keep"] and json.loads(run_cli("show", ids[1], "--format", "json").stdout)["star"] == 2
    run_cli("remove", "--query", "tag:keep")
    assert ids[0] not in _ids(run_cli) and len(_ids(run_cli)) == 34
    proc = run_cli("remove", check=False)
    assert proc.returncode == 1 and "--query" in proc.stderr


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_the_first_import_replaces_the_untouched_sample(run_cli, tmp_path):
    run_cli("list")  # a first command: the library opens onto the sample
    mine = tmp_path / "mine.jsonl"
    mine.write_text(json.dumps({"title": "Mine", "abstract": "A paper of my own about quokkas, which live on "
                                                             "islands and smile at tourists all day long."}) + "\n")
    out = run_cli("import", str(mine)).stdout
    assert "replaced the 35 bundled sample papers" in out
    assert len(_ids(run_cli)) == 1


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
@pytest.mark.parametrize("where", ["bundled", "copied"])
def test_the_sample_imported_by_hand_is_yours_and_a_later_import_adds_to_it(run_cli, tmp_path, where):
    """`papersift import seeds/` (the bundled folder, or a copy of it) into a new library: the 35
    papers are yours, and the next import adds to them; it had replaced them as if they were the
    sample the app's first start brings, backed up but gone from the library."""
    import shutil

    from ..conftest import SEEDS
    seeds = SEEDS if where == "bundled" else shutil.copytree(SEEDS, tmp_path / "my-dumps")
    run_cli("import", str(seeds), seed=False)
    mine = tmp_path / "mine.jsonl"
    mine.write_text(json.dumps({"title": "Mine", "abstract": "A paper of my own about quokkas, which live on "
                                                             "islands and smile at tourists all day long."}) + "\n")
    out = run_cli("import", str(mine)).stdout
    assert "sample" not in out and "the library now holds 36 papers" in out, out
    assert len(_ids(run_cli)) == 36


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_an_annotated_sample_stays_and_the_import_says_how_to_remove_it(run_cli, tmp_path):
    pid = _ids(run_cli)[0]
    run_cli("status", pid, "read")
    mine = tmp_path / "mine.jsonl"
    mine.write_text(json.dumps({"title": "Mine", "abstract": "A paper of my own about quokkas, which live on "
                                                             "islands and smile at tourists all day long."}) + "\n")
    out = run_cli("import", str(mine)).stdout
    assert "the 35 bundled sample papers stay" in out and "papersift remove --sample" in out
    assert len(_ids(run_cli)) == 36
    run_cli("remove", "--sample")
    assert len(_ids(run_cli)) == 1


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_history_names_the_paper_each_change_was_made_to(run_cli):
    ids = _ids(run_cli)
    run_cli("status", ids[0], "read")
    run_cli("status", *ids[1:4], "skipped")
    lines = run_cli("history").stdout.splitlines()
    assert lines[0].endswith("status skipped on 3 papers")
    assert f"status read · {ids[0]} " in lines[1]
