"""The dialogs and panels over the main screen (tui/screens/, tui/widgets/tagpanel.py): tags,
notes, help and keymaps, the palette, export, import, the dashboard and the recommended list."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from textual.widgets import Label, TextArea

from store import Library
from tui.screens.confirm import ConfirmScreen
from tui.screens.help import HelpScreen
from tui.screens.note import NoteScreen

from ..conftest import DATA, bib_entries
from .driving import cur, screen, settle


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_dialogs_fit_a_narrow_terminal(lib, make):
    """The export dialog (84 columns wide) and the confirm box (60) shrink to the screen, borders shown."""
    from textual.containers import Vertical
    app = make(lib)
    async with app.run_test(size=(56, 24)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await pilot.pause()
        box = app.screen.query_one(Vertical)
        assert box.region.x >= 0 and box.region.right <= 56, box.region
        app.push_screen(ConfirmScreen("Replace the file?"))
        await pilot.pause()
        box = app.screen.query_one(Vertical)
        assert box.region.x >= 0 and box.region.right <= 56, box.region


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_tag_typeahead_add_remove_and_filter(lib, make):
    lib.marks.add_tags([lib.corpus.papers[5].id], ["reinforcement-learning"])
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("t", *"reinf")
        await pilot.pause()
        panel = screen(app).query_one("#tags")
        assert panel.highlighted_tag() == "reinforcement-learning"  # fuzzy-ranked list follows typing
        assert panel.query_one("#all-tags-title").display
        await pilot.press("right", "enter")  # accept the inline completion, add it
        pid, ann = cur(app)
        assert ann.tags == ["reinforcement-learning"]
        await pilot.press(*"new-idea", "enter")
        assert app.library.annotation(pid).tags == ["reinforcement-learning", "new-idea"]
        await pilot.press(*"-new-idea", "enter")
        assert app.library.annotation(pid).tags == ["reinforcement-learning"]
        await pilot.press("ctrl+f")                 # nothing picked in the emptied box: it says so
        await settle(pilot)
        assert [n.message for n in app._notifications][-1] == "Pick a tag first: type it, or ↓ to highlight one"
        await pilot.press("down", "ctrl+f")
        await settle(pilot)
        assert screen(app).query_one("#search").value == "tag:reinforcement-learning"
        assert screen(app).results.border_title.startswith("2 / 35")
        assert app.focused is screen(app).results


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_tag_list_keys_back_and_filter(lib, make):
    """T focuses the list of all tags: enter adds the highlighted tag, ctrl+f filters by it and
    escape goes back to the results, hiding the panel again on an 80-column terminal."""
    ids = [p.id for p in lib.corpus]
    lib.marks.add_tags(ids[3:5], ["agents"])
    app = make(lib)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        main = screen(app)
        await pilot.press("T")
        await pilot.pause()
        assert main.has_class("-tagging") and app.focused.id == "all-tags"
        await pilot.press("enter")                      # the highlighted tag, on the paper under the cursor
        await pilot.pause()
        assert app.library.annotation(ids[0]).tags == ["agents"]
        await pilot.press("T", "escape")
        await pilot.pause()
        assert not main.has_class("-tagging") and app.focused is main.results
        await pilot.press("T", "ctrl+f")
        await settle(pilot)
        assert main.query_one("#search").value == "tag:agents" and main.results.border_title.startswith("3 / 35")
        assert not main.has_class("-tagging") and app.focused is main.results


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_note_editor_saves_and_asks_before_discarding(lib, make):
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, NoteScreen)
        await pilot.press(*"first line", "enter", *"second", "ctrl+s")
        await pilot.pause()
        assert cur(app)[1].note == "first line\nsecond"
        await pilot.press("e", *" more", "escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, NoteScreen)  # still editing, text kept
        await pilot.press("escape", "y")
        await pilot.pause()
        assert app.screen is screen(app) and cur(app)[1].note == "first line\nsecond"
        await pilot.press("e", "escape")  # unchanged: closes without asking
        await pilot.pause()
        assert app.screen is screen(app)
        said = [n.message for n in app._notifications]
        assert said[-1] == "note saved"
        await pilot.press("e", "down", "down", "end", *["backspace"] * 20, "ctrl+s")  # emptied: said as cleared
        await settle(pilot)
        assert cur(app)[1].note == "" and [n.message for n in app._notifications][-1] == "note cleared"


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_an_unsaved_note_survives_the_app_closing(lib, make):
    """Text typed in the note editor is kept as a draft until saved or discarded: the app
    closing with the editor open (a closed terminal, a crash) loses nothing."""
    pid = lib.corpus.papers[0].id
    lib.marks.set_note(pid, "saved line")
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.press("e", *" and a long thought")
        await pilot.pause(0.8)  # the draft is written half a second after typing stops
        assert Library(lib.folder).drafts.get(pid)[0] == "saved line and a long thought"
        await pilot.press(*" that goes on")  # typed just before the app closes: kept on the way out
    assert app.library.annotation(pid).note == "saved line"  # never saved...
    again = make(Library(lib.folder))
    async with again.run_test() as pilot:
        await pilot.press("e")
        await pilot.pause()
        assert again.screen.query_one(TextArea).text == "saved line and a long thought that goes on"
        assert any("unsaved draft" in n.message for n in again._notifications)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert again.library.annotation(pid).note == "saved line and a long thought that goes on"
        assert again.library.drafts.get(pid) is None  # saved: the draft is gone
        await pilot.press("e", *" scratch")
        await pilot.pause(0.8)
        assert again.library.drafts.get(pid) is not None
        await pilot.press("escape", "y")  # discarded: so is its draft
        await pilot.pause()
        assert again.library.drafts.get(pid) is None
        assert again.library.annotation(pid).note == "saved line and a long thought that goes on"


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_the_note_editor_draws_no_escape_sequence(lib, make):
    """A note holding escape sequences (saved by the command line, or a colleague's): the editor
    drew them to the terminal as they were (a window title set to the note's text); it shows the
    note cleaned, and a paste holding them goes in clean."""
    from textual import events

    pid = lib.corpus.papers[0].id
    lib.marks.set_note(pid, "plain \x1b]0;PWNED\x07 after \x1b[5mblink")
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.press("e")
        await pilot.pause()
        area = app.screen.query_one(TextArea)
        assert area.text == "plain  after blink"
        area.post_message(events.Paste("\x1b[31mred\x1b[0m\x07 pasted"))
        await pilot.pause()
        assert "\x1b" not in area.text and "\x07" not in area.text and "red pasted" in area.text


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_note_saved_elsewhere_while_editing_is_not_written_over(lib, make):
    """The command line saves a note while the app's editor is open on it: the app's save says
    so and changes nothing, its text kept as a draft; saved again from there, it replaces it."""
    pid = lib.corpus.papers[0].id
    lib.marks.set_note(pid, "first")
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.press("e", *" from the app")
        await pilot.pause()
        Library(lib.folder).marks.set_note(pid, "from the command line")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert Library(lib.folder).annotation(pid).note == "from the command line"
        said = [n.message for n in app._notifications][-1]
        assert said.startswith("not saved: this note was changed elsewhere") and "kept as a draft" in said, said
        await pilot.press("e")
        await pilot.pause()
        assert app.screen.query_one(TextArea).text == "first from the app"  # the draft, offered back
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert Library(lib.folder).annotation(pid).note == "first from the app"
        assert [n.message for n in app._notifications][-1] == "note saved"


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_help_screen_shows_live_keymap(lib, make):
    app = make(lib, '[main]\nread = "R"\n')
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        svg = app.export_screenshot()
        assert "main.read" in svg and "list.cursor_down" in svg
        from rich.console import Console
        from rich.table import Table

        from tui.screens.help import keys_table
        console = Console(width=120, record=True)
        console.print(keys_table(app.current_keymap()))
        lines = console.export_text().splitlines()
        row = next(l for l in lines if "main.read" in l)
        assert row.split()[0] == "R"
        assert any(l.split()[:2] == ["ctrl+p", "Commands:"] for l in lines)  # Textual's palette (the footer shows it)
        # In keymap.toml's order (triage keys together), not alphabetical by id.
        ids = [l.split()[-1] for l in lines if l.split() and l.split()[-1].startswith("main.")]
        assert ids[:5] == ["main.search", "main.read", "main.to_read", "main.skipped", "main.unread"]
        # the search syntax too, every form of it one the parser takes as a filter or ordering, not as
        # words (or as words joined by OR)
        assert isinstance(app.screen.query_one("#search-syntax").content, Table)
        console.print(app.screen.query_one("#search-syntax").content)
        assert "author:peyre" in console.export_text()
        from store.search.query import parse_query
        from tui.screens.help import SEARCH_SYNTAX
        for form, _ in SEARCH_SYNTAX[1:]:
            q = parse_query(form)
            assert not q.errors and (bool(q.either) or not q.words and bool(q.has_filters or q.similar or q.recommend)), form
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen(app)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_user_keymap_overrides_an_action(lib, make):
    app = make(lib, '[main]\nread = "R"\n[list]\ncursor_down = ["ctrl+n", "j"]\n')
    async with app.run_test() as pilot:
        await pilot.press("r")
        assert app.library.annotations == {}
        await pilot.press("R", "ctrl+n")
        assert app.library.annotation(app.library.corpus.papers[0].id).status == "read"
        assert screen(app).results.cursor == 2


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_hints_name_the_keys_of_the_live_keymap(lib, make):
    """Text that names a key ("press t", "ctrl+s save") follows a user's keymap, as the footer does."""
    from textual.widgets import Input, Label, Static
    app = make(lib, '[main]\nsearch = "f"\ntag = "v"\nnote = "E"\n[note]\nsave = "ctrl+o"\n'
                    '[dashboard]\nclose = "c"\n')
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert screen(app).query_one("#search", Input).placeholder.startswith("f search")
        assert "press v" in str(screen(app).query_one("#paper-tags", Static).render())
        assert not screen(app).query_one("#all-tags-title").display  # no tags yet: no empty "All tags" list
        await pilot.press("E")
        await settle(pilot)
        label = str(app.screen.query_one(Label).render())
        assert "ctrl+o save" in label and "esc cancel" in label
        # The dialog's own footer: its keys, not the triage keys of the screen below.
        from textual.widgets._footer import FooterKey
        shown = {k.description for k in app.screen.query(FooterKey)}
        assert "Save note" in shown and "Read" not in shown
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert "c closes" in str(app.screen.query_one(Label).render())
        await pilot.press("c")
        await settle(pilot)
        assert app.screen is screen(app)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
@pytest.mark.parametrize("text,expected", [
    ('[main\nread = "R"\n', "line 1: invalid TOML"),
    ('[main]\nfly = "f"\n', "line 2: unknown action 'main.fly'"),
    ('[main]\nread = "ctrl+bogus"\n', "unknown key name 'ctrl+bogus'"),
    ('[main]\n\nread = "s"\n', "line 3: key 's' is bound to both"),
    # keys a text box takes first never fire: typed in the search box, ctrl+w deletes a word in the note
    ('[search]\ndone = "q"\n', "line 2: search.done: key 'q' would never reach it"),
    ('[note]\nsave = ["ctrl+s", "ctrl+w"]\n', "line 2: note.save: key 'ctrl+w' would never reach it"),
])
async def test_bad_keymap_is_reported_and_defaults_kept(lib, make, text, expected):
    app = make(lib, text)
    async with app.run_test() as pilot:
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert any(expected in m and "keymap.toml" in m for m in messages), messages
        await pilot.press("r")  # the default still works
        assert app.library.annotation(app.library.corpus.papers[0].id).status == "read"


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_command_palette_runs_actions(lib, make):
    app = make(lib)
    async with app.run_test() as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"To-read")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert app.library.annotation(app.library.corpus.papers[0].id).status == "to-read"
        # the results list's commands too: select all, then the last paper
        for command in ("Select all", "Last"):
            await pilot.press("ctrl+p")
            await pilot.pause()
            await pilot.press(*command)
            await pilot.pause(0.3)
            await pilot.press("enter")
            await pilot.pause(0.3)
        assert len(screen(app).results.selected) == 35 and screen(app).results.cursor == 34


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_narrow_terminal_hides_tag_panel_until_used(lib, make):
    app = make(lib)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        tags = screen(app).query_one("#tags")
        assert tags.display is False or not tags.region.width
        await pilot.press("t")
        await pilot.pause()
        assert tags.region.width > 0
        await pilot.press(*"x", "enter", "escape")
        await pilot.pause()
        assert not tags.region.width and cur(app)[1].tags == ["x"]
        box = screen(app).query_one("#tag-input")
        await pilot.press("t", *"half", "escape")  # a tag typed, then left: the next `t` starts empty
        await pilot.pause()
        assert box.value == "" and cur(app)[1].tags == ["x"]
        await pilot.press("t")
        await pilot.pause()
        assert box.value == "" and app.focused is box
        await pilot.press(*"zzz", "tab", "tab")  # left another way: tab, out of the panel
        await pilot.pause()
        while screen(app).tag_panel in app.focused.ancestors_with_self:
            await pilot.press("tab")
            await pilot.pause()
        assert not screen(app).has_class("-tagging") and box.value == "" and not tags.region.width
        await pilot.press("escape", "escape")
        await pilot.pause()
        if app.focused is not screen(app).results:
            screen(app).set_focus(screen(app).results)
        await pilot.press("j", "t", "enter")  # the next `t` starts empty: enter applies nothing
        await pilot.pause()
        assert "zzz" not in cur(app)[1].tags


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_export_scope_everything_annotated_in_library_order(lib, make):
    ids = [p.id for p in lib.corpus]
    lib.marks.set_star([ids[20]], 1)
    lib.marks.add_tags([ids[3]], ["later"])
    lib.marks.set_status([ids[9]], "skipped")
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("x")
        await pilot.pause()
        assert [p.id for p, _ in app.screen._pairs("annotated")] == [ids[3], ids[9], ids[20]]


async def test_the_export_dialog_shows_its_buttons_at_80_by_24(lib, make):
    """At 80x24 the dialog's Export and Cancel buttons stood below its last line, cut off (only
    the footer's keys were left): they stand beside the destination, inside the dialog."""
    app = make(lib)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("x")
        await pilot.pause()
        dialog = app.screen.query_one("ExportScreen > Vertical").region
        inside = dialog.shrink((1, 1, 1, 1))  # (within its border)
        for button in ("#run", "#cancel", "#dest"):
            region = app.screen.query_one(button).region
            assert region.height == 3 and inside.contains_region(region), (button, region, dialog)
        await pilot.click("#cancel")
        await pilot.pause()
        assert app.screen is screen(app)  # (clicked: the dialog closed)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_export_choices_show_the_pick_by_shape_not_only_colour(lib, make):
    """Textual drew every radio button as ● (in two colours): a terminal without colour showed
    eight picked formats. The pick is ●, the rest ○, and it moves with enter."""
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("x")
        await pilot.pause()

        def picked(set_id: str) -> list[str]:
            buttons = app.screen.query_one(f"#{set_id}").query("RadioButton")
            shown = {b.id: str(b.render()) for b in buttons}
            assert all(("●" in t) != ("○" in t) for t in shown.values()), shown
            return [bid for bid, t in shown.items() if "●" in t]

        assert picked("format") == ["fmt-md"] and picked("scope") == ["scope-list"]  # nothing to read yet
        await pilot.press("down", "enter")
        await pilot.pause()
        assert picked("format") == ["fmt-csv"]


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_every_scope_of_the_export_dialog_carries_every_members_marks(lib, make, tmp_path):
    """In a lab's library, the dialog's "current list" and "everything I annotated" exports left
    out the other members' marks that `papersift export` and the whole library's export carry."""
    pid = lib.corpus.papers[0].id
    lib.marks.set_star([pid], 1)
    Library(lib.folder, member="ana").marks.set_star([pid], 2)
    lib.refresh()
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for scope in ("list", "annotated", "all"):
            await pilot.press("x")
            await pilot.pause()
            app.screen.query_one(f"#scope-{scope}").value = True
            app.screen.query_one("#dest").value = str(tmp_path / f"{scope}.md")
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert app.screen is screen(app), scope
            assert "ana ★★" in (tmp_path / f"{scope}.md").read_text(), scope


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_export_choices_say_how_many_papers_and_a_missing_folder_is_offered(lib, make, tmp_path):
    """Each choice of papers shows its count; with nothing marked to read, the dialog starts on the
    current list and says why; a destination in a folder that does not exist asks to create it."""
    lib.marks.set_status([p.id for p in list(lib.corpus)[:2]], "skipped")
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await pilot.pause()
        labels = {b.id: str(b.label) for b in app.screen.query_one("#scope").query("RadioButton")}
        shown = len(screen(app).results.indices)  # no query: the whole list
        assert labels["scope-list"] == f"the current list ({shown:,})" and labels["scope-to-read"] == "my to-read list (0)"
        assert labels["scope-annotated"] == "everything I annotated (2)" and labels["scope-all"] == f"the whole library ({len(lib):,})"
        assert app.screen.query_one("#scope").pressed_button.id == "scope-list"
        assert "nothing is marked to read yet" in str(app.screen.query_one("#scope-why").render())
        app.screen.query_one("#dest").value = "  "
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert [n.message for n in app._notifications][-1] == "type a file path, or clipboard"
        (tmp_path / "x.bib").write_text("")
        app.screen.query_one("#dest").value = str(tmp_path / "x.bib" / "sub" / "list.md")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert [n.message for n in app._notifications][-1] == f"{tmp_path / 'x.bib'} is a file, not a folder"
        target = tmp_path / "new" / "deeper" / "list.md"
        app.screen.query_one("#dest").value = str(target)
        app.screen.query_one("#dest").focus()
        await pilot.press("enter")  # enter in the destination exports, as ctrl+s does
        await pilot.pause()
        assert "does not exist. Create it" in str(app.screen.query_one(Label).render())
        await pilot.press("y")
        await pilot.pause()
        assert app.screen is screen(app) and target.is_file()
        assert [n.message for n in app._notifications][-1].endswith(f"papers as Markdown reading list to {target}")


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_the_export_destination_takes_the_whole_ending_of_each_format(lib, make, tmp_path):
    """RIS chosen after CSL-JSON named the file papersift-lib.csl.ris (.json alone was replaced):
    a format's whole ending gives way to the next one's."""
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("x")
        await pilot.pause()
        dest = app.screen.query_one("#dest")
        await pilot.press(*["down"] * 6, "enter")  # CSL-JSON
        await pilot.pause()
        assert dest.value.endswith(f"papersift-{lib.name}.csl.json"), dest.value
        await pilot.press("down", "enter")  # RIS
        await pilot.pause()
        assert dest.value.endswith(f"papersift-{lib.name}.ris"), dest.value
        await pilot.press("up", "up", "enter")  # Org
        await pilot.pause()
        assert dest.value.endswith(f"papersift-{lib.name}.org"), dest.value
        # a name typed whose ending names another format: said in the dialog, nothing written (it
        # wrote the Org text to annot.md, "exported 17 papers as Org to annot.md")
        dest.value = str(tmp_path / "annot.md")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not (tmp_path / "annot.md").exists() and app.screen.query_one("#dest")
        assert any("annot.md ends as Markdown reading list, and" in n.message for n in app._notifications), [n.message for n in app._notifications]
        dest.value = str(tmp_path / "annot.txt")  # (an ending no format names: as typed)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert (tmp_path / "annot.txt").read_text().startswith("#+title")


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_export_dialog_to_file_and_clipboard(lib, make, tmp_path):
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("a", "a", "x")
        await pilot.pause()
        await pilot.press("down", "down", "down", "down", "enter")  # BibTeX
        dest = app.screen.query_one("#dest")
        bracketed = tmp_path / "[papers]" / "out.bib"  # the notice names the file as it is, no markup
        bracketed.parent.mkdir()
        dest.value = str(bracketed)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen(app)
        assert len(bib_entries(bracketed.read_text())) == 2
        assert [n.message for n in app._notifications][-1] == f"exported 2 papers as BibTeX to {bracketed}"
        # the same file again: it asks before replacing; `n` keeps the file and the dialog
        (tmp_path / "out.bib").write_text("% my edits\n")
        await pilot.press("x")
        await pilot.pause()
        assert app.screen.query_one("#format").pressed_button.id == "fmt-bibtex"  # the last export's
        app.screen.query_one("#dest").value = str(tmp_path / "out.bib")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "Replace it?" in str(app.screen.query_one(Label).render())
        await pilot.press("n")
        await pilot.pause()
        assert (tmp_path / "out.bib").read_text() == "% my edits\n" and app.screen.query_one("#dest")
        app.screen.query_one("#dest").value = str(tmp_path)  # a folder is refused
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen.query_one("#dest") and any("is a folder" in n.message for n in app._notifications)
        app.screen.query_one("#dest").value = str(tmp_path / "out.bib")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert app.screen is screen(app)
        assert len(bib_entries((tmp_path / "out.bib").read_text())) == 2
        await pilot.press("x")
        await pilot.pause()
        app.screen.query_one("#dest").value = "clipboard"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert len(bib_entries(app.clipboard)) == 2  # BibTeX again, as last time


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_tag_panel_offers_the_papers_keywords_as_tags(lib, make, tmp_path):
    """On a paper with keywords, the tag panel lists them as tags it could take ("Offline RL" ->
    offline-rl); T, a keyword, enter tags the paper with it; ctrl+f on a keyword not yet a tag
    lists the papers with that keyword; papers without keywords offer none."""
    rows = [{"abstract": "We study offline reinforcement learning from logged data with a new pessimistic value method.",
             "keywords": ["Offline RL", "A" * 80]},
            {"abstract": "Robots learn to grasp from videos of people, and a pessimistic critic keeps them safe.",
             "keywords": ["Offline RL", "Pessimism"], "primary_area": "robotics"}]
    (tmp_path / "k.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    lib.paper_changes.import_paths([tmp_path / "k.jsonl"])
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        panel = screen(app).query_one("#tags")

        def offered() -> list[str]:
            options = panel.query_one("#all-tags")
            return [Text.from_markup(str(options.get_option_at_index(k).prompt)).plain
                    for k in range(options.option_count)]

        assert offered() == []  # a seed paper: no keywords
        await pilot.press("G")  # the second JSON paper
        await settle(pilot)
        assert offered() == ["#offline-rl keyword", "#pessimism keyword", "#robotics area"]
        assert str(panel.query_one("#all-tags-title").render()) == "This paper's keywords, as tags"  # no tag yet
        await pilot.press("k")  # the first: its 80-letter keyword is too long for a tag
        await settle(pilot)
        assert offered() == ["#offline-rl keyword"]
        await pilot.press("T", "enter")
        await settle(pilot)
        pid, ann = cur(app)
        assert ann.tags == ["offline-rl"] and offered() == ["#offline-rl 1"]
        await pilot.press("escape", "G")  # back to the list, then its last paper
        await settle(pilot)
        assert offered() == ["#offline-rl 1", "#pessimism keyword", "#robotics area"]
        await pilot.press("T", "down", "ctrl+f")
        await settle(pilot)
        assert screen(app).query_one("#search").value == 'kw:"Pessimism"'
        assert screen(app).results.border_title.startswith("1 / 37")


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_import_dialog_adds_papers_without_leaving_the_app(lib, make, tmp_path, monkeypatch):
    """i opens the import dialog: a path (completed as typed), enter; the import runs in a thread
    and its papers arrive in the list. A missing path is named in the dialog; a malformed file is
    named with its line and changes nothing; escape cancels."""
    good = tmp_path / "icml.txt"
    good.write_text("ICML 2024 Papers\n\nWe study grokking in small transformers trained on modular arithmetic "
                    "and show that weight decay drives the late jump in test accuracy.\n")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"abstract": "fine one, long enough to count as an abstract here."}) + "\n{oops\n")
    monkeypatch.chdir(tmp_path)  # paths are typed relative to where papersift runs
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)

        async def import_path(*keys: str) -> None:
            await pilot.press("i")
            await pilot.pause()
            await pilot.press(*keys)
            await settle(pilot)
            screen(app).sync.poll()  # what its 2-second timer runs
            await settle(pilot)

        def said() -> str:
            return " ".join(str(n.message) for n in app._notifications)

        await pilot.press("i")
        await pilot.pause()
        await pilot.press("enter")                                 # nothing typed: it says what to type
        await pilot.pause()
        assert "type the path of a file or folder" in str(app.screen.query_one("#import-error").render())
        await pilot.press(*"nowhere.txt", "enter")
        await pilot.pause()
        assert "no such file or folder" in str(app.screen.query_one("#import-error").render())
        await pilot.press("backspace")                             # another path now: the error goes
        await pilot.pause()
        assert str(app.screen.query_one("#import-error").render()) == ""
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen(app)
        await import_path(*"ba", "right", "enter")  # completed to bad.jsonl
        assert "bad.jsonl, line 2" in said() and len(app.library) == 35
        assert screen(app).sync.imports == []  # (the quit line says nothing of it)
        app.library.marks.set_star([app.library.corpus.papers[0].id], 1)  # an annotated sample stays
        await import_path(*"icm", "right", "enter")
        assert "read 1 abstract from 1 file: 1 new" in said() and "sample papers stay" in said()
        assert screen(app).results.border_title.startswith("36 / 36") and len(Library(lib.folder)) == 36
        assert screen(app).sync.imports == [(1, Library(lib.folder).corpus.papers[-1].batch)]  # for the quit line
        await pilot.press("slash", *"venue:icml", "enter")
        await settle(pilot)
        assert screen(app).results.border_title.startswith("1 / 36")



