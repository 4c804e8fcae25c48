"""The main screen's search (tui/controllers/search.py, driven through the main screen): typing, filters, phrases and their
workers, bursts of keys, the history of searches; each keystroke parses its query once."""

from __future__ import annotations

import re
import sys

import pytest
from textual import events

from store import Library
from store.search import query as query_module
from store.search.either import OR_BETWEEN_WORDS, or_not_filters
from rich.style import Style
from rich.text import Text
from tui.app import make_app
from tui.render import highlight_words

from ..conftest import ACRONYM_DUMP, recording, wait_workers
from .driving import cur, screen, settle, type_search


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
@pytest.mark.parametrize("typed", ["tag:x graph", "\"neural net\""])  # inline, and a worker (a phrase)
async def test_one_parse_per_keystroke(lib, tmp_path, monkeypatch, typed):
    monkeypatch.setenv("PAPERSIFT_NO_SYSTEM_CLIPBOARD", "1")
    parsed: list[str] = []
    real = query_module.parse_query

    def counting(text: str, *args, **kwargs):
        parsed.append(text)
        return real(text, *args, **kwargs)
    for module in list(sys.modules.values()):  # every module that imported it by name
        if getattr(module, "parse_query", None) is real:
            monkeypatch.setattr(module, "parse_query", counting)
    app = make_app(lib, keymap_path=tmp_path / "keymap.toml", settings_path=tmp_path / "settings.json")
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        await wait_workers(app)
        await pilot.press("slash")
        for i, char in enumerate(typed):
            parsed.clear()
            await pilot.press("space" if char == " " else char)
            await pilot.pause()
            await wait_workers(app)
            await pilot.pause()
            assert parsed == [typed[:i + 1]], f"after {typed[:i + 1]!r}: parsed {parsed}"
        assert app.main_screen.query_text == typed


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_filters_first_table_is_built_off_the_ui_thread(lib, make, monkeypatch):
    """The first file:, author:, kw: or venue: filter builds a table from every paper (0.6 s at 300k):
    that search runs in a worker; later ones, with the table built, stay inline (quick)."""
    import threading

    from store.library.filters import Filters
    built_in, searched_in = [], []
    real_files, real_venues = Filters._source_files, Filters._venues_and_years

    def files(self):
        built_in.append(("files", threading.current_thread() is threading.main_thread()))
        return real_files(self)

    def venues(self):
        if self._venue_index is None:
            built_in.append(("venues", threading.current_thread() is threading.main_thread()))
        return real_venues(self)

    monkeypatch.setattr(Filters, "_source_files", files)
    monkeypatch.setattr(Filters, "_venues_and_years", venues)
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        real_search = type(app.library.search).find

        def search(self, *a, **k):
            searched_in.append(threading.current_thread() is threading.main_thread())
            return real_search(self, *a, **k)

        monkeypatch.setattr(type(app.library.search), "find", search)
        await pilot.press("slash", *"file:000", "enter")
        await settle(pilot)
        assert built_in == [("files", False)] and screen(app).results.border_title.startswith("19 / 35")
        searched_in.clear()
        await pilot.press("slash", "ctrl+u", *"file:001", "enter")  # the table is there: inline again
        await settle(pilot)
        assert searched_in and all(searched_in) and screen(app).results.border_title.startswith("19 / 35")
        await pilot.press("slash", "ctrl+u", *"venue:neurips", "enter")
        await settle(pilot)
        assert built_in[-1] == ("venues", False) and screen(app).results.border_title.startswith("35 / 35")


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_pasted_ids_list_those_papers(lib, make):
    """Ids copied with I (one per line) and pasted into the search box list exactly those papers."""
    ids = [lib.corpus.papers[i].id for i in (4, 9, 17)]
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.press("slash")
        await pilot.pause()
        screen(app).query_one("#search").post_message(events.Paste("\n".join(ids) + "\n"))
        await settle(pilot)
        results = screen(app).results
        assert screen(app).query_one("#search").value == " ".join(ids)
        assert sorted(lib.corpus.papers[int(i)].id for i in results.indices) == sorted(ids)


