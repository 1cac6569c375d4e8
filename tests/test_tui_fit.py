"""The bars at the top and bottom, read as drawn at 60 to 120 columns: the last reload's note is
said whole or not at all (never split, never at the cost of the file's name, and still whole as
its seconds tick); an error is wrapped to the width and said whole (the file that cannot be read
now, the API error the session recorded); and a notification does not cover the line under the
panes or the key bar."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import msgspec.structs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.text import Text
from textual.widgets._toast import Toast

from suture.tui.app import SutureApp
from suture.tui.banner import Banner
from suture.tui.bars import _ago, cut_middle
from tests.helpers.app import ROOT, WORKED, ready, settled
from tests.helpers.drawn import drawn_in, words

WIDTHS = (60, 80, 90, 100, 120)
API_ERROR = ROOT / "sample_sessions" / "claude-code" / "interrupted-then-api-error.jsonl"


def _copy(source: Path, tmp_path: Path) -> Path:
    path = tmp_path / source.name
    shutil.copy(source, path)
    return path


def _note(app: SutureApp) -> str:
    """The reload note as it is said now."""
    reloaded = app.status.state.reloaded
    assert reloaded is not None
    said, at = reloaded
    return f"↻ {said}, {_ago(time.monotonic() - at)}"


@pytest.mark.parametrize("width", (*WIDTHS, 68, 98))
@pytest.mark.parametrize("said", ["+1 message", "reads again, +12 messages", "+12 messages"])
async def test_the_reload_note_is_whole_on_one_line_and_takes_no_room_from_the_rest(
    tmp_path: Path, width: int, said: str
) -> None:
    app = SutureApp(_copy(WORKED, tmp_path), watch=False)
    async with app.run_test(size=(width, 30)) as pilot:
        await settled(pilot, app)
        before = drawn_in(app, app.status)
        app._note_reload(said)
        app.status.update_state(reloaded=(said, app.status.state.reloaded[1] - 9))  # type: ignore[index]
        await pilot.pause()
        lines = drawn_in(app, app.status)
        # What was said before is said as it was (the name is not cut to make room for it)...
        assert len(lines) >= len(before)
        assert all(new.rstrip().startswith(old.rstrip()) for old, new in zip(before, lines, strict=False)), (
            before,
            lines,
        )
        # ... and the note is whole on one of its lines, or not said at all.
        note = _note(app)
        assert "9 s ago" in note
        assert any(note in line for line in lines) or not any("↻" in line or "ago" in line for line in lines), lines
        if width >= 80:
            assert any(note in line for line in lines), lines
        # A minute later, with no new layout (the tick only draws the bar again), the note is
        # still whole and still shown where there was room for it.
        shown = any(note in line for line in lines)
        state = app.status.state
        app.status.state = msgspec.structs.replace(state, reloaded=(said, state.reloaded[1] - 60))  # type: ignore[index]
        app.status.refresh()
        await pilot.pause()
        later = drawn_in(app, app.status)
        note = _note(app)
        assert "min ago" in note
        assert len(later) == len(lines)
        assert any(note in line for line in later) == shown, (lines, later)
        assert [line for line in later if "↻" not in line] == [line for line in lines if "↻" not in line]


@pytest.mark.parametrize("width", (60, 80))
async def test_a_file_that_cannot_be_read_now_says_why_whole(tmp_path: Path, width: int) -> None:
    path = _copy(WORKED, tmp_path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(width, 30)) as pilot:
        await settled(pilot, app)
        app._note_reload("+1 message")
        path.write_text('{"messages": [')
        await pilot.press("r")
        await ready(pilot, app)
        error = app.status.state.error
        assert "not valid JSON" in error and "showing the last good version" in error
        lines = drawn_in(app, app.status)
        assert all(len(line.rstrip()) <= width for line in lines)
        # The error is said whole, each line of it within the width, under the file's figures.
        assert ("⚠ " + error) in words(lines), lines
        assert "suture" in lines[0]


@pytest.mark.parametrize("width", (60, 80, 100))
async def test_the_recorded_error_is_said_whole_within_the_width(tmp_path: Path, width: int) -> None:
    app = SutureApp(_copy(API_ERROR, tmp_path), watch=False)
    async with app.run_test(size=(width, 30)) as pilot:
        await settled(pilot, app)
        banner = app.query_one(Banner)
        recorded = banner.recorded
        assert recorded is not None and recorded.explanation is not None and recorded.explanation.found
        lines = drawn_in(app, banner)
        shown = words(lines)
        assert "…" not in "".join(lines), lines  # (the line of history not sent is whole too)
        # Every word of the error (JSON between spaces, folded where wider than a line).
        assert "".join(recorded.text.split()) in "".join(shown.split("recorded at")[0].split()), lines
        for said in (f"recorded at {recorded.source}", f"! goes to {recorded.target}", "E explains"):
            assert any(said in line for line in lines), (said, lines)
        assert any("s lists it" in line for line in lines), lines
        # A click on any line of the error still goes to it.
        app.view.select(0)
        await pilot.click(Banner, offset=(5, 2))
        await pilot.pause()
        assert app.view.cursor != 0


async def test_b_folds_the_recorded_error_to_one_line_and_unfolds_it(tmp_path: Path) -> None:
    # At 80x24 the error and what is said of it take most of the window's lines; folded, one,
    # and the panes get the rest. The line of history not sent stays.
    app = SutureApp(_copy(API_ERROR, tmp_path), watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot, app)
        banner = app.query_one(Banner)
        whole = drawn_in(app, banner)
        rows = app.view.size.height
        await pilot.press("b")
        await pilot.pause()
        folded = [line.strip() for line in drawn_in(app, banner)]
        assert folded[0].startswith("⚠ API Error: 400 {") and folded[0].endswith("… (b unfolds)"), folded
        assert any(line.rstrip().endswith("b folds") for line in whole)
        assert len(folded) == 2 and folded[1].startswith("⋯ ") and "s lists it" in folded[1], folded
        assert app.view.size.height == rows + len(whole) - len(folded)
        await pilot.press("b")
        await pilot.pause()
        assert drawn_in(app, banner) == whole and app.view.size.height == rows


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_b_folds_an_error_of_one_line_with_what_is_said_of_it(tmp_path: Path, size: tuple[int, int]) -> None:
    # The error's words take one line; where it was recorded and what it means take more: b
    # folds them all to the one line.
    source = ROOT / "sample_sessions" / "real" / "pi" / "large-session.jsonl"  # ("error: terminated")
    app = SutureApp(_copy(source, tmp_path), watch=False)
    async with app.run_test(size=size) as pilot:
        await settled(pilot, app)
        banner = app.query_one(Banner)
        whole = [line.strip() for line in drawn_in(app, banner)]
        assert whole[0] == "⚠ error: terminated" and whole[1].startswith("recorded at line 33"), whole
        assert any(line.endswith("b folds") for line in whole)
        await pilot.press("b")
        await pilot.pause()
        folded = [line.strip() for line in drawn_in(app, banner)]
        assert folded[0] == "⚠ error: terminated (b unfolds)", folded
        assert [line for line in folded if not line.startswith("⋯ ")] == folded[:1], folded


async def test_b_with_no_recorded_error_says_why(tmp_path: Path) -> None:
    app = SutureApp(_copy(WORKED, tmp_path), watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot, app)
        await pilot.press("b")
        await pilot.pause()
        assert [n.message for n in app._notifications][-1:] == ["the file records no API error to fold"]


@pytest.mark.parametrize("size", [(90, 30), (60, 24), (120, 40)])
async def test_a_notification_does_not_cover_the_bars(tmp_path: Path, size: tuple[int, int]) -> None:
    path = _copy(WORKED, tmp_path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=size, notifications=True) as pilot:
        await settled(pilot, app)
        await pilot.press("e")
        await ready(pilot, app)
        await pilot.press("enter")
        await ready(pilot, app)
        await pilot.pause(0.2)
        assert path.with_name("worked-example.repaired.json").exists()
        toasts = list(app.screen.query(Toast))
        assert toasts
        covered = [app.query_one(f"#{name}").region for name in ("status", "info", "keys")]
        for toast in toasts:
            assert toast.region.height, toast
            assert not any(toast.region.overlaps(bar) for bar in covered), (toast.region, covered)
            assert toast.region.intersection(app.screen.region) == toast.region


async def test_the_header_names_the_file_the_same_way_in_every_form(tmp_path: Path) -> None:
    # Opened by a long path: the header's long and short forms both name the file itself, so a
    # longer verdict that turns the line short does not turn the name into another.
    app = SutureApp(_copy(WORKED, tmp_path), watch=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await settled(pilot, app)
        for short in (False, True):
            assert app.status._first_line(short=short).plain.startswith("suture worked-example.json  "), short


async def test_the_info_line_of_a_json_document_names_the_records_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A JSON document's messages have a pointer ($[3]), not a line of their own: once read, the
    # line each record is on is found in a worker, and the info line names it beside the pointer.
    import suture.tui.app
    from suture.tui.bars import InfoBar

    path = _copy(WORKED, tmp_path)
    lines = path.read_text().splitlines()
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await settled(pilot, app)
        assert app.model is not None
        app.view.select(app.model.row_of_input[3])
        info = app.query_one("#info", InfoBar)
        for _ in range(100):  # a bound: the lines are found in a worker
            if "line " in info.render().plain:
                break
            await pilot.pause(0.05)
        said = info.render().plain.splitlines()[0]
        assert "Original #3 ($[3], line 8)" in said
        assert '"tool_call_id": "y"' in lines[7]
    # Larger than the bound: found only when the go-to box opens, the info line gives the pointer.
    monkeypatch.setattr(suture.tui.app, "DOCUMENT_LINES_AT_LOAD", 10)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await settled(pilot, app)
        assert app.model is not None
        app.view.select(app.model.row_of_input[3])
        await pilot.pause(0.3)
        assert "Original #3 ($[3])  →" in app.query_one("#info", InfoBar).render().plain


@pytest.mark.parametrize("width", (*WIDTHS, 70))
async def test_the_export_aside_is_said_at_every_width(tmp_path: Path, width: int) -> None:
    # The export writes this session unchanged (Claude Code sends its moved results as written):
    # a narrow header cuts the file's name or leaves its format out, never that aside, which
    # would have it say the export moves two results.
    sample = ROOT / "sample_sessions" / "real" / "claude-code" / "tool_heavy.jsonl"
    app = SutureApp(_copy(sample, tmp_path), watch=False)
    async with app.run_test(size=(width, 24)) as pilot:
        await settled(pilot, app)
        lines = drawn_in(app, app.status)
        shown = " ".join(line.strip() for line in lines)
        assert "2 moved" in shown and "(export: unchanged)" in shown, lines
        assert "anthropic: no problems" in shown, lines
        if width >= 80:  # on one line
            assert "2 moved (export: unchanged)  anthropic: no problems" in lines[0], lines


@given(
    st.text(alphabet=st.sampled_from("ab (.)'漢é:"), min_size=1, max_size=300),
    st.integers(24, 200),
)
def test_a_line_cut_in_the_middle_keeps_its_start_and_end_within_the_width(plain: str, width: int) -> None:
    line = Text(plain)
    cut = cut_middle(line, width)
    if line.cell_len <= width:
        assert cut.plain == plain
        return
    if cell_len(plain.rstrip()) <= width:  # (its trailing spaces taken off, it fits)
        assert cut.plain == plain.rstrip()
        return
    assert cut.cell_len <= width
    head, _, end = cut.plain.partition("…")
    assert plain.rstrip().endswith(end) and end.strip()  # (trailing spaces taken off first)
    assert cell_len(end) >= width // 3 - 13  # (at most a word less than a third)
    assert plain.startswith(head.rstrip())


@pytest.mark.parametrize("width", (100, 120, 160))
async def test_a_providers_error_under_the_panes_keeps_what_it_points_at(tmp_path: Path, width: int) -> None:
    # OpenAI's error ends with the parameter it points at: a line too long for the window is cut
    # in the middle, so that stays.
    from suture.cli.view import demo_path
    from suture.tui.bars import InfoBar

    app = SutureApp(_copy(demo_path(), tmp_path), watch=False)
    async with app.run_test(size=(width, 40)) as pilot:
        await settled(pilot, app)
        await pilot.press("x")
        await pilot.pause()
        said = words(drawn_in(app, app.query_one("#info", InfoBar)))
        assert " O2 " in said and "…" in said
        assert said.endswith("(param: messages.[4].role)")
