"""Plain data models and their converters to and from disk records.

``Paper`` is one deduplicated abstract; ``Annotation`` is what a person said of
it. Both are plain dataclasses so the TUI, the CLI and exporters share them
without pulling in any storage detail.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple, Union

from store.record_fields import read_fields
from store.choices import MAX_STAR, STATUSES  # noqa: F401 (re-exported)
from store.safe_text import has_unsafe, shown_unsafe, strip_unsafe


MAX_COUNT = 10**9  # a batch or version number past this is forged (a corpus file is untrusted input)


def _count(value: Any) -> int:
    """A batch, revision or version number from a corpus record: a whole number from 0 to MAX_COUNT,
    else 0 (a forged ``true``, ``-7``, ``10**30`` or ``"x"`` reads as none)."""
    return value if type(value) is int and 0 <= value <= MAX_COUNT else 0


def _text(value: Any) -> str:
    """A text field of a corpus record: a string, else "" (a forged ``42`` or ``null`` reads as none)."""
    return value if isinstance(value, str) else ""


def _texts(value: Any) -> list[str]:
    """A list of texts of a corpus record: its strings (a forged ``["A", 5]`` keeps "A")."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def paper_record_problems(rec: dict[str, Any]) -> list[str]:
    """The fields of a corpus record of the wrong kind (what :meth:`Paper.from_record` reads as none):
    for the doctor, which names them."""
    bad: list[str] = [name for name in ("abstract", "title", "external_id", "venue", "year", "area", "url")
           if name in rec and not isinstance(rec[name], str)]
    bad += [name for name in ("authors", "keywords", "aliases") if name in rec and
            (not isinstance(rec[name], list) or not all(isinstance(v, str) for v in rec[name]))]
    bad += [name for name in ("batch", "revised", "version") if name in rec and rec[name] != _count(rec[name])]
    return bad


def _web_link(value: Any) -> str:
    """A paper's link from a corpus record: an http(s) address without control characters, else ""
    (a shared corpus's ``javascript:`` or ``file:`` link is never shown, opened or exported)."""
    if not isinstance(value, str) or not value.lower().startswith(("http://", "https://")):
        return ""
    return "" if any(ord(ch) < 32 or 0x7f <= ord(ch) <= 0x9f for ch in value) else value


@dataclass
class Source:
    """Where an abstract was read: file name and 1-based abstract position."""

    file: str
    position: int

    def to_record(self) -> dict[str, Any]:
        return {"file": self.file, "position": self.position}


@dataclass
class Variant:
    """A near-duplicate text merged into a paper (kept so a merge can be split)."""

    id: str
    abstract: str
    similarity: float
    sources: list[Source] = field(default_factory=list)


