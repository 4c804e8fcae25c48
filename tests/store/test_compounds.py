"""The term rules of a search's result set (store/search/compounds.py, store/search/vocab.py): a
hyphenated, slashed or digit-joined term is one term whose parts stand together; short words are
exact; typos only in long words; completions only for the word being typed."""

from __future__ import annotations

import pytest

from store import Library
from store.search.query import parse_query

ABSTRACTS = {
    "hyphen": "A sim-to-real transfer method for legged robots walking on rough terrain.",
    "digit": "We close the sim2real gap with domain randomization of physics parameters.",
    "spaced": "Transferring policies from sim to real remains hard for dexterous hands.",
    "digit-spaced": "Our sim 2 real pipeline uses photorealistic rendering of the scenes.",
    "apart": "Simulation is cheap; real robots are not, so we learn in simulation first.",
    "similar": "Similar to real data, the synthetic images help the classifier generalize.",
    "in-hand": "In-hand manipulation of small objects with a tactile gripper is studied.",
    "in hand": "We study manipulation of tools held in hand by a humanoid robot arm.",
    "hand in": "A hand model trained in a simulator for grasping household objects at home.",
    "multitask": "Multitask learning shares one encoder across many related prediction problems.",
    "multi task": "A multi task benchmark of vision problems, evaluated under shared budgets.",
    "multiple tasks": "Multiple tasks are learned one after another without forgetting old ones.",
    "vla": "A vision-language-action model maps camera images and instructions to robot actions.",
    "vla spaced": "The vision language action policy is pretrained on large web image collections.",
    "finetuned": "We fine tuned the encoder on the downstream data with a small learning rate.",
    "gans": "GANs and diffusion models are compared as generators of medical images.",
    "gan": "A GAN trained with spectral normalization stays stable over long training runs.",
    "policies": "Learning policies that generalize across tasks is the goal of meta learning.",
    "policymakers": "Policymakers need forecasts of epidemics that are calibrated and timely.",
    "graph": "A graph of citations is embedded with random walks for link prediction.",
    "grasp": "Grasp planning for unknown objects from a single depth image of a cluttered bin.",
    "contextual": "Bandits in contextual settings choose arms with side information each round.",
    "in-context": "In-context learning lets a transformer solve new tasks from the examples it is shown.",
    "transfer": "Transfer of features across domains helps when the labelled datasets are small.",
    "transform": "A wavelet transform of the signal reveals its bursts and their durations.",
}


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rules")
    (folder / "dump.txt").write_text("TERMS\n\n" + "\n\n".join(ABSTRACTS.values()))
    lib = Library(folder / "lib")
    lib.paper_changes.import_paths([folder / "dump.txt"])
    names = {" ".join(text.split()): name for name, text in ABSTRACTS.items()}
    return lib, {i: names[" ".join(p.abstract.split())] for i, p in enumerate(lib.corpus)}


POLICY = {"policies", "spaced", "vla spaced"}  # "policies" or "policy"


def found(rules, query: str, cursor: int | None = None) -> set[str]:
    lib, name = rules
    result = lib.search.find(parse_query(query, cursor))
    return {name[int(i)] for i in result.matches}


def test_a_compounds_spellings_are_one_term_and_its_parts_must_stand_together(rules):
    together = {"hyphen", "digit", "spaced", "digit-spaced"}
    assert found(rules, "sim-to-real") == together  # not "simulation ... real", not "similar to real"
    assert found(rules, "sim2real") == together
    assert found(rules, "sim/to/real") == together
    assert found(rules, "in-hand") == {"in-hand", "in hand"}  # not "a hand model trained in"
    assert found(rules, "multi-task") == {"multitask", "multi task"}  # not "multiple tasks"
    assert found(rules, "vision-language-action") == {"vla", "vla spaced"}
    assert found(rules, "fine-tuning") == {"finetuned"}  # the last part in any of its forms


def test_a_word_written_together_finds_its_parts_written_apart(rules):
    """"multitask" finds "multi task" (as "multi-task" finds "multitask"), never "multiple tasks";
    the note says what it counted."""
    lib, _ = rules
    assert found(rules, "multitask") == found(rules, "multi-task") == {"multitask", "multi task"}
    assert found(rules, "multitask", cursor=9) == {"multitask", "multi task"}  # typed: the same set
    assert lib.search.find("multitask").widened == ["multi-task (also multitask, multi task)"]
    assert "multi task" in lib.search.find("multitask").matched_terms  # the parts highlighted where they stand together


def test_only_a_known_prefix_and_a_whole_rest_make_a_joined_word_a_compound(rules):
    from store.search.joined import joined_compound
    lib, _ = rules
    vocabulary = lib.index.vocabulary
    assert joined_compound("multitask", vocabulary) == "multi-task"
    assert joined_compound("multitasking", vocabulary) == "multi-tasking"  # the rest in some form (task)
    assert joined_compound("multiple", vocabulary) is None      # "ple": too short to be a word's rest
    assert joined_compound("transfer", vocabulary) is None      # no prefix
    assert joined_compound("subgraph", vocabulary) is None      # "sub" is no word of this library on its own
    assert joined_compound("multi-task", vocabulary) is None    # a compound already
    assert lib.search.find("transfer").widened == []