async def test_the_selection_stays_in_sight_in_a_long_list_title(lib, make):
    """At 100 columns a list title with weaker matches and a sort was cut before "N selected":
    the selection comes before those notes."""
    app = make(lib)
    async with app.run_test(size=(100, 30)) as pilot:
        results = await type_search(app, pilot, "learning agents tool")
        await pilot.press("enter", "space")
        await settle(pilot)
        title = results.border_title
        assert "· 1 selected · +6 weaker" in title, title


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_select_all_and_a_selection_across_searches(lib, make):
    papers = [p.id for p in lib.corpus]
    lib.marks.add_tags(papers[3:5], ["alpha"])
    lib.marks.add_tags(papers[9:10], ["beta"])
    app = make(lib)
    async with app.run_test() as pilot:
        results = screen(app).results
        await pilot.press("slash", *"tag:alpha", "enter")
        await settle(pilot)
        await pilot.press("A")  # every paper in the list
        await settle(pilot)
        assert results.selected == set(papers[3:5])
        assert results.border_title.endswith("· 2 selected")
        await pilot.press("slash", *"tag:beta", "enter")  # "/" selects the old query: typing replaces it
        await settle(pilot)
        assert results.border_title.startswith("1 / 35") and results.border_title.endswith("· 2 selected")
        await pilot.press("space")
        await settle(pilot)
        assert results.border_title.endswith("· 3 selected")
        await pilot.press("s")  # applies to the whole selection, not only the papers on screen
        await settle(pilot)
        assert [app.library.annotation(i).status for i in (papers[3], papers[4], papers[9])] == ["skipped"] * 3
        assert list(app._notifications)[-1].message == ("marked skipped: 3 selected papers (2 of them not in this "
                                                        "list) · still selected (esc twice clears the selection)")
        assert len(results.selected) == 3 and results.border_title.endswith("· 3 selected")
        await pilot.press("escape", "escape")  # the search, then the selection
        await settle(pilot)
        assert not results.selected and "selected" not in results.border_title
        await pilot.press("A", "A")  # again: none
        await settle(pilot)
        assert not results.selected
        await pilot.press("A", "escape", "escape")  # escape clears the filter, then the selection
        await settle(pilot)
        assert not results.selected and results.border_title.startswith("35 / 35")


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_search_typing_filters_highlights_and_escapes(lib, make):
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.press("slash", *"voice identiy")
        await settle(pilot)
        results = screen(app).results
        assert app.library.corpus.papers[results.current_index].title.startswith("VIPBench")
        assert "voice" in results.matched
        await pilot.press("escape")
        assert app.focused is results and screen(app).query_one("#search").value == "voice identiy"
        await pilot.press("escape")
        await settle(pilot)
        assert screen(app).query_one("#search").value == "" and len(results.indices) == 35
        await pilot.press("slash", *"everanimate", "enter", "escape")
        await settle(pilot)
        shown = app.library.corpus.papers[results.current_index]
        assert len(results.indices) == 35 and results.cursor > 0  # still on the paper looked at
        assert shown.title.startswith("EverAnimate")
        assert screen(app).query_one("#reader").paper_index == results.current_index
        await pilot.press("g")
        await pilot.press("r", "slash", *"status:read", "enter")
        await settle(pilot)
        assert len(results.indices) == 1


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_phrase_typed_in_the_app_folds_the_texts_once(lib, make, monkeypatch):
    """Typing '"learning' searches in a worker per key, and a superseded worker runs on: the
    first fold of every paper's text is slowed here, so the later keys' workers start while it
    runs. They wait for it and use it (they had each folded every text: 8 keys at 30k papers
    took 7 s and 230 MB more), and the list shows the last key's papers."""
    import store.search.phrase_search as LS
    monkeypatch.setattr(LS, "PHRASE_READ_MAX", 0)  # 35 papers: fold them all, as a big library does
    folds = []
    monkeypatch.setattr(LS, "fold_phrase_text", recording(LS.fold_phrase_text, folds, first_delay=0.3))
    app = make(lib)
    async with app.run_test() as pilot:
        results = await type_search(app, pilot, '"learning')
        assert len(folds) == len(lib)
        assert len(results.indices) == sum("learning" in LS.phrase_text(p) for p in lib.corpus) > 0


