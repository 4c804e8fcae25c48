"""kill -9 at random moments: files always parse, every acknowledged change is on disk.

Three loops, bounded by a kill count and a time cap (PAPERSIFT_KILLS scales them):
  A. a long-running writer process using the Library exactly as the CLI and app
     do (status, star, tags, note, undo, redo, import, export), killed mid-stream
     (each writer is forked from a server that loaded the store once);
  B. the real `papersift` CLI, killed at random points of a command;
  C. the real app (Pilot in a subprocess), killed while triage keys are pressed.
After every kill the library must open, and its state must equal a model of the
acknowledged operations (or that plus the one in flight, which may have landed).
"""

from __future__ import annotations

import pytest

import copy
import json
import os
import random
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from store import Library
from store.annotations.database import HISTORY_LIMIT

pytestmark = [pytest.mark.slow]  # kill loops: hundreds of processes killed mid-write


SCALE = float(os.environ.get("PAPERSIFT_KILLS", "500")) / 500
ROOT = Path(__file__).resolve().parents[2]
N_PAPERS = 8


def ops_for(seed: int, n: int = 20000) -> list[tuple]:
    rng = random.Random(seed)
    ops = []
    for i in range(n):
        r = rng.random()
        p = rng.randrange(N_PAPERS)
        if r < 0.05:
            ops.append(("import", i))
        elif r < 0.08:
            ops.append(("export", i))
        elif r < 0.13:
            ops.append(("undo",))
        elif r < 0.15:
            ops.append(("redo",))
        elif r < 0.35:
            ops.append(("status", p, rng.choice(["unread", "to-read", "read", "skipped"])))
        elif r < 0.55:
            ops.append(("star", p, rng.randrange(4)))
        elif r < 0.75:
            ops.append(("tag", p, f"t{rng.randrange(5)}"))
        else:
            ops.append(("note", p, f"note {i}\nline two {i}"))
    return ops


_WORDS = ("atomic rename fsync kill signal durable write crash journal replica quorum ledger cache page block "
          "sector inode lock mutex barrier epoch commit rollback snapshot shard tensor kernel graph vertex edge "
          "policy reward agent token prompt vision audio speech robot sensor camera").split()


def import_text(i: int) -> str:
    """A distinct abstract per i (random words: not a near-duplicate of another)."""
    rng = random.Random(i)
    return "We study " + " ".join(rng.choice(_WORDS) for _ in range(40)) + f" in setting {i}."


class Model:
    """Expected annotations of the first N_PAPERS papers, corpus size, undo and redo stacks."""

    def __init__(self, lib: Library):
        self.ids = [p.id for p in lib.corpus][:N_PAPERS]
        self.state = {pid: ("unread", 0, (), "") for pid in self.ids}
        self.count = len(lib)
        self.stack: list[dict] = []
        self.redo: list[dict] = []  # states an undo left, newest last; a new change empties it

    def apply(self, op: tuple) -> "Model":
        """A copy with ``op`` applied (copies the undo stack: use ``apply_inplace`` in loops)."""
        new = copy.deepcopy(self)
        new.apply_inplace(op)
        return new

    def apply_inplace(self, op: tuple) -> "Model":
        new = self
        kind = op[0]
        if kind == "import":
            new.count += 1
            return new
        if kind == "export":
            return new
        if kind == "undo":
            if new.stack:
                new.redo.append(dict(new.state))
                new.state = new.stack.pop()
            return new
        if kind == "redo":
            if new.redo:
                new.stack.append(dict(new.state))
                new.state = new.redo.pop()
            return new
        pid = self.ids[op[1]]
        status, star, tags, note = new.state[pid]
        if kind == "status":
            status = op[2]
        elif kind == "star":
            star = op[2]
        elif kind == "tag":
            tags = tags if op[2] in tags else tags + (op[2],)
        else:
            note = op[2]
        if (status, star, tags, note) != new.state[pid]:
            new.stack.append(dict(new.state))
            if len(new.stack) > HISTORY_LIMIT:  # the library keeps the newest 500 undo entries too
                del new.stack[0]
            new.state[pid] = (status, star, tags, note)
            new.redo.clear()
        return new

    def matches(self, lib: Library) -> bool:
        actual = {pid: (a.status, a.star, tuple(a.tags), a.note) for pid in self.ids for a in [lib.annotation(pid)]}
        return actual == self.state and len(lib) == self.count


