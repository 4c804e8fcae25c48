"""What each action of keymap.toml must do, as a person sees it: one scenario per action id.

A scenario gets the driven session and ``fire``, the way the action is triggered (its key, or the
command palette); it sets up what the action needs, fires it, and checks its effect. The surface
tests fail for an action of keymap.toml without a scenario here, so a new key is covered the day
it is added.
"""

from __future__ import annotations

from typing import Awaitable, Callable

from textual.widgets import TextArea

from store.library import SORTS
from tui.render import plain_title
from tui.screens.confirm import ConfirmScreen
from tui.screens.dashboard import DashboardScreen
from tui.screens.export import ExportScreen
from tui.screens.fetch_dialog import FetchScreen
from tui.screens.help import HelpScreen
from tui.screens.import_dialog import ImportScreen
from tui.screens.note import NoteScreen
from tui.screens.team import TeamScreen
from tui.screens.topics import TopicsScreen
from tui.widgets.reader import Reader
from tui.widgets.searchbox import SearchBox
from tui.widgets.tagpanel import TagInput, TagList

from .surface import Drive

Fire = Callable[[], Awaitable[None]]
Scenario = Callable[[Drive, Fire], Awaitable[None]]
SCENARIOS: dict[str, Scenario] = {}
# Where an action's key works: the context it must be driven from ("list" unless named here).
CONTEXT = {"search": "search", "reader": "reader", "tags": "tags", "note": "note", "confirm": "confirm",
           "help": "help", "import": "import", "export": "export", "dashboard": "dashboard", "topics": "topics",
           "team": "team", "fetch": "fetch"}


def scenario(*action_ids: str) -> Callable[[Scenario], Scenario]:
    def register(fn: Scenario) -> Scenario:
        for action_id in action_ids:
            SCENARIOS[action_id] = fn
        return fn
    return register


async def enter(d: Drive, context: str) -> None:
    """Bring the session to where ``context``'s keys work (from the list)."""
    await d.back_to_list()
    await fresh_list(d)
    opener = {"search": "main.search", "reader": "list.open_reader", "tags": "main.tag", "note": "main.note",
              "confirm": "main.remove", "help": "app.help", "import": "main.import_files",
              "export": "app.export", "dashboard": "app.dashboard", "topics": "main.topics",
              "team": "app.team", "fetch": "main.fetch"}.get(context)
    if opener:
        await d.act(opener)
    expected = {"search": SearchBox, "reader": Reader, "tags": TagInput}.get(context)
    if expected is not None:
        assert isinstance(d.app.focused, expected), f"{context}: focus on {d.app.focused!r}"
    screen = {"note": NoteScreen, "confirm": ConfirmScreen, "help": HelpScreen, "import": ImportScreen,
              "export": ExportScreen, "dashboard": DashboardScreen, "topics": TopicsScreen,
              "team": TeamScreen, "fetch": FetchScreen}.get(context)
    if screen is not None:
        assert isinstance(d.app.screen, screen), f"{context}: {d.app.screen!r} on top"


async def fresh_list(d: Drive) -> None:
    """The whole library in import order, nothing selected, the cursor on the first paper (one
    session drives many actions: each starts from the list as it opens)."""
    main = d.main
    if main.query_text or main.sort != "import" or main.results.selected:
        main.sort = "import"
        main.results.clear_selection()
        box = main.query_one(SearchBox)
        box.value = "x"  # (a change, so that the empty search runs again in the import order)
        box.value = ""
        await d.settle()
    if main.results.cursor:
        await d.act("list.first")


# ------------------------------------------------------------------ app
@scenario("app.quit")
async def _quit(d: Drive, fire: Fire) -> None:
    await fire()
    await d.pilot.pause()
    assert not d.app.is_running and d.app.return_code == 0


@scenario("app.help", "app.export", "app.dashboard", "app.team", "main.topics", "main.import_files", "main.note",
          "main.fetch")
async def _opens_a_screen(d: Drive, fire: Fire) -> None:
    await fire()
    await d.settle()
    wanted = (HelpScreen, ExportScreen, DashboardScreen, TeamScreen, TopicsScreen, ImportScreen, NoteScreen, FetchScreen)
    assert isinstance(d.app.screen, wanted), f"{d.app.screen!r} on top"
    kind = type(d.app.screen)
    await d.press("escape")
    assert not isinstance(d.app.screen, kind), "escape did not close it"


