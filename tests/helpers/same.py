"""The same result reached two ways (resumed and whole, grown and built at once): every field
that matters, compared one by one so that a failure names the field."""

from __future__ import annotations

from collections.abc import Sequence

from suture.model import Message
from suture.repair import Repair, repair, repair_from, reused
from suture.tui.rows import RowModel


def next_state(
    previous: Repair | None, before: Sequence[Message], now: Sequence[Message]
) -> tuple[Repair, tuple[int, int]]:
    """The repair of ``now``, resumed from ``previous`` (the repair of ``before``) as a reload
    resumes it, and how many input and output messages at the start it shares with it."""
    if previous is None:
        return repair(list(now)), (0, 0)
    return repair_from(previous, list(now), len(before)), reused(previous, list(now), len(before)) or (0, 0)


def same_repair(got: Repair, want: Repair) -> None:
    assert got.messages == want.messages
    assert got.changes == want.changes
    assert got.spans == want.spans
    assert got.origin == want.origin
    assert got.interrupted == want.interrupted
    assert got.input_count == want.input_count


def same_rows(got: RowModel, want: RowModel) -> None:
    assert list(got.left) == list(want.left)
    assert list(got.right) == list(want.right)
    assert list(got.row_of_input) == list(want.row_of_input)
    assert list(got.row_of_output) == list(want.row_of_output)
    assert list(got.in_span) == list(want.in_span)
    assert list(got.out_span) == list(want.out_span)
    assert list(got.listed) == list(want.listed)
    assert got.change_rows == want.change_rows
    assert got.changed_rows == want.changed_rows
    assert got.row_changes == want.row_changes
    assert got.first_change == want.first_change
    assert got.counts() == want.counts()
