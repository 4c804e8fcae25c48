"""What a doctor run found: what is fine, the problems, and what a repair put right (the CLI prints
it as text or JSON). Its own module so that the checks in :mod:`store.doctor.steps` and the run in
:mod:`store.doctor` both use it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class DoctorReport:
    ok: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    newer: bool = False  # a newer papersift wrote the library: nothing was checked, nothing is repaired

    @property
    def healthy(self) -> bool:
        return not self.problems or len(self.repaired) >= len(self.problems)

    def to_dict(self) -> dict[str, object]:
        return {"ok": self.ok, "problems": self.problems, "repaired": self.repaired, "healthy": self.healthy}