@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_a_file_the_import_would_refuse_at_once_is_said_in_the_dialog_which_stays_open(lib, make, tmp_path,
                                                                                          monkeypatch):
    """A binary file, or a folder with nothing to import, typed in the import dialog: the dialog
    closed and a notice said why, so the keys typed to put the path right went to the list. It
    stays open, says why under the path, and the path put right imports."""
    from tui.screens.import_dialog import ImportScreen
    (tmp_path / "paper.pdf").write_bytes(b"%PDF-1.7\x00\x01")
    (tmp_path / "pics").mkdir()
    (tmp_path / "pics" / "a.png").write_bytes(b"\x89PNG")
    (tmp_path / "papers.txt").write_text("D\n\nWe study grokking in small transformers trained on modular "
                                         "arithmetic and show that weight decay drives the late jump.\n")
    monkeypatch.chdir(tmp_path)
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await pilot.pause()
        for typed, said in (("paper.pdf", "paper.pdf: binary data (NUL byte at byte offset 8)"),
                            ("pics", "pics: folder holds no importable files")):
            await pilot.press(*typed, "enter")
            await settle(pilot)
            assert isinstance(app.screen, ImportScreen), typed
            assert said in str(app.screen.query_one("#import-error").render()), typed
            await pilot.press(*["backspace"] * len(typed))
        await pilot.press(*"papers.txt", "enter")
        await settle(pilot)
        assert app.screen is screen(app)
        for _ in range(20):
            screen(app).sync.poll()
            await settle(pilot)
            if any("grokking" in p.abstract for p in app.library.corpus.papers):
                break
        assert any("grokking" in p.abstract for p in Library(lib.folder).corpus.papers)  # (it replaced the sample)