# ------------------------------------------------------------------ main: triage
def _status_scenario(action_id: str, status: str, start: str) -> None:
    @scenario(action_id)
    async def marks(d: Drive, fire: Fire) -> None:
        pid = d.current()[0]
        d.lib.marks.set_status([pid], start)
        d.main.repaint()
        await fire()
        assert d.lib.annotation(pid).status == status, f"{action_id}: {pid} is {d.lib.annotation(pid).status}"


for _action, _status, _start in (("main.read", "read", "unread"), ("main.to_read", "to-read", "unread"),
                                 ("main.skipped", "skipped", "unread"), ("main.unread", "unread", "read")):
    _status_scenario(_action, _status, _start)


@scenario("main.star_up", "main.star_down")
async def _stars(d: Drive, fire: Fire) -> None:
    pid = d.current()[0]
    d.lib.marks.set_star([pid], 1)
    d.main.repaint()
    await fire()
    assert d.lib.annotation(pid).star in (0, 2) and d.lib.annotation(pid).star != 1


@scenario("main.search")
async def _search(d: Drive, fire: Fire) -> None:
    await fire()
    assert isinstance(d.app.focused, SearchBox)
    await d.type("graph")
    assert d.main.query_text == "graph"


@scenario("main.tag")
async def _tag(d: Drive, fire: Fire) -> None:
    await fire()
    assert isinstance(d.app.focused, TagInput) and d.main.has_class("-tagging")


@scenario("main.focus_tags")
async def _focus_tags(d: Drive, fire: Fire) -> None:
    await fire()
    assert isinstance(d.app.focused, TagList)


@scenario("main.next_unread", "main.prev_unread")
async def _unread_moves(d: Drive, fire: Fire) -> None:
    papers = d.lib.corpus.papers
    order = [int(i) for i in d.main.results.indices[:6]]
    d.lib.marks.set_status([papers[i].id for i in order], "read")
    d.lib.marks.set_status([papers[order[0]].id, papers[order[5]].id], "unread")
    d.main.repaint()
    d.main.results.move_to_paper(order[0] if d.key_fired == "main.next_unread" else order[5])
    await d.settle()
    await fire()
    want = order[5] if d.key_fired == "main.next_unread" else order[0]
    assert d.main.results.current_index == want


@scenario("main.likely")
async def _most_likely(d: Drive, fire: Fire) -> None:
    """The cursor goes to the unmarked paper the triage queue ranks first: after a star on one
    paper and a skip on another, the paper of the list most like the starred one and unlike the
    skipped one (not a marked one, not the row it stood on)."""
    import numpy as np
    papers = d.lib.corpus.papers
    rows = [int(i) for i in d.main.results.indices]
    d.lib.marks.set_star([papers[rows[3]].id], 2)
    d.lib.marks.set_status([papers[rows[4]].id], "skipped")
    d.main.repaint()
    d.main.results.move_to_paper(rows[0])
    await d.settle()
    want = d.lib.discovery.most_likely(np.array(rows))
    assert want is not None and want not in (rows[0], rows[3], rows[4])
    await fire()
    for _ in range(50):
        await d.settle()
        if d.main.results.current_index == want:
            break
    assert d.main.results.current_index == want


@scenario("main.undo", "main.redo")
async def _undo_redo(d: Drive, fire: Fire) -> None:
    """The step is made, and the cursor goes back to the paper it changed (moved away from since)."""
    pid = d.current()[0]
    d.lib.marks.set_status([pid], "unread")
    await d.act("main.read")
    assert d.lib.annotation(pid).status == "read"
    if d.key_fired == "main.redo":
        await d.act("main.undo")
        assert d.lib.annotation(pid).status == "unread"
    d.main.results.action_cursor_down()  # (away from it, whichever pane has the focus)
    d.main.results.action_cursor_down()
    await d.pilot.pause()
    assert d.current()[0] != pid
    await d.pilot.pause(0.05)
    await fire()
    assert d.lib.annotation(pid).status == ("read" if d.key_fired == "main.redo" else "unread")
    await d.settle()
    assert d.current()[0] == pid, (d.current()[0], pid)


