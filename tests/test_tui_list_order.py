"""The lists beside the panes read as the panes do: the Changes list in the order ``n`` visits the
changed rows (a moved result's change where the result now is, above the changes after it), the
Provider problems list in the order of its rows; each item chosen goes to its row."""

from __future__ import annotations

from pathlib import Path

from suture.tui.app import SutureApp
from suture.tui.changes import ChangeList, ProblemList
from suture.tui.judged import Finding
from tests.helpers.app import SIZE, WORKED, ready


async def test_the_changes_list_is_in_the_order_n_visits(tmp_path: Path) -> None:
    app = SutureApp(WORKED, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        model = app.model
        assert model is not None
        changes = app.query_one("#changes", ChangeList)
        # Input #5's result moved above #3 and #4: the list says so, top to bottom.
        assert [c.input_index for c in changes.items] == [5, 3, 4, 6, 6, 8]
        # n from the first change: the list's highlight goes down it one item at a time.
        view = app.view
        assert view.cursor == model.changed_rows[0]
        visited, highlighted = [view.cursor], [changes.cursor]
        for _ in range(len(model.changed_rows) - 1):
            await pilot.press("n")
            visited.append(view.cursor)
            highlighted.append(changes.cursor)
        assert visited == model.changed_rows
        assert highlighted == list(range(len(changes.items)))
        assert [model.change_rows[k] for k in highlighted] == visited
        # Each item chosen goes to its row: moved onto, and picked with enter.
        await pilot.press("tab")
        assert isinstance(app.focused, ChangeList)
        await pilot.press("home")
        for k, change in enumerate(changes.items):
            assert changes.cursor == k
            assert view.cursor == model.change_rows[k]
            assert change in model.row_changes[view.cursor]
            await pilot.press("down")
        for k in range(len(changes.items)):
            changes.focus()
            changes.cursor = k
            await pilot.press("enter")
            assert app.focused is view and view.cursor == model.change_rows[k]


async def test_the_problems_list_is_in_the_order_of_its_rows(tmp_path: Path) -> None:
    app = SutureApp(WORKED, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        problems = app.query_one("#problems", ProblemList)
        findings = [item for item in problems.items if isinstance(item, Finding)]
        assert findings
        for kind in {f.kind for f in findings}:
            rows = [f.row for f in findings if f.kind == kind]
            assert rows == sorted(rows)
        # The moved result's problem (input #5, row 2) is listed above #3's (row 3).
        assert [f.index for f in findings][:3] == [1, 5, 3]
        problems.focus()
        await pilot.press("end", "home")
        for k, item in enumerate(problems.items):
            assert problems.cursor == k
            if isinstance(item, Finding):
                assert app.view.cursor == item.row
            await pilot.press("down")
