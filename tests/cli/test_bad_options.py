"""Values a user mistypes (a weight of inf, a member's name in the wrong case, a day that does
not exist) get one clear line and a non-zero exit, never a traceback, and change nothing."""

from __future__ import annotations

import hashlib

import pytest


def digest(folder) -> str:
    return hashlib.sha256(b"".join((folder / n).read_bytes() for n in ("corpus.jsonl", "annotations.json")
                                   if (folder / n).exists())).hexdigest()


def refused(run_cli, folder, *args: str) -> str:
    before = digest(folder)
    proc = run_cli(*args, library=folder, check=False)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert digest(folder) == before
    return proc.stderr


@pytest.mark.parametrize("weights", ["inf,1", "nan,1", "-1,1", "0,0", "1", "1,1e-9", "1,x"])
def test_weights_that_are_no_shares_are_refused(run_cli, tmp_path, weights):
    folder = tmp_path / "lib"
    run_cli("list", "--limit", "1", library=folder)
    assert "--weights" in refused(run_cli, folder, "assign", "--to", "ana,ben", "--weights", weights)


def test_huge_weights_are_relative(run_cli, tmp_path):
    folder = tmp_path / "lib"
    proc = run_cli("assign", "--to", "ana,ben", "--weights", "1e308,1e308", "--format", "json", library=folder)
    assert "Traceback" not in proc.stderr
    import json
    shares = json.loads(proc.stdout)["assigned"]
    assert abs(shares["ana"] - shares["ben"]) <= 1


def test_a_member_named_again_in_another_case_is_refused(run_cli, tmp_path):
    folder = tmp_path / "lib"
    pid = run_cli("list", "--format", "json", library=folder).stdout.split('"id": "')[1][:12]
    run_cli("--as", "ana", "star", pid, "3", library=folder)
    said = refused(run_cli, folder, "assign", "--to", "ANA,ben")
    assert "'ANA' differs from the member 'ana' only in case: --to ana,ben" in said


@pytest.mark.parametrize("day", ["2026-13-45", "2026-02-30", "26-1-1", "yesterday", "２０２６-01-01"])
def test_archive_takes_only_real_days(run_cli, tmp_path, day):
    folder = tmp_path / "lib"
    run_cli("list", "--limit", "1", library=folder)
    assert "--skipped-before" in refused(run_cli, folder, "archive", "--skipped-before", day)


def test_an_id_prefix_as_git_takes_one(run_cli, tmp_path):
    """A unique prefix names its paper; an ambiguous one says so and names the candidates."""
    import json
    folder = tmp_path / "lib"
    ids = [p["id"] for p in json.loads(run_cli("list", "--format", "json", library=folder).stdout)]
    unique = next(i[:n] for n in (2, 3, 4, 5) for i in ids if sum(j.startswith(i[:n]) for j in ids) == 1)
    run_cli("status", unique, "to-read", library=folder)
    assert json.loads(run_cli("show", unique, "--format", "json", library=folder).stdout)["status"] == "to-read"
    shared = next(i[:2] for i in ids if sum(j.startswith(i[:2]) for j in ids) > 1)
    said = refused(run_cli, folder, "status", shared, "read")
    assert f"id prefix '{shared}' is ambiguous" in said
    assert all(i in said for i in ids if i.startswith(shared))
    titles = {p["id"]: p["title"] for p in json.loads(run_cli("list", "--format", "json", library=folder).stdout)}
    assert titles[next(i for i in ids if i.startswith(shared))][:20] in said  # (each candidate with its title)
    said = refused(run_cli, folder, "status", ids[0][0], "read")  # one character: too short, not "no paper"
    assert f"id prefix '{ids[0][0]}' is too short" in said and "no paper" not in said


@pytest.mark.parametrize("typo, meant", [("--fromat", "--format"), ("--limt", "--limit"), ("--qurey", "--query")])
def test_a_mistyped_option_gets_a_did_you_mean(run_cli, tmp_path, typo, meant):
    proc = run_cli("list", typo, "x", library=tmp_path / "lib", check=False)
    assert proc.returncode == 2 and f"did you mean '{meant}'?" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("usage: papersift list")  # (the command's usage, where its options are)


@pytest.mark.parametrize("argv, meant", [(("status", "0123456789ab", "readd"), "read"),
                                         (("list", "--sort", "stauts"), "status"),
                                         (("list", "--sort", "stat"), "status"),  # (its start: not "star")
                                         (("list", "--format", "jsno"), "json")])
def test_a_mistyped_choice_gets_a_did_you_mean(run_cli, tmp_path, argv, meant):
    proc = run_cli(*argv, library=tmp_path / "lib", check=False)
    assert proc.returncode == 2 and f"did you mean '{meant}'?" in proc.stderr and "Traceback" not in proc.stderr
    assert "invalid choice" in proc.stderr  # (argparse's own words, with the choices)


def test_a_too_long_abstract_is_said_with_one_limit(run_cli, tmp_path):
    import re
    dump = tmp_path / "d.txt"
    dump.write_text("Dump\n\n" + "word " * 60_000 + "\n")
    proc = run_cli("import", str(dump), library=tmp_path / "lib", check=False)
    assert proc.returncode == 1 and "an abstract is at most" in proc.stderr
    assert len(re.findall(r"\d[\d,]{3,}", proc.stderr.split("error:")[-1])) == 1, proc.stderr  # one number: the limit


def test_weights_are_checked_when_nothing_is_left_to_assign(run_cli, tmp_path):
    folder = tmp_path / "lib"
    run_cli("assign", "--to", "ana,ben", library=folder)  # every paper assigned: nothing left
    assert "--weights" in refused(run_cli, folder, "assign", "--to", "ana,ben", "--weights", "inf,1")


@pytest.mark.parametrize("names, said", [("ana,ana", "ana named twice"), ("ana,,ben", "an empty name")])
def test_a_member_named_twice_or_an_empty_name_is_refused(run_cli, tmp_path, names, said):
    folder = tmp_path / "lib"
    run_cli("list", "--limit", "1", library=folder)
    assert said in refused(run_cli, folder, "assign", "--to", names)
