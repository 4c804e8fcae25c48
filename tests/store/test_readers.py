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
