"""Moving to the next change, problem or match: the nearest listed row past the cursor."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from suture.tui.rows import next_in, next_round


@given(
    st.lists(st.integers(0, 50), unique=True).map(sorted), st.integers(-1, 51), st.sampled_from((1, -1)), st.booleans()
)
def test_the_next_row_is_the_nearest_one_that_way(rows: list[int], row: int, step: int, wrap: bool) -> None:
    """n, x and the search's ] and [ go to the nearest listed row past the cursor that way; with
    ``wrap`` (the search) round to the other end."""
    ahead = [r for r in rows if (r > row if step > 0 else r < row)]
    nearest = (min(ahead) if step > 0 else max(ahead)) if ahead else None
    if nearest is None and wrap and rows:
        nearest = rows[0] if step > 0 else rows[-1]
    assert next_in(rows, row, step, wrap) == nearest


@given(st.lists(st.integers(0, 50), unique=True).map(sorted), st.integers(-1, 51), st.sampled_from((1, -1)))
def test_n_x_and_the_search_go_round_saying_so(rows: list[int], row: int, step: int) -> None:
    """Past the last (before the first), round to the other end, said as vim says it; pressed as
    many times as there are rows, from anywhere, every row is visited once."""
    found, note = next_round(rows, row, step, "change")
    ahead = next_in(rows, row, step)
    if not rows:
        assert (found, note) == (None, "")
    elif ahead is not None:
        assert (found, note) == (ahead, "")
    else:
        assert found == (rows[0] if step > 0 else rows[-1])
        if len(rows) == 1:  # (going round to the only one, from wherever, says so)
            assert note == "this is the only change"
        elif step > 0:
            assert note == "hit the last change, continuing at the first"
        else:
            assert note == "hit the first change, continuing at the last"
    visited = []
    at = row
    for _ in rows:
        at, _note = next_round(rows, at, step, "change")
        assert at is not None
        visited.append(at)
    assert sorted(visited) == rows
