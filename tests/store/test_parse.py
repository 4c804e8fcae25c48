"""Parsers: seed dumps, edge cases and every error naming the file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from store.errors import InputError
from store.ingest.parse import expand_paths, parse_file

from ..conftest import DATA, SEEDS

ABS1 = "We study a problem. It is hard and we solve it with a method that works well in practice."
ABS2 = "Another abstract about graphs. Graph neural networks are evaluated on twelve benchmarks."


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return p


def test_seed_dumps_have_19_abstracts_each_and_positions():
    for f in sorted(SEEDS.glob("*.txt")):
        recs = parse_file(f)
        assert len(recs) == 19
        assert [r.position for r in recs] == list(range(1, 20))
        assert not recs[0].abstract.startswith("NeurIPS")
        assert {(r.venue, r.year) for r in recs} == {("NeurIPS", "2026")}  # named by the header line


def test_dump_crlf_bom_wrapping_and_trailing_spaces(tmp_path):
    text = "\ufeffHeader Line\r\n\r\nWe study a problem.   \r\nIt is hard and we solve it with a method\r\nthat works well in practice.  \r\n\r\n\r\n" + ABS2 + "\r\n"
    recs = parse_file(write(tmp_path, "a.txt", text))
    assert [r.abstract for r in recs] == [ABS1, ABS2]
    assert recs[1].position == 2


def test_dump_without_header(tmp_path):
    recs = parse_file(write(tmp_path, "a.txt", ABS1 + "\n\n" + ABS2))
    assert len(recs) == 2


def test_utf16_with_bom(tmp_path):
    recs = parse_file(write(tmp_path, "a.txt", ("H\n\n" + ABS1).encode("utf-16")))
    assert recs[0].abstract == ABS1


@pytest.mark.parametrize("content,needle", [
    (b"", "empty"),
    (b"   \n\n  \n", "only whitespace"),
    (b"\x00\x01\x02binary", "NUL byte at byte offset 0"),
    (b"good text\n\nbad \xff byte", "byte offset 15"),
])
def test_bad_files_name_the_problem(tmp_path, content, needle):
    for name in ("bad.txt", "bad.csv", "bad.jsonl", "bad.bib", "bad.ris"):  # (whatever reads it: the same reason)
        p = write(tmp_path, name, content)
        with pytest.raises(InputError) as err:
            parse_file(p)
        assert name in str(err.value) and needle in str(err.value), (name, str(err.value))


def test_header_only_is_an_error(tmp_path):
    with pytest.raises(InputError, match="no abstracts"):
        parse_file(write(tmp_path, "h.txt", "NeurIPS 2026 Papers\n"))


def test_jsonl_real_corpus_slice_keeps_titles_and_authors():
    recs = parse_file(DATA / "icml_slice.jsonl")
    assert len(recs) > 250
    assert all(r.title and r.authors for r in recs)


def test_jsonl_error_names_line(tmp_path):
    p = write(tmp_path, "x.jsonl", json.dumps({"abstract": ABS1}) + "\n{broken\n")
    with pytest.raises(InputError, match=r"x.jsonl, line 2"):
        parse_file(p)


@pytest.mark.parametrize("obj,needle", [
    ({"title": "t"}, "abstract"),
    ({"abstract": 5}, "abstract"),
    ({"abstract": ABS1, "authors": [1, 2]}, "authors"),
    ({"abstract": ABS1, "title": ["x"]}, "title"),
])
def test_json_wrong_types(tmp_path, obj, needle):
    p = write(tmp_path, "x.json", json.dumps([{"abstract": ABS2}, obj]))
    with pytest.raises(InputError, match=needle) as err:
        parse_file(p)
    assert "entry 2" in str(err.value)


def test_deeply_nested_json_is_a_clear_error(tmp_path):
    p = write(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputError, match="deep.json"):
        parse_file(p)


def test_csv_columns_quoting_and_errors(tmp_path):
    p = write(tmp_path, "x.csv", 'id,title,abstract,authors\n1,"A, title","' + ABS1.replace("hard", 'hard ""really""') + '",Ann; Bob\n')
    recs = parse_file(p)
    assert recs[0].title == "A, title" and recs[0].authors == ["Ann", "Bob"] and '"really"' in recs[0].abstract
    with pytest.raises(InputError, match=r"no \"abstract\" column"):
        parse_file(write(tmp_path, "y.csv", "title,summaryx\nA,B\n"))
    with pytest.raises(InputError, match=r"z.csv, line 3.*3 fields"):
        parse_file(write(tmp_path, "z.csv", f"title,abstract\nA,{ABS1}\nB,{ABS2},extra\n"))
    # a quote that does not close its field: said with its line (it was read with the columns shifted,
    # the title "Unclosed title,an abstract" and the abstract the rest)
    with pytest.raises(InputError, match=r"q.csv, line 3.*invalid CSV"):
        parse_file(write(tmp_path, "q.csv", f'title,abstract,authors\nA,"{ABS1}",Ann\n"Unclosed title,"{ABS2}",B\n'))
    tsv = parse_file(write(tmp_path, "t.tsv", f'title\tabstract\n"Attention" is all you need\t{ABS1}\n'))
    assert tsv[0].abstract.startswith(ABS1[:20])  # (a TSV's cell that starts with a quote stays readable)


def test_zotero_csv_columns(tmp_path):
    csv_text = ('"Key","Item Type","Publication Year","Author","Title","Publication Title","DOI","Url","Abstract Note"\n'
                f'"K1","journalArticle","2023","Lee, Ann; Ray, Bob","A Paper","JMLR","10.1/x","","{ABS1}"\n')
    rec, = parse_file(write(tmp_path, "zotero.csv", csv_text))
    assert (rec.title, rec.authors, rec.url, rec.abstract) == ("A Paper", ["Ann Lee", "Bob Ray"], "https://doi.org/10.1/x", ABS1)
    assert (rec.venue, rec.year) == ("JMLR", "2023")


@pytest.mark.parametrize("header, named", [
    ("NeurIPS 2026 Papers", ("NeurIPS", "2026")), ("Accepted papers — ICML 2024", ("ICML", "2024")),
    ("ICLR-2024", ("ICLR", "2024")), ("ACL-IJCNLP 2021 abstracts", ("ACL-IJCNLP", "2021")),
    ("Top 2000 abstracts", ("", "")), ("Synthetic corpus of 2000 abstracts", ("", "")), ("Papers", ("", "")),
])
def test_a_dump_header_names_a_venue_only_when_it_reads_like_one(header, named):
    from store.formats.dump import venue_of_header
    assert venue_of_header(header) == named


@pytest.mark.parametrize("name, content", [
    ("v.json", json.dumps([{"abstract": ABS1, "venue": "ICML", "year": 2024}])),
    ("v.jsonl", json.dumps({"abstract": ABS1, "venue": " ICML ", "year": "2024"}) + "\n"),
    ("csl.json", json.dumps([{"id": "a", "type": "paper-conference", "abstract": ABS1, "container-title": "ICML",
                              "issued": {"date-parts": [[2024, 7]]}}])),
    ("v.bib", "@inproceedings{k, booktitle={{ICML}}, year={2024}, abstract={" + ABS1 + "}}\n"),
    ("v.ris", f"TY  - CONF\nPY  - 2024///\nT2  - ICML\nAB  - {ABS1}\nER  - \n"),
    ("v.txt", f"Accepted papers - ICML 2024\n\n{ABS1}\n"),
])
def test_venue_and_year_from_every_format(tmp_path, name, content):
    rec, = parse_file(write(tmp_path, name, content))
    assert (rec.venue, rec.year) == ("ICML", "2024")


@pytest.mark.parametrize("name, content", [
    ("k.json", json.dumps([{"abstract": ABS1, "keywords": ["Bandits", "RL, offline"]}])),
    ("k.jsonl", json.dumps({"abstract": ABS1, "keywords": "Bandits; RL, offline"}) + "\n"),
    ("csl.json", json.dumps([{"id": "a", "type": "article", "abstract": ABS1, "keyword": "Bandits; RL, offline"}])),
    ("k.bib", "@misc{k, keywords={{B}andits; RL{,} offline}, abstract={" + ABS1 + "}}\n"),
    ("k.ris", f"TY  - JOUR\nKW  - Bandits\nKW  - RL, offline\nAB  - {ABS1}\nER  - \n"),
    ("k.csv", f'abstract,keywords\n"{ABS1}","Bandits; RL, offline"\n'),
    ("zotero.csv", f'Key,Abstract Note,Manual Tags\nX1,"{ABS1}","Bandits; RL, offline"\n'),
])
def test_keywords_from_every_format(tmp_path, name, content):
    """A label may hold a comma ("RL, offline"): a list keeps it whole, a string with ';' splits there."""
    rec, = parse_file(write(tmp_path, name, content))
    assert rec.keywords == ["Bandits", "RL, offline"]


def test_keywords_are_labels_cleaned_and_capped():
    from store.search.keywords import MAX_KEYWORD_CHARS, MAX_KEYWORDS, keywords_of
    assert keywords_of("a, b,, A ,\x1b[31mred\x07") == ["a", "b", "red"]
    assert keywords_of(["x" * 500]) == ["x" * MAX_KEYWORD_CHARS]
    assert len(keywords_of([f"k{i}" for i in range(200)])) == MAX_KEYWORDS
    assert keywords_of(None, 3, {"a": 1}, ["ok", 5]) == ["ok"]
    # A full-width semicolon (as CJK input methods type ';') separates too: two of ICLR 2024's papers.
    assert keywords_of(["Diffusion Models\uff1btext-vision Condition\uff1b"]) == ["Diffusion Models", "text-vision Condition"]
    assert keywords_of("RL\uff1b bandits, offline") == ["RL", "bandits, offline"]


def test_a_tag_holds_no_separator_of_keywords():
    from store.tags import normalize_tag
    assert normalize_tag("Deep RL; offline\uff1bsim2real, x") == "deep-rl-offline-sim2real-x"


def test_bibtex_with_abstracts_and_unbalanced_braces(tmp_path):
    bib = "@inproceedings{k1,\n  title={A {Great} Paper},\n  author={Ann Lee and Bob Ray},\n  abstract={" + ABS1 + "}\n}\n@misc{k2, title={No abstract}}\n"
    recs = parse_file(write(tmp_path, "x.bib", bib))
    assert len(recs) == 1 and recs[0].title == "A Great Paper" and recs[0].authors == ["Ann Lee", "Bob Ray"]
    with pytest.raises(InputError, match=r"bad.bib, line 2.*never closed"):
        parse_file(write(tmp_path, "bad.bib", "@misc{k,\n title={oops,\n abstract={x}\n"))


def test_bibtex_latex_becomes_text_math_kept(tmp_path):
    """BibTeX from Google Scholar, DBLP or Zotero: accents as macros, {Case} braces, escaped specials."""
    bib = ("@inproceedings{k, title={{BERT} and the $\\mathcal{O}(\\sqrt{T})$ Bound},\n"
           "  author={Bernhard Sch{\\\"o}lkopf and Paul Erd\\H{o}s and Fran\\c{c}ois Fleuret},\n"
           "  booktitle={Advances in {NeurIPS}}, year={2023},\n"
           "  abstract={We gain 5\\% on {GLUE} \\& more, with $\\ell_{p}$ norms. " + ABS1 + "}}\n")
    rec, = parse_file(write(tmp_path, "scholar.bib", bib))
    assert rec.title == "BERT and the $\\mathcal{O}(\\sqrt{T})$ Bound"
    assert rec.authors == ["Bernhard Schölkopf", "Paul Erdős", "François Fleuret"]
    assert (rec.venue, rec.year) == ("Advances in NeurIPS", "2023")
    assert rec.abstract.startswith("We gain 5% on {GLUE} & more, with $\\ell_{p}$ norms.")


def test_bibtex_entries_without_an_abstract_are_named(tmp_path):
    bib = "@misc{k1, title={One}}\n@misc{k2, title={Two}}\n"
    with pytest.raises(InputError, match=r"none.bib: no abstracts found \(2 entries, none with an abstract: k1, k2\)"):
        parse_file(write(tmp_path, "none.bib", bib))
    recs = parse_file(write(tmp_path, "mixed.bib", bib + "@misc{k3, abstract={" + ABS1 + "}}\n"))
    assert len(recs) == 1 and recs.no_abstract == ["k1", "k2"]


CUT = ABS1.index(" we solve")  # the abstract goes on on the next line, as some exporters wrap it
RIS = ("TY  - JOUR\nID  - r1\nTI  - A Great Paper\nAU  - Lee, Ann\nAU  - Ray, Bob\nAB  - " + ABS1[:CUT] + "\n"
       + ABS1[CUT + 1:] + "\nDO  - 10.1/xyz\nER  - \n\n"
       "TY  - CONF\nT1  - Second\nA1  - Kim, Cho\nN2  - " + ABS2 + "\nUR  - https://a.org/2; https://b.org\nER  -\n\n"
       "TY  - BOOK\nTI  - No abstract\nER  - \n")


def test_ris_fields_continuation_lines_and_entries_without_abstract(tmp_path):
    recs = parse_file(write(tmp_path, "refs.ris", RIS))
    assert [r.title for r in recs] == ["A Great Paper", "Second"]
    assert recs[0].abstract == ABS1
    assert recs[0].authors == ["Ann Lee", "Bob Ray"] and recs[0].external_id == "r1"  # (RIS lists them "Lee, Ann")
    assert recs[0].url == "https://doi.org/10.1/xyz" and recs[1].url == "https://a.org/2"
    assert recs[1].abstract == ABS2 and recs[1].authors == ["Cho Kim"]
    assert recs.no_abstract == ["line 18"]
    # A .txt whose content is RIS is read as RIS (as a dump, every entry became a paragraph of tags).
    assert [r.title for r in parse_file(write(tmp_path, "zotero.txt", RIS))] == ["A Great Paper", "Second"]


@pytest.mark.parametrize("name, content, needle", [
    ("cut.ris", "TY  - JOUR\nAB  - " + ABS1 + "\n", r"cut.ris, line 1: the file ends inside an entry"),
    ("cut.ris", "TY  - JOUR\nAB  - " + ABS1 + "\nTY  - JOUR\nER  - \n",
     r"cut.ris, line 3: a new entry starts before the one from line 1"),
    ("cut.ris", "Reference list\nTY  - JOUR\n", r"cut.ris, line 1: expected an RIS entry to start here"),
    ("cut.ris", "TY  - JOUR\nAB  - x\nER  - \nstray text\n", r"cut.ris, line 4: expected an RIS entry"),
    ("bad.xml", "<feed xmlns='http://www.w3.org/2005/Atom'>\n<entry><summary>x</entry>\n</feed>",
     r"bad.xml, line 2: invalid XML: mismatched tag"),
    ("bad.xml", "<html><body/></html>", r"bad.xml: expected an Atom feed .* found <html>"),
    ("empty.xml", "<rss version='2.0'><channel/></rss>", r"empty.xml: no abstracts found"),
])
def test_bad_ris_and_xml_name_the_line(tmp_path, name, content, needle):
    with pytest.raises(InputError, match=needle):
        parse_file(write(tmp_path, name, content))


def test_csl_json_items_without_an_abstract_are_named_not_fatal(tmp_path):
    """Zotero's CSL-JSON export of a collection has books and web pages without abstracts."""
    items = [{"id": "book1", "type": "book", "title": "A book"},
             {"id": "p1", "type": "article-journal", "abstract": ABS1,
              "author": [{"given": "Ann", "family": "Lee"}, {"literal": "The Team"}], "DOI": "10.1/x"}]
    recs = parse_file(write(tmp_path, "zotero.json", json.dumps(items)))
    assert len(recs) == 1 and recs.no_abstract == ["book1"]
    assert recs[0].authors == ["Ann Lee", "The Team"] and recs[0].url == "https://doi.org/10.1/x"
    with pytest.raises(InputError, match=r"plain.json \(entry 1\): \"abstract\" must be a non-empty string"):
        parse_file(write(tmp_path, "plain.json", json.dumps([{"title": "no type, no abstract"}])))