async def test_enter_on_a_completed_name_imports_what_the_box_shows_or_names_the_candidates(lib, make, tmp_path, monkeypatch):
    """→ completes a name as far as its candidates agree ("day1" for day1.jsonl and day1_dump.txt), the
    rest shown grey after it: enter then said "no such file or folder: …/day1". With one candidate
    left it imports the one the box shows; with several it names them."""
    abstract = "We study grokking in small transformers trained on modular arithmetic and show that weight decay drives it."
    (tmp_path / "day1.jsonl").write_text(json.dumps({"abstract": abstract}) + "\n")
    (tmp_path / "day1_dump.txt").write_text(abstract.replace("grokking", "double descent") + "\n")
    monkeypatch.chdir(tmp_path)
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await pilot.pause()
        await pilot.press(*"da", "right", "enter")
        await pilot.pause()
        said = str(app.screen.query_one("#import-error").render())
        assert "did you mean day1.jsonl or day1_dump.txt?" in said and len(app.library) == 35, said
        await pilot.press("_", "enter")  # one candidate: the box shows day1_dump.txt, and that is imported
        await settle(pilot)
        assert app.screen is screen(app)
        for _ in range(20):
            screen(app).sync.poll()
            await settle(pilot)
            if len(Library(lib.folder)) == 36:
                break
        assert [p.sources[0].file for p in Library(lib.folder).corpus][-1] == "day1_dump.txt"