def test_a_compounds_inner_parts_are_never_widened(rules):
    assert found(rules, "sim-to-rea") == set()  # done: "rea" is no word here, and no part is a prefix
    assert found(rules, "sim-to-rea", cursor=10) == {"hyphen", "digit", "spaced", "digit-spaced"}  # being typed: it may be
    assert found(rules, "mul-task") == set()


def test_the_count_says_what_a_compound_counted(rules):
    lib, _ = rules
    assert lib.search.find("sim-to-real").widened == ["sim-to-real (also sim2real, sim to real)"]
    assert lib.search.find("multi-task").widened == ["multi-task (also multi task)"]
    assert lib.search.find("graph").widened == []


def test_short_words_are_exact_or_a_form(rules):
    assert found(rules, "sim") == {"hyphen", "digit-spaced", "spaced"}  # not simulation, similar
    assert found(rules, "gan") == {"gans", "gan"}  # its plural is a form
    assert found(rules, "gans") == {"gans", "gan"}


def test_a_typo_is_forgiven_only_in_a_long_word(rules):
    assert found(rules, "polcies") == POLICY              # 7 letters: one edit forgiven
    assert found(rules, "grap") == set()                 # 4 letters: neither graph nor grasp
    assert found(rules, "grap", cursor=4) == {"graph"}   # typed on: the words it begins


def test_completions_count_only_for_a_fragment_being_typed(rules):
    """"policy" is a word here (a form of "policies"): typing it, its completions (policymakers)
    rank but do not join the set, so the count never changes when the search is done."""
    assert found(rules, "policy", cursor=6) == found(rules, "policy") == POLICY
    assert "policymakers" in found(rules, "polic", cursor=5)
    assert found(rules, "polic") == POLICY  # done: one edit from "policy" (5 letters), not a prefix
    assert found(rules, "polic graph", cursor=5) == set()  # the cursor on another word: "graph" is whole


def test_a_typed_compound_that_is_whole_keeps_its_count_when_done(rules):
    """"in-context" is a whole term here: typed, its last part's completions ("in contextual")
    are not counted, so enter leaves the count as it was; a fragment ("in-cont") still completes."""
    assert found(rules, "in-context", cursor=10) == found(rules, "in-context") == {"in-context"}
    assert found(rules, "in-cont", cursor=7) == {"in-context", "contextual"}


def test_an_unambiguous_typo_counts_exactly_as_its_word(rules):
    """"transfomer" is one edit from "transformer" alone: the words two edits away (transfer,
    transform) rank, but are not counted."""
    assert found(rules, "transfomer") == found(rules, "transformer") == {"in-context"}


def test_the_cursor_decides_which_word_is_typed():
    q = parse_query("sim-to-real grap", cursor=16)
    assert q.words == ["sim-to-real", "grap"] and q.typing == "grap"
    assert parse_query("sim-to-real grap", cursor=5).typing == "sim-to-real"
    assert parse_query("sim-to-real grap ", cursor=17).typing is None
    assert parse_query("sim-to-real grap").typing is None
    assert parse_query("sim2real").words == ["sim-2-real"]
    assert parse_query("vision/language").words == ["vision-language"]


@pytest.mark.slow  # (over 0.8 s: the fast tier stays under 90 s)
def test_the_command_line_counts_by_the_same_rules(rules, tmp_path):
    """`list --query`, `search` and `export --query`, each a real process, give the library's set
    for word forms and compounds; `list` says what a compound counted."""
    import json
    import os
    import subprocess

    from ..conftest import papersift_argv
    lib, name = rules
    env = {**os.environ, "PAPERSIFT_LIBRARY": str(lib.folder), "NO_COLOR": "1"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([*papersift_argv(), *args], capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc

    for query in ("sim-to-real", "sim2real", "multi-task", "multitask", "in-hand", "policy", "gans", "sim"):
        want = {lib.corpus.papers[int(i)].id for i in lib.search.find(query).matches}
        assert want, query
        listed = run("list", "--query", query, "--format", "json")
        assert {row["id"] for row in json.loads(listed.stdout)} == want, query
        searched = run("search", query, "--format", "json", "--limit", "100")
        assert {row["id"] for row in json.loads(searched.stdout)} == want, query
        out = tmp_path / f"{query}.json"
        run("export", "--query", query, "--format", "json", "--output", str(out))
        assert {row["id"] for row in json.loads(out.read_text())["papers"]} == want, query
    assert "counted: sim-to-real (also sim2real, sim to real)" in run("list", "--query", "sim-to-real").stderr


def test_an_ordering_with_words_and_a_compound_is_searched(rules):
    """similar: with words (a compound among them) orders the papers; it used to raise NameError."""
    lib, _ = rules
    result = lib.search.find(f"similar:{lib.corpus.papers[0].id} sim-to-real graph")
    assert not result.errors and result.widened == []
