"""Moving to the next change, problem or match: the nearest listed row past the cursor."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from suture.tui.rows import next_in


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
