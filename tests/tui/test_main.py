"""The main screen through Pilot (tui/screens/main.py and its triage, reading, sync and similar
parts): start, navigation, triage keys, selections, undo, copy, sort, theme, restart, narrow terminals."""

from __future__ import annotations

import json

import pytest

from store import Library
from tui.app import make_app
from tui.render import plain_title
from tui.screens.confirm import ConfirmScreen

from ..conftest import DATA
from .driving import cur, screen, settle, type_search


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_papers_imported_by_another_process_appear(lib, make, tmp_path):
    """A second dump imported with the CLI while the app is open: on its next look at the disk
    (every 2 s) the app lists the new papers, counts them, and keeps the cursor on its paper."""
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("j", "j")
        shown = cur(app)[0]
        dump = tmp_path / "icml.txt"
        dump.write_text("ICML 2024 Papers\n\nWe study grokking in small transformers trained on modular "
                        "arithmetic and show that weight decay drives the late jump in test accuracy.\n")
        Library(lib.folder).paper_changes.import_paths([dump])  # another process, as far as the app can tell
        screen(app).sync.poll()  # what its 2-second timer runs
        await settle(pilot)
        assert screen(app).results.border_title.startswith("36 / 36")
        assert "0 / 36 triaged" in str(screen(app).query_one("#header").render())
        assert cur(app)[0] == shown
        assert "+1 paper, 36 now" in " ".join(str(n.message) for n in app._notifications)
        await pilot.press("slash", *"venue:icml", "enter")
        await settle(pilot)
        assert screen(app).results.border_title.startswith("1 / 36")
        screen(app).sync.poll()  # nothing new: no reload
        assert not app.library.refresh_corpus()


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_the_corpus_another_process_wrote_is_read_off_the_ui_thread(lib, make, tmp_path, monkeypatch):
    """Reading a changed corpus takes ~1.3 s at 300k papers: it runs in a thread, and a file that
    cannot be read is reported while the app keeps its papers."""
    import threading
    read_in = []
    real = Library.read_changed_corpus

    def spy(self):
        if self is lib:  # the app's library (an import by another Library reads it too, to merge)
            read_in.append(threading.current_thread() is threading.main_thread())
        return real(self)

    monkeypatch.setattr(Library, "read_changed_corpus", spy)
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        dump = tmp_path / "more.txt"
        dump.write_text("We study grokking in small transformers trained on modular arithmetic and show that "
                        "weight decay drives the late jump in test accuracy.\n")
        Library(lib.folder).paper_changes.import_paths([dump])
        screen(app).sync.poll()
        await settle(pilot)
        assert read_in == [False] and screen(app).results.border_title.startswith("36 / 36")
        corpus = lib.folder / "corpus.jsonl"
        corpus.write_bytes(b"{}\n" + corpus.read_bytes())  # damaged by something else
        screen(app).sync.poll()
        await settle(pilot)
        assert "could not read the papers another process wrote" in " ".join(str(n.message) for n in app._notifications)
        assert screen(app).results.border_title.startswith("36 / 36") and len(app.library) == 36
        said = len(app._notifications)
        screen(app).sync.poll()  # the same damaged file: not read (nor reported) again
        await settle(pilot)
        assert len(app._notifications) == said
        Library(tmp_path / "fresh").paper_changes.import_paths([dump])
        corpus.write_bytes((tmp_path / "fresh" / "corpus.jsonl").read_bytes())  # mended: read again
        screen(app).sync.poll()
        await settle(pilot)
        assert screen(app).results.border_title.startswith("1 / 1")


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_annotations_damaged_on_disk_are_said_once_and_never_stop_the_app(lib, make):
    """annotations.json damaged while the app runs (by hand, a disk error): the poll says so once,
    a triage key is refused with the same message, nothing is written over it, and once
    `doctor --repair` has mended it the app carries on."""
    from store.doctor import run_doctor
    lib.marks.set_star([lib.corpus.papers[5].id], 1)
    lib.marks.set_status([p.id for p in lib.corpus][10:], "skipped")  # a bulk change: a backup to repair from
    app = make(lib)
    async with app.run_test() as pilot:
        await settle(pilot)
        path = lib.folder / "annotations.json"
        path.write_text("{garbage")
        screen(app).sync.poll()  # what its 2-second timer runs
        await settle(pilot)
        assert app.is_running and "could not read the annotations on disk: " in list(app._notifications)[-1].message
        said = len(app._notifications)
        screen(app).sync.poll()  # the same damage: not said again
        await pilot.press("r")  # refused, with the reason
        await settle(pilot)
        assert len(app._notifications) == said + 1 and "not valid JSON" in list(app._notifications)[-1].message
        assert path.read_text() == "{garbage" and app.is_running
        assert run_doctor(lib.folder, repair=True).repaired
        screen(app).sync.poll()
        await pilot.press("r")
        await settle(pilot)
        assert Library(lib.folder).annotation(lib.corpus.papers[0].id).status == "read"


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_outdated_derived_titles_are_pointed_out_once(lib, make):
    """A library whose titles an earlier papersift derived: the app says once that `papersift
    retitle` would derive better ones, and not at the next start."""
    lib.corpus.title_rules = 0
    lib.corpus.save(lib.corpus_path)
    for start in (1, 2):
        old = Library(lib.folder)
        assert old.paper_changes.titles_outdated
        app = make(old)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            said = [n.message for n in app._notifications if "papersift retitle" in n.message]
            assert len(said) == (1 if start == 1 else 0), said
    old.paper_changes.retitle()
    assert not Library(lib.folder).paper_changes.titles_outdated


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_library_whose_titles_were_all_read_is_not_told_to_retitle(make, tmp_path):
    """After an upgrade the app offered `papersift retitle` to every library made by an earlier
    version, also one whose papers all came with their titles (JSONL, BibTeX): retitle would change
    nothing there. Only a library holding derived titles is told, by the app and by doctor."""
    from store.doctor import run_doctor
    papers = tmp_path / "titled.jsonl"
    papers.write_text("".join(json.dumps({"title": f"Paper {i}", "abstract": f"We study topic {i} of many in depth."}) + "\n"
                              for i in range(3)))
    titled = Library(tmp_path / "titled")
    titled.paper_changes.import_paths([papers])
    titled.corpus.title_rules = 0  # as an earlier papersift left it
    titled.corpus.save(titled.corpus_path)
    assert not Library(titled.folder).paper_changes.titles_outdated
    assert not any("retitle" in line for line in run_doctor(titled.folder).ok)
    app = make(Library(titled.folder))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not [n.message for n in app._notifications if "papersift retitle" in n.message]
    (tmp_path / "dump.txt").write_text("We study derived titles for papers that came without one.\n")
    titled.paper_changes.import_paths([tmp_path / "dump.txt"])  # one paper without a title of its own
    titled.corpus.title_rules = 0
    titled.corpus.save(titled.corpus_path)
    assert Library(titled.folder).paper_changes.titles_outdated
    assert any("retitle" in line for line in run_doctor(titled.folder).ok)


