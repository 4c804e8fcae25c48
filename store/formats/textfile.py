"""Reading a file's text as every reader takes it: UTF-8 (a BOM optional) or UTF-16/32 with a BOM, with
the size, a binary file and bad bytes refused by name and byte offset."""

from __future__ import annotations

import codecs
import mmap
import os
from pathlib import Path
from typing import Iterator

from store.errors import InputError

MAX_FILE_BYTES = 2 * 1024**3
_WIDE_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def read_text(path: Path) -> str:
    """Decode a file: UTF-8 (BOM optional) or UTF-16 with a BOM.

    Raises:
        InputError: unreadable, binary, or invalid UTF-8 (with the byte offset).
    """
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError(path, f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}")
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(path, "file disappeared while importing") from None
    except IsADirectoryError:
        raise InputError(path, "is a folder, not a file") from None
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    for bom, enc in zip(_WIDE_BOMS, ("utf-32", "utf-32", "utf-16", "utf-16")):
        if data.startswith(bom):
            try:
                return data.decode(enc).lstrip("\ufeff")
            except UnicodeDecodeError as exc:
                raise InputError(path, f"invalid {enc.upper()} at byte offset {exc.start}") from None
    refuse_binary(path, data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise not_utf8(path, data, exc.start) from None
    return text.lstrip("\ufeff")


def check_start(path: Path, most: int = 1 << 16) -> None:
    """Refuse at once what :func:`read_text` would refuse of a file without reading it all: too big,
    empty, or binary in its first ``most`` bytes (UTF-16/32 with a BOM holds NULs and is text).

    Raises:
        InputError: unreadable, too big, empty, or binary.
    """
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            head = fh.read(most)
    except IsADirectoryError:
        raise InputError(path, "is a folder, not a file") from None
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    if size > MAX_FILE_BYTES:
        raise InputError(path, f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}")
    if not head.strip():
        raise InputError(path, "no abstracts found " + ("(the file is empty)" if not head else "(the file holds only whitespace)"))
    if not head.startswith(_WIDE_BOMS):
        refuse_binary(path, head)


def refuse_binary(path: Path, data: bytes | mmap.mmap) -> None:
    """Raise InputError when the bytes hold a NUL (a binary file, or UTF-16 without its BOM)."""
    nul = data.find(b"\x00")
    if nul != -1:
        raise InputError(path, f"binary data (NUL byte at byte offset {nul}); expected a text file")


def not_utf8(path: Path, data: bytes | mmap.mmap, offset: int) -> InputError:
    """The error for a byte at ``offset`` that is not UTF-8, with its line."""
    step = 16 << 20  # (a mapping has no count(): counted a slice at a time)
    line = 1 + sum(data[at:min(at + step, offset)].count(b"\n") for at in range(0, offset, step))
    return InputError(path, f"not valid UTF-8: byte 0x{data[offset]:02x} at byte offset {offset}", line=line)


def map_utf8(path: Path) -> mmap.mmap | None:
    """A file's bytes mapped read-only, for a reader that decodes them a line at a time (a big
    dump: as one str, its text took as much memory again as the file, twice that with one
    character outside Latin-1, and its list of lines more). None for a file with a UTF-16/32
    BOM (decoded whole by :func:`read_text`). The size limit and binary data are refused as
    :func:`read_text` refuses them; bad UTF-8 is the reader's to find, per line.

    Raises:
        InputError: unreadable, too big, empty, or binary.
    """
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size  # (the file opened, not whatever the name holds now)
            if size > MAX_FILE_BYTES:
                raise InputError(path, f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}")
            data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except FileNotFoundError:
        raise InputError(path, "file disappeared while importing") from None
    except (OSError, ValueError) as exc:  # (ValueError: an empty file cannot be mapped)
        raise InputError(path, f"cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    if data[:4].startswith(_WIDE_BOMS):
        data.close()
        return None
    try:
        refuse_binary(path, data)
    except InputError:
        data.close()
        raise
    return data


def mapped_lines(data: bytes | mmap.mmap, path: Path) -> Iterator[str]:
    """The lines a reader splitting the text at newlines gets, decoded one by one: a leading BOM
    dropped, CRLF and a lone CR each ending a line. A byte that is not UTF-8 is an InputError
    with its offset in the file and its line."""
    from store.files.nofollow import RELEASE_EVERY, release_pages

    pos, end = 0, len(data)
    while data[pos:pos + 3] == codecs.BOM_UTF8:
        pos += 3
    released = 0
    while True:
        nl = data.find(b"\n", pos)
        stop = end if nl == -1 else nl
        raw = data[pos:stop]
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise not_utf8(path, data, pos + exc.start) from None
        if "\r" in line:
            yield from line.removesuffix("\r").split("\r") if nl != -1 else line.split("\r")
        else:
            yield line
        if nl == -1:
            return
        pos = nl + 1
        if pos - released >= RELEASE_EVERY:
            released = release_pages(data, released, pos)