async def test_the_first_export_goes_to_the_folder_papersift_was_started_in(lib, make, tmp_path, monkeypatch):
    """Not the home folder: a file next to the person's work, named after the library."""
    work = tmp_path / "neurips"
    work.mkdir()
    monkeypatch.chdir(work)
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("x")
        await pilot.pause()
        dest = app.screen.query_one("#dest").value
        assert dest.startswith(str(work) + os.sep) and dest.endswith(".md") and lib.name in dest
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert Path(dest).exists()


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_the_export_dialog_offers_the_last_export_again(lib, make, tmp_path):
    """Format, scope and destination of the last export (not of a refused one), across restarts."""
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("a", "x")
        await pilot.pause()
        await pilot.press("down", "down", "down", "down", "enter")          # BibTeX
        await pilot.press("tab", "down", "down", "enter")                   # from my to-read list: the whole library
        app.screen.query_one("#dest").value = str(tmp_path / "all.bib")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert len(bib_entries((tmp_path / "all.bib").read_text())) == 35
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("up", "enter")                                   # JSON Lines, to a folder: refused
        app.screen.query_one("#dest").value = str(tmp_path)
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("q")
    again = make(lib)
    async with again.run_test(size=(120, 40)) as pilot:
        await pilot.press("x")
        await pilot.pause()
        dialog = again.screen
        assert dialog.query_one("#format").pressed_button.id == "fmt-bibtex"
        assert dialog.query_one("#scope").pressed_button.id == "scope-all"
        assert dialog.query_one("#dest").value == str(tmp_path / "all.bib")


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_the_export_dialog_starts_on_its_picks_keeps_a_typed_path_and_says_its_scope(lib, make, tmp_path):
    """The keyboard highlight starts on the picked format (not the first row); picking another
    format changes a typed path's extension only; a scope carried from the last export, or a
    selection, is said in the dialog."""
    lib.marks.set_status([p.id for p in lib.corpus][:2], "read")
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("down", "down", "down", "down", "enter")          # BibTeX
        await pilot.press("tab", "down", "down", "down", "enter")  # from the current list (none to read): everything I annotated
        app.screen.query_one("#dest").value = str(tmp_path / "mine.bib")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()
        dialog = app.screen
        assert dialog.query_one("#format").highlighted == 4  # on BibTeX, the pick
        assert str(dialog.query_one("#scope-why").render()) == "Which papers: everything I annotated, as your last export"
        dialog.query_one("#dest").value = str(tmp_path / "talk" / "group.bib")  # typed
        await pilot.press("down", "enter")                                  # the format after BibTeX: Org
        await pilot.pause()
        assert dialog.query_one("#format").pressed_button.id == "fmt-org"
        assert dialog.query_one("#dest").value == str(tmp_path / "talk" / "group.org")
        dialog.query_one("#dest").value = str(tmp_path / "notes-for-ana")    # no format's extension: kept
        await pilot.press("up", "enter")
        await pilot.pause()
        assert dialog.query_one("#dest").value == str(tmp_path / "notes-for-ana")
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("space", "j", "space", "x")                       # two papers selected
        await pilot.pause()
        assert app.screen.query_one("#scope").pressed_button.id == "scope-selection"
        assert str(app.screen.query_one("#scope-why").render()) == "Which papers: the 2 selected papers"


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_enter_in_the_tag_box_takes_the_highlighted_completion_and_new_tags_are_explicit(lib, make):
    """The reported case: with #bandits in the library, `t` `ba` Enter added #ba. Enter now takes
    the highlighted row; a new tag is its own row ("+ new tag"), first when no tag starts so."""
    lib.marks.add_tags([lib.corpus.papers[5].id], ["bandits"])
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        pid = cur(app)[0]
        await pilot.press("t", "b", "a")
        await pilot.pause()
        panel = screen(app).query_one("#tags")
        options = panel.query_one("#all-tags")
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert prompts[0].startswith("#bandits") and '+ new tag "ba"' in prompts
        await pilot.press("enter")
        assert app.library.annotation(pid).tags == ["bandits"]     # not #ba
        await pilot.press(*"ba", "down", "enter")                    # the "+ new tag" row, chosen
        assert app.library.annotation(pid).tags == ["bandits", "ba"]
        await pilot.press(*"quokka", "enter")                        # no tag starts so: a new tag at once
        assert app.library.annotation(pid).tags == ["bandits", "ba", "quokka"]
        await pilot.press(*"-quok", "enter")                         # '-' removes the highlighted tag
        assert app.library.annotation(pid).tags == ["bandits", "ba"]
        footer = app.export_screenshot().replace("&#160;", " ")
        assert "Add highlighted" in footer and "Next tag" in footer


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_the_recommended_list_learns_from_a_star_and_says_why(tmp_path, make):
    """rec:stars lists papers like the starred ones; starring another re-ranks it (in a worker);
    the reader says why ("recommended because: … · like ★ …")."""
    lib = Library.open(tmp_path / "lib", seed_if_new=False)
    lib.paper_changes.import_paths([DATA / "iclr_slice.jsonl"])
    lib.marks.set_star([lib.corpus.papers[0].id], 3)
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        # typed a key at a time, rec:sta is on its way to rec:stars, not a tag "sta" no paper has (the
        # list said "0 / 119 · nothing to learn from: no tag 'sta' yet" until the word was done)
        await pilot.press("slash", *"rec:sta")
        await settle(pilot)
        from .screentext import screen_lines
        assert len(screen(app).results.indices) and not any("no tag '" in line for line in screen_lines(app))
        await pilot.press(*"rs", "enter")
        await settle(pilot)
        before = screen(app).results.indices[:10].tolist()
        import io

        from rich.console import Console
        console = Console(width=300, file=io.StringIO(), record=True)
        console.print(screen(app).query_one("#reader-body").content)
        body = console.export_text()
        assert "recommended because:" in body and "like ★" in body
        await pilot.press("plus")                         # a star on the top recommendation
        for _ in range(100):
            await settle(pilot)
            after = screen(app).results.indices[:10].tolist()
            if after != before:
                break
        assert after != before


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_help_clears_the_first_starts_notice(lib, make):
    """The first start's notice says to press ? for every key; the help it opens is not covered by it."""
    app = make(lib)
    app.first_start = True
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert any("sample abstract" in n.message for n in app._notifications)
        await pilot.press("question_mark")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen" and not list(app._notifications)