async def test_footer_labels_are_distinct(lib, make):
    """Every key the footer shows has its own label: "⏎ Read" beside "r Read" read as one action."""
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        shown = [b.binding.description for b in app.screen.active_bindings.values() if b.binding.show]
        assert len(shown) >= 8 and len(shown) == len(set(shown)), shown
        assert "Open" in shown and "Read" in shown


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_footer_offers_no_key_that_a_text_box_would_type(lib, make):
    """While the search box, the tag box or the note editor has focus, "+" and "/" type
    themselves: the footer offered "+ Star+" and "/ Search" there all the same."""
    from textual.widgets._footer import FooterKey
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        in_list = {k.key for k in app.screen.query(FooterKey)}
        assert {"plus", "slash"} <= in_list
        for open_box, close_box in (("slash", "escape"), ("t", "escape"), ("e", "escape")):
            await pilot.press(open_box)
            await settle(pilot)
            shown = {k.key for k in app.screen.query(FooterKey)}
            assert not shown & {"plus", "minus", "slash", "question_mark", "q"}, (open_box, shown)
            assert shown, open_box  # the box's own keys are still offered
            await pilot.press("plus", "slash")  # and the keys type
            await settle(pilot)
            box = app.screen.focused
            assert (box.value if hasattr(box, "value") else box.text).endswith("+/"), open_box
            await pilot.press(close_box)
            await settle(pilot)
            if app.screen.__class__.__name__ == "ConfirmScreen":  # the note changed: discard it
                await pilot.press("y")
                await settle(pilot)
        assert Library(lib.folder).annotation(lib.corpus.papers[0].id).star == 0


