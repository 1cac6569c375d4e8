"""The app at any terminal size, and in every state: what shows, what the footer offers."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import orjson
import pytest
from textual.widgets import Static

from suture.live import Update
from suture.tui.app import SutureApp
from suture.tui.keys import KeyBar
from tests.helpers.app import ROOT, WORKED, ready, screen_text

SMALL = (80, 24)


@pytest.fixture
def worked(tmp_path: Path) -> Path:
    path = tmp_path / "worked-example.json"
    shutil.copy(WORKED, path)
    return path


def footer(app: SutureApp) -> str:
    return app.screen.query_one(KeyBar).render().plain


def shown_keys(app: SutureApp) -> set[str]:
    return {k.action for k in app.screen.query_one(KeyBar).fitted(app.size.width)}


async def test_narrow_window_gives_the_panes_the_width(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await ready(pilot, app)
        sidebar = app.query_one("#sidebar")
        assert not sidebar.display
        assert app.view.size.width == 80
        lines = screen_text(app).splitlines()
        # Message text shows in both panes, roles in four letters, badges as one symbol.
        assert lines[0].count("user fix the build") == 2
        assert lines[1].count("asst → read_file x, run_tests y") == 2
        dropped = next(line for line in lines if "dropped, not sent" in line)
        assert "✕" in dropped and "✕ dropped" not in dropped
        # c shows the lists below the panes, c again hides them.
        await pilot.press("c")
        await pilot.pause()
        assert sidebar.display
        assert sidebar.region.y > app.view.region.y
        assert sidebar.region.width == 80
        assert app.view.size.width == 80
        await pilot.press("c")
        await pilot.pause()
        assert not sidebar.display


@pytest.mark.parametrize("size", [(60, 15), (40, 12), (80, 24)])
async def test_a_short_window_with_the_lists_below_keeps_rows_in_the_panes(worked: Path, size: tuple[int, int]) -> None:
    """The lists below the panes take at most half their height: the panes keep rows to read."""
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=size) as pilot:
        await ready(pilot, app)
        await pilot.press("c")
        await pilot.pause()
        sidebar = app.query_one("#sidebar")
        assert sidebar.display and sidebar.region.y > app.view.region.y
        main = app.query_one("#main")
        assert sidebar.region.height <= main.region.height // 2
        assert app.view.size.height >= 2  # (at 40x12: 6 lines between the bars, 3 for the lists)
        rows = screen_text(app).splitlines()
        assert len(rows) == app.view.size.height and all(
            " asst " in row or " tool " in row or " user " in row for row in rows
        )


async def test_lists_move_with_the_width(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(200, 40)) as pilot:
        await ready(pilot, app)
        sidebar = app.query_one("#sidebar")
        assert sidebar.display and sidebar.region.x > app.view.region.x
        wide = sidebar.region.width
        await pilot.resize_terminal(130, 40)
        await pilot.pause()
        assert sidebar.display and sidebar.region.width < wide
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert not sidebar.display
        assert app.view.size.width == 100
        await pilot.resize_terminal(160, 40)
        await pilot.pause()
        assert sidebar.display


@pytest.mark.parametrize("selected", [29, 40, 60])
async def test_a_smaller_window_keeps_the_selected_row_in_sight(tmp_path: Path, selected: int) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copy(ROOT / "sample_sessions" / "real" / "pi" / "large-session.jsonl", path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(pilot, app)
        assert app.model is not None
        app.view.select(app.model.row_of_input[selected], center=True)
        await pilot.pause()
        for size in ((80, 24), (100, 30), (60, 20)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            view = app.view
            top, height = int(view.scroll_y), view.scrollable_content_region.height
            assert top <= view._pos(view.cursor) < top + height, (size, top, height, view.cursor)


@pytest.mark.parametrize("width", [30, 50, 64, 80, 100, 120, 160, 200])
async def test_the_footer_fits_and_never_garbles(worked: Path, width: int) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(width, 24)) as pilot:
        await ready(pilot, app)
        bar = app.screen.query_one(KeyBar)
        line = footer(app)
        assert len(line) <= width
        fitted = bar.fitted(width)
        # Every key shown is whole: its key, a space and its description, in order.
        at = 0
        for key in fitted:
            entry = f"{key.key} {key.description}"
            found = line.find(entry, at)
            assert found >= 0, (entry, line)
            at = found + len(entry)
        # Help and quit stay to the last; more keys as the window widens.
        if width >= 30:
            assert "? Help" in line and "q Quit" in line
        if width >= 160:
            assert {"next_change", "search", "export"} <= shown_keys(app)
        if width >= 200:
            assert "previous_change" in shown_keys(app)


async def test_the_footer_runs_a_clicked_key(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await ready(pilot, app)
        line = footer(app)
        await pilot.click(KeyBar, offset=(line.index("? Help"), 0))
        await pilot.pause()
        assert app.screen is not app.screen_stack[0]


def _bad(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


ROWS_KEYS = {"next_change", "previous_change", "search", "copy", "export", "follow", "pick_provider", "toggle_changes"}


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("broken.json", b'[{"role": "user", "content": "hi"', "cannot read"),
        ("not-a-transcript.json", b'{"hello": "world"}', "cannot read"),
        ("empty.jsonl", b"", "cannot read"),
        ("no-messages.json", b"[]", "holds no messages"),
    ],
)
async def test_empty_and_broken_files_say_so_in_the_middle(tmp_path: Path, name: str, data: bytes, says: str) -> None:
    path = _bad(tmp_path, name, data)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await ready(pilot, app)
        state = app.query_one("#state", Static)
        assert state.display and not app.view.display
        said = str(state.render())
        assert says in said
        # Centred: the message's box is the panes' whole area, its text aligned in the middle.
        assert state.styles.content_align == ("center", "middle")
        # The lists are blank (hidden), and no "valid as it is" or "checking…" is claimed.
        assert not app.query_one("#sidebar").display
        everything = " ".join(str(w.render()) for w in app.query(Static) if w.display)
        assert "valid as it is" not in everything and "checking" not in everything
        # Keys that need rows are not offered.
        assert not ROWS_KEYS & shown_keys(app)
        assert "? Help" in footer(app) and "q Quit" in footer(app)
        await pilot.press("n", "slash", "e", "p", "y", "f", "c")
        assert app.screen is app.screen_stack[0] and app.is_running


async def test_loading_says_what_it_reads(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    gate = threading.Event()
    poll = app.live.poll

    def slow_poll(**kwargs: bool) -> Update:
        gate.wait(10)
        return poll(**kwargs)

    app.live.poll = slow_poll  # type: ignore[method-assign]
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        state = app.query_one("#state", Static)
        said = str(state.render())
        assert state.display and "reading" in said and "worked-example.json (828 B)" in said
        assert not app.query_one("#sidebar").display
        assert not ROWS_KEYS & shown_keys(app)
        gate.set()
        await ready(pilot, app)
        assert not state.display and app.view.display and app.view.has_focus
        assert "search" in shown_keys(app)


async def test_a_file_that_becomes_readable_shows_its_rows(tmp_path: Path) -> None:
    path = _bad(tmp_path, "later.json", b"[")
    app = SutureApp(path, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await ready(pilot, app)
        assert app.query_one("#state").display
        path.write_bytes(orjson.dumps([{"role": "user", "content": "hello there"}]))
        await pilot.press("r")
        await ready(pilot, app)
        assert not app.query_one("#state").display
        assert "hello there" in screen_text(app)
        assert "search" in shown_keys(app)
        assert app.status.render().plain.count("↻ reads again") == 1


async def test_keys_that_cannot_act_leave_the_footer(tmp_path: Path) -> None:
    # A clean transcript: nothing to jump to with n/N.
    path = _bad(tmp_path, "clean.json", orjson.dumps([{"role": "user", "content": "hi"}]))
    app = SutureApp(path, watch=False)
    async with app.run_test(size=(200, 30)) as pilot:
        await ready(pilot, app)
        assert "next_change" not in shown_keys(app)
        assert "search" in shown_keys(app)


@pytest.mark.parametrize(("size", "labels"), [((160, 40), ("branch ", "bash ")), ((100, 30), ("brch ", "bash "))])
async def test_pi_roles_longer_than_the_column_are_labelled_whole(
    tmp_path: Path, size: tuple[int, int], labels: tuple[str, str]
) -> None:
    """pi's branchSummary and bashExecution messages are labelled in words the role column holds
    (they were cut to 'branchSu…' and 'bashExec…'); the details keep the role as written."""
    path = tmp_path / "session.jsonl"
    shutil.copy(ROOT / "sample_sessions" / "pi" / "branched-aborted.jsonl", path)
    app = SutureApp(path, watch=False)
    async with app.run_test(size=size) as pilot:
        await ready(pilot, app)
        text = screen_text(app)
        for label in labels:
            assert text.count(f" {label}") == 2, text  # (both panes)
        assert "branchSu…" not in text and "bashExec…" not in text


@pytest.mark.parametrize("size", [(200, 45), (160, 45), (100, 30)], ids=["wide", "beside", "below"])
async def test_what_the_screen_draws_blank_has_no_border_and_is_covered(worked: Path, size: tuple[int, int]) -> None:
    """The screen and the containers drawn as blank strips of their background (Textual's
    ``BLANK``) have no border or padding in any layout, and their children cover them whole: drawn
    one line at a time, they would show nothing more."""
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=size) as pilot:
        await ready(pilot, app)
        if size[0] < app.NARROW_BELOW:
            await pilot.press("c")  # the lists below the panes
            await pilot.pause()
        blank = [w for w in (app.screen, *app.screen.walk_children()) if w.BLANK]
        assert {w.id for w in blank} >= {"_default", "main", "panes", "changes-box"}
        for widget in blank:
            assert widget.styles.gutter.width == widget.styles.gutter.height == 0, widget.id
            # (the screen's toasts and tooltips lie over it, on layers of their own)
            shown = [c for c in widget.children if c.display and not c.styles.layer and c.styles.overlay != "screen"]
            covered = sum(
                c.outer_size.height if widget.styles.layout.name == "vertical" else c.outer_size.width for c in shown
            )
            room = widget.size.height if widget.styles.layout.name == "vertical" else widget.size.width
            assert covered == room, (widget.id, [(c.id, c.outer_size) for c in shown])
