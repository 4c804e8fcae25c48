"""The real `papersift` command in a subprocess, as a script or a person would run it."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from store.search.keywords import keywords_of
from store.escapes import repair_escapes
from store.latex import plain_text
from store.safe_text import export_safe

from ..conftest import ACRONYM_DUMP, DATA, SEEDS


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_import_twice_reports_35_then_nothing_new(run_cli):
    out = run_cli("import", str(SEEDS)).stdout
    assert "35 new" in out and "3 exact duplicates" in out
    out = json.loads(run_cli("import", str(SEEDS), "--format", "json").stdout)
    assert out["new"] == 0 and out["papers"] == 35


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_broken_latex_prints_no_library_warnings(run_cli, tmp_path):
    """An abstract with unbalanced LaTeX (a generated 300k dump had five) made pylatexenc log
    "WARNING: Error in configuration: macro '\\frac' failed its substitution!" to the terminal
    during import, show and export, and its title read "O(%s/%sndk …"; the markup is shown as
    written, and nothing else."""
    dump = tmp_path / "odd.txt"
    dump.write_text("We prove a bound of $O(\\frac{ndk\\log \\log Our owing in \\frac{1}{\\epsilon})\\log(n\\Delta))$ "
                    "for sparse recovery, and show it is tight on random instances.\n")
    proc = run_cli("import", str(dump))
    assert proc.stderr == "" and "1 new" in proc.stdout
    pid = json.loads(run_cli("list", "--format", "json").stdout)[0]["id"]
    for args in (("show", pid), ("export", "--format", "md"), ("export", "--format", "bibtex")):
        proc = run_cli(*args)
        assert proc.stderr == "" and pid in proc.stdout and "%s" not in proc.stdout, args


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_triage_round_trip_and_undo(run_cli):
    papers = json.loads(run_cli("list", "--format", "json").stdout)  # first command seeds the library
    assert len(papers) == 35
    assert run_cli("history").stdout.strip() == "no changes to undo"  # empty says so, in words
    assert run_cli("tags").stdout.startswith("no tags yet") and json.loads(run_cli("tags", "--format", "json").stdout) == {}
    pid = papers[0]["id"]
    run_cli("status", pid[:6], "to-read")
    run_cli("star", pid, "2")
    run_cli("tag", pid, "speech", "Benchmark")
    run_cli("note", pid, "-", input="read with the group\nsecond line\n")
    rec = json.loads(run_cli("show", pid, "--format", "json").stdout)
    assert (rec["status"], rec["star"], rec["tags"], rec["note"]) == ("to-read", 2, ["speech", "benchmark"], "read with the group\nsecond line")
    run_cli("note", pid, r"bound $O(n^2)$ holds, see [the code](https://example.org/c)")
    shown = run_cli("show", pid).stdout  # (typeset as the abstract is; JSON keeps the note as typed)
    assert "bound O(n²) holds, see the code [1]" in shown and "links [1] https://example.org/c" in shown, shown
    assert json.loads(run_cli("show", pid, "--format", "json").stdout)["note"].startswith(r"bound $O(n^2)$ holds")
    run_cli("undo")
    for key in ("id", "title", "derived_title", "abstract", "authors", "sources"):
        assert key in rec
    assert json.loads(run_cli("list", "--tag", "speech", "--format", "json").stdout)[0]["id"] == pid
    assert len(json.loads(run_cli("list", "--status", "to-read", "--format", "json").stdout)) == 1
    first_dump = sorted(SEEDS.glob("*.txt"))[0].name
    assert len(json.loads(run_cli("list", "--query", f"file:{first_dump[:3]}", "--format", "json").stdout)) == 19
    said = run_cli("tag", pid, "speech", "nosuchtag", "--remove").stdout  # (a tag it never had: said, not silent)
    assert said.strip() == f"{pid} tags: #benchmark (it had no #nosuchtag)", said
    assert "undone: tag -nosuchtag, -speech" in run_cli("undo").stdout  # (the change as asked)
    said = run_cli("undo").stdout  # (the paper named, as history names it)
    assert said.startswith(f"undone: note · {pid} {rec['title'][:20]}"), said
    rec = json.loads(run_cli("show", pid, "--format", "json").stdout)
    assert rec["note"] == "" and rec["tags"] == ["speech", "benchmark"]
    assert "redone: note" in run_cli("redo").stdout  # one undo too many
    assert json.loads(run_cli("redo", "--format", "json").stdout) == {"redone": "tag -nosuchtag, -speech", "papers": [pid]}
    assert run_cli("redo").stdout.strip() == "nothing to redo"
    run_cli("undo"), run_cli("undo")
    stats = json.loads(run_cli("stats", "--format", "json").stdout)
    assert stats["status"]["to-read"] == 1 and stats["triaged"] == 1
    assert stats["venues"] == {"NeurIPS 2026": 35}  # the seed dumps' header line
    assert "venues: NeurIPS 2026 (35)" in run_cli("stats").stdout and "keywords" not in run_cli("stats").stdout
    assert stats["keywords"] == {} and stats["distinct_keywords"] == 0


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_tags_with_brackets_print_as_typed(run_cli):
    """Rich reads "[draft]" as markup: the CLI's acknowledgements, lists and history print it as typed."""
    pid = json.loads(run_cli("list", "--format", "json").stdout)[0]["id"]
    assert f"{pid} tags: #[draft]" in run_cli("tag", pid, "[draft]").stdout
    assert "#[draft]" in run_cli("list", "--tag", "[draft]").stdout
    assert "tag +[draft]" in run_cli("history").stdout
    assert "merged #[draft] into #[final] on 1 paper" in run_cli("tags", "merge", "[draft]", "--into", "[final]").stdout
    assert "undone: merge tags [draft] -> [final]" in run_cli("undo").stdout
    assert "renamed #[draft] to #[final] on 1 paper" in run_cli("tags", "rename", "[draft]", "[final]").stdout
    other = json.loads(run_cli("list", "--format", "json").stdout)[1]["id"]
    run_cli("tag", other, "llm-agents")
    run_cli("tag", pid, "agents")
    said = run_cli("tags", "rename", "agents", "llm agents").stdout  # into a tag papers hold already: a merge, said
    assert "merged #agents into the existing #llm-agents (which 1 paper had already) on 1 paper" in said, said
    dry = run_cli("remove", "--query", "robot", "--dry-run").stdout
    robots = json.loads(run_cli("search", "robot", "--limit", "50", "--format", "json").stdout)
    assert "(those a search for 'robot' finds)" in dry and all(r["id"] in dry for r in robots if r.get("all_words"))
    assert len(json.loads(run_cli("list", "--format", "json").stdout)) == 35  # (a dry run removes nothing)
    assert "1 triaged (3%)" in run_cli("status", pid, "read").stdout + run_cli("stats").stdout  # (1 of 35)
    assert "✓ read          1  ▉" in run_cli("stats").stdout  # (1 of 35 in 30 cells: 6.9 eighths of one)
    proc = run_cli("search", "status:[x]", check=False)  # a filter not applied as written: refused, as typed
    assert proc.returncode == 1 and "unknown status '[x]'" in proc.stderr


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_search_lists_the_papers_holding_either_word_joined_by_or(run_cli):
    """`papersift search "graph OR speech"`: the papers holding either (not the quick path's
    every-word set); an OR with no word after it is refused, naming it."""
    def ids(query: str) -> set[str]:
        rows = json.loads(run_cli("search", query, "--format", "json").stdout)
        return {r["id"] for r in rows if r.get("all_words")}

    graph, speech = ids("graph"), ids("speech")
    assert graph and speech and not graph & speech
    assert ids("graph OR speech") == graph | speech
    assert {r["id"] for r in json.loads(run_cli("list", "--query", "graph OR speech", "--format", "json").stdout)} \
        == graph | speech
    assert ids('"graph neural" OR speech') == ids('"graph neural"') | speech  # (a phrase is an alternative)
    for refused in ("graph OR", "tag:x OR speech", "graph OR the"):
        proc = run_cli("search", refused, check=False)
        assert proc.returncode == 1 and "OR " in proc.stderr and not proc.stdout, refused
    proc = run_cli("export", "--query", "graph OR", check=False)  # (said as search says it: the query named)
    assert proc.returncode == 1 and "the query 'graph OR': OR needs a word" in proc.stderr and not proc.stdout


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_cleared_note_is_said_cleared_and_a_format_takes_its_common_names(run_cli, tmp_path):
    """`note ID ''` said "note saved" for a note it cleared; `export --format markdown` (the
    dialog's name for md) and `bib` were refused."""
    pid = json.loads(run_cli("list", "--format", "json").stdout)[0]["id"]
    assert run_cli("note", pid, "read the proof").stdout.strip() == f"{pid} note saved"
    assert run_cli("note", pid, "").stdout.strip() == f"{pid} note cleared"
    run_cli("note", pid, "unbalanced } brace and \\ backslash, {braces}, $\\alpha$")  # (shown as typed, its math set)
    assert "unbalanced } brace and \\ backslash, {braces}, α" in run_cli("show", pid).stdout
    for name, starts in (("markdown", "# "), ("Markdown", "# "), ("bib", "@"), ("MD", "# "), ("BibTeX", "@")):
        run_cli("export", "--format", name, "-o", str(tmp_path / f"out-{name}"))
        assert (tmp_path / f"out-{name}").read_text().startswith(starts), name


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_tag_option_takes_the_tag_as_the_tag_command_writes_it(run_cli, tmp_path):
    """`export --tag "Deep Learning"` refused the tag `tag ID "Deep Learning"` had stored as
    #deep-learning, and `export --tag ""` exported every paper: --tag (export, list, recommend)
    reads a tag as `tag` stores it and refuses one that is no tag."""
    pid = json.loads(run_cli("list", "--format", "json").stdout)[0]["id"]
    run_cli("tag", pid, "Deep Learning")
    listed = json.loads(run_cli("list", "--tag", "#Deep learning", "--format", "json").stdout)
    assert [r["id"] for r in listed] == [pid]
    exported = json.loads(run_cli("export", "--tag", "DEEP LEARNING", "--format", "json").stdout)["papers"]
    assert [r["id"] for r in exported] == [pid]
    assert run_cli("recommend", "--tag", "Deep Learning", "--format", "json").returncode == 0
    for args in (("export", "--tag", ""), ("list", "--tag", " "), ("recommend", "--tag", ";")):
        proc = run_cli(*args, check=False)
        assert proc.returncode == 2 and "argument --tag: no tag given" in proc.stderr and not proc.stdout, args


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_every_query_option_refuses_a_filter_not_applied_as_written(run_cli, tmp_path):
    """`export --query "status: read"` exported the 11 papers holding the word "read" (exit 0),
    and `remove --query` and `assign --query` took such a query too, where `list` refuses it:
    each refuses it as `list` does, naming the query, and writes and changes nothing."""
    before = run_cli("list", "--format", "json").stdout
    for args in (("export", "--query", "status: read", "-o", str(tmp_path / "out.md")),
                 ("remove", "--query", "tag: rl"), ("assign", "--to", "ana,ben", "--query", "status:reed"),
                 ("list", "--query", "status: read")):
        proc = run_cli(*args, check=False)
        assert proc.returncode == 1 and f"the query {args[args.index('--query') + 1]!r}: " in proc.stderr, (args, proc.stderr)
        assert not proc.stdout, args
    assert not (tmp_path / "out.md").exists() and run_cli("list", "--format", "json").stdout == before
    assert "status: has no value (e.g. status:to-read)" in run_cli("export", "--query", "status: read", check=False).stderr


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_quoted_phrase_finds_its_words_hyphenated_or_apart(run_cli):
    """`papersift search '"long horizon"'` lists the papers writing "long-horizon", and the
    hyphenated phrase the same papers (it had found none written apart)."""
    def ids(query: str) -> list[str]:
        return sorted(r["id"] for r in json.loads(run_cli("search", query, "--format", "json").stdout))

    assert ids('"long horizon"') == ids('"long-horizon"') == ids('"LONG\u2013HORIZON"') != []
    assert not set(ids('"long horizon"')) & set(ids('-"long horizon"'))


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_status_and_star_take_the_value_first_or_last(run_cli):
    """`status read ID...` and `star 3 ID` work as well as the documented `status ID... read`;
    a status with no id gets a usage error that says what is missing, and nothing changes."""
    papers = json.loads(run_cli("list", "--format", "json").stdout)
    a, b = papers[0]["id"], papers[1]["id"]
    assert "2 papers marked read" in run_cli("status", "read", a, b[:6]).stdout
    assert f"{b} marked skipped" in run_cli("status", "--format", "text", b, "skipped").stdout  # (one paper: named)
    assert f"{a} marked read" in run_cli("status", "read", a, a[:6]).stdout  # (one paper given twice: counted once)
    assert "2 papers starred" in run_cli("star", a, b[:6], "2").stdout  # several papers at once, as status takes
    run_cli("star", "3", a)
    run_cli("star", b, "1")
    got = {p["id"]: (p["status"], p["star"]) for p in json.loads(run_cli("list", "--format", "json").stdout)}
    assert got[a] == ("read", 3) and got[b] == ("skipped", 1)
    for args in (("status", "to-read"), ("star", "2")):
        proc = run_cli(*args, check=False)
        assert proc.returncode == 2 and "which paper? give its id" in proc.stderr, proc.stderr
    proc = run_cli("status", "read", "maybe", check=False)
    assert proc.returncode == 1 and "no paper with id 'maybe'" in proc.stderr
    proc = run_cli("status", a, "maybe", check=False)  # no status word at either end
    assert proc.returncode == 2 and "invalid choice: 'maybe'" in proc.stderr
    assert {p["id"]: (p["status"], p["star"]) for p in json.loads(run_cli("list", "--format", "json").stdout)} == got


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_retitle_brings_derived_titles_up_to_date(run_cli, tmp_path):
    """A library keeps the titles it was imported with; `papersift retitle` derives them again with
    this version's rules (as after an upgrade), leaves read titles alone, and search follows."""
    from store import Library

    (tmp_path / "t.jsonl").write_text(json.dumps({"title": "A Real Title Kept As Read",
                                                  "abstract": "We study zebrafish schooling with graph networks."}) + "\n")
    run_cli("import", str(SEEDS), str(tmp_path / "t.jsonl"))  # 35 papers with derived titles, one read
    lib = Library(run_cli.library)
    derived = next(p for p in lib.corpus if p.derived_title)
    real = next(p for p in lib.corpus if not p.derived_title)
    expected = derived.title
    derived.title = "Zorbulon: what an older papersift derived"  # as an older version left it
    lib.corpus.title_rules = 0  # (whose corpus header had no title rules)
    lib.corpus.save(lib.corpus_path)
    assert Library(run_cli.library).paper_changes.titles_outdated
    assert "Zorbulon" in run_cli("search", "zorbulon").stdout
    preview = run_cli("retitle", "--dry-run")  # what would change, and nothing written
    assert preview.stdout.startswith("1 title would be derived anew, of 35 papers"), preview.stdout
    assert f"{derived.id}  Zorbulon: what an older papersift derived" in preview.stdout
    assert f"→ {expected}" in preview.stdout and "nothing was changed (--dry-run)" in preview.stdout
    assert Library(run_cli.library).paper_changes.titles_outdated and "Zorbulon" in run_cli("search", "zorbulon").stdout
    proc = run_cli("retitle")
    assert proc.stdout.startswith("1 title derived anew, of 35 papers without a title of its own"), proc.stdout
    assert f"→ {expected}" in proc.stdout
    backup = Path(proc.stdout.strip().splitlines()[-1].removeprefix("the titles before are kept in "))
    assert backup.parent == run_cli.library / "backups" and b"Zorbulon" in backup.read_bytes()
    rec = json.loads(run_cli("show", derived.id, "--format", "json").stdout)
    assert rec["title"] == expected and rec["derived_title"]
    assert json.loads(run_cli("show", real.id, "--format", "json").stdout)["title"] == "A Real Title Kept As Read"
    assert "Zorbulon" not in run_cli("search", "zorbulon").stdout  # the index follows the new titles
    assert "retitle 1 paper" in run_cli("history").stdout  # one undo step, as every change is
    assert "retitle 1 paper" in run_cli("undo").stdout
    assert json.loads(run_cli("show", derived.id, "--format", "json").stdout)["title"].startswith("Zorbulon")
    assert Library(run_cli.library).paper_changes.titles_outdated and "Zorbulon" in run_cli("search", "zorbulon").stdout
    assert "retitle 1 paper" in run_cli("redo").stdout
    assert json.loads(run_cli("show", derived.id, "--format", "json").stdout)["title"] == expected
    assert "Zorbulon" not in run_cli("search", "zorbulon").stdout
    assert json.loads(run_cli("retitle", "--format", "json").stdout) == {
        "changed": 0, "derived": 35, "papers": 36, "dry_run": False, "current": True, "backup": None, "changes": []}
    assert any(p.name.startswith("corpus") and "retitle" in p.name for p in (run_cli.library / "backups").iterdir())
    assert not Library(run_cli.library).paper_changes.titles_outdated  # the header says so now


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_retitle_leaves_current_titles_as_they_are_unless_asked_again(run_cli):
    """A title derived by this version's rules weighs its names against the library, so a grown
    library can name a paper otherwise, often worse ("A rigorous approach" for "DDS: Denoised
    Diffusion Smoothing"). Such titles stay unless --again asks, which shows and undoes as ever."""
    from store import Library

    run_cli("list")
    lib = Library(run_cli.library)
    paper = next(p for p in lib.corpus if p.derived_title)
    derived = paper.title
    paper.title = "Zorbulon: as this version named it in a smaller library"
    lib.corpus.save(lib.corpus_path)
    assert not Library(run_cli.library).paper_changes.titles_outdated
    for extra in ([], ["--dry-run"]):
        out = run_cli("retitle", *extra).stdout
        assert out.startswith("the 35 derived titles are this version's already, and stay as they are while "
                              "the library grows; --again derives them anew"), out
    assert Library(run_cli.library).paper(paper.id).title.startswith("Zorbulon")
    assert "→ " + derived in run_cli("retitle", "--again", "--dry-run").stdout
    assert Library(run_cli.library).paper(paper.id).title.startswith("Zorbulon")
    assert run_cli("retitle", "--again").stdout.startswith("1 title derived anew, of 35 papers")
    assert Library(run_cli.library).paper(paper.id).title == derived
    assert "retitle 1 paper" in run_cli("undo").stdout


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_retitle_says_plainly_when_no_paper_needs_a_derived_title(run_cli, tmp_path):
    (tmp_path / "t.jsonl").write_text(json.dumps({"title": "A Real Title", "abstract": "We study zebrafish schooling "
                                                  "with graph networks over many seasons."}) + "\n")
    run_cli("import", str(tmp_path / "t.jsonl"))
    for extra in ([], ["--dry-run"]):
        out = run_cli("retitle", *extra).stdout
        assert out.strip() == "every paper came with a title of its own: no title to derive", out


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_retitle_marks_titles_current_even_when_none_change(run_cli):
    """A library from before the title rules were numbered whose titles happen to be current:
    retitle changes none, but the header then says they are current (the app stops saying so)."""
    from store import Library
    from store.versions import TITLE_RULES

    run_cli("list")
    lib = Library(run_cli.library)
    first = lib.corpus_path.read_bytes().split(b"\n", 1)
    header = json.loads(first[0])
    assert header["title_rules"] == TITLE_RULES  # a new library's titles are this version's
    del header["title_rules"]
    lib.corpus_path.write_bytes(json.dumps(header).encode() + b"\n" + first[1])
    assert Library(run_cli.library).paper_changes.titles_outdated
    assert "`papersift retitle` derives them with this version's" in run_cli("doctor").stdout
    assert json.loads(run_cli("retitle", "--format", "json").stdout)["changed"] == 0
    assert not Library(run_cli.library).paper_changes.titles_outdated
    assert "papersift retitle" not in run_cli("doctor").stdout
    assert "Zorbulon" not in run_cli("list").stdout and "35" in run_cli("stats").stdout  # still reads


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_search_ranks_and_tolerates_typos(run_cli):
    res = json.loads(run_cli("search", "identiy", "voice", "--format", "json", "--limit", "3").stdout)
    assert res[0]["title"].startswith("VIPBench")
    plain = run_cli("search", "everanimate", "--format", "plain").stdout.splitlines()
    assert "EverAnimate" in plain[0]


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_library_option_anywhere_and_no_command_means_open(run_cli, tmp_path):
    other = tmp_path / "other-lib"
    # `papersift --library DIR` (no command) opens the app on DIR: here it stops at the
    # missing keymap, before needing a terminal, which shows it took the `open` path.
    for args in (["--library", str(other), "--keymap", "/nonexistent/k.toml"],
                 ["--keymap", "/nonexistent/k.toml", "--library", str(other)],
                 ["--library", str(other), "open", "--keymap", "/nonexistent/k.toml"]):
        proc = run_cli(*args, check=False)
        assert proc.returncode == 1 and "no such keymap file" in proc.stderr, (args, proc.stderr)
    assert (other / "corpus.jsonl").exists()  # opened (and seeded) the library named, not the default
    assert not run_cli.library.exists()
    res = json.loads(run_cli("search", "everanimate", "--format", "json", "--library", str(other)).stdout)
    assert "EverAnimate" in res[0]["title"]
    proc = run_cli("search", "x", "--library", check=False)
    assert proc.returncode == 2 and "argument --library: expected one argument" in proc.stderr


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_library_folder_given_alone_is_opened_not_imported(run_cli, tmp_path):
    """`papersift ~/papers/neurips` opens that library (as `--library` would), rather than refusing
    it as a dump; with other files, or beside --library, it is still named as not a dump."""
    other = tmp_path / "other-lib"
    run_cli("list", library=other)  # a library with the seeds
    before = (other / "corpus.jsonl").read_bytes()
    # It stops at the missing keymap, before needing a terminal: past opening the library.
    proc = run_cli(str(other), "--keymap", "/nonexistent/k.toml", check=False)
    assert proc.returncode == 1 and "no such keymap file" in proc.stderr, proc.stderr
    assert not run_cli.library.exists()  # the default library was neither created nor seeded
    assert (other / "corpus.jsonl").read_bytes() == before
    for args in ([str(other), str(SEEDS)], ["--library", str(tmp_path / "third"), str(other)]):
        proc = run_cli(*args, check=False)
        assert proc.returncode == 1 and "is a papersift library folder" in proc.stderr, (args, proc.stderr)
        assert "papersift --library FOLDER" in proc.stderr
    assert (other / "corpus.jsonl").read_bytes() == before


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_bad_input_names_file_and_line_and_changes_nothing(run_cli, tmp_path):
    run_cli("import", str(SEEDS))
    before = (run_cli.library / "corpus.jsonl").read_bytes()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"abstract": "fine abstract about things"}\n{"abstract": 3}\n')
    proc = run_cli("import", str(DATA / "icml_slice.jsonl"), str(bad), check=False)
    assert proc.returncode == 1
    assert "bad.jsonl, line 2" in proc.stderr and "abstract" in proc.stderr
    assert (run_cli.library / "corpus.jsonl").read_bytes() == before
    proc = run_cli("show", "zzzz", check=False)
    assert proc.returncode == 1 and "no paper" in proc.stderr
    fresh = tmp_path / "fresh"  # (a first import that fails leaves no empty library folder behind)
    proc = run_cli("import", str(bad), library=fresh, check=False)
    assert proc.returncode == 1 and "bad.jsonl, line 2" in proc.stderr and not fresh.exists()
    (fresh / "mine.txt").parent.mkdir()
    (fresh / "mine.txt").write_text("kept")  # (a folder the user made: left as it was)
    proc = run_cli("import", str(bad), library=fresh, check=False)
    assert proc.returncode == 1 and [p.name for p in fresh.iterdir()] == ["mine.txt"]


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_control_characters_never_printed_raw(run_cli, tmp_path):
    evil = tmp_path / "evil.txt"
    evil.write_text("We attack terminals \x1b[31mred\x1b[0m and \x1b]52;c;ZXZpbA==\x07 clipboards\x08\x0c\u200b here today.")
    run_cli("import", str(evil))
    for fmt in ("table", "plain", "json"):
        out = run_cli("list", "--format", fmt).stdout
        assert "\x1b" not in out and "\x07" not in out and "\x08" not in out and "\u200b" not in out
    rec = json.loads(run_cli("list", "--format", "json").stdout)[0]
    assert "\x1b[31m" in rec["abstract"]  # stored faithfully, escaped in JSON


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_dedup_report_and_help(run_cli):
    assert "no near-duplicate merges" in run_cli("dedup", "--report").stdout
    for cmd in ("import", "list", "search", "show", "status", "star", "tag", "note", "undo", "stats", "dedup"):
        assert "usage: papersift " + cmd in run_cli(cmd, "--help").stdout


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_serve_refuses_a_busy_port_clearly(run_cli):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        proc = run_cli("serve", "--port", str(port), check=False)
    assert proc.returncode == 1 and f"cannot listen on 127.0.0.1:{port}" in proc.stderr and "--port" in proc.stderr
    proc = run_cli("serve", "--keymap", "/nonexistent/keys.toml", check=False)
    assert proc.returncode == 1 and "no such keymap file" in proc.stderr


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_output_into_a_closed_pipe_is_not_an_error(run_cli):
    """`papersift list | head -1`: the reader goes away; exit 0, no traceback, for every format."""
    run_cli("list", "--format", "plain")  # seed the library first
    for fmt in ("table", "plain", "json"):
        env = {**os.environ, "PAPERSIFT_LIBRARY": str(run_cli.library), "COLUMNS": "160"}
        proc = subprocess.Popen(run_cli.cmd + ["list", "--format", fmt], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env)
        proc.stdout.close()  # before it writes: its first write meets a closed pipe
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == 0 and err == "", (fmt, err)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_bad_arguments_and_library_paths_get_clear_errors(run_cli, tmp_path):
    proc = run_cli("list", "--limit", "-1", check=False)
    assert proc.returncode == 2 and "expected a whole number, 0 or more" in proc.stderr
    not_a_folder = tmp_path / "file.txt"
    not_a_folder.write_text("x")
    proc = run_cli("list", check=False, library=not_a_folder)
    assert proc.returncode == 1 and "a file, not a folder" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_cli("topics", "--k", "1", check=False)
    assert proc.returncode == 1 and "number of topics must be between 2" in proc.stderr


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_importing_a_folder_skips_a_library_inside_it(run_cli, tmp_path):
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    seed = sorted(SEEDS.glob("*.txt"))[0]
    (dumps / seed.name).write_text(seed.read_text())
    run_cli("list", library=dumps / "lib")  # a library (corpus.jsonl, annotations.json) inside the folder
    alone = json.loads(run_cli("import", str(seed), "--format", "json", library=tmp_path / "only-seed").stdout)
    out = json.loads(run_cli("import", str(dumps), "--format", "json").stdout)
    assert out["files"] == 1 and out["papers"] == alone["papers"] > 0
    proc = run_cli("import", str(dumps / "lib"), check=False)
    assert proc.returncode == 1 and "is a papersift library folder" in proc.stderr


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_counts_in_sentences_agree_in_number(run_cli, tmp_path):
    one = tmp_path / "one.txt"
    one.write_text("Header\n\nA single abstract about diffusion models for robot policy learning in the wild.\n")
    out = run_cli("import", str(one)).stdout
    assert out.startswith("read 1 abstract from 1 file: 1 new, 0 exact duplicates,") and "holds 1 paper" in out
    assert "1 shown · 1 paper in the library" in run_cli("list").stdout


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_search_says_how_many_it_found(run_cli):
    """Under the table, the size of the result set, as the app's list title says it, through the
    one-shot path (words alone) and the library's (a filter), with --limit and without."""
    every = [p for p in json.loads(run_cli("search", "learning", "--format", "json", "--limit", "100").stdout)
             if p["all_words"]]  # (the weaker matches follow the result set, marked all_words false)
    assert len(every) > 3
    for query in (["learning"], ["learning", "status:unread"]):
        out = run_cli("search", *query, "--limit", "2").stdout
        assert f"2 shown of {len(every)} found · 35 papers in the library" in out, out
        out = run_cli("search", *query, "--limit", "100").stdout
        assert f"{len(every)} found · 35 papers in the library" in out, out
    out = run_cli("search", "learning", "zzqqxx").stdout
    assert "none found; " in out and "partial matches shown · 35 papers in the library" in out


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_negated_filters_pass_through_argparse(run_cli):
    """`-tag:maybe` starts with a dash, like an option: it still reaches the query."""
    first = json.loads(run_cli("search", "benchmark", "--format", "json").stdout)[0]["id"]
    run_cli("tag", first, "maybe")
    ids = [p["id"] for p in json.loads(run_cli("search", "benchmark", "-tag:maybe", "--format", "json").stdout)]
    assert ids and first not in ids
    listed = json.loads(run_cli("list", "--query", "-tag:maybe", "--format", "json").stdout)
    assert len(listed) == 34 and first not in {p["id"] for p in listed}
    exported = run_cli("export", "--format", "jsonl", "--query", "-tag:maybe").stdout
    assert first not in exported and exported.count("\n") >= 34
    proc = run_cli("search", "robots", "-x", check=False)
    assert proc.returncode == 2 and "unrecognized arguments: -x" in proc.stderr
    # a query of negations alone (search.md's -status:unread, -transformer): argparse said "the
    # following arguments are required: query"
    alone = json.loads(run_cli("search", "-tag:maybe", "--format", "json", "--limit", "100").stdout)
    assert len(alone) == 34 and first not in {p["id"] for p in alone}
    proc = run_cli("search", check=False)
    assert proc.returncode == 2 and "what to search for?" in proc.stderr