@scenario("main.copy_abstract", "main.copy_citation", "main.copy_ids")
async def _copies(d: Drive, fire: Fire) -> None:
    from store.formats.markdown import citation_line
    from tui.render import render_abstract

    pid = d.current()[0]
    paper = d.lib.paper(pid)
    await fire()
    want = {"main.copy_abstract": render_abstract(paper.abstract)[0].plain,
            "main.copy_citation": citation_line(paper, d.lib.annotation(pid)),
            "main.copy_ids": pid}[d.key_fired]
    assert d.app.clipboard == want


@scenario("main.open_link")
async def _open_link(d: Drive, fire: Fire) -> None:
    links = d.main.query_one(Reader).links
    await fire()
    said = " ".join(d.new_notices())
    if links:
        assert d.opened == [links[0]], (d.opened, links)
    else:
        assert d.opened == [] and "no link" in said, (said, d.notices()[-3:])


@scenario("main.sort")
async def _sort(d: Drive, fire: Fire) -> None:
    """The next order, the highlighted paper still highlighted (the list not sent to its top)."""
    before = d.main.sort
    for _ in range(3):
        d.main.results.action_cursor_down()  # (whichever pane has the focus)
    await d.pilot.pause()
    pid, cursor = d.current()[0], d.cursor()
    assert cursor == 3
    await fire()
    await d.settle()
    assert d.main.sort == SORTS[(SORTS.index(before) + 1) % len(SORTS)]
    assert d.current()[0] == pid, (d.main.sort, d.current()[0], pid)


@scenario("main.more_like_this")
async def _more_like_this(d: Drive, fire: Fire) -> None:
    pid = d.current()[0]
    await fire()
    await d.pilot.pause(0.1)
    await d.settle()
    assert "similar:" in d.main.query_text, d.main.query_text
    neighbours = [p.id for p, _ in d.lib.discovery.similar(pid, 5)]
    shown = [d.lib.corpus.papers[int(i)].id for i in d.main.results.indices[:5]]
    assert shown == neighbours, (shown, neighbours)
    await d.act("list.clear_filter")  # left where it opened: back to the paper it was for
    await d.settle()
    assert d.main.query_text == "" and d.current()[0] == pid, (d.current(), pid)
    await fire()
    await d.pilot.pause(0.1)
    await d.settle()
    await d.act("list.cursor_down")  # a neighbour read: the list stays on it
    neighbour = d.current()[0]
    await d.act("list.clear_filter")
    await d.settle()
    assert d.main.query_text == "" and d.current()[0] == neighbour != pid


@scenario("main.remove")
async def _remove_asks(d: Drive, fire: Fire) -> None:
    n = len(d.lib)
    title = d.lib.paper(d.main.current_paper_id()).title
    await fire()
    assert isinstance(d.app.screen, ConfirmScreen)
    assert plain_title(title)[:20] in str(d.app.screen.question), d.app.screen.question  # it names the paper
    await d.press("escape")
    assert len(d.lib) == n


# ------------------------------------------------------------------ list
@scenario("list.cursor_down", "list.cursor_up", "list.first", "list.last", "list.page_down", "list.page_up")
async def _moves(d: Drive, fire: Fire) -> None:
    n = len(d.main.results.indices)
    start = {"list.cursor_down": 0, "list.cursor_up": 2, "list.first": 5, "list.last": 0,
             "list.page_down": 0, "list.page_up": n - 1}[d.key_fired]
    d.main.results.cursor = start
    await d.settle()
    await fire()
    moved = d.cursor()
    want = {"list.cursor_down": lambda: moved == 1, "list.cursor_up": lambda: moved == 1,
            "list.first": lambda: moved == 0, "list.last": lambda: moved == n - 1,
            "list.page_down": lambda: moved > 1, "list.page_up": lambda: moved < n - 2}[d.key_fired]
    assert want(), f"{d.key_fired}: cursor {start} -> {moved} of {n}"


@scenario("list.open_reader")
async def _open_reader(d: Drive, fire: Fire) -> None:
    await fire()
    assert isinstance(d.app.focused, Reader)
    assert d.main.query_one(Reader).paper_index == d.main.results.current_index, (d.main.query_one(Reader).paper_index, d.main.results.current_index, d.main.query_text)