def test_arxiv_api_atom_feed():
    """tests/data/arxiv_api.xml is shaped as export.arxiv.org/api/query answers: wrapped titles and
    summaries, versioned ids (old archive-style ones too), an entry without a summary."""
    recs = parse_file(DATA / "arxiv_api.xml")
    assert [r.title for r in recs] == ["Grokking Modular Arithmetic with Small Transformers", "An Old Style Identifier"]
    first = recs[0]
    assert first.abstract.startswith("We study grokking in small transformers trained on modular arithmetic and show that")
    assert "$O(\\sqrt{n})$ steps & more." in first.abstract
    assert (first.authors, first.external_id, first.url) == (["Ann Lee", "Bob Ray"], "2401.01234v2",
                                                             "https://arxiv.org/abs/2401.01234v2")
    assert (first.venue, first.year) == ("arXiv", "2024") and recs[1].external_id == "hep-ph/0701001v1"
    assert (first.keywords, recs[1].keywords) == (["cs.LG", "stat.ML"], [])
    assert recs.no_abstract == ["2401.09999v1"]


def test_arxiv_metadata_snapshot_lines(tmp_path):
    """A line of Kaggle's arxiv-metadata-oai-snapshot.json, as it is."""
    line = {"id": "0704.0001", "submitter": "Pavel Nadolsky",
            "authors": "C. Bal\\'azs, E. L. Berger, P. M. Nadolsky, C.-P. Yuan",
            "title": "Calculation of prompt diphoton production cross sections at Tevatron and\n  LHC energies",
            "journal-ref": "Phys.Rev.D76:013009,2007", "categories": "hep-ph hep-ex",
            "abstract": "  A fully differential calculation in perturbative quantum chromodynamics is\npresented for the "
                        "production of massive photon pairs at hadron colliders.\n",
            "versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"}],
            "update_date": "2008-11-13",
            "authors_parsed": [["Balázs", "C.", ""], ["Berger", "E. L.", ""], ["Nadolsky", "P. M.", ""], ["Yuan", "C. -P.", ""]]}
    rec, = parse_file(write(tmp_path, "arxiv-metadata-oai-snapshot.json", json.dumps(line) + "\n"))
    assert rec.title == "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"
    assert rec.abstract.startswith("A fully differential calculation in perturbative quantum chromodynamics is presented")
    assert rec.authors == ["C. Balázs", "E. L. Berger", "P. M. Nadolsky", "C. -P. Yuan"]
    assert (rec.url, rec.venue, rec.year, rec.external_id) == ("https://arxiv.org/abs/0704.0001", "arXiv", "2007", "0704.0001")
    assert rec.keywords == ["hep-ph", "hep-ex"]
    # The snapshot is JSON Lines named .json: read as such, errors by line.
    with pytest.raises(InputError, match=r"cut.json, line 2: invalid JSON"):
        parse_file(write(tmp_path, "cut.json", json.dumps(line) + "\n" + json.dumps(line)[:80] + "\n"))