async def test_a_phrase_typed_apart_lists_the_papers_that_hyphenate_it(lib, make):
    """Typed in the search box, '"decision making"' lists the papers that write "decision-making"
    (it had listed none), the same papers '"decision-making"' lists."""
    app = make(lib)
    async with app.run_test() as pilot:
        apart = sorted((await type_search(app, pilot, '"decision making"')).indices.tolist())
        screen(app).search_box.value = ""  # (the box keeps the focus: the next phrase typed in it)
        await pilot.press(*'"decision-making"')
        await wait_workers(app, pilot)
        await settle(pilot)
        assert screen(app).search_box.value == '"decision-making"'
        hyphenated = sorted(screen(app).results.indices.tolist())
        written = [i for i, p in enumerate(lib.corpus) if re.search(r"decision[\s-]+making", f"{p.title} {p.abstract}".casefold())]
        assert apart == hyphenated == written and any("decision-making" in lib.corpus.papers[i].abstract for i in apart)
        reader = screen(app).reader  # the phrase is lit where its words stand together, in any spelling
        assert "decision making" in reader.matched
        lit = [s for s in highlight_words(Text("on decision-making, and a decision on making"), reader.matched,
                                          Style(bold=True)).spans]
        assert [(s.start, s.end) for s in lit] == [(3, 18)]


@pytest.mark.slow
async def test_a_phrase_in_a_big_library_is_searched_once_typing_settles(lib, make, monkeypatch):
    """In a big library a "phrase" search waits a moment in its worker and is dropped if a key
    came meanwhile: typing '"capacity' at 300k papers had run a search per key (each ~0.3 s, the
    stale ones running on), so the last key's answer came 1.5 s after it instead of 0.5 s."""
    import tui.limits as M
    monkeypatch.setattr(M, "BIG_LIBRARY", 10)  # the 35 seeds stand for a big library
    # Longer than the test's key presses can take on a loaded machine (0.12 s was not, in CI): the
    # test is that a search the next key supersedes is never run, not how brisk typing is.
    monkeypatch.setattr(M, "PHRASE_SETTLE", 2.0)
    from store.search.query import parse_query
    searched = []
    real = lib.search.find
    monkeypatch.setattr(lib.search, "find", recording(lambda q, **kw: real(q, **kw), searched,
                                                 as_text=lambda q: getattr(q, "text", q)))
    app = make(lib)
    async with app.run_test() as pilot:
        results = await type_search(app, pilot, '"learning')
        assert [q for q, in searched if parse_query(q).values("phrase")] == ['"learning']  # (a lone '"' is no phrase)
        assert len(results.indices) == len(real('"learning')) > 0
        await pilot.press("backspace")  # one key, then a pause: searched as always
        await pilot.pause(M.PHRASE_SETTLE + 0.5)
        await wait_workers(app, pilot)
        await settle(pilot)
        assert searched[-1] == ('"learnin',) and len(results.indices) == len(real('"learnin'))


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_compound_in_a_big_library_is_searched_off_the_ui_thread_once_typing_settles(lib, make, monkeypatch):
    """A compound's parts apart are read in the papers ("model-based" at 30k papers first folds
    every text, ~0.5 s): in a big library it is searched in a worker, as a phrase is, once typing settles."""
    import threading

    import tui.limits as M
    monkeypatch.setattr(M, "BIG_LIBRARY", 10)
    monkeypatch.setattr(M, "PHRASE_SETTLE", 2.0)
    searched = []
    real = lib.search.find

    def search(q, **kw):
        searched.append((getattr(q, "text", q), threading.current_thread() is threading.main_thread()))
        return real(q, **kw)
    monkeypatch.setattr(lib.search, "find", search)
    app = make(lib)
    async with app.run_test() as pilot:
        results = await type_search(app, pilot, "state-of-the-art")
        compounds = [(text, ui) for text, ui in searched if "-" in text.strip("-")]
        assert compounds == [("state-of-the-art", False)]  # one search, in a worker
        assert len(results.set_ids) == len(real("state-of-the-art").matches) > 0


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_burst_of_keys_is_routed_in_order(lib, make):
    """Keys arriving together (fast typing, tmux) must not be misrouted after "/" or "t"."""
    app = make(lib)
    async with app.run_test() as pilot:
        keys = ["slash", *"voice", "enter", "t", *"speech", "enter", "escape", "a"]
        for k in keys:
            app.post_message(events.Key(k, {"slash": "/"}.get(k, k if len(k) == 1 else None)))
        await pilot.pause(0.5)
        await settle(pilot)
        pid, ann = cur(app)
        assert screen(app).query_one("#search").value == "voice"
        assert ann.tags == ["speech"] and ann.status == "to-read"


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_filtered_list_says_how_many_of_it_are_still_unread(lib, make):
    """The header counts the whole library; a search or filter is a piece of work of its own, so the
    list's title says how many of it are left, and follows each triage key (and another process)."""
    lib.marks.set_status([lib.corpus.papers[0].id], "read")
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        results = screen(app).results
        await settle(pilot)
        assert results.border_title.startswith("35 / 35") and "unread" not in results.border_title  # the header's job
        await pilot.press("slash", *"file:000", "enter")
        await settle(pilot)
        assert results.border_title.startswith("19 / 35 · 18 unread")
        await pilot.press("j", "s", "a")  # two more triaged
        await settle(pilot)
        assert results.border_title.startswith("19 / 35 · 16 unread")
        await pilot.press("z")
        await settle(pilot)
        assert results.border_title.startswith("19 / 35 · 17 unread")
        Library(lib.folder).marks.set_status([lib.corpus.papers[i].id for i in results.indices[-2:]], "skipped")
        screen(app).sync.poll()  # another terminal's triage
        await settle(pilot)
        assert results.border_title.startswith("19 / 35 · 15 unread")