@dataclass
class Paper:
    """One distinct paper in the library.

    Attributes:
        id: stable id, a hash of the first-seen normalized abstract.
        abstract: the abstract exactly as read (control characters included).
        title: the real title, or a title derived from the abstract.
        derived_title: True when ``title`` was derived, not read.
        authors: author names when the input had them.
        sources: every place this abstract (or a duplicate) was read.
        aliases: ids of merged duplicates' own texts, so any of them finds the paper.
        variants: near-duplicate texts merged into this paper.
        external_id: an id the input carried (e.g. an OpenReview id).
        url: a link the input carried.
        venue, year: where and when it appeared ("NeurIPS", "2026"), when the input said: a
            dump's header line, or the fields of JSON, CSV, BibTeX, RIS and CSL-JSON.
        keywords: the input's subject labels (author keywords, arXiv categories,
            BibTeX/RIS/CSL keywords), as written. They are the source's words, not the
            person's: tags stay the person's own.
        area: the subject area the venue filed it under (OpenReview's ``primary_area``, such
            as "reinforcement learning"). Kept apart from keywords: an area names a whole
            section ("... computer vision, audio, language, and other modalities"), so its
            words are not searched as the paper's own.
    """

    id: str
    abstract: str
    title: str
    derived_title: bool = True
    authors: list[str] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    variants: list[Variant] = field(default_factory=list)
    external_id: str = ""
    url: str = ""
    venue: str = ""
    year: str = ""
    keywords: list[str] = field(default_factory=list)
    area: str = ""
    # When it arrived: the import (batch) that added it and that batch's time, and the batch in which a
    # newer version replaced its text (0: never). Papers imported before batches were kept have 0 and "".
    batch: int = 0
    added: str = ""
    revised: int = 0
    version: int = 0  # the arXiv version of the text held (0: not an arXiv paper, or unknown)
    versions: list[dict[str, Any]] = field(default_factory=list)  # earlier versions' texts: {version, title, abstract}

    @property
    def published(self) -> str:
        """Where and when, as people write it: "NeurIPS 2026", or either part alone, or ''."""
        return " ".join(x for x in (self.venue, self.year) if x)

    def byline(self, sep: str = " · ") -> str:
        """Authors, then where and when: "Ann Lee, Bob Ray · NeurIPS 2026" (either part alone, or '')."""
        return " ".join(sep.join(x for x in (", ".join(self.authors), self.published) if x).split())  # (one line, always)

    def to_record(self) -> dict[str, Any]:
        """The JSON-ready form stored in the corpus file (written by hand: asdict is slow at 30k papers)."""
        rec: dict[str, Any]
        rec = {"id": self.id, "abstract": self.abstract, "title": self.title, "derived_title": self.derived_title,
               "authors": self.authors, "sources": [{"file": s.file, "position": s.position} for s in self.sources],
               "external_id": self.external_id, "url": self.url}
        if self.venue:
            rec["venue"] = self.venue
        if self.year:
            rec["year"] = self.year
        if self.keywords:
            rec["keywords"] = self.keywords
        if self.area:
            rec["area"] = self.area
        for name in ("batch", "added", "revised", "version", "versions"):
            if value := getattr(self, name):
                rec[name] = value
        if self.aliases:
            rec["aliases"] = self.aliases
        if self.variants:
            rec["variants"] = [{"id": v.id, "abstract": v.abstract, "similarity": v.similarity,
                                "sources": [s.to_record() for s in v.sources]} for v in self.variants]
        return rec

    @classmethod
    def from_record(cls, rec: dict[str, Any]) -> "Paper":
        return cls(
            id=rec["id"],
            abstract=_text(rec["abstract"]),
            title=_text(rec.get("title")),
            derived_title=bool(rec.get("derived_title", True)),
            authors=_texts(rec.get("authors")),
            sources=[Source(**s) for s in rec.get("sources") or []],
            aliases=_texts(rec.get("aliases")),
            variants=[
                Variant(
                    id=v["id"],
                    abstract=v["abstract"],
                    similarity=float(v.get("similarity", 1.0)),
                    sources=[Source(**s) for s in v.get("sources") or []],
                )
                for v in rec.get("variants") or []
            ],
            external_id=_text(rec.get("external_id")),
            url=_web_link(rec.get("url")),
            venue=_text(rec.get("venue")),
            year=_text(rec.get("year")),
            keywords=_texts(rec.get("keywords")),
            area=_text(rec.get("area")),
            batch=_count(rec.get("batch")),
            added=str(rec.get("added") or ""),
            revised=_count(rec.get("revised")),
            version=_count(rec.get("version")),
            versions=list(rec.get("versions") or []),
        )


MEMBER_SEP = "@"  # between a paper id and a member in a record key's text (no paper id holds it)


class RecordKey(NamedTuple):
    """Which stored annotation record: a paper's, for a member as records name members ("" the
    library's owner), or the paper's assignment (:meth:`assignment`). The undo history writes it
    as :attr:`text`; the annotations table keeps the record under :attr:`doc_id`."""

    paper: str
    member: str = ""

    @classmethod
    def assignment(cls, paper: str) -> "RecordKey":
        """The key of the paper's assignment record."""
        return cls(paper, _ASSIGNMENT_MEMBER)

    @property
    def is_assignment(self) -> bool:
        """Whether this is the key of an assignment record (:class:`Assignment`), not a member's."""
        return self.member == _ASSIGNMENT_MEMBER

    @classmethod
    def parse(cls, text: str) -> "RecordKey":
        """The key an undo entry names (``PAPERID`` or ``PAPERID@member``)."""
        paper, _, member = text.partition(MEMBER_SEP)
        return cls(paper, member)

    @classmethod
    def of_record(cls, rec: dict[str, Any]) -> "RecordKey":
        """The key of a stored record (its paper and its member)."""
        return cls(str(rec.get("paper_id", "")), str(rec.get("member") or ""))

    @property
    def text(self) -> str:
        """As the undo history writes it: ``PAPERID`` (the owner's) or ``PAPERID@member``."""
        return f"{self.paper}{MEMBER_SEP}{self.member}" if self.member else self.paper

    @property
    def doc_id(self) -> int:
        """The record's TinyDB document id: the paper id's value for the owner's (as every library
        before members had), with a hash of the member above 2**48 for another's (paper ids are 12
        hex digits), so the owner's records keep the ids they always had. ValueError for a paper id
        that is no hex (a forged undo entry's)."""
        if not self.member:
            return int(self.paper, 16)
        code = int(hashlib.sha1(self.member.encode("utf-8")).hexdigest()[:10], 16) or 1
        return (code << 48) | int(self.paper, 16)