@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_enter_on_an_empty_tag_box_says_what_to_do_and_a_picked_row_is_added(lib, make):
    """`t` then enter did nothing at all. With the box empty no row looks picked; enter says how
    to pick one, ↓ picks the first and enter adds it; the list's title says what it holds."""
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        pid = cur(app)[0]
        panel = screen(app).query_one("#tags")
        options = panel.query_one("#all-tags")
        title = panel.query_one("#all-tags-title")
        await pilot.press("t", "enter")                     # no tag in the library yet
        await settle(pilot)
        assert [n.message for n in app._notifications][-1] == "Type a tag, then enter"
        await pilot.press("escape")
        app.library.marks.add_tags([lib.corpus.papers[5].id], ["bandits"])
        panel.refresh_tags()  # (as a triage key or another process's change does)
        await pilot.press("t")
        await settle(pilot)
        assert options.highlighted is None and str(title.render()) == "All tags"
        await pilot.press("enter")
        await settle(pilot)
        assert app.library.annotation(pid).tags == []
        assert [n.message for n in app._notifications][-1] == "Type a tag, or ↓ to pick one from the list, then enter"
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.library.annotation(pid).tags == ["bandits"]
        assert options.highlighted is None                  # what was picked is not picked again
        await pilot.press(*"ban")
        await settle(pilot)
        assert str(title.render()) == 'Tags like "ban"'
        await pilot.press("backspace", "backspace", "backspace", *"?!", "enter")
        await settle(pilot)
        assert [n.message for n in app._notifications][-1] == "Tag '?!' has no letter or digit"
        await pilot.press("escape", "t")                    # opened again: empty, nothing picked
        await settle(pilot)
        assert options.highlighted is None and screen(app).tag_input.value == ""


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_the_note_editor_keeps_its_keys_whole_under_a_long_title(lib, make, tmp_path):
    """At 120 columns a long title cut the note editor's header at "ctrl+": the keys have a line
    of their own, and the title is cut with an ellipsis."""
    title = "OneVeriAgent: " + "a very long title about verifying agents in open-ended workflows " * 3
    (tmp_path / "t.jsonl").write_text(json.dumps({"title": title, "abstract": "We verify agents in open-ended "
                                                  "workflows with a checker that reads their traces."}) + "\n")
    lib.paper_changes.import_paths([tmp_path / "t.jsonl"])
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("G", "e")
        await settle(pilot)
        shown = app.export_screenshot().replace("&#160;", " ")
        assert "ctrl+s save · esc cancel" in shown
        heading = app.screen.query_one("#note-title")
        assert heading.size.height == 1 and heading.styles.text_overflow == "ellipsis"  # one line, cut
        assert "OneVeriAgent: a very long title" in shown


