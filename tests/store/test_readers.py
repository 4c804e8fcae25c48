"""The RIS, arXiv Atom and OpenReview readers (store/ingest/): entries read, a bad one named with its line."""


import pytest

from store.errors import InputError


def test_ris_reads_entries_and_names_the_line_of_a_bad_one(tmp_path):
    from store.formats.ris import looks_like_ris, read_ris

    text = "TY  - JOUR\nTI  - A title\nAU  - Lee, A.\nAU  - Ray, B.\nAB  - First line\n  continued\nER  - \n"
    assert looks_like_ris(text) and not looks_like_ris("title,abstract\n")
    [entry] = read_ris(text, tmp_path / "a.ris")
    assert entry.first("TI", "T1") == "A title" and entry.all("AU") == ["Lee, A.", "Ray, B."]
    assert "continued" in entry.first("AB")
    with pytest.raises(InputError) as err:
        read_ris("TY  - JOUR\nTI  - x\nER  - \ngarbage here\n", tmp_path / "b.ris")
    assert err.value.line == 4
    with pytest.raises(InputError):
        read_ris("TY  - JOUR\nTI  - never closed\n", tmp_path / "c.ris")


def test_arxiv_atom_reads_papers_and_names_bad_xml(tmp_path):
    from store.formats.atom import looks_like_atom, read_atom

    from ..conftest import DATA

    text = (DATA / "arxiv_api.xml").read_text()
    assert looks_like_atom(text)
    papers, missing = read_atom(text, DATA / "arxiv_api.xml")
    assert papers and all(p["abstract"] and p["url"].startswith("https://") for p in papers)
    with pytest.raises(InputError) as err:
        read_atom('<feed xmlns="http://www.w3.org/2005/Atom">\n<entry></feed>', tmp_path / "bad.xml")
    assert err.value.line == 2
    with pytest.raises(InputError, match="expected an Atom feed"):
        read_atom("<rss></rss>", tmp_path / "rss.xml")


def test_openreview_notes_in_papersift_names():
    from store.formats.openreview import is_note, note_fields

    note = {"id": "abc", "forum": "abc", "pdate": 1700000000000,
            "content": {"title": {"value": "T"}, "abstract": {"value": "A."}, "authors": {"value": ["X Y"]},
                        "venue": {"value": "ICLR 2024 poster"}, "keywords": {"value": ["rl"]}}}
    assert is_note(note) and not is_note({"abstract": "x", "content": {}})
    fields = note_fields(note)
    assert fields["title"] == "T" and fields["abstract"] == "A." and fields["authors"] == ["X Y"]
    assert fields["venue"] == "ICLR" and fields["year"] == "2024"
    assert fields["url"] == "https://openreview.net/forum?id=abc"
    del note["content"]["venue"]
    assert note_fields(note)["year"] == "2023"  # from the publication time
    note["pdate"] = 10 ** 20  # not a time: no year, no crash
    assert "year" not in note_fields(note)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_every_field_is_bounded_and_a_name_is_one_line_in_every_export(run_cli, tmp_path):
    """A 50 MB author list in a RIS file was stored (only abstracts were bounded) and hung the app;
    an author's newline wrote a heading of its own into the Org and Markdown reading lists."""
    import json
    huge = tmp_path / "big.ris"
    huge.write_text("TY  - JOUR\nTI  - T\nAB  - We propose BigField, a method for learning from large fields.\n"
                    f"AU  - {'A' * 150_000}\nER  - \n")
    proc = run_cli("import", str(huge), check=False)
    assert proc.returncode == 1 and "big.ris" in proc.stderr and "the authors are at most 100,000 characters" in proc.stderr
    bib = tmp_path / "big.bib"
    bib.write_text("@article{k, title={" + "T" * 20_000 + "}, abstract={We propose a method with a long title.}}\n")
    proc = run_cli("import", str(bib), check=False)
    assert proc.returncode == 1 and "a paper's title is at most 10,000 characters" in proc.stderr
    assert not run_cli.library.exists()  # (nothing imported: no library made)
    hostile = tmp_path / "inj.jsonl"
    hostile.write_text(json.dumps({"title": "Injection carrier one",
                                   "authors": ["Ann\n* DONE INJECTED ORG HEADING\n# INJECTED MD HEADING\n", "Bob\r* DONE CRINJ"],
                                   "abstract": "We propose CarrierNet, a network that carries things."}) + "\n")
    run_cli("import", str(hostile))
    pid = json.loads(run_cli("list", "--format", "json").stdout)[0]["id"]
    assert json.loads(run_cli("show", pid, "--format", "json").stdout)["authors"] == [
        "Ann * DONE INJECTED ORG HEADING # INJECTED MD HEADING", "Bob * DONE CRINJ"]
    run_cli("status", pid, "to-read")
    for fmt in ("org", "md"):
        out = run_cli("export", "--format", fmt).stdout
        lines = out.splitlines()
        assert not any(line.startswith(("* DONE INJ", "* DONE CRINJ", "# INJECTED")) for line in lines), (fmt, out)
        assert "\r" not in out


def test_names_listed_last_name_first_are_stored_in_order_and_every_export_knows_the_family_name(tmp_path):
    """BibTeX and RIS list a name "Smith, John": it was stored so (the reader showed "Smith, John,
    Müller, Anna", four people), CSL-JSON then made John the family name and the BibTeX key
    read john_…. A name is stored "John Smith"; a library's older "Smith, John" exports right too."""
    import json

    from store import Library
    from store.exchange.export import export_text
    from store.formats.bibtex import citation_key
    from store.formats.csl import csl_name
    from store.ingest.parse import parse_file

    abstract = "We test how author names written last name first survive an import and every export of a tool."
    bib = tmp_path / "mine.bib"
    bib.write_text("@article{k, author = {Smith, John and M{\\\"u}ller, Anna and van der Berg, Jr., Jan and Ada Lovelace"
                   " and {Google, Inc.}},"
                   f" title = {{Names}}, journal = {{J}}, year = {{2024}}, abstract = {{{abstract}}}}}\n")
    ris = tmp_path / "mine.ris"
    ris.write_text(f"TY  - JOUR\nTI  - Names\nAU  - Lee, Ann\nAU  - Ray, B.\nAB  - {abstract}\nER  - \n")
    assert parse_file(bib)[0].authors == ["John Smith", "Anna Müller", "Jan van der Berg Jr.", "Ada Lovelace", "Google, Inc."]
    assert parse_file(ris)[0].authors == ["Ann Lee", "B. Ray"]
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([bib])
    pairs = lib.pairs("")
    [item] = json.loads(export_text(pairs, "csl-json"))
    assert item["author"][:3] == [{"family": "Smith", "given": "John"}, {"family": "Müller", "given": "Anna"},
                                  {"family": "Berg", "given": "Jan van der", "suffix": "Jr."}]
    assert citation_key(pairs[0][0]).startswith("smith_")
    assert csl_name("Smith, John") == {"family": "Smith", "given": "John"} and csl_name("Madonna") == {"literal": "Madonna"}
    from dataclasses import replace
    assert citation_key(replace(pairs[0][0], authors=["Smith, John"])).startswith("smith_")
