"""How suture words a count (suture.words)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from suture.words import after_repair, count


@pytest.mark.parametrize(
    ("n", "one", "many", "said"),
    [
        (0, "call", None, "0 calls"),
        (1, "call", None, "1 call"),
        (16, "call", None, "16 calls"),
        (1, "reply", "replies", "1 reply"),
        (2, "reply", "replies", "2 replies"),
        (1204, "unreadable line", None, "1,204 unreadable lines"),
    ],
)
def test_a_count_says_one_or_many(n: int, one: str, many: str | None, said: str) -> None:
    assert count(n, one, many) == said


@given(st.integers(min_value=0, max_value=10**9))
def test_only_exactly_one_takes_the_singular(n: int) -> None:
    said = count(n, "call")
    assert said.endswith(" call") == (n == 1)
    assert said.replace(",", "").split()[0] == str(n)


def test_what_is_left_after_repair_is_said_one_way() -> None:
    # A request file's and a session log's headers, the provider picker and the Valid headline
    # all say it so (the long form after a count, the short one after a figure).
    assert after_repair(0) == "→ 0 after repair"
    assert after_repair(1204) == "→ 1,204 after repair"
    assert after_repair(2, short=True) == "→2"