def test_openreview_notes_api_v1_and_v2(tmp_path):
    """Notes as openreview-py dumps them: API v2 wraps each field in {"value": ...}, v1 does not; a
    withdrawn submission without an abstract is named, not fatal."""
    v2 = {"id": "ad5I6No9G1", "forum": "ad5I6No9G1", "pdate": 1705000000000,
          "content": {"title": {"value": "Why Do You Grok?"}, "abstract": {"value": ABS1},
                      "authors": {"value": ["Mohamad Amin Mohamadi", "Zhiyuan Li"]},
                      "venue": {"value": "ICLR 2024 poster"}, "keywords": {"value": ["grokking", "Grokking", " memorization "]},
                      "primary_area": {"value": "learning theory, optimization"}}}
    v1 = {"id": "xyz", "forum": "xyz", "cdate": 1650000000000,
          "content": {"title": "Old API", "abstract": ABS2, "authors": ["Ann Lee"], "venue": "TMLR"}}
    gone = {"id": "w1", "content": {"title": {"value": "Withdrawn"}, "venue": {"value": "Withdrawn Submission"}}}
    recs = parse_file(write(tmp_path, "notes.json", json.dumps([v2, v1, gone])))
    assert [(r.title, r.abstract, r.authors) for r in recs] == [
        ("Why Do You Grok?", ABS1, ["Mohamad Amin Mohamadi", "Zhiyuan Li"]), ("Old API", ABS2, ["Ann Lee"])]
    assert (recs[0].venue, recs[0].year, recs[0].url) == ("ICLR", "2024", "https://openreview.net/forum?id=ad5I6No9G1")
    assert (recs[1].venue, recs[1].year, recs[1].external_id) == ("TMLR", "2022", "xyz")
    assert (recs[0].keywords, recs[1].keywords) == (["grokking", "memorization"], [])
    assert (recs[0].area, recs[1].area) == ("learning theory, optimization", "")
    assert recs.no_abstract == ["w1"]
    odd = {"id": "t", "cdate": 1e300, "content": {"abstract": ABS1}}  # a timestamp past any calendar
    assert parse_file(write(tmp_path, "odd.json", json.dumps([odd])))[0].year == ""
    lines = parse_file(write(tmp_path, "notes.jsonl", "\n".join(json.dumps(n) for n in (v2, gone))))
    assert len(lines) == 1 and lines.no_abstract == ["w1"]