@scenario("list.clear_filter")
async def _clear_filter(d: Drive, fire: Fire) -> None:
    await d.act("main.search")
    await d.type("graph")
    await d.press("enter")
    assert d.main.query_text == "graph"
    await fire()
    assert d.main.query_text == "" and len(d.main.results.indices) == len(d.lib)


@scenario("list.select", "list.select_all")
async def _select(d: Drive, fire: Fire) -> None:
    pid = d.current()[0]
    await fire()
    chosen = d.main.results.selected
    if d.key_fired == "list.select":
        assert chosen == {pid}
    else:
        assert chosen == set(d.main.results.set_ids) and len(chosen) == len(d.lib)  # (an empty search: all)
        await fire()
        assert not d.main.results.selected


# ------------------------------------------------------------------ search box
@scenario("search.done")
async def _search_done(d: Drive, fire: Fire) -> None:
    await d.type("graph")
    await fire()
    assert d.app.focused is d.main.results and d.main.query_text == "graph"


@scenario("search.previous")
async def _search_previous(d: Drive, fire: Fire) -> None:
    await d.type("graph")
    await d.press("enter")  # left with: remembered
    await d.act("main.search")
    box = d.main.query_one(SearchBox)
    box.value = ""
    await d.settle()
    await fire()
    assert box.value == "graph"


# ------------------------------------------------------------------ reader
@scenario("reader.back")
async def _reader_back(d: Drive, fire: Fire) -> None:
    await fire()
    assert d.app.focused is d.main.results


@scenario("reader.scroll_down", "reader.scroll_up")
async def _reader_scroll(d: Drive, fire: Fire) -> None:
    reader = d.main.query_one(Reader)
    await d.pilot.resize_terminal(100, 14)  # an abstract longer than the pane
    await d.settle()
    assert reader.max_scroll_y > 2, "the abstract fits: nothing to scroll"
    if d.key_fired == "reader.scroll_up":
        reader.scroll_to(y=reader.max_scroll_y, animate=False)
        await d.settle()
    before = reader.scroll_y
    await fire()
    await d.pilot.pause(0.1)
    assert (reader.scroll_y > before) if d.key_fired == "reader.scroll_down" else (reader.scroll_y < before)
    await d.pilot.resize_terminal(160, 45)


@scenario("reader.next_paper", "reader.prev_paper")
async def _reader_moves(d: Drive, fire: Fire) -> None:
    reader = d.main.query_one(Reader)
    order = [int(i) for i in d.main.results.indices[:3]]
    if d.key_fired == "reader.prev_paper":
        await d.press(d.key("reader.next_paper"))
    start = reader.paper_index
    await fire()
    want = order[order.index(start) + (1 if d.key_fired == "reader.next_paper" else -1)]
    assert reader.paper_index == want and isinstance(d.app.focused, Reader)


# ------------------------------------------------------------------ tag panel
@scenario("tags.apply")
async def _tag_apply(d: Drive, fire: Fire) -> None:
    pid = d.current()[0]
    await d.type("surface-tag")
    await fire()
    assert "surface-tag" in d.lib.annotation(pid).tags


@scenario("tags.next", "tags.previous")
async def _tag_highlight(d: Drive, fire: Fire) -> None:
    papers = d.lib.corpus.papers
    d.lib.marks.add_tags([papers[1].id], ["alpha"])
    d.lib.marks.add_tags([papers[2].id], ["beta"])
    panel = d.main.query_one("#all-tags", TagList)
    d.main.query_one("TagPanel").refresh_tags()
    await d.settle()
    panel.highlighted = 1 if d.key_fired == "tags.previous" else 0
    await fire()
    assert panel.highlighted == (0 if d.key_fired == "tags.previous" else 1)


@scenario("tags.filter")
async def _tag_filter(d: Drive, fire: Fire) -> None:
    papers = d.lib.corpus.papers
    d.lib.marks.add_tags([papers[3].id], ["gamma"])
    d.main.query_one("TagPanel").refresh_tags()
    await d.settle()
    panel = d.main.query_one("#all-tags", TagList)
    panel.highlighted = next(i for i in range(panel.option_count) if "#gamma " in str(panel.get_option_at_index(i).prompt))
    await fire()
    await d.settle()
    assert d.main.query_text == "tag:gamma"
    assert [int(i) for i in d.main.results.indices] == [3]


