"""More like this, recommendations and topics: store, CLI and app."""

from __future__ import annotations

import json
import os

import numpy as np

from store import Library
from tui.app import make_app

from .conftest import recording, wait_workers, DATA


def iclr_library(tmp_path) -> tuple[Library, list[str]]:
    """The ICLR slice without its keywords and areas (papersift indexes keywords; the area is the
    answer the tests grade against)."""
    lib = Library(tmp_path / "iclr")
    bare = tmp_path / "iclr_slice.jsonl"
    bare.write_text("".join(json.dumps({k: v for k, v in json.loads(line).items() if k not in ("keywords", "primary_area")})
                            + "\n" for line in (DATA / "iclr_slice.jsonl").read_text().splitlines()))
    lib.import_paths([bare])
    areas = {json.loads(l)["abstract"].strip(): json.loads(l)["primary_area"]
             for l in (DATA / "iclr_slice.jsonl").read_text().splitlines()}
    return lib, [areas[p.abstract.strip()] for p in lib.corpus]


def test_similar_papers_share_the_area_far_above_chance(tmp_path):
    lib, areas = iclr_library(tmp_path)
    lab = np.array(areas)
    hits = []
    for i in range(len(lib)):
        top = lib.similarity.similar(i, 5)
        assert i not in [j for j, _ in top] and len(top) == 5
        hits += [lab[j] == lab[i] for j, _ in top]
    chance = sum((lab == a).mean() ** 2 for a in set(areas))
    # a 200-paper slice: far less signal than the full set (0.437 there, see docs/quality.md)
    assert np.mean(hits) > 2 * chance, (np.mean(hits), chance)


