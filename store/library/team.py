"""A lab triaging one library together: who the members are, splitting papers among them by
topic, and what each said of a paper side by side — a part of the Library.

Every member's marks are records of their own (see :class:`store.records.RecordKey`); a paper's
assignment is one more record, of its own kind (:class:`store.records.Assignment`), so an
assignment is journaled, backed up, undone and merged exactly as a mark is.
"""

from __future__ import annotations


from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, NamedTuple, Sequence

import numpy as np

from store.annotations.database import HISTORY_LIMIT
from store.errors import PapersiftError
from store.records import Annotation, MarkedAnnotation, RecordKey
from store.team.members import check_weights, checked_member, nearest_member, no_member, typo_of
from store.team.view import keeps, member_names, team_stars
from store.wording import counted, first_few

if TYPE_CHECKING:
    from store.library.cores import TeamCore

ASSIGN_ACTION = "assign"
SEEDS = "seeds"  # on an assignment's undo step: member -> the seed phrase and the papers it found
BY = "by"  # on an assignment's undo step: how it split the papers ("interest" or "topic")
SPLIT_DIMS = 64  # the most latent dimensions a split's vectors take (store.team.vectors)


@dataclass
class MemberProgress:
    """One member's row of the team view."""

    member: str
    assigned: int = 0           # papers assigned to them
    triaged_assigned: int = 0   # of those, how many they gave a status (read, to read, skipped)
    triaged: int = 0            # papers they gave a status, assigned or not (as the header counts)
    stars: int = 0              # stars they gave (the sum)
    starred: int = 0            # papers they starred
    shared: int = 0             # papers both they and another member judged (a status or a star)
    agreed: int = 0             # of those, where both kept it or both skipped it

    @property
    def agreement(self) -> float | None:
        return self.agreed / self.shared if self.shared else None

    def to_dict(self) -> dict[str, object]:
        return {"member": self.member, "assigned": self.assigned, "triaged_assigned": self.triaged_assigned,
                "triaged": self.triaged, "stars": self.stars, "starred": self.starred, "shared": self.shared,
                "agreed": self.agreed, "agreement": self.agreement}