def test_a_bad_keymap_stops_before_importing(run_cli, tmp_path):
    one = tmp_path / "one.txt"
    one.write_text("Header\n\nA single abstract about diffusion models for robot policy learning in the wild.\n")
    proc = run_cli(str(one), "--keymap", "/nonexistent/k.toml", check=False)
    assert proc.returncode == 1 and "no such keymap file" in proc.stderr
    assert not (run_cli.library / "corpus.jsonl").exists()  # nothing imported


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_show_and_tables_render_latex_json_keeps_the_source(run_cli, tmp_path):
    src = tmp_path / "t.jsonl"
    src.write_text(json.dumps({"title": r"Breaking the $\mathcal{O}(\sqrt{T})$ Barrier",
                               "abstract": r"We beat the $\mathcal{O}(\sqrt{T})$ regret of first-order methods, "
                                           r"a \emph{strict} improvement for online linear programs."}) + "\n")
    run_cli("import", str(src))
    pid = json.loads(run_cli("list", "--format", "json").stdout)[0]["id"]
    shown = run_cli("show", pid).stdout
    assert "Breaking the 𝒪(√T) Barrier" in shown and "beat the 𝒪(√T) regret" in shown and "\\" not in shown
    assert "Breaking the 𝒪(√T) Barrier" in run_cli("list").stdout
    rec = json.loads(run_cli("show", pid, "--format", "json").stdout)
    assert rec["title"].startswith(r"Breaking the $\mathcal{O}") and r"\emph{strict}" in rec["abstract"]


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_list_table_keeps_status_and_stars_when_narrow(run_cli):
    """Piped output is 80 columns wide: the title is cut to fit, never the status or star columns."""
    listed = run_cli("list", "--format", "plain").stdout.splitlines()
    first = listed[0].split("\t")[0]
    run_cli("star", first, "2")
    run_cli("tag", first, "a-rather-long-tag-name", "another-long-one", "third-tag")
    for columns in ("60", "80", "100"):
        env = {**os.environ, "PAPERSIFT_LIBRARY": str(run_cli.library), "COLUMNS": columns, "NO_COLOR": "1"}
        out = subprocess.run(run_cli.cmd + ["list", "--limit", "5"], capture_output=True, text=True, env=env,
                             timeout=120).stdout.splitlines()
        row = next(line for line in out if line.startswith(first))
        assert "·  ★★☆" in row and "#a-rather" in row, (columns, row)
        assert max(len(line) for line in out) <= int(columns), columns


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_table_has_a_tags_column_only_over_tags_and_its_heading_whole(run_cli):
    """Rows none of which had a tag ended in an empty "tags" column; one short tag cut its heading to "ta…"."""
    env = {**os.environ, "PAPERSIFT_LIBRARY": str(run_cli.library), "COLUMNS": "100", "NO_COLOR": "1"}

    def table(*args: str) -> list[str]:
        return subprocess.run(run_cli.cmd + list(args), capture_output=True, text=True, env=env,
                              timeout=120).stdout.splitlines()
    first = run_cli("list", "--format", "plain").stdout.split("\t")[0]
    untagged = table("list", "--limit", "5")
    assert "title" in untagged[0] and "tags" not in untagged[0] and "ta…" not in untagged[0], untagged[0]
    run_cli("tag", first, "rl")
    tagged = table("list", "--query", "tag:rl")
    assert tagged[0].split()[-1] == "tags" and tagged[1].rstrip().endswith("#rl"), tagged


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_search_by_author(run_cli):
    data = DATA / "icml_slice.jsonl"
    run_cli("import", str(data))
    out = run_cli("search", "author:schmidhuber", "--format", "plain").stdout.splitlines()
    titles = [line.split("\t")[3] for line in out]
    expected = [json.loads(l)["title"] for l in data.read_text().splitlines() if "Jürgen Schmidhuber" in l]
    assert titles and sorted(titles) == sorted(expected)
    assert run_cli("search", "author:SCHMIDHÜBER", "--format", "plain").stdout.splitlines() == out


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_search_finds_papers_by_pasted_ids(run_cli):
    ids = [line.split("\t")[0] for line in run_cli("list", "--format", "plain").stdout.splitlines()[5:7]]
    out = run_cli("search", *ids, "--format", "plain").stdout.splitlines()
    assert sorted(line.split("\t")[0] for line in out) == sorted(ids)


