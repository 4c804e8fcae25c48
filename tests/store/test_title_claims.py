"""store.titles.claims: the name an abstract claims leads its title, in each way a claim is
written, and however many other abstracts of the library cite it. Short synthetic abstracts of
the shapes a held-out robotics dump showed."""

from __future__ import annotations

import pytest

from store.titles.claims import claimed_names
from store.titles.library import field_names, name_tokens, settle
from store.titles.derive import derive_title, derive_titles


@pytest.mark.parametrize("abstract, title", [
    # "we introduce X, a ..." with a background sentence first
    ("Large policies pretrained on Internet-scale vision-language data generalize well. We introduce OpenVLA, "
     "an open-source vision-language-action model trained on a million robot episodes.",
     "OpenVLA: an open-source vision-language-action model trained on a million robot episodes"),
    # two words of a name, one in capitals
    ("Imitation learning from human demonstrations works well on tabletops. We present Mobile ALOHA, a low-cost "
     "whole-body teleoperation system for collecting bimanual mobile manipulation data.",
     "Mobile ALOHA: a low-cost whole-body teleoperation system"),
    # a name that is mathematics
    (r"In order for robots to be useful, they must work in homes they have never seen. We present $\pi_{0.5}$, "
     r"a vision-language-action model that uses co-training on heterogeneous tasks to enable broad generalization.",
     "π0.5: a vision-language-action model that uses co-training on heterogeneous tasks"),
    # the passive: "X, a ..., is proposed"
    ("Robots need policies that transfer across embodiments. ScaleBot, a transformer policy trained on ten robot "
     "types, is proposed to close this gap.",
     "ScaleBot: a transformer policy trained on ten robot types"),
    # "we call it X"
    ("Grasping in clutter is hard for robots. We train a grasp policy on rendered scenes and we call it GraspNeRFlow.",
     "GraspNeRFlow"),
    # set off by commas in the contribution sentence, though other papers use the acronym for other things
    ("Diffusion models generate graphs slowly. We propose a novel graph generative framework, SGDM, which is "
     "based on subgraph diffusion.",
     "SGDM: a novel graph generative framework"),
])
def test_a_claimed_name_leads(abstract, title):
    assert derive_title(abstract) == title


def test_what_is_not_a_claim():
    """A list of benchmarks, a name "called" in a sentence that is not ours, a name only used."""
    assert claimed_names("We release tiny versions of popular benchmarks: Open LLM Leaderboard, MMLU, HELM, "
                         "and AlpacaEval.") == []
    assert claimed_names("Our observation is that Adam corresponds to a framework called FollowTheLeader. "
                         "We analyse it.") == []
    assert claimed_names("We evaluate 11 model families, including OPT, LLaMA2, Falcon and Mamba.") == []
    assert claimed_names("We improve SAM on vision transformers with a cheaper ascent step.") == []


def test_the_claim_outranks_the_library_and_use_does_not():
    """OpenVLA is used by four abstracts: it is the field's name for all but the one that introduces it,
    through both paths an import takes (with and without the nameless alternatives)."""
    abstracts = [
        "Robot policies pretrained on web data generalize. We introduce OpenVLA, a vision-language-action "
        "model trained on a million robot episodes.",
        "Fine-tuning OpenVLA, a strong open model, we adapt generalist policies to legged robots.",
        "OpenVLA and Octo fail on deformable objects. We study how generalist policies fail on cloth folding.",
        "Compared with OpenVLA, our controller learns from play data. We present a policy for kitchens.",
    ]
    fields = field_names(name_tokens(a) for a in abstracts)
    assert "OpenVLA" in fields
    settled = settle(abstracts, [derive_title(a) for a in abstracts], fields)
    assert settled[0].startswith("OpenVLA: "), settled
    assert not any(t.startswith("OpenVLA") for t in settled[1:]), settled
    pairs = [derive_titles(a) for a in abstracts]
    assert settle(abstracts, [t for t, _ in pairs], fields, nameless=[n for _, n in pairs]) == settled
