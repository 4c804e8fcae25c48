"""A lab triaging one library together: who the members are, splitting papers among them by
topic, and what each said of a paper side by side — a part of the Library.

Every member's marks are records of their own (see :mod:`store.annotations.journal`'s record
keys); a paper's assignment is one more record, the team's (``TEAM``), so an assignment is
journaled, backed up, undone and merged exactly as a mark is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from store.errors import PapersiftError
from store.models import TEAM, Annotation, MarkedAnnotation
from store.search.suggest import no_match
from store.team.members import checked_member
from store.team.view import keeps, team_stars
from store.wording import counted

if TYPE_CHECKING:
    from store.library.core import LibraryCore

ASSIGN_ACTION = "assign"
SPLIT_DIMS = 64  # the most latent dimensions a split's vectors take (store.team.vectors)


@dataclass
class MemberProgress:
    """One member's row of the team view."""

    member: str
    assigned: int = 0           # papers assigned to them
    triaged_assigned: int = 0   # of those, how many they triaged
    triaged: int = 0            # papers they triaged, assigned or not
    stars: int = 0              # stars they gave (the sum)
    starred: int = 0            # papers they starred
    shared: int = 0             # papers both they and another member triaged
    agreed: int = 0             # of those, where both kept it or both skipped it

    @property
    def agreement(self) -> float | None:
        return self.agreed / self.shared if self.shared else None

    def to_dict(self) -> dict[str, object]:
        return {"member": self.member, "assigned": self.assigned, "triaged_assigned": self.triaged_assigned,
                "triaged": self.triaged, "stars": self.stars, "starred": self.starred, "shared": self.shared,
                "agreed": self.agreed, "agreement": self.agreement}


@dataclass
class Assigned:
    """What an assignment did: papers per member, in the order the members were named."""

    shares: dict[str, int] = field(default_factory=dict)
    moved: int = 0  # papers that had another assignee before

    @property
    def total(self) -> int:
        return sum(self.shares.values())


