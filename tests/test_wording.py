"""Counts in messages take the right plural (issue 26: "all 1 rows", "1 repeats", "1 categories")."""

from verl_ext.wording import counted


def test_counts_take_the_right_plural() -> None:
    assert counted(1, "row") == "1 row"
    assert counted(0, "row") == "0 rows"
    assert counted(2, "repeat") == "2 repeats"
    assert counted(1, "category") == "1 category"
    assert counted(3, "category") == "3 categories"
    assert counted(2, "day") == "2 days"
    assert counted(2, "index", "indices") == "2 indices"