def test_huge_paragraph_is_refused_with_location(tmp_path):
    p = write(tmp_path, "big.txt", "Header\n\n" + ABS1 + "\n\n" + "word " * 30_000)
    with pytest.raises(InputError, match=r"big.txt, line 5 \(paragraph 2\)"):
        parse_file(p)


def test_expand_paths_folders_and_symlink_loops(tmp_path):
    d = tmp_path / "dumps"
    (d / "sub").mkdir(parents=True)
    write(d, "a.txt", ABS1)
    write(d / "sub", "b.txt", ABS2)
    (d / "sub" / "loop").symlink_to(d, target_is_directory=True)
    files = expand_paths([d])
    assert [f.name for f in files] == ["a.txt", "b.txt"]
    with pytest.raises(InputError, match="no such file"):
        expand_paths([tmp_path / "missing.txt"])


def test_the_size_gate_names_the_line_and_lets_normal_files_through(tmp_path):
    from store.errors import InputError
    from store.ingest.sizegate import refuse_early
    ok = tmp_path / "ok.txt"
    ok.write_text(("An abstract of ordinary length about graphs. " * 50 + "\n\n") * 40)
    refuse_early(ok, ".txt", 100_000)
    long_line = tmp_path / "long.jsonl"
    long_line.write_text('{"abstract": "fine"}\n' + '{"abstract": "' + "x" * 1_300_000 + '"}\n')
    with pytest.raises(InputError, match=r"long.jsonl, line 2: an abstract is at most 100,000 characters, and the record starting here is far longer"):
        refuse_early(long_line, ".jsonl", 100_000)
    wrapped = tmp_path / "wrapped.txt"  # hard-wrapped: many short lines make one long paragraph
    wrapped.write_text("header\n\n" + "short line of words\n" * 12_000)
    with pytest.raises(InputError, match=r"wrapped.txt, line 3: an abstract is at most 100,000 characters, and the paragraph starting here"):
        refuse_early(wrapped, ".txt", 100_000)
    bib = tmp_path / "refs.txt"  # BibTeX in a .txt: entries, not paragraphs; the parser judges them
    bib.write_text("@misc{a,\n abstract = {" + "y " * 150_000 + "}\n}\n")
    refuse_early(bib, ".txt", 100_000)