def footer_cut(app) -> list[str]:
    """The footer's keys that the command palette's key (docked right) or the edge covers."""
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey, FooterLabel
    footer = app.screen.query_one(Footer)
    keys = list(footer.query(FooterKey)) + list(footer.query(FooterLabel))
    palette = [k for k in keys if "-command-palette" in k.classes]
    edge = palette[0].region.x if palette else footer.region.right
    return [str(k.render()) for k in keys if k not in palette and k.display and k.region.right > edge]


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_every_footer_key_fits_in_120_columns(lib, make):
    """At 120 columns the reader's footer ended "x Ex" under the palette's key, and offered
    no J / K: every pane's keys fit there, the reader's J K among them."""
    from textual.widgets._footer import FooterKey
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        for keys, pane in (((), "list"), (("enter",), "reader"), (("escape", "t"), "tag panel"), (("escape", "T"), "tag list"),
                           (("escape", "slash"), "search box"), (("escape", "e"), "note editor")):
            await pilot.press(*keys)
            await settle(pilot)
            assert not footer_cut(app), (pane, footer_cut(app))
            shown = {k.key for k in app.screen.query(FooterKey)}
            if pane == "reader":
                assert {"J", "K", "x", "question_mark"} <= shown
            if pane == "tag list":  # enter adds the highlighted tag there too
                assert {"enter", "ctrl+f", "x"} <= shown
            if pane == "search box":
                assert "up" in shown  # an earlier search


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_narrow_footer_shows_help_and_quit_first(lib, make):
    """At 80 columns the footer is cut after a few keys: ? Help and q Quit come first there (and,
    so the order never changes with the width, at every width), and the keys the palette's would
    cover are not shown ("s Ski▏^p palette", a stray "g" after it)."""
    from textual.widgets._footer import FooterKey
    for width, first in ((80, ["help", "quit"]), (100, ["help", "quit"]), (160, ["help", "quit"])):
        app = make(lib)
        async with app.run_test(size=(width, 24)) as pilot:
            await settle(pilot)
            keys = [k.action for k in app.screen.query(FooterKey) if "-command-palette" not in k.classes]
            assert keys[:2] == first, (width, keys)
            assert "help" in keys and "quit" in keys
            for pane in ((), ("enter",), ("escape", "T")):
                await pilot.press(*pane)
                await settle(pilot)
                assert not footer_cut(app), (width, pane, footer_cut(app))
                shown = [k for k in app.screen.query(FooterKey) if k.display]
                assert len(shown) >= 4 and all(k.region.width for k in shown), (width, pane)
    app = make(lib)  # resized, narrow to narrower and back: the keys are fitted to each width
    async with app.run_test(size=(120, 30)) as pilot:
        counts = {}
        for width in (100, 80, 100, 80, 160):
            await pilot.resize_terminal(width, 30)
            await settle(pilot)
            await pilot.pause(0.1)
            assert not footer_cut(app), (width, footer_cut(app))
            counts.setdefault(width, set()).add(sum(1 for k in app.screen.query(FooterKey) if k.display))
        assert all(len(c) == 1 for c in counts.values()) and max(counts[80]) < max(counts[100]) < max(counts[160])


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_navigation_keys(lib, make):
    app = make(lib)
    async with app.run_test(size=(120, 30)) as pilot:
        r = screen(app).results
        await pilot.press("j", "j", "down")
        assert r.cursor == 3
        await pilot.press("k", "up")
        assert r.cursor == 1
        await pilot.press("G")
        assert r.cursor == 34
        await pilot.press("g")
        assert r.cursor == 0
        await pilot.press("pagedown")
        assert r.cursor > 10
        await pilot.press("pageup")
        assert r.cursor == 0
        await pilot.press("end")
        assert r.cursor == 34 and screen(app).query_one("#reader").paper_index == int(r.indices[34])


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_status_keys_save_at_once_and_advance(lib, make):
    app = make(lib)
    async with app.run_test() as pilot:
        ids = [p.id for p in lib.corpus]
        await pilot.press("r", "a", "s")
        assert [Library(lib.folder).annotation(i).status for i in ids[:3]] == ["read", "to-read", "skipped"]
        assert screen(app).results.cursor == 3
        await pilot.press("k", "u")
        assert app.library.annotation(ids[2]).status == "unread"
        assert "2 / 35 triaged" in str(screen(app).query_one("#header").render())


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_status_key_draws_the_reader_once_for_the_next_paper_and_on_the_last_row_its_own(lib, make):
    """A status key advances: the reader draws the next paper, once (not the paper just marked
    again first, to be replaced in the same frame: a layout pass of the whole screen each). On the
    last row the cursor stays, and the reader shows that paper's new status."""
    import io
    from rich.console import Console

    def reader_text() -> str:
        console = Console(width=140, record=True, file=io.StringIO())
        console.print(screen(app).query_one("#reader-body").content)
        return console.export_text()
    app = make(lib)
    async with app.run_test(size=(140, 40)) as pilot:
        reader, r = screen(app).query_one("#reader"), screen(app).results
        for _ in range(200):  # (the more-like-this model, made at start, shows the paper again once ready)
            if not screen(app).working("prepare"):
                break
            await pilot.pause(0.05)
        await pilot.pause()
        drawn: list[int | None] = []
        show = reader.show
        reader.show = lambda idx: (drawn.append(idx), show(idx))[1]
        await pilot.press("r")
        await pilot.pause()
        assert drawn == [int(r.indices[1])] and reader.paper_index == int(r.indices[1])
        await pilot.press("end")
        await pilot.pause()
        last = int(r.indices[-1])
        assert reader.paper_index == last and "unread" in reader_text()
        drawn.clear()
        await pilot.press("s")
        await pilot.pause()
        assert r.current_index == last and drawn == [last] and "skipped" in reader_text()
        assert app.library.annotation(lib.corpus.papers[last].id).status == "skipped"


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_star_keys(lib, make):
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.press("plus", "plus", "plus", "plus", "minus")
        assert cur(app)[1].star == 2
        assert Library(lib.folder).annotation(cur(app)[0]).star == 2


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_next_previous_unread(lib, make):
    ids = [p.id for p in lib.corpus]
    lib.marks.set_status(ids[1:4], "read")
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.press("n")
        assert screen(app).results.cursor == 4
        await pilot.press("N")
        assert screen(app).results.cursor == 0
        await pilot.press("N")  # the first unread paper: none above, the rest below
        assert screen(app).results.cursor == 0
        below = len(ids) - 3 - 1
        assert app._notifications and list(app._notifications)[-1].message == \
            f"No unread paper above this one: {below} unread papers below"
        lib.marks.set_status([i for i in ids if i != ids[0]], "read")
    app = make(Library(lib.folder))
    async with app.run_test() as pilot:
        await pilot.press("n")
        assert list(app._notifications)[-1].message == "No unread paper below this one, and none in this list"


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_select_several_and_apply(lib, make):
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.press("space", "j", "space", "r")
        ids = [p.id for p in lib.corpus]
        results = screen(app).results
        assert [app.library.annotation(i).status for i in ids[:3]] == ["read", "unread", "read"]
        assert results.selected == {ids[0], ids[2]}  # the selection stays, to act on again
        assert list(app._notifications)[-1].message == \
            "marked read: 2 selected papers · still selected (esc clears the selection)"
        await pilot.press("plus")
        assert [app.library.annotation(i).star for i in ids[:3]] == [1, 0, 1]
        assert list(app._notifications)[-1].message.startswith("a star more: 2 selected papers")
        heading = str(screen(app).tag_panel.query_one("#paper-tags").render())
        assert heading.startswith("On the 2 selected papers")  # what a tag key would act on
        await pilot.press("t", *"both", "enter", "escape")
        assert app.library.tag_counts()["both"] == 2
        assert "#both 2/2" in str(screen(app).tag_panel.query_one("#paper-tags").render())
        await pilot.press("escape")  # clears the selection: keys act on the highlighted paper again
        assert not results.selected
        assert str(screen(app).tag_panel.query_one("#paper-tags").render()).startswith("On this paper")
        await pilot.press("space", "a")
        assert list(app._notifications)[-1].message.startswith("marked to-read: 1 selected paper ·")


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_the_tag_panel_hint_fits_where_the_focus_is(lib, make):
    """An untagged paper's panel says which key leads to it; in the panel, the key is no help:
    it says to type below."""
    app = make(lib)
    async with app.run_test() as pilot:
        await settle(pilot)
        tags = screen(app).tag_panel.query_one("#paper-tags")
        assert "none yet — press t" in str(tags.render())
        await pilot.press("t")
        await settle(pilot)
        assert "none yet — type one below" in str(tags.render())
        await pilot.press("escape")
        await settle(pilot)
        assert "none yet — press t" in str(tags.render())


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_select_all_refuses_a_list_a_bad_filter_left_whole(lib, make):
    """`star:>=a` is not applied: while it is typed the list shows every paper; once typed (enter)
    the list shows no paper and says why (it had gone on showing every paper, and a delete after
    `A` would have offered to remove the whole library), and `A` selects nothing."""
    app = make(lib)
    async with app.run_test() as pilot:
        await type_search(app, pilot, "star:>=a")
        assert len(screen(app).results.indices) == len(lib)  # (the cursor on it: still being typed)
        await pilot.press("enter", "A")
        await settle(pilot)
        results = screen(app).results
        assert len(results.indices) == 0 and not results.selected and results.unapplied == ["bad star filter '>=a' (e.g. star:>=2)"]
        await pilot.press("slash", *["backspace"] * 8, "enter", "A")  # a sound search: A selects its set
        await settle(pilot)
        assert len(screen(app).results.selected) == len(lib)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_undo_key_repeatable(lib, make):
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.press("r", "plus")
        await pilot.press("z", "z")
        assert app.library.annotations == {}
        assert Library(lib.folder).annotations == {}
        pid = lib.corpus.papers[0].id  # `r` was pressed on it (the cursor then advanced)
        await pilot.pause()
        assert cur(app)[0] == pid  # (the cursor back on the paper the last undo changed)
        await pilot.press("Z")  # one undo too many: redo puts the status back, and it is saved
        assert app.library.annotation(pid).status == "read" and app.library.annotation(pid).star == 0
        assert Library(lib.folder).annotation(pid).status == "read"
        title = lib.corpus.papers[0].title
        assert app._notifications and list(app._notifications)[-1].message.startswith(
            f"redone: status read · {pid} {title[:20]}")  # (which paper: as history says it)
        await pilot.press("s", "Z")  # a new change (on that paper): the star undone before it cannot come back
        assert list(app._notifications)[-1].message == "nothing to redo"
        assert {p: (a.status, a.star) for p, a in Library(lib.folder).annotations.items()} == {pid: ("skipped", 0)}


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_copy_keys_fall_back_to_osc52(lib, make):
    lib.marks.add_tags([lib.corpus.papers[0].id], ["speech"])
    lib.marks.set_note(lib.corpus.papers[0].id, "ask\nthe group")
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.press("y")
        assert app.clipboard.startswith("Speaker identification benchmarks")
        await pilot.press("Y")
        assert app.clipboard.startswith("- **VIPBench") and "#speech" in app.clipboard and "ask the group" in app.clipboard
        assert "*(title derived from the abstract)*" in app.clipboard  # never passed off as the paper's own
        await pilot.press("space", "space", "I")
        # one line: a paste into a terminal without bracketed paste types it, and each newline was
        # an enter, the next id's letters keys (d: the dashboard, a: to-read)
        assert app.clipboard == " ".join(p.id for p in lib.corpus.papers[:2])
        await pilot.press("escape", "slash", *app.clipboard)  # typed in, as such a paste is
        await pilot.pause(0.3)
        listed = screen(app).results.indices
        assert sorted(lib.corpus.papers[int(i)].id for i in listed) == sorted(p.id for p in lib.corpus.papers[:2])


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_open_link_and_no_link(lib, make, monkeypatch, tmp_path):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    (tmp_path / "l.txt").write_text("We present LinkNet, see <https://example.org/linknet> for code and data today.")
    lib.paper_changes.import_paths([tmp_path / "l.txt"])
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.press("o")
        assert opened == []  # first paper has no link
        await pilot.press("G", "o")
        assert opened == ["https://example.org/linknet"]


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_sort_cycles_and_persists(lib, make, tmp_path):
    lib.marks.set_star([lib.corpus.papers[9].id], 3)
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.press("S", "S")
        await settle(pilot)
        assert screen(app).sort == "star"
        assert int(screen(app).results.indices[0]) == 9
    places = json.loads((tmp_path / "settings.json").read_text())["places"]
    assert places[str(lib.folder.resolve())]["sort"] == "star"  # this library's order
    again = make(lib)
    async with again.run_test() as pilot:
        await settle(pilot)
        assert screen(again).sort == "star" and int(screen(again).results.indices[0]) == 9
        await pilot.press("S")
        assert screen(again).sort == "random"  # one person's library: no team's stars to sort by
        await pilot.press("slash", *"status:unread", "enter", "S")  # a filter alone is sorted: said nothing
        await settle(pilot)
        assert not [n for n in again._notifications if "sort:" in n.message]
        title = str(screen(again).results.border_title)  # its sort shown, as the whole list's is (it was left out)
        assert title.endswith(f"· sort: {screen(again).sort}"), title
        await pilot.press("slash", "ctrl+u", *"graph", "enter", "S")  # words rank by match: said
        await settle(pilot)
        assert "sort:" not in str(screen(again).results.border_title)
        assert [n.message for n in again._notifications if "sort:" in n.message][-1].endswith(
            "(applies to a list without search words: words rank by match)")
        pid = lib.corpus.papers[9].id
        await pilot.press("slash", "ctrl+u", *f"similar:{pid}", "enter", "S")  # an ordering by likeness: said
        await settle(pilot)
        assert [n.message for n in again._notifications if "sort:" in n.message][-1].endswith(
            "(applies to a list without similar:, which orders by likeness)")
    other = Library.open(tmp_path / "other")  # another library keeps its own order (import)
    third = make(other)
    async with third.run_test() as pilot:
        await settle(pilot)
        assert screen(third).sort == "import"


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_theme_choice_persists(lib, make, tmp_path):
    app = make(lib)
    async with app.run_test() as pilot:
        app.theme = "nord"
        await pilot.pause()
    assert json.loads((tmp_path / "settings.json").read_text())["theme"] == "nord"
    again = make(lib)
    async with again.run_test() as pilot:
        assert again.theme == "nord"


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_everything_is_there_after_restart(lib, make):
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.press("a", "plus", "t", *"keep", "enter", "escape", "e", *"remember", "ctrl+s", "q")
    reopened = make(Library(lib.folder))
    async with reopened.run_test() as pilot:
        await settle(pilot)
        first, second = (reopened.library.annotation(p.id) for p in lib.corpus.papers[:2])
        assert first.status == "to-read"  # "a" then advanced to the next paper
        assert (second.star, second.tags, second.note) == (1, ["keep"], "remember")
        results = reopened.main_screen.results
        assert results.cursor == 1 and results.current_index == 1  # resumed on the paper it was left on
        assert "#keep" in results._row_text(1).plain


