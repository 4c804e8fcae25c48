"""The tagging panel: the paper's tags, every tag with its count, and a
type-ahead box that completes existing tags fuzzily (rapidfuzz). The list below
ranks existing tags against what is typed, then offers the paper's own keywords
(from its source) as tags, then ``+ new tag "…"``: ``enter`` adds the highlighted
row (``↑`` ``↓`` move it while typing; a leading ``-`` removes instead), so a
new tag is made only by choosing that row; ``ctrl+f`` filters the results by the
highlighted tag."""

from __future__ import annotations

from typing import Any

import re
from collections import Counter

from rapidfuzz import fuzz, process
from textual.app import ComposeResult
from textual.content import Content
from textual import events, on
from textual.containers import Vertical
from textual.message import Message
from textual.suggester import Suggester
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from store import Library
from store.tags import normalize_tag, tag_problem
from store.safe_text import display_safe, shown_label
from store.wording import counted

from ..keymap import TypingKeys, binding, key_label


class TagSuggester(Suggester):
    """Inline completion: the most frequent tag that starts with the text."""

    def __init__(self, library: Library) -> None:
        super().__init__(use_cache=False, case_sensitive=False)
        self.library = library

    async def get_suggestion(self, value: str) -> str | None:
        prefix = "-" if value.startswith("-") else ""
        body = value[len(prefix):]
        if not body:
            return None
        for tag, _ in self.library.tag_counts().most_common():
            if tag.startswith(body) and tag != body:
                return prefix + tag
        return None


def ranked_tags(counts: Counter[str], typed: str) -> list[tuple[str, int]]:
    """All tags with their counts; when something is typed, fuzzy-ranked against it."""
    typed = typed.lstrip("-").strip().lower()
    if not typed:
        return counts.most_common()
    hits = process.extract(typed, list(counts), scorer=fuzz.WRatio, limit=None, score_cutoff=50)
    return [(tag, counts[tag]) for tag, _, _ in hits]


def keyword_tags(keywords: list[str], taken: set[str]) -> dict[str, str]:
    """A paper's keywords (and area) as the tags they would make ("Offline RL" -> offline-rl),
    each with its keyword, leaving out tags in ``taken`` and keywords too long for a tag."""
    out: dict[str, str] = {}
    for keyword in keywords:
        tag = normalize_tag(keyword)
        if tag_problem(tag) is None and tag not in taken:
            out.setdefault(tag, keyword)
    return out


class TagInput(TypingKeys, Input):
    """Type-ahead box. Its keys act on the screen directly (see keymap.binding)."""

    BINDINGS = [binding("tags.apply", "Add highlighted", action="screen.apply_tag"),
                binding("tags.next", "Next tag", action="screen.tag_highlight(1)"),
                binding("tags.previous", "Previous tag", show=False, action="screen.tag_highlight(-1)"),
                binding("tags.filter", "Filter by tag", action="screen.filter_by_tag"),
                binding("tags.back", "Back where t or T was pressed", action="screen.leave_tags", label="Back")]


NEW_TAG = "\x00new:"  # the id of the "+ new tag" row (no tag can hold a NUL)


class TagList(OptionList):
    """Every tag with its count (T focuses it): enter adds the highlighted tag; the panel's
    other keys (back to the list, filter by the tag) work here as in the type-ahead box."""

    BINDINGS = [binding("tags.apply", "Add highlighted", action="select", label="Add"),
                binding("tags.filter", "Filter by tag", action="screen.filter_by_tag", label="Filter"),
                binding("tags.back", "Back where t or T was pressed", action="screen.leave_tags", label="Back")]


ROW_WIDTH = 22  # a tag list row's room: the panel's 30 columns, less its border, padding and the list's own
CHIPS_WIDTH = 26  # the room of the line of the paper's tags above the list


def at_hyphens(label: str, width: int = ROW_WIDTH, first: int | None = None) -> str:
    """A label without spaces (a tag: "#multilingual-federated-learning") broken into lines of at
    most ``width`` after its hyphens ("first": the room on the first line), as a reader breaks a
    hyphenated word; a piece longer than a line is folded. Without it, the panel folded tags
    mid-word ("#multilingual-federated-le" / "arning")."""
    room = width if first is None else first
    if len(label) <= room:
        return label
    lines: list[str] = []
    line = ""
    for piece in re.findall(r"[^-]*-|[^-]+$", label):
        if line and len(line) + len(piece) > room:
            lines.append(line)
            line, room = "", width
        while len(piece) > room:  # (a piece no line holds: folded)
            lines.append(line + piece[:room - len(line)])
            piece, line, room = piece[room - len(line):], "", width
        line += piece
    return "\n".join([*lines, line] if line else lines)