def test_a_bibtex_entry_the_parser_cannot_read_is_named_by_its_line(tmp_path):
    from store.errors import InputError
    from store.ingest.parse import parse_file
    bad = tmp_path / "bad.bib"
    bad.write_text("@misc{good,\n  title = {A},\n  abstract = {An abstract long enough to count as one here.}\n}\n\n"
                   "@misc{bad title = {x} abstract = {y}}\n")
    with pytest.raises(InputError, match=r"bad.bib, line 6: invalid BibTeX entry"):
        parse_file(bad)


def test_bibtex_string_macros_are_resolved_in_concatenations(tmp_path):
    from store.ingest.parse import parse_file
    src = tmp_path / "s.bib"
    src.write_text('@string{a = "Deep"}\n@string{c = {Shallow Nets}}\n'
                   '@article{k1,\n  title = a # " and " # c,\n  journal = a,\n'
                   '  abstract = {We compare deep and shallow networks on many tasks and find that depth helps.},\n}\n')
    rec = list(parse_file(src))[0]
    assert rec.title == "Deep and Shallow Nets" and rec.venue in ("Deep", "")


_LONG = "word " * 100_001
MAPPED_CASES = {
    "header and crlf": "\ufeffICML 2024 Papers\r\n\r\n" + ABS1 + "\r\n\r\n" + ABS2 + "\r\n",
    "lone cr": "Top abstracts\r\r" + ABS1.replace(". ", ".\r") + "\r\r\r" + ABS2,
    "one short header only": "ICML 2024\n",
    "header-like line then one abstract": "Short line here\n\n" + ABS1,
    "one abstract, no header": ABS1 + "\n",
    "nbsp blank lines and wrapping": ABS1.replace(" It", "\n  It") + "\n\u00a0 \n" + ABS2 + "\n\t\n",
    "short paragraphs": "too short\n\n" + ABS1 + "\n\nalso short\n",
    "only short": "a b c\n\nd e f\n",
    "wide characters": ABS1 + " — naïve ∑\n\n" + ABS2,
    "too long": ABS1 + "\n\n" + _LONG + "\n",
    "two boms": "\ufeff\ufeff" + ABS1,
}