@pytest.mark.slow
def test_every_export_imports_back_the_same_papers_and_reference_lists(run_cli, tmp_path):
    """What each export writes (and Zotero, EndNote... write RIS, CSL-JSON, BibTeX alike) imports into
    another library: same ids, titles (derived ones still marked derived), authors, links, venue,
    year, keywords, area and abstract (BibTeX, CSL-JSON and RIS have one keywords field: tags, then
    keywords, then area). BibTeX/RIS entries without an abstract are named in the summary; a truncated RIS
    file is refused with its line, the library untouched."""
    jsonl = tmp_path / "papers.jsonl"
    jsonl.write_text("".join(line + "\n" for line in (DATA / "icml_slice.jsonl").read_text().splitlines()[:12]
                             + (DATA / "iclr_slice.jsonl").read_text().splitlines()[:3]))  # ICLR: keywords
    run_cli("import", str(jsonl), str(SEEDS))  # real titles, authors and links; derived titles
    mine = json.loads(run_cli("list", "--format", "json", "--limit", "100").stdout)
    assert len(mine) == 50 and sum(p["derived_title"] for p in mine) == 35 and sum(bool(p["keywords"]) for p in mine) == 3
    tagged = next(p for p in mine if p["keywords"])
    run_cli("tag", tagged["id"], "to-discuss", "repetition")  # the second is also a keyword ("Repetition")
    mine = json.loads(run_cli("list", "--format", "json", "--limit", "100").stdout)
    shown = run_cli("show", tagged["id"]).stdout
    assert "keywords In-context learning · Large language models · Repetition\n" in shown
    assert "area general machine learning (i.e., none of the above)\n" in shown
    assert [p["id"] for p in json.loads(run_cli("list", "--format", "json", "--query", "kw:repetit").stdout)] == [tagged["id"]]
    labels = [k for p in mine for k in p["keywords"]]
    stats = json.loads(run_cli("stats", "--format", "json").stdout)
    # "Large language models" and "Large Language Model" (two papers) are one keyword: case and plural aside
    assert stats["distinct_keywords"] == len({k.casefold() for k in labels}) - 1 and sum(stats["keywords"].values()) <= len(labels)
    assert [n for k, n in stats["keywords"].items() if k.casefold().startswith("large language model")] == [2]
    assert sum(stats["areas"].values()) == 3 and f"keywords ({stats['distinct_keywords']}): " in run_cli("stats").stdout
    fields = ("id", "title", "derived_title", "authors", "url", "venue", "year", "keywords", "area", "abstract")
    for fmt, name in (("json", "o.json"), ("jsonl", "o.jsonl"), ("csv", "o.csv"), ("bibtex", "o.bib"),
                      ("csl-json", "c.json"), ("ris", "o.ris")):
        exported = tmp_path / name
        run_cli("export", "--format", fmt, "--output", str(exported))
        theirs = tmp_path / f"theirs-{fmt}"
        assert run_cli("import", str(exported), library=theirs).stdout.startswith("read 50 abstracts from 1 file: 50 new")
        copy = json.loads(run_cli("list", "--format", "json", "--limit", "100", library=theirs).stdout)
        for a, b in zip(mine, copy):
            if fmt == "bibtex":  # "95.8\\%" in an abstract (escaped by its authors) comes back "95.8%": it printed so
                a = {**a, "abstract": re.sub(r"\\([%&#_$])", r"\1", a["abstract"])}
            if fmt in ("csl-json", "ris"):  # the abstract as the reader shows it (Unicode), as Zotero shows it
                shown = " ".join(plain_text(repair_escapes(a["abstract"])).split())
                # (a paper's id is its abstract's: one that held LaTeX comes back as another paper's id)
                a = {**a, "abstract": shown, "id": a["id"] if shown == " ".join(a["abstract"].split()) else b["id"]}
            if fmt in ("csv", "bibtex", "ris"):  # files a person may cat: no control characters (export_safe)
                a = {**a, "abstract": export_safe(a["abstract"])}
            if fmt in ("bibtex", "csl-json", "ris"):  # one keywords field: tags, keywords, area
                a = {**a, "keywords": keywords_of(a["tags"], a["keywords"], [a["area"]]), "area": ""}
            differ = [k for k in fields if a[k] != b[k]]
            if fmt == "csv" and differ == ["title"]:  # the CSV's title column is plain text, math as Unicode
                differ = [] if "$" in a["title"] else differ
            assert not differ, (fmt, a["id"], {k: (a[k], b[k]) for k in differ})
    ris = exported

    refs = tmp_path / "refs.bib"
    refs.write_text("@misc{smith2020, title={A cited book}}\n@misc{x1, abstract={We measure a thing about "
                    "graph networks on many benchmarks and find it holds.}}\n")
    assert "passed over 1 entry without an abstract (refs.bib: smith2020)" in run_cli("import", str(refs), library=theirs).stdout
    before = run_cli("list", "--format", "json", library=theirs).stdout
    cut = tmp_path / "cut.ris"
    cut.write_text(ris.read_text().rsplit("ER  -", 1)[0])
    proc = run_cli("import", str(cut), library=theirs, check=False)
    assert proc.returncode == 1 and f"{cut}, line " in proc.stderr and "ends inside an entry" in proc.stderr
    assert run_cli("list", "--format", "json", library=theirs).stdout == before


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_markdown_reading_list_grouped_by_venue_or_area(run_cli, tmp_path):
    """export --group-by venue / area: a section per venue (and year) or per area, in name order,
    the papers without one last."""
    rows = (DATA / "icml_slice.jsonl").read_text().splitlines()[:2] + (DATA / "iclr_slice.jsonl").read_text().splitlines()[:2]
    (tmp_path / "p.jsonl").write_text("".join(line + "\n" for line in rows))
    run_cli("import", str(tmp_path / "p.jsonl"), str(SEEDS))  # the seeds: NeurIPS 2026
    md = run_cli("export", "--group-by", "venue").stdout
    assert [line for line in md.splitlines() if line.startswith("## ")] == [
        "## ICLR 2024 (2)", "## ICML 2024 (2)", "## NeurIPS 2026 (35)"]
    areas = sorted({json.loads(r)["primary_area"] for r in rows[2:]}, key=str.casefold)
    counts = {a: sum(json.loads(r)["primary_area"] == a for r in rows[2:]) for a in areas}
    md = run_cli("export", "--group-by", "area").stdout
    assert [line for line in md.splitlines() if line.startswith("## ")] == [
        *(f"## {a} ({counts[a]})" for a in areas), "## (no area) (37)"]


