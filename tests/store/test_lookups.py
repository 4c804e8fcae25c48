"""More-like-this lookups answered by a helper process (store.discovery.lookups, the asking side;
store.discovery.lookup_helper, the answering one): the same neighbours as the library's own,
a stop passed on, a helper that cannot answer replaced by the library's own lookups, and no
helper left running once the app that started it is gone."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from store import Library
from store.discovery import lookup_helper as H
from store.discovery import lookups as L
from store.discovery.similar import LookupStopped, Similarity

DATA = Path(__file__).parent.parent / "data"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A library of the ICLR slice whose model is cached (built once for the module)."""
    folder = tmp_path_factory.mktemp("lookups") / "lib"
    lib = Library(folder)
    lib.paper_changes.import_paths([DATA / "iclr_slice.jsonl"])
    assert lib.discovery.prepare_similarity_cache() is False  # (built now, and written)
    return folder


def opened(folder: Path) -> Library:
    lib = Library(folder)
    assert lib.discovery.load_similarity_cache()
    return lib


def gone(pid: int, seconds: float = 5.0) -> bool:
    """Whether process ``pid`` has exited (and been reaped, or is a zombie) within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/status") as fh:
                if any(line.startswith("State:") and "Z" in line.split()[1] for line in fh):
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.02)
    return False


def test_the_helper_answers_as_the_library_does_and_the_app_never_copies_the_latent_vectors(built):
    lib = opened(built)
    try:
        assert lib.discovery.lookups_elsewhere()
        pid = lib.discovery.helper_pid
        assert pid is not None and not gone(pid, 0.1)
        got = {doc: lib.discovery.nearest(doc, 20) for doc in (0, 7, 150, len(lib) - 1)}
        assert lib.discovery.similarity._latent is None  # (the helper holds them; the app's stay in the file)
    finally:
        lib.discovery.close()
    assert gone(pid)
    for doc, pairs in got.items():
        want = lib.discovery.similarity.similar(doc, 20)
        assert [i for i, _ in pairs] == [i for i, _ in want]
        assert [s for _, s in pairs] == [s for _, s in want]  # (the same file, the same code: to the bit)
    assert lib.discovery.helper_pid is None


def test_more_like_this_search_and_the_cli_lookup_go_through_the_helper(built, monkeypatch):
    lib = opened(built)
    asked: list[int] = []
    real = L.LookupHelper.similar
    monkeypatch.setattr(L.LookupHelper, "similar", lambda self, paper, limit, stop=None:
                        (asked.append(limit), real(self, paper, limit, stop))[1])
    try:
        assert lib.discovery.lookups_elsewhere()
        pid = lib.corpus.papers[3].id
        listed = lib.search.find(f"similar:{pid}").indices
        near = lib.discovery.similar(pid, 5)
    finally:
        lib.discovery.close()
    assert asked == [200, 5]
    assert [p.id for p, _ in near] == [lib.corpus.papers[int(i)].id for i in listed[:5]]


def test_a_helper_that_dies_is_replaced_by_the_librarys_own_lookups(built):
    lib = opened(built)
    assert lib.discovery.lookups_elsewhere()
    first = lib.discovery.nearest(5, 10)
    pid = lib.discovery.helper_pid
    assert pid is not None
    os.kill(pid, 9)
    assert lib.discovery.nearest(5, 10) == first  # (looked up here)
    assert lib.discovery.helper_pid is None
    assert gone(pid)


def test_a_helper_given_another_corpuss_model_is_not_used(built, monkeypatch):
    """The helper loads the model only for the corpus generation it is given; for another it
    exits, and the library looks up itself."""
    lib = opened(built)
    monkeypatch.setattr(lib.corpus, "generation", "not-this-one")
    assert lib.discovery.lookups_elsewhere()
    pid = lib.discovery.helper_pid
    assert lib.discovery.nearest(2, 5) == lib.discovery.similarity.similar(2, 5)
    assert lib.discovery.helper_pid is None and pid is not None and gone(pid)


def test_a_changed_corpus_ends_the_helper(built, tmp_path):
    import shutil
    folder = tmp_path / "lib"
    shutil.copytree(built, folder)
    lib = opened(folder)
    assert lib.discovery.lookups_elsewhere()
    pid = lib.discovery.helper_pid
    assert pid is not None
    lib.invalidate()
    assert lib.discovery.helper_pid is None and gone(pid)
    assert not lib.discovery.lookups_elsewhere()  # (no model until it is loaded again)


def test_the_helper_exits_when_the_process_that_started_it_is_killed(built):
    """A killed app leaves no helper behind: its end closes the helper's stdin."""
    script = textwrap.dedent(f"""
        import os, sys
        from store import Library
        lib = Library({str(built)!r})
        lib.discovery.load_similarity_cache()
        lib.discovery.lookups_elsewhere()
        lib.discovery.nearest(1, 3)
        print(lib.discovery.helper_pid, flush=True)
        os.kill(os.getpid(), 9)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == -9
    assert gone(int(out.stdout.strip()))


# ------------------------------------------------------------------ the protocol, in this process


class Served:
    """serve() on a thread, over pipes, as the helper process runs it; ``ask`` is the asking side."""

    def __init__(self, folder: Path, token: str) -> None:
        ask_r, self.ask_w = os.pipe()
        self.answer_r, answer_w = os.pipe()
        self.status: list[int] = []

        def run() -> None:
            try:
                self.status.append(H.serve(folder / "similar.cache", token, ask_r, answer_w))
            finally:
                os.close(ask_r)
                os.close(answer_w)
        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def helper(self, n_docs: int) -> L.LookupHelper:
        """A LookupHelper talking to this serve() instead of a process of its own."""
        client = L.LookupHelper.__new__(L.LookupHelper)
        client.n_docs, client._lock, client._number, client._ready = n_docs, threading.Lock(), 0, False
        stdin, stdout = os.fdopen(self.ask_w, "wb", buffering=0), os.fdopen(self.answer_r, "rb", buffering=0)
        client._proc = SimpleNamespace(stdin=stdin, stdout=stdout, pid=0, wait=lambda timeout=None: 0,  # type: ignore[assignment]
                                       kill=lambda: None)
        return client

    def read(self, size: int) -> bytes | None:
        return H.read_exact(self.answer_r, size)


def test_a_stop_is_passed_on_and_the_helper_answers_the_next_question(built, monkeypatch):
    """The asking side's ``stop`` reaches the running lookup (the helper answers "stopped"), and
    the helper goes on answering."""
    lib = opened(built)
    real = Similarity.similar
    waits: list[bool] = []

    def slow(self, doc, limit=10, stop=None):  # a lookup that runs until it is stopped, or 2 s
        if doc == 9:
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline:
                if stop is not None and stop():
                    waits.append(True)
                    raise LookupStopped
                time.sleep(0.002)
        return real(self, doc, limit, stop)
    monkeypatch.setattr(Similarity, "similar", slow)
    served = Served(built, lib.corpus.generation)
    client = served.helper(len(lib))
    calls = []
    with pytest.raises(LookupStopped):
        client.similar(9, 5, stop=lambda: (calls.append(1), len(calls) > 3)[1])
    assert waits == [True]
    assert client.similar(4, 5) == real(lib.discovery.similarity, 4, 5)
    client.close()  # (its stdin closed: serve returns)
    served.thread.join(5)
    assert served.status == [0]


def test_the_helper_refuses_a_question_out_of_range_and_answers_the_next(built):
    lib = opened(built)
    served = Served(built, lib.corpus.generation)
    assert H.ANSWER.unpack(served.read(H.ANSWER.size)) == (0, len(lib))
    for number, paper, limit in ((1, len(lib), 5), (2, 3, 0), (3, 3, H.MOST + 1)):
        os.write(served.ask_w, H.QUESTION.pack(number, paper, limit))
        assert H.ANSWER.unpack(served.read(H.ANSWER.size)) == (number, H.REFUSED)
    os.write(served.ask_w, H.QUESTION.pack(4, -1, 0))  # a stop for no running lookup
    os.write(served.ask_w, H.QUESTION.pack(5, 3, 4))
    assert H.ANSWER.unpack(served.read(H.ANSWER.size)) == (5, 4)
    body = served.read(16 * 4)
    assert body is not None
    assert np.frombuffer(body[:32], "<i8").tolist() == [i for i, _ in lib.discovery.similarity.similar(3, 4)]
    os.close(served.ask_w)
    served.thread.join(5)
    assert served.status == [0]


def test_an_answer_out_of_the_corpus_ends_the_helper(built):
    """Papers the corpus does not have in an answer (a helper gone wrong) are never handed on."""
    lib = opened(built)
    served = Served(built, lib.corpus.generation)
    client = served.helper(len(lib))
    assert len(client.similar(3, 5)) == 5
    client.n_docs = 10  # (a corpus of 10 papers: paper 3's neighbours are past its end)
    with pytest.raises(L.HelperGone):
        client.similar(3, 50)
    assert client.pid is None


def test_a_lookup_under_way_when_the_corpus_changes_is_stopped_not_rebuilt_here(built, monkeypatch):
    """The corpus changing ends the helper; a lookup waiting for it then stops (its answer would
    be for the old corpus) instead of building the new corpus's model in the asking thread."""
    lib = opened(built)
    assert lib.discovery.lookups_elsewhere()
    real = L.LookupHelper.similar

    def invalidated_meanwhile(self, paper, limit, stop=None):
        lib.invalidate()  # (ends this helper: it cannot answer)
        return real(self, paper, limit, stop)
    monkeypatch.setattr(L.LookupHelper, "similar", invalidated_meanwhile)
    monkeypatch.setattr(type(lib.discovery), "_build_similarity", lambda self: pytest.fail("built here"))
    with pytest.raises(LookupStopped):
        lib.discovery.nearest(4, 5)


def test_a_stop_while_the_helper_is_still_loading_ends_the_wait_and_the_next_call_waits_on(built, monkeypatch):
    lib = opened(built)
    real_load = Similarity.load.__func__

    def slow_load(cls, path, token):
        time.sleep(0.5)
        return real_load(cls, path, token)
    monkeypatch.setattr(Similarity, "load", classmethod(slow_load))
    served = Served(built, lib.corpus.generation)
    client = served.helper(len(lib))
    started = time.monotonic()
    with pytest.raises(LookupStopped):
        client.similar(3, 5, stop=lambda: True)
    assert time.monotonic() - started < 0.4  # (not the helper's whole loading)
    assert client.similar(3, 5) == lib.discovery.similarity.similar(3, 5)
    client.close()
    served.thread.join(5)