@pytest.mark.parametrize("case", sorted(MAPPED_CASES))
def test_a_big_dump_read_through_a_mapping_reads_as_its_text_does(tmp_path, monkeypatch, case):
    """A dump over parse.MAP_DUMPS_FROM is decoded a line at a time from a mapping of its bytes: the
    same records (abstracts, positions, header's venue, lines of short paragraphs) and the same errors."""
    from store.ingest import parse

    path = write(tmp_path, "dump.txt", MAPPED_CASES[case])

    def outcome() -> object:
        try:
            recs = parse_file(path)
        except InputError as exc:
            return str(exc)
        return [vars(r) for r in recs], getattr(recs, "skipped", 0), getattr(recs, "first_skipped_line", None)

    whole = outcome()
    monkeypatch.setattr(parse, "MAP_DUMPS_FROM", 1)
    mapped = outcome()
    assert mapped == whole
    monkeypatch.setattr(parse, "read_text", None)  # (the mapped read is the one taken: no whole text)
    assert outcome() == whole


@pytest.mark.parametrize("content, said", [
    (ABS1.encode() + b"\n\nbad \xff byte here and more words to pass\n", "not valid UTF-8: byte 0xff at byte offset"),
    (ABS1.encode() + b"\x00", "binary data (NUL byte at byte offset"),
])
def test_a_mapped_dump_s_bad_bytes_are_named_with_offset_and_line(tmp_path, monkeypatch, content, said):
    from store.ingest import parse

    path = write(tmp_path, "dump.txt", content)
    with pytest.raises(InputError) as whole:
        parse_file(path)
    monkeypatch.setattr(parse, "MAP_DUMPS_FROM", 1)
    with pytest.raises(InputError) as mapped:
        parse_file(path)
    assert said in str(mapped.value) and str(mapped.value) == str(whole.value)