def test_an_error_names_a_file_with_odd_characters_escaped_not_stripped(run_cli, tmp_path):
    odd = tmp_path / "bad\x1b[2Jclear.bib"
    odd.write_text("x")
    proc = run_cli("import", str(odd), check=False)
    assert proc.returncode == 1 and "bad\\x1b[2Jclear.bib'" in proc.stderr and "\x1b" not in proc.stderr


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_an_export_gets_the_permissions_of_any_new_file(run_cli, tmp_path):
    """A reading list is made to be handed on: a new export file takes the umask's permissions
    (not the library's owner-only ones), and an existing one keeps its own; in the library's own
    folder it is private, as the library's files are (doctor flagged it)."""
    import os
    import stat
    old = os.umask(0o022)
    try:
        out = tmp_path / "list.md"
        run_cli("export", "--format", "md", "--output", str(out))
        assert stat.S_IMODE(out.stat().st_mode) == 0o644
        out.chmod(0o600)
        run_cli("export", "--format", "md", "--output", str(out))
        assert stat.S_IMODE(out.stat().st_mode) == 0o600
        inside = run_cli.library / "list.md"  # in the library's folder: private, as its files are
        run_cli("export", "--format", "md", "--output", str(inside))
        assert stat.S_IMODE(inside.stat().st_mode) == 0o600
        doctor = run_cli("doctor")
        assert "other users can read" not in doctor.stdout
    finally:
        os.umask(old)
    assert stat.S_IMODE((run_cli.library / "corpus.jsonl").stat().st_mode) == 0o600  # the library's own: private