def test_the_help_lists_every_action_of_the_keymap_before_any_screen_was_opened():
    """In a fresh process (the app loads some screens when first opened, and their bindings register
    as they load) the help's table has a row for every action of keymap.toml."""
    import subprocess
    import sys
    script = ("import tui.app\n"  # (what a start loads: the app, its main screen and their widgets)
              "from rich.console import Console\n"
              "from tui.keymap import load_keymap\n"
              "from tui.screens.help import keys_table\n"
              "console = Console(width=200, record=True)\n"
              "console.print(keys_table(load_keymap(None)[0]))\n"
              "print(console.export_text())\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    listed = {line.split()[-1] for line in out.splitlines() if line.split()}
    from tui.keymap import default_keymap
    assert set(default_keymap()) - listed == set()


async def test_the_palette_offers_textuals_commands_but_its_keys_panel(lib, make):
    """ctrl+p lists Textual's own commands (theme, screenshot) but not its "Keys" panel, which
    escape does not close (the help, ?, lists every key), nor its "Quit": the palette offers ours,
    with its key."""
    app = make(lib)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Theme" in titles and "Quit" not in titles and "Keys" not in titles


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
async def test_filtering_right_after_adding_a_tag_filters_by_that_tag(lib, make):
    """T, enter adds the highlighted tag (and the highlight goes); ctrl+f then filters by the tag
    just added, not "pick a tag first". After a removal it still asks."""
    ids = [p.id for p in lib.corpus]
    lib.marks.add_tags(ids[3:5], ["agents"])
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        main = screen(app)
        await pilot.press("T", "enter")
        await pilot.pause()
        assert app.library.annotation(ids[0]).tags == ["agents"]
        await pilot.press("ctrl+f")
        await settle(pilot)
        assert main.query_one("#search").value == "tag:agents" and main.results.border_title.startswith("3 / 35")
        await pilot.press("escape", "t", *"-agents", "enter", "ctrl+f")
        await settle(pilot)
        assert [n.message for n in app._notifications][-1] == "Pick a tag first: type it, or ↓ to highlight one"


async def test_the_import_path_completes_as_far_as_the_entries_agree(tmp_path):
    """Two files begin alike: → completes their common start, never one of them unseen; once they
    part, the first that matches; a folder ends in a separator."""
    from tui.screens.import_dialog import PathSuggester

    for name in ("icml2024.jsonl", "icml2024_dump.txt", "iclr.jsonl"):
        (tmp_path / name).write_text("x")
    (tmp_path / "icmldir").mkdir()
    suggest = PathSuggester().get_suggestion
    assert await suggest(f"{tmp_path}/icm") == f"{tmp_path}/icml"
    assert await suggest(f"{tmp_path}/icml2") == f"{tmp_path}/icml2024"
    assert await suggest(f"{tmp_path}/icml2024") == f"{tmp_path}/icml2024.jsonl"
    assert await suggest(f"{tmp_path}/icml2024_") == f"{tmp_path}/icml2024_dump.txt"
    assert await suggest(f"{tmp_path}/icmld") == f"{tmp_path}/icmldir/"


def test_a_tag_too_long_for_the_panel_goes_on_after_its_hyphens():
    """A keyword as a tag ("Multilingual Federated Learning") folded mid-word ("…-le" / "arning")."""
    from tui.widgets.tagpanel import ROW_WIDTH, at_hyphens, tag_prompt
    row = tag_prompt("multilingual-federated-learning", "keyword").plain
    assert row == "#multilingual-\nfederated-learning\nkeyword"
    assert all(len(line) <= ROW_WIDTH for line in tag_prompt("general-machine-learning-(i.e.-none-of-the-above)",
                                                             "keyword").plain.split("\n"))
    assert at_hyphens("#" + "x" * 40).split("\n") == ["#" + "x" * 21, "x" * 19]  # (no hyphen: folded)
    assert tag_prompt("rl", "3").plain == "#rl 3"


async def test_the_dashboard_says_a_sittings_marks_were_all_at_once(lib, make):
    """Marks seconds apart were charted as bars spread over the whole width, dated "05:43 → 05:43";
    the status and star charts stand under their headings."""
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("r", "r", "s")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        shown = app.export_screenshot().replace("&#160;", " ")
        assert "Triage over time (all at 20" in shown or "Triage over time (all from 20" in shown
        assert "→" not in shown.split("Triage over time")[1][:40]
        status, stars = app.screen.query_one("#by-status"), app.screen.query_one("#by-star")
        headings = [label for label in app.screen.query("Horizontal > Label")]
        assert [str(h.render()) for h in headings] == ["Status", "Stars"]
        assert headings[0].region.x == status.region.x and headings[1].region.x == stars.region.x  # (each over its chart)
        assert headings[0].region.y < status.region.y
        assert not app.screen.query("#timeline")  # (one block and a flat line: the heading says it all)
        console = Console(width=60, file=io.StringIO(), record=True)
        console.print(status.content)
        skipped = next(line for line in console.export_text().splitlines() if "skipped" in line)
        assert "▉" in skipped  # (1 of 35 papers in 30 cells: drawn to an eighth, never rounded to a full cell)
