"""benchmarks/title_classes.py: each hand-written detector flags the failures the issue's held-out
dump showed and passes the titles that read as one phrase. The detectors are the measure the title
rules answer to, so they are tested on their own, without the rules."""

from __future__ import annotations

from benchmarks import title_classes as C

OPENVLA = ("Large policies pretrained on Internet-scale vision-language data generalize. We introduce OpenVLA, "
           "an open-source vision-language-action model.")


def test_introduced_name_missed():
    assert C.name_missed(OPENVLA, "Large policies pretrained on a combination of Internet-scale data") == "OpenVLA"
    assert C.name_missed(OPENVLA, "OpenVLA: an open-source vision-language-action model") == ""
    assert C.name_missed("Robots fail on ice. We study why.", "Robots fail on ice") is None
    assert C.claimed_names("We propose a novel framework, GraspFlow, which samples grasps.") == ["GraspFlow"]
    assert C.claimed_names("Transparent objects are hard. We propose T$^2$SQNet, a network.") == ["T$^2$SQNet"]
    assert C.name_missed("We propose T$^2$SQNet, a network.", "T²SQNet: a network") == ""


def test_background_opener():
    abstract = ("Multi-object rearrangement is a challenging task. We propose a planner that sequences moves.")
    assert C.background_opener(abstract, "Multi-object rearrangement is a challenging task")
    assert not C.background_opener(abstract, "A planner that sequences moves")
    # No contribution sentence, or a first sentence of the paper's own: not a background opener.
    assert not C.background_opener("Multi-object rearrangement is a challenging task. It is old.",
                                   "Multi-object rearrangement is a challenging task")
    assert not C.background_opener("We show rearrangement is hard. We propose a planner.", "We show rearrangement is hard")


def test_glued_cut_unbalanced_damaged():
    abstract = "In robot imitation learning, data matters. We introduce CUPID."
    assert C.glued(abstract, "CUPID — In robot imitation learning")
    assert not C.glued(abstract, "CUPID")
    for title in ("EquiBot: a robust", "ToddlerBot: a low-cost", "VoxAct-B: a language-conditioned", "A method for"):
        assert C.cut(title), title
    for title in ("EquiBot: a robust approach", "A method for grasping", "Agents as tools"):
        assert not C.cut(title), title
    for title in ('MimicTouch: " \'\'', 'SDS: ("See it', "of robotics datasets'' for", "(1) robots fail"):
        assert C.unbalanced(title), title
    for title in ("SDS: See it, Do it, Sorted", "Parkinson’s disease", "an SE(3)-equivariant flow"):
        assert not C.unbalanced(title), title
    se3 = r"We propose EquiGraspFlow, an $\mathrm{SE}(3)$-equivariant flow. It uses SE(3) symmetry."
    assert C.damaged_name(se3, "EquiGraspFlow: an SE-equivariant flow")
    assert not C.damaged_name(se3, "EquiGraspFlow: an SE(3)-equivariant flow")
    assert C.damaged_name("We propose T$^2$SQNet, a network.", "SQNet: a network")
    assert not C.damaged_name("We propose T$^2$SQNet, a network.", "T$^2$SQNet: a network")