class Why(NamedTuple):
    """Why a paper went to a member: the paper of theirs it is most like, the seed phrase that
    found that paper ("" when it is one of their own; with no ``like``, the seed found this paper
    itself), and another member whose papers it is more like ("" when none: then it went by
    interest, else to keep the shares even)."""

    member: str
    like: str
    seed: str
    closer: str = ""


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

    def __init__(self, core: TeamCore, latent: Callable[[], np.ndarray | None] | None = None) -> None:
        """``latent``: more-like-this's latent vectors of every paper, row-normalized (None: ten
        papers or fewer), what ``assign --by-interest`` compares papers in."""
        self._core = core
        self._latent = latent

    def members(self) -> list[str]:
        """Everyone with marks or an assignment here, and whoever is triaging now, sorted."""
        return member_names(self._core.member_marks, self._core.assignments, self._core.member)

    def active(self) -> list[str]:
        """The members who marked a paper here or have a share, sorted: whoever only assigned
        papers, or is triaging now and has marked nothing yet, is none."""
        return [m for m in self.members() if m in self._core.member_marks or m in self._core.assignments.values()]

    def also_held(self, paper_ids: Iterable[str]) -> str:
        """What else a removal of the papers takes with it in a lab's library, for its question
        and its report (undo brings it all back): "" when nothing, else e.g. " (ana's and ben's
        marks too, and 1 assignment)"."""
        ids = set(paper_ids)
        me = self._core.member
        others = [name + "'s" for name, anns in sorted(self._core.member_marks.items())
                  if name != me and not ids.isdisjoint(anns)]
        assigned = sum(1 for pid in ids if pid in self._core.assignments)
        parts = []
        if others:
            whose = others[0] if len(others) == 1 else f"{first_few(others[:-1], 4)} and {others[-1]}"
            parts.append(f"{whose} marks too")
        if assigned:
            parts.append(counted(assigned, "assignment"))
        return f" ({', and '.join(parts)})" if parts else ""

    def check_member(self, name: str) -> str:
        """``name`` when it is a member of this library.

        Raises:
            PapersiftError: no such member, with the nearest name (did you mean).
        """
        members = self.members()
        if name not in members:
            raise PapersiftError(no_member(name, members))
        return name

    def newcomer(self, name: str) -> str | None:
        """What to say when ``name`` has no marks here yet in a library with other members: a new
        member, or a typo (``anaa`` for ana) that would start a new member silently.

        Raises:
            PapersiftError: ``name`` differs from a member's only in case (``ANA`` for ana).
        """
        known = [m for m in self.active() if m != name]
        if not known or name in self._core.member_marks or name in self._core.assignments.values():
            return None
        same = [m for m in known if m.casefold() == name.casefold()]
        if same:
            raise PapersiftError(f"member {name!r} differs from {same[0]!r} only in case: --as {same[0]}")
        close = nearest_member(name, known)  # (bne: ben)
        return (f"{name} has no marks here yet: a new member (members: {', '.join(known)})"
                + (f"; did you mean {close}?" if close else ""))

    def marks_of(self, paper_id: str) -> list[tuple[str, Annotation]]:
        """Every member's marks of a paper (members who said nothing left out), this member first."""
        found = [(name, anns[paper_id]) for name, anns in self._core.member_marks.items()
                 if paper_id in anns and anns[paper_id].marked]
        return sorted(found, key=lambda pair: (pair[0] != self._core.member, pair[0].casefold()))

    def with_marks(self, ann: Annotation) -> MarkedAnnotation:
        """The member's annotation with every member's marks of the paper beside it (for exports)."""
        marked = MarkedAnnotation(**{f.name: getattr(ann, f.name) for f in fields(ann)})
        marked.others = self.marks_of(ann.paper_id)
        return marked

    def team_stars(self) -> dict[str, int]:
        """Paper id -> the stars every member gave it, summed (papers with none left out)."""
        return team_stars(self._core.member_marks)

    # ------------------------------------------------------------------ assigning
    def assign(self, members: Sequence[str], paper_ids: Sequence[str], weights: Sequence[float] | None = None,
               seed: int = 0, by_interest: bool = False, seed_papers: Mapping[str, Sequence[str]] | None = None,
               new_members: bool = False, seed_phrases: Mapping[str, str] | None = None) -> Assigned:
        """Split the papers among the members, one undo step: each paper to exactly one member,
        shares in proportion to ``weights`` (equal by default), papers of one topic kept with one
        member as far as the balance allows (:func:`store.team.split.split_by_topic`).

        Args:
            by_interest: each paper to the member whose own papers it is most like (their stars and
                to-reads, and ``seed_papers``), the shares kept (store.team.interest); topics where
                interest says nothing.
            seed_papers: member -> papers standing for their interest (what a seed phrase found).
            seed_phrases: member -> the phrase that found their ``seed_papers``: kept with the
                assignment's undo step, so :meth:`why_assigned` can say a paper went by it.
            new_members: a name close to a member's (``bne`` beside ben) is a new member, not a typo.

        Raises:
            PapersiftError: no papers, no members, a bad name, weights that do not fit, or (by
                interest) no member with a paper of their own.
        """
        from store.team.split import split_by_topic

        names = self._names_to_assign(members, new_members)
        shares = check_weights(names, weights) if weights is not None else [1.0] * len(names)
        ids = list(dict.fromkeys(paper_ids))
        if not ids:
            raise PapersiftError("nothing to assign: every paper no member has marked is assigned already, "
                                 "or the query matches none (--query Q re-splits a set; --clear takes "
                                 "assignments off)")
        index_of = self._core.corpus.index_of
        rows = np.array([index_of(pid) for pid in ids], dtype=np.int64)
        if by_interest:
            owner = self._by_interest(names, rows, shares, seed, seed_papers or {})
        else:
            owner = split_by_topic(self.vectors(rows, seed), shares, seed=seed)
        target = {pid: names[int(k)] for pid, k in zip(ids, owner)}
        done = Assigned(shares={name: 0 for name in names})
        for pid, name in target.items():
            done.shares[name] += 1
            done.moved += bool(self._core.assignments.get(pid) not in (None, name))

        label = f"assign {counted(len(ids), 'paper')} to {', '.join(names)}"
        seeds = {name: {"phrase": (seed_phrases or {}).get(name, ""), "papers": list(papers)}
                 for name, papers in (seed_papers or {}).items() if by_interest and name in names}
        extra = {BY: "interest" if by_interest else "topic", **({SEEDS: seeds} if seeds else {})}
        self._core.change_assignments(target, ASSIGN_ACTION, label, extra=extra)
        return done

    def _names_to_assign(self, members: Sequence[str], new_members: bool) -> list[str]:
        """The members named, checked: none differing from a member only in case, none a typo of
        one (unless ``new_members``)."""
        names = [checked_member(m) for m in dict.fromkeys(members)]
        if not names:
            raise PapersiftError("no members to assign to (e.g. --to ana,ben,chen)")
        known = self.active()
        for name in names:
            _refuse_lookalike(name, names, known, new_members)
        return names

    def interest_papers(self, member: str) -> list[str]:
        """The papers that say what a member cares about: those they starred or mean to read."""
        return [pid for pid, a in self._core.member_marks.get(member, {}).items() if a.star > 0 or a.status == "to-read"]

    def _by_interest(self, names: list[str], rows: np.ndarray, shares: Sequence[float], seed: int,
                     seed_papers: Mapping[str, Sequence[str]]) -> np.ndarray:
        """Member index per row of ``rows``: store.team.interest over vectors made of the papers
        being assigned and the members' own papers together."""
        from store.team.interest import interest, split_by_interest
        from store.team.split import share_sizes, split_by_topic

        index_of = self._core.corpus.index_of
        own = {name: [i for i in map(index_of, [*self.interest_papers(name), *seed_papers.get(name, ())]) if i is not None]
               for name in names}
        if not any(own.values()):
            raise PapersiftError("--by-interest: no member has starred a paper or marked one to read yet; seed them "
                                 "with a phrase (--seed ben=\"legged locomotion\") or split by topic (without --by-interest)")
        topic = split_by_topic(self.vectors(rows, seed), shares, seed=seed)
        latent = self._latent() if self._latent is not None else None
        if latent is None or len(latent) != len(self._core.corpus):  # (ten papers or fewer: no latent space)
            return topic
        scores = interest(latent, [np.array(own[name], dtype=np.int64) for name in names])
        return split_by_interest(scores[rows], topic, share_sizes(len(rows), shares))

    def why_assigned(self, paper_id: str) -> Why | None:
        """Why an assigned paper went to its member: the paper of theirs it is most like, read as
        ``assign --by-interest`` reads interest (more-like-this's latent vectors), their own papers
        (stars, to-read) or, for a member seeded with a phrase, the papers that phrase found (kept
        with the assignment's undo step, while history holds it). None when it is not assigned, a
        split by topic put it there, or the member has neither."""
        member = self._core.assignments.get(paper_id)
        history = self._core.store.history(HISTORY_LIMIT) if member else []  # (read once, for both below)
        if member is not None and _assigned_by(paper_id, history) == "topic":
            return None  # (the paper of theirs it is most like is no reason a topic split gave)
        index_of = self._core.corpus.index_of
        row = index_of(paper_id)
        seeds = _seeds(history)  # (every member's, from the one read)
        phrase, seeded = seeds.get(member, ("", [])) if member else ("", [])
        own = [i for i in map(index_of, self.interest_papers(member)) if i is not None] if member else []
        by_seed = [i for i in map(index_of, seeded) if i is not None and i not in own]
        latent = self._latent() if (own or by_seed) and self._latent is not None else None
        if member is None or row is None or latent is None or len(latent) != len(self._core.corpus):
            return None
        if row in by_seed:  # (one of the papers the seed found: that is the reason, not a paper like itself)
            return Why(member, "", phrase, "")
        candidates = [i for i in own + by_seed if i != row]
        if not candidates:
            return None
        sims = latent[candidates] @ latent[row]
        nearest = candidates[int(np.argmax(sims))]
        closer = self._closer_member(member, float(np.max(sims)), latent, row, seeds)
        return Why(member, self._core.corpus.papers[nearest].id, phrase if nearest not in own else "", closer)

    def _closer_member(self, member: str, best: float, latent: np.ndarray, row: int,
                       seeds: Mapping[str, tuple[str, list[str]]]) -> str:
        """Another member (with papers of their own, or a seed's) one of whose papers the paper at
        ``row`` is more like than ``best`` ("" for none): then a split by interest gave it to
        ``member`` to keep the shares even."""
        index_of = self._core.corpus.index_of
        closest, name = best, ""
        for other in self.members():
            if other == member:
                continue
            papers = [*self.interest_papers(other), *seeds.get(other, ("", []))[1]]
            rows = [i for i in map(index_of, papers) if i is not None]
            if rows and (sim := float(np.max(latent[rows] @ latent[row]))) > closest:
                closest, name = sim, other
        return name

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
        return self._core.change_assignments(dict.fromkeys(ids, ""), ASSIGN_ACTION,
                                             f"clear the assignment of {counted(len(ids), 'paper')}")

    def untriaged(self) -> list[str]:
        """The papers no member has marked and none is assigned, in import order: what ``assign``
        deals out by default (run again after an import, it deals out only what is new; each
        member's share stays theirs)."""
        said = {pid for anns in self._core.member_marks.values() for pid, a in anns.items() if a.marked}
        assigned = self._core.assignments
        return [pid for pid in self._core.corpus.ids() if pid not in said and pid not in assigned]

    # ------------------------------------------------------------------ the team view
    def progress(self) -> list[MemberProgress]:
        """Per member: assigned, triaged (of their share and in all), stars given, and agreement
        with the others on the papers two of them triaged. Whoever is triaging now is a row only
        with marks or a share of their own."""
        team = self._core.member_marks
        rows = {name: MemberProgress(name) for name in self.members()}
        for pid, name in self._core.assignments.items():
            row = rows[name]
            row.assigned += 1
            ann = team.get(name, {}).get(pid)
            row.triaged_assigned += bool(ann and ann.status != "unread")
        verdicts: dict[str, list[tuple[str, bool]]] = {}
        for name, anns in team.items():
            row = rows[name]
            for pid, ann in anns.items():
                row.triaged += ann.status != "unread"
                row.stars += ann.star
                row.starred += ann.star > 0
                if ann.status != "unread" or ann.star:  # a verdict: kept or skipped
                    verdicts.setdefault(pid, []).append((name, keeps(ann)))
        for said in verdicts.values():
            for name, kept in said:
                for other, other_kept in said:
                    if other != name:
                        rows[name].shared += 1
                        rows[name].agreed += kept == other_kept
        me = self._core.member
        if me in rows and not rows[me].assigned and not team.get(me):
            del rows[me]  # (who only assigned papers, or opened the library, is no member of the lab)
        return list(rows.values())


