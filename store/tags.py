"""Tags and notes as a person writes them: a tag normalized to the label papersift stores, a tag
from elsewhere made usable or refused with the reason, and a note's size checked."""

from __future__ import annotations

from store.safe_text import has_unsafe, shown_unsafe, strip_unsafe


def normalize_tag(tag: str) -> str:
    """Tags are lower-case, without spaces, commas or semicolons (``"Deep RL"`` -> ``deep-rl``): the
    exports join a paper's tags into one keywords field with them (BibTeX, CSL-JSON, CSV), so a tag
    ``a;b`` came back from its own BibTeX export as the tags ``a`` and ``b, c`` (a full-width "；"
    separates keywords too: store.search.keywords)."""
    tag = "-".join(tag.strip().lower().replace(",", " ").replace(";", " ").replace("\uff1b", " ").split())
    return tag.lstrip("-#")


MAX_TAG_CHARS = 64
MAX_NOTE_CHARS = 100_000  # a long page of text; more belongs in a file the note points to


def note_problem(note: str) -> str | None:
    """Why a note cannot be stored (None if it can)."""
    if len(note) > MAX_NOTE_CHARS:
        return (f"a note of {len(note):,} characters; a note holds at most {MAX_NOTE_CHARS:,} "
                "(keep longer text in a file and put its path in the note)")
    return None


def clean_tag(tag: str) -> tuple[str | None, str | None]:
    """A tag that arrived from elsewhere (a colleague's file, an old library) made usable:
    normalized, control and invisible characters removed. Returns (the tag, or None when
    nothing usable is left; what was done to it, or None when it was fine as it was)."""
    clean = normalize_tag(strip_unsafe(tag))
    if problem := tag_problem(clean):
        return None, f"tag '{shown_unsafe(tag)}' dropped: {problem}"
    if clean != tag:
        return clean, f"tag '{shown_unsafe(tag)}' read as #{clean}" + (
            " (control or invisible characters removed)" if has_unsafe(tag) else "")
    return clean, None


def tag_problem(tag: str) -> str | None:
    """Why a normalized tag cannot be used (None if it can): tags are short labels with a
    letter or digit in them, shown as chips in a list row and typed in queries."""
    if not tag:
        return "no tag given (tags are words like rl or to-discuss)"
    if len(tag) > MAX_TAG_CHARS:
        return f"a tag of {len(tag)} characters; tags are short labels (at most {MAX_TAG_CHARS}) — a note holds longer text"
    if has_unsafe(tag):  # it would reach terminals, exports and colleagues: refused at the door
        return (f"tag '{shown_unsafe(tag)}' holds control or invisible characters; "
                "tags are plain words (letters, digits, - and the like)")
    if not any(ch.isalnum() for ch in tag):
        return f"tag {tag!r} has no letter or digit"
    return None