@pytest.mark.slow  # (several processes)
def test_an_export_never_writes_over_a_librarys_own_file(run_cli, tmp_path):
    """`export -o LIB/corpus.jsonl` put a Markdown reading list in the corpus's place: the library
    could not be opened, and a new one had no backup to repair it from. A library's own files (and
    its backups' and sync clone's) are refused, a folder is named as one; nothing is written."""
    run_cli("star", run_cli("list", "--format", "plain").stdout.split()[0], "3")
    lib = run_cli.library
    before = {p.name: p.read_bytes() for p in lib.iterdir() if p.is_file()}
    for target in ("corpus.jsonl", "annotations.json", "annotations.json.journal", "archive.jsonl", "sync.json",
                   "index.cache", "backups/x.md"):
        (lib / "backups").mkdir(exist_ok=True)
        proc = run_cli("export", "--format", "md", "-o", str(lib / target), check=False)
        assert proc.returncode == 1 and "a library's own file: an export never writes over it" in proc.stderr, target
    proc = run_cli("export", "--format", "md", "-o", str(tmp_path), check=False)
    assert proc.returncode == 1 and "a folder: give the export a file name" in proc.stderr
    assert {p.name: p.read_bytes() for p in lib.iterdir() if p.is_file()} == before
    assert not (lib / "backups" / "x.md").exists() and not (lib / "archive.jsonl").exists()
    run_cli("export", "--format", "md", "-o", str(lib / "my-list.md"))  # (a file of one's own beside them: fine)
    assert "★★★" in run_cli("list").stdout


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_folder_import_passes_over_its_readme_and_papersifts_own_exports(run_cli, tmp_path):
    """`papersift import corpora/` made papers of the folder's README paragraphs, and a reading
    list exported into a dumps folder came back as papers ("- OVI: an interactive IL …"). A
    folder walk passes them over and says so; named alone, a README and an export are refused (a new
    user's in-app import of corpora/README.md made three papers of its bullets)."""
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    (dumps / "day.txt").write_text("DAY\n\nWe show that sparse autoencoders recover monosemantic features from "
                                   "the residual stream of a small transformer trained on code.\n")
    (dumps / "README.md").write_text("# Dumps\n\nThese files are the listings we fetched each morning for the "
                                     "group, one per day, kept here as they came from the feed.\n")
    run_cli("import", str(SEEDS))
    pid = json.loads(run_cli("list", "--format", "json").stdout)[0]["id"]
    run_cli("status", pid, "to-read")
    run_cli("export", "--format", "md", "--status", "to-read", "--output", str(dumps / "reading-list.md"))
    assert (dumps / "reading-list.md").read_text().startswith("# Reading list")
    run_cli("export", "--format", "org", "--output", str(dumps / "reading-list.org"))  # (a folder's .org is no dump)
    out = json.loads(run_cli("import", str(dumps), "--format", "json").stdout)
    assert (out["new"], out["files"], sorted(out["passed_over"])) == (1, 1, ["README.md", "reading-list.md"])
    line = run_cli("import", str(dumps)).stdout
    assert "passed over README.md, reading-list.md (READMEs, licences and papersift's own exports" in line
    named = run_cli("import", str(dumps / "README.md"), check=False)
    assert named.returncode == 1 and "is a README-like document, not a dump of abstracts" in named.stderr
    named = run_cli("import", str(dumps / "reading-list.md"), check=False)  # named, an export is still no dump
    assert named.returncode == 1 and "is a reading list papersift exported (Markdown), not a dump" in named.stderr
    named = run_cli("import", str(dumps / "reading-list.org"), check=False)  # (named, each heading became a paper)
    assert named.returncode == 1 and "is a reading list papersift exported (Org), not a dump" in named.stderr
    assert len(json.loads(run_cli("list", "--format", "json").stdout)) == 36


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_list_offers_every_sort_the_app_has(run_cli):
    """`S` in the app offers "recommended"; `list --sort` did not."""
    from store.library.search import SORTS
    from tui.cli.library import LIST_SORTS
    assert LIST_SORTS == SORTS
    in_order = [r["id"] for r in json.loads(run_cli("list", "--format", "json").stdout)]
    untaught = run_cli("list", "--sort", "recommended", "--format", "json")
    assert [r["id"] for r in json.loads(untaught.stdout)] == in_order
    assert "nothing to learn from yet (no paper marked: read, to-read, skipped, a star or a tag): in import order" in untaught.stderr
    run_cli("star", in_order[20], "3")
    ranked = [r["id"] for r in json.loads(run_cli("list", "--sort", "recommended", "--format", "json").stdout)]
    assert sorted(ranked) == sorted(in_order) and ranked != in_order  # the same papers, learnt from the star
    proc = run_cli("search", "", check=False)
    assert proc.returncode == 2 and "what to search for? give words or filters" in proc.stderr


