"""The command line as typed, put in the shape argparse reads (tui.cli.argv)."""

from __future__ import annotations

from tui.cli.argv import command_in, value_last, with_default_command

COMMANDS = {"open", "list", "import", "search", "status", "star"}


def test_open_is_named_when_no_command_is_but_not_before_another_command():
    cases = {
        ("f.txt",): ["open", "f.txt"],
        ("--fresh",): ["open", "--fresh"],
        ("--keymap", "list"): ["open", "--keymap", "list"],  # (a keymap file named "list")
        ("--keymap", "k", "list", "--query", "x"): ["list", "--keymap", "k", "--query=x"],
        ("--fresh", "list"): ["list", "--fresh"],
        ("list", "--library", "L", "--as", "ana"): ["--library=L", "--as=ana", "list"],
        ("search", "--query", "-tag:x"): ["search", "--query=-tag:x"],
    }
    for argv, want in cases.items():
        assert with_default_command(list(argv), COMMANDS) == want, argv
    assert command_in(["--library=L", "list"]) == "list"


def test_a_status_or_rating_given_first_moves_last():
    assert value_last(["status", "read", "a1", "b2"], "status") == (["status", "a1", "b2", "read"], None)
    assert value_last(["star", "a1", "3"], "star") == (["star", "a1", "3"], None)
    assert value_last(["status", "read"], "status") == (["status", "read"], "read")  # (no paper: said)