async def test_quit_key(lib, make):
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0 or app.return_code is None


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_the_next_start_resumes_where_the_library_was_left(lib, make, tmp_path):
    """Quit with a search and a paper highlighted: the next start has both, and says so.
    Another library, and `resume=False` (papersift --fresh), start at the top."""
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("slash", *"agent", "enter", "j", "j")
        await settle(pilot)
        left_on, _ = cur(app)
        assert screen(app).results.cursor == 2
        await pilot.press("q")
    again = make(lib)
    async with again.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert screen(again).query_one("#search").value == "agent"
        assert cur(again)[0] == left_on
        assert screen(again).query_one("#reader").paper_index == lib.corpus.index_of(left_on)
        assert any("back where you left off: agent" in n.message for n in again._notifications)
        await pilot.press("escape")                       # the whole library
        await settle(pilot)
        assert screen(again).results.border_title.startswith("35 / 35")
        await pilot.press("j")
        left_on, _ = cur(again)
        await pilot.press("q")
    third = make(lib)
    async with third.run_test(size=(120, 40)) as pilot:  # left with no search: the paper alone
        await settle(pilot)
        assert screen(third).query_one("#search").value == ""
        assert cur(third)[0] == left_on and screen(third).results.cursor > 0
    places = json.loads((tmp_path / "settings.json").read_text())["places"]
    assert places[str(lib.folder.resolve())] == {"query": "", "paper": left_on, "history": ["agent"],
                                                "seen_batch": 1}  # (the newest import seen: what is new next time)
    fresh = make_app(lib, keymap_path=tmp_path / "keymap.toml", settings_path=tmp_path / "settings.json",
                     resume=False)
    async with fresh.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert screen(fresh).query_one("#search").value == "" and screen(fresh).results.cursor == 0
    other = make(Library(tmp_path / "other"))
    other.library.paper_changes.import_paths([DATA / "icml_slice.jsonl"])
    async with other.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert screen(other).query_one("#search").value == "" and screen(other).results.cursor == 0
    assert len(json.loads((tmp_path / "settings.json").read_text())["places"]) == 2


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_an_unreadable_settings_file_is_reported_and_not_written_over(lib, make, tmp_path):
    (tmp_path / "settings.json").write_text('{"theme": "nord",,}')
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert any("unreadable settings" in n.message for n in app._notifications)
        await pilot.press("j", "q")
    assert (tmp_path / "settings.json").read_text() == '{"theme": "nord",,}'


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_triage_key_while_another_process_holds_the_lock_never_freezes(lib, make):
    """Another papersift holds the library lock: a triage key queues (with a notice) instead of
    holding the UI thread; navigation goes on; the change lands in order once the lock is free.
    Held past the lock's timeout, the change fails with a notice and nothing is written."""
    import time as _time

    from store.files.lock import LibraryLock
    other = LibraryLock(lib.folder / ".lock")
    app = make(lib)
    async with app.run_test() as pilot:
        await settle(pilot)
        first = cur(app)[0]
        other._acquire()                     # (a separate open file: as another process holds it)
        started = _time.monotonic()
        await pilot.press("r", "plus")       # read (advances), then a star on the next paper
        await pilot.pause()
        assert _time.monotonic() - started < 2  # the UI thread did not wait for the lock
        assert "waiting for another papersift" in list(app._notifications)[-1].message
        second = cur(app)[0]
        assert second != first               # navigation went on
        await pilot.press("j", "k")
        assert Library(lib.folder).annotation(first).status == "unread"  # not yet: the lock is held
        other._release()
        for _ in range(300):
            await pilot.pause(0.02)
            if not screen(app).writes.pending:
                break
        assert Library(lib.folder).annotation(first).status == "read"
        assert Library(lib.folder).annotation(second).star == 1
        assert [e["label"] for e in Library(lib.folder).store.history(2)] == ["star +1", "status read"]  # in order

        app.library.lock.timeout = 0.3       # held for longer than the lock waits
        other._acquire()
        await pilot.press("s")
        for _ in range(300):
            await pilot.pause(0.02)
            if not screen(app).writes.pending:
                break
        other._release()
        assert "held the library lock" in list(app._notifications)[-1].message
        assert Library(lib.folder).annotation(second).status == "unread"


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_the_first_import_in_the_app_replaces_the_untouched_sample_unannounced(lib, make, tmp_path):
    src = tmp_path / "mine.jsonl"
    topics = ("quokkas and their habits in the wild", "sourdough starters in cold kitchens",
              "tidal patterns of a northern fjord")
    src.write_text("".join(json.dumps({"title": f"My paper {i}", "abstract": f"We study {t}, observed for years, "
                                       f"and report what {t} teach us about patience."}) + "\n"
                           for i, t in enumerate(topics)))
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        screen(app).triage.import_path(src)
        for _ in range(200):
            await pilot.pause(0.05)
            if len(app.library) == 3:
                break
        await settle(pilot)
        said = [n.message for n in app._notifications]
        assert any("replaced the 35 bundled sample papers" in m for m in said)
        assert not any("changed on disk" in m for m in said)      # its own import, said once
        assert len(Library(lib.folder)) == 3 and screen(app).results.border_title.startswith("3 / 3")


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_the_remove_key_removes_with_a_backup_and_undo_brings_papers_back(lib, make):
    lib.marks.add_tags([lib.corpus.papers[0].id], ["keep"])
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        first = cur(app)[0]
        titles = [plain_title(p.title)[:30] for p in list(lib.corpus)[:2]]
        await pilot.press("space", "space", "delete")            # two selected, then remove
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        asked = str(app.screen.question)  # it names the selection's papers, not the one the reader shows
        assert asked.startswith("Remove 2 papers: “") and all(t in asked for t in titles), asked
        assert ", with the annotations of 1 of them? (a backup is taken" in asked, asked   # (paper 0 is tagged)
        await pilot.press("y")
        await settle(pilot)
        assert len(app.library) == 33 and len(Library(lib.folder)) == 33
        assert list((lib.folder / "backups").glob("corpus.jsonl.*remove.bak"))
        await pilot.press("z")
        await settle(pilot)
        assert len(Library(lib.folder)) == 35 and Library(lib.folder).annotation(first).tags == ["keep"]
        assert screen(app).results.border_title.startswith("35 / 35")
        assert cur(app)[0] == first  # (the cursor on a paper brought back)
        await pilot.press("g", "delete")                          # one paper: "its annotations"
        await pilot.pause()
        assert str(app.screen.question).endswith(", with its annotations? (a backup is taken; z brings it back)")
        await pilot.press("n")
        Library(lib.folder, member="ana").marks.set_star([first], 1)  # another member's marks go too: said
        app.library.refresh()
        await pilot.press("delete")
        await pilot.pause()
        assert str(app.screen.question).endswith(", with its annotations (ana's marks too)? (a backup is taken; z "
                                                 "brings it back)"), str(app.screen.question)
        await pilot.press("n")


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_removing_and_undoing_keeps_the_cursor_on_a_paper_that_is_there(lib, make):
    """Removing a selection above the cursor leaves the highlighted paper highlighted (its row
    moves up); `z` then lands on a paper that came back, wherever the cursor went meanwhile (none
    of these papers is marked: the removal's own record names them); `Z` takes them out again and
    the cursor stays on the paper it was on."""
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("j", "j", "space", "space")  # rows 2 and 3 selected, the cursor on row 4
        gone = set(screen(app).results.selected)
        kept = cur(app)[0]
        assert kept not in gone and not any(pid in app.library.annotations for pid in gone)
        await pilot.press("delete")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert len(app.library) == 33 and cur(app)[0] == kept and screen(app).results.cursor == 2
        await pilot.press("j", "j", "j")
        await pilot.press("z")
        await settle(pilot)
        assert len(app.library) == 35 and cur(app)[0] in gone
        await pilot.press("g", "j", "j", "j", "j", "j", "j")
        elsewhere = cur(app)[0]
        await pilot.press("Z")
        await settle(pilot)
        assert len(app.library) == 33 and cur(app)[0] == elsewhere


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_more_like_this_comes_back_after_an_import_in_the_app(lib, make, tmp_path):
    """An import drops the more-like-this model (the corpus changed); the app makes it again, and
    the reader's panel shows for the highlighted paper, old or new, without a restart."""
    app = make(lib)
    dump = tmp_path / "more.txt"
    dump.write_text("ICML 2024 Papers\n\nWe study grokking in small transformers trained on modular "
                    "arithmetic and show that weight decay drives the late jump in test accuracy.\n")

    def panel() -> str:
        return str(screen(app).reader.query_one("#reader-similar").render())
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        for _ in range(100):
            await pilot.pause(0.05)
            if "More like this" in panel():
                break
        assert "More like this" in panel()
        app.library.marks.set_star([app.library.corpus.papers[0].id], 1)  # (the sample stays: an import adds to it)
        screen(app).triage.import_path(dump)
        for _ in range(100):
            await pilot.pause(0.05)
            if len(app.library) == 36 and not app.library.discovery.similarity_ready:
                break
        screen(app).sync.poll()
        await settle(pilot)
        for _ in range(200):
            await pilot.pause(0.05)
            if app.library.discovery.similarity_ready and "More like this" in panel():
                break
        assert len(app.library) == 36 and app.library.discovery.similarity_ready
        assert "More like this" in panel()
        await pilot.press("G")  # the new paper, the last
        await settle(pilot)
        shown = screen(app).reader.paper_index
        assert shown is not None and "grokking" in app.library.corpus.papers[shown].abstract
        for _ in range(100):
            await pilot.pause(0.05)
            if "More like this" in panel():
                break
        assert "More like this" in panel()