@pytest.mark.slow
async def test_up_in_the_search_box_recalls_earlier_searches_across_restarts(lib, make):
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        box = screen(app).query_one("#search")
        await pilot.press("slash", "up")                  # nothing searched yet
        await settle(pilot)
        assert box.value == "" and any("no earlier search" in n.message for n in app._notifications)
        for query in ("agent", "voice identity", "agent"):  # "agent" again: once, as the newest
            await pilot.press("slash", "ctrl+u", *query, "enter")
        await pilot.press("slash", "ctrl+u", *"status:read")
        await pilot.press("up")                            # the newest that is not what is typed
        assert box.value == "agent" and box.cursor_position == len("agent")
        await pilot.press("up")
        assert box.value == "voice identity"
        await pilot.press("up")                            # the oldest: stays
        assert box.value == "voice identity"
        await settle(pilot)
        assert app.library.corpus.papers[screen(app).results.current_index].title.startswith("VIPBench")
        await pilot.press(*" benchmark", "up")             # typed on: a new walk from the newest
        assert box.value == "agent"
        await pilot.press("escape", "q")
    again = make(lib)
    async with again.run_test(size=(120, 40)) as pilot:
        box = screen(again).query_one("#search")
        await pilot.press("slash", "ctrl+u", "up", "up")
        assert box.value == "voice identity"


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_big_library_resumes_its_search_after_the_first_paint(lib, make, monkeypatch):
    """At 300k papers a search takes ~0.5 s: a big library paints its list first, then searches."""
    from tui import limits
    from tui.controllers.search import Searching
    from tui.widgets.results import ResultsList
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("slash", *"agent", "enter", "j")
        await settle(pilot)
        left_on, _ = cur(app)
        await pilot.press("q")
    painted, painted_at_resume = [0], []
    render_lines, resume = ResultsList.render_lines, Searching.resume
    monkeypatch.setattr(ResultsList, "render_lines",
                        lambda self, crop: painted.__setitem__(0, painted[0] + 1) or render_lines(self, crop))
    monkeypatch.setattr(Searching, "resume",
                        lambda self, *a: painted_at_resume.append(painted[0]) or resume(self, *a))
    for big_library, painted_first in ((2000, False), (10, True)):  # the seeds' 35 papers: small, then big
        monkeypatch.setattr(limits, "BIG_LIBRARY", big_library)
        painted[0] = 0
        again = make(lib)
        async with again.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert (painted_at_resume.pop() > 0) is painted_first
            assert screen(again).query_one("#search").value == "agent" and cur(again)[0] == left_on
            await pilot.press("q")


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_search_lists_its_result_set_then_weaker_matches_and_A_selects_the_set(lib, make, monkeypatch):
    from tui.screens.export import ExportScreen
    app = make(lib)
    query = "language models agents"
    expected = {p.id for p, _ in lib.pairs(query)}
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *query, "enter")
        await settle(pilot)
        results = screen(app).results
        assert results.full == len(expected) == 2 and len(results.indices) > 2
        assert results.border_title.startswith("2 / 35") and "weaker" in results.border_title
        assert "closest" not in results.border_title  # (all of them listed)
        assert set(results.set_ids) == expected
        assert "weaker matches: most but not all words" in app.export_screenshot().replace("&#160;", " ")
        await pilot.press("A")
        assert results.selected == expected                # the set, never the weaker matches
        assert "2 selected" in results.border_title
        await pilot.press("escape")
        await pilot.press("slash", *"zyxwvut agents", "enter")
        await settle(pilot)
        assert results.full == 0 and len(results.indices) > 0  # never simply empty
        assert "no paper has every word" in app.export_screenshot().replace("&#160;", " ")
        export = ExportScreen(lib, screen(app))
        assert export._pairs("list") == []                 # the list's set is empty: nothing to export
        # More weaker matches than are listed: the title says those listed are the closest.
        import store.library.search
        import store.search.quick
        weaker = len(results.indices) - results.full
        for module in (store.search.quick, store.library.search):
            monkeypatch.setattr(module, "WEAKER_SHOWN", weaker - 1)
        await pilot.press("escape", "slash", "ctrl+u", *"language models agents", "enter")
        await settle(pilot)
        assert f"+{weaker - 1} closest weaker" in results.border_title


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_the_dashboard_charts_the_current_searchs_result_set(lib, make):
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"language models agents", "enter")
        await settle(pilot)
        await pilot.press("d")
        await pilot.pause(0.3)
        shown = app.export_screenshot().replace("&#160;", " ")
        assert "This search" in shown and "2 papers hold every word" in shown
        await pilot.press("escape", "slash", "ctrl+u", *"status:unread", "enter")  # a filter has no words
        await settle(pilot)
        await pilot.press("d")
        await pilot.pause(0.3)
        shown = app.export_screenshot().replace("&#160;", " ")
        assert "35 papers match it" in shown and "hold every word" not in shown
        await pilot.press("escape", "slash", "ctrl+u", *"voice identity perception", "enter")
        await settle(pilot)
        await pilot.press("d")
        await pilot.pause(0.3)
        shown = app.export_screenshot().replace("&#160;", " ")
        assert "1 paper holds every word" in shown  # (one paper: the verb agrees)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_typed_word_keeps_its_count_when_the_search_is_done_and_a_compound_says_what_it_counted(tmp_path, make):
    """Typing "graph", its completions (graphon) rank but are not counted: Enter leaves the count
    as it was. A fragment ("grap") counts its completions only while typed. "sim-to-real" counts
    sim2real and "sim to real" too, and the count says so."""
    dump = tmp_path / "d.txt"
    dump.write_text("T\n\n" + "\n\n".join([
        "A graph of citations is embedded with random walks for link prediction tasks.",
        "Graphs with many nodes are coarsened before the spectral clustering step.",
        "Graphon estimation from a single large network observed once over time.",
        "A sim-to-real transfer method for legged robots walking on rough terrain.",
        "We close the sim2real gap with domain randomization of physics parameters.",
        "Transferring policies from sim to real remains hard for dexterous hands.",
        "Simulation is cheap; real robots are not, so we learn in simulation first."]))
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([dump])
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        results = await type_search(app, pilot, "graph")
        assert len(results.set_ids) == 2 and results.border_title.startswith("2 / 7")
        await pilot.press("enter")
        await wait_workers(app, pilot)
        await settle(pilot)
        assert len(results.set_ids) == 2 and results.border_title.startswith("2 / 7")
        screen(app).search_box.value = ""
        await settle(pilot)
        results = await type_search(app, pilot, "grap")
        assert len(results.set_ids) == 3                     # being typed: the words it begins
        await pilot.press("enter")
        await wait_workers(app, pilot)
        await settle(pilot)
        assert len(results.set_ids) == 0                     # done: "grap" is no word (and too short for a typo)
        screen(app).search_box.value = ""
        await settle(pilot)
        results = await type_search(app, pilot, "sim-to-real ")
        assert len(results.set_ids) == 3
        header = screen(app).query_one("#header")
        assert "counted: sim-to-real (also sim2real, sim to real)" in header._shown  # where did-you-mean goes