@dataclass
class Annotation:
    """A person's triage of one paper. Defaults mean "untouched"."""

    paper_id: str
    status: str = "unread"
    star: int = 0
    tags: list[str] = field(default_factory=list)
    note: str = ""
    created: str = ""
    updated: str = ""
    conflicts: list[dict[str, Any]] = field(default_factory=list)  # the losing side of merged conflicts
    # When each field last changed (ISO times): "status", "star", "note", and "#tag" for each tag
    # added or removed (a removed tag keeps its time, so a merge knows it was removed, not never
    # there). A merge decides field by field with them: see store.exchange.merge.
    stamps: dict[str, str] = field(default_factory=dict)
    # Whose marks these are: "" for the library's owner (every annotation before members were), else
    # a member's name. (A paper's assignment is a record of its own kind: :class:`Assignment`.)
    member: str = ""
    STAMPED: ClassVar[tuple[str, ...]] = ("status", "star", "note")  # the single-valued fields; tags one by one

    @property
    def key(self) -> RecordKey:
        """The key of this annotation's stored record."""
        return RecordKey(self.paper_id, self.member)

    def is_default(self) -> bool:
        """True when nothing has been said about the paper."""
        return self.status == "unread" and not self.star and not self.tags and not self.note

    def is_cleared(self) -> bool:
        """A member's record back at its defaults that keeps its change times (a tombstone): every
        mark was taken back, and when. It is stored and travels in team files so that the clearing
        reaches a colleague's copy as a change (a merge applies it where it is newer); it is no
        mark, so the library's views of marks never hold it (see LibraryCore.cleared)."""
        return self.is_default() and bool(self.stamps)

    @property
    def marked(self) -> bool:
        """Whether its member said anything of the paper (a status, a star, a tag or a note)."""
        return self.status != "unread" or bool(self.star or self.tags or self.note)

    def stamp_changes(self, old: "Annotation", when: str) -> None:
        """Record ``when`` as the change time of every field that differs from ``old``."""
        for name in self.STAMPED:
            if getattr(self, name) != getattr(old, name):
                self.stamps[name] = when
        for tag in set(self.tags).symmetric_difference(old.tags):
            self.stamps["#" + tag] = when

    def copy(self) -> "Annotation":
        """A copy sharing nothing mutable (what ``copy.deepcopy`` gives, ten times faster: an
        assignment of 30k papers copies each record twice)."""
        return Annotation(self.paper_id, self.status, self.star, list(self.tags), self.note, self.created,
                          self.updated, [dict(c) for c in self.conflicts], dict(self.stamps), self.member)

    def to_record(self) -> dict[str, Any]:
        """The stored record (written out by hand: ``asdict`` cost an assignment of 30k papers 1.5 s)."""
        rec: dict[str, Any] = {"paper_id": self.paper_id, "status": self.status, "star": self.star,
                               "tags": list(self.tags), "note": self.note, "created": self.created,
                               "updated": self.updated}
        if self.conflicts:
            rec["conflicts"] = [dict(c) for c in self.conflicts]
        if self.stamps:
            rec["stamps"] = dict(self.stamps)
        if self.member:
            rec["member"] = self.member
        return rec

    @classmethod
    def from_record(cls, rec: dict[str, Any]) -> "Annotation":
        """The annotation a stored record holds, each field of the wrong kind read as its default
        (see :meth:`read`); the record must be one (store.record_fields.is_record)."""
        return cls.read(rec)[0]

    @classmethod
    def read(cls, rec: dict[str, Any]) -> tuple["Annotation", list[str]]:
        """:meth:`from_record`, and the names of the fields that held something of the wrong kind
        (a forged or damaged library folder's): read as their defaults, in memory only."""
        # (A time or a list of conflicts of the wrong kind, stored by a papersift that took a
        # colleague's record unchecked, reads as none: the next merge compares it with a time.)
        created, updated, conflicts = rec.get("created", ""), rec.get("updated", ""), rec.get("conflicts")
        fields, bad = read_fields(rec)
        return cls(
            paper_id=rec["paper_id"],
            status=fields["status"],
            star=fields["star"],
            tags=fields["tags"],
            note=fields["note"],
            created=created if isinstance(created, str) else "",
            updated=updated if isinstance(updated, str) else "",
            conflicts=[c for c in conflicts if isinstance(c, dict)] if isinstance(conflicts, list) else [],
            stamps=fields["stamps"],
            member=str(rec.get("member") or ""),  # (a number reads as its digits, the doctor's way too)
        ), bad


