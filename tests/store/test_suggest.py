"""Did you mean (store/search/suggest.py): the nearest value a library holds, or none."""

from __future__ import annotations

from store.search.suggest import nearest, no_match


def test_a_value_far_shorter_than_the_one_typed_is_never_offered():
    """`author:zzzqx` offered "did you mean 'z'?" (a one-letter name part WRatio scored close, as a
    substring); a slip and a value typed in part of a longer one are still offered."""
    parts = ["z", "zhang", "lecun", "diffusion models"]
    assert nearest("zzzqx", parts) is None and no_match("author", "zzzqx", parts, repr) == "no author 'zzzqx' here"
    assert nearest("lecunn", parts) == "lecun" and nearest("difusion", parts) == "diffusion models"
