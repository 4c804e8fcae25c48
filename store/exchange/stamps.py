"""Change times read as time: a colleague's stamps are parsed as ISO 8601 instants, not compared
as text ("zzzz" and "9" sort after any real time; "2026-12-01T20:00+05:00" is 15:00 UTC).

Every stamp is brought to one form, the one this library writes (UTC, milliseconds: see
``store.annotations.database.now_iso``), so that comparing two of them compares the instants.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta, timezone

FUTURE_SLACK = timedelta(days=1)  # clocks disagree; more than a day ahead is a wrong clock (or a trap)


def canonical(stamp: str) -> str | None:
    """A stamp in this library's form (UTC, milliseconds), or None when it is not a time."""
    when = _parse(stamp)
    return None if when is None else _form(when)


def _parse(stamp: object) -> datetime | None:
    if not isinstance(stamp, str) or not stamp[:4].isdigit():
        return None
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00") if stamp.endswith("Z") else stamp)
        when = when if when.tzinfo else when.replace(tzinfo=timezone.utc)
        when.astimezone(timezone.utc)  # (year 1 at +14:00 is before year 1 in UTC: no such time)
    except (ValueError, OverflowError):
        return None
    return when


def _form(when: datetime) -> str:
    return when.astimezone(timezone.utc).isoformat(timespec="milliseconds")


def newest_sound(stamps: Iterable[object], now: datetime | None = None) -> datetime | None:
    """The newest of a file's change times that is a time and not ahead of this machine's clock:
    what a stamp that is ahead counts as (the file cannot have been written before it)."""
    now = now or datetime.now(timezone.utc)
    sound = [w for w in map(_parse, stamps) if w is not None and w <= now + FUTURE_SLACK]
    return min(max(sound), now) if sound else None


class Clock:
    """Reads a file's stamps against this machine's clock, and keeps what it had to say about them."""

    def __init__(self, now: datetime | None = None, written: datetime | None = None) -> None:
        self.now = now or datetime.now(timezone.utc)
        # What a stamp ahead of this machine counts as: the newest sound stamp of the file (else the
        # time it was written, at most now), so that the same file merged again, copied or touched,
        # does not beat a change made here since the first merge.
        self.ceiling = min(written, self.now) if written is not None else self.now
        self.naive = 0
        self.said: list[str] = []
        self.malformed: set[str] = set()  # the fields of the last record read whose stamp was not a time

    def read(self, value: object, pid: str, warnings: list[str]) -> dict[str, str]:
        """Their change times (field -> stamp) in this library's form. A malformed one counts as no
        change; one more than a day ahead of this machine counts as the time the file was written
        (at most now); each is said."""
        self.malformed = set()
        if not isinstance(value, dict):
            return {}
        out = {}
        for field, stamp in value.items():
            if not isinstance(field, str):
                continue
            when = _parse(stamp)
            if when is None:
                warnings.append(f"{pid}: their change time of {field} ({str(stamp)[:40]!r}) is not a time: "
                                "counted as no change")
                self.malformed.add(field)
                continue
            if isinstance(stamp, str) and "+" not in stamp[10:] and not stamp.endswith("Z") and "-" not in stamp[10:]:
                self.naive += 1
            if when > self.now + FUTURE_SLACK:
                when = self.ceiling
                warnings.append(f"{pid}: their change time of {field} ({str(stamp)[:40]}) is ahead of this "
                                f"machine's clock: counted as the file's newest sound one ({_form(when)[:19]})")
            out[field] = _form(when)
        return out

    def warnings(self, source: str) -> list[str]:
        if not self.naive:
            return []
        return [f"{source}: {self.naive} change time(s) without a time zone, read as UTC"]