WRITER = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, sys.argv[3])
    from pathlib import Path
    from store import Library
    from tests.crash.test_crash import ops_for, import_text, N_PAPERS

    def say(text):  # one write(2) per line: a kill never leaves half a line in the pipe
        os.write(1, (text + "\\n").encode())

    def write(folder, seed, start):
        lib = Library(folder)
        ids = [p.id for p in lib.corpus][:N_PAPERS]
        say(f"READY {os.getpid()}")
        for i, op in enumerate(ops_for(seed)[start:], start=start):
            kind = op[0]
            if kind == "import":
                f = folder.parent / f"imp{i}.txt"
                f.write_text(import_text(i))
                lib.paper_changes.import_paths([f])
            elif kind == "undo":
                lib.undo()
            elif kind == "redo":
                lib.redo()
            elif kind == "export":
                from store.files.atomic import atomic_write_text
                from store.exchange.export import export_text
                atomic_write_text(folder.parent / "export.json", export_text(lib.pairs(""), "json"))
            elif kind == "status":
                lib.marks.set_status([ids[op[1]]], op[2])
            elif kind == "star":
                lib.marks.set_star([ids[op[1]]], op[2])
            elif kind == "tag":
                lib.marks.add_tags([ids[op[1]]], [op[2]])
            else:
                lib.marks.set_note(ids[op[1]], op[2])
            say(f"ACK {i}")

    # A fork server: Python and the store are loaded once, and each writer is a fresh child
    # process (its own Library, opened after the fork) that the test kills with SIGKILL. A new
    # interpreter per kill spent 0.3 s of a loop's 0.35 s starting up.
    folder, seed = Path(sys.argv[1]), int(sys.argv[2])
    say("SERVING")
    for line in sys.stdin:
        pid = os.fork()
        if pid == 0:
            try:
                write(folder, seed, int(line.split()[1]))
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        say(f"GONE {pid}")
""")


class Lines:
    """Lines from a child's stdout pipe, read from the raw fd (no hidden buffering)."""

    def __init__(self, proc: subprocess.Popen):
        self.fd = proc.stdout.fileno()
        self.buf = b""
        self.lines: list[str] = []

    def _fill(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        if not ready:
            return False
        chunk = os.read(self.fd, 65536)
        if not chunk:
            return False
        self.buf += chunk
        *done, self.buf = self.buf.split(b"\n")
        self.lines += [d.decode() for d in done]
        return True

    def until(self, text: str, timeout: float) -> str:
        """Wait for a line that starts with ``text``; returns it."""
        deadline = time.monotonic() + timeout
        while not (found := next((line for line in self.lines if line.startswith(text)), None)):
            if time.monotonic() > deadline or not self._fill(deadline - time.monotonic()):
                raise AssertionError(f"child never printed {text!r}: {self.lines[-3:]}")
        return found

    def for_(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and self._fill(deadline - time.monotonic()):
            pass

    def rest(self) -> None:
        while self._fill(0.5):
            pass


def settle(model: Model, ops: list[tuple], start: int, last_ack: int, lib: Library) -> tuple[Model, int]:
    """Advance the model over acknowledged ops; accept the in-flight op if it landed."""
    for i in range(start, last_ack + 1):
        model.apply_inplace(ops[i])
    if model.matches(lib):
        return model, last_ack + 1
    landed = model.apply(ops[last_ack + 1])
    assert landed.matches(lib), f"state after kill matches neither op {last_ack} nor {last_ack + 1}"
    return landed, last_ack + 2


def test_kill_loop_writer_process(lib, tmp_path):
    kills, cap = int(440 * SCALE), 200 * max(SCALE, 0.1)
    ops = ops_for(7)
    model, nxt = Model(lib), 0
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    rng = random.Random(1)
    done, t0 = 0, time.monotonic()
    # one BLAS thread: a child forked from a process with a thread pool could hang in numpy
    server = subprocess.Popen([sys.executable, str(script), str(lib.folder), "7", str(ROOT)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
                              env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"})
    out = Lines(server)
    try:
        out.until("SERVING", 30)
        while done < kills and time.monotonic() - t0 < cap:
            out.lines = []
            server.stdin.write(f"RUN {nxt}\n".encode())
            child = int(out.until("READY", 20).split()[1])
            # mostly within the first operations; sometimes long enough for a slow one (an import) to finish
            out.for_(rng.uniform(0, 0.03) if rng.random() < 0.7 else rng.uniform(0.03, 0.3))
            os.kill(child, signal.SIGKILL)
            out.until(f"GONE {child}", 20)  # reaped: everything it printed before the kill is read
            acks = [int(line.split()[1]) for line in out.lines if line.startswith("ACK")]
            reopened = Library(lib.folder)  # must parse: never a torn file
            export = lib.folder.parent / "export.json"
            if export.exists():
                assert json.loads(export.read_text())["format"] == "papersift-export"  # never a torn export
            model, nxt = settle(model, ops, nxt, acks[-1] if acks else nxt - 1, reopened)
            done += 1
    finally:
        server.kill()
        server.wait()
    assert done >= kills * 0.9, f"only {done} kills within the time cap"
    print(f"writer loop: {done} kills, {nxt} operations, 0 corrupt files, 0 lost acknowledged changes")


def test_kill_loop_real_cli(lib, tmp_path):
    kills = int(40 * SCALE)
    exe = Path(sys.executable).with_name("papersift")
    cli = [str(exe)] if exe.exists() else [sys.executable, "-m", "tui"]
    model = Model(lib)
    rng = random.Random(2)
    ops = ops_for(11)
    for k in range(kills):
        op = ops[k]
        pid = model.ids[op[1]] if op[0] not in ("import", "export", "undo", "redo") else None
        if op[0] == "export":
            args = ["export", "--format", "json", "-o", str(tmp_path / "cli-export.json")]
        elif op[0] == "import":
            f = tmp_path / f"cli{k}.txt"
            f.write_text(import_text(10_000 + k))
            args = ["import", str(f)]
        elif op[0] in ("undo", "redo"):
            args = [op[0]]
        elif op[0] == "status":
            args = ["status", pid, op[2]]
        elif op[0] == "star":
            args = ["star", pid, str(op[2])]
        elif op[0] == "tag":
            args = ["tag", pid, op[2]]
        else:
            args = ["note", pid, op[2]]
        proc = subprocess.Popen(cli + ["--library", str(lib.folder)] + args, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            proc.wait(timeout=rng.uniform(0.05, 0.6))
            acked = proc.returncode == 0
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            acked = False
        reopened = Library(lib.folder)
        if (tmp_path / "cli-export.json").exists():
            json.loads((tmp_path / "cli-export.json").read_text())  # never a torn export
        after = model.apply(op)
        if acked:
            assert after.matches(reopened), f"acknowledged `papersift {' '.join(args)}` is not on disk"
            model = after
        else:
            model = after if after.matches(reopened) else model
            assert model.matches(reopened)


APP = textwrap.dedent("""
    import asyncio, sys, json
    sys.path.insert(0, sys.argv[3])
    from pathlib import Path
    from store import Library
    from tui.app import make_app
    KEYS = ["r", "plus", "a", "minus", "s", "plus", "u", "plus", "minus"]
    async def main():
        settings = Path(sys.argv[2])
        settings.write_text(json.dumps({"advance_after_triage": False}))
        app = make_app(Library(sys.argv[1]), keymap_path=None, settings_path=settings)
        async with app.run_test() as pilot:
            await pilot.pause()
            print("READY", flush=True)
            i = 0
            while True:
                await pilot.press(KEYS[i % len(KEYS)])
                a = app.library.annotation(app.library.corpus.papers[0].id)
                print("ACK", i, a.status, a.star, flush=True)
                i += 1
    asyncio.run(main())
""")


def test_kill_loop_real_app(lib, tmp_path):
    kills = int(20 * SCALE)
    script = tmp_path / "app.py"
    script.write_text(APP)
    rng = random.Random(3)
    pid = lib.corpus.papers[0].id
    keys = ["r", "plus", "a", "minus", "s", "plus", "u", "plus", "minus"]

    def press(state: tuple[str, int], key: str) -> tuple[str, int]:
        status, star = state
        return {"r": ("read", star), "a": ("to-read", star), "s": ("skipped", star), "u": ("unread", star),
                "plus": (status, min(3, star + 1)), "minus": (status, max(0, star - 1))}[key]

    before = ("unread", 0)
    for _ in range(kills):
        proc = subprocess.Popen([sys.executable, str(script), str(lib.folder), str(tmp_path / "s.json"), str(ROOT)],
                                stdout=subprocess.PIPE, bufsize=0, env={**os.environ, "PAPERSIFT_NO_SYSTEM_CLIPBOARD": "1"})
        out = Lines(proc)
        out.until("READY", 30)
        out.for_(rng.uniform(0.05, 0.4))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        out.rest()
        proc.stdout.close()
        acks = [l.split() for l in out.lines if l.startswith("ACK")]
        a = Library(lib.folder).annotation(pid)  # must parse
        acked = (acks[-1][2], int(acks[-1][3])) if acks else before
        in_flight = press(acked, keys[(int(acks[-1][1]) + 1 if acks else 0) % len(keys)])
        assert (a.status, a.star) in (acked, in_flight), (a, acks[-1:] or "no ack")
        before = (a.status, a.star)
