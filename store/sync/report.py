"""What a lab's sync did (store.sync.library_sync), as one line for a terminal or the app's
header, and as JSON for the app."""

from __future__ import annotations

from dataclasses import dataclass, field

from store.wording import counted


@dataclass
class SyncReport:
    """What a sync did: marks taken per member, papers arrived, this member's marks sent."""

    remote: str
    member: str = ""  # who synced: the member whose files this library writes
    marks: dict[str, int] = field(default_factory=dict)  # member -> papers whose marks changed here
    taken: dict[str, int] = field(default_factory=dict)  # member -> papers here whose marks they took back
    own: int = 0  # papers whose marks of this member's came from another copy of their library
    own_taken: int = 0  # papers whose marks this member took back on another copy
    taken_sent: int = 0  # papers whose marks this member took back here, sent with this sync
    unsent: dict[str, int] = field(default_factory=dict)  # other member -> their marked papers here their file lacks
    replaced: str = ""  # the remote this sync's took the place of ("" when none or the same)
    assignments_sent: int = 0  # the assignments this member's file sent, when it changed
    papers: int = 0  # papers that arrived from the others
    kept_out: int = 0  # papers the others offer that were removed or archived here since the last sync
    assigned: int = 0  # papers whose assignment changed here (someone ran assign)
    brought: int = 0  # papers this member's file offers the others
    pushed: bool = False  # this member's files went up
    sent: int = 0  # this member's marked papers the repository now holds
    when: str = ""

    def news(self) -> str:
        """What came in, for a terminal or the app's header ("" for nothing): marks by member (a
        mark taken back counted apart), papers, assignments."""
        got = [_marks(name, self.marks.get(name, 0), self.taken.get(name, 0))
               for name in sorted(set(self.marks) | set(self.taken)) if self.marks.get(name) or self.taken.get(name)]
        if self.own or self.own_taken:  # (this member's marks, from another copy of their library)
            got.append(f"your +{counted(self.own, 'mark')} from another copy"
                       + (f" ({self.own_taken} taken back)" if self.own_taken else "") if self.own
                       else f"{counted(self.own_taken, 'mark')} of yours taken back on another copy")
        got += [f"{counted(self.papers, 'paper')} arrived"] * bool(self.papers)
        got += [f"{counted(self.assigned, 'assignment')} changed"] * bool(self.assigned)
        return "; ".join(got)

    def line(self) -> str:
        """One line for a terminal or the app's header."""
        sent = ([f"your {counted(self.sent, 'marked paper')}"] * bool(self.sent)
                + [f"{counted(self.taken_sent, 'mark')} taken back"] * bool(self.taken_sent)
                + [f"{counted(self.brought, 'paper')} you brought"] * bool(self.brought)
                + [counted(self.assignments_sent, "assignment")] * bool(self.assignments_sent))
        said = ", ".join(sent[:-1]) + " and " + sent[-1] if len(sent) > 1 else "".join(sent)
        kept = [f"the repository lacks {name}'s marks on {counted(n, 'paper')} as they are here (a sync "
                f"sends its own member's marks only: {name}'s go with papersift --as {name} sync)"
                for name, n in sorted(self.unsent.items())]
        where = f" (in place of {self.replaced}, remembered until now)" if self.replaced else ""
        if self.kept_out:
            kept.append(f"{counted(self.kept_out, 'paper')} removed or archived here "
                        f"{'stays' if self.kept_out == 1 else 'stay'} out (the others keep theirs)")
        return (f"synced with {self.remote}{where} as {self.member}: " + (self.news() or "nothing new")
                + (f"; {said} sent" if self.pushed and sent else "") + "".join(f"; {k}" for k in kept))

    def to_dict(self) -> dict[str, object]:
        return {"remote": self.remote, "member": self.member, "news": self.news(), "marks": self.marks,
                "taken": self.taken, "own": self.own, "own_taken": self.own_taken, "taken_sent": self.taken_sent,
                "papers": self.papers, "assigned": self.assigned, "pushed": self.pushed, "sent": self.sent,
                "brought": self.brought, "assignments_sent": self.assignments_sent, "unsent": self.unsent,
                "replaced": self.replaced, "kept_out": self.kept_out, "when": self.when}


def _marks(who: str, marked: int, taken: int) -> str:
    """``ana +2 marks (1 taken back)``, ``ana: 1 mark taken back``."""
    if not marked:
        return f"{who}: {counted(taken, 'mark')} taken back"
    return f"{who} +{counted(marked, 'mark')}" + (f" ({taken} taken back)" if taken else "")
