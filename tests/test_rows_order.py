"""The Changes list reads as the panes do: the row model lists the repair's changes in the order
of their rows (``RowModel.listed``), which is the order ``n`` visits them, whole or grown from
the rows of a file's earlier state."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from suture.formats import load_file
from suture.model import Transcript
from suture.repair import Change, repair
from suture.tui.rows import RowBuilder, RowModel, stable_point
from tests.helpers.app import WORKED
from tests.helpers.same import next_state, same_rows
from tests.strategies import histories


def _row_of(model: RowModel, change: Change) -> int:
    if change.output_index is not None:
        return model.row_of_output[change.output_index]
    return model.row_of_input[change.input_index]


def _listed_by_row(model: RowModel) -> None:
    """``listed`` is exactly the changes the rows show, sorted by row (a row's in the repair's
    order); ``change_rows`` the row of each; ``first_change`` a row's own first item (a renamed
    result's row without one: its call's rename)."""
    want = sorted(model.changes, key=lambda c: _row_of(model, c))
    assert list(model.listed) == want
    assert list(model.change_rows) == [_row_of(model, c) for c in want]
    assert list(model.change_rows) == sorted(model.change_rows)
    assert sorted(set(model.change_rows)) == [r for r in model.changed_rows if r in set(model.change_rows)]
    assert set(model.first_change) == set(model.row_changes) == set(model.changed_rows)
    for row, at in model.first_change.items():
        assert model.listed[at] in model.row_changes[row]
        if row in model.change_rows:
            assert at == list(model.change_rows).index(row)


def test_the_worked_example_lists_its_changes_in_row_order() -> None:
    transcript = load_file(str(WORKED))
    model = RowModel(transcript, repair(transcript.messages))
    # The result moved after its call (input #5) is on row 2, above #3 and #4.
    assert [c.input_index for c in model.changes] == [3, 4, 5, 6, 6, 8]
    assert [c.input_index for c in model.listed] == [5, 3, 4, 6, 6, 8]
    assert list(model.change_rows) == model.changed_rows == [2, 3, 4, 6, 7, 9]
    _listed_by_row(model)


@settings(max_examples=200, deadline=None)
@given(histories(max_turns=8))
def test_changes_are_listed_in_row_order(history: list[Any]) -> None:
    _listed_by_row(RowModel(Transcript(messages=history, format="chat"), repair(history)))


@settings(max_examples=200, deadline=None)
@given(histories(max_turns=8), st.lists(st.integers(0, 60), max_size=5), st.booleans())
def test_a_grown_model_lists_its_changes_as_one_built_whole(history: list[Any], cuts: list[int], pieces: bool) -> None:
    """Each state of a file read up to each cut, grown from the state before (``pieces``: as a
    first read in pieces, each state up to its stable point, then the whole), lists what the
    same state built whole lists: the kept changes keep their places, the new ones follow."""
    builder = RowBuilder()
    previous = None
    previous_in: list[Any] = []
    version = 0
    for cut in sorted(cuts):
        now = history[:cut]
        transcript = Transcript(messages=now, format="chat")
        result, stable = next_state(previous, previous_in, now)
        if pieces:
            model = builder.partial(transcript, result, stable, stable_point(result, now))
            builder.finished(stable)
        else:
            version += 1
            model = builder.state(transcript, result, version=version, appended=True, stable=stable)
            same_rows(model, RowModel(transcript, result))
        _listed_by_row(model)
        previous, previous_in = result, now
    transcript = Transcript(messages=history, format="chat")
    result, stable = next_state(previous, previous_in, history)
    if pieces:
        builder.finished(stable)
    model = builder.state(transcript, result, version=version + 1, appended=True, stable=stable)
    whole = RowModel(transcript, result)
    _listed_by_row(model)
    same_rows(model, whole)
