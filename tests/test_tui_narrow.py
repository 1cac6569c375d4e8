"""The app at 60, 80 and 100 columns, read as drawn: titles, verdicts, dialogs and lists that
shorten their words or take another line rather than cut or wrap a word, and no empty rows; and
the details saying what the line under the panes says (a file for no single provider's shared
problem) and the ids an export writes."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList

from suture import load_file
from suture.sessions import agent_places
from suture.tui.app import SutureApp
from suture.tui.details import DetailScreen
from suture.tui.screens import ExportScreen, ProviderScreen
from suture.tui.sessions import SessionsApp, SessionsScreen
from tests.fakehome import use_home
from tests.helpers.app import ROOT, ready, settled
from tests.helpers.drawn import drawn_in, words

SAMPLES = ROOT / "sample_sessions"
WIDTHS = (60, 80, 100)


def _copy(name: str, tmp_path: Path) -> Path:
    path = tmp_path / Path(name).name
    shutil.copy(SAMPLES / name, path)
    return path


async def opened_details(pilot: Any, app: SutureApp, row: int) -> DetailScreen:
    app.view.select(row)
    await pilot.press("enter")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, DetailScreen)
    await pilot.pause()
    return screen


@pytest.mark.parametrize("width", WIDTHS)
async def test_the_details_frames_are_titled_whole_and_the_record_says_where_it_was_read(
    tmp_path: Path, width: int
) -> None:
    app = SutureApp(_copy("claude-code/parallel-calls.jsonl", tmp_path), watch=False)
    async with app.run_test(size=(width, 30)) as pilot:
        await settled(pilot, app)
        screen = await opened_details(pilot, app, 2)  # a result read from a block of line 8
        left, right = (screen.query_one(f"#detail-side-{side}") for side in (0, 1))
        for side, name in ((left, "Original #2 tool"), (right, "Repaired #2 tool")):
            top = drawn_in(app, side)[0]
            assert name in top and "…" not in top, top
        # Where the title has no room for the place, the record's heading has it whole.
        assert "the message's JSON as read from the file (line 8, message.content[0])" in words(
            line.strip("│ ") for line in drawn_in(app, left)[1:-1]
        )


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize(
    "name", ["chat/worked-example.json", "claude-code/interrupted-then-api-error.jsonl", "vercel/clean-v5.json"]
)
async def test_the_status_line_never_splits_the_verdict(tmp_path: Path, width: int, name: str) -> None:
    app = SutureApp(_copy(name, tmp_path), watch=False)
    async with app.run_test(size=(width, 30)) as pilot:
        await settled(pilot, app)
        checks = app.status.state.checks
        assert checks is not None
        lines = drawn_in(app, app.status)
        assert any(said.plain in line for said in checks for line in lines), lines
        assert all(line.strip() for line in lines)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["claude-code/interrupted-then-api-error.jsonl", "chat/worked-example.json"])
async def test_the_export_dialog_shows_each_choice_and_the_file_name_whole_with_no_empty_rows(
    tmp_path: Path, width: int, name: str
) -> None:
    path = _copy(name, tmp_path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(width, 40)) as pilot:
        await settled(pilot, app)
        await pilot.press("e")
        await ready(pilot, app)
        screen = app.screen
        assert isinstance(screen, ExportScreen)
        await pilot.pause()
        lines = drawn_in(app, screen.query_one("#export-box"))
        inside = [line[1:-1] for line in lines[1:-1]]
        assert inside[0].strip() and inside[-1].strip(), lines  # no empty row at the top or bottom
        shown = words(inside)
        for option in screen.options:
            assert option.label in shown
        assert screen.default.name in "".join(inside)  # the end of the path: the file's name


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["claude-code/interrupted-then-api-error.jsonl", "vercel/broken-restarted-ids.jsonl"])
async def test_each_provider_to_pick_is_one_whole_line(tmp_path: Path, width: int, name: str) -> None:
    app = SutureApp(_copy(name, tmp_path), watch=False)
    async with app.run_test(size=(width, 40)) as pilot:
        await settled(pilot, app)
        await pilot.press("p")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ProviderScreen)
        await pilot.pause()
        picks = screen.query_one(OptionList)
        lines = [line.strip("▊▎ ") for line in drawn_in(app, picks)]
        lines = [line for line in lines if line.strip("▔▁")]
        names = [name for name, _ in screen.choices]
        assert len(lines) == len(names) and all(line.startswith(name) for line, name in zip(lines, names, strict=True))
        assert not any("…" in line for line in lines)
        assert lines == screen.said(screen.laid)


async def test_the_details_of_a_file_for_no_single_provider_say_its_shared_problem(tmp_path: Path) -> None:
    app = SutureApp(_copy("vercel/broken-restarted-ids.jsonl", tmp_path), watch=False)
    async with app.run_test(size=(80, 40)) as pilot:
        await settled(pilot, app)
        assert app.provider is None and app.shared is not None and app.model is not None
        breach = app.shared[0][0]
        row = app.model.row_of_input[breach.index]
        screen = await opened_details(pilot, app, row)
        said = words(drawn_in(app, screen.query_one("#detail-why-box")))
        assert words([f"Valid: {breach.problem}"]) in said


async def test_the_details_show_the_call_id_the_session_is_written_with(tmp_path: Path) -> None:
    """Claude Code would read ``{id}_1`` as a batch entry: the session is written with ``{id}-1``
    (``suture.writeback.written_ids``), and the record an export writes shows that id."""
    path = tmp_path / "session.jsonl"
    shutil.copy(SAMPLES / "recorded" / "claude-code-2.1.328" / "repeated-id" / "session.jsonl", path)
    [first] = {c.id for m in load_file(path).messages for c in m.tool_calls}
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await settled(pilot, app)
        assert app.model is not None
        model = app.model
        [row] = [r for r in range(len(model)) if getattr(model.repaired(r), "tool_call_id", "") == f"{first}_1"]
        screen = await opened_details(pilot, app, row)
        body = str(screen.query_one("#detail-body-1").render())
        record = body.split("(a request body), not the session line the write-back writes", 1)[1]
        assert f'"{first}-1"' in record and f"{first}_1" not in record


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake home with every agent's sample sessions, its own cache, clocks in UTC."""
    return use_home(tmp_path / "home", monkeypatch)


