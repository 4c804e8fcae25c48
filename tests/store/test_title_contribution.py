"""store.titles.contribution: an abstract that opens on the field's background and says later
what it contributes is titled by the contribution, never by the background. Short synthetic abstracts
of the shapes a held-out robotics dump showed."""

from __future__ import annotations

import pytest

from store.titles.contribution import contribution_object
from store.titles.derive import derive_title


@pytest.mark.parametrize("abstract, title", [
    ("Despite the impressive recent advances in learning-based robot control, policies still fail on contact-rich "
     "tasks. We propose a contact-aware diffusion policy that predicts forces along with actions.",
     "A contact-aware diffusion policy that predicts forces along with actions"),
    ("Recent work has shown diffusion models are an effective approach to learning policies. Moreover, we "
     "introduce an innovative method, which plans with keyposes extracted from demonstrations.",
     "An innovative method planning with keyposes extracted from demonstrations"),
    ("Inspired by the success of transfer learning in computer vision, roboticists pretrain visual encoders. "
     "We present *visual prior distillation*, a technique for pretraining manipulation encoders from video.",
     "Visual prior distillation: a technique for pretraining manipulation encoders from video"),
    ("Multi-object rearrangement is a challenging task. This work develops a planner that sequences object moves "
     "with a learned feasibility model.",
     "A planner that sequences object moves with a learned feasibility model"),
    ("Diffusion policies are conditional diffusion models that predict robot actions. We propose to distill "
     "diffusion policies into one-step policies for fast control.",
     "Distilling diffusion policies into one-step policies for fast control"),
])
def test_no_background_opener_when_a_contribution_follows(abstract, title):
    assert derive_title(abstract) == title


def test_what_is_not_a_contribution():
    """A claim ("we propose that"), evidence ("we present results"), or a purpose that points back
    gives no title."""
    assert contribution_object("Robots fail. We propose that failures be logged by default.") == ""
    assert contribution_object("Robots fail. We present extensive experiments on ten robots.") == ""
    assert contribution_object("Robots fail. We propose to fix them with better sensors.") == ""


def test_an_opening_of_our_own_is_kept():
    """A first sentence that speaks for the paper is not background: it stays the title."""
    assert derive_title("We argue that scaling alone is not enough. We propose a benchmark of robot tasks.") \
        == "Scaling alone is not enough"


def test_a_formulas_parentheses_stay_with_it():
    """A "(" right after a symbol is a formula's ("𝒪(1/T)", "SO(d)"), not an aside: the title
    was cut to "The first 𝒪"."""
    from store.titles.derive import derive_title
    abstract = ("Stochastic natural gradient variational inference (NGVI) is a popular posterior inference method. "
                "For conjugate likelihoods, we prove the first 𝒪(1/T) non-asymptotic convergence rate of "
                "stochastic NGVI. The complexity is no worse than stochastic gradient descent.")
    assert derive_title(abstract) == "The first 𝒪(1/T) non-asymptotic convergence rate of stochastic NGVI"
