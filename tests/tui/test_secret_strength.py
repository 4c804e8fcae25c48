"""A fixed secret for `serve` is worth what a guesser would pay for it: random secrets pass,
words, sequences, keyboard rows and repeated patterns do not, however long or varied."""

from __future__ import annotations

import secrets

import pytest

from tui.secret_strength import MIN_TOKEN_BITS, estimated_bits, token_problem


@pytest.mark.parametrize("weak", [
    "abcdefghijklmnopqrstuvwxyzabcdefgh",              # the alphabet, varied and long
    "qwertyuiopasdfghjklzxcvbnm1234567890qwerty",      # keyboard rows
    "Tr0ub4dor&3Tr0ub4dor&3Tr0ub4dor&3Tr0ub4dor&3",    # a varied pattern repeated to length
    "0123456789876543210123456789876543210",           # up and down a row
    "correcthorsebatterystaplecorrecthorse",
    "a" * 4096,
    "cGFzc3dvcmQxMjNwYXNzd29yZDEyMw",                  # base64 of "password123password123"
    "The_quick_brown_fox_jumps_over_the_lazy_dog_42",  # a sentence
    "Mississippi-Alabama-Tennessee-Kentucky",          # words
    "acegikmoqsuwybdfhjlnprtvxz0246813579",            # a step of two
    "aZbYcXdWeVfUgThSiRjQkPlOmN",                      # two sequences interleaved
])
def test_varied_but_predictable_secrets_are_refused_with_the_rule(weak):
    problem = token_problem(weak)
    assert problem is not None and f"at least {MIN_TOKEN_BITS} bits" in problem and "token_urlsafe(32)" in problem


@pytest.mark.slow  # (9 s: 1,000 draws)
def test_the_secret_the_message_suggests_always_passes():
    assert all(token_problem(secrets.token_urlsafe(32)) is None for _ in range(1000))
    assert all(token_problem(secrets.token_hex(32)) is None for _ in range(200))


def test_a_repeat_costs_one_reference_not_its_length():
    once = secrets.token_urlsafe(32)
    assert estimated_bits(once + once) < estimated_bits(once) + 20