def test_search_shows_the_weaker_matches_below_a_divider(run_cli, tmp_path):
    """A one-shot search that finds one paper holding every word shows, as the app does, the papers
    holding most of them below a divider; JSON marks which hold every word."""
    dump = tmp_path / "d.txt"
    dump.write_text("Dump\n\nWe train legged robots on rough terrain with a learned gait.\n\n"
                    "We train legged robots to climb stairs with a learned gait.\n\n"
                    "Terrain maps from satellite images help farmers plan.\n")
    folder = tmp_path / "lib"
    run_cli("import", str(dump), library=folder)
    out = run_cli("search", "legged", "robots", "terrain", library=folder).stdout
    lines = out.splitlines()
    divider = next(i for i, line in enumerate(lines) if "weaker matches: most but not all words" in line)
    assert "rough terrain" in " ".join(lines[:divider]) or divider == 2  # (the set: one row above it)
    assert "1 found · 1 weaker match below" in out
    rows = json.loads(run_cli("search", "legged", "robots", "terrain", "--format", "json", library=folder).stdout)
    assert [r["all_words"] for r in rows] == [True, False]
    assert "rough terrain" in rows[0]["abstract"] and "stairs" in rows[1]["abstract"]
    # --limit cutting the weaker matches off says they go on past it (the one-shot path, and with a
    # filter the Library's)
    for extra in ((), ("-tag:none",)):
        cut = run_cli("search", "legged", "robots", "terrain", *extra, "--limit", "1", library=folder).stdout
        assert "1 found · more weaker matches past --limit" in cut and "weaker matches: most" not in cut
    rows = json.loads(run_cli("search", "legged", "robots", "terrain", "--limit", "1", "--format", "json",
                              library=folder).stdout)
    assert [r["all_words"] for r in rows] == [True]
    assert "more weaker" not in run_cli("search", "legged", "robots", "terrain", "--limit", "2", library=folder).stdout
    assert run_cli("search", "zzzqqq", library=folder).stdout.splitlines() == ["none found · 3 papers in the library"]