def _acronym_library(tmp_path) -> Library:
    """A library of ACRONYM_DUMP: papers writing "large language models (LLMs)", only LLMs, or neither."""
    dump = tmp_path / "d.txt"
    dump.write_text(ACRONYM_DUMP)
    lib = Library(tmp_path / "lib")
    lib.paper_changes.import_paths([dump])
    return lib


@pytest.mark.slow
async def test_an_acronym_the_papers_define_counts_its_expansion_in_the_app(tmp_path, make):
    """Typing "LLM planning" lists the paper that writes "large language models" too, and the
    header says what was counted; typing the expansion lists the papers writing only LLMs."""
    lib = _acronym_library(tmp_path)
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        for typed, note in (("LLM planning ", "LLM (also large language models)"),
                            ("large language model planning ", "large language model (also LLM)")):
            screen(app).search_box.value = ""
            await settle(pilot)
            results = await type_search(app, pilot, typed)
            await wait_workers(app, pilot)
            await settle(pilot)
            shown = {lib.paper(pid).abstract[:12] for pid in results.set_ids}
            assert shown == {"Planning hou", "We show that"}, (typed, shown)
            assert f"counted: {note}" in screen(app).query_one("#header")._shown


async def test_a_word_no_paper_holds_says_what_it_was_read_as(tmp_path, make):
    """`plannign` finds the planning papers, and the header says how the word was read (nothing is
    said for a word the papers hold)."""
    lib = _acronym_library(tmp_path)
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await type_search(app, pilot, "plannign ")
        await wait_workers(app, pilot)
        await settle(pilot)
        assert "read as: plannign → planning" in screen(app).query_one("#header")._shown
        screen(app).search_box.value = ""
        await settle(pilot)
        await type_search(app, pilot, "planning ")
        await wait_workers(app, pilot)
        await settle(pilot)
        assert "read as" not in screen(app).query_one("#header")._shown


