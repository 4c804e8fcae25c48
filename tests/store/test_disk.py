"""What a disk can do to papersift: read-only and full file systems, links, permissions, leftovers.

Real file systems where it matters: a small tmpfs, remounted read-only (skipped where the test
cannot mount one, as an unprivileged user cannot).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import time
import uuid

import pytest

from store.files.atomic import STALE_TMP_SECONDS


@pytest.fixture
def small_fs(tmp_path):
    """A 24 MB tmpfs of the test's own; remount(ro=True) makes it read-only."""
    where = tmp_path / f"fs-{uuid.uuid4().hex[:6]}"
    where.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(where)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (not root?)")

    class Mounted:
        path = where

        @staticmethod
        def remount(ro: bool) -> None:
            subprocess.run(["mount", "-o", f"remount,{'ro' if ro else 'rw'}", str(where)], check=True)
    try:
        yield Mounted
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_doctor_repair_on_a_read_only_disk_says_it_could_not(run_cli, small_fs, seeds_dir):
    lib = small_fs.path / "lib"
    run_cli("import", str(seeds_dir), library=lib)
    (lib / "index.cache").unlink(missing_ok=True)
    for cache in lib.glob("*.cache"):
        cache.unlink()
    small_fs.remount(ro=True)
    proc = run_cli("doctor", "--repair", library=lib, check=False)
    assert proc.returncode == 1, proc.stdout
    assert "could not repair" in proc.stdout and "Read-only file system" in proc.stdout
    assert "repaired" not in proc.stdout.replace("could not repair", "")
    small_fs.remount(ro=False)
    assert run_cli("doctor", "--repair", library=lib).returncode == 0
    assert run_cli("doctor", library=lib).returncode == 0


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_full_disk_import_says_nothing_was_changed_and_nothing_was(run_cli, small_fs, tmp_path, seeds_dir):
    lib = small_fs.path / "lib"
    run_cli("import", str(seeds_dir), library=lib)
    before = (lib / "corpus.jsonl").read_bytes()
    filler = small_fs.path / "filler"
    with open(filler, "wb") as fh:  # fill the disk to its last few KB
        try:
            while True:
                fh.write(b"\0" * 65536)
        except OSError:
            pass
    big = tmp_path / "more.jsonl"
    big.write_text("".join(json.dumps({"title": f"T{i}", "abstract": f"Paper {i} about disks filling up while "
                                       "papersift imports a dump of abstracts. " * 20}) + "\n" for i in range(300)))
    proc = run_cli("import", str(big), library=lib, check=False)
    assert proc.returncode == 1 and "No space left on device" in proc.stderr and "nothing was changed" in proc.stderr
    assert (lib / "corpus.jsonl").read_bytes() == before


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_doctor_lists_and_removes_temporary_files_left_by_killed_writes(run_cli):
    run_cli("list")
    lib = run_cli.library
    old = time.time() - STALE_TMP_SECONDS - 60
    for name in (".corpus.jsonl.abc123.tmp", ".annotations.json.x9.tmp"):
        (lib / name).write_bytes(b"x" * 4096)
        os.utime(lib / name, (old, old))
    (lib / ".corpus.jsonl.fresh.tmp").write_bytes(b"a write under way")  # young: another process's
    proc = run_cli("doctor", check=False)
    assert proc.returncode == 1 and "2 temporary files left by interrupted writes" in proc.stdout
    assert "repaired" in run_cli("doctor", "--repair").stdout
    assert sorted(p.name for p in lib.glob(".*.tmp")) == [".corpus.jsonl.fresh.tmp"]


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_an_export_keeps_permissions_and_never_writes_through_a_link(run_cli, tmp_path):
    run_cli("list")
    target = tmp_path / "shared" / "list.md"
    target.parent.mkdir()
    target.write_text("an earlier list")
    target.chmod(0o644)
    run_cli("export", "--format", "md", "-o", str(target))
    assert target.read_text().startswith("# Reading list") and stat.S_IMODE(target.stat().st_mode) == 0o644
    target.write_text("an earlier list")
    link = tmp_path / "list.md"
    link.symlink_to(target)
    proc = run_cli("export", "--format", "md", "-o", str(link))
    assert "it replaced a link there; what the link led to is unchanged" in proc.stderr
    assert not link.is_symlink() and link.read_text().startswith("# Reading list")
    assert target.read_text() == "an earlier list"
    stale = target.parent / ".list.md.k1ll3d.tmp"   # a killed export's leftover, next to its target
    stale.write_text("half a list")
    old = time.time() - STALE_TMP_SECONDS - 60
    os.utime(stale, (old, old))
    run_cli("export", "--format", "md", "-o", str(target))
    assert not stale.exists()


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_a_link_loop_is_named_as_one(run_cli, tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    proc = run_cli("import", str(tmp_path / "a"), check=False)
    assert proc.returncode == 1 and "its links lead in a loop" in proc.stderr
    proc = run_cli("export", "--format", "md", "-o", str(tmp_path / "a"))  # the link is replaced, not followed
    assert "it replaced a link there" in proc.stderr and not (tmp_path / "a").is_symlink()


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_deep_bibtex_nesting_is_named_with_its_line(run_cli, tmp_path):
    deep = tmp_path / "deep.bib"
    deep.write_text("@misc{a,\n  title = {T},\n  abstract = {" + "{" * 10_000 + "x" + "}" * 10_000 + "}\n}\n")
    proc = run_cli("import", str(deep), check=False)
    assert proc.returncode == 1 and "deep.bib, line 3: BibTeX nested too deeply" in proc.stderr
    assert "recursion" not in proc.stderr
    shutil.copy(deep, tmp_path / "theirs.bib")
    proc = run_cli("import-annotations", str(tmp_path / "theirs.bib"), check=False)
    assert proc.returncode == 1 and "nested too deeply" in proc.stderr