def test_search_takes_an_acronym_the_papers_define_for_its_expansion(run_cli, tmp_path):
    """`papersift search LLM planning` finds the paper that writes "large language models" too,
    and the expansion typed finds the one that writes only LLMs; each says what it counted. The
    second run (the acronyms learned and kept) answers alike."""
    dump = tmp_path / "d.txt"
    dump.write_text(ACRONYM_DUMP)
    folder = tmp_path / "lib"
    run_cli("import", str(dump), library=folder)
    for _ in range(2):
        short = run_cli("search", "LLM", "planning", "--format", "json", library=folder).stdout
        long = run_cli("search", "large", "language", "model", "planning", "--format", "json", library=folder).stdout
        found = {q: {r["abstract"][:30] for r in json.loads(out) if r["all_words"]} for q, out in (("s", short), ("l", long))}
        assert found["s"] == found["l"] == {"Planning household tasks with ", "We show that large language mo"}
    proc = run_cli("search", "LLM", "planning", library=folder)
    assert "counted: LLM (also large language models)" in proc.stderr
    assert "large language model (also LLM)" in run_cli("search", "large language model planning", library=folder).stderr
    assert "Classical planning" not in proc.stdout.split("weaker")[0]
    typo = json.loads(run_cli("search", "large", "langauge", "model", "planning", "--format", "json", library=folder).stdout)
    assert {r["abstract"][:30] for r in typo if r["all_words"]} == found["l"]  # (misspelled, it still spells out LLM)
    typo = run_cli("search", "plannign", library=folder)  # (a word no paper holds: said how it was read)
    assert "read as: plannign → planning" in typo.stderr and "Planning household" in typo.stdout
    assert "read as" not in run_cli("search", "planning", library=folder).stderr


