"""Text that is safe to show on a terminal or write to a file a person may ``cat``.

Abstracts are stored exactly as read. Anything shown on a terminal first goes through
:func:`display_safe`, which removes escape sequences and control characters (the ICML corpus
carries backspace, form feed, \\x02 and zero-width spaces; a hostile file may carry ``ESC [`` or
OSC 52 clipboard writes); an export goes through :func:`export_safe`.
"""

from __future__ import annotations

import re


# ANSI CSI / OSC / other ESC sequences, then any remaining C0/C1 control.
ESCAPE_SEQUENCE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")


INVISIBLE_CHARS = "\u200b\u200c\u200d\u2060\ufeff\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u00ad"


# Also never shown: the bidi marks, invisible operators, the Mongolian vowel separator and Unicode's
# "tag" characters (U+E0000 block: invisible, so "x\U000e0041y" looked like the tag "xy" beside it),
# and the line and paragraph separators, which a display turns into a newline first.
_HIDDEN = INVISIBLE_CHARS + "\u200e\u200f\u2061-\u2064\u180e\U000e0000-\U000e007f\u2028\u2029"
_SEPARATORS = str.maketrans({"\u2028": "\n", "\u2029": "\n"})


def _lines_apart(text: str) -> str:
    """The line and paragraph separators as newlines (looked for first: most texts have none)."""
    return text.translate(_SEPARATORS) if "\u2028" in text or "\u2029" in text else text

_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f" + _HIDDEN + "]"
)


_CONTROL_IN_FILE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f" + _HIDDEN + "]")  # \r: see export_safe


_LONE_CR = re.compile("\r(?!\n)")


def has_unsafe(text: str) -> bool:
    """True when ``text`` holds an escape sequence, a control character (tab and newline
    included) or an invisible or bidi-override character: what a short label may not hold."""
    return bool(_CONTROL.search(text) or "\t" in text or "\n" in text)


def shown_unsafe(text: str) -> str:
    """``text`` with each control or invisible character written as its escape (``\\x1b``,
    ``\\u202e``), so a message can quote a hostile label without running it."""
    return "".join(ch.encode("unicode_escape").decode("ascii") if _CONTROL.match(ch) or ch in "\t\n" else ch
                   for ch in text)


def shown_label(text: str) -> str:
    """A short label (a tag) as a view shows it: as it is, or, holding anything unsafe, with each
    such character written as its escape, so a tag a forged file made of escape codes alone is
    still seen (``#\x1b]0;…``), never run, and never an empty ``#``."""
    return shown_unsafe(text) if has_unsafe(text) else text


def strip_unsafe(text: str) -> str:
    """``text`` without escape sequences, control or invisible characters (tab and newline too)."""
    text = _lines_apart(ESCAPE_SEQUENCE.sub("", text))
    return _CONTROL.sub("", text).replace("\t", " ").replace("\n", " ")


def export_safe(text: str) -> str:
    """Text for a file a person may ``cat``: escape sequences, control characters (but tab and
    newline) and invisible or bidi-override characters removed; a lone carriage return, which
    would overwrite its line on a terminal, becomes a newline."""
    if not text:
        return ""
    text = _lines_apart(ESCAPE_SEQUENCE.sub("", text))
    if "\r" in text:
        text = _LONE_CR.sub("\n", text)
    return _CONTROL_IN_FILE.sub("", text)


def display_safe(text: str, keep_newlines: bool = True) -> str:
    """Text that is safe to write to a terminal.

    Args:
        text: any stored text.
        keep_newlines: keep ``\\n`` (reader pane, notes) or fold it to a space.

    Returns:
        ``text`` without escape sequences, control or invisible characters;
        tabs become spaces.
    """
    if not text:
        return ""
    text = _lines_apart(ESCAPE_SEQUENCE.sub("", text))
    text = text.replace("\t", " ").replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text)
    if not keep_newlines:
        text = text.replace("\n", " ")
    return text


def file_name_text(name: str) -> str:
    """A file's name as text a library may store and show: a byte that is not UTF-8 (a name made
    under another encoding, held by Python as a surrogate) written as ``\\xe9``."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