@scenario("tags.back")
async def _tags_back(d: Drive, fire: Fire) -> None:
    await fire()
    assert d.app.focused is d.main.results and not d.main.has_class("-tagging")


# ------------------------------------------------------------------ dialogs
@scenario("note.save", "note.cancel")
async def _note(d: Drive, fire: Fire) -> None:
    pid, _, _, _, before = d.current()
    d.app.screen.query_one(TextArea).insert("a surface note")
    await d.settle()
    await fire()
    if d.key_fired == "note.cancel":  # asks before dropping what was typed
        assert isinstance(d.app.screen, ConfirmScreen)
        await d.press(d.key("confirm.yes"))
    assert not isinstance(d.app.screen, NoteScreen)
    await d.pilot.pause(0.05)
    await d.settle()
    assert d.lib.annotation(pid).note == ((before + "a surface note").strip() if d.key_fired == "note.save" else before)


@scenario("confirm.yes", "confirm.no")
async def _confirm(d: Drive, fire: Fire) -> None:
    n = len(d.lib)
    pid = d.main.current_paper_id()
    await fire()
    await d.pilot.pause(0.05)
    await d.settle()
    assert not isinstance(d.app.screen, ConfirmScreen)
    if d.key_fired == "confirm.yes":
        assert len(d.lib) == n - 1 and d.lib.corpus.index_of(pid) is None
    else:
        assert len(d.lib) == n


@scenario("help.close", "dashboard.close", "team.close", "topics.close", "import.cancel", "export.cancel",
          "fetch.cancel")
async def _closes(d: Drive, fire: Fire) -> None:
    kind = type(d.app.screen)
    n = len(d.lib)
    await fire()
    assert not isinstance(d.app.screen, kind) and d.app.screen is d.main
    assert len(d.lib) == n


@scenario("help.scroll_down", "help.scroll_up", "dashboard.scroll_down", "dashboard.scroll_up", "help.first", "help.last",
          "dashboard.first", "dashboard.last")
async def _help_scrolls(d: Drive, fire: Fire) -> None:
    from textual.containers import VerticalScroll
    body = d.app.screen.query_one(VerticalScroll)
    size = d.app.size
    if body.max_scroll_y < 5:  # (the sample's dashboard fits a tall terminal: a short one it does not)
        await d.pilot.resize_terminal(size.width, 14)
        await d.settle()
    assert body.max_scroll_y >= 5, body.max_scroll_y  # (taller than the screen: a scroll shows)
    if d.key_fired.endswith(("scroll_up", "first")):
        body.scroll_to(y=5, animate=False)
        await d.settle()
    before = body.scroll_y
    await fire()
    await d.settle()
    if d.key_fired.endswith(("first", "last")):
        assert body.scroll_y == (0 if d.key_fired.endswith("first") else body.max_scroll_y) != before, before
    else:
        assert body.scroll_y == (before + 1 if d.key_fired.endswith("scroll_down") else before - 1), (before, body.scroll_y)
    if d.app.size != size:
        await d.pilot.resize_terminal(size.width, size.height)
        await d.settle()


@scenario("topics.down", "topics.up", "topics.open", "topics.first", "topics.last")
async def _topic_keys(d: Drive, fire: Fire) -> None:
    from textual.widgets import OptionList
    options = d.app.screen.query_one(OptionList)
    title = d.app.screen.query_one("#topics-title")
    for _ in range(400):  # (the topic map is made in a thread: the title says when it is shown)
        if "building" not in str(title.render()):
            break
        await d.pilot.pause(0.05)
    if len(d.lib) < 10:  # (the sample, once an import replaced it: too few papers for topics)
        assert options.option_count == 0
        await fire()
        await d.settle()
        assert isinstance(d.app.screen, TopicsScreen)  # (nothing to move to or open: nothing happens)
        return
    assert options.option_count >= 2, options.option_count
    options.highlighted = 1 if d.key_fired in ("topics.up", "topics.first", "topics.last") else 0
    await d.settle()
    await fire()
    await d.settle()
    if d.key_fired == "topics.open":
        assert d.app.screen is d.main and d.main.query_text.startswith("topic:"), d.main.query_text
    elif d.key_fired == "topics.first":
        assert options.highlighted == 0
    elif d.key_fired == "topics.last":
        assert options.highlighted == options.option_count - 1 and options.option_count > 2
    else:
        assert options.highlighted == (1 if d.key_fired == "topics.down" else 0)


