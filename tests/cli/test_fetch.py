"""`papersift fetch arxiv` against a local HTTP server serving recorded feeds (never the network):
paging, a 503 with Retry-After, a cut-off body, a malformed entry, no server at all; and the same
flow offline: three recorded days imported in order, RSS and OAI-PMH files alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..arxiv_server import DAYS, Recorded, day
from ..conftest import free_port


@pytest.fixture
def api():
    servers: list[Recorded] = []

    def make(script):
        servers.append(Recorded(script))
        return servers[-1]
    yield make
    for s in servers:
        s.close()


def fetch(run_cli, library: Path, url: str, *extra: str, check: bool = True):
    return run_cli("fetch", "arxiv", "cs.LG", "cs.RO", "--since", "2024-11-01", "--api", url, "--delay", "0",
                   "--format", "json", *extra, library=library, check=check)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_fetch_imports_a_batch_and_keeps_the_feed(run_cli, api, tmp_path):
    server = api([(200, {}, day(1))])
    out = json.loads(fetch(run_cli, tmp_path / "lib", server.url).stdout)
    assert (out["new"], out["batch"], out["fetched"]) == (12, 1, 12)
    asked = server.requests[0]
    assert asked["search_query"] == ["cat:cs.LG OR cat:cs.RO"] and asked["sortBy"] == ["submittedDate"]
    assert server.agents[0].startswith("papersift/")
    assert Path(out["saved"]).parent.name == "fetched" and Path(out["saved"]).stat().st_mode & 0o077 == 0
    listed = json.loads(run_cli("list", "--query", "new:", "--format", "json", library=tmp_path / "lib").stdout)
    assert len(listed) == 12


@pytest.mark.slow
def test_a_503_is_waited_out_and_a_cut_body_tried_again(run_cli, api, tmp_path):
    server = api([(503, {"Retry-After": "1"}, b"busy"), (200, {"X-Claimed-Length": "999999"}, day(1)[:4000]),
                  (200, {}, day(1))])
    out = json.loads(fetch(run_cli, tmp_path / "lib", server.url).stdout)
    assert out["new"] == 12 and out["requests"] == 3 and len(server.requests) == 3


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_pages_until_an_older_entry(run_cli, api, tmp_path):
    # A page of exactly the page size asks for the next; an entry from before --since ends it.
    server = api([(200, {}, day(2)), (200, {}, day(2)), (200, {}, day(1))])
    out = json.loads(fetch(run_cli, tmp_path / "lib", server.url, "--limit", "14").stdout)
    assert out["fetched"] == 14 and len(server.requests) == 1  # the limit: one page of 14
    since = ("--since", "2024-12-02", "--api", server.url, "--delay", "0", "--format", "json")
    out = json.loads(run_cli("fetch", "arxiv", "cs.LG", *since, library=tmp_path / "lib2").stdout)
    assert out["fetched"] == 12  # day 2's last two entries were published on 2024-12-01: before --since
    out = json.loads(run_cli("fetch", "arxiv", "cs.LG", *since, library=tmp_path / "lib2").stdout)
    assert out == {"fetched": 0, "requests": 1, "new": 0, "batch": 0, "papers": 12}  # nothing since: unchanged


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_malformed_entry_is_passed_over_and_said(run_cli, api, tmp_path):
    broken = day(1).replace(b"<summary>", b"<nosummary>", 1).replace(b"</summary>", b"</nosummary>", 1)
    server = api([(200, {}, broken)])
    proc = run_cli("fetch", "arxiv", "cs.LG", "--since", "2024-11-01", "--api", server.url, "--delay", "0",
                   library=tmp_path / "lib")
    assert "11 new" in proc.stdout and "without an abstract" in proc.stdout


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_no_server_fails_in_one_line_and_changes_nothing(run_cli, tmp_path):
    lib = tmp_path / "lib"
    run_cli("import", str(DAYS[0]), library=lib)
    before = (lib / "corpus.jsonl").read_bytes()
    proc = fetch(run_cli, lib, f"http://127.0.0.1:{free_port()}/api/query", check=False)
    assert proc.returncode == 1 and "cannot reach arXiv" in proc.stderr and "nothing was imported" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and (lib / "corpus.jsonl").read_bytes() == before


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_an_error_that_lasts_gives_up_and_changes_nothing(run_cli, api, tmp_path):
    server = api([(503, {"Retry-After": "0"}, b"busy")] * 5)
    proc = fetch(run_cli, tmp_path / "lib", server.url, check=False)
    assert proc.returncode == 1 and "kept failing" in proc.stderr and not (tmp_path / "lib" / "corpus.jsonl").exists()
    assert len(server.requests) == 5


def test_bad_categories_and_dates_are_refused(run_cli, tmp_path):
    proc = run_cli("fetch", "arxiv", "cs LG", library=tmp_path / "lib", check=False)
    assert proc.returncode == 1 and "not an arXiv category" in proc.stderr
    proc = run_cli("fetch", "arxiv", "cs.LG", "--since", "yesterday", library=tmp_path / "lib", check=False)
    assert proc.returncode == 1 and "--since 'yesterday'" in proc.stderr
    # Names arXiv answers with nothing (no error): an archive of no one's, one without its subject,
    # a subject in the wrong case. Each said before arXiv is asked anything.
    for typed, said in (("foo.BAR", "'foo' is no archive of arXiv's"), ("cs", "such as cs.LG"),
                        ("cs.lg", "two capitals, as cs.LG"), ("hep-th.XX", "a category alone")):
        proc = run_cli("fetch", "arxiv", "cs.RO", typed, "--api", "http://127.0.0.1:9/none", library=tmp_path / "lib",
                       check=False)
        assert proc.returncode == 1 and said in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "lib" / "fetched").exists()


@pytest.mark.parametrize("category", ["cs.LG", "stat.ML", "astro-ph", "astro-ph.GA", "hep-th", "cond-mat.str-el",
                                      "physics.optics", "q-bio.NC", "eess.SP", "quant-ph", "math-ph"])
def test_every_kind_of_arxiv_category_is_taken(category):
    from store.ingest.arxiv_names import check_categories
    assert check_categories([category]) == [category]


RSS = """<?xml version='1.0' encoding='UTF-8'?>
<rss xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns:dc="http://purl.org/dc/elements/1.1/" version="2.0">
<channel><title>cs.LG updates on arXiv.org</title>
{items}
</channel></rss>
"""
ITEM = """<item><title>{title}</title><link>https://arxiv.org/abs/{aid}</link>
<description>arXiv:{aid}v{v} Announce Type: {kind}
Abstract: {abstract}</description><category>cs.LG</category>
<arxiv:announce_type>{kind}</arxiv:announce_type><dc:creator>Ann Lee, Bob Ray</dc:creator></item>"""

OAI = """<?xml version="1.0" encoding="UTF-8"?>
<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>
<record><header><identifier>oai:arXiv.org:{aid}</identifier></header><metadata>
<arXiv xmlns="http://arxiv.org/OAI/arXiv/"><id>{aid}</id><created>2024-12-03</created>
<authors><author><keyname>Lee</keyname><forenames>Ann</forenames></author></authors>
<title>{title}</title><categories>cs.LG cs.RO</categories><abstract>{abstract}</abstract></arXiv>
</metadata></record>
<record><header status="deleted"><identifier>oai:arXiv.org:2412.99999</identifier></header></record>
</ListRecords></OAI-PMH>
"""


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_rss_and_oai_files_import_offline_alike(run_cli, tmp_path):
    lib = tmp_path / "lib"
    run_cli("import", str(DAYS[0]), library=lib)
    papers = json.loads(run_cli("list", "--format", "json", library=lib).stdout)
    first = run_cli("show", papers[0]["id"], "--format", "json", library=lib).stdout
    shown = json.loads(first)
    aid = shown["external_id"].split("v")[0]
    text = shown["abstract"] + " This version fixes a proof."
    items = [ITEM.format(title="A replaced paper", aid=aid, v=2, kind="replace", abstract=text),
             ITEM.format(title="A cross-listed paper", aid=json.loads(run_cli("show", papers[1]["id"], "--format",
                         "json", library=lib).stdout)["external_id"].split("v")[0], v=1, kind="cross",
                         abstract="A cross-list carries the same paper again, so it is nothing new here at all."),
             ITEM.format(title="Walking in minutes", aid="2412.20001", v=1, kind="new",
                         abstract="We train a quadruped to walk in minutes with parallel simulation and transfer.")]
    rss = tmp_path / "listing.xml"
    rss.write_text(RSS.format(items="\n".join(items)))
    out = json.loads(run_cli("import", str(rss), "--format", "json", library=lib).stdout)
    assert (out["new"], out["revised"], out["batch"]) == (1, 1, 2)
    assert json.loads(run_cli("show", papers[0]["id"], "--format", "json", library=lib).stdout)["abstract"] == text
    oai = tmp_path / "harvest.xml"
    oai.write_text(OAI.format(aid="2412.30003", title="Harvested", abstract="An OAI-PMH record of arXiv's own "
                              "metadata format: its abstract, its authors and its categories, read as a paper."))
    out = json.loads(run_cli("import", str(oai), "--format", "json", library=lib).stdout)
    assert (out["new"], out["batch"]) == (1, 3)
    found = json.loads(run_cli("list", "--query", "new:", "--format", "json", library=lib).stdout)
    assert [r["title"] for r in found] == ["Harvested"]


def test_retry_after_is_read_in_every_form_and_every_wait_capped_and_said():
    # (the hostile-server tests drive this through the CLI; here each form, and the cap on each path)
    from datetime import datetime, timedelta, timezone
    from email.utils import format_datetime

    from store.ingest import arxiv_fetch as af
    soon = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=90), usegmt=True)
    assert af._retry_after("7") == 7 and af._retry_after(" 0 ") == 0 and af._retry_after("9" * 400) == 10**12
    assert 80 < af._retry_after(soon) <= 90
    assert af._retry_after("Sun, 06 Nov 2099 08:49:37 -0000") > 10**9  # (a naive date: UTC, as the RFC says)
    assert af._retry_after("Sun, 06 Nov 1994 08:49:37 GMT") == 0
    for garbage in (None, "", "soon", "-5", "1.5", "1e9", "nan", "٣", "Sun, 99 Zzz 2099"):
        assert af._retry_after(garbage) is None, garbage
    for asked in ("999999", "9" * 400, "Wed, 21 Oct 2099 07:28:00 GMT", "soon", None):
        said: list[str] = []
        slept: list[float] = []
        session = af._Session(af.API, ("https", "export.arxiv.org", 443), 3.0, slept.append, said.append, 90.0,
                              float("inf"), 900.0, lambda: 0.0)
        session.wait(256.0, "HTTP 503", asked, 2)  # (a long backoff: the one waited when Retry-After is not read)
        assert slept == [af.MAX_WAIT]
        assert len(said) == 1 and f"waiting {af.MAX_WAIT:.0f} s" in said[0]
    with pytest.raises(af.FetchError, match="the fetch's 900 s are up"):  # a wait past the fetch's deadline
        af._Session(af.API, ("https", "export.arxiv.org", 443), 3.0, slept.append, said.append, 90.0, 60.0, 900.0,
                    lambda: 0.0).wait(1.0, "HTTP 503", "100", 2)
