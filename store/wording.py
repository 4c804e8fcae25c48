"""How messages count and list things: "1 paper", "2,000 papers", "a, b, c, …"."""

from __future__ import annotations


def first_few(items: list[str], n: int = 3) -> str:
    """The first ``n`` items, comma-separated, with "…" if there are more."""
    return ", ".join(items[:n]) + (", …" if len(items) > n else "")


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 paper``, ``2 papers``, ``1,000 papers`` (``plural`` for irregular nouns)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
