"""Search that looks into call arguments, results and ids; a filter for changed rows, problem rows
and search matches."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from suture.tui.app import SutureApp
from suture.tui.view import PaneHeader
from tests.helpers.app import WORKED, ready, screen_text, settled


@pytest.fixture
def worked(tmp_path: Path) -> Path:
    path = tmp_path / "worked-example.json"
    shutil.copy(WORKED, path)
    return path


def _session(tmp_path: Path) -> Path:
    """Calls whose words are only in their arguments, results only in their output."""
    messages = [
        {"role": "user", "content": "fix it"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_bash_1",
                    "type": "function",
                    "function": {"name": "bash", "arguments": '{"command": "pytest -q tests/"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_bash_1", "content": "3 passed, 1 xfailed"},
        {"role": "assistant", "content": "All green."},
    ]
    path = tmp_path / "args.json"
    path.write_bytes(orjson.dumps(messages))
    return path


@pytest.mark.parametrize(
    ("query", "rows"),
    [
        ("pytest", [1]),  # only in the Bash call's arguments
        ("xfailed", [2]),  # only in a result's output
        ("CALL_BASH_1", [1, 2]),  # an id: the call and its result, any case
        ("tests/", [1]),
        ("green", [3]),
    ],
)
async def test_search_covers_arguments_results_and_ids(tmp_path: Path, query: str, rows: list[int]) -> None:
    app = SutureApp(_session(tmp_path), watch=False)
    async with app.run_test(size=(100, 24)) as pilot:
        await ready(pilot, app)
        await pilot.press("slash", *query, "enter")
        await ready(pilot, app)
        assert app.matches == rows
        assert app.view.cursor == rows[0]


async def test_filter_cycles_through_changed_problems_and_matches(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await settled(pilot, app)
        model = app.model
        assert model is not None
        every = screen_text(app)
        await pilot.press("v")
        assert app.row_filter == "changed"
        assert app.view.shown == model.changed_rows
        lines = [line for line in screen_text(app).splitlines() if line.strip()]
        assert len(lines) == len(model.changed_rows) < len(model)
        assert "fix the build" not in screen_text(app) and "fix the build" in every
        assert "only changed: 6 of 10" in app.query_one(PaneHeader).render().plain
        # Keys move among the rows shown only.
        await pilot.press("g")
        assert app.view.cursor == model.changed_rows[0]
        await pilot.press("j")
        assert app.view.cursor == model.changed_rows[1]
        await pilot.press("G")
        assert app.view.cursor == model.changed_rows[-1]
        # Next: only rows with provider problems.
        await pilot.press("v")
        assert app.row_filter == "problems"
        assert app.view.shown == sorted(app.problem_rows)
        # No search yet: the cycle skips "matches" and comes back to every row.
        await pilot.press("v")
        assert app.row_filter == "all" and app.view.shown is None
        assert screen_text(app) == every
        # With a search, the matches filter shows only the matches.
        await pilot.press("slash", *"lint", "enter")
        await ready(pilot, app)
        app.action_filter("matches")
        await pilot.pause()
        assert app.view.shown == app.matches == [model.row_of_input[2]]
        assert next(line for line in screen_text(app).splitlines() if line.strip()).count("also check the lint") == 2
        # Esc clears search and filter: every row again.
        await pilot.press("escape")
        await pilot.pause()
        assert app.row_filter == "all" and app.view.shown is None and not app.matches
        assert "rows" not in app.query_one(PaneHeader).render().plain


async def test_filter_with_nothing_to_show_says_so(tmp_path: Path) -> None:
    path = tmp_path / "clean.json"
    path.write_bytes(orjson.dumps([{"role": "user", "content": "hi"}]))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(100, 24)) as pilot:
        await ready(pilot, app)
        app.action_filter("changed")
        await pilot.pause()
        assert app.row_filter == "all" and app.view.shown is None
        assert any("no changed rows" in n.message for n in app._notifications)
        # v, where no filter has a row to show, says so rather than doing nothing.
        await pilot.press("v")
        await pilot.pause()
        assert app.row_filter == "all"
        assert any(n.message.startswith("nothing to filter") for n in app._notifications)


async def test_next_change_and_matches_stay_among_the_rows_shown(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await settled(pilot, app)
        model = app.model
        assert model is not None
        await pilot.press("slash", *"x", "enter")
        await ready(pilot, app)
        app.action_filter("matches")
        await pilot.pause()
        shown = app.view.shown
        assert shown == app.matches and len(shown) < len(model)
        await pilot.press("g")
        seen = [app.view.cursor]
        for _ in range(len(model)):
            await pilot.press("n")
            seen.append(app.view.cursor)
        assert all(app.view.is_shown(row) for row in seen)
        assert set(seen) <= set(model.changed_rows) | {shown[0]}


async def test_a_reload_keeps_the_filter(tmp_path: Path) -> None:
    path = tmp_path / "live.json"
    path.write_bytes(WORKED.read_bytes())
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot, app)
        await pilot.press("v")
        assert app.row_filter == "changed"
        messages = orjson.loads(WORKED.read_bytes())
        messages.append({"role": "user", "content": "one more"})
        path.write_bytes(orjson.dumps(messages))
        await pilot.press("r")
        await ready(pilot, app)
        assert app.model is not None and len(app.model.transcript.messages) == len(messages)
        assert app.row_filter == "changed" and app.view.shown == app.model.changed_rows
        assert "one more" not in screen_text(app)


async def test_the_search_count_follows_the_cursor_whatever_moved_it(worked: Path) -> None:
    """/x, then a key that is not ] or [ (G, n, a click) lands on another match: the count says
    which one the cursor is on, not the one the search went to."""
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await settled(pilot, app)
        await pilot.press("g", "slash", *"x", "enter")
        await ready(pilot, app)
        matches = app.matches
        assert len(matches) >= 3
        assert f": 1/{len(matches)}" in app.search_state
        app.view.select(matches[2])
        await pilot.pause()
        assert f": 3/{len(matches)}" in app.search_state
        app.view.select(next(r for r in range(len(app.model or [])) if r not in matches))
        await pilot.pause()
        assert f": {len(matches)} matches" in app.search_state