@dataclass
class Assignment:
    """Which member a paper is assigned to (``assignee``; "" once the assignment is taken off),
    and when that last changed (``stamps["assignee"]``): a record of its own beside the members'
    annotations, journaled, backed up and undone as they are. Taken off, it keeps its time, so a
    lab's sync passes the taking off on (store.sync.library_sync)."""

    paper_id: str
    assignee: str = ""
    stamps: dict[str, str] = field(default_factory=dict)
    STAMPED: ClassVar[tuple[str, ...]] = ("assignee",)

    @property
    def key(self) -> RecordKey:
        """The key of this assignment's stored record."""
        return RecordKey.assignment(self.paper_id)

    def is_default(self) -> bool:
        """True when the paper is assigned to no one."""
        return not self.assignee

    def is_cleared(self) -> bool:
        """An assignment taken off that keeps its change time (stored: see the class)."""
        return not self.assignee and bool(self.stamps)

    def stamp_changes(self, old: "Assignment", when: str) -> None:
        """Record ``when`` as the change time of the assignee when it differs from ``old``'s."""
        if self.assignee != old.assignee:
            self.stamps["assignee"] = when

    def copy(self) -> "Assignment":
        return Assignment(self.paper_id, self.assignee, dict(self.stamps))

    def to_record(self) -> dict[str, Any]:
        """The stored record (its change time is in its stamps: half the bytes of a member's at 30k)."""
        return {"paper_id": self.paper_id, "member": _ASSIGNMENT_MEMBER, "assignee": self.assignee,
                "stamps": dict(self.stamps)}

    @classmethod
    def read(cls, rec: dict[str, Any]) -> tuple["Assignment", list[str]]:
        """The assignment a stored record holds (see :meth:`Annotation.read`): change times of the
        wrong kind are dropped and named; an assignee that is no text reads as its text (a name
        papersift cannot use is the views' to set aside: store.library.member_views)."""
        fields, bad = read_fields({"stamps": rec.get("stamps")})
        return cls(rec["paper_id"], str(rec.get("assignee") or ""), fields["stamps"]), bad


Record = Union[Annotation, Assignment]  # a stored annotation record, of either kind


def read_record(rec: dict[str, Any]) -> tuple[Record, list[str]]:
    """The record a stored one holds, of its kind (an assignment's, or a member's annotation), and
    the fields that held something of the wrong kind (see :meth:`Annotation.read`)."""
    if RecordKey.of_record(rec).is_assignment:
        return Assignment.read(rec)
    return Annotation.read(rec)


@dataclass
class MarkedAnnotation(Annotation):
    """An annotation as an export shows it in a lab's library: with every member's marks beside
    it (``others``: (member, their annotation), the exporter's own among them). Never stored."""

    others: list[tuple[str, "Annotation"]] = field(default_factory=list)


# The member name an assignment record is stored under, on disk and in the undo history only (in
# memory it is a RecordKey.assignment and an Assignment): no member can be called that.
_ASSIGNMENT_MEMBER = "@team"


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
