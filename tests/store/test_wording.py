"""How counts and shares are said (store.wording)."""

from store.wording import bar, counted, share


def test_a_count_says_one_paper_and_two_papers():
    assert counted(1, "paper") == "1 paper" and counted(2, "paper") == "2 papers" and counted(0, "paper") == "0 papers"
    assert counted(1200, "paper") == "1,200 papers"


def test_a_share_says_none_only_for_none_and_all_only_for_all():
    assert share(0, 4870) == "0%" and share(5, 4870) == "0.1%" and share(1, 100_000) == "<0.1%"
    assert share(37, 100) == "37%" and share(4865, 4870) == "99.9%" and share(4869, 4870) == ">99.9%" and share(4870, 4870) == "100%"
    assert share(99_999, 100_000) == ">99.9%" and share(3, 0) == "0%"
    # no "1.0%" beside a "1%" (a topic of 49 in 5,000 papers beside one of 60)
    assert share(49, 5000) == "<1%" and share(60, 5000) == "1%" and share(4951, 5000) == ">99%"


def test_a_bar_is_drawn_to_an_eighth_and_a_count_above_nought_is_never_blank():
    """10 to-read papers of 2,260 rounded to no bar at all beside 2,205 unread ones."""
    assert bar(10 / 2260, 30) == "▏" and bar(0, 30) == "" and bar(1.0, 30) == "█" * 30
    assert bar(0.5, 3) == "█▌" and bar(2205 / 2260, 30) == "█" * 29 + "▎"
    assert bar(1.5, 4) == "████" and bar(0.3, 0) == ""  # (never past its room)
