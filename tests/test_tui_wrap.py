"""Moving between the things the app lists goes round, and says so, as vim's search does ("search
hit BOTTOM, continuing at TOP"): n/N through the changes (in the panes and in a message's
details), x/X through the provider problems, ]/[ through the search matches. Where nothing the
provider would reject is listed, x/X go through what the problems list shows besides (a session's
notes of what its agent repairs itself, its contract view), saying that is what they are. And
``:line N`` goes to the message whose record holds line N of a JSON document, as the record as
written shows it (``w`` in the details)."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
from textual.widgets import Input

from suture.tui.app import SutureApp
from suture.tui.changes import ProblemList
from suture.tui.details import DetailScreen
from suture.tui.judged import AGENT, Finding
from suture.tui.keys import KeyBar
from suture.written import written
from tests.helpers.app import SIZE, WORKED, ready
from tests.helpers.checks import checks_done

ROOT = Path(__file__).resolve().parent.parent
TOOL_HEAVY = ROOT / "sample_sessions" / "real" / "claude-code" / "tool_heavy.jsonl"


def copy(source: Path, tmp_path: Path) -> Path:
    path = tmp_path / source.name
    shutil.copy(source, path)
    return path


def said(app: SutureApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_n_past_the_last_change_goes_round_to_the_first_and_says_so(tmp_path: Path) -> None:
    app = SutureApp(copy(WORKED, tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        view, model = app.view, app.model
        assert model is not None
        changed = model.changed_rows
        assert len(changed) > 2
        view.select(changed[-1])
        await pilot.press("n")
        assert view.cursor == changed[0]
        assert said(app)[-1] == "hit the last change, continuing at the first"
        await pilot.press("N")
        assert view.cursor == changed[-1]
        assert said(app)[-1] == "hit the first change, continuing at the last"
        # A step that does not go round says nothing.
        before = len(said(app))
        await pilot.press("N")
        assert view.cursor == changed[-2] and len(said(app)) == before
        # From below the last change, n goes round too.
        if changed[-1] < len(model) - 1:
            view.select(len(model) - 1)
            await pilot.press("n")
            assert view.cursor == changed[0]


async def test_n_in_a_messages_details_goes_round_too(tmp_path: Path) -> None:
    app = SutureApp(copy(WORKED, tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        model = app.model
        assert model is not None
        changed = model.changed_rows
        app.view.select(changed[-1])
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, DetailScreen) and screen.row == changed[-1]
        await pilot.press("n")
        assert screen.row == changed[0] and app.view.cursor == changed[0]
        assert said(app)[-1] == "hit the last change, continuing at the first"
        await pilot.press("N")
        assert screen.row == changed[-1] and app.view.cursor == changed[-1]
        assert said(app)[-1] == "hit the first change, continuing at the last"


async def test_the_only_change_is_said_to_be_the_only_one(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text(
        '[{"role": "user", "content": "hi"}, {"role": "assistant", "content": ""},'
        ' {"role": "user", "content": "again"}, {"role": "assistant", "content": "ok"}]'
    )
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        assert app.model is not None
        [row] = app.model.changed_rows
        app.view.select(row)
        for key in ("n", "N"):
            await pilot.press(key)
            assert app.view.cursor == row
            assert said(app)[-1] == "this is the only change"


async def test_x_and_search_steps_go_round_and_say_so(tmp_path: Path) -> None:
    app = SutureApp(copy(WORKED, tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await checks_done(pilot, app)
        view = app.view
        rows = sorted(app.problem_rows)
        assert len(rows) > 1
        view.select(rows[-1])
        bar = app.query_one(KeyBar)
        assert ("x", "Next problem") in [(k.key, k.description) for k in bar.fitted(bar.size.width)]
        await pilot.press("x")
        assert view.cursor == rows[0]
        assert said(app)[-1] == "hit the last problem, continuing at the first"
        # The problems list shows where x went.
        problems = app.query_one("#problems", ProblemList)
        item = problems.items[problems.cursor]
        assert isinstance(item, Finding) and item.row == rows[0] and item.is_problem
        await pilot.press("X")
        assert view.cursor == rows[-1]
        assert said(app)[-1] == "hit the first problem, continuing at the last"
        item = problems.items[problems.cursor]
        assert isinstance(item, Finding) and item.row == rows[-1]
        # ] past the last match.
        await pilot.press("g", "slash", *"X_1", "enter")
        await ready(pilot, app)
        assert len(app.matches) == 2
        view.select(app.matches[-1])
        await pilot.press("right_square_bracket")
        assert view.cursor == app.matches[0]
        assert said(app)[-1] == "hit the last match, continuing at the first"


async def test_x_goes_through_what_the_list_shows_where_nothing_sent_is_a_problem(tmp_path: Path) -> None:
    # Claude Code sends this session accepted, but the problems list shows what it repairs
    # itself and the contract view's items: x goes to them, saying they are not problems.
    app = SutureApp(copy(TOOL_HEAVY, tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await checks_done(pilot, app)
        assert app.verdicts is not None and app.provider is not None
        judged = app.verdicts[app.provider]
        assert judged.session and not judged.problems and not app.problem_rows
        problems = app.query_one("#problems", ProblemList)
        listed = [item for item in problems.items if isinstance(item, Finding)]
        assert listed and not any(f.is_problem for f in listed)
        rows = sorted({f.row for f in listed})
        assert len(rows) > 1
        # The key bar says x goes to what is listed, not to a problem.
        bar = app.query_one(KeyBar)
        assert ("x", "Next listed") in [(k.key, k.description) for k in bar.fitted(bar.size.width)]
        app.view.select(0)
        seen = []
        for _ in rows:
            await pilot.press("x")
            seen.append(app.view.cursor)
            here = [f for f in listed if f.row == app.view.cursor]
            note = said(app)[-1]
            assert note.startswith(f"no problems in what Claude Code sends; listed here ({len(seen)}/{len(rows)}): ")
            fixes = sum(f.kind == AGENT for f in here)
            contract = len(here) - fixes
            if fixes:
                assert f"{fixes} thing{'s' if fixes > 1 else ''} Claude Code repairs itself" in note
            if contract:
                assert f"{contract} item{'s' if contract > 1 else ''} of the contract view" in note
            item = problems.items[problems.cursor]
            assert isinstance(item, Finding) and item in here
        assert seen == [r for r in rows if r > 0] + [r for r in rows if r <= 0]
        await pilot.press("x")
        assert app.view.cursor == seen[0]
        assert said(app)[-1].endswith("; hit the last listed item, continuing at the first")
        await pilot.press("X")
        assert app.view.cursor == seen[-1]
        assert said(app)[-1].endswith("; hit the first listed item, continuing at the last")
        assert not any("no provider problems" in s for s in said(app))


async def test_v_shows_the_listed_rows_where_nothing_sent_is_a_problem(tmp_path: Path) -> None:
    # As x goes through them, v's second step shows the rows the problems list names.
    app = SutureApp(copy(TOOL_HEAVY, tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await checks_done(pilot, app)
        assert not app.problem_rows and app.other_rows
        await pilot.press("v")
        assert app.row_filter == "changed"
        await pilot.press("v")
        assert app.row_filter == "problems"
        header = app.query_one("#pane-header")
        assert header.note == f"only listed: {len(app.other_rows)} of {len(app.model or [])} (v, esc)"  # type: ignore[attr-defined]
        assert app.view.shown == sorted(app.other_rows)
        await pilot.press("v")
        assert app.row_filter == "all"


async def test_x_with_nothing_listed_says_what_the_verdict_says(tmp_path: Path) -> None:
    path = tmp_path / "clean.json"
    path.write_text('[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]')
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await checks_done(pilot, app)
        assert not app.problem_rows and not app.other_rows
        await pilot.press("x")
        assert said(app)[-1] == f"{app.provider}: no problems"


async def _go_to(pilot: object, app: SutureApp, typed: str) -> None:
    await pilot.press("colon")  # type: ignore[attr-defined]
    box = app.query_one("#goto", Input)
    box.value = typed
    await pilot.press("enter")  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]


async def test_a_line_of_a_json_document_goes_to_its_message(tmp_path: Path) -> None:
    path = copy(WORKED, tmp_path)
    data = path.read_bytes()
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        model = app.model
        assert model is not None
        messages = model.transcript.messages
        assert all(m.source is not None and m.source.line is None for m in messages)
        # Each line of each message's record as written (what w in the details shows: "$[6] (line
        # 11)"), typed, goes to its row.
        for index, message in enumerate(messages):
            [record] = written(data, message.source)
            lines = range(record.line, record.line + record.data.count(b"\n") + 1)
            for line in lines:
                app.view.select(0 if index else len(model) - 1)
                await _go_to(pilot, app, f"line {line}")
                assert app.view.cursor == model.row_of_input[index], (index, line)
                assert not any("not by line" in s for s in said(app))
        # The bracket that opens the document holds no message: the first one, said so.
        await _go_to(pilot, app, "1")
        assert app.view.cursor == model.row_of_input[0]
        assert said(app)[-1] == "line 1 holds no message; the next one read is on line 2"
        # The one that closes it: nothing to go to, said so.
        last = data.count(b"\n")
        app.view.select(3)
        await _go_to(pilot, app, f"line {last}")
        assert app.view.cursor == 3
        assert said(app)[-1] == f"nothing at line {last}: no message was read from it or after it"


async def test_a_json_documents_lines_are_found_once_as_the_go_to_box_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Finding every record's line reads and walks the whole document (about a second at 100,000
    # messages): done in a worker while the place is typed, and once per state of the file.
    import suture.tui.app as app_module

    found: list[str] = []
    real = app_module.document_lines

    def counted(data: bytes, sources: object) -> object:
        found.append(threading.current_thread().name)
        return real(data, sources)  # type: ignore[arg-type]

    monkeypatch.setattr(app_module, "document_lines", counted)
    app = SutureApp(copy(WORKED, tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        model = app.model
        assert model is not None
        await pilot.press("colon")
        await app.workers.wait_for_complete()
        assert len(found) == 1 and found[0] != threading.main_thread().name
        box = app.query_one("#goto", Input)
        box.value = "line 2"
        await pilot.press("enter")
        await pilot.pause()
        assert app.view.cursor == model.row_of_input[0]
        await _go_to(pilot, app, "line 3")
        assert len(found) == 1


async def test_n_with_every_change_filtered_out_says_so(tmp_path: Path) -> None:
    app = SutureApp(copy(WORKED, tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        assert app.model is not None
        await pilot.press("slash", *"fix the build", "enter")
        await ready(pilot, app)
        assert app.matches and not set(app.matches) & set(app.model.changed_rows)
        app.action_filter("matches")
        await pilot.pause()
        at = app.view.cursor
        await pilot.press("n")
        assert app.view.cursor == at
        assert said(app)[-1] == "no changes among the rows shown (esc shows every row)"
        await pilot.press("escape", "n")  # every row shown again: n goes on
        assert app.view.cursor in app.model.changed_rows


async def test_a_line_after_the_compaction_is_not_said_to_be_before_it(tmp_path: Path) -> None:
    # Line 1500 is a system record after the compaction on line 754: it holds no message, and
    # the note that lines 1-753 are not sent does not tell of it.
    path = copy(
        ROOT / "sample_sessions" / "real" / "claude-code" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl", tmp_path
    )
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await ready(pilot, app)
        await _go_to(pilot, app, "line 1500")
        assert said(app)[-1] == "line 1500 holds no message; the next one read is on line 1502"