@pytest.mark.parametrize("width", WIDTHS)
async def test_the_sessions_status_says_every_figure_and_folder_whole(home: Path, width: int) -> None:
    screen = SessionsScreen(["sessions"], agent_places({"HOME": str(home)}), watch=False)
    app = SessionsApp(screen)
    async with app.run_test(size=(width, 30)) as pilot:
        for _ in range(400):
            if screen.finished:
                break
            await pilot.pause(0.05)
        assert screen.finished
        await pilot.pause(0.3)  # the status is said again every 0.25 s
        lines = drawn_in(app, screen.query_one("#sessions-status"))
        assert not any("…" in line for line in lines), lines
        shown = words(lines)
        assert shown.startswith("Sessions: ")
        assert f"in {screen.where()}" in shown
        header = drawn_in(app, screen.query_one("#sessions-header"))[0]
        # The file name has a column wherever 12 cells are left for it; why, from 100 columns.
        named = ["file", "why"] if width >= 100 else ["file"] if width > 60 else []
        assert header.split() == ["verdict", "agent", "written", "msgs", "changes", *named]


@pytest.mark.parametrize("width", [50, 51, 52, 54])
async def test_a_cut_id_ends_its_row_with_one_ellipsis(tmp_path: Path, width: int) -> None:
    """At 50 columns a result's row has room for only the head of its shortened id: the row ends
    with the id's own ellipsis (``← toolu_01U…``), not a second one after it (nor, a little wider,
    after a piece of the id's tail)."""
    path = tmp_path / "subagent.jsonl"
    shutil.copy(SAMPLES / "real" / "claude-code" / "subagent.jsonl", path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(width, 24)) as pilot:
        await settled(pilot, app)
        lines = drawn_in(app, app.view)
        results = [line for line in lines if " tool ← toolu_" in line]
        assert results, lines
        for line in lines:
            # Neither a second ellipsis after the id's nor a piece of its tail before one.
            assert "……" not in line and not re.search(r"…\w{1,3}…", line), line
        if width == 50:
            assert all(re.search(r"tool ← toolu_\w{3}… ", line) for line in results), results


async def test_the_export_dialog_wraps_its_prompts_in_a_narrow_window(tmp_path: Path) -> None:
    # At 40 columns the prompts take two lines each rather than losing their ends.
    from textual.widgets import Label

    app = SutureApp(ROOT / "sample_sessions" / "chat" / "worked-example.json", watch=False, export_dir=tmp_path)
    async with app.run_test(size=(40, 12)) as pilot:
        await ready(pilot, app)
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        prompts = [
            label
            for label in app.screen.query(Label).results(Label)
            if str(label.render()).startswith(("Write to", "What to write"))
        ]
        assert prompts
        for label in prompts:
            said = " ".join(line.strip() for line in drawn_in(app, label))  # (as the screen shows it)
            assert said.endswith(("esc to cancel):", "the mouse picks):")), said


async def test_a_list_line_cut_by_its_scrollbar_ends_in_an_ellipsis(tmp_path: Path) -> None:
    """A list with more lines than room has a scrollbar: a long line is cut before it, with an
    ellipsis, not under it in the middle of a word."""
    from suture.tui.changes import ProblemList
    from tests.helpers.checks import checks_done

    path = tmp_path / "tool_heavy.jsonl"
    shutil.copy(ROOT / "sample_sessions" / "real" / "claude-code" / "tool_heavy.jsonl", path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot, app)
        await checks_done(pilot, app)
        await pilot.press("c")
        await pilot.pause()
        problems = app.query_one("#problems", ProblemList)
        assert len(problems.items) > problems.size.height  # (so it scrolls)
        room = problems.scrollable_content_region.width
        assert room < problems.size.width
        long = [problems.render_line(y).text for y in range(problems.size.height)]
        cut = [line for line in long if line.rstrip().endswith("…")]
        assert cut and all(len(line) <= room for line in long)