class Team:
    """members(), assign(), clear_assignments(), progress(), marks_of() and team_stars() of a
    :class:`~store.library.Library`."""

    def __init__(self, core: LibraryCore) -> None:
        self._core = core

    def members(self) -> list[str]:
        """Everyone with marks or an assignment here, and whoever is triaging now, sorted."""
        names = {name for name, anns in self._core.team.items() if anns}
        names |= set(self._core.assignments.values())
        names.add(self._core.member)
        return sorted(names, key=str.casefold)

    def check_member(self, name: str) -> str:
        """``name`` when it is a member of this library.

        Raises:
            PapersiftError: no such member, with the nearest name (did you mean).
        """
        members = self.members()
        if name not in members:
            raise PapersiftError(no_match("member", name, members, str))
        return name

    def marks_of(self, paper_id: str) -> list[tuple[str, Annotation]]:
        """Every member's marks of a paper (members who said nothing left out), this member first."""
        found = [(name, anns[paper_id]) for name, anns in self._core.team.items()
                 if paper_id in anns and anns[paper_id].triaged]
        return sorted(found, key=lambda pair: (pair[0] != self._core.member, pair[0].casefold()))

    def with_marks(self, ann: Annotation) -> MarkedAnnotation:
        """The member's annotation with every member's marks of the paper beside it (for exports)."""
        marked = MarkedAnnotation(**{f: getattr(ann, f) for f in ann.__dataclass_fields__})
        marked.others = self.marks_of(ann.paper_id)
        return marked

    def team_stars(self) -> dict[str, int]:
        """Paper id -> the stars every member gave it, summed (papers with none left out)."""
        return team_stars(self._core.team)

    # ------------------------------------------------------------------ assigning
    def assign(self, members: Sequence[str], paper_ids: Sequence[str], weights: Sequence[float] | None = None,
               seed: int = 0) -> Assigned:
        """Split the papers among the members, one undo step: each paper to exactly one member,
        shares in proportion to ``weights`` (equal by default), papers of one topic kept with one
        member as far as the balance allows (:func:`store.team.split.split_by_topic`).

        Raises:
            PapersiftError: no papers, no members, a bad name, or weights that do not fit.
        """
        from store.team.split import split_by_topic

        names = [checked_member(m) for m in dict.fromkeys(members)]
        if not names:
            raise PapersiftError("no members to assign to (e.g. --to ana,ben,chen)")
        shares = list(weights) if weights is not None else [1.0] * len(names)
        if len(shares) != len(names) or any(not w > 0 for w in shares):
            raise PapersiftError(f"--weights needs one positive number per member ({len(names)}: "
                                 f"{', '.join(names)}), e.g. {','.join(['1'] * len(names))}")
        ids = list(dict.fromkeys(paper_ids))
        if not ids:
            raise PapersiftError("nothing to assign: the set is empty (every paper is triaged, or the query "
                                 "matches none; --query Q names the papers to split)")
        index_of = self._core.corpus.index_of
        rows = np.array([index_of(pid) for pid in ids], dtype=np.int64)
        owner = split_by_topic(self.vectors(rows, seed), shares, seed=seed)
        target = {pid: names[int(k)] for pid, k in zip(ids, owner)}
        done = Assigned(shares={name: 0 for name in names})
        for pid, name in target.items():
            done.shares[name] += 1
            done.moved += bool(self._core.assignments.get(pid) not in (None, name))

        def fn(ann: Annotation) -> None:
            ann.assignee = target[ann.paper_id]
        label = f"assign to {', '.join(names)}"
        self._core.change_records([(pid, TEAM) for pid in ids], fn, ASSIGN_ACTION, label)
        return done

    def vectors(self, rows: np.ndarray, seed: int = 0) -> np.ndarray:
        """Latent topic vectors of the papers at these corpus positions (store.team.vectors): the
        more-like-this model's TF-IDF rows, reduced by a randomized SVD of just these papers."""
        from store.discovery.similar import doc_term_matrix, lsa_dims
        from store.team.vectors import topic_vectors
        matrix = doc_term_matrix(self._core.index)[rows]
        # Dimensions as more-like-this takes them, up to 64: a split deals out some sixty topics, and
        # 114 dimensions at 30k papers cost assign 0.6 s more for the same shares' quality.
        return topic_vectors(matrix, min(lsa_dims(len(rows)), SPLIT_DIMS), seed)

    def clear_assignments(self, paper_ids: Iterable[str] | None = None) -> int:
        """Take the assignment off the papers (all assigned papers by default): one undo step."""
        assigned = self._core.assignments
        ids = [pid for pid in (assigned if paper_ids is None else paper_ids) if pid in assigned]
        if not ids:
            return 0

        def fn(ann: Annotation) -> None:
            ann.assignee = ""
        return self._core.change_records([(pid, TEAM) for pid in ids], fn, ASSIGN_ACTION,
                                         f"clear the assignment of {counted(len(ids), 'paper')}")

    def untriaged(self) -> list[str]:
        """The papers no member has triaged, in import order: what ``assign`` splits by default."""
        said = {pid for anns in self._core.team.values() for pid, a in anns.items() if a.triaged}
        return [pid for pid in self._core.corpus.ids() if pid not in said]

    # ------------------------------------------------------------------ the team view
    def progress(self) -> list[MemberProgress]:
        """Per member: assigned, triaged (of their share and in all), stars given, and agreement
        with the others on the papers two of them triaged."""
        team = self._core.team
        rows = {name: MemberProgress(name) for name in self.members()}
        for pid, name in self._core.assignments.items():
            row = rows[name]
            row.assigned += 1
            ann = team.get(name, {}).get(pid)
            row.triaged_assigned += bool(ann and ann.triaged)
        verdicts: dict[str, list[tuple[str, bool]]] = {}
        for name, anns in team.items():
            row = rows[name]
            for pid, ann in anns.items():
                if not ann.triaged:
                    continue
                row.triaged += 1
                row.stars += ann.star
                row.starred += ann.star > 0
                verdicts.setdefault(pid, []).append((name, keeps(ann)))
        for said in verdicts.values():
            for name, kept in said:
                for other, other_kept in said:
                    if other != name:
                        rows[name].shared += 1
                        rows[name].agreed += kept == other_kept
        return list(rows.values())