def _refuse_lookalike(name: str, names: list[str], known: list[str], new_members: bool) -> None:
    """Refuse a name differing from a known member's only in case (`ANA` beside ana would start a
    member no one can be --as), or a typo of one ("bne" beside ben would start a member by
    mistake) unless ``new_members``; the error says the --to that was meant."""
    same = [m for m in known if m != name and m.casefold() == name.casefold()]
    if same:
        raise PapersiftError(f"member {name!r} differs from the member {same[0]!r} only in case: "
                             f"--to {','.join(same[0] if n == name else n for n in names)}")
    close = None if name in known or new_members else \
        next((m for m in known if m not in names and typo_of(name, m)), None)
    if close:
        raise PapersiftError(f"{name} is no member here yet; did you mean {close}? (--to "
                             f"{','.join(close if n == name else n for n in names)}; a new member after all: "
                             f"--new-members)")


def _assigned_by(paper_id: str, history: list[dict[str, Any]]) -> str:
    """How the newest assignment that changed the paper's member (as the undo history holds it)
    split the papers: "interest", "topic", or "" (none there: another copy's, through the lab's
    sync, or a step older than the history keeps or than steps that say so). A later split that
    left the paper with its member changed no record of it, so the earlier one is its reason."""
    key = RecordKey.assignment(paper_id).text
    for entry in history:  # (newest first)
        if entry.get("action") == ASSIGN_ACTION and key in (entry.get("after") or {}):
            by = entry.get(BY)
            return by if by in ("interest", "topic") else ("interest" if entry.get(SEEDS) else "")
    return ""


def _seeds(history: list[dict[str, Any]]) -> dict[str, tuple[str, list[str]]]:
    """Member -> the seed phrase and its papers their last assignment by interest was given (the
    newest undo step naming them; a forged step's values of the wrong kind read as none)."""
    found: dict[str, tuple[str, list[str]]] = {}
    for entry in history:
        seeds = entry.get(SEEDS) if entry.get("action") == ASSIGN_ACTION else None
        for name, said in (seeds.items() if isinstance(seeds, dict) else ()):
            phrase, papers = (said.get("phrase"), said.get("papers")) if isinstance(said, dict) else (None, None)
            if name not in found and isinstance(phrase, str) and isinstance(papers, list):
                found[name] = (phrase, [p for p in papers if isinstance(p, str)])
    return found
