"""store/formats: the one table of formats. Every function it names exists, and what the command
line, the export dialog and a folder import offer comes from it (the same as before the table)."""

from __future__ import annotations

import subprocess

import pytest

from store import formats
from store.formats import EXPORTS as FORMATS
from store.exchange.export import EXTENSIONS, export_text

from ..conftest import papersift_argv


@pytest.mark.parametrize("fmt", formats.TABLE, ids=lambda f: f.name)
def test_every_function_the_table_names_exists(fmt):
    for spec in (fmt.reader, fmt.writer, fmt.sniff):
        if spec:
            assert callable(formats.load(spec)), spec
    assert fmt.reader or fmt.writer


def test_what_is_offered_comes_from_the_table():
    assert FORMATS == ("md", "csv", "json", "jsonl", "bibtex", "org", "csl-json", "ris")
    assert EXTENSIONS == {"md": ".md", "csv": ".csv", "json": ".json", "jsonl": ".jsonl", "bibtex": ".bib",
                          "org": ".org", "csl-json": ".csl.json", "ris": ".ris"}
    assert formats.IMPORTABLE_SUFFIXES == {".txt", ".md", ".text", ".dump", ".json", ".jsonl", ".ndjson", ".csv",
                                           ".tsv", ".bib", ".ris", ".xml", ".atom", ".rss", ".oai"}
    helped = subprocess.run([*papersift_argv(), "export", "--help"], capture_output=True, text=True, check=True).stdout
    assert all(name in helped for name in FORMATS)


@pytest.mark.parametrize("suffix,text,expected", [
    (".jsonl", "{}", "jsonl"), (".tsv", "a\tb", "tsv"), (".bib", "", "bibtex"), (".xml", "", "atom"),
    (".txt", "@article{x, title={T}}", "bibtex"), (".txt", "TY  - JOUR\nER  -\n", "ris"),
    (".txt", "An abstract of a paper.", "dump"), (".csv", "@article{x,}", "csv"),  # a CSV is never sniffed
    (".csl-json", '[\n  {"type": "article", "abstract": "x"}]', "json"), ("", '{"abstract": "x"}\n', "json"),
    (".txt", "[1] We propose a thing.", "dump"), (".txt", "{Braces} open this abstract.", "dump"),
])
def test_a_file_is_read_by_its_suffix_then_by_its_look(suffix, text, expected):
    assert formats.reader_for(suffix, text).name == expected


def test_every_export_format_writes(lib):
    pairs = [(p, lib.annotation(p.id)) for p in list(lib.corpus.papers)[:3]]
    for name in FORMATS:
        assert export_text(pairs, name).strip(), name


def test_a_json_line_holding_a_raw_line_separator_is_one_record(tmp_path):
    """JSON holds U+2028, U+2029 and U+0085 raw inside a string (Python's json.dumps with
    ensure_ascii=False writes them so); the reader split lines there and refused the file."""
    import json

    from store import Library
    abstract = "We study line separators\u2028 inside abstracts,\u2029 pasted\x85 from PDFs, and propose SepNet."
    path = tmp_path / "ls.jsonl"
    path.write_text(json.dumps({"title": "Separators", "abstract": abstract}, ensure_ascii=False) + "\n"
                    + json.dumps({"title": "Two", "abstract": "A second paper on the same topic, with nothing odd."}) + "\r\n",
                    encoding="utf-8")
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([path])
    assert [p.abstract for p in lib.corpus][0] == abstract and len(lib) == 2



@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_csl_json_export_named_for_its_format_imports(run_cli, tmp_path):
    """`export --format csl-json -o all.csl-json` then `import all.csl-json` was read as a dump: "an
    abstract is at most 100,000 characters"."""
    import json
    run_cli("list")  # (the sample)
    out = tmp_path / "all.csl-json"
    run_cli("export", "--format", "csl-json", "-o", str(out))
    other = tmp_path / "other"
    proc = run_cli("import", str(out), library=other)
    assert proc.returncode == 0 and len(json.loads(run_cli("list", "--format", "json", library=other).stdout)) == 35