@scenario("team.down", "team.up", "team.open", "team.marks")
async def _team_keys(d: Drive, fire: Fire) -> None:
    from textual.widgets import OptionList

    from store.library import Library
    first = [next(iter(d.lib.corpus)).id]  # (two members: ana with a share and a star, ben with a star;
    d.lib.team.assign(["ana"], first)        # an import may have left the library one paper)
    Library(d.lib.folder, member="ana").marks.set_star(first, 1)
    Library(d.lib.folder, member="ben").marks.set_star(first, 2)
    d.lib.refresh()
    d.app.pop_screen()
    await d.act("app.team")  # (listed as they are now)
    options = d.app.screen.query_one(OptionList)
    names = [options.get_option_at_index(i).id for i in range(options.option_count)]
    assert {"ana", "ben"} <= set(names), names
    start = names.index("ben") if d.key_fired in ("team.up", "team.marks") else names.index("ana")
    options.highlighted = start
    await d.settle()
    await fire()
    await d.settle()
    if d.key_fired == "team.open":
        assert d.app.screen is d.main and d.main.query_text == "assigned:ana", d.main.query_text
        assert set(d.main.results.shown_ids()) == {pid for pid, who in d.lib.assignments.items() if who == "ana"}
    elif d.key_fired == "team.marks":
        assert d.app.screen is d.main and d.main.query_text == "by:ben", d.main.query_text
    else:
        assert options.highlighted == start + (1 if d.key_fired == "team.down" else -1)


@scenario("import.run")
async def _import_run(d: Drive, fire: Fire) -> None:
    dump = d.tmp / "one.txt"
    dump.write_text("Surface 2026 Papers\n\nWe train a quadruped to open doors with a learned world model "
                    "and show that it transfers from simulation to four real buildings.\n")
    n = len(d.lib)
    box = d.app.screen.query_one("#import-path")
    box.value = str(dump)
    await d.settle()
    await fire()
    await d.pilot.pause(0.1)
    await d.settle()
    said = " ".join(d.new_notices())
    # The first import into the bundled sample replaces it (and says so); else the paper joins.
    assert len(d.lib) == (1 if f"replaced the {n} bundled sample papers" in said else n + 1), said
    assert [p.id for p, _ in d.lib.pairs("quadruped doors")] != [], said


@scenario("fetch.run")
async def _fetch_run(d: Drive, fire: Fire) -> None:
    """The categories typed, the fetch key: arXiv (a local stand-in) is asked for them, the feed is
    kept in fetched/ and its papers join the library as one batch."""
    from store.ingest import arxiv_fetch

    from .arxiv_server import Recorded, day
    server = Recorded([(200, {}, day(1))])
    saved = arxiv_fetch.API, arxiv_fetch.DELAY
    arxiv_fetch.API, arxiv_fetch.DELAY = server.url, 0.0
    try:
        d.app.screen.query_one("#fetch-categories").value = "cs.LG cs.RO"
        d.app.screen.query_one("#fetch-since").value = "2024-11-01"
        await d.settle()
        n = len(d.lib)
        await fire()
        for _ in range(100):  # the fetch's worker, then the import's, then the papers arriving
            await d.settle()
            if len(d.lib) != n:
                break
            await d.pilot.pause(0.05)
    finally:
        arxiv_fetch.API, arxiv_fetch.DELAY = saved
        server.close()
    assert d.app.screen is d.main
    assert server.requests and server.requests[0]["search_query"] == ["cat:cs.LG OR cat:cs.RO"], server.requests
    assert list((d.lib.folder / "fetched").glob("arxiv-cs.LG-cs.RO-*.xml"))
    said = " ".join(d.new_notices())
    assert len(d.lib) > n or "replaced the" in said, said


@scenario("export.run")
async def _export_run(d: Drive, fire: Fire) -> None:
    pid = d.main.current_paper_id()
    d.lib.marks.set_status([pid], "to-read")  # the default scope: the to-read list
    dest = d.tmp / "reading-list.md"
    d.app.screen.query_one("#dest").value = str(dest)
    await d.settle()
    await fire()
    await d.settle()
    assert dest.exists() and pid in dest.read_text() or d.lib.paper(pid).title in dest.read_text()
