"""The problems list numbers every item as the Original pane and ``:#N`` do: picking an item and
going to the number it shows land on the same message."""

from __future__ import annotations

import shutil
from pathlib import Path

from rich.style import Style

from suture.tui.app import SutureApp
from suture.tui.changes import ProblemList
from suture.tui.judged import AFTER, Finding
from tests.helpers.app import SIZE, WORKED, ready
from tests.helpers.checks import checks_done


async def test_a_problem_left_after_repair_is_numbered_as_go_to_counts(tmp_path: Path) -> None:
    """mistral leaves 7 problems after repair in the worked example, on repaired messages whose
    Repaired numbers differ from their Original ones (a result moved, a message dropped before
    them) and on one the repair made: each shows the Original's number, which ``:#N`` goes to and
    picking the item lands on; the one the repair made shows none (``—``)."""
    path = tmp_path / "worked-example.json"
    shutil.copy(WORKED, path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await checks_done(pilot, app)
        app._picked("mistral")
        await pilot.pause()
        model = app.model
        assert model is not None
        problems = app.query_one("#problems", ProblemList)
        after = [k for k, item in enumerate(problems.items) if isinstance(item, Finding) and item.kind == AFTER]
        assert len(after) == 7
        numbered = made = 0
        for k in after:
            item = problems.items[k]
            assert isinstance(item, Finding)
            shown = problems._draw(k, 300, Style()).text.split()[1]
            problems.cursor = k  # picked: the panes go to its row
            await pilot.pause()
            row = app.view.cursor
            assert row == item.row
            if shown == "—":  # a message the repair made: no Original's number
                assert model.left[row] is None and model.right[row] is not None
                made += 1
                continue
            number = int(shown.removeprefix("#"))
            assert model.left[row] == number  # the Original pane's number on that row
            if model.right[row] != number:
                numbered += 1  # (the Repaired pane counts it otherwise)
            app.view.cursor = 0
            await pilot.press("colon", *shown, "enter")
            await pilot.pause()
            assert app.view.cursor == row, f"{shown} goes elsewhere than its item"
        assert made and numbered
