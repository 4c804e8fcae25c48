"""The more-like-this model's cache file: a pack (:mod:`store.search.packfile`) stamped with the
corpus generation it was made from, as the search index's cache is.

A big file is mapped, not read: the model's arrays are views of the page cache, and checking
each section's CRC-32 gives its pages back as it goes (``PackReader.check_in``). At 300k papers
the model is 710 MB on disk; held as private arrays (numpy's ``.npz`` read them so) it took the
app from 210 MB to 900 MB, where mapped, a paper's neighbours touch the latent vectors and the
few term rows they need.

The file is untrusted input like every cache: each section is checked against its CRC-32, and
the sparse matrices' offsets and column numbers are checked against their shapes before scipy
(whose products do not check bounds) sees them. Anything amiss reads as no cache (rebuilt).
"""

from __future__ import annotations

import os
import weakref
from array import array
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from store.files.nofollow import RELEASE_EVERY, open_no_link, release_pages
from store.discovery.term_rows import TermRows
from store.search.packfile import PackReader, file_bytes, pack, stamped

if TYPE_CHECKING:
    import scipy.sparse as sp

MODEL_VERSION = 3  # 3: a mapped pack (2: numpy .npz, term ids as sorted-vocabulary positions)
KIND = {np.dtype(np.int32): "i", np.dtype(np.int64): "q", np.dtype(np.float32): "f"}
DTYPE = {"i": np.int32, "q": np.int64, "f": np.float32, "s": np.uint8}
META = ("version", "feedback", "folded", "rows", "cols", "dims")


def joined(words: list[str]) -> str:
    """Words without newlines, as one text section."""
    return "\n".join(words)


def model_chunks(token: str, matrices: dict[str, sp.csr_matrix], latent: np.ndarray | None,
                 feedback: bool, folded: int, basis: np.ndarray | None = None,
                 basis_terms: list[str] | None = None, ids: list[str] | None = None,
                 lengths: np.ndarray | None = None) -> list[bytes | memoryview]:
    """The file's chunks: ``matrices`` ("m", documents x terms, and "t", its transpose), the
    latent vectors, and what folding needs (the basis, its terms, the papers' ids and lengths)."""
    m = matrices["m"]
    dims = 0 if latent is None else latent.shape[1]
    meta = array("q", [MODEL_VERSION, int(feedback), folded, m.shape[0], m.shape[1], dims])
    sections: list[tuple[str, str, object]] = [("meta", "q", meta)]
    for name, matrix in matrices.items():
        kind = "i" if matrix.indptr.dtype == np.int32 and matrix.indices.dtype == np.int32 else "q"
        sections += [(f"{name}_data", "f", np.ascontiguousarray(matrix.data, dtype=np.float32)),
                     (f"{name}_indices", kind, np.ascontiguousarray(matrix.indices, dtype=DTYPE[kind])),
                     (f"{name}_indptr", kind, np.ascontiguousarray(matrix.indptr, dtype=DTYPE[kind]))]
    if latent is not None:
        sections.append(("latent", "f", np.ascontiguousarray(latent, dtype=np.float32)))
    if basis is not None and basis_terms is not None and ids is not None and lengths is not None:
        sections += [("basis", "f", np.ascontiguousarray(basis, dtype=np.float32)),
                     ("basis_terms", "s", joined(basis_terms)), ("ids", "s", joined(ids)),
                     ("lengths", "f", np.ascontiguousarray(lengths, dtype=np.float32))]
    return stamped(token, pack(sections))


