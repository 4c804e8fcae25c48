"""An annotation record's kinds and its key: ``Annotation``, what a member said of a paper, and
``Assignment``, which member a paper is assigned to; ``RecordKey``, which record of a paper's it
is. Plain dataclasses, converted to and from the records the annotations file stores.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple, Union

from store.record_fields import read_fields


MEMBER_SEP = "@"  # between a paper id and a member in a record key's text (no paper id holds it)


class RecordKey(NamedTuple):
    """Which annotation record: a paper's, for a member (by name in memory; the annotations file
    stores the library's owner's without one, :meth:`stored`), or the paper's assignment
    (:meth:`assignment`). The undo history writes a stored key as :attr:`text`; the annotations
    table keeps the record under :attr:`doc_id`."""

    paper: str
    member: str = ""

    @classmethod
    def assignment(cls, paper: str) -> "RecordKey":
        """The key of the paper's assignment record."""
        return cls(paper, _ASSIGNMENT_MEMBER)

    def stored(self, owner: str) -> "RecordKey":
        """The key as the annotations file and the undo history store it: the library's owner's
        records carry no member name (every record before members were)."""
        return RecordKey(self.paper) if self.member == owner else self

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
    # Whose marks these are, by name (a stored record of the library's owner's names none, as every
    # record before members: "" here until store.annotations.database reads it as the owner's).
    # (A paper's assignment is a record of its own kind: :class:`Assignment`.)
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

    def to_record(self, owner: str = "") -> dict[str, Any]:
        """The stored record, naming its member unless it is ``owner``'s (written out by hand:
        ``asdict`` cost an assignment of 30k papers 1.5 s)."""
        rec: dict[str, Any] = {"paper_id": self.paper_id, "status": self.status, "star": self.star,
                               "tags": list(self.tags), "note": self.note, "created": self.created,
                               "updated": self.updated}
        if self.conflicts:
            rec["conflicts"] = [dict(c) for c in self.conflicts]
        if self.stamps:
            rec["stamps"] = dict(self.stamps)
        if self.member and self.member != owner:
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

    def to_record(self, owner: str = "") -> dict[str, Any]:
        """The stored record (its change time is in its stamps: half the bytes of a member's at 30k;
        ``owner`` as :meth:`Annotation.to_record` takes it: an assignment is no member's)."""
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