def test_every_argument_of_every_command_is_explained_in_its_help():
    """`papersift CMD --help` says what each argument is, positional ones too (generated from the
    parsers: a new command's are covered the day it is added)."""
    import argparse

    from tui.cli.main import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    missing = [f"{name} {a.dest}" for name, parser in commands.items() for a in parser._actions
               if not isinstance(a, (argparse._SubParsersAction, argparse._HelpAction)) and not a.help]
    assert not missing, missing


@pytest.mark.slow  # (several processes)
def test_bytes_that_are_not_utf8_are_said_in_one_line_and_change_nothing(run_cli, tmp_path):
    """A note, tag or query typed in a Latin-1 terminal ("caf\\xe9") ended in a traceback; a file
    whose name is such bytes is still read as given. `similar --limit 0` divided by zero."""
    pid = run_cli("list", "--format", "plain").stdout.split()[0]
    before = (run_cli.library / "corpus.jsonl").read_bytes(), run_cli("list", "--format", "json").stdout
    latin = "caf\udce9"  # (the byte 0xE9, as Python holds an argument that is not UTF-8)
    for args in (("note", pid, latin), ("tag", pid, latin), ("list", "--query", latin), ("search", latin),
                 ("export", "--query", latin), ("remove", "--query", latin, "--dry-run")):
        proc = run_cli(*args, check=False)
        assert proc.returncode == 2 and "argument 'caf\\\\xe9' is not UTF-8 text" in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
    proc = subprocess.run(run_cli.cmd + ["note", pid, "-"], input=b"caf\xe9\n", capture_output=True, timeout=60,
                          env={**os.environ, "PAPERSIFT_LIBRARY": str(run_cli.library)})
    assert proc.returncode == 1 and b"standard input, byte 4: not UTF-8 text" in proc.stderr
    assert ((run_cli.library / "corpus.jsonl").read_bytes(), run_cli("list", "--format", "json").stdout) == before
    proc = run_cli("similar", pid, "--limit", "0")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    named = tmp_path / "caf\udce9.txt"  # (a file of that name: imported as any file is, its name stored as text)
    named.write_text("We study zebrafish schooling with graph networks over many seasons of field data.")
    assert "1 new" in run_cli("import", str(named)).stdout
    assert json.loads(run_cli("list", "--format", "json").stdout)[0]["sources"][0]["file"] == "caf\\xe9.txt"


@pytest.mark.parametrize("fmt,name", [("bibtex", "out.bibtex"), ("csl-json", "all.csl-json"),
                                      ("jsonl", "marks.json-lines"), ("json", "marks.export")])
@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_import_annotations_reads_an_export_named_after_its_format(fmt, name, run_cli, tmp_path):
    """An export saved as `out.bibtex` or `all.csl-json` (named after --format) is read back by
    import-annotations by what it holds, as `import` reads it: it said "not a file papersift
    exports" by its suffix alone."""
    pid = json.loads(run_cli("list", "--format", "json", "--limit", "1").stdout)[0]["id"]
    run_cli("tag", pid, "theirs")
    run_cli("star", pid, "2")
    out = tmp_path / name
    run_cli("export", "--format", fmt, "-o", str(out), "--query", "tag:theirs")
    other = tmp_path / "other"
    run_cli("import", str(SEEDS), library=other)
    run_cli("import-annotations", str(out), library=other)
    theirs = json.loads(run_cli("list", "--tag", "theirs", "--format", "json", library=other).stdout)
    assert [(p["id"], p["star"]) for p in theirs] == [(pid, 2)]


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_an_export_to_a_dash_goes_to_standard_output_and_plain_lines_show_titles_as_the_app_does(run_cli, tmp_path,
                                                                                                monkeypatch):
    """`export -o -` wrote a file named "-" (nothing on standard output); `list --format plain`
    printed a title's LaTeX as stored (PixArt-$\\alpha$) where the app and `show` render it; a
    corpus with more lines than papers was said "(truncated?)"."""
    monkeypatch.chdir(tmp_path)
    proc = run_cli("export", "--format", "csv", "-o", "-")
    assert proc.stdout.startswith("id,title,") and not (tmp_path / "-").exists()
    dump = tmp_path / "latex.txt"
    dump.write_text("D\n\nPixArt-$\\alpha$: we train a diffusion transformer for text to image synthesis fast and cheaply "
                    "on a small budget of GPU days while matching the quality of much larger models.\n")
    library = tmp_path / "latex-lib"
    run_cli("import", str(dump), library=library)
    plain = run_cli("list", "--format", "plain", library=library).stdout
    assert "PixArt-α" in plain and "$" not in plain, plain
    corpus = library / "corpus.jsonl"
    lines = corpus.read_bytes().split(b"\n")
    corpus.write_bytes(b"\n".join([*lines[:2], b"{garbage", *lines[2:]]))
    said = run_cli("doctor", library=library, check=False).stdout
    assert "expected 1 paper but found 2 lines (a paper's line broken in two, or lines added?)" in said and "truncated" not in said, said


@pytest.mark.slow  # (a few processes)
def test_an_app_option_before_another_command_is_said_under_that_command(run_cli, tmp_path):
    """`papersift --keymap K list --query x` was read as `open` with "list" a file to import, and
    said "papersift open: error: unrecognized arguments: --query=x"."""
    keymap = tmp_path / "k.toml"
    keymap.write_text('[main]\nread = "R"\n')
    proc = run_cli("--keymap", str(keymap), "list", "--query", "x", check=False)
    assert proc.returncode == 2 and "papersift list: error: unrecognized arguments: --keymap" in proc.stderr
    proc = run_cli("--fresh", "list", check=False)
    assert proc.returncode == 2 and "papersift list: error: unrecognized arguments: --fresh" in proc.stderr


def test_the_quit_line_does_not_count_marks_another_process_removed_with_their_paper(lib, capsys):
    """The app starred and tagged a paper that the command line then removed: the line the app
    printed on quitting said "stars lowered on 1 paper · tags taken off 1 paper"."""
    from store import Library
    from store.annotations.session import snapshot
    from tui.cli.library import _say_what_the_session_kept

    ids = [p.id for p in lib.corpus]
    lib.marks.bump_star([ids[1]], 2)  # (an earlier sitting's marks)
    lib.marks.add_tags([ids[1]], ["keepme"])
    opened = snapshot(lib.annotations)
    lib.marks.set_status([ids[0], ids[1]], "read")
    Library(lib.folder).remove([ids[1]])
    _say_what_the_session_kept(lib, opened, [])
    said = capsys.readouterr().err
    assert "this session: 1 paper marked (1 read); saved in" in said and "stars" not in said, said
