"""A shared library's corpus.jsonl is untrusted input: a forged batch, revision or version number
and a link that is no web address are read as none, never a traceback, never shown or exported."""

from __future__ import annotations

import json

import pytest

from store import Library


def forge(folder, **fields) -> str:
    Library.open(folder)
    path = folder / "corpus.jsonl"
    lines = path.read_text().splitlines()
    rec = json.loads(lines[1])
    rec.update(fields)
    lines[1] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n")
    return rec["id"]


@pytest.mark.parametrize("value", [2 ** 63, 10 ** 30, -7, True, "x", 1.5, [3]])
def test_a_forged_batch_number_reads_as_none(run_cli, tmp_path, value):
    folder = tmp_path / "lib"
    pid = forge(folder, batch=value, revised=value, version=value)
    for args in (("list", "--query", "batch:3"), ("list", "--query", "new:"), ("list", "--query", "updated:"),
                 ("show", pid), ("stats",), ("export", "--format", "json")):
        proc = run_cli(*args, library=folder, check=False)
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, (args, proc.stderr[-800:])


def test_a_link_that_is_no_web_address_is_never_shown_or_exported(run_cli, tmp_path):
    folder = tmp_path / "lib"
    pid = forge(folder, url="javascript:alert(document.cookie)")
    assert Library(folder).paper(pid).url == ""
    for fmt in ("bibtex", "ris", "csl-json", "md", "csv", "json"):
        out = run_cli("export", "--format", fmt, library=folder).stdout
        assert "javascript:" not in out, fmt
    assert "javascript:" not in run_cli("show", pid, library=folder).stdout


@pytest.mark.parametrize("fields", [{"authors": ["A", 5]}, {"title": 42}, {"abstract": None},
                                    {"keywords": "x"}, {"venue": 3, "year": [1]},
                                    # (these made the whole paper unreadable: a repair dropped it)
                                    {"sources": 5}, {"sources": [{"file": 1}]}, {"variants": [{"id": 3}]},
                                    {"versions": 7}])
def test_a_field_of_the_wrong_kind_reads_as_none_and_doctor_names_it(run_cli, tmp_path, fields):
    folder = tmp_path / "lib"
    pid = forge(folder, **fields)
    for args in (("list",), ("show", pid), ("search", "benchmark"), *(("export", "--format", f) for f in
                 ("md", "csv", "bibtex", "org", "csl-json", "ris", "json"))):
        proc = run_cli(*args, library=folder, check=False)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, (args, proc.stderr[-800:])
    proc = run_cli("doctor", library=folder, check=False)
    assert proc.returncode == 1 and "fields of the wrong kind" in proc.stdout + proc.stderr
    assert run_cli("doctor", "--repair", library=folder, check=False).returncode == 0
    assert run_cli("doctor", library=folder, check=False).returncode == 0
    assert Library(folder).paper(pid).id == pid  # the paper kept, its other fields with it


async def test_the_app_opens_on_a_forged_corpus(tmp_path):
    from tui.app import make_app
    folder = tmp_path / "lib"
    forge(folder, authors=["A", 5], title=42)
    app = make_app(Library(folder), keymap_path=tmp_path / "k.toml", settings_path=tmp_path / "s.json")
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("j", "k")
        await pilot.pause()