def test_a_big_utf16_dump_or_json_file_is_decoded_whole(tmp_path, monkeypatch):
    """Only UTF-8 dumps are mapped: a UTF-16 file (its BOM) and a structured file are read as before."""
    from store.ingest import parse

    monkeypatch.setattr(parse, "MAP_DUMPS_FROM", 1)
    utf16 = write(tmp_path, "w.txt", ("\ufeff" + ABS1 + "\n\n" + ABS2).encode("utf-16-le"))
    assert [r.abstract for r in parse_file(utf16)] == [ABS1, ABS2]
    bib = write(tmp_path, "refs.txt", "@article{k,\n  title={T},\n  abstract={" + ABS1 + "}\n}\n")
    assert parse_file(bib)[0].title == "T"


def test_import_problem_says_at_once_what_the_import_would_refuse_without_a_parse(tmp_path):
    """What the app's import dialog says where the path was typed: a binary, empty or blank file, a
    folder with nothing to import, a library folder, a missing path; a dump (UTF-8 or UTF-16 with
    its BOM, NULs and all) and a folder of dumps pass (a parse finds the rest)."""
    from store import Library
    from store.ingest.parse import import_problem

    binary = write(tmp_path, "paper.pdf.txt", b"%PDF-1.7\x00\x01\x02")
    assert import_problem(binary) == f"{binary}: binary data (NUL byte at byte offset 8); expected a text file"
    assert import_problem(write(tmp_path, "empty.txt", b"")).endswith("no abstracts found (the file is empty)")
    assert import_problem(write(tmp_path, "blank.txt", "  \n\n")).endswith("(the file holds only whitespace)")
    (tmp_path / "pics").mkdir()
    write(tmp_path / "pics", "a.png", b"\x89PNG")
    assert "folder holds no importable files" in import_problem(tmp_path / "pics")
    Library.open(tmp_path / "lib")
    assert "is a papersift library folder" in import_problem(tmp_path / "lib")
    assert import_problem(tmp_path / "nowhere.txt").endswith("no such file or folder")
    (tmp_path / "dumps").mkdir()
    dump = write(tmp_path / "dumps", "day1.txt", f"D\n\n{ABS1}\n")
    wide = write(tmp_path, "wide.txt", f"D\n\n{ABS2}\n".encode("utf-16"))
    assert import_problem(dump) is None and import_problem(tmp_path / "dumps") is None
    assert import_problem(wide) is None and parse_file(wide)
