"""Reading a file's text as every reader takes it: UTF-8 (a BOM optional) or UTF-16/32 with a BOM, with
the size, a binary file and bad bytes refused by name and byte offset."""

from __future__ import annotations

import codecs
from pathlib import Path

from store.errors import InputError

MAX_FILE_BYTES = 2 * 1024**3


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
    for bom, enc in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                     (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            try:
                return data.decode(enc).lstrip("\ufeff")
            except UnicodeDecodeError as exc:
                raise InputError(path, f"invalid {enc.upper()} at byte offset {exc.start}") from None
    nul = data.find(b"\x00")
    if nul != -1:
        raise InputError(path, f"binary data (NUL byte at byte offset {nul}); expected a text file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(path, f"not valid UTF-8: byte 0x{data[exc.start]:02x} at byte offset {exc.start}", line=line) from None
    return text.lstrip("\ufeff")