class ModelFile:
    """A model file's sections, checked: ``meta`` (version, feedback, folded, rows, cols, dims),
    numpy views of the arrays (text sections as str), and the two matrices over them."""

    def __init__(self, meta: dict[str, int], arrays: dict[str, np.ndarray], texts: dict[str, str],
                 buffer: bytearray | memoryview) -> None:
        self.meta = meta
        self.arrays = arrays
        self.texts = texts
        self.buffer = buffer  # what the arrays view (a mapping's pages are given back by release())
        rows, cols = meta["rows"], meta["cols"]
        self.matrices = {"m": self.csr("m", (rows, cols)), "t": self.csr("t", (cols, rows))}
        self.term_rows: TermRows | None = None  # a mapped file's: the term matrix's rows read with pread
        self.doc_rows: TermRows | None = None  # and the document matrix's (the same file, closed with term_rows)
        self.latent_at = -1  # a mapped file's: where the latent vectors start in it (copy_latent)

    def csr(self, name: str, shape: tuple[int, int]) -> sp.csr_matrix:
        """Matrix ``name`` ("m" or "t") over the mapped arrays (no copy), once its offsets and
        column numbers are known to fit ``shape`` (ValueError if not)."""
        import scipy.sparse as sp
        data, indices, indptr = (self.arrays[f"{name}_{part}"] for part in ("data", "indices", "indptr"))
        if len(indptr) != shape[0] + 1 or len(data) != len(indices) or indices.dtype != indptr.dtype:
            raise ValueError(f"matrix {name} does not fit its shape")
        if len(indptr) and (indptr[0] != 0 or indptr[-1] != len(indices) or bool(np.any(np.diff(indptr) < 0))):
            raise ValueError(f"matrix {name}'s row offsets are out of order")
        step = max(1, RELEASE_EVERY // indices.itemsize)
        for at in range(0, len(indices), step):  # a window at a time, its pages given back after
            window = indices[at:at + step]
            if int(window.min()) < 0 or int(window.max()) >= shape[1]:
                raise ValueError(f"matrix {name} names a column past its shape")
            self.release()
        return sp.csr_matrix((data, indices, indptr), shape=shape, copy=False)

    def copy_latent(self) -> np.ndarray | None:
        """The latent vectors in an array of their own (None: the model has none). A mapped file's
        are read with pread: copied through the mapping, a window at a time given back after, the
        copy held up to a window of the file's pages besides (64 MB; more where the kernel maps a
        freshly written file in large folios)."""
        latent = self.arrays.get("latent")
        if latent is None:
            return None
        out = np.empty(latent.shape, dtype=np.float32)
        if self.term_rows is not None and self.latent_at >= 0:
            self.term_rows.read_into(out.reshape(-1), self.latent_at)
        else:
            out[...] = latent
        return out

    def release(self) -> None:
        """Give the mapped file's pages back to the page cache (they map again when read: a
        query touches the latent vectors and the rows of its terms)."""
        release_pages(self.buffer, 0, 1 << 62)  # (to its end)


def read_model(path: Path, token: str | None) -> ModelFile | None:
    """The model file at ``path`` if it is this version's and, given a ``token``, of that corpus
    generation; None when it is missing, of another generation or version, or damaged."""
    fd = -1
    try:
        with open_no_link(path) as fh:
            generation = fh.readline(256).rstrip(b"\n")
            if token is not None and generation != token.encode("ascii", "replace"):
                return None
            reader = PackReader(fh)
            values = list(reader.read("meta"))
            if len(values) != len(META) or values[0] != MODEL_VERSION:
                return None
            meta = dict(zip(META, (int(v) for v in values)))
            data = file_bytes(fh, reader.base)
            fd = os.dup(fh.fileno()) if isinstance(data, memoryview) else -1  # (the term rows' reads)
        if data is None:
            return None
        arrays: dict[str, np.ndarray] = {}
        texts: dict[str, str] = {}
        for name, (kind, offset, length) in reader.sections.items():
            reader.check_in(name, data)
            if kind == "s":
                texts[name] = bytes(memoryview(data)[offset:offset + length]).decode("utf-8")
            else:
                dtype = DTYPE[kind]
                arrays[name] = np.frombuffer(data, dtype=dtype, count=length // np.dtype(dtype).itemsize, offset=offset)
        rows, cols, dims = meta["rows"], meta["cols"], meta["dims"]
        if "latent" in arrays:
            if dims <= 0 or len(arrays["latent"]) != rows * dims:
                return None
            arrays["latent"] = arrays["latent"].reshape(rows, dims)
        if "basis" in arrays:
            if dims <= 0 or len(arrays["basis"]) % dims:
                return None
            arrays["basis"] = arrays["basis"].reshape(-1, dims)
        file = ModelFile(meta, arrays, texts, data)
        file.release()  # (what the checks of the matrices read)
        if fd >= 0:  # mapped: a big model, whose term rows a lookup reads with pread
            t = file.matrices["t"]
            if "latent" in arrays:
                file.latent_at = reader.base + reader.sections["latent"][1]
            m = file.matrices["m"]
            file.term_rows = TermRows(fd, path, reader.base + reader.sections["t_indices"][1],
                                      reader.base + reader.sections["t_data"][1], t.indptr, t.indices.dtype, rows)
            file.doc_rows = TermRows(fd, path, reader.base + reader.sections["m_indices"][1],
                                     reader.base + reader.sections["m_data"][1], m.indptr, m.indices.dtype, cols)
            fd = -1
            weakref.finalize(file, file.term_rows.close)  # (its file closed with the model)
        return file
    except (OSError, ValueError, KeyError, IndexError, UnicodeDecodeError):
        return None
    finally:
        if fd >= 0:  # (not handed to the model: it was refused)
            os.close(fd)


def words(text: str) -> list[str]:
    """The words :func:`joined` joined."""
    return text.split("\n") if text else []