async def test_words_joined_by_or_list_the_papers_holding_either(lib, make):
    """Typed in the box, `graph OR speech` lists the papers holding either word as its result set;
    while OR waits for its second word nothing is said; a finished query with OR at its end, or OR
    beside a filter, lists no paper and says what OR needs."""
    def holding(word: str) -> set[str]:
        result = lib.search.find(word)
        return {lib.corpus.papers[int(i)].id for i in result.indices[:result.found]}

    either = holding("graph") | holding("speech")
    assert len(either) > max(len(holding("graph")), len(holding("speech")))
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        results = await type_search(app, pilot, "graph OR ")
        assert set(results.set_ids) == holding("graph") and results.unapplied == []
        await pilot.press("enter")  # (the search is done: nothing comes after OR)
        await settle(pilot)
        assert results.unapplied == [OR_BETWEEN_WORDS] and not len(results.indices)  # (no paper, and why)
        await pilot.press("slash", "end", *"speech")
        await settle(pilot)
        assert set(results.set_ids) == either and results.unapplied == []
        assert "speech" in results.matched and {"graph", "graphs"} & results.matched
        await pilot.press("ctrl+u", *"tag:x OR speech")  # OR beside a filter: no paper, not tag:x and speech
        await settle(pilot)
        assert results.unapplied == [or_not_filters("tag:x speech")] and not len(results.indices)

