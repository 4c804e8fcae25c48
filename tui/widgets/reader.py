"""The abstract reader: title, marker for derived titles, authors, the rendered
abstract, keywords and area, id, sources, status, star, tags and note.

The words the search matched are highlighted in the title, abstract and note, as
in the list, so a reader sees at a glance why a paper is there.
"""

from __future__ import annotations

from typing import Any, TYPE_CHECKING

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from store import Library
from store.safe_text import display_safe, shown_label
from store.titles.kinds import EXCERPT_NOTE, is_excerpt, shown_title

from ..compat import QuietlySizedScroll, QuietlySizedStatic
from ..keymap import binding, key_label
from ..render import highlight_words, note_start, numbered_links, plain_title, render_abstract, render_note

if TYPE_CHECKING:
    from rich.style import Style

    from store.models import Paper
    from store.library.discovery import Recommendation

STATUS_STYLE = {"unread": "dim", "to-read": "bold cyan", "read": "green", "skipped": "red"}


NOTE_PREVIEW_CHARS = 2_000  # of a note, in the reader (the note editor holds all of it)


PAPERS = Binding.Group("Next/prev")  # J and K, one footer entry


class Reader(QuietlySizedScroll, can_focus=True):
    """Scrollable view of one paper."""

    BINDINGS = [
        binding("reader.back", "Back to list", action="screen.reader_back", label="List"),
        binding("reader.scroll_down", "Scroll down", show=False),
        binding("reader.scroll_up", "Scroll up", show=False),
        binding("reader.next_paper", "Next paper", action="screen.next_paper", group=PAPERS),
        binding("reader.prev_paper", "Previous paper", action="screen.prev_paper", group=PAPERS),
    ]
    COMPONENT_CLASSES = {"reader--match"}
    DEFAULT_CSS = """
    /* its scrollbar always shown: the abstract's width never changes (see tui.compat) */
    Reader { padding: 0 1; overflow-y: scroll; }
    Reader > .reader--match { color: $warning; text-style: bold underline; }
    Reader > Static { width: 100%; }
    /* one line per similar title: a wrapped title would lose its bullet's indent */
    #reader-similar { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, library: Library, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.library = library
        self.paper_index: int | None = None
        self.links: list[str] = []
        self.matched: set[str] = set()  # casefolded words the current search matched
        self._similar_lines = 0  # the more-like-this panel's height

    def compose(self) -> ComposeResult:
        yield QuietlySizedStatic(id="reader-body")
        yield Static(id="reader-similar")

    def show_similar(self, paper_index: int, titles: list[tuple[int, str]]) -> None:
        """The "more like this" list for a paper (ignored if the reader moved on)."""
        if paper_index != self.paper_index:
            return
        text = Text("More like this (m lists more)\n", style="bold")
        papers = self.library.corpus.papers
        for idx, title in titles:  # (an excerpt quoted, as the list shows it)
            derived = 0 <= idx < len(papers) and papers[idx].derived_title
            text.append("  · " + shown_title(plain_title(title), derived) + "\n", style="dim")
        self._set_similar(text)

    def _set_similar(self, text: Text) -> None:
        """The panel's text, laid out again only when its height changes. Its lines never wrap
        (CSS), so as many lines are as high: a layout pass redraws the whole screen (~25 ms at 160
        columns in a real terminal), and the panel's blanking and filling took one each per paper."""
        lines = text.plain.count("\n")
        self.query_one("#reader-similar", Static).update(text, layout=lines != self._similar_lines)
        self._similar_lines = lines

    recommendation: Recommendation | None = None  # the shown paper's, in a recommended list

    def show(self, paper_index: int | None) -> None:
        """Display a paper (None: the list is empty)."""
        if paper_index != self.paper_index:
            self.scroll_home(animate=False)
            # The last paper's panel blanked, its room kept for the next one's (see _set_similar).
            self._set_similar(Text(" \n" * self._similar_lines))
        self.paper_index = paper_index
        body = self.query_one("#reader-body", Static)
        if paper_index is None:
            body.update(Text(f"No paper matches. Press {key_label(self.app, 'list.clear_filter')} in the list "
                             "to clear the filter.", style="dim"))
            self.links = []
            return
        paper = self.library.corpus.papers[paper_index]
        ann = self.library.annotation(paper.id)
        abstract, links = render_abstract(paper.abstract)
        self.links = numbered_links(links, paper.url)
        match = self.get_component_rich_style("reader--match")
        parts: list[Text | str] = [self._title(paper, match)]
        byline = paper.byline()
        if byline:
            parts.append(Text(display_safe(byline, False), style="italic"))
        for name, value in (("keywords", " · ".join(paper.keywords)), ("area", paper.area)):
            if value:  # a line each: wrapped on one, the area ran on from the last keyword
                parts.append(Text.assemble((name + " ", "dim"), (display_safe(value, False), "cyan")))
        parts.append(Text.assemble((ann.status, STATUS_STYLE[ann.status]), "  ",
                                   ("★" * ann.star + "☆" * (3 - ann.star), "yellow"), "  ",
                                   (" ".join("#" + shown_label(t) for t in ann.tags), "bold magenta")
                                   if ann.tags else ("no tags", "dim")))
        team = self.team_line(paper.id)
        if team is not None:
            parts.append(team)
        why = self._why_recommended(paper.id)
        if why is not None:
            parts.append(why)
        parts += [Text(""), highlight_words(abstract, self.matched, match), Text("")]
        if ann.note:
            parts += [Text("Note", style="bold underline"), self._note(ann.note, match), Text("")]
        parts += self._provenance(paper)
        body.update(Group(*parts))

    def _title(self, paper: Paper, match: Style) -> Text:
        """The title, its words found highlighted, marked when derived (or an excerpt) or updated."""
        title = highlight_words(Text(plain_title(paper.title), style="bold"), self.matched, match)
        if is_excerpt(paper.title, paper.derived_title):
            title.append(f"…  ({EXCERPT_NOTE})", style="dim italic")
        elif paper.derived_title:
            title.append("  (derived title)", style="dim italic")
        if paper.revised:  # a newer arXiv version replaced the text (the earlier ones are kept)
            title.append(f"  updated (v{paper.version})", style="bold cyan")
        return title

    def _why_recommended(self, paper_id: str) -> Text | None:
        """"recommended because: … · like …" while the list is a recommendation's (None otherwise)."""
        rec = self.recommendation
        if rec is None or rec.paper.id != paper_id or not (rec.because or rec.like):
            return None
        from ..render import like_names
        why = Text("recommended", style="bold green")
        if rec.because:
            why.append(f" because: {', '.join(rec.because)}", style="green")
        if like := like_names(self.library, rec.like):
            why.append(" · like " + like, style="green")
        return why

    def _note(self, note: str, match: Style) -> Text:
        """A note's start: laying out megabytes on every cursor move froze the app."""
        shown = note[:NOTE_PREVIEW_CHARS]
        # (its math as the abstract's: $O(n^2)$ reads O(n²); its links are numbered after the abstract's)
        text = highlight_words(render_note(shown, self.links)[0], self.matched, match)
        if len(note) > len(shown):
            text.append(f" … ({len(note) - len(shown):,} more characters; "
                        f"{key_label(self.app, 'main.note')} opens it)", style="dim italic")
        return text

    def _provenance(self, paper: Paper) -> list[Text]:
        """The id and sources, the near duplicates merged into it, and its numbered links."""
        src = ", ".join(f"{s.file}#{s.position}" for s in paper.sources)
        lines = [Text(f"id {paper.id}   sources {display_safe(src, False)}", style="dim")]
        if paper.variants:
            lines.append(Text(f"merged near-duplicates: {', '.join(v.id for v in paper.variants)}", style="dim"))
        if self.links:
            lines.append(Text("links: " + "  ".join(f"[{i}] {display_safe(u, False)}"
                                                    for i, u in enumerate(self.links, 1)), style="dim"))
        return lines

    def team_line(self, paper_id: str) -> Text | None:
        """The other members' marks and the assignee: ``assigned to ana · ana ★★ #rl · ben skipped``
        (None when no one else said anything and the paper is not assigned)."""
        lib = self.library
        others = [(name, ann) for name, ann in lib.team.marks_of(paper_id) if name != lib.member]
        assignee = lib.assignments.get(paper_id)
        if not others and not assignee:
            return None
        line = Text()
        if assignee:
            line.append(f"assigned to {assignee}", style="bold" if assignee == lib.member else "dim")
        for name, ann in others:
            if line:
                line.append(" · ", style="dim")
            line.append(name, style="bold")
            if ann.star:
                line.append(" " + "★" * ann.star, style="yellow")
            if ann.status != "unread":
                line.append(" " + ann.status, style=STATUS_STYLE[ann.status])
            for tag in ann.tags:
                line.append(" #" + shown_label(tag), style="magenta")
            if ann.note:
                line.append(" “" + display_safe(note_start(ann.note), False) + "”", style="italic")
        return line

    def action_scroll_down(self) -> None:
        self.scroll_down(animate=False)

    def action_scroll_up(self) -> None:
        self.scroll_up(animate=False)
