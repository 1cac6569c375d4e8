"""The lists beside the panes, moved between as lazygit's panels are: Tab passes a list with
nothing to choose by, h (or ←, esc) goes back to the panes, l (or →) on the Repaired side, the
rightmost, goes on to the lists. The line under the panes says a list's selected line whole,
where the list cuts it to its width: a heading carries the verdict."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from suture.tui.app import SutureApp
from suture.tui.bars import InfoBar
from suture.tui.changes import ChangeList, ProblemList
from suture.tui.keys import KeyBar
from tests.helpers.app import ROOT, settled

REAL = ROOT / "sample_sessions" / "real" / "claude-code"
NOTHING_CHANGED = REAL / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
SHORT = REAL / "short.jsonl"


def info(app: SutureApp) -> str:
    return app.screen_stack[0].query_one("#info", InfoBar).render().plain


async def test_tab_passes_a_list_with_nothing_to_choose(tmp_path: Path) -> None:
    app = SutureApp(NOTHING_CHANGED, watch=False)
    async with app.run_test(size=(160, 45), notifications=True) as pilot:
        await settled(pilot, app)
        assert not app.query_one("#changes", ChangeList).items
        problems = app.query_one("#problems", ProblemList)
        assert problems.items
        await pilot.press("tab")
        assert app.focused is problems
        keys = app.query_one("#keys", KeyBar)
        assert "Jump to row" in [k.description for k in keys.fitted(80)]  # enter, in a list
        await pilot.press("tab")
        assert app.focused is app.view
        await pilot.click("#changes")  # nothing there to choose: the click leaves the focus be
        assert app.focused is app.view


async def test_h_goes_back_to_the_panes_and_l_on_to_the_lists() -> None:
    app = SutureApp(SHORT, watch=False)
    async with app.run_test(size=(160, 45), notifications=True) as pilot:
        await settled(pilot, app)
        problems = app.query_one("#problems", ProblemList)
        assert app.focused is app.view and app.view.side == 1
        await pilot.press("l")  # the Repaired side is the rightmost: on to the lists
        assert app.focused is problems
        assert app.view.side == 1
        await pilot.press("h")
        assert app.focused is app.view and app.view.side == 1
        await pilot.press("h")  # the view's own h: the Original side
        assert app.focused is app.view and app.view.side == 0
        await pilot.press("l")
        assert app.focused is app.view and app.view.side == 1
        await pilot.press("right", "left")
        assert app.focused is app.view and app.view.side == 1
        # In a narrow window the lists are below the panes, not right of them: l stays.
        await pilot.resize_terminal(100, 40)
        await pilot.pause()
        await pilot.press("c")
        assert app.query_one("#sidebar").display
        await pilot.press("l", "l")
        assert app.focused is app.view and app.view.side == 1


async def test_the_selected_heading_is_said_whole_under_the_panes() -> None:
    app = SutureApp(SHORT, watch=False)
    async with app.run_test(size=(160, 30), notifications=True) as pilot:
        await settled(pilot, app)
        problems = app.query_one("#problems", ProblemList)
        await pilot.press("tab")
        assert app.focused is problems
        said = info(app)
        assert said.startswith("(Claude Code ") and said.endswith(" is assumed)")
        assert "…" not in said
        await pilot.press("j")
        assert info(app) == "In what Claude Code sends: nothing anthropic rejects"
        await pilot.press("G")  # a problem left after repair: its whole text, wrapped
        whole = problems.line(len(problems.items) - 1, app.screen.rich_style).plain.strip()
        assert " ".join(info(app).split()) == " ".join(whole.split())
        assert "…" not in info(app)
        await pilot.press("h")  # back in the panes: the row's place again
        assert info(app).startswith("row ")


async def test_a_line_longer_than_the_bar_takes_more_lines() -> None:
    app = SutureApp(SHORT, watch=False)
    async with app.run_test(size=(160, 45), notifications=True) as pilot:
        await settled(pilot, app)
        bar = app.query_one("#info", InfoBar)
        bar.show_listed(Text("word " * 400))
        await pilot.pause()
        assert bar.size.height == InfoBar.LISTED_LINES
        assert bar.render().plain.endswith("…")
        bar.show_listed(None)
        await pilot.pause()
        assert bar.size.height == InfoBar.HEIGHT


async def test_what_an_empty_list_says_is_wrapped_whole() -> None:
    app = SutureApp(NOTHING_CHANGED, watch=False)
    async with app.run_test(size=(160, 45), notifications=True) as pilot:
        await settled(pilot, app)
        changes = app.query_one("#changes", ChangeList)
        changes.empty = "the repair changes nothing here, and this sentence is longer than the list is wide"
        changes.refresh()
        await pilot.pause()
        drawn = " ".join("".join(s.text for s in changes.render_line(y)).strip() for y in range(3))
        assert drawn.strip() == changes.empty
