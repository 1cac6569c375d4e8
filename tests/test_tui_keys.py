"""j/k, g/G, Esc and q mean the same in every list and dialog of the app."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.widgets import OptionList

from suture.tui.app import SutureApp
from suture.tui.changes import ChangeList
from suture.tui.details import DetailScreen
from suture.tui.screens import ConfirmScreen, HelpScreen, ProviderScreen
from tests.helpers.app import WORKED, ready, settled


@pytest.fixture
def worked(tmp_path: Path) -> Path:
    path = tmp_path / "worked-example.json"
    shutil.copy(WORKED, path)
    return path


async def test_provider_picker_moves_with_j_k_g_G(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot, app)
        await pilot.press("p")
        assert isinstance(app.screen, ProviderScreen)
        options = app.screen.query_one(OptionList)
        start = options.highlighted
        assert start is not None
        await pilot.press("j")
        assert options.highlighted == start + 1
        await pilot.press("k")
        assert options.highlighted == start
        await pilot.press("G")
        assert options.highlighted == options.option_count - 1
        await pilot.press("g")
        assert options.highlighted == 0
        await pilot.press("q")
        assert app.screen is app.screen_stack[0]
        await pilot.press("p", "escape")
        assert app.screen is app.screen_stack[0]


async def test_help_scrolls_with_j_k_g_G(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        box = app.screen.query_one("#help-box", VerticalScroll)
        assert box.max_scroll_y > 2  # at 80×24 the help is longer than the box
        await pilot.press("j", "j")
        await pilot.pause()
        assert box.scroll_y == 2
        await pilot.press("k")
        await pilot.pause()
        assert box.scroll_y == 1
        await pilot.press("G")
        await pilot.pause()
        assert box.scroll_y == box.max_scroll_y
        await pilot.press("g")
        await pilot.pause()
        assert box.scroll_y == 0
        await pilot.press("q")
        assert app.screen is app.screen_stack[0]
        await pilot.press("question_mark", "escape")
        assert app.screen is app.screen_stack[0]


async def test_details_scroll_with_j_k_g_G(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app)
        await pilot.press("enter")
        assert isinstance(app.screen, DetailScreen)
        side = app.screen.focused
        assert isinstance(side, VerticalScroll)
        await pilot.press("j")
        await pilot.pause()
        assert side.scroll_y == min(1, side.max_scroll_y)
        await pilot.press("G")
        await pilot.pause()
        assert side.scroll_y == side.max_scroll_y
        await pilot.press("g")
        await pilot.pause()
        assert side.scroll_y == 0
        await pilot.press("q")
        assert app.screen is app.screen_stack[0] and app.is_running
        await pilot.press("enter", "escape")
        assert app.screen is app.screen_stack[0]


async def test_changes_list_keys_and_escape_back_to_the_panes(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot, app)
        await pilot.press("tab")
        changes = app.query_one("#changes", ChangeList)
        assert changes.has_focus
        await pilot.press("G")
        assert changes.cursor == len(changes.items) - 1
        await pilot.press("g", "j")
        assert changes.cursor == 1
        await pilot.press("k")
        assert changes.cursor == 0
        await pilot.press("escape")
        assert app.view.has_focus


async def test_confirm_dialog_q_is_no(worked: Path) -> None:
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app)
        answers: list[bool | None] = []
        app.push_screen(ConfirmScreen("Overwrite?"), answers.append)
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert answers == [False] and app.is_running


async def test_export_with_an_empty_path_says_why_and_stays_open(worked: Path) -> None:
    from textual.widgets import Input, Label

    from suture.tui.screens import ExportScreen

    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, app)
        before = sorted(p.name for p in worked.parent.iterdir())
        await pilot.press("e")
        await ready(pilot, app)
        screen = app.screen
        assert isinstance(screen, ExportScreen)
        box = screen.query_one("#export-path", Input)
        await pilot.press("ctrl+u", "enter")
        await pilot.pause()
        assert box.value == ""
        assert app.screen is screen  # not closed
        why = screen.query_one("#export-why", Label)
        assert why.display and "Nothing written: the path is empty" in str(why.render())
        assert sorted(p.name for p in worked.parent.iterdir()) == before
        # Typed (or pasted) fast after clearing, the path is written to.
        await pilot.press(*str(worked.parent / "out.json"), "enter")
        await ready(pilot, app)
        assert (worked.parent / "out.json").exists()


async def test_readme_names_every_key_the_key_bar_shows(worked: Path) -> None:
    # The key table of README's app section has a row for each key the key bar can show.
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("| key | does |") :].split("\n\n")[0]
    named = {word for row in table.splitlines()[2:] for word in row.split("|")[1].replace(",", " ").split()}
    app = SutureApp(worked, watch=False)
    async with app.run_test(size=(80, 24)):
        shown = [b for bound in app._bindings.key_to_bindings.values() for b in bound if b.show]
        missing = [app.get_key_display(b) for b in shown if app.get_key_display(b) not in named]
    assert len(shown) > 10 and not missing, missing
