"""store.sync.git_remote: the git program run for a sync: addresses checked, what git says cleaned."""

from __future__ import annotations

import pytest

from store.sync.git_remote import SyncError, checked_remote, said, shown_remote


def test_an_address_is_kept_as_given_and_a_password_never():
    assert checked_remote(" git@host:lab/papers.git ") == "git@host:lab/papers.git"
    assert checked_remote("/mnt/shared/lab.git") == "/mnt/shared/lab.git"
    assert checked_remote("https://ana@host/lab.git") == "https://ana@host/lab.git"  # (a user name: git asks its helper)
    for bad in ("", "--upload-pack=evil", "https://ana:secret@host/lab.git", "/mnt/\x1b[31mlab"):
        with pytest.raises(SyncError) as err:
            checked_remote(bad)
        assert "secret" not in str(err.value) and "\x1b" not in str(err.value)


def test_a_remote_is_shown_without_a_password():
    assert shown_remote("https://ana:secret@host:8443/lab.git") == "https://ana:***@host:8443/lab.git"
    assert shown_remote("git@host:lab.git") == "git@host:lab.git"


def test_what_git_says_is_one_clean_line():
    text = "hint: try pulling\nTo /x\n ! [remote rejected] main -> main (pre-receive hook declined)\nerror: failed to push\n"
    assert said(text) == "! [remote rejected] main -> main (pre-receive hook declined)"
    missing = ("fatal: '/mnt/lab.git' does not appear to be a git repository\nfatal: Could not read from remote "
               "repository.\n\nPlease make sure you have the correct access rights\n")
    assert said(missing) == "fatal: '/mnt/lab.git' does not appear to be a git repository"
    assert said("remote: \x1b[31mno\x1b[0m access\n") == "remote: no access"
    assert said("") == "(git said nothing)"
