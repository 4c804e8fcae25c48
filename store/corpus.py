"""The deduplicated corpus: papers in import order, looked up by id or alias.

Stored as one JSON file (``corpus.json``) written atomically. The file records
its format name and version so a newer or foreign file is refused, not
overwritten.
"""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path

import orjson

from .atomic import atomic_write_bytes
from .errors import CorruptFileError, UnknownPaperError
from .models import Paper

CORPUS_FORMAT = "papersift-corpus"
CORPUS_VERSION = 1


def paper_id(normalized: str) -> str:
    """Stable id of a normalized abstract: 12 hex digits of its SHA-1."""
    return hashlib.sha1(normalized.encode("utf-8")).hexdigest()[:12]


class Corpus:
    """Papers in import order with id / alias / prefix lookup."""

    def __init__(self, papers: list[Paper] | None = None, separate: list[list[str]] | None = None):
        self.papers: list[Paper] = []
        self._by_id: dict[str, int] = {}
        self.separate: set[frozenset[str]] = {frozenset(p) for p in separate or []}
        self.generation = ""  # changes on every save; the search-index cache records it
        for paper in papers or []:
            self.add(paper)

    def __len__(self) -> int:
        return len(self.papers)

    def __iter__(self):
        return iter(self.papers)

    def add(self, paper: Paper) -> int:
        """Append a paper; returns its index."""
        idx = len(self.papers)
        self.papers.append(paper)
        self._by_id[paper.id] = idx
        for alias in paper.aliases:
            self._by_id.setdefault(alias, idx)
        return idx

    def add_alias(self, alias: str, idx: int) -> None:
        self.papers[idx].aliases.append(alias)
        self._by_id.setdefault(alias, idx)

    def index_of(self, key: str) -> int | None:
        """Index of the paper with this id or alias (exact), else None."""
        return self._by_id.get(key)

    def resolve(self, key: str) -> Paper:
        """The paper for an id, alias or unambiguous id prefix (>= 4 chars).

        Raises:
            UnknownPaperError: no paper, or the prefix is ambiguous.
        """
        key = key.strip().lower()
        idx = self._by_id.get(key)
        if idx is not None:
            return self.papers[idx]
        if len(key) >= 4:
            hits = {i for k, i in self._by_id.items() if k.startswith(key)}
            if len(hits) == 1:
                return self.papers[hits.pop()]
            if len(hits) > 1:
                raise UnknownPaperError(f"id prefix {key!r} matches {len(hits)} papers; give more characters")
        raise UnknownPaperError(f"no paper with id {key!r} (see `papersift list`)")

    def rebuild_lookup(self) -> None:
        self._by_id = {}
        for idx, paper in enumerate(self.papers):
            self._by_id[paper.id] = idx
        for idx, paper in enumerate(self.papers):
            for alias in paper.aliases:
                self._by_id.setdefault(alias, idx)

    def to_bytes(self) -> bytes:
        return orjson.dumps({
            "format": CORPUS_FORMAT,
            "version": CORPUS_VERSION,
            "papers": [p.to_record() for p in self.papers],
            "separate": sorted(sorted(pair) for pair in self.separate),
            "generation": self.generation,
        })

    def save(self, path: Path) -> None:
        """Write the corpus atomically under a new generation token."""
        self.generation = uuid.uuid4().hex
        atomic_write_bytes(path, self.to_bytes())

    @classmethod
    def load(cls, path: Path) -> "Corpus":
        """Read a corpus file.

        Raises:
            CorruptFileError: unparseable, foreign, or from a newer papersift.
        """
        try:
            data = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise CorruptFileError(path, f"not valid JSON ({exc})") from None
        if not isinstance(data, dict) or data.get("format") != CORPUS_FORMAT:
            raise CorruptFileError(path, "not a papersift corpus file")
        version = data.get("version")
        if not isinstance(version, int) or version > CORPUS_VERSION:
            raise CorruptFileError(path, f"written by a newer papersift (format version {version}; "
                                         f"this one reads up to {CORPUS_VERSION}); upgrade papersift")
        try:
            corpus = cls([Paper.from_record(r) for r in data["papers"]], data.get("separate") or [])
            corpus.generation = str(data.get("generation", ""))
            return corpus
        except (KeyError, TypeError, ValueError) as exc:
            raise CorruptFileError(path, f"malformed paper record ({exc!r})") from None
