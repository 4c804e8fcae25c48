"""How messages count and list things: "1 paper", "2,000 papers", "a, b, c, …", a count's bar."""

from __future__ import annotations


def first_few(items: list[str], n: int = 3) -> str:
    """The first ``n`` items, comma-separated, with "…" if there are more."""
    return ", ".join(items[:n]) + (", …" if len(items) > n else "")


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 paper``, ``2 papers``, ``1,000 papers`` (``plural`` for irregular nouns)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def share(part: int, whole: int) -> str:
    """``part`` of ``whole`` as a percentage a reader can trust: 0 % only for none, 100 % only for
    all (5 of 4,870 is "0.1%", 4,869 is "99.9%"), one decimal under 1 % and over 99 % (but never
    "1.0%" beside a "1%": 0.98 % is "<1%", 99.02 % ">99%")."""
    if whole <= 0 or part <= 0:
        return "0%"
    if part >= whole:
        return "100%"
    frac = part / whole
    if frac < 0.001:
        return "<0.1%"
    if frac > 0.999:
        return ">99.9%"
    if frac < 0.01:
        said = f"{frac:.1%}"
        return "<1%" if said == "1.0%" else said
    if frac > 0.99:
        said = f"{frac:.1%}"
        return ">99%" if said == "99.0%" else said
    return f"{frac:.0%}"


_EIGHTHS = "▏▎▍▌▋▊▉"  # a cell's first eighths: a bar's end drawn to an eighth of a cell


def bar(fraction: float, width: int) -> str:
    """``fraction`` of ``width`` cells drawn in block glyphs, to an eighth of a cell; a count above
    nought is never drawn as nothing (10 of 2,260 papers in 30 cells is an eighth, not a blank)."""
    eighths = min(width * 8, round(width * 8 * fraction)) if width > 0 else 0
    if fraction > 0 and width > 0:
        eighths = max(eighths, 1)
    cells, rest = divmod(eighths, 8)
    return "█" * cells + (_EIGHTHS[rest - 1] if rest else "")
