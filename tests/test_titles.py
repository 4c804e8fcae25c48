"""Derived titles: named methods first, then a trimmed first clause; real titles win."""

from store import Library
from store.titles import derive_title

from .conftest import DATA


def test_named_methods_from_the_seeds(lib):
    titles = {p.title.split(":")[0] for p in lib.corpus}
    for name in ("VIPBench", "EverAnimate", "UniCon3R", "HuPER"):
        assert name in titles
    assert all(p.derived_title for p in lib.corpus)


def test_forms_of_introduction():
    assert derive_title("In this work we propose **EverAnimate**, an efficient post-training method for video.").startswith("EverAnimate: an efficient post-training method")
    assert derive_title("We introduce $\\textbf{UniCon3R}$, a unified feed-forward framework.").startswith("UniCon3R")
    assert derive_title("We introduce the Voice Identity Perception benchmark (VIPBench), built from judgments.").startswith("VIPBench: Voice Identity Perception benchmark")
    t = derive_title("Reinforcement learning from human feedback is widely used, but it is costly. We study why.")
    assert t == "Reinforcement learning from human feedback is widely used"


def test_title_is_never_empty():
    assert derive_title("$$") and derive_title("**")


def test_real_title_wins_even_when_it_arrives_later(tmp_path):
    import json
    rec = json.loads((DATA / "icml_slice.jsonl").read_text().splitlines()[0])
    (tmp_path / "a.txt").write_text(rec["abstract"])
    lib = Library(tmp_path / "lib")
    lib.import_paths([tmp_path / "a.txt"])
    assert lib.corpus.papers[0].derived_title
    (tmp_path / "b.jsonl").write_text(json.dumps({"abstract": rec["abstract"], "title": rec["title"], "authors": rec["authors"]}))
    lib.import_paths([tmp_path / "b.jsonl"])
    p = lib.corpus.papers[0]
    assert p.title == rec["title"] and not p.derived_title and p.authors == rec["authors"]


def test_lookahead_prechecks_keep_every_match():
    """_WRAPPED and _INTRO start with a lookahead (a cheap first-character check, for speed);
    without it they must find exactly the same matches, so no form starts with another character."""
    import json
    import re
    from pathlib import Path

    from store import titles

    data = Path(__file__).resolve().parent / "data"
    texts = [json.loads(line)["abstract"] for name in ("icml_slice.jsonl", "iclr_slice.jsonl")
             for line in (data / name).read_text().splitlines() if line.strip()]
    texts += ["We propose **Zorb-Net**, a net.", r"Here we introduce $\textbf{Q}$, then \emph{K2}.",
              "this work presents *HiMo* and in this paper, we develop XNet."]
    for rx in (titles._WRAPPED, titles._INTRO):
        assert rx.pattern.startswith("(?=[")
        plain = re.compile(rx.pattern[rx.pattern.index("]") + 2:])
        spans = [[(m.span(), m.groups()) for m in rx.finditer(t)] for t in texts]
        assert spans == [[(m.span(), m.groups()) for m in plain.finditer(t)] for t in texts]
        assert any(spans)