async def test_a_star_or_tag_key_that_changes_nothing_says_so(lib, make):
    """- on a paper without stars, + on one with three, and a tag it has already: each key said
    nothing and did nothing (as u on an unread paper says "already unread")."""
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        pid = cur(app)[0]

        def said() -> list[str]:
            return [str(n.message) for n in app._notifications]
        await pilot.press("minus")
        await settle(pilot)
        assert "no star to take off" in said()
        await pilot.press("plus", "plus", "plus", "plus")
        await settle(pilot)
        assert "already ★★★, the most" in said() and lib.annotation(pid).star == 3
        app.main_screen.tags.apply_text("rl")
        await settle(pilot)
        app.main_screen.tags.apply_text("rl")
        await settle(pilot)
        assert "already tagged #rl" in said() and lib.annotation(pid).tags == ["rl"]
        app.main_screen.tags.apply_text("-zz")
        await settle(pilot)
        assert "no #zz to take off" in said()


async def test_u_on_an_unread_paper_says_it_is_already_unread(lib, make):
    """u changes nothing on an unread paper (and does not move on): a notice says the key was taken."""
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        pid = cur(app)[0]
        assert lib.annotation(pid).status == "unread"
        await pilot.press("u")
        await settle(pilot)
        assert "already unread" in [str(n.message) for n in app._notifications]
        await pilot.press("r", "k", "u")  # (read, back to it, unread: a change, no notice)
        await settle(pilot)
        assert [str(n.message) for n in app._notifications].count("already unread") == 1
        assert lib.annotation(pid).status == "unread"


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_copies_carry_no_escape_sequence(tmp_path, make):
    """A paper's authors and venue, and a note, holding escape sequences: Y copies the citation
    without them (a paste into a terminal would run them), keeping the words."""
    row = {"title": "Escapes", "abstract": "An abstract long enough to be a paper of its own here. " * 3,
           "authors": ["Mal \x1b[5mlory\x1b[0m", "Eve\x1b]0;x\x07"], "venue": "V\x1b[1menue 2024"}
    (tmp_path / "esc.jsonl").write_text(json.dumps(row) + "\n")
    lib = Library.open(tmp_path / "lib")
    lib.paper_changes.import_paths([tmp_path / "esc.jsonl"])
    pid = next(p.id for p in lib.corpus.papers if p.title == "Escapes")
    lib.marks.set_note(pid, "note with \x1b[31mred and \x1b]52;c;YQ==\x07 osc")
    app = make(lib)
    async with app.run_test() as pilot:
        await type_search(app, pilot, f"id:{pid}")
        await pilot.press("enter")
        assert cur(app)[0] == pid
        await pilot.press("Y")
        copied = app.clipboard
        assert "Mal lory and Eve, Venue 2024" in copied and "note with red and osc" in copied, copied
        assert not any(c in copied for c in "\x1b\x07\x9b"), repr(copied)
        await pilot.press("y", "space", "I")
        assert "\x1b" not in app.clipboard