def tag_prompt(tag: str, note: str, width: int = ROW_WIDTH) -> Content:
    """A tag list row, "#tag 3" (the count or "keyword" dim), as Content: never parsed as markup.
    A tag too long for the row goes on over lines broken after its hyphens (see :func:`at_hyphens`)."""
    label = at_hyphens("#" + shown_label(tag), width)
    last = label.rsplit("\n", 1)[-1]
    gap = "\n" if len(last) + 1 + len(note) > width else " "
    return Content.assemble(label + gap, (note, "dim"))


class TagPanel(Vertical):
    """Right-hand panel; the screen applies the tags (messages up)."""

    DEFAULT_CSS = """
    TagPanel { width: 30; padding: 0 1; }
    TagPanel #paper-tags { height: auto; margin-bottom: 1; }
    TagPanel #all-tags-title { margin-top: 1; }
    TagPanel OptionList { height: 1fr; border: none; }
    """

    class Apply(Message):
        """Add (or with a leading '-', remove) a tag on the current paper/selection."""

        def __init__(self, text: str) -> None:
            self.text = text
            super().__init__()

    def __init__(self, library: Library, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.library = library
        self._keyword_tags: dict[str, str] = {}  # the shown paper's keywords as tags it lacks: tag -> keyword
        self._shown_area = ""  # the shown paper's subject area (offered with its keywords, said as an area)
        self._shown: tuple[str | None, list[str] | None] = (None, None)  # show_paper's last arguments
        self._tag_parts: tuple[str | tuple[str, str], ...] = ()  # what #paper-tags shows (Content.assemble's parts)

    def compose(self) -> ComposeResult:
        yield Static("[b]Tags[/b]", id="paper-tags")
        yield TagInput(placeholder="tag… (-tag removes)", suggester=TagSuggester(self.library), id="tag-input")
        yield Static(Content.assemble(("All tags", "bold")), id="all-tags-title")
        yield TagList(id="all-tags")

    def show_paper(self, paper_id: str | None, selected: list[str] | None = None) -> None:
        """The tags on the highlighted paper, or, with papers ``selected`` (what a tag key acts on
        then), on those: each with how many of them have it."""
        self._shown = (paper_id, selected)
        tags = self.library.annotation(paper_id).tags if paper_id else []
        # Text, never markup: a tag is the user's (or a colleague's) words, "a[b" and "[/dim]" included.
        chips = [(("" if i == 0 else " ") + at_hyphens("#" + shown_label(t), CHIPS_WIDTH), "bold magenta") for i, t in enumerate(tags)]
        heading = "On this paper"
        if selected:
            # (the stored annotations, not copies: this runs on every cursor move while papers are selected)
            anns = self.library.annotations
            held = Counter(t for pid in selected if (a := anns.get(pid)) is not None for t in a.tags)
            heading = f"On the {counted(len(selected), 'selected paper')}"
            chips = [(("" if i == 0 else " ") + "#" + shown_label(t) + f" {n}/{len(selected)}", "bold magenta")
                     for i, (t, n) in enumerate(held.most_common())]
        # In the panel, the key that leads here is no help: the input below is.
        hint = "none yet — type one below" if self.has_focus_within else f"none yet — press {key_label(self.app, 'main.tag')}"
        parts: tuple[str | tuple[str, str], ...] = ((heading, "bold"), "\n", *(chips or [(hint, "dim")]))
        if not paper_id and not selected:  # (a search that lists no paper)
            parts = (("No paper shown", "dim"),)
        if parts != self._tag_parts:  # (most papers show "none yet": no layout pass of the screen for them)
            self._tag_parts = parts
            self.query_one("#paper-tags", Static).update(Content.assemble(*parts))
        paper = self.library.paper(paper_id) if paper_id else None
        offered = keyword_tags([*paper.keywords, paper.area], set(tags)) if paper else {}
        self._shown_area = paper.area if paper else ""
        if offered != self._keyword_tags:
            self._keyword_tags = offered
            self.refresh_tags()

    @on(events.DescendantFocus)
    @on(events.DescendantBlur)
    def _focus_moved(self) -> None:
        if self.is_mounted:
            self.show_paper(*self._shown)

    def refresh_tags(self) -> None:
        typed = self.query_one(TagInput).value
        options = self.query_one("#all-tags", OptionList)
        highlighted = options.highlighted
        options.clear_options()
        counts = self.library.tag_counts()  # once: this runs after every triage key
        rows, offered = self._tag_rows(typed, counts)
        options.add_options(rows)
        body = typed.lstrip("-").strip().lower()
        title = self.query_one("#all-tags-title", Static)
        title.display = bool(counts or offered)
        title.update(Content.assemble(("Tags like ", "bold"), f'"{display_safe(body, False)}"') if body
                     else Content.assemble(("All tags" if counts else "This paper's keywords, as tags", "bold")))
        # With the box empty, a row is highlighted only once ↓ / ↑ picked it: enter then adds it.
        if rows and typed:
            options.highlighted = 0
        elif rows and highlighted is not None:
            options.highlighted = min(highlighted, len(rows) - 1)

    def _tag_rows(self, typed: str, counts: Counter[str]) -> tuple[list[Option], list[str]]:
        """The list's rows for what is typed: the library's tags that match, then this paper's
        keywords that are no tag yet (also returned), and a row to make a new tag."""
        ranked = ranked_tags(counts, typed)
        offered = [t for t, _ in ranked_tags(Counter(list(self._keyword_tags)), typed) if t not in counts]
        rows = [Option(tag_prompt(t, str(c)), id=t) for t, c in ranked]
        area = self._shown_area
        rows += [Option(tag_prompt(t, "area" if area and self._keyword_tags.get(t) == area else "keyword"), id=t)
                 for t in offered]
        body = typed.lstrip("-").strip().lower()
        new = normalize_tag(body)
        if (new and not typed.startswith("-") and new not in counts and new not in offered
                and tag_problem(new) is None):  # (enter on no row says what is wrong with it)
            # Creating a tag is a choice of its own: Enter on a completion never makes "ba" by
            # accident. The row comes after the tags that start with what is typed (completions) and
            # before looser matches, so a word no tag starts with is a new tag at one Enter.
            completions = sum(1 for t, _ in ranked if t.startswith(body))
            rows.insert(completions, Option(Content.assemble(("+ new tag ", "dim"), f'"{display_safe(new, False)}"'),
                                            id=NEW_TAG + new))
        return rows, offered

    def reset(self) -> None:
        """An empty box and no row picked: how the panel opens."""
        self.query_one(TagInput).value = ""
        self.query_one("#all-tags", OptionList).highlighted = None

    @property
    def rows(self) -> int:
        """How many rows the list below the box offers."""
        return self.query_one("#all-tags", OptionList).option_count

    def highlighted_tag(self) -> str | None:
        options = self.query_one("#all-tags", OptionList)
        if options.highlighted is None or not options.option_count:
            return None
        tag = options.get_option_at_index(options.highlighted).id
        return tag[len(NEW_TAG):] if tag and tag.startswith(NEW_TAG) else tag

    def choice(self) -> str:
        """What ``enter`` in the box applies: the highlighted row's tag (``-tag`` to remove, when a
        '-' was typed), the new tag when that row is highlighted, or '' when nothing is (an empty
        box highlights a row only once ↓ / ↑ picked it)."""
        typed = self.query_one(TagInput).value.strip()
        tag = self.highlighted_tag() if typed.lstrip("-") or not typed else None
        if tag is None:
            return ""
        return ("-" if typed.startswith("-") else "") + tag

    def move_highlight(self, step: int) -> None:
        """Move the list's highlight ``step`` rows; from none, ↓ and ↑ (and 0) pick the first."""
        options = self.query_one("#all-tags", OptionList)
        if options.option_count:
            current = options.highlighted if options.highlighted is not None else min(-step, 0)
            options.highlighted = max(0, min(options.option_count - 1, current + step))

    def highlighted_filter(self) -> str | None:
        """The query that lists the papers of the highlighted entry: ``tag:rl``, or for a
        keyword not yet a tag, ``kw:"Offline RL"``."""
        tag = self.highlighted_tag()
        if tag is None:
            return None
        if tag in self._keyword_tags and tag not in self.library.tag_counts():
            return 'kw:"{}"'.format(self._keyword_tags[tag].replace('"', " "))  # a quote would end it
        return f"tag:{tag}"

    @on(Input.Changed, "#tag-input")
    def _typed(self, event: Input.Changed) -> None:
        if not event.value:  # emptied (a tag added, or erased): what was highlighted was not picked
            self.query_one("#all-tags", OptionList).highlighted = None
        self.refresh_tags()

    @on(OptionList.OptionSelected, "#all-tags")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        tag = event.option.id or ""
        self.post_message(self.Apply(tag[len(NEW_TAG):] if tag.startswith(NEW_TAG) else tag))
