"""The CLI marks a paper no rule could title as the abstract's words: quoted in a list, said in `show`."""

from __future__ import annotations

import json

NO_PHRASE = ("It is widely agreed that when AI models assist decision-makers in high-stakes domains, they should "
             "communicate the confidence of their predictions. However, decision-makers struggle to use it. In this "
             "paper, we address this question in the canonical case of binary predictions and binary decisions.")


def test_list_and_show_mark_an_excerpt(run_cli, tmp_path):
    dump = tmp_path / "d.txt"
    dump.write_text("Dump\n\n" + NO_PHRASE + "\n")
    folder = tmp_path / "lib"
    run_cli("import", str(dump), library=folder)
    listed = run_cli("list", library=folder).stdout
    assert "“In this paper, we address this question in the canonical case of binary" in listed
    pid = json.loads(run_cli("list", "--format", "json", library=folder).stdout)[0]["id"]
    shown = run_cli("show", pid, library=folder).stdout
    assert "(no title: the first words of what the paper says it does)" in shown