def test_recommend_learns_a_tag_and_explains(tmp_path):
    lib, areas = iclr_library(tmp_path)
    area = max(set(areas), key=areas.count)
    idx = [i for i, a in enumerate(areas) if a == area]
    lib.add_tags([lib.corpus.papers[i].id for i in idx[: len(idx) // 2]], ["mine"])
    recs = lib.recommend("mine", limit=10)
    held = {lib.corpus.papers[i].id for i in idx[len(idx) // 2:]}
    assert sum(p.id in held for p, _, _ in recs) >= 4  # the area is ~15% of the slice
    assert all(terms for _, _, terms in recs)
    from store.similar import LABEL_STOP
    assert not any(t in LABEL_STOP for _, _, terms in recs for t in terms)  # "because: them" explains nothing
    assert not any("mine" in lib.annotation(p.id).tags for p, _, _ in recs)


def test_topics_cover_the_library_with_labels(tmp_path):
    lib, _ = iclr_library(tmp_path)
    labels, names = lib.topics(k=8)
    assert len(labels) == len(lib) and set(np.unique(labels)) == set(names)
    assert all(" · " in n for n in names.values())
    t = int(labels[0])
    assert len(lib.search(f"topic:{t}")) == int((labels == t).sum())
    assert lib.search(f"topic:{t}").errors == []
    missing = lib.search("topic:99")  # a topic that is not there: said, not just an empty list
    assert len(missing) == 0 and missing.errors == ["no topic 99 here: topics run 0-7 (b in the app, "
                                                    "or `papersift topics`, lists them)"]
    ids = [p.id for p in lib.corpus]
    lib.set_status([ids[0], ids[1]], "read")
    lib.set_status([ids[2]], "unread")
    rows = lib.topic_summary()
    assert sum(r["papers"] for r in rows) == len(lib) and sum(r["triaged"] for r in rows) == 2
    assert [r["papers"] for r in rows] == sorted((r["papers"] for r in rows), reverse=True)
    by_topic = {r["topic"]: r for r in rows}
    assert by_topic[t]["triaged"] >= 1 and by_topic[t]["label"] == names[t]


def test_topics_asked_for_by_several_workers_are_built_once(tmp_path, monkeypatch):
    """The topic browser, the dashboard and a topic: search each ask from a worker of their own
    (`b`, Esc, `b` starts a second browser while the first one's worker runs on): one k-means runs,
    and every asker gets its topics. The first run is slowed, so the others ask while it runs."""
    import threading
    import store.similar as S
    lib, _ = iclr_library(tmp_path)
    lib.similarity  # the model is not what this measures
    runs = []
    monkeypatch.setattr(S, "kmeans", recording(S.kmeans, runs, first_delay=0.2))
    summaries, found = [], []
    askers = [threading.Thread(target=lambda: summaries.append(lib.topic_summary())) for _ in range(3)]
    askers.append(threading.Thread(target=lambda: found.append(len(lib.search("topic:0")))))
    for t in askers:
        t.start()
    for t in askers:
        t.join()
    assert len(runs) == 1 and len(summaries) == 3 and len(found) == 1
    assert summaries[0] == summaries[1] == summaries[2] and sum(r["papers"] for r in summaries[0]) == len(lib)
    assert found[0] == next(r["papers"] for r in summaries[0] if r["topic"] == 0)
    assert lib.topics(k=3)[1].keys() == {0, 1, 2} and len(runs) == 2  # a number asked for: run again


def test_topic_labels_are_phrases_as_the_papers_write_them(tmp_path):
    """Labels were loose index terms: "graph · graphs", "context · incontext", "trade · tradeoff",
    "language · llms · llm" on these slices. Each part of a label is now written so in an abstract,
    and no part repeats another's words."""
    from store.phrases import fold
    for name in ("iclr_slice.jsonl", "icml_slice.jsonl"):
        lib = Library(tmp_path / name)
        lib.import_paths([DATA / name])
        raw = " ".join(p.abstract.lower() for p in lib.corpus)
        for k in (None, 8):
            parts = [label.split(" · ") for label in lib.topics(k)[1].values()]
            for label in parts:
                assert len(label) == 3 and all(part.lower() in raw for part in label), label
                words = [{fold(w) for w in part.lower().replace("-", " ").split()} for part in label]
                joined = [part.lower().replace("-", "").replace(" ", "") for part in label]
                for i in range(3):
                    for j in range(i + 1, 3):
                        assert not (words[i] <= words[j] or words[j] <= words[i]), label
                        assert fold(joined[i]) != fold(joined[j]), label
            assert any(" " in part for label in parts for part in label)  # "reinforcement learning"


def test_topic_label_phrases_from_the_text():
    """How a term grows into its phrase, and which phrases say the same."""
    from store.phrases import Sample, label
    from store.similar import LABEL_STOP
    texts = ["Markov chain Monte Carlo is slow. We use Monte Carlo dropout with large language models (LLMs).",
             "Sequential Monte Carlo for large language models (LLMs) and fine-tuning them.",
             "Monte Carlo estimates. Fine-tuning of large language models (LLMs) for multi-task work.",
             "Large language models (LLMs) need fine tuning; multi-agent and multi-modal play.",
             "Graphs and graph data. fine-tuning, multi-view. A human-like agent, poly-log regret."]
    sample = Sample(texts)
    assert sample.phrase("carlo", LABEL_STOP)[0] == "Monte Carlo"          # capitals most write
    assert sample.phrase("language", LABEL_STOP)[0] == "large language models"  # not "Large", not "… LLMs"
    assert sample.phrase("tuning", LABEL_STOP)[0] == "fine-tuning"          # as most write it
    assert sample.phrase("finetuning", LABEL_STOP)[0] == "fine-tuning"      # the index's joined form
    assert sample.phrase("multi", LABEL_STOP)[0] == "multi"                 # no one word holds it
    assert sample.phrase("epsilon", LABEL_STOP)[0] == "epsilon"             # not in the text
    assert sample.phrase("humanlike", LABEL_STOP)[0] == "human-like"        # as written, if only once
    assert sample.phrase("log", LABEL_STOP)[0] == "log"                     # one "poly-log" is too little
    assert label(sample, ["monte", "carlo", "llms", "language", "graph", "graphs", "finetuning", "tuning", "multi"],
                 LABEL_STOP) == ["Monte Carlo", "LLMs", "graph"]
    assert label(sample, ["language", "llms", "tuning", "graphs"], LABEL_STOP) == [
        "large language models", "fine-tuning", "graphs"]


def test_similar_and_recommend_queries(lib):
    pid = lib.corpus.papers[0].id
    r = lib.search(f"similar:{pid}")
    assert len(r) == 34 and lib.corpus.papers[int(r.indices[0])].id != pid
    assert lib.search("rec:stars").errors  # nothing starred yet: a clear message
    lib.set_star([pid], 3)
    assert len(lib.search("rec:stars")) == 34


def test_cli_similar_recommend_topics(run_cli):
    papers = json.loads(run_cli("list", "--format", "json").stdout)
    pid = papers[0]["id"]
    sims = json.loads(run_cli("similar", pid, "--limit", "3", "--format", "json").stdout)
    assert len(sims) == 3 and all(s["id"] != pid for s in sims)
    run_cli("star", pid, "2")
    recs = json.loads(run_cli("recommend", "--limit", "5", "--format", "json").stdout)
    assert len(recs) == 5 and all(r["because"] for r in recs)
    proc = run_cli("recommend", "--tag", "nothing", check=False)
    assert proc.returncode == 1 and "nothing to learn from" in proc.stderr
    topics = json.loads(run_cli("topics", "--k", "4", "--format", "json").stdout)
    assert sum(t["papers"] for t in topics) == 35


async def test_more_like_this_key_and_reader_panel(lib, tmp_path):
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        await wait_workers(app)
        await pilot.pause()
        reader = app.main_screen.query_one("#reader")
        panel = reader.query_one("#reader-similar")
        assert "More like this" in str(panel.render())
        titles = str(panel.render()).count("  · ")
        assert titles >= 3 and panel.size.height == 1 + titles + 1  # one line per title (and the last newline)
        await pilot.press("m")
        await wait_workers(app)
        await pilot.pause()
        assert app.main_screen.query_one("#search").value == f"similar:{lib.corpus.papers[0].id}"
        assert app.main_screen.results.border_title.startswith("34 / 35")
        await pilot.press("escape")
        await wait_workers(app)
        await pilot.pause()
        assert app.main_screen.results.border_title.startswith("35 / 35")


async def test_a_lookup_finishing_as_the_reader_goes_does_not_crash_the_app(lib, tmp_path):
    """The reader's "more like this" is computed in a worker. One that finished as the app closed
    (the reader already removed) looked the reader up itself and failed, and a failed worker takes
    the app down with a traceback (seen once in CI, on quitting). The answer is now shown from
    the UI thread, and only where a reader is."""
    import threading
    from tui.widgets.reader import Reader
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    async with app.run_test(size=(160, 45)) as pilot:
        await wait_workers(app, pilot)
        sim, go = lib.similarity, threading.Event()
        real = sim.similar
        sim.similar = lambda *args: go.wait(5) and real(*args)
        app.main_screen.show_similar(1)
        await app.main_screen.query_one(Reader).remove()
        go.set()
        await wait_workers(app, pilot)
        assert app.is_running and app._exception is None


async def test_dashboard_shows_progress_and_counts(lib, tmp_path):
    ids = [p.id for p in lib.corpus]
    lib.set_status(ids[:4], "read")
    lib.set_star(ids[:2], 2)
    lib.add_tags(ids[:3], ["agents"])
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    async with app.run_test(size=(140, 50)) as pilot:
        await pilot.press("d")
        await pilot.pause()
        from tui.screens.dashboard import DashboardScreen
        assert isinstance(app.screen, DashboardScreen)
        await wait_workers(app, pilot)  # the topics come from a worker (they need the model)
        await pilot.pause()
        svg = app.export_screenshot().replace("&#160;", " ")
        assert "4 / 35 triaged" in svg and "#agents" in svg and "topic:" in svg
        assert sum(app.screen.query_one("#timeline").data) == 4
        assert not app.screen.query("#by-venue")  # one venue (NeurIPS 2026): nothing to compare
        assert not app.screen.query("#by-area")  # dumps name no area
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.main_screen
        icml = tmp_path / "icml.txt"
        icml.write_text("ICML 2024 Papers\n\nWe study grokking in small transformers trained on modular "
                        "arithmetic and show that weight decay drives the late jump in test accuracy.\n")
        iclr = tmp_path / "iclr.jsonl"
        iclr.write_text(json.dumps({"abstract": "A study of reward shaping for agents that learn from sparse "
                                                "feedback in long tasks.", "primary_area": "reinforcement learning"}) + "\n")
        lib.import_paths([icml, iclr])
        await pilot.press("d")
        await pilot.pause()
        svg = app.export_screenshot().replace("&#160;", " ")
        assert "Venues" in svg and "NeurIPS 2026" in svg and "ICML 2024" in svg
        assert "Areas" in svg and "reinforcement learning" in svg


async def test_dashboard_counts_fit_a_narrow_terminal(lib, tmp_path):
    """At 80 columns the two charts side by side are ~35 cells wide: bars shrink, counts stay whole
    (fixed 30-cell bars cut them to "2,6…" at 100 columns on a 2,610-paper library)."""
    from rich.console import Console

    from tui.screens.dashboard import bars, topic_table
    for width in (30, 44, 100):
        console = Console(width=width, record=True, file=open(os.devnull, "w"))
        console.print(bars([("unread", 2610), ("to-read", 12), ("skipped", 0)], 2622))
        console.print(topic_table([{"topic": 29, "label": "image · images · visual", "papers": 123, "triaged": 40}]))
        shown = console.export_text()
        assert all(n in shown for n in ("2,610", " 12", "123", " 40")), shown
        assert max(len(line) for line in shown.splitlines()) <= width
    console = Console(width=76, record=True, file=open(os.devnull, "w"))  # the dashboard at 80 columns
    long = "partial differential equations · neural operators · neural networks"
    console.print(topic_table([{"topic": 13, "label": long, "papers": 55, "triaged": 3}]))
    shown = console.export_text()
    assert f"topic:13 {long}"[:40] in shown and "55" in shown and "█" * 5 in shown, shown  # phrases get room
    lib.set_status([p.id for p in lib.corpus][:4], "read")
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.press("d")
        await pilot.pause()
        chart = app.screen.query_one("#by-status")
        assert 20 <= chart.size.width <= 40
        console = Console(width=chart.size.width, record=True, file=open(os.devnull, "w"))
        console.print(chart.content)
        shown = console.export_text()
        assert "31" in shown and "4" in shown and "…" not in shown, shown


async def test_topic_browser_shows_labels_at_80_columns(lib, tmp_path):
    """At 80x24 a topic's label, not its bar and counts, gets the room."""
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("b")
        await wait_workers(app, pilot)
        rows = lib.topic_summary()
        lines = app.export_screenshot().replace("&#160;", " ")
        for row in rows[:3]:
            assert " · ".join(row["label"].split(" · ")[:3]) in lines, row["label"]


async def test_topic_browser_filters_the_list_to_a_topic(lib, tmp_path):
    from tui.screens.topics import TopicsScreen
    lib.set_status([lib.corpus.papers[0].id], "read")
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("b")
        await wait_workers(app, pilot)
        assert isinstance(app.screen, TopicsScreen)
        rows = lib.topic_summary()
        options = app.screen.query_one("#topic-list")
        assert options.option_count == len(rows) >= 2
        svg = app.export_screenshot().replace("&#160;", " ")
        assert rows[0]["label"].split(" · ")[0] in svg and "triaged" in svg
        await pilot.press("down", "enter")               # the second-largest topic
        await wait_workers(app, pilot)
        main = app.main_screen
        assert app.screen is main
        assert main.query_one("#search").value == f"topic:{rows[1]['topic']}"
        labels, _ = lib.topics()
        shown = main.results.indices.tolist()
        assert len(shown) == rows[1]["papers"] and all(labels[i] == rows[1]["topic"] for i in shown)
        await pilot.press("b")
        await wait_workers(app, pilot)
        await pilot.press("escape")                      # closing changes nothing
        await pilot.pause()
        assert app.screen is main and main.query_one("#search").value == f"topic:{rows[1]['topic']}"
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    async with app.run_test(size=(60, 24)) as pilot:    # narrow: one line per topic, cut with "…"
        await pilot.press("b")
        await wait_workers(app, pilot)
        await pilot.pause()
        options = app.screen.query_one("#topic-list")
        assert options.virtual_size.height == options.option_count == len(rows)


def test_recommended_sort_puts_similar_papers_first(lib):
    pid = lib.corpus.papers[0].id
    assert lib.search("", sort="recommended").indices.tolist() == list(range(35))  # nothing to learn yet
    lib.set_star([pid], 3)
    order = lib.search("", sort="recommended").indices.tolist()
    assert sorted(order) == list(range(35)) and order[:5] != list(range(5))


def test_the_model_is_cached_on_disk_and_rebuilt_when_the_corpus_changes(tmp_path, monkeypatch):
    from store import similar
    lib, _ = iclr_library(tmp_path)
    pid = lib.corpus.papers[0].id
    expected = [p.id for p, _ in lib.similar(pid, 5)]
    assert lib.similar_path.exists()
    built = []
    original = similar.Similarity.__init__
    monkeypatch.setattr(similar.Similarity, "__init__",
                        lambda self, index, *a, **k: (built.append(index), original(self, index, *a, **k))[1])
    again = Library(lib.folder)
    assert [p.id for p, _ in again.similar(pid, 5)] == expected and [i for i in built if i is not None] == []
    lib.similar_path.write_bytes(b"not an npz")             # damaged: rebuilt, never an error
    assert [p.id for p, _ in Library(lib.folder).similar(pid, 5)] == expected
    assert [i for i in built if i is not None]
    built.clear()
    grown = Library(lib.folder)
    grown.import_paths([DATA.parent.parent / "seeds"])      # a new corpus generation
    assert len(grown.similar(pid, 5)) == 5 and [i for i in built if i is not None]


def test_prepare_builds_the_cache_in_its_own_process(tmp_path):
    import subprocess
    import sys
    lib, _ = iclr_library(tmp_path)
    assert not lib.similar_path.exists()
    proc = subprocess.run([sys.executable, "-m", "store.prepare", str(lib.folder)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert Library(lib.folder).load_similarity_cache()
    assert subprocess.run([sys.executable, "-m", "store.prepare"], capture_output=True).returncode == 2


async def test_a_big_library_gets_its_model_from_the_helper_process(lib, tmp_path, monkeypatch):
    import tui.screens.main as main_mod
    from store import similar
    monkeypatch.setattr(main_mod, "BIG_LIBRARY", 10)
    original = similar.Similarity.__init__

    def not_here(self, index, *a, **k):
        assert index is None, "the model was built in the app's process"
        original(self, index, *a, **k)
    monkeypatch.setattr(similar.Similarity, "__init__", not_here)
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    async with app.run_test(size=(160, 45)) as pilot:
        for _ in range(200):
            await pilot.pause(0.05)
            if lib.similarity_ready:
                break
        assert lib.similarity_ready and lib.similar_path.exists()


def _big_library_counting_models_built_here(monkeypatch) -> list:
    """Treat the seeds as a big library (its model comes from the helper process) and count the
    models built in this process instead: the list returned grows by one per such build."""
    import tui.screens.main as main_mod
    from store import similar
    monkeypatch.setattr(main_mod, "BIG_LIBRARY", 10)
    original = similar.Similarity.__init__
    built_here = []

    def counted(self, index, *a, **k):
        if index is not None:  # built from the index here (None: loaded from the helper's cache)
            built_here.append(1)
        original(self, index, *a, **k)
    monkeypatch.setattr(similar.Similarity, "__init__", counted)
    return built_here


async def _until(pilot, ready, tries: int = 400) -> None:
    """Let the app run until ``ready()`` (at most ``tries`` × 50 ms; the caller asserts after)."""
    for _ in range(tries):
        await pilot.pause(0.05)
        if ready():
            return


async def test_topics_asked_for_at_once_wait_for_the_helpers_model(lib, tmp_path, monkeypatch):
    """`b` before the helper has started or finished: the model is the helper's one build, none is
    built in the app beside it (at 30k papers the two builds made the browser take 20 s)."""
    from tui.screens.topics import TopicsScreen
    built_here = _big_library_counting_models_built_here(monkeypatch)
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("b")                  # at once: the helper's timer has not fired yet
        await _until(pilot, lambda: isinstance(app.screen, TopicsScreen)
                     and app.screen.query_one("#topic-list").option_count)
        assert app.screen.query_one("#topic-list").option_count >= 2
        await wait_workers(app, pilot)
        assert built_here == [] and lib.similar_path.exists()


async def test_the_dashboard_draws_at_once_and_its_topics_when_the_helpers_model_is_ready(lib, tmp_path,
                                                                                           monkeypatch):
    import threading
    import tui.screens.main as main_mod
    from tui.screens.dashboard import DashboardScreen
    built_here = _big_library_counting_models_built_here(monkeypatch)
    go = threading.Event()  # the helper process waits for it: the dashboard is looked at first
    real_run = main_mod.subprocess.run
    monkeypatch.setattr(main_mod.subprocess, "run", lambda *a, **k: go.wait(30) and real_run(*a, **k))
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    async with app.run_test(size=(140, 50)) as pilot:
        await pilot.press("d")                  # at once: no model yet
        for _ in range(200):
            await pilot.pause(0.01)
            if isinstance(app.screen, DashboardScreen) and app.screen.query("#by-topic"):
                break
        assert not lib.similarity_ready  # the dashboard is up while the helper still works
        assert "building the topic map" in str(app.screen.query_one("#by-topic").content)
        go.set()
        await _until(pilot, lambda: "topic:" in app.export_screenshot().replace("&#160;", " "))
        assert "topic:" in app.export_screenshot().replace("&#160;", " ")
        await wait_workers(app, pilot)
        assert built_here == []


async def test_more_like_this_asked_for_at_once_waits_for_the_helpers_model(lib, tmp_path, monkeypatch):
    """`m` (or a typed `similar:`/`topic:` search) before the helper has started: the search waits
    for the helper's one build instead of building a second model in the app beside it."""
    built_here = _big_library_counting_models_built_here(monkeypatch)
    app = make_app(lib, keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("m")                  # at once: the helper's timer has not fired yet
        await _until(pilot, lambda: lib.similarity_ready and app.screen.query_one("#search").value
                     .startswith("similar:"))
        await wait_workers(app, pilot)
        assert app.screen.query_one("#search").value.startswith("similar:")
        assert 1 < len(app.screen.query_one("#results").indices) < len(lib)
        assert built_here == [] and lib.similar_path.exists()
