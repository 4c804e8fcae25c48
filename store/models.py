"""The corpus's plain data models and their converters to and from disk records.

``Paper`` is one deduplicated abstract (what a person said of it is in store.records). Plain
dataclasses, so the TUI, the CLI and exporters share them without pulling in any storage detail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from store.choices import MAX_STAR, STATUSES  # noqa: F401 (re-exported)


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


def _is_source(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("file"), str) and type(value.get("position")) is int


def _is_variant(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("id"), str) and isinstance(value.get("abstract"), str)
            and isinstance(value.get("similarity", 1.0), (int, float)) and not isinstance(value.get("similarity"), bool)
            and all(_is_source(s) for s in _list(value.get("sources"))))


def _sources(value: Any) -> list[Source]:
    """A record's sources: those with a file name and a position (a forged one is passed over)."""
    return [Source(s["file"], s["position"]) for s in _list(value) if _is_source(s)]


def _list(value: Any) -> list[Any]:
    """A list field of a corpus record: the list, else none (a forged ``5`` or ``{}``)."""
    return value if isinstance(value, list) else []


def paper_record_problems(rec: dict[str, Any]) -> list[str]:
    """The fields of a corpus record of the wrong kind (what :meth:`Paper.from_record` reads as none):
    for the doctor, which names them."""
    bad: list[str] = [name for name in ("abstract", "title", "external_id", "venue", "year", "area", "url")
           if name in rec and not isinstance(rec[name], str)]
    bad += [name for name in ("authors", "keywords", "aliases") if name in rec and
            (not isinstance(rec[name], list) or not all(isinstance(v, str) for v in rec[name]))]
    bad += [name for name in ("batch", "revised", "version") if name in rec and rec[name] != _count(rec[name])]
    bad += [name for name, ok in (("sources", _is_source), ("variants", _is_variant), ("versions", _is_version))
            if rec.get(name) is not None and (not isinstance(rec[name], list) or not all(map(ok, rec[name])))]
    return bad


def _is_version(value: Any) -> bool:
    return isinstance(value, dict)


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


# A merged variant's own fields, as its record gave them (kept so a split paper gets them back),
# and what a variant may have given the paper it joined (store.ingest.importer.enrich's names).
VARIANT_FIELDS = ("title", "authors", "external_id", "url", "venue", "year", "keywords", "area")
GIVEN_NAMES = ("title", "authors", "url", "external_id", "keywords", "area", "venue")


@dataclass
class Variant:
    """A near-duplicate text merged into a paper (kept so a merge can be split).

    Attributes:
        fields: its record's own title, authors, link ... (those it had; see VARIANT_FIELDS),
            which a split gives the paper it becomes.
        gave: the fields it filled in the paper it joined (GIVEN_NAMES), which a split takes back.
    """

    id: str
    abstract: str
    similarity: float
    sources: list[Source] = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)
    gave: list[str] = field(default_factory=list)

    def to_record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"id": self.id, "abstract": self.abstract, "similarity": self.similarity,
                               "sources": [s.to_record() for s in self.sources]}
        if self.fields:
            rec["fields"] = self.fields
        if self.gave:
            rec["gave"] = self.gave
        return rec


def variant_fields(value: Any) -> dict[str, Any]:
    """A variant's own fields from a corpus record, each of its kind (a forged one reads as none)."""
    if not isinstance(value, dict):
        return {}
    read = {name: _texts(value.get(name)) if name in ("authors", "keywords") else
            _web_link(value.get(name)) if name == "url" else _text(value.get(name)) for name in VARIANT_FIELDS}
    return {name: v for name, v in read.items() if v}


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
            rec["variants"] = [v.to_record() for v in self.variants]
        return rec

    @classmethod
    def from_record(cls, rec: dict[str, Any]) -> "Paper":
        return cls(
            id=rec["id"],
            abstract=_text(rec["abstract"]),
            title=_text(rec.get("title")),
            derived_title=bool(rec.get("derived_title", True)),
            authors=_texts(rec.get("authors")),
            sources=_sources(rec.get("sources")),
            aliases=_texts(rec.get("aliases")),
            variants=[
                Variant(
                    id=v["id"],
                    abstract=v["abstract"],
                    similarity=float(v.get("similarity", 1.0)),
                    sources=_sources(v.get("sources")),
                    fields=variant_fields(v.get("fields")),
                    gave=[name for name in _texts(v.get("gave")) if name in GIVEN_NAMES],
                )
                for v in _list(rec.get("variants")) if _is_variant(v)
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
            versions=[v for v in _list(rec.get("versions")) if _is_version(v)],
        )
